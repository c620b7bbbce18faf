//! One thread's reader: a blob by id, its chain of deltas followed
//! through the shared cache of bases, inflated by the thread's own zlib
//! stream, or skipped from its first bytes.

use std::sync::{Arc, MutexGuard};

use super::OBJ_BLOB;
use super::delta::{self, BaseCache};
use super::entry::{Base, Entry};
use super::store::{ObjectStore, Pack};
use crate::Oid;
use crate::error::{Error, Result};
use crate::sys::zlib::{Inflater, Step};

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

/// One thread's reader.
pub struct Reader<'s> {
    pub(super) store: &'s ObjectStore,
    packs: Arc<Vec<Arc<Pack>>>,
    pub(super) inflater: Inflater,
    /// Bytes of packs read since `release_pages` last let go of them.
    read_since_release: usize,
    #[cfg(test)]
    pub(super) skipped_through_delta: usize,
}

impl ObjectStore {
    /// A reader for one thread.
    pub fn reader(&self) -> Result<Reader<'_>> {
        Ok(Reader {
            store: self,
            packs: self.packs(),
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
        self.packs[pack].damaged(at)
    }

    /// Parses the header of the entry at `at` in pack number `pack`.
    fn entry(&self, pack: usize, at: u64) -> Result<Entry> {
        Entry::parse(&self.packs[pack], at)
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
        let damaged = || p.damaged(entry.data_at);
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
    fn release_pages(&mut self, bytes: usize) {
        self.read_since_release += bytes;
        if self.read_since_release < RELEASE_EVERY {
            return;
        }
        self.read_since_release = 0;
        for pack in self.packs.iter() {
            crate::sys::calls::release_read_pages(&pack.map);
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
