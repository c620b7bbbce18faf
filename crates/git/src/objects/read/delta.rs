//! git's delta format (`patch-delta.c`): a base size, a result size, then
//! copy-from-base and insert-literal instructions, applied with every
//! bound checked; and the cache of delta bases the reading threads keep, as
//! git's `delta_base_cache` does, so a chain shared by many blobs is
//! inflated once.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// The delta does not fit its base or its own header.
#[derive(Debug)]
pub(super) struct BadDelta;

/// A delta header's little-endian base-128 size.
fn size(delta: &[u8], at: &mut usize) -> Result<usize, BadDelta> {
    let mut value = 0usize;
    let mut shift = 0;
    loop {
        let byte = *delta.get(*at).ok_or(BadDelta)?;
        *at += 1;
        if shift >= usize::BITS {
            return Err(BadDelta);
        }
        value |= ((byte & 0x7f) as usize)
            .checked_shl(shift)
            .ok_or(BadDelta)?;
        shift += 7;
        if byte & 0x80 == 0 {
            return Ok(value);
        }
    }
}

/// One instruction of a delta.
enum Op {
    /// Bytes `offset..offset + len` of the base.
    Copy { offset: usize, len: usize },
    /// Bytes `start..end` of the delta itself.
    Insert { start: usize, end: usize },
}

/// The instruction at `*at`, moving past it; `None` at the end.
fn op(delta: &[u8], at: &mut usize) -> Option<Result<Op, BadDelta>> {
    let &byte = delta.get(*at)?;
    *at += 1;
    Some(if byte & 0x80 != 0 {
        // Copy: up to four offset bytes and three size bytes follow, each
        // present when its bit of the opcode is set.
        let mut field = |bit: u8, shift: usize| -> Result<usize, BadDelta> {
            if byte & bit == 0 {
                return Ok(0);
            }
            let b = *delta.get(*at).ok_or(BadDelta)?;
            *at += 1;
            Ok((b as usize) << shift)
        };
        (|| {
            let offset = field(0x01, 0)? | field(0x02, 8)? | field(0x04, 16)? | field(0x08, 24)?;
            let len = match field(0x10, 0)? | field(0x20, 8)? | field(0x40, 16)? {
                0 => 0x10000,
                n => n,
            };
            Ok(Op::Copy { offset, len })
        })()
    } else if byte != 0 {
        let start = *at;
        *at += byte as usize;
        Ok(Op::Insert { start, end: *at })
    } else {
        // Opcode 0 is reserved.
        Err(BadDelta)
    })
}

/// A delta's header: the base's size, the result's size, and where the
/// instructions start.
pub(super) fn header(delta: &[u8]) -> Result<(usize, usize, usize), BadDelta> {
    let mut at = 0;
    let base = size(delta, &mut at)?;
    let result = size(delta, &mut at)?;
    Ok((base, result, at))
}

/// The object `delta` makes of `base`.
pub(super) fn apply(base: &[u8], delta: &[u8]) -> Result<Vec<u8>, BadDelta> {
    let (base_size, result_size, mut at) = header(delta)?;
    if base_size != base.len() {
        return Err(BadDelta);
    }
    let mut out = Vec::new();
    out.try_reserve_exact(result_size).map_err(|_| BadDelta)?;
    while let Some(op) = op(delta, &mut at) {
        let piece = match op? {
            Op::Copy { offset, len } => offset
                .checked_add(len)
                .and_then(|end| base.get(offset..end)),
            Op::Insert { start, end } => delta.get(start..end),
        };
        out.extend_from_slice(piece.ok_or(BadDelta)?);
        if out.len() > result_size {
            return Err(BadDelta);
        }
    }
    if out.len() != result_size {
        return Err(BadDelta);
    }
    Ok(out)
}

/// The first `want` bytes of what `delta` makes, from the start of its
/// instructions (`delta` may be cut short) and the start of its base
/// (`base` may be too); `None` when they do not reach that far.
pub(super) fn apply_prefix(base: &[u8], delta: &[u8], want: usize) -> Option<Vec<u8>> {
    let (_, _, mut at) = header(delta).ok()?;
    let mut out = Vec::with_capacity(want);
    while out.len() < want {
        let left = want - out.len();
        // Only as much of each piece as is wanted: `base` and `delta` may
        // end right after it.
        let piece = match op(delta, &mut at)?.ok()? {
            Op::Copy { offset, len } => base.get(offset..offset.checked_add(len.min(left))?)?,
            Op::Insert { start, end } => delta.get(start..end.min(start + left))?,
        };
        out.extend_from_slice(piece);
    }
    Some(out)
}

/// How far into the base the instructions that make the first `want`
/// bytes copy from (`delta` may be cut short: as far as it goes).
pub(super) fn base_needed(delta: &[u8], want: usize) -> usize {
    let Ok((_, _, mut at)) = header(delta) else {
        return 0;
    };
    let (mut made, mut needed) = (0usize, 0usize);
    while made < want {
        match op(delta, &mut at) {
            Some(Ok(Op::Copy { offset, len })) => {
                let len = len.min(want - made);
                needed = needed.max(offset.saturating_add(len));
                made += len;
            }
            Some(Ok(Op::Insert { start, end })) => made += end - start,
            _ => break,
        }
    }
    needed
}

