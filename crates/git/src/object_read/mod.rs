//! Reads blobs from git's object store on several threads at once, for
//! propose's scan. libgit2 reads a pack under one lock per pack, so a
//! second reading thread only waited (issue 14 item 2: the real-code scan
//! was bound by one thread's reads). This reader shares only the mapped
//! mapped pack indexes and packs and one cache of delta bases (the threads
//! read neighbouring files, which share bases); each thread has its own
//! zlib stream.
//!
//! Objects are found where git finds them: the packs and the loose objects
//! of the repository's object directory, of every alternate it lists
//! (`objects/info/alternates`, followed as git follows it), and of
//! `GIT_OBJECT_DIRECTORY` and `GIT_ALTERNATE_OBJECT_DIRECTORIES`. Looking
//! in more places than needed is harmless: an object is named by its hash.
//! A pack that appears during the scan (a `git gc` or fetch beside it) is
//! picked up when an object is missing, as git rereads its pack directory.

mod delta;
mod inflate;
mod pack_index;

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

use crate::Oid;
use memmap2::{Mmap, UncheckedAdvice};

use self::delta::BaseCache;
pub use self::inflate::inflate_exact;
use self::inflate::{Inflater, Step};
use self::pack_index::PackIndex;
use crate::error::{Error, Result};

/// Pack entry types (git's `object_type`).
const OBJ_BLOB: u8 = 3;
const OBJ_OFS_DELTA: u8 = 6;
const OBJ_REF_DELTA: u8 = 7;
/// git's limit on nested alternates.
const MAX_ALTERNATE_DEPTH: usize = 5;
/// Deltas in one chain past which a pack is taken as damaged (git's
/// `pack.depth` is at most 4095).
const MAX_CHAIN: usize = 10_000;
/// Bytes of a large delta read to learn what its first bytes make.
const DELTA_HEAD: usize = 64 << 10;
/// Bytes of packs a reader reads between letting go of the mapped pages
/// (`Reader::release_pages`): a mapped page read stays counted in the
/// process's RSS until then. Packs are mapped whole, as git maps them (a
/// `pread` per object was a quarter of a 30,000-file scan, in the kernel).
/// On the real-code benchmark a release every 16 MiB left the peak RSS at
/// 91–94 MiB, every MiB at 82–85 MiB, in the same time.
const RELEASE_EVERY: usize = 1 << 20;

struct Pack {
    index: PackIndex,
    map: Mmap,
    path: PathBuf,
}

