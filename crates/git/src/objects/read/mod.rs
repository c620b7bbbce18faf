//! Reads blobs from git's object store on several threads at once, for
//! propose's scan. libgit2 reads a pack under one lock per pack, so a
//! second reading thread only waited (issue 14 item 2: the real-code scan
//! was bound by one thread's reads). This reader shares only the mapped
//! pack indexes and packs and one cache of delta bases (the threads read
//! neighbouring files, which share bases); each thread has its own zlib
//! stream (`zlib::Inflater`); the mappings are `sys`'s.
//!
//! Objects are found where git finds them: the packs and the loose objects
//! of the repository's object directory, of every alternate it lists
//! (`objects/info/alternates`, followed as git follows it), and of
//! `GIT_OBJECT_DIRECTORY` and `GIT_ALTERNATE_OBJECT_DIRECTORIES`. Looking
//! in more places than needed is harmless: an object is named by its hash.
//! A pack that appears during the scan (a `git gc` or fetch beside it) is
//! picked up when an object is missing, as git rereads its pack directory.
//!
//! It stays this project's own (issue 39 item 8): gix-odb/gix-pack as the
//! reader measured 1.098× the instructions of a propose at 1% (BENCHMARKS.md,
//! "gitoxide against the project's own readers"), for two reasons the
//! newest gix still has (gix-pack 0.78, gix-zlib 0.4.1): it inflates only
//! through a Rust zlib (zlib-rs, or sirocco), slower on small blobs than
//! the system zlib libgit2 already links, and it zero-fills each object's
//! buffer before inflating into it; nor can it skip a large binary from its
//! first bytes.

mod delta;
mod entry;
mod loose;
mod pack_index;
mod reader;
mod store;

pub use self::reader::{Peek, Reader};
pub use self::store::ObjectStore;
#[cfg(test)]
use self::store::unquote_c;

/// Pack entry types (git's `object_type`).
const OBJ_BLOB: u8 = 3;
const OBJ_OFS_DELTA: u8 = 6;
const OBJ_REF_DELTA: u8 = 7;

/// `path` mapped read-only: packs and their indexes, which git writes
/// whole and renames into place.
fn map_file(path: &std::path::Path) -> Option<memmap2::Mmap> {
    let file = std::fs::File::open(path).ok()?;
    crate::sys::calls::map_written_whole(&file).ok()
}

#[cfg(test)]
mod tests;
