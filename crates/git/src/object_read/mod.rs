//! Reads blobs from git's object store on several threads at once, for
//! propose's scan, through gitoxide's object database (`gix-odb`, packs
//! by `gix-pack`): the packs are mapped once and shared by every reader;
//! each reader has its own handle with its own cache of delta bases (the
//! threads read neighbouring files, which share bases) and its own zlib
//! stream, so no reader waits on another.
//!
//! Objects are found where git finds them: the packs (and the
//! multi-pack-index over them) and the loose objects of the repository's
//! object directory, of every alternate it lists (`objects/info/alternates`,
//! C-quoted lines included, followed as git follows them), and of
//! `GIT_OBJECT_DIRECTORY` and `GIT_ALTERNATE_OBJECT_DIRECTORIES`. Looking in
//! more places than needed is harmless: an object is named by its hash. A
//! pack that appears during the scan (a `git gc` or fetch beside it) is
//! picked up when an object is missing, as git rereads its pack directory.
//! No gitoxide type appears in this module's API, and its failures become
//! the project's `Error` naming the object and the store.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use git2::Oid;
use gix_object::Find;

use crate::error::{Error, GitCause, Result};
use crate::gix_fail;

/// One object directory with its alternates, opened.
struct Odb {
    store: Arc<gix_odb::Store>,
    dir: PathBuf,
}

/// The object directories, shared by the reading threads.
pub struct ObjectStore {
    /// The stores to ask in turn, or why one could not be opened (said by
    /// [`ObjectStore::reader`]).
    odbs: std::result::Result<Vec<Odb>, (String, GitCause)>,
    cache_bytes: usize,
}

impl ObjectStore {
    /// The object store of the repository whose common git dir is
    /// `common_dir`.
    /// `cache_bytes`: how many bytes of delta bases each reader keeps.
    pub fn open(common_dir: &Path, cache_bytes: usize) -> ObjectStore {
        let mut dirs = Vec::new();
        match std::env::var_os("GIT_OBJECT_DIRECTORY") {
            Some(dir) => dirs.push(PathBuf::from(dir)),
            None => dirs.push(common_dir.join("objects")),
        }
        if let Some(list) = std::env::var_os("GIT_ALTERNATE_OBJECT_DIRECTORIES") {
            dirs.extend(std::env::split_paths(&list).filter(|d| d.is_dir()));
        }
        let odbs = dirs
            .into_iter()
            .map(|dir| {
                let options = gix_odb::store::init::Options {
                    current_dir: Some(common_dir.to_path_buf()),
                    ..Default::default()
                };
                gix_odb::Store::at_opts(
                    dir.clone(),
                    gix_hash::Kind::Sha1,
                    &mut None.into_iter(),
                    options,
                )
                .map(|store| Odb {
                    store: Arc::new(store),
                    dir: dir.clone(),
                })
                .map_err(|e| {
                    let doing = format!("open the object store {}", dir.display());
                    (doing, gix_fail::cause(&e))
                })
            })
            .collect();
        ObjectStore { odbs, cache_bytes }
    }

    /// A reader for one thread.
    pub fn reader(&self) -> Result<Reader<'_>> {
        let odbs = self
            .odbs
            .as_ref()
            .map_err(|(doing, source)| Error::GitLibrary {
                doing: doing.clone(),
                source: source.clone(),
            })?;
        let cache_bytes = self.cache_bytes;
        let handles = odbs
            .iter()
            .map(|odb| {
                let mut handle = odb.store.to_cache_arc();
                if cache_bytes > 0 {
                    handle.set_pack_cache(move || {
                        Box::new(gix_pack::cache::lru::MemoryCappedHashmap::new(cache_bytes))
                    });
                }
                (handle, odb.dir.as_path())
            })
            .collect();
        Ok(Reader {
            handles,
            buf: Vec::new(),
        })
    }
}

/// One thread's reader.
pub struct Reader<'s> {
    handles: Vec<(gix_odb::HandleArc, &'s Path)>,
    /// The buffer gitoxide reads into, taken by the blob it returns.
    buf: Vec<u8>,
}

impl Reader<'_> {
    /// The content of the blob `id`.
    pub fn blob(&mut self, id: Oid) -> Result<Vec<u8>> {
        self.blob_unless(id, &Peek::NONE)
            .map(|data| data.unwrap_or_default())
    }

    /// The content of the blob `id`, or `None` when `peek` says to skip
    /// it from its first bytes (the blob is made whole first).
    pub fn blob_unless(&mut self, id: Oid, peek: &Peek<'_>) -> Result<Option<Vec<u8>>> {
        let key = gix_hash::ObjectId::try_from(id.as_bytes()).map_err(|_| missing(id))?;
        for (handle, dir) in &self.handles {
            let found = handle.try_find(&key, &mut self.buf).map_err(|e| {
                gix_fail::library(
                    format!("read object {id} from the object store {}", dir.display()),
                    &e,
                )
            })?;
            let Some(data) = found else { continue };
            if data.kind != gix_object::Kind::Blob {
                return Err(Error::Git {
                    message: format!(
                        "object {id} is listed as a file but is not a blob (`git fsck` names what is wrong)"
                    ),
                });
            }
            if (peek.skip)(&data.data[..data.data.len().min(peek.len)]) {
                return Ok(None);
            }
            // The data lies in the buffer (its lifetime says so), nearly
            // always at its start: the buffer becomes the blob, no copy.
            let (at, len) = (data.data.as_ptr() as usize, data.data.len());
            if len == 0 {
                return Ok(Some(Vec::new()));
            }
            let mut out = std::mem::take(&mut self.buf);
            let start = at.wrapping_sub(out.as_ptr() as usize);
            if start.checked_add(len).is_none_or(|end| end > out.len()) {
                return Err(Error::Git {
                    message: format!("object {id} was read outside the reader's buffer"),
                });
            }
            out.truncate(start + len);
            out.drain(..start);
            #[cfg(debug_assertions)]
            check_hash(id, &out)?;
            return Ok(Some(out));
        }
        Err(missing(id))
    }
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
    Error::Git {
        message: format!(
            "object {id} is missing from the object store (`git fsck` names what is wrong)"
        ),
    }
}

/// Debug builds (every test) check each blob read against its id: a
/// mistake in the reader must fail a test, not change a proposal.
#[cfg(debug_assertions)]
fn check_hash(id: Oid, data: &[u8]) -> Result<()> {
    use sha1::{Digest, Sha1};
    let mut hasher = Sha1::new();
    hasher.update(format!("blob {}\0", data.len()).as_bytes());
    hasher.update(data);
    if hasher.finalize().as_slice() != id.as_bytes() {
        return Err(Error::Git {
            message: format!("object {id} read back with another hash: the object reader is wrong"),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests;
