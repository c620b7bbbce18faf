//! The hunks of an edit's results (`files[].diff`), read back from the
//! outcome's own `unified_diff` (issue 39 item 7). git's line diff found
//! them once (`git::diff`, with the options every view uses), so an edit's
//! results show the hunks `show`, the review page, `apply -i` and `git
//! show` of the proposal commit show, and no second line diff runs.

use std::collections::HashMap;

use crate::diff::hunks::{Hunk, HunkLine, LineKind};
use crate::edit::engine::FileChange;
use crate::error::Result;
use crate::git;
use crate::patch::{self, Body};

/// Each file's hunks in the diff of an edit, by path.
pub struct EditHunks(HashMap<String, Vec<Hunk>>);

impl EditHunks {
    /// The hunks of each file of `patch`, a diff as `git::patch_text`
    /// writes it, by the file's path (a deleted file's by its old path).
    /// A diff that does not read (never one git wrote) gives none: each
    /// file is then diffed alone, by the same line diff.
    pub fn read(patch: &[u8]) -> EditHunks {
        let mut files = patch::unified::parse(patch).unwrap_or_default();
        if patch::strip(&mut files, Some(1), &|_| true).is_err() {
            files.clear();
        }
        let by_path = files
            .into_iter()
            .filter_map(|f| {
                let path = f.new_path.or(f.old_path)?;
                match f.body {
                    Body::Hunks(hunks) => Some((path, hunks.into_iter().map(shown).collect())),
                    _ => None,
                }
            })
            .collect();
        EditHunks(by_path)
    }

    /// The hunks of `f`'s change: its part of the diff; for a rename (the
    /// diff's delete and create) or a file the diff has no hunks of, its
    /// two contents diffed alone, as the review page diffs a rename.
    pub fn take(&mut self, f: &FileChange) -> Result<Vec<Hunk>> {
        if f.from.is_none()
            && let Some(hunks) = self.0.remove(&f.path)
        {
            return Ok(hunks);
        }
        let old = f.old.as_deref().unwrap_or_default();
        git::file_hunks(old, f.new.as_deref().unwrap_or_default())
    }
}

/// A hunk of a parsed patch as the results show it: each line's text
/// lossily UTF-8, without its line end.
fn shown(h: patch::Hunk) -> Hunk {
    let lines = h
        .lines
        .into_iter()
        .map(|line| {
            let (kind, bytes) = match line {
                patch::HunkLine::Context(b) => (LineKind::Context, b),
                patch::HunkLine::Remove(b) => (LineKind::Removed, b),
                patch::HunkLine::Add(b) => (LineKind::Added, b),
            };
            let text = String::from_utf8_lossy(patch::names::trim_eol(&bytes)).into_owned();
            HunkLine { kind, text }
        })
        .collect();
    Hunk::numbered(
        (h.old_start, h.old_count),
        (h.new_start, h.new_count),
        lines,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunks_are_read_by_path_and_lines_lose_their_ends() {
        let text = b"diff --git a/f b/f\nindex 1..2 100644\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-old\r\n+new\r\n ctx\ndiff --git a/gone b/gone\ndeleted file mode 100644\nindex 3..0\n--- a/gone\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n\\ No newline at end of file\n";
        let mut hunks = EditHunks::read(text);
        let f = hunks.0.remove("f").unwrap();
        assert_eq!(f[0].header, "@@ -1,2 +1,2 @@");
        let texts: Vec<(LineKind, &str)> = f[0]
            .lines
            .iter()
            .map(|l| (l.kind, l.text.as_str()))
            .collect();
        assert_eq!(
            texts,
            [
                (LineKind::Removed, "old"),
                (LineKind::Added, "new"),
                (LineKind::Context, "ctx")
            ]
        );
        assert_eq!(hunks.0.remove("gone").unwrap()[0].header, "@@ -1 +0,0 @@");
        assert!(EditHunks::read(b"").0.is_empty());
    }
}