/// The object directories and their packs, shared by the reading threads.
pub struct ObjectStore {
    dirs: Vec<PathBuf>,
    packs: RwLock<Arc<Vec<Arc<Pack>>>>,
    bases: Mutex<BaseCache>,
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
    fn reread_packs(&self) -> Arc<Vec<Arc<Pack>>> {
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
                let (Some(index), Some(map)) = (PackIndex::open(&idx), map_file(&pack)) else {
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

    /// A reader for one thread.
    pub fn reader(&self) -> Result<Reader<'_>> {
        Ok(Reader {
            store: self,
            packs: Arc::clone(&self.packs.read().unwrap_or_else(|e| e.into_inner())),
            inflater: Inflater::new().ok_or_else(|| Error::Internal {
                at: "the object reader's zlib",
                message: "zlib could not set up a stream (out of memory?)".into(),
            })?,
            read_since_release: 0,
            #[cfg(test)]
            skipped_through_delta: 0,
        })
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
        let path = crate::path::fs_path(&bytes);
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
fn unquote_c(line: &[u8]) -> Option<Vec<u8>> {
    let (bytes, rest) = evolv_core::c_quote::unquote(line)?;
    rest.is_empty().then_some(bytes)
}

/// `path` mapped read-only.
fn map_file(path: &Path) -> Option<Mmap> {
    let file = File::open(path).ok()?;
    // SAFETY of the mapping (inside memmap2): git writes packs and their
    // indexes whole under a temporary name and renames them into place;
    // they are never changed or cut in place, only deleted, which leaves
    // the mapping valid.
    #[allow(unsafe_code)]
    let map = unsafe { Mmap::map(&file) }.ok()?;
    Some(map)
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

/// What a pack entry's header says.
struct Entry {
    kind: u8,
    size: usize,
    /// Where its zlib stream starts.
    data_at: u64,
    base: Base,
}

enum Base {
    None,
    /// An earlier entry of the same pack.
    At(u64),
    /// An object by id, anywhere.
    Id(Oid),
}

/// One thread's reader.
pub struct Reader<'s> {
    store: &'s ObjectStore,
    packs: Arc<Vec<Arc<Pack>>>,
    inflater: Inflater,
    /// Bytes of packs read since `release_pages` last let go of them.
    read_since_release: usize,
    #[cfg(test)]
    skipped_through_delta: usize,
}

impl Reader<'_> {
    /// The content of the blob `id`.
    pub fn blob(&mut self, id: Oid) -> Result<Vec<u8>> {
        self.blob_unless(id, &Peek::NONE)
            .map(|data| data.unwrap_or_default())
    }

    /// The content of the blob `id`, or `None` when `peek` says to skip
    /// it from its first bytes. A blob stored whole is then not inflated
    /// further (a 10 MB library archive costs its first 8,000 bytes); one
    /// stored as a delta is made whole first.
    pub fn blob_unless(&mut self, id: Oid, peek: &Peek<'_>) -> Result<Option<Vec<u8>>> {
        let Some((kind, data)) = self.object(id, 0, peek)? else {
            return Ok(None);
        };
        if kind != OBJ_BLOB {
            return Err(Error::Corrupt {
                what: format!("object {id}"),
                message: format!(
                    "object {id} is listed as a file but is not a blob (`git fsck` names what is wrong)"
                ),
            });
        }
        let data = Arc::try_unwrap(data).unwrap_or_else(|shared| (*shared).clone());
        #[cfg(debug_assertions)]
        check_hash(id, kind, &data)?;
        if (peek.skip)(&data[..data.len().min(peek.len)]) {
            return Ok(None);
        }
        Ok(Some(data))
    }

    /// The object `id` (`None`: skipped by `peek`).
    fn object(
        &mut self,
        id: Oid,
        depth: usize,
        peek: &Peek<'_>,
    ) -> Result<Option<(u8, Arc<Vec<u8>>)>> {
        if depth > MAX_CHAIN {
            return Err(damaged_chain(id));
        }
        let key: [u8; 20] = id.as_bytes().try_into().map_err(|_| missing(id))?;
        for reread in [false, true] {
            if reread {
                self.packs = self.store.reread_packs();
            }
            let found = self
                .packs
                .iter()
                .enumerate()
                .find_map(|(i, p)| p.index.find(&key).map(|at| (i, at)));
            if let Some((pack, at)) = found {
                return self.unpack(pack, at, depth, peek);
            }
            if let Some(object) = self.loose(id)? {
                return Ok(Some(object));
            }
        }
        Err(missing(id))
    }

    /// The object at `at` in pack number `pack`: its chain of deltas
    /// followed down to a whole object or a cached base, then applied
    /// back up, each base kept for the next blob that shares it.
    fn unpack(
        &mut self,
        pack: usize,
        at: u64,
        depth: usize,
        peek: &Peek<'_>,
    ) -> Result<Option<(u8, Arc<Vec<u8>>)>> {
        let mut chain: Vec<(u64, Entry)> = Vec::new();
        let mut here = at;
        // The bottom of the chain, and its offset when it is in this pack.
        let (kind, mut data, bottom) = loop {
            if let Some(cached) = self.bases().get((pack, here)) {
                // Only blobs are cached (below), so a hit is a blob.
                break (OBJ_BLOB, cached, Some(here));
            }
            let entry = self.entry(pack, here)?;
            if here == at && self.skips_through_delta(pack, &entry, peek)? {
                return Ok(None);
            }
            match entry.base {
                Base::None => {
                    // The object asked for, whole in the pack: it may be
                    // skipped from its first bytes.
                    let peek = if chain.is_empty() { peek } else { &Peek::NONE };
                    let Some(data) = self.inflate(pack, &entry, peek)? else {
                        return Ok(None);
                    };
                    break (entry.kind, Arc::new(data), Some(here));
                }
                Base::At(base) => {
                    chain.push((here, entry));
                    here = base;
                }
                Base::Id(base) => {
                    chain.push((here, entry));
                    // Usually in this same pack (git's packs are
                    // self-contained); otherwise read whole from anywhere.
                    let key: [u8; 20] = base.as_bytes().try_into().map_err(|_| missing(base))?;
                    match self.packs[pack].index.find(&key) {
                        Some(b) => here = b,
                        None => {
                            let whole = self.object(base, depth + chain.len(), &Peek::NONE)?;
                            let (kind, data) = whole.ok_or_else(|| missing(base))?;
                            break (kind, data, None);
                        }
                    }
                }
            }
            if chain.len() + depth > MAX_CHAIN {
                return Err(self.damaged(pack, at));
            }
        };
        let cacheable = kind == OBJ_BLOB;
        if let (true, false, Some(offset)) = (cacheable, chain.is_empty(), bottom) {
            self.bases().put((pack, offset), Arc::clone(&data));
        }
        while let Some((offset, entry)) = chain.pop() {
            let delta = self
                .inflate(pack, &entry, &Peek::NONE)?
                .ok_or_else(|| self.damaged(pack, offset))?;
            let result = delta::apply(&data, &delta).map_err(|_| self.damaged(pack, offset))?;
            data = Arc::new(result);
            // The object asked for is not a base (yet): not cached.
            if cacheable && !chain.is_empty() {
                self.bases().put((pack, offset), Arc::clone(&data));
            }
        }
        Ok(Some((kind, data)))
    }

    /// Whether `peek` skips the object at `at` when it is a large delta
    /// on a whole object (or a cached one), decided from the first bytes
    /// of both: a 10 MB library archive stored as a delta of another is
    /// found binary without making either whole. `false` when it cannot
    /// tell that way; the caller then reads the object whole.
    fn skips_through_delta(&mut self, pack: usize, entry: &Entry, peek: &Peek<'_>) -> Result<bool> {
        // Small deltas (nearly all) are cheaper to apply whole than twice.
        let Base::At(base_at) = entry.base else {
            return Ok(false);
        };
        if peek.len == usize::MAX || entry.size <= DELTA_HEAD {
            return Ok(false);
        }
        let head = self.inflate_prefix(pack, entry, DELTA_HEAD)?;
        match delta::header(&head) {
            Ok((_, result, _)) if result > peek.len => {}
            _ => return Ok(false),
        }
        let needed = delta::base_needed(&head, peek.len);
        let cached = self.bases().get((pack, base_at));
        let base = match cached {
            Some(cached) => cached,
            None => {
                let entry = self.entry(pack, base_at)?;
                if !matches!(entry.base, Base::None) || entry.kind != OBJ_BLOB {
                    return Ok(false);
                }
                Arc::new(self.inflate_prefix(pack, &entry, needed)?)
            }
        };
        let skips =
            delta::apply_prefix(&base, &head, peek.len).is_some_and(|first| (peek.skip)(&first));
        #[cfg(test)]
        {
            self.skipped_through_delta += usize::from(skips);
        }
        Ok(skips)
    }

    fn bases(&self) -> MutexGuard<'_, BaseCache> {
        self.store.bases.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn damaged(&self, pack: usize, at: u64) -> Error {
        damaged(&self.packs[pack], at)
    }

    /// The loose object `id`, if one of the object directories has it.
    fn loose(&mut self, id: Oid) -> Result<Option<(u8, Arc<Vec<u8>>)>> {
        let hex = id.to_string();
        for dir in &self.store.dirs {
            let path = dir.join(&hex[..2]).join(&hex[2..]);
            let z = match std::fs::read(&path) {
                Ok(z) => z,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => return Err(Error::io("read the object", path, e)),
            };
            let bad = || Error::Corrupt {
                what: path.display().to_string(),
                message: format!(
                    "loose object {} is damaged (`git fsck` names what is wrong)",
                    path.display()
                ),
            };
            // The header (`blob 123\0`) first, then the rest into a
            // buffer of the size it gives.
            self.inflater.reset();
            let mut head = Vec::new();
            let (taken, step) = self.inflater.step(&z, &mut head, 64).map_err(|_| bad())?;
            let nul = head.iter().position(|&b| b == 0).ok_or_else(bad)?;
            let text = std::str::from_utf8(&head[..nul]).map_err(|_| bad())?;
            let (name, size) = text.split_once(' ').ok_or_else(bad)?;
            let kind = match name {
                "commit" => 1,
                "tree" => 2,
                "blob" => OBJ_BLOB,
                "tag" => 4,
                _ => return Err(bad()),
            };
            let size: usize = size.parse().map_err(|_| bad())?;
            let mut out = Vec::new();
            out.try_reserve_exact(size.saturating_add(1))
                .map_err(|_| bad())?;
            out.extend_from_slice(&head[nul + 1..]);
            let ended = match step {
                Step::End => true,
                Step::Full => {
                    let limit = size.checked_add(1).ok_or_else(bad)?;
                    let (_, step) = self
                        .inflater
                        .step(&z[taken..], &mut out, limit)
                        .map_err(|_| bad())?;
                    step == Step::End
                }
                Step::NeedInput => false,
            };
            if !ended || out.len() != size {
                return Err(bad());
            }
            return Ok(Some((kind, Arc::new(out))));
        }
        Ok(None)
    }

    /// Parses the header of the entry at `at`.
    fn entry(&self, pack: usize, at: u64) -> Result<Entry> {
        let p = &self.packs[pack];
        let damaged = || damaged(p, at);
        let bytes = usize::try_from(at)
            .ok()
            .and_then(|at| p.map.get(at..))
            .ok_or_else(damaged)?;
        let mut i = 0;
        let mut byte = *bytes.first().ok_or_else(damaged)?;
        let kind = (byte >> 4) & 7;
        let mut size = (byte & 0x0f) as usize;
        let mut shift = 4;
        while byte & 0x80 != 0 {
            i += 1;
            byte = *bytes.get(i).ok_or_else(damaged)?;
            if shift > 57 {
                return Err(damaged());
            }
            size |= ((byte & 0x7f) as usize) << shift;
            shift += 7;
        }
        i += 1;
        let base = match kind {
            OBJ_OFS_DELTA => {
                let mut byte = *bytes.get(i).ok_or_else(damaged)?;
                i += 1;
                let mut back = (byte & 0x7f) as u64;
                while byte & 0x80 != 0 {
                    byte = *bytes.get(i).ok_or_else(damaged)?;
                    i += 1;
                    back = back
                        .checked_add(1)
                        .and_then(|b| b.checked_mul(128))
                        .ok_or_else(damaged)?
                        | (byte & 0x7f) as u64;
                }
                if back == 0 || back > at {
                    return Err(damaged());
                }
                Base::At(at - back)
            }
            OBJ_REF_DELTA => {
                let id = bytes.get(i..i + 20).ok_or_else(damaged)?;
                i += 20;
                Base::Id(Oid::from_bytes(id).map_err(|_| damaged())?)
            }
            1..=4 => Base::None,
            _ => return Err(damaged()),
        };
        Ok(Entry {
            kind,
            size,
            data_at: at + i as u64,
            base,
        })
    }

    /// Inflates `entry`'s data whole; `None` when `peek` skips it after
    /// its first bytes.
    fn inflate(&mut self, pack: usize, entry: &Entry, peek: &Peek<'_>) -> Result<Option<Vec<u8>>> {
        let decide = |head: &[u8]| {
            if (peek.skip)(head) {
                AtStop::Skip
            } else {
                AtStop::Go
            }
        };
        self.inflate_with(pack, entry, peek.len, &decide)
    }

    /// The first `len` bytes of `entry`'s data (all of it when shorter).
    fn inflate_prefix(&mut self, pack: usize, entry: &Entry, len: usize) -> Result<Vec<u8>> {
        if len == 0 {
            return Ok(Vec::new());
        }
        let whole = self.inflate_with(pack, entry, len, &|_| AtStop::Keep)?;
        Ok(whole.unwrap_or_default())
    }

    /// Inflates `entry`'s data.
    /// At `stop` bytes (when the data is longer), `decide` says whether to
    /// go on, skip it (`None`), or keep just those bytes.
    fn inflate_with(
        &mut self,
        pack: usize,
        entry: &Entry,
        stop: usize,
        decide: &dyn Fn(&[u8]) -> AtStop,
    ) -> Result<Option<Vec<u8>>> {
        let p = Arc::clone(&self.packs[pack]);
        let damaged = || damaged(&p, entry.data_at);
        let input = usize::try_from(entry.data_at)
            .ok()
            .and_then(|at| p.map.get(at..))
            .ok_or_else(damaged)?;
        let whole = entry.size.checked_add(1).ok_or_else(damaged)?;
        let mut limit = if entry.size > stop { stop } else { whole };
        let mut out = Vec::new();
        self.inflater.reset();
        let mut start = 0;
        let result = loop {
            let (taken, step) = self
                .inflater
                .step(&input[start..], &mut out, limit)
                .map_err(|_| damaged())?;
            start += taken;
            match step {
                Step::End if out.len() == entry.size => break Ok(Some(out)),
                Step::Full if limit < whole => match decide(&out) {
                    AtStop::Skip => break Ok(None),
                    AtStop::Keep => break Ok(Some(out)),
                    AtStop::Go => limit = whole,
                },
                // Cut short by the end of the file, or not the size the
                // header gave.
                _ => return Err(damaged()),
            }
        };
        self.release_pages(start);
        result
    }

    /// Counts `bytes` more of the mapped packs read, and past
    /// [`RELEASE_EVERY`] lets go of the pages read so far (see there).
    #[allow(unsafe_code)]
    fn release_pages(&mut self, bytes: usize) {
        self.read_since_release += bytes;
        if self.read_since_release < RELEASE_EVERY {
            return;
        }
        self.read_since_release = 0;
        for pack in self.packs.iter() {
            // SAFETY: the mapping is shared and read-only, and nothing is
            // ever written through it: dropping its pages from this
            // process only makes the next read fault them in again from
            // the page cache, with the same bytes (a reader on another
            // thread included).
            let _ = unsafe { pack.map.unchecked_advise(UncheckedAdvice::DontNeed) };
        }
    }
}

/// What to do with an entry's data at its first bytes.
enum AtStop {
    Go,
    Skip,
    Keep,
}

/// What a caller may skip a blob for, from its first `len` bytes.
pub struct Peek<'a> {
    pub len: usize,
    pub skip: &'a dyn Fn(&[u8]) -> bool,
}

impl Peek<'_> {
    /// Skip nothing.
    pub const NONE: Peek<'static> = Peek {
        len: usize::MAX,
        skip: &|_| false,
    };
}

