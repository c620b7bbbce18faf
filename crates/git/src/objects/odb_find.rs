//! libgit2's object database as gitoxide's object finder, for the gix
//! crates that walk trees (`trees::compare`'s gix-diff, `trees::edit`'s tree
//! editor). Objects are read where libgit2 reads them (its cache, its
//! packs, its alternates); a read that fails keeps libgit2's error so the
//! caller reports it as every other libgit2 read is reported (`read tree
//! <id>`), not in gitoxide's words.

use std::cell::RefCell;

use gix_object::{Data, Kind};

use crate::error::{Error, Result};
use crate::{Oid, library_error, on_object};

/// gitoxide's id of `id`.
pub(crate) fn gix_id(id: Oid) -> gix_hash::ObjectId {
    gix_hash::ObjectId::from_bytes_or_panic(id.as_bytes())
}

/// Reads objects through `odb`; see the module.
pub(crate) struct OdbFind<'r> {
    odb: git2::Odb<'r>,
    /// The first read that failed, as the adapter reports it.
    failed: RefCell<Option<Error>>,
}

impl<'r> OdbFind<'r> {
    pub(crate) fn new(repo: &'r git2::Repository) -> Result<Self> {
        let odb = crate::Context::context(repo.odb(), || "open the object database")?;
        Ok(OdbFind {
            odb,
            failed: RefCell::new(None),
        })
    }

    /// What failed, once a gix walk over these objects stopped: the
    /// libgit2 read that failed, or else `gix`'s own error while `doing`.
    pub(crate) fn failure(
        &self,
        err: &(dyn std::error::Error + 'static),
        doing: impl FnOnce() -> evolv_core::error::GitDoing,
    ) -> Error {
        self.failed.take().unwrap_or_else(|| Error::GitLibrary {
            doing: doing(),
            source: crate::types::gix_fail::cause(err),
        })
    }
}

impl gix_object::Find for OdbFind<'_> {
    fn try_find<'a>(
        &self,
        id: &gix_hash::oid,
        buffer: &'a mut Vec<u8>,
    ) -> gix_error::Result<Option<Data<'a>>> {
        let oid = Oid::from_bytes(id.as_bytes()).map_err(gix_error::Error::from_error)?;
        let object = match self.odb.read(oid.raw()) {
            Ok(object) => object,
            Err(e) => {
                let not_found = e.code() == git2::ErrorCode::NotFound;
                let said = std::io::Error::other(e.message().to_string());
                let failure = library_error(on_object("read tree", oid), e);
                self.failed.borrow_mut().get_or_insert(failure);
                return if not_found {
                    Ok(None)
                } else {
                    Err(gix_error::Error::from_error(said))
                };
            }
        };
        let kind = match object.kind() {
            git2::ObjectType::Tree => Kind::Tree,
            git2::ObjectType::Blob => Kind::Blob,
            git2::ObjectType::Commit => Kind::Commit,
            _ => Kind::Tag,
        };
        buffer.clear();
        buffer.extend_from_slice(object.data());
        Ok(Some(Data::new(buffer, kind, gix_hash::Kind::Sha1)))
    }
}
