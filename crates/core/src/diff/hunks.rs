//! Structured hunks of one file's change (`{header, old_start, old_lines,
//! new_start, new_lines, lines[{kind, text}]}`), for `--json`, the MCP
//! server and the review page. Only the shape: the hunks themselves are
//! found by the one line diff every view uses, libgit2's xdiff as `git
//! diff` runs it (`git::file_hunks`, `Repo::file_diffs`), never here.

use serde::Serialize;

/// A file's diff as hunks.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct DiffBody {
    /// Always "unified".
    pub format: &'static str,
    pub hunks: Vec<Hunk>,
}

/// One hunk.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct Hunk {
    /// `@@ -12,9 +12,11 @@`
    pub header: String,
    pub old_start: usize,
    pub old_lines: usize,
    pub new_start: usize,
    pub new_lines: usize,
    pub lines: Vec<HunkLine>,
}

/// One line of a hunk, without its line ending.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct HunkLine {
    pub kind: LineKind,
    pub text: String,
}

/// Context, removed or added.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum LineKind {
    Context,
    Removed,
    Added,
}

impl DiffBody {
    /// A body of `hunks`.
    pub fn unified(hunks: Vec<Hunk>) -> DiffBody {
        DiffBody {
            format: "unified",
            hunks,
        }
    }
}

impl Hunk {
    /// A hunk numbered as git numbers it (`(start, lines)` per side: starts
    /// from 1, an empty side's the line before it), its header git's
    /// without the function context.
    pub fn numbered(old: (usize, usize), new: (usize, usize), lines: Vec<HunkLine>) -> Hunk {
        let side = |(s, n): (usize, usize)| {
            if n == 1 {
                s.to_string()
            } else {
                format!("{s},{n}")
            }
        };
        Hunk {
            header: format!("@@ -{} +{} @@", side(old), side(new)),
            old_start: old.0,
            old_lines: old.1,
            new_start: new.0,
            new_lines: new.1,
            lines,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_leave_out_a_count_of_one_as_git_does() {
        let h = |old, new| Hunk::numbered(old, new, Vec::new()).header;
        assert_eq!(h((3, 7), (3, 7)), "@@ -3,7 +3,7 @@");
        assert_eq!(h((0, 0), (1, 1)), "@@ -0,0 +1 @@");
        assert_eq!(h((4, 1), (3, 0)), "@@ -4 +3,0 @@");
    }
}
