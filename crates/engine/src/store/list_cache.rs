//! The list cache: what `list` prints of each proposal commit, keyed by
//! the commit's id, in `<common dir>/evolv/list-cache` (issue 25 item 18).
//!
//! A proposal's metadata lives in its commit message, so listing 10,000
//! proposals would inflate 10,000 commits. A commit never changes under its
//! id, so a row stored under that id stays true: a ref whose commit is not
//! in the file is read the slow way, and a row whose commit no ref names is
//! left out of the next write. A stale file is only slower, never wrong.
//!
//! The file is read with one `read` and written whole to a temporary file
//! renamed over it, so a reader sees an old file or a new one, never half.
//! A checksum over the whole file guards against a torn or damaged one:
//! anything that does not check out is ignored as if absent.

use std::collections::HashMap;
use std::io::Write;
use std::path::PathBuf;

use crate::git::{Oid, Repo};

/// The first bytes of the file; a new layout is a new version here.
const MAGIC: &[u8] = b"evolv list-cache 1\n";

/// What `list` shows of one proposal commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The proposal commit P (the key).
    pub commit: Oid,
    /// P's parent: the HEAD it was proposed against.
    pub base: Oid,
    pub summary: String,
    pub created_at: i64,
    pub files_matched: usize,
    pub lines_added: usize,
    pub lines_removed: usize,
    pub affected_files: Vec<String>,
    pub affected_files_bytes: Option<Vec<Option<String>>>,
    pub onto: Option<String>,
}

/// Where the cache lives: one per repository, shared by its worktrees, as
/// the proposal refs are.
pub fn path(repo: &Repo) -> PathBuf {
    repo.common_dir().join("evolv").join("list-cache")
}

/// Every row of the cache; empty when there is none or it does not check
/// out (truncated, damaged, another layout).
pub fn read(repo: &Repo) -> HashMap<Oid, Row> {
    std::fs::read(path(repo))
        .ok()
        .and_then(|bytes| decode(&bytes))
        .unwrap_or_default()
}

/// Replaces the cache with `rows`, atomically. Best effort: a repository
/// this process cannot write to lists as before, only slower.
pub fn write<'a>(repo: &Repo, rows: impl Iterator<Item = &'a Row>) {
    let file = path(repo);
    let Some(dir) = file.parent() else {
        return;
    };
    let bytes = encode(rows);
    let _ = std::fs::create_dir_all(dir).and_then(|()| {
        let mut tmp = tempfile::Builder::new()
            .prefix("list-cache.")
            .tempfile_in(dir)?;
        tmp.write_all(&bytes)?;
        tmp.persist(&file).map(drop).map_err(|e| e.error)
    });
}

/// The file's bytes for `rows`.
pub fn encode<'a>(rows: impl Iterator<Item = &'a Row>) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    for row in rows {
        put_bytes(&mut out, row.commit.as_bytes());
        put_bytes(&mut out, row.base.as_bytes());
        put_u64(&mut out, row.created_at as u64);
        put_u64(&mut out, row.files_matched as u64);
        put_u64(&mut out, row.lines_added as u64);
        put_u64(&mut out, row.lines_removed as u64);
        put_bytes(&mut out, row.summary.as_bytes());
        put_optional(&mut out, row.onto.as_deref());
        put_u64(&mut out, row.affected_files.len() as u64);
        for f in &row.affected_files {
            put_bytes(&mut out, f.as_bytes());
        }
        match &row.affected_files_bytes {
            None => out.push(0),
            Some(hex) => {
                out.push(1);
                put_u64(&mut out, hex.len() as u64);
                for h in hex {
                    put_optional(&mut out, h.as_deref());
                }
            }
        }
    }
    let sum = checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    out
}

/// The rows of a file's `bytes`; `None` unless every byte checks out.
pub fn decode(bytes: &[u8]) -> Option<HashMap<Oid, Row>> {
    let (body, sum) = bytes.split_at_checked(bytes.len().checked_sub(8)?)?;
    if checksum(body).to_le_bytes() != sum || !body.starts_with(MAGIC) {
        return None;
    }
    let mut cursor = Cursor(&body[MAGIC.len()..]);
    let mut rows = HashMap::new();
    while !cursor.0.is_empty() {
        let row = cursor.row()?;
        rows.insert(row.commit, row);
    }
    Some(rows)
}

