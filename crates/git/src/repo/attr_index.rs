//! Which directories the index tracks a `.gitattributes` in, from the
//! index file's own bytes in one pass over its entries, read a block at a
//! time: nothing is parsed or kept but the names that end in
//! `.gitattributes` (issue 25 item 20: reading a 100,000-file index whole
//! and searching it was two thirds of a small propose). git's attribute
//! lookup asks its parsed index about the few paths it looks at; a
//! command that has no parse, as propose, needs only this answer.
//!
//! Versions 2, 3 and 4 are read. A split index (`link`: its entries live
//! in a shared file), a sparse one (`sdir`: directories folded into one
//! entry), an unknown mandatory extension or anything malformed answers
//! `None`: the caller parses the index, which knows what to do with each.

use std::collections::HashSet;
use std::fs::File;
use std::io::Read;
use std::path::Path;

use crate::formats::index::{CHECKSUM, FIXED, FLAG_EXTENDED, HEADER, NAME_MASK};

/// Bytes read at a time, into a buffer that stays in the CPU's cache (a
/// whole-file buffer cost a page fault per 4 KiB).
const BLOCK: usize = 64 << 10;

/// Where an entry's flags sit in its fixed part.
const FLAGS_AT: usize = FIXED - 2;
const NAME: &[u8] = b".gitattributes";

/// The directories (`""`: the top) in which the index of `git_dir` tracks
/// a `.gitattributes`, in any stage; empty when there is no index file.
/// `None`: parse the index to know (see the module).
pub fn tracked_attribute_dirs(git_dir: &Path) -> Option<HashSet<Vec<u8>>> {
    let file = match File::open(git_dir.join("index")) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Some(HashSet::new()),
        Err(_) => return None,
    };
    let mut blocks = Blocks::new(file);
    let head = blocks.take(HEADER)?;
    let version = u32::from_be_bytes(head[4..8].try_into().ok()?);
    let count = u32::from_be_bytes(head[8..12].try_into().ok()?);
    if &head[..4] != b"DIRC" || !(2..=4).contains(&version) {
        return None;
    }
    let mut dirs = HashSet::new();
    // Version 4 names are kept whole here (each is told as a change of
    // the one before); version 2 and 3 names are looked at in place.
    let mut previous = Vec::new();
    for _ in 0..count {
        let name = match version {
            4 => entry_v4(&mut blocks, &mut previous)?,
            _ => entry_v2(&mut blocks)?,
        };
        if let Some(dir) = attributes_dir(name) {
            dirs.insert(dir.to_vec());
        }
    }
    extensions_allow(&mut blocks).then_some(dirs)
}

/// The directory whose `.gitattributes` `path` is, if it is one.
fn attributes_dir(path: &[u8]) -> Option<&[u8]> {
    match path.strip_suffix(NAME)? {
        [] => Some(&[]),
        [dir @ .., b'/'] => Some(dir),
        _ => None,
    }
}

/// The fixed part of an entry (62 bytes, 64 with extended flags) and the
/// length its flags give the name (`NAME_MASK`: that long or longer).
fn fixed_part(blocks: &mut Blocks) -> Option<(usize, usize)> {
    let fixed = blocks.peek(FIXED)?;
    let flags = u16::from_be_bytes([fixed[FLAGS_AT], fixed[FLAGS_AT + 1]]);
    let size = FIXED + if flags & FLAG_EXTENDED != 0 { 2 } else { 0 };
    Some((size, usize::from(flags & NAME_MASK)))
}

/// A version 2 or 3 entry's name: the name whole, then 1 to 8 NULs to a
/// multiple of 8 bytes.
fn entry_v2(blocks: &mut Blocks) -> Option<&[u8]> {
    let (fixed, short) = fixed_part(blocks)?;
    let len = if short < usize::from(NAME_MASK) {
        short
    } else {
        blocks.nul_at(fixed)? - fixed
    };
    let size = (fixed + len + 8) & !7;
    let entry = blocks.take(size)?;
    let (head, padding) = entry.split_at(fixed + len);
    padding.iter().all(|&b| b == 0).then_some(&head[fixed..])
}

