//! What a repository handle learns about attribute sources, so a path in
//! a repository without attributes costs no libgit2 attribute lookup
//! (issue 14 item 1: about 12 per changed file, each re-stat'ing
//! `.gitattributes` in every parent directory): whether any source outside
//! the working tree exists, which directories the index tracks a
//! `.gitattributes` in, and which working-tree directories hold one. A path
//! is unattributed when none of its directories (the top included) has
//! one either way: a `.gitattributes` applies to its own directory and
//! below, and macros (`[attr]`) are defined only at the top or outside the
//! working tree. Owned by `git::Repo`; `filters` and propose's scan ask it.
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::RepoPath;
use crate::formats::index::IndexFile;
use crate::types::path::fs_path;

/// See the module.
#[derive(Debug, Clone)]
pub struct Sources {
    none_outside: bool,
    indexed: Indexed,
    dirs: HashMap<Vec<u8>, bool>,
}

/// Where the index tracks a `.gitattributes`.
#[derive(Debug, Clone)]
pub enum Indexed {
    /// In these directories (`""`: the top); empty when nowhere.
    Dirs(HashSet<Vec<u8>>),
    /// The index could not be read: anywhere, for all we know.
    Unknown,
}

fn exists(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

/// The directories in which `index` tracks a `.gitattributes`.
pub fn indexed_dirs(index: &IndexFile) -> Indexed {
    let dirs = index
        .entries
        .iter()
        .filter_map(|e| {
            if e.path == b".gitattributes" {
                Some(Vec::new())
            } else {
                e.path.strip_suffix(b"/.gitattributes").map(<[u8]>::to_vec)
            }
        })
        .collect();
    Indexed::Dirs(dirs)
}

impl Sources {
    /// Looks for the sources outside the working tree; `indexed` says
    /// where the index tracks a `.gitattributes`.
    /// `configured` is `core.attributesFile` as the config adapter reads
    /// it (`git -c core.attributesFile=…` too).
    pub fn new(repo: &git2::Repository, indexed: Indexed, configured: Option<PathBuf>) -> Self {
        let mut outside = vec![
            repo.commondir().join("info/attributes"),
            repo.path().join("info/attributes"),
        ];
        if std::env::var_os("GIT_ATTR_NOSYSTEM").is_none() {
            outside.push("/etc/gitattributes".into());
        }
        match configured {
            Some(p) => outside.push(p),
            None => {
                let xdg = std::env::var_os("XDG_CONFIG_HOME")
                    .map(PathBuf::from)
                    .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".config")));
                if let Some(x) = xdg {
                    outside.push(x.join("git/attributes"));
                }
            }
        }
        Sources {
            none_outside: !outside.iter().any(|p| exists(p)),
            indexed,
            dirs: HashMap::new(),
        }
    }

    /// Whether no attribute can apply to `path` (relative to `workdir`): no
    /// source outside the working tree, and no `.gitattributes` in any of
    /// its directories, tracked or in the working tree. `false` only means
    /// "ask libgit2".
    pub fn surely_unattributed(&mut self, workdir: &Path, path: &RepoPath) -> bool {
        if !self.none_outside {
            return false;
        }
        let indexed = match &self.indexed {
            Indexed::Dirs(dirs) => dirs,
            Indexed::Unknown => return false,
        };
        let mut dir: Vec<u8> = Vec::new();
        let mut parts = path.as_bytes().split(|&b| b == b'/').peekable();
        while let Some(part) = parts.next() {
            let has = match self.dirs.get(&dir) {
                Some(&has) => has,
                None => {
                    let has = indexed.contains(&dir)
                        || exists(&workdir.join(fs_path(&dir)).join(".gitattributes"));
                    self.dirs.insert(dir.clone(), has);
                    has
                }
            };
            if has {
                return false;
            }
            if parts.peek().is_none() {
                break;
            }
            if !dir.is_empty() {
                dir.push(b'/');
            }
            dir.extend_from_slice(part);
        }
        true
    }
}
