//! Loose objects (`objects/xx/yyyy…`): a zlib stream of a `kind size\0`
//! header and the content.

use std::sync::Arc;

use super::OBJ_BLOB;
use super::reader::Reader;
use crate::Oid;
use crate::error::{Error, Result};
use crate::sys::zlib::Step;

impl Reader<'_> {
    /// The loose object `id`, if one of the object directories has it.
    pub(super) fn loose(&mut self, id: Oid) -> Result<Option<(u8, Arc<Vec<u8>>)>> {
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
}
