//! A few entries of a large index changed without decoding the others:
//! the entries in between are copied as they are (the racily clean among
//! them smudged, as git's writer does), the cache tree is invalidated along
//! the changed paths, and the offset tables keyed to the old file are
//! dropped, as [`IndexFile::serialize`](super::IndexFile::serialize) drops
//! them. An index with an untracked cache or fsmonitor state, which that
//! would drop too, is left to git. Decoding 100,000 entries to change ten,
//! and encoding them again, cost more than git's own `checkout` of those
//! ten paths.
//!
//! Versions 2 and 3 only: a version 4 entry's path is compressed against
//! the one before it, so none can be copied alone.

use std::io::Write;

use sha1::{Digest, Sha1};

use super::{
    CHECKSUM, Entry, Extension, FIXED, FLAG_EXTENDED, FLAG_EXTENDED_SKIP, HEADER, NAME_MASK,
    Unreadable, corrupt, header, invalidate, raw_extensions, read_extensions, write_entry,
    write_tree,
};

const GITLINK: u32 = crate::types::mode::GITLINK;

/// One entry as stored: where it starts and ends, and what the walk needs.
struct Slot<'a> {
    start: usize,
    end: usize,
    path: &'a [u8],
    flags: u16,
    flags_extended: u16,
}

impl Slot<'_> {
    fn stage(&self) -> u16 {
        (self.flags & 0x3000) >> 12
    }
}

/// The entries of the version 2 or 3 index `buf` (the file, checksum
/// included) and where they end.
fn slots(buf: &[u8]) -> Result<(Vec<Slot<'_>>, usize), Unreadable> {
    let body = &buf[..buf.len() - CHECKSUM];
    let count = u32::from_be_bytes([buf[8], buf[9], buf[10], buf[11]]) as usize;
    let mut out = Vec::with_capacity(count.min(body.len() / FIXED));
    let mut at = HEADER;
    for _ in 0..count {
        let field = |offset: usize| -> Result<u16, Unreadable> {
            body.get(at + offset..at + offset + 2)
                .map(|b| u16::from_be_bytes([b[0], b[1]]))
                .ok_or_else(|| corrupt("truncated"))
        };
        let flags = field(FIXED - 2)?;
        let (flags_extended, name_at) = if flags & FLAG_EXTENDED != 0 {
            (field(FIXED)?, at + FIXED + 2)
        } else {
            (0, at + FIXED)
        };
        let name_len = match usize::from(flags & NAME_MASK) {
            // A longer name runs to its NUL.
            len if len == usize::from(NAME_MASK) => body
                .get(name_at..)
                .and_then(|rest| rest.iter().position(|&b| b == 0))
                .ok_or_else(|| corrupt("unterminated path"))?,
            len => len,
        };
        let end = at + ((name_at - at + name_len + 8) & !7);
        if end > body.len() {
            return Err(corrupt("truncated"));
        }
        out.push(Slot {
            start: at,
            end,
            path: &body[name_at..name_at + name_len],
            flags,
            flags_extended,
        });
        at = end;
    }
    Ok((out, at))
}

/// An index of version 2 or 3, walked, whose entries for some paths can
/// be replaced (see the module).
pub struct Patch<'a> {
    buf: &'a [u8],
    slots: Vec<Slot<'a>>,
    entries_end: usize,
    extensions: Vec<Extension>,
}

