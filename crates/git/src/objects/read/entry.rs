//! A pack entry's header: its type, its size, where its zlib stream
//! starts and, for a delta, where its base is.

use super::store::Pack;
use super::{OBJ_OFS_DELTA, OBJ_REF_DELTA};
use crate::Oid;
use crate::error::Result;

/// What a pack entry's header says.
pub(super) struct Entry {
    pub(super) kind: u8,
    pub(super) size: usize,
    /// Where its zlib stream starts.
    pub(super) data_at: u64,
    pub(super) base: Base,
}

pub(super) enum Base {
    None,
    /// An earlier entry of the same pack.
    At(u64),
    /// An object by id, anywhere.
    Id(Oid),
}

impl Entry {
    /// Parses the header of the entry at `at` of `p`.
    pub(super) fn parse(p: &Pack, at: u64) -> Result<Entry> {
        let damaged = || p.damaged(at);
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
}
