//! A proposal's diff on its way to a front end: the first
//! [`KEPT_IN_MEMORY`] bytes in memory, the rest in an anonymous temporary
//! file, so a 30,000-file diff is never held whole (issue 14 item 2). It is
//! spooled rather than written straight out because the statistics it
//! yields go into the proposal commit, which must exist before anything is
//! shown. Front ends stream it (`write_chunks`) or take its head (`head`).

use std::fs::File;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::sync::Arc;

use crate::diff::LineCounter;
use crate::error::{Error, Result};

/// Bytes of diff kept in memory; the rest goes to a temporary file.
pub const KEPT_IN_MEMORY: usize = 1 << 20;

/// Bytes of diff `--json` carries in `unified_diff` (1 MiB), cut at a line
/// end, with `diff_truncated` set when there is more; `git evolv show` and
/// `git show refs/evolv/proposals/<id>` print all of it.
pub const JSON_DIFF_MAX: usize = 1 << 20;

/// The diff, and the added/removed line counts of all of it.
#[derive(Debug, Clone, Default)]
pub struct ProposedDiff {
    head: Vec<u8>,
    rest: Option<Arc<File>>,
    len: u64,
    counter: LineCounter,
}

fn spool_error(e: std::io::Error) -> Error {
    Error::io("spool the diff to", std::env::temp_dir(), e)
}

impl ProposedDiff {
    /// Appends `text`, which ends at a line end (a file's whole diff, or
    /// one line of it).
    pub fn push(&mut self, text: &[u8]) -> Result<()> {
        self.counter.feed(text);
        self.store(text)
    }

    /// Appends the whole of `other`, a diff of files that come after this
    /// one's (a later part of the same scan).
    pub fn append(&mut self, other: &ProposedDiff) -> Result<()> {
        const PIECE: usize = 1 << 20;
        let mut at = 0;
        while at < other.len {
            let piece = other.range(at, PIECE)?;
            at += piece.len() as u64;
            self.store(&piece)?;
        }
        self.counter.add(&other.counter);
        Ok(())
    }

    /// Keeps `text` without counting its lines.
    fn store(&mut self, text: &[u8]) -> Result<()> {
        let room = KEPT_IN_MEMORY
            .saturating_sub(self.head.len())
            .min(text.len());
        self.head.extend_from_slice(&text[..room]);
        let spill = &text[room..];
        if !spill.is_empty() {
            if self.rest.is_none() {
                self.rest = Some(Arc::new(tempfile::tempfile().map_err(spool_error)?));
            }
            if let Some(file) = &self.rest {
                (&**file).write_all(spill).map_err(spool_error)?;
            }
        }
        self.len += text.len() as u64;
        Ok(())
    }

    /// The size of the whole diff in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the diff is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Lines added and removed by the whole diff.
    pub fn line_counts(&self) -> (usize, usize) {
        self.counter.counts()
    }

    /// At most `max` bytes from the start, cut after the last whole line
    /// that fits, and whether anything was left out.
    pub fn head(&self, max: usize) -> Result<(Vec<u8>, bool)> {
        if self.len <= max as u64 {
            return Ok((self.all_bytes()?, false));
        }
        let mut out = self.range(0, max)?;
        let end = out.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        out.truncate(end);
        Ok((out, true))
    }

    /// The whole diff (for callers that know it is small).
    pub fn all_bytes(&self) -> Result<Vec<u8>> {
        self.range(0, self.len as usize)
    }

    /// Hands the diff to `sink` in pieces of whole lines, about 64 KiB each.
    pub fn write_chunks(&self, sink: &mut dyn FnMut(&[u8])) -> Result<()> {
        const CHUNK: usize = 64 << 10;
        let mut pending: Vec<u8> = Vec::new();
        let mut at = 0u64;
        while at < self.len {
            let piece = self.range(at, CHUNK)?;
            at += piece.len() as u64;
            pending.extend_from_slice(&piece);
            let cut = if at >= self.len {
                pending.len()
            } else {
                pending
                    .iter()
                    .rposition(|&b| b == b'\n')
                    .map_or(0, |i| i + 1)
            };
            if cut > 0 {
                sink(&pending[..cut]);
                pending.drain(..cut);
            }
        }
        Ok(())
    }