impl<'a> Patch<'a> {
    /// The index `buf` (the file, checksum included) ready to change the
    /// entries of `paths`; `None` where this is not the way: a version 4,
    /// split or sparse index, one with an untracked cache or fsmonitor
    /// state, one this module cannot read, or one of `paths` conflicted or
    /// outside the sparse checkout.
    pub fn prepare(buf: &'a [u8], paths: &[&[u8]]) -> Option<Patch<'a>> {
        if header(buf).ok()? == 4 {
            return None;
        }
        let (slots, entries_end) = slots(buf).ok()?;
        let raw = raw_extensions(&buf[..buf.len() - CHECKSUM], entries_end).ok()?;
        // The untracked cache and the fsmonitor's state would be dropped
        // (see the module); git's own writers keep them up to date.
        let left = [b"link", b"sdir", b"UNTR", b"FSMN"];
        if raw.iter().any(|(sig, _)| left.contains(&sig)) {
            return None;
        }
        let extensions = read_extensions(raw, None).ok()?;
        let mut sorted = paths.to_vec();
        sorted.sort_unstable();
        let awkward = |s: &Slot<'_>| s.stage() != 0 || s.flags_extended & FLAG_EXTENDED_SKIP != 0;
        if slots
            .iter()
            .any(|s| awkward(s) && sorted.binary_search(&s.path).is_ok())
        {
            return None;
        }
        Some(Patch {
            buf,
            slots,
            entries_end,
            extensions,
        })
    }

    /// Writes to `out` the index with every entry of each path in
    /// `changes` (all its stages) replaced by the new entry, or by none, as
    /// `IndexFile::replace` does; entries carried over whose file changed
    /// in the second the old index was written (`index_mtime_secs`) are
    /// smudged first, as by `IndexFile::smudge_racy`. The entries in
    /// between go from the old bytes to `out` as they are: no copy of the
    /// whole index is made in memory.
    pub fn apply(
        mut self,
        changes: &[(Vec<u8>, Option<Entry>)],
        index_mtime_secs: Option<u32>,
        out: &mut impl Write,
    ) -> std::io::Result<()> {
        let mut changes: Vec<&(Vec<u8>, Option<Entry>)> = changes.iter().collect();
        changes.sort_by(|a, b| a.0.cmp(&b.0));
        changes.dedup_by(|b, a| a.0 == b.0);
        let buf = self.buf;
        let mut out = Hashing {
            out,
            sum: Sha1::new(),
        };
        out.write_all(&self.header(&changes))?;
        let mut pending = changes.iter().copied().peekable();
        let mut copied = HEADER;
        let mut scratch = Vec::new();
        for slot in &self.slots {
            while let Some((_, entry)) = pending.next_if(|(p, _)| p.as_slice() < slot.path) {
                out.write_all(&buf[copied..slot.start])?;
                copied = slot.start;
                if let Some(entry) = entry {
                    scratch.clear();
                    write_entry(&mut scratch, entry, 3, &[]);
                    out.write_all(&scratch)?;
                }
            }
            if pending
                .peek()
                .is_some_and(|(p, _)| p.as_slice() == slot.path)
            {
                out.write_all(&buf[copied..slot.start])?;
                copied = slot.end;
            } else if index_mtime_secs.is_some_and(|secs| racy(&buf[slot.start..slot.end], secs)) {
                out.write_all(&buf[copied..slot.start])?;
                scratch.clear();
                scratch.extend_from_slice(&buf[slot.start..slot.end]);
                scratch[SIZE..SIZE + 4].fill(0);
                out.write_all(&scratch)?;
                copied = slot.end;
            }
        }
        out.write_all(&buf[copied..self.entries_end])?;
        for entry in pending.filter_map(|(_, e)| e.as_ref()) {
            scratch.clear();
            write_entry(&mut scratch, entry, 3, &[]);
            out.write_all(&scratch)?;
        }
        self.write_extensions(&changes, &mut out)?;
        let sum = out.sum.finalize();
        out.out.write_all(&sum)
    }

    /// The header: version 3 where a new entry has extended flags (its
    /// entries are version 2's otherwise, as `IndexFile::serialize` writes
    /// them), and the new number of entries.
    fn header(&self, changes: &[&(Vec<u8>, Option<Entry>)]) -> Vec<u8> {
        let changed = |slot: &Slot<'_>| {
            changes
                .binary_search_by(|(p, _)| p.as_slice().cmp(slot.path))
                .is_ok()
        };
        let removed = self.slots.iter().filter(|s| changed(s)).count();
        let added = changes.iter().filter(|(_, e)| e.is_some()).count();
        let mut head = self.buf[..HEADER].to_vec();
        if changes
            .iter()
            .any(|(_, e)| e.as_ref().is_some_and(|e| e.flags_extended != 0))
        {
            head[4..8].copy_from_slice(&3u32.to_be_bytes());
        }
        let count = (self.slots.len() - removed + added) as u32;
        head[8..12].copy_from_slice(&count.to_be_bytes());
        head
    }

    /// The extensions kept, the cache tree invalidated along `changes`.
    fn write_extensions<W: Write>(
        &mut self,
        changes: &[&(Vec<u8>, Option<Entry>)],
        out: &mut Hashing<'_, W>,
    ) -> std::io::Result<()> {
        for ext in &mut self.extensions {
            if let Extension::Tree(root) = ext {
                for (path, _) in changes {
                    invalidate(root, path);
                }
            }
            let (sig, data) = match ext {
                Extension::Tree(root) => {
                    let mut data = Vec::new();
                    write_tree(root, &mut data);
                    (*b"TREE", data)
                }
                Extension::Kept(sig, data) => (*sig, std::mem::take(data)),
            };
            out.write_all(&sig)?;
            out.write_all(&(data.len() as u32).to_be_bytes())?;
            out.write_all(&data)?;
        }
        Ok(())
    }
}

/// A writer that hashes what goes through it (the index's checksum).
struct Hashing<'w, W: Write> {
    out: &'w mut W,
    sum: Sha1,
}

impl<W: Write> Hashing<'_, W> {
    fn write_all(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.sum.update(bytes);
        self.out.write_all(bytes)
    }
}

/// Where an entry's file size is stored.
const SIZE: usize = 36;

