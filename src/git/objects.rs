//! Writing many blobs at once.

use std::io::Write;

use git2::{ObjectType, Oid, Repository};

use crate::error::{Error, Result};

/// Above this many blobs one pack is written instead of loose objects: a
/// repository-wide rename must not leave tens of thousands of loose files.
const PACK_THRESHOLD: usize = 64;

/// Writes `contents` as blobs and returns their ids, in order.
pub fn write_blobs(repo: &Repository, contents: &[&[u8]]) -> Result<Vec<Oid>> {
    if contents.len() <= PACK_THRESHOLD {
        return contents.iter().map(|c| Ok(repo.blob(c)?)).collect();
    }
    // A second handle, so the in-memory backend never captures objects the
    // caller writes afterwards through `repo`.
    let staging = Repository::open(repo.path())?;
    let odb = staging.odb()?;
    let mempack = odb.add_new_mempack_backend(1000)?;
    let oids = contents
        .iter()
        .map(|c| odb.write(ObjectType::Blob, c))
        .collect::<Result<Vec<_>, _>>()?;
    // `Mempack::dump` only packs what commits reach; these are bare blobs.
    let mut builder = staging.packbuilder()?;
    for oid in &oids {
        builder.insert_object(*oid, None)?;
    }
    let mut pack = git2::Buf::new();
    builder.write_buf(&mut pack)?;
    drop(builder);
    let target = repo.odb()?;
    let mut writer = target.packwriter()?;
    writer
        .write_all(&pack)
        .map_err(|e| Error::io("write pack into", repo.path().join("objects/pack"), e))?;
    writer.commit()?;
    mempack.reset()?;
    // libgit2 caches the pack list; without a refresh `repo` would not see
    // the new pack and reject trees that point into it.
    target.refresh()?;
    Ok(oids)
}