    /// Appends bytes `start..end` of this diff to `out`; both must be at
    /// the start of a file's diff (or the end). Copied in pieces of about
    /// 1 MiB cut at line ends, as `push` takes them.
    pub fn copy_range(&self, start: u64, end: u64, out: &mut ProposedDiff) -> Result<()> {
        const PIECE: u64 = 1 << 20;
        let mut at = start;
        while at < end {
            let mut want = (end - at).min(PIECE);
            let piece = loop {
                let mut piece = self.range(at, want as usize)?;
                if at + piece.len() as u64 >= end {
                    break piece;
                }
                if let Some(cut) = piece.iter().rposition(|&b| b == b'\n') {
                    piece.truncate(cut + 1);
                    break piece;
                }
                // One line longer than a piece: take more of it.
                want = (want * 2).min(end - at);
            };
            if piece.is_empty() {
                break;
            }
            at += piece.len() as u64;
            out.push(&piece)?;
        }
        Ok(())
    }

    /// Bytes `start..start + n` (clipped to the end).
    fn range(&self, start: u64, n: usize) -> Result<Vec<u8>> {
        let end = (start + n as u64).min(self.len);
        let mut out = Vec::with_capacity((end - start) as usize);
        let kept = self.head.len() as u64;
        if start < kept {
            out.extend_from_slice(&self.head[start as usize..end.min(kept) as usize]);
        }
        if end > kept {
            let from = start.max(kept);
            let mut buf = vec![0u8; (end - from) as usize];
            if let Some(file) = &self.rest {
                file.read_exact_at(&mut buf, from - kept)
                    .map_err(spool_error)?;
            }
            out.extend_from_slice(&buf);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diff_of(lines: usize) -> (ProposedDiff, Vec<u8>) {
        let mut d = ProposedDiff::default();
        let mut all = Vec::new();
        d.push(b"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n")
            .unwrap();
        all.extend_from_slice(b"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n");
        for i in 0..lines {
            let line = format!("+line {i} {}\n", "x".repeat(i % 300));
            d.push(line.as_bytes()).unwrap();
            all.extend_from_slice(line.as_bytes());
        }
        (d, all)
    }

    #[test]
    fn a_diff_past_the_memory_limit_reads_back_whole_in_line_chunks() {
        let (d, all) = diff_of(20_000);
        assert!(all.len() > KEPT_IN_MEMORY, "the test must spill");
        assert_eq!(d.len(), all.len() as u64);
        assert_eq!(d.line_counts(), (20_000, 0));
        assert_eq!(d.all_bytes().unwrap(), all);
        let mut streamed = Vec::new();
        d.write_chunks(&mut |c| {
            assert!(c.ends_with(b"\n"));
            streamed.extend_from_slice(c);
        })
        .unwrap();
        assert_eq!(streamed, all);
        let (head, cut) = d.head(KEPT_IN_MEMORY + 100).unwrap();
        assert!(cut && head.ends_with(b"\n") && head.len() <= KEPT_IN_MEMORY + 100);
        assert_eq!(&all[..head.len()], &head[..]);
    }

    #[test]
    fn ranges_copied_in_pieces_count_their_lines_as_the_whole() {
        let (a, a_bytes) = diff_of(20_000);
        let (b, b_bytes) = diff_of(7);
        let mut both = ProposedDiff::default();
        a.copy_range(0, a.len(), &mut both).unwrap();
        b.copy_range(0, b.len(), &mut both).unwrap();
        assert_eq!(both.line_counts(), (20_007, 0));
        // Files moved around: the second first.
        let mut out = ProposedDiff::default();
        both.copy_range(a.len(), both.len(), &mut out).unwrap();
        both.copy_range(0, a.len(), &mut out).unwrap();
        let mut expected = b_bytes;
        expected.extend_from_slice(&a_bytes);
        assert_eq!(out.all_bytes().unwrap(), expected);
        assert_eq!(out.line_counts(), (20_007, 0));
    }

    #[test]
    fn a_small_diff_is_whole_and_not_truncated() {
        let (d, all) = diff_of(3);
        assert_eq!(d.head(JSON_DIFF_MAX).unwrap(), (all.clone(), false));
        let (head, cut) = d.head(50).unwrap();
        assert!(cut);
        assert_eq!(head, b"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n");
    }
}
