//! A pack's index (`objects/pack/pack-*.idx`, versions 1 and 2), mapped
//! and searched as git searches it: the first byte of the id picks a range
//! from the fan-out table, a binary search finds the id in it. Every read
//! is bounds-checked, so a damaged index finds nothing instead of
//! panicking.

use std::path::Path;

use memmap2::Mmap;

const V2_MAGIC: [u8; 4] = [0xff, b't', b'O', b'c'];
const FANOUT: usize = 256 * 4;
/// A trailing pack checksum and index checksum (SHA-1).
const TRAILER: usize = 40;

pub(super) struct PackIndex {
    map: Mmap,
    version: u8,
    count: usize,
    /// Where the fan-out table starts.
    fanout: usize,
}

impl PackIndex {
    /// Maps and checks the index at `path`; `None` if it is not one this
    /// reader knows (then its objects are looked up elsewhere).
    pub(super) fn open(path: &Path) -> Option<PackIndex> {
        let map = super::map_file(path)?;
        let (version, fanout) = if map.get(..4) == Some(&V2_MAGIC[..]) {
            (be32(&map, 4)?, 8)
        } else {
            (1, 0)
        };
        if version != 1 && version != 2 {
            return None;
        }
        let count = be32(&map, fanout + FANOUT - 4)? as usize;
        let entries = fanout + FANOUT;
        let needed = match version {
            1 => entries + count * 24,
            _ => entries + count * 28,
        } + TRAILER;
        if map.len() < needed {
            return None;
        }
        Some(PackIndex {
            map,
            version: version as u8,
            count,
            fanout,
        })
    }

    /// How many objects the pack holds.
    pub(super) fn count(&self) -> usize {
        self.count
    }

    /// The pack offset of `id`, if the pack holds it.
    pub(super) fn find(&self, id: &[u8; 20]) -> Option<u64> {
        let first = id[0] as usize;
        let lo = match first {
            0 => 0,
            _ => be32(&self.map, self.fanout + (first - 1) * 4)? as usize,
        };
        let hi = (be32(&self.map, self.fanout + first * 4)? as usize).min(self.count);
        let (mut lo, mut hi) = (lo.min(hi), hi);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.id_at(mid)?.cmp(&id[..]) {
                std::cmp::Ordering::Equal => return self.offset_at(mid),
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
            }
        }
        None
    }

    fn id_at(&self, i: usize) -> Option<&[u8]> {
        let at = match self.version {
            1 => self.fanout + FANOUT + i * 24 + 4,
            _ => self.fanout + FANOUT + i * 20,
        };
        self.map.get(at..at + 20)
    }

    fn offset_at(&self, i: usize) -> Option<u64> {
        let entries = self.fanout + FANOUT;
        if self.version == 1 {
            return be32(&self.map, entries + i * 24).map(u64::from);
        }
        let small = be32(&self.map, entries + self.count * 24 + i * 4)?;
        if small & 0x8000_0000 == 0 {
            return Some(u64::from(small));
        }
        // A large offset: an index into the table of 8-byte offsets.
        let at = entries + self.count * 28 + (small & 0x7fff_ffff) as usize * 8;
        let bytes = self.map.get(at..at + 8)?;
        Some(u64::from_be_bytes(bytes.try_into().ok()?))
    }
}

fn be32(bytes: &[u8], at: usize) -> Option<u32> {
    let b = bytes.get(at..at + 4)?;
    Some(u32::from_be_bytes(b.try_into().ok()?))
}
