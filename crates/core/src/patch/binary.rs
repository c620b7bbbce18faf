//! git's binary patches (`git diff --binary`): a `literal` or `delta`
//! hunk, zlib-deflated and written in git's base85, and the delta format
//! git's packs use. Inflating is the caller's (the git adapter has zlib).

use super::PatchError;
use super::names::trim_eol;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BinaryPatch {
    /// Old to new.
    pub forward: BinaryHunk,
    /// New to old, when git wrote one.
    pub reverse: Option<BinaryHunk>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BinaryHunk {
    /// `delta`: `data` is a git delta against the old content; `literal`:
    /// the new content itself.
    pub delta: bool,
    /// The inflated size.
    pub size: usize,
    /// Still deflated.
    pub deflated: Vec<u8>,
}

/// Reads the hunks after `GIT binary patch` from `lines` (`first` is the
/// patch's line number of `lines[0]`): the patch and how many lines it used.
pub fn parse(lines: &[&[u8]], first: usize) -> Result<(BinaryPatch, usize), PatchError> {
    let (forward, mut used) = hunk(lines, first)?;
    let mut reverse = None;
    if lines
        .get(used)
        .is_some_and(|l| l.starts_with(b"literal ") || l.starts_with(b"delta "))
    {
        let (back, more) = hunk(&lines[used..], first + used)?;
        reverse = Some(back);
        used += more;
    }
    Ok((BinaryPatch { forward, reverse }, used))
}

fn hunk(lines: &[&[u8]], first: usize) -> Result<(BinaryHunk, usize), PatchError> {
    let head = lines.first().map(|l| trim_eol(l)).unwrap_or_default();
    let (delta, size) = if let Some(n) = head.strip_prefix(b"literal ") {
        (false, n)
    } else if let Some(n) = head.strip_prefix(b"delta ") {
        (true, n)
    } else {
        return Err(PatchError::at(
            first,
            "a binary patch without `literal` or `delta`",
        ));
    };
    let size = std::str::from_utf8(size)
        .ok()
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| PatchError::at(first, "a bad binary hunk size"))?;
    let mut deflated = Vec::new();
    let mut used = 1;
    while let Some(line) = lines.get(used) {
        let line = trim_eol(line);
        used += 1;
        if line.is_empty() {
            break;
        }
        decode_line(line, &mut deflated).ok_or_else(|| {
            PatchError::at(first + used - 1, "a bad base85 line in a binary patch")
        })?;
    }
    Ok((
        BinaryHunk {
            delta,
            size,
            deflated,
        },
        used,
    ))
}

const ALPHABET: &[u8; 85] =
    b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~";

/// One line: a length letter (`A`–`Z` 1–26 bytes, `a`–`z` 27–52), then
/// base85 groups of five characters for four bytes each.
fn decode_line(line: &[u8], out: &mut Vec<u8>) -> Option<()> {
    let (&len, groups) = line.split_first()?;
    let len = match len {
        b'A'..=b'Z' => usize::from(len - b'A') + 1,
        b'a'..=b'z' => usize::from(len - b'a') + 27,
        _ => return None,
    };
    if groups.len() % 5 != 0 || groups.len() / 5 * 4 < len {
        return None;
    }
    let mut bytes = Vec::with_capacity(groups.len() / 5 * 4);
    for group in groups.chunks(5) {
        let mut value: u64 = 0;
        for &c in group {
            let digit = ALPHABET.iter().position(|&a| a == c)?;
            value = value * 85 + digit as u64;
        }
        let value = u32::try_from(value).ok()?;
        bytes.extend_from_slice(&value.to_be_bytes());
    }
    out.extend_from_slice(&bytes[..len]);
    Some(())
}

/// Applies a git delta (`git diff --binary`'s `delta` hunks, a pack's
/// deltas) to `base`; `None` when it does not fit `base` or is malformed.
pub fn apply_delta(base: &[u8], delta: &[u8]) -> Option<Vec<u8>> {
    let mut at = 0;
    let varint = |at: &mut usize| -> Option<usize> {
        let mut value = 0usize;
        let mut shift = 0;
        loop {
            let byte = *delta.get(*at)?;
            *at += 1;
            value |= usize::from(byte & 0x7f).checked_shl(shift)?;
            shift += 7;
            if byte & 0x80 == 0 {
                return Some(value);
            }
        }
    };
    if varint(&mut at)? != base.len() {
        return None;
    }
    let size = varint(&mut at)?;
    let mut out = Vec::with_capacity(size.min(1 << 30));
    while at < delta.len() {
        let op = delta[at];
        at += 1;
        if op & 0x80 != 0 {
            let mut field = |bits: std::ops::Range<u8>| -> Option<usize> {
                let mut value = 0usize;
                for (i, bit) in bits.enumerate() {
                    if op & (1 << bit) != 0 {
                        value |= usize::from(*delta.get(at)?) << (8 * i);
                        at += 1;
                    }
                }
                Some(value)
            };
            let offset = field(0..4)?;
            let length = match field(4..7)? {
                0 => 0x10000,
                n => n,
            };
            out.extend_from_slice(base.get(offset..offset.checked_add(length)?)?);
        } else if op != 0 {
            let length = usize::from(op);
            out.extend_from_slice(delta.get(at..at + length)?);
            at += length;
        } else {
            return None;
        }
    }
    (out.len() == size).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base85_lines_decode_as_git_encodes_them() {
        // git's encoding of the bytes 0..=5 (6 bytes: two groups).
        let mut out = Vec::new();
        decode_line(b"F009C61O)&9", &mut out).unwrap();
        assert_eq!(out, [0, 1, 2, 3, 4, 5]);
        assert!(decode_line(b"F009C", &mut Vec::new()).is_none());
    }

    #[test]
    fn deltas_copy_and_insert() {
        let base = b"hello world";
        // base 11, result 11: copy 6 bytes at 0, insert "there".
        let delta = [
            11,
            11,
            0x80 | 0x01 | 0x10,
            0,
            6,
            5,
            b't',
            b'h',
            b'e',
            b'r',
            b'e',
        ];
        assert_eq!(apply_delta(base, &delta).unwrap(), b"hello there");
        assert!(
            apply_delta(b"short", &delta).is_none(),
            "the base's size is checked"
        );
    }
}