/// Whether the stored entry `bytes` is racily clean against an index
/// written in second `secs` (see `IndexFile::smudge_racy`).
fn racy(bytes: &[u8], secs: u32) -> bool {
    let word =
        |at: usize| u32::from_be_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    word(24) != GITLINK && word(8) >= secs && word(SIZE) != 0
}

#[cfg(test)]
mod tests {
    use super::super::IndexFile;
    use super::*;

    fn entry(path: &str, stage: u16, mtime: u32) -> Entry {
        let mut entry = super::super::tests::entry(path, stage);
        entry.mtime.0 = mtime;
        entry
    }

    /// `formats::index`'s test index, its entries written in different
    /// seconds, with a path longer than the 12-bit length field and a
    /// resolve-undo extension.
    fn index(version: u32, paths: &[&str]) -> IndexFile {
        let mut idx = super::super::tests::index(version, paths);
        for (i, e) in idx.entries.iter_mut().enumerate() {
            e.mtime.0 = 100 + i as u32;
        }
        idx.entries
            .push(entry(&format!("{}x", "l/".repeat(2100)), 0, 1));
        idx.entries.sort_by(|a, b| a.path.cmp(&b.path));
        idx.extensions
            .push(Extension::Kept(*b"REUC", b"resolve undo".to_vec()));
        idx
    }

    /// What the whole-index path writes for the same change.
    fn decoded(buf: &[u8], changes: &[(Vec<u8>, Option<Entry>)], secs: u32) -> Vec<u8> {
        let mut idx = IndexFile::parse(buf).unwrap();
        idx.smudge_racy(secs);
        idx.replace(changes.to_vec());
        idx.serialize()
    }

    fn patched(buf: &[u8], changes: &[(Vec<u8>, Option<Entry>)], secs: u32) -> Option<Vec<u8>> {
        let paths: Vec<&[u8]> = changes.iter().map(|(p, _)| p.as_slice()).collect();
        let mut out = Vec::new();
        Patch::prepare(buf, &paths)?
            .apply(changes, Some(secs), &mut out)
            .unwrap();
        Some(out)
    }

    #[test]
    fn a_patch_writes_what_the_decoded_index_writes() {
        let buf = index(2, &["a/x", "a/y", "b", "c/d/e", "f"]).serialize();
        let mut intent = entry("c/d/e", 0, 7);
        intent.flags_extended = 1 << 13;
        let cases: Vec<Vec<(Vec<u8>, Option<Entry>)>> = vec![
            // Changed, removed, added before the first, between, after the last.
            vec![(b"a/y".to_vec(), Some(entry("a/y", 0, 7)))],
            vec![(b"f".to_vec(), None), (b"b".to_vec(), None)],
            vec![
                (b"0".to_vec(), Some(entry("0", 0, 7))),
                (b"a/z".to_vec(), Some(entry("a/z", 0, 7))),
                (b"c/d/e".to_vec(), None),
                (b"z".to_vec(), Some(entry("z", 0, 7))),
            ],
            // Extended flags make a version 2 index a version 3 one.
            vec![(b"c/d/e".to_vec(), Some(intent))],
            vec![],
        ];
        for (i, changes) in cases.iter().enumerate() {
            for secs in [0, 102, u32::MAX] {
                let patched = patched(&buf, changes, secs).unwrap();
                assert_eq!(
                    patched,
                    decoded(&buf, changes, secs),
                    "case {i}, second {secs}"
                );
            }
        }
        let v3 = index(3, &["a/x", "b"]).serialize();
        let changes = vec![(b"a/x".to_vec(), None)];
        assert_eq!(
            patched(&v3, &changes, 0).unwrap(),
            decoded(&v3, &changes, 0)
        );
    }

    #[test]
    fn what_a_patch_cannot_do_is_left_to_the_decoded_index() {
        let b: &[&[u8]] = &[b"b"];
        let v4 = index(4, &["a/x", "b"]).serialize();
        assert!(Patch::prepare(&v4, b).is_none(), "version 4");
        let mut conflicted = index(2, &["a/x", "b"]);
        conflicted.entries.insert(2, entry("b", 2, 1));
        let buf = conflicted.serialize();
        assert!(Patch::prepare(&buf, b).is_none(), "a conflict");
        assert!(Patch::prepare(&buf, &[b"a/x"]).is_some(), "elsewhere");
        let mut sparse = index(2, &["a/x", "b"]);
        sparse.entries[1].flags_extended = FLAG_EXTENDED_SKIP;
        let buf = sparse.serialize();
        assert!(Patch::prepare(&buf, b).is_none(), "skip-worktree");
        assert!(Patch::prepare(&buf[..40], b).is_none(), "truncated");
        let mut cached = index(2, &["a/x", "b"]);
        cached
            .extensions
            .push(Extension::Kept(*b"UNTR", b"cache".to_vec()));
        let buf = cached.serialize();
        assert!(Patch::prepare(&buf, b).is_none(), "an untracked cache");
    }
}
