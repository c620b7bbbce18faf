//! Writing many blobs at once.

use git2::{Oid, Repository};

use super::pack_write::{self, PackedBlob};
use crate::error::Result;

/// Above this many blobs one pack is written instead of loose objects: a
/// repository-wide rename must not leave tens of thousands of loose files.
const PACK_THRESHOLD: usize = 64;

/// Writes `contents` as blobs and returns their ids, in order. Many are
/// hashed and compressed on every core, then written as one pack without
/// delta search (`pack_write`), as git writes new objects.
pub fn write_blobs(repo: &Repository, contents: &[&[u8]]) -> Result<Vec<Oid>> {
    if contents.len() <= PACK_THRESHOLD {
        return contents.iter().map(|c| Ok(repo.blob(c)?)).collect();
    }
    let packed = pack_all(contents)?;
    pack_write::write_pack(repo, &packed)?;
    Ok(packed.iter().map(|b| b.oid).collect())
}

/// `PackedBlob::new` of each of `contents`, in order, on every core.
fn pack_all(contents: &[&[u8]]) -> Result<Vec<PackedBlob>> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8);
    let chunk = contents.len().div_ceil(threads).max(1);
    std::thread::scope(|s| {
        let workers: Vec<_> = contents
            .chunks(chunk)
            .map(|part| {
                s.spawn(move || {
                    part.iter()
                        .map(|c| PackedBlob::new(c))
                        .collect::<Result<Vec<_>>>()
                })
            })
            .collect();
        let mut out = Vec::with_capacity(contents.len());
        for w in workers {
            out.extend(w.join().expect("a packing thread panicked")?);
        }
        Ok(out)
    })
}