fn put_u64(out: &mut Vec<u8>, n: u64) {
    out.extend_from_slice(&n.to_le_bytes());
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    put_u64(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

fn put_optional(out: &mut Vec<u8>, text: Option<&str>) {
    match text {
        None => out.push(0),
        Some(t) => {
            out.push(1);
            put_bytes(out, t.as_bytes());
        }
    }
}

/// A 64-bit checksum, eight bytes a step: it catches a torn write or a
/// damaged byte (it is no defence against someone who can write `.git`,
/// who could as well move the refs).
fn checksum(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut h = bytes.len() as u64;
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let w = u64::from_le_bytes(w.try_into().expect("eight bytes"));
        h = (h.rotate_left(23) ^ w).wrapping_mul(K);
    }
    for &b in words.remainder() {
        h = (h.rotate_left(23) ^ u64::from(b)).wrapping_mul(K);
    }
    h ^ (h >> 29)
}

/// Reads the fields back in the order [`encode`] wrote them.
struct Cursor<'a>(&'a [u8]);

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = self.0.split_at_checked(n)?;
        self.0 = rest;
        Some(head)
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn usize(&mut self) -> Option<usize> {
        usize::try_from(self.u64()?).ok()
    }

    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.usize()?;
        self.take(n)
    }

    fn text(&mut self) -> Option<String> {
        std::str::from_utf8(self.bytes()?).ok().map(str::to_string)
    }

    fn flag(&mut self) -> Option<bool> {
        match self.take(1)?[0] {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }

    fn optional(&mut self) -> Option<Option<String>> {
        if self.flag()? {
            self.text().map(Some)
        } else {
            Some(None)
        }
    }

    fn oid(&mut self) -> Option<Oid> {
        Oid::from_bytes(self.bytes()?).ok()
    }

    /// A count of items that each take at least one byte (so a damaged
    /// count cannot ask for more memory than the file holds).
    fn count(&mut self) -> Option<usize> {
        let n = self.usize()?;
        (n <= self.0.len()).then_some(n)
    }

    fn row(&mut self) -> Option<Row> {
        let commit = self.oid()?;
        let base = self.oid()?;
        let created_at = self.u64()? as i64;
        let files_matched = self.usize()?;
        let lines_added = self.usize()?;
        let lines_removed = self.usize()?;
        let summary = self.text()?;
        let onto = self.optional()?;
        let affected_files = (0..self.count()?)
            .map(|_| self.text())
            .collect::<Option<Vec<_>>>()?;
        let affected_files_bytes = if self.flag()? {
            Some(
                (0..self.count()?)
                    .map(|_| self.optional())
                    .collect::<Option<Vec<_>>>()?,
            )
        } else {
            None
        };
        Some(Row {
            commit,
            base,
            summary,
            created_at,
            files_matched,
            lines_added,
            lines_removed,
            affected_files,
            affected_files_bytes,
            onto,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(n: u8, onto: Option<&str>, hex: Option<Vec<Option<String>>>) -> Row {
        Row {
            commit: Oid::from_bytes(&[n; 20]).unwrap(),
            base: Oid::from_bytes(&[n.wrapping_add(1); 20]).unwrap(),
            summary: format!("refactor: row {n} é"),
            created_at: -5 + i64::from(n),
            files_matched: 2,
            lines_added: 3,
            lines_removed: usize::MAX,
            affected_files: vec!["a.txt".into(), "dir/b\u{fffd}.txt".into()],
            affected_files_bytes: hex,
            onto: onto.map(str::to_string),
        }
    }

    fn rows() -> Vec<Row> {
        vec![
            row(1, None, None),
            row(
                2,
                Some("patch_1_ab"),
                Some(vec![None, Some("6469722f62ff".into())]),
            ),
            row(3, None, Some(Vec::new())),
        ]
    }

    #[test]
    fn rows_read_back_as_written() {
        let rows = rows();
        let decoded = decode(&encode(rows.iter())).expect("decodes");
        assert_eq!(decoded.len(), rows.len());
        for r in &rows {
            assert_eq!(decoded.get(&r.commit), Some(r));
        }
        assert_eq!(decode(&encode([].iter())), Some(HashMap::new()));
    }

    #[test]
    fn every_truncation_and_every_changed_byte_is_refused() {
        let bytes = encode(rows().iter());
        for len in 0..bytes.len() {
            assert_eq!(decode(&bytes[..len]), None, "truncated to {len}");
        }
        for i in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[i] ^= 0x40;
            assert_eq!(decode(&bad), None, "byte {i} changed");
        }
    }
}
