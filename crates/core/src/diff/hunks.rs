//! Structured hunks of one file's change (`{header, old_start, old_lines,
//! new_start, new_lines, lines[{kind, text}]}`), for `--json`, the MCP
//! server and the review page. Pure; computed with `similar`, three lines
//! of context like git.

use serde::Serialize;
use similar::{ChangeTag, TextDiff};

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

/// Lines over which the line diff is not attempted: one hunk replaces all.
const MAX_LINES: usize = 200_000;

/// The hunks turning `old` into `new` (invalid UTF-8 shown lossily).
pub fn hunks(old: &[u8], new: &[u8]) -> DiffBody {
    let old = String::from_utf8_lossy(old);
    let new = String::from_utf8_lossy(new);
    let mut out = Vec::new();
    if old.lines().count() + new.lines().count() > MAX_LINES {
        out.push(whole(&old, &new));
        return DiffBody {
            format: "unified",
            hunks: out,
        };
    }
    let diff = TextDiff::configure()
        .timeout(std::time::Duration::from_millis(500))
        .diff_lines(old.as_ref(), new.as_ref());
    for group in diff.grouped_ops(3) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let old_range = first.old_range().start..last.old_range().end;
        let new_range = first.new_range().start..last.new_range().end;
        let mut lines = Vec::new();
        for op in &group {
            for change in diff.iter_changes(op) {
                let kind = match change.tag() {
                    ChangeTag::Equal => LineKind::Context,
                    ChangeTag::Delete => LineKind::Removed,
                    ChangeTag::Insert => LineKind::Added,
                };
                let text = change.value().trim_end_matches('\n').trim_end_matches('\r');
                lines.push(HunkLine {
                    kind,
                    text: text.to_string(),
                });
            }
        }
        out.push(hunk(
            old_range.start,
            old_range.len(),
            new_range.start,
            new_range.len(),
            lines,
        ));
    }
    DiffBody {
        format: "unified",
        hunks: out,
    }
}

fn whole(old: &str, new: &str) -> Hunk {
    let mut lines: Vec<HunkLine> = old
        .lines()
        .map(|l| HunkLine {
            kind: LineKind::Removed,
            text: l.to_string(),
        })
        .collect();
    lines.extend(new.lines().map(|l| HunkLine {
        kind: LineKind::Added,
        text: l.to_string(),
    }));
    hunk(0, old.lines().count(), 0, new.lines().count(), lines)
}

/// git's header: 1-based starts; an empty side starts at the line before.
fn hunk(
    old_start0: usize,
    old_lines: usize,
    new_start0: usize,
    new_lines: usize,
    lines: Vec<HunkLine>,
) -> Hunk {
    let start = |s0: usize, n: usize| if n == 0 { s0 } else { s0 + 1 };
    Hunk::numbered(
        (start(old_start0, old_lines), old_lines),
        (start(new_start0, new_lines), new_lines),
        lines,
    )
}

impl Hunk {
    /// A hunk numbered as git numbers it (`(start, lines)` per side: starts
    /// from 1, an empty side's the line before it), its header git's
    /// without the function context: the shape of `diff::hunks`' own, for
    /// a hunk another diff (libgit2's) found.
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
    fn headers_match_git() {
        let old = "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n";
        let new = "1\n2\n3\n4\n5\nsix\n7\n8\n9\n10\n";
        let d = hunks(old.as_bytes(), new.as_bytes());
        assert_eq!(d.hunks.len(), 1);
        assert_eq!(d.hunks[0].header, "@@ -3,7 +3,7 @@");
        assert_eq!(
            d.hunks[0].lines[3],
            HunkLine {
                kind: LineKind::Removed,
                text: "6".into()
            }
        );
        let created = hunks(b"", b"a\n");
        assert_eq!(created.hunks[0].header, "@@ -0,0 +1 @@");
    }
}