/// A version 4 entry's name: how many bytes of the previous name to drop
/// (a varint), then the rest of the name up to a NUL; rebuilt in
/// `previous`.
fn entry_v4<'p>(blocks: &mut Blocks, previous: &'p mut Vec<u8>) -> Option<&'p [u8]> {
    let (fixed, _) = fixed_part(blocks)?;
    blocks.take(fixed)?;
    let strip = varint(blocks)?;
    let keep = previous.len().checked_sub(strip)?;
    let end = blocks.nul_at(0)?;
    let rest = blocks.take(end + 1)?;
    previous.truncate(keep);
    previous.extend_from_slice(&rest[..end]);
    Some(previous)
}

/// git's offset varint (`decode_varint`: each continuation adds one).
fn varint(blocks: &mut Blocks) -> Option<usize> {
    let mut byte = blocks.take(1)?[0];
    let mut value = usize::from(byte & 0x7f);
    while byte & 0x80 != 0 {
        byte = blocks.take(1)?[0];
        value = value.checked_add(1)?.checked_mul(128)? | usize::from(byte & 0x7f);
    }
    Some(value)
}

/// Walks the extensions up to the checksum: whether every one leaves the
/// entries read as all there is (none is `link`, `sdir` or another
/// mandatory one, written in lower case).
fn extensions_allow(blocks: &mut Blocks) -> bool {
    loop {
        if blocks.peek(CHECKSUM + 1).is_none() {
            return blocks.at_end(CHECKSUM);
        }
        let Some(head) = blocks.take(8) else {
            return false;
        };
        if !head[0].is_ascii_uppercase() {
            return false;
        }
        let len = u32::from_be_bytes([head[4], head[5], head[6], head[7]]) as usize;
        if !blocks.skip(len) {
            return false;
        }
    }
}

/// The index file read a block at a time; what was read and not taken yet
/// is `buf[start..end]`.
struct Blocks {
    file: File,
    buf: Vec<u8>,
    start: usize,
    end: usize,
    eof: bool,
}

impl Blocks {
    fn new(file: File) -> Self {
        Blocks {
            file,
            buf: vec![0; BLOCK],
            start: 0,
            end: 0,
            eof: false,
        }
    }

    /// Reads on until `n` bytes are there, or the file ends.
    fn fill(&mut self, n: usize) -> bool {
        while self.end - self.start < n && !self.eof {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
            if self.buf.len() < n {
                self.buf.resize(n, 0);
            }
            match self.file.read(&mut self.buf[self.end..]) {
                Ok(0) | Err(_) => self.eof = true,
                Ok(got) => self.end += got,
            }
        }
        self.end - self.start >= n
    }

    /// The next `n` bytes, left in place.
    fn peek(&mut self, n: usize) -> Option<&[u8]> {
        self.fill(n).then(|| &self.buf[self.start..self.start + n])
    }

    /// The next `n` bytes, taken.
    fn take(&mut self, n: usize) -> Option<&[u8]> {
        if !self.fill(n) {
            return None;
        }
        let at = self.start;
        self.start += n;
        Some(&self.buf[at..at + n])
    }

    /// Skips `n` bytes; `false` if the file is shorter.
    fn skip(&mut self, mut n: usize) -> bool {
        loop {
            let here = (self.end - self.start).min(n);
            self.start += here;
            n -= here;
            if n == 0 {
                return true;
            }
            if !self.fill(1) {
                return false;
            }
        }
    }

    /// Where the next NUL is, counted from `from` bytes ahead (a name is
    /// at most `PATH_MAX` long in practice; the whole rest of the file at
    /// worst).
    fn nul_at(&mut self, from: usize) -> Option<usize> {
        let mut looked = from;
        loop {
            let have = self.end - self.start;
            if let Some(k) = self.buf[self.start + looked.min(have)..self.end]
                .iter()
                .position(|&b| b == 0)
            {
                return Some(looked.min(have) + k);
            }
            looked = have;
            if !self.fill(have + 1) {
                return None;
            }
        }
    }

    /// Whether exactly `n` bytes are left.
    fn at_end(&mut self, n: usize) -> bool {
        self.fill(n + 1);
        self.end - self.start == n
    }
}

#[cfg(test)]
#[path = "attr_index_tests.rs"]
mod tests;
