//! Word diffs inside changed lines, in git's default `--word-diff` format
//! (`[-old-]{+new+}` inline) and as segments for the review page. Pure;
//! computed with `similar`, with caps so a pathological line (minified
//! JSON, a megabyte on one line) degrades to a whole-line change instead of
//! a slow diff.

use serde::Serialize;
use similar::{ChangeTag, TextDiff};

/// Longest text (bytes, both sides together) diffed word by word.
pub const MAX_BYTES: usize = 20_000;
/// Most words (both sides together) diffed word by word.
pub const MAX_WORDS: usize = 4_000;

/// One piece of a word diff.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Segment {
    pub kind: SegmentKind,
    pub text: String,
}

/// Unchanged, removed or added.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum SegmentKind {
    Equal,
    Removed,
    Added,
}

fn words(s: &str) -> usize {
    s.split_whitespace().count()
}

/// The segments turning `old` into `new`, word by word; over the caps, the
/// whole of `old` removed and the whole of `new` added.
pub fn segments(old: &str, new: &str) -> Vec<Segment> {
    let seg = |kind, text: &str| Segment {
        kind,
        text: text.to_string(),
    };
    if old.len() + new.len() > MAX_BYTES || words(old) + words(new) > MAX_WORDS {
        let mut out = Vec::new();
        if !old.is_empty() {
            out.push(seg(SegmentKind::Removed, old));
        }
        if !new.is_empty() {
            out.push(seg(SegmentKind::Added, new));
        }
        return out;
    }
    let diff = TextDiff::configure()
        .timeout(std::time::Duration::from_millis(50))
        .diff_words(old, new);
    let mut out: Vec<Segment> = Vec::new();
    for change in diff.iter_all_changes() {
        let kind = match change.tag() {
            ChangeTag::Equal => SegmentKind::Equal,
            ChangeTag::Delete => SegmentKind::Removed,
            ChangeTag::Insert => SegmentKind::Added,
        };
        match out.last_mut() {
            Some(last) if last.kind == kind => last.text.push_str(change.value()),
            _ => out.push(seg(kind, change.value())),
        }
    }
    // Whitespace between two changes reads better inside them, as git shows it.
    out
}

/// Renders segments as git does: `[-removed-]{+added+}`, markers never
/// spanning a line break.
pub fn render(segments: &[Segment], out: &mut String) {
    for s in segments {
        let (open, close) = match s.kind {
            SegmentKind::Equal => {
                out.push_str(&s.text);
                continue;
            }
            SegmentKind::Removed => ("[-", "-]"),
            SegmentKind::Added => ("{+", "+}"),
        };
        for (i, piece) in s.text.split('\n').enumerate() {
            if i > 0 {
                out.push('\n');
            }
            if !piece.is_empty() {
                out.push_str(open);
                out.push_str(piece);
                out.push_str(close);
            }
        }
    }
}

/// Turns a unified diff into git's word-diff form: headers as they are,
/// context lines without their prefix, each run of removed then added lines
/// as one word-diffed block.
pub fn word_diff(patch: &[u8]) -> String {
    let text = String::from_utf8_lossy(patch);
    let mut out = String::with_capacity(text.len());
    let (mut old, mut new) = (String::new(), String::new());
    let mut in_hunk = false;
    let flush = |old: &mut String, new: &mut String, out: &mut String| {
        if old.is_empty() && new.is_empty() {
            return;
        }
        let o = old.strip_suffix('\n').unwrap_or(old);
        let n = new.strip_suffix('\n').unwrap_or(new);
        render(&segments(o, n), out);
        out.push('\n');
        old.clear();
        new.clear();
    };
    for line in text.split_inclusive('\n') {
        if line.starts_with("diff --git ") {
            flush(&mut old, &mut new, &mut out);
            in_hunk = false;
        }
        if line.starts_with("@@") {
            flush(&mut old, &mut new, &mut out);
            in_hunk = true;
            out.push_str(line);
            continue;
        }
        if !in_hunk {
            out.push_str(line);
            continue;
        }
        let body = line.strip_suffix('\n').unwrap_or(line);
        let body = body.strip_suffix('\r').unwrap_or(body);
        match line.as_bytes().first() {
            Some(b'-') => {
                old.push_str(&body[1..]);
                old.push('\n');
            }
            Some(b'+') => {
                new.push_str(&body[1..]);
                new.push('\n');
            }
            Some(b'\\') => {}
            _ => {
                flush(&mut old, &mut new, &mut out);
                out.push_str(body.get(1..).unwrap_or_default());
                out.push('\n');
            }
        }
    }
    flush(&mut old, &mut new, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_git_format_inline() {
        let mut out = String::new();
        render(
            &segments("let x = old_name(1);", "let x = new_name(1);"),
            &mut out,
        );
        assert_eq!(out, "let x = [-old_name(1);-]{+new_name(1);+}");
    }

    #[test]
    fn word_diff_of_a_patch() {
        let patch = b"diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n keep me\n-say hello world\n+say goodbye world\n";
        let out = word_diff(patch);
        assert!(
            out.ends_with("@@ -1,2 +1,2 @@\nkeep me\nsay [-hello-]{+goodbye+} world\n"),
            "{out}"
        );
    }

    #[test]
    fn pathological_lines_fall_back_to_whole_lines() {
        let old = "a ".repeat(20_000);
        let new = "b ".repeat(20_000);
        let start = std::time::Instant::now();
        let s = segments(&old, &new);
        assert_eq!(s.len(), 2);
        assert!(start.elapsed().as_millis() < 1000);
    }
}
