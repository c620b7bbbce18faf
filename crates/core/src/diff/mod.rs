//! Pure rendering of git-format unified diffs: colouring for terminals and
//! the added/removed line counts, the shape of structured hunks (`hunks`),
//! and word marks inside changed lines (`word`). No line diff is made
//! here: every hunk, as text or structured, comes from the adapter's one
//! line diff (libgit2's xdiff, `git::diff`), so it is byte-for-byte what
//! `git diff` prints and `git apply` expects.

pub mod hunks;
pub mod word;

const RESET: &[u8] = b"\x1b[m";
const BOLD: &[u8] = b"\x1b[1m";
const CYAN: &[u8] = b"\x1b[36m";
const GREEN: &[u8] = b"\x1b[32m";
const RED: &[u8] = b"\x1b[31m";

/// Colours a unified diff the way `git diff --color` does: headers bold,
/// hunk headers cyan, additions green, deletions red.
pub fn colorize(patch: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(patch.len() + patch.len() / 4);
    let mut in_header = false;
    for line in patch.split_inclusive(|&b| b == b'\n') {
        if line.starts_with(b"diff --git ") {
            in_header = true;
        } else if line.starts_with(b"@@") {
            in_header = false;
        }
        let colour = if in_header {
            Some(BOLD)
        } else if line.starts_with(b"@@") {
            Some(CYAN)
        } else if line.starts_with(b"+") {
            Some(GREEN)
        } else if line.starts_with(b"-") {
            Some(RED)
        } else {
            None
        };
        match colour {
            Some(c) => {
                let (body, newline) = match line.strip_suffix(b"\n") {
                    Some(body) => (body, &b"\n"[..]),
                    None => (line, &b""[..]),
                };
                out.extend_from_slice(c);
                out.extend_from_slice(body);
                out.extend_from_slice(RESET);
                out.extend_from_slice(newline);
            }
            None => out.extend_from_slice(line),
        }
    }
    out
}

/// Lines added and removed by a unified diff, counted from its hunks.
pub fn line_counts(patch: &[u8]) -> (usize, usize) {
    let mut counter = LineCounter::default();
    counter.feed(patch);
    counter.counts()
}

/// [`line_counts`] over a diff that arrives in pieces of whole lines.
#[derive(Debug, Clone, Default)]
pub struct LineCounter {
    added: usize,
    removed: usize,
    in_hunk: bool,
}

impl LineCounter {
    /// Counts the lines of `text`, which ends at a line end (or is the end).
    pub fn feed(&mut self, text: &[u8]) {
        for line in text.split(|&b| b == b'\n') {
            if line.starts_with(b"diff --git ") {
                self.in_hunk = false;
            } else if line.starts_with(b"@@") {
                self.in_hunk = true;
            } else if self.in_hunk {
                match line.first() {
                    Some(b'+') => self.added += 1,
                    Some(b'-') => self.removed += 1,
                    _ => {}
                }
            }
        }
    }

    /// Adds the counts of `other`, which counted a diff that follows this
    /// one's (each file's diff starts a new count, so they simply add).
    pub fn add(&mut self, other: &LineCounter) {
        self.added += other.added;
        self.removed += other.removed;
        self.in_hunk = other.in_hunk;
    }

    /// (added, removed) so far.
    pub fn counts(&self) -> (usize, usize) {
        (self.added, self.removed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATCH: &[u8] =
        b"diff --git a/f b/f\nindex 1..2 100644\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-old\n+new\n ctx\n";

    #[test]
    fn colours_headers_hunks_and_lines() {
        let out = String::from_utf8(colorize(PATCH)).unwrap();
        assert!(out.contains("\x1b[1m--- a/f\x1b[m\n"));
        assert!(out.contains("\x1b[36m@@ -1 +1 @@\x1b[m\n"));
        assert!(out.contains("\x1b[31m-old\x1b[m\n"));
        assert!(out.contains("\x1b[32m+new\x1b[m\n"));
        assert!(out.contains("\n ctx\n"));
    }

    #[test]
    fn counts_only_hunk_lines_not_file_headers() {
        assert_eq!(line_counts(PATCH), (1, 1));
        let mut pieces = LineCounter::default();
        for line in PATCH.split_inclusive(|&b| b == b'\n') {
            pieces.feed(line);
        }
        assert_eq!(pieces.counts(), (1, 1));
    }
}