fn damaged(pack: &Pack, at: u64) -> Error {
    Error::Corrupt {
        what: pack.path.display().to_string(),
        message: format!(
            "pack {} is damaged at offset {at} (`git fsck` names what is wrong)",
            pack.path.display()
        ),
    }
}

fn missing(id: Oid) -> Error {
    Error::Corrupt {
        what: format!("object {id}"),
        message: format!(
            "object {id} is missing from the object store (`git fsck` names what is wrong)"
        ),
    }
}

fn damaged_chain(id: Oid) -> Error {
    Error::Corrupt {
        what: format!("object {id}"),
        message: format!(
            "object {id} has a chain of deltas that never ends: a pack is damaged (`git fsck` names it)"
        ),
    }
}

/// Debug builds (every test) check each blob read against its id: a
/// mistake in this reader must fail a test, not change a proposal.
#[cfg(debug_assertions)]
fn check_hash(id: Oid, _kind: u8, data: &[u8]) -> Result<()> {
    use sha1::{Digest, Sha1};
    let mut hasher = Sha1::new();
    hasher.update(format!("blob {}\0", data.len()).as_bytes());
    hasher.update(data);
    if hasher.finalize().as_slice() != id.as_bytes() {
        return Err(Error::Internal {
            at: "the object reader",
            message: format!("object {id} read back with another hash: the pack reader is wrong"),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests;