/// Where a delta base sits: which pack, at what offset.
pub(super) type BaseKey = (usize, u64);

/// Recently used delta bases, least recently used dropped first, at most
/// `limit` bytes in all.
pub(super) struct BaseCache {
    entries: HashMap<BaseKey, (Arc<Vec<u8>>, u64)>,
    by_use: BTreeMap<u64, BaseKey>,
    tick: u64,
    bytes: usize,
    limit: usize,
}

impl BaseCache {
    pub(super) fn new(limit: usize) -> BaseCache {
        BaseCache {
            entries: HashMap::new(),
            by_use: BTreeMap::new(),
            tick: 0,
            bytes: 0,
            limit,
        }
    }

    pub(super) fn get(&mut self, key: BaseKey) -> Option<Arc<Vec<u8>>> {
        self.tick += 1;
        let (data, used) = self.entries.get_mut(&key)?;
        self.by_use.remove(used);
        *used = self.tick;
        self.by_use.insert(self.tick, key);
        Some(Arc::clone(data))
    }

    pub(super) fn put(&mut self, key: BaseKey, data: Arc<Vec<u8>>) {
        if data.len() > self.limit / 4 || self.entries.contains_key(&key) {
            return;
        }
        self.tick += 1;
        self.bytes += data.len();
        self.entries.insert(key, (data, self.tick));
        self.by_use.insert(self.tick, key);
        while self.bytes > self.limit {
            let Some((_, oldest)) = self.by_use.pop_first() else {
                break;
            };
            if let Some((data, _)) = self.entries.remove(&oldest) {
                self.bytes -= data.len();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A delta of `base` that copies `copies` and inserts `inserts`, in
    /// that order, built by hand in git's format.
    fn delta(base_len: usize, result_len: usize, ops: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        for mut n in [base_len, result_len] {
            loop {
                let byte = (n & 0x7f) as u8;
                n >>= 7;
                out.push(if n > 0 { byte | 0x80 } else { byte });
                if n == 0 {
                    break;
                }
            }
        }
        out.extend_from_slice(ops);
        out
    }

    #[test]
    fn copies_and_inserts_make_the_result_and_bad_deltas_are_refused() {
        let base = b"hello, world\n";
        // Copy offset 7 length 5 ("world"), insert "!!", copy offset 0 length 5.
        let ops = [0x91, 7, 5, 2, b'!', b'!', 0x90, 5];
        assert_eq!(apply(base, &delta(13, 12, &ops)).unwrap(), b"world!!hello");
        // Wrong base size, wrong result size, a copy past the base, a
        // cut insert, the reserved opcode: all refused, none panics.
        assert!(apply(base, &delta(12, 12, &ops)).is_err());
        assert!(apply(base, &delta(13, 11, &ops)).is_err());
        assert!(apply(base, &delta(13, 13, &ops)).is_err());
        assert!(apply(base, &delta(13, 5, &[0x91, 10, 5])).is_err());
        assert!(apply(base, &delta(13, 5, &[5, b'a'])).is_err());
        assert!(apply(base, &delta(13, 0, &[0])).is_err());
        assert!(apply(base, &[0xff; 12]).is_err());
        // The first bytes alone, from a cut delta and a cut base.
        let full = delta(13, 12, &ops);
        assert_eq!(apply_prefix(base, &full, 5).unwrap(), b"world");
        assert_eq!(apply_prefix(&base[..12], &full[..5], 5).unwrap(), b"world");
        assert_eq!(
            apply_prefix(&base[..8], &full[..5], 1).unwrap(),
            b"w",
            "a copy cut to what is wanted"
        );
        assert_eq!(apply_prefix(base, &full, 9).unwrap(), b"world!!he");
        assert_eq!(
            apply_prefix(base, &full[..7], 9),
            None,
            "the delta is cut before"
        );
        assert_eq!(
            apply_prefix(&base[..11], &full, 5),
            None,
            "the base is cut before"
        );
        assert_eq!(base_needed(&full, 5), 12);
        assert_eq!(base_needed(&full, 9), 12);
        assert_eq!(base_needed(&full, 12), 12);
        assert_eq!(base_needed(&delta(13, 2, &[0x90, 2]), 2), 2);
        // A copy of size 0 means 0x10000.
        let big = vec![7u8; 0x10000];
        assert_eq!(apply(&big, &delta(0x10000, 0x10000, &[0x80])).unwrap(), big);
    }

    #[test]
    fn the_cache_keeps_to_its_limit_dropping_the_least_recently_used() {
        let mut cache = BaseCache::new(400);
        for i in 0..4 {
            cache.put((0, i), Arc::new(vec![0; 100]));
        }
        assert!(cache.get((0, 0)).is_some());
        cache.put((0, 4), Arc::new(vec![0; 100]));
        assert!(cache.get((0, 0)).is_some(), "used last, kept");
        assert!(cache.get((0, 1)).is_none(), "least recently used, dropped");
        assert!(cache.bytes <= 400);
        cache.put((1, 0), Arc::new(vec![0; 101]));
        assert!(
            cache.get((1, 0)).is_none(),
            "over a quarter of the limit: not kept"
        );
    }
}
