//! The object directories a repository reads from (its own, its
//! alternates', git's environment's) and the packs in them, mapped and
//! shared by the reading threads.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

use memmap2::Mmap;

use super::delta::BaseCache;
use super::pack_index::PackIndex;
use crate::error::Error;

/// git's limit on nested alternates.
const MAX_ALTERNATE_DEPTH: usize = 5;

pub(super) struct Pack {
    pub(super) index: PackIndex,
    pub(super) map: Mmap,
    pub(super) path: PathBuf,
}

impl Pack {
    /// The error of a damaged entry at `at`.
    pub(super) fn damaged(&self, at: u64) -> Error {
        Error::Corrupt {
            what: self.path.display().to_string(),
            message: format!(
                "pack {} is damaged at offset {at} (`git fsck` names what is wrong)",
                self.path.display()
            ),
        }
    }
}

/// The object directories and their packs, shared by the reading threads.
pub struct ObjectStore {
    pub(super) dirs: Vec<PathBuf>,
    packs: RwLock<Arc<Vec<Arc<Pack>>>>,
    pub(super) bases: Mutex<BaseCache>,
}

impl ObjectStore {
    /// The object store of the repository whose common git dir is
    /// `common_dir`.
    /// `cache_bytes`: how many bytes of delta bases the readers keep.
    pub fn open(common_dir: &Path, cache_bytes: usize) -> ObjectStore {
        let mut dirs = Vec::new();
        if let Some(dir) = std::env::var_os("GIT_OBJECT_DIRECTORY") {
            add_with_alternates(PathBuf::from(dir), 0, &mut dirs);
        }
        add_with_alternates(common_dir.join("objects"), 0, &mut dirs);
        if let Some(list) = std::env::var_os("GIT_ALTERNATE_OBJECT_DIRECTORIES") {
            for dir in std::env::split_paths(&list) {
                add_with_alternates(dir, 0, &mut dirs);
            }
        }
        let store = ObjectStore {
            dirs,
            packs: RwLock::new(Arc::new(Vec::new())),
            bases: Mutex::new(BaseCache::new(cache_bytes)),
        };
        store.reread_packs();
        store
    }

    /// Opens every pack not yet open; returns the packs now known. Packs
    /// once open stay open (and in the same place in the list: the delta
    /// base caches name packs by position).
    pub(super) fn reread_packs(&self) -> Arc<Vec<Arc<Pack>>> {
        let mut packs = self.packs.write().unwrap_or_else(|e| e.into_inner());
        let known: Vec<&Path> = packs.iter().map(|p| p.path.as_path()).collect();
        let mut found = Vec::new();
        for dir in &self.dirs {
            let Ok(entries) = std::fs::read_dir(dir.join("pack")) else {
                continue;
            };
            let mut names: Vec<PathBuf> = entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "idx"))
                .collect();
            names.sort();
            for idx in names {
                let pack = idx.with_extension("pack");
                if known.contains(&pack.as_path()) {
                    continue;
                }
                let (Some(index), Some(map)) = (PackIndex::open(&idx), super::map_file(&pack))
                else {
                    continue;
                };
                if pack_header_matches(&map, index.count()) {
                    found.push(Arc::new(Pack {
                        index,
                        map,
                        path: pack,
                    }));
                }
            }
        }
        if !found.is_empty() {
            // A new list (readers hold the old one); packs already open
            // stay, readable even if a gc deleted their files since.
            let mut all: Vec<Arc<Pack>> = packs.iter().cloned().collect();
            all.extend(found);
            *packs = Arc::new(all);
        }
        Arc::clone(&packs)
    }

    /// The packs open now.
    pub(super) fn packs(&self) -> Arc<Vec<Arc<Pack>>> {
        Arc::clone(&self.packs.read().unwrap_or_else(|e| e.into_inner()))
    }
}

/// Adds `dir` and, recursively, the alternates it lists.
fn add_with_alternates(dir: PathBuf, depth: usize, dirs: &mut Vec<PathBuf>) {
    let dir = dir.canonicalize().unwrap_or(dir);
    if dirs.contains(&dir) || depth > MAX_ALTERNATE_DEPTH {
        return;
    }
    let list = std::fs::read(dir.join("info").join("alternates")).unwrap_or_default();
    dirs.push(dir.clone());
    for line in list.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() || line.starts_with(b"#") {
            continue;
        }
        // git writes a path with odd bytes C-quoted (`"a\\tb/objects"`) and
        // unquotes a line that starts with `"`; one it cannot unquote it
        // reads as it is, and so does this.
        let bytes = match unquote_c(line) {
            Some(unquoted) => unquoted,
            None => line.to_vec(),
        };
        let path = crate::types::path::fs_path(&bytes);
        let alt = if path.is_absolute() {
            path.to_path_buf()
        } else {
            dir.join(path)
        };
        add_with_alternates(alt, depth + 1, dirs);
    }
}

/// A C-quoted string (`"…"` with `\\`, `\"`, `\t`-style and `\NNN` octal
/// escapes, as git quotes names) unquoted; `None` when `line` is not one.
pub(super) fn unquote_c(line: &[u8]) -> Option<Vec<u8>> {
    let (bytes, rest) = evolv_core::c_quote::unquote(line)?;
    rest.is_empty().then_some(bytes)
}

/// Whether `map` starts as a pack of `count` objects.
fn pack_header_matches(map: &[u8], count: usize) -> bool {
    let Some(head) = map.get(..12) else {
        return false;
    };
    let version = u32::from_be_bytes([head[4], head[5], head[6], head[7]]);
    let n = u32::from_be_bytes([head[8], head[9], head[10], head[11]]) as usize;
    &head[..4] == b"PACK" && (version == 2 || version == 3) && n == count
}
