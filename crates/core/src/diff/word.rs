//! Word diffs inside changed lines, in git's default `--word-diff` format
//! (`[-old-]{+new+}` inline) and as segments for the review page. Pure;
//! computed with `similar`, with caps so a pathological line (minified
//! JSON, a megabyte on one line) degrades to a whole-line change instead of
//! a slow diff. They only mark words inside the lines of hunks git's line
//! diff found (`git::diff`); they never move a hunk or a line.

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
    if let Some(out) = replaced_middle(old, new) {
        return out;
    }
    let diff = TextDiff::configure()
        .timeout(std::time::Duration::from_millis(50))
        .diff_words(old, new);
    merged(&diff)
}

/// The diff's changes as segments, neighbours of one kind merged.
fn merged<'a>(diff: &TextDiff<'a, 'a, '_, str>) -> Vec<Segment> {
    let mut out: Vec<Segment> = Vec::new();
    for change in diff.iter_all_changes() {
        let kind = match change.tag() {
            ChangeTag::Equal => SegmentKind::Equal,
            ChangeTag::Delete => SegmentKind::Removed,
            ChangeTag::Insert => SegmentKind::Added,
        };
        match out.last_mut() {
            Some(last) if last.kind == kind => last.text.push_str(change.value()),
            _ => out.push(Segment {
                kind,
                text: change.value().to_string(),
            }),
        }
    }
    out
}

/// Runs of whitespace and runs of anything else: the words `similar`'s
/// `diff_words` compares.
fn tokens(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut space = None;
    for (i, c) in s.char_indices() {
        let is_space = c.is_whitespace();
        if space.is_some_and(|s| s != is_space) {
            out.push(&s[start..i]);
            start = i;
        }
        space = Some(is_space);
    }
    if start < s.len() {
        out.push(&s[start..]);
    }
    out
}

/// The common case of a changed line, without a diff algorithm: after the
/// words both sides share at the start and at the end, what is left on
/// each side is non-empty and has no word in common with the other, so
/// the answer is "this replaced by that" (what the full diff says too,
/// see the test). The review page pairs thousands of such lines (issue
/// 12: 5,000 pairs within 100 ms). `None`: the full diff decides.
fn replaced_middle(old: &str, new: &str) -> Option<Vec<Segment>> {
    let (a, b) = (tokens(old), tokens(new));
    let pre = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suf = a[pre..]
        .iter()
        .rev()
        .zip(b[pre..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (am, bm) = (&a[pre..a.len() - suf], &b[pre..b.len() - suf]);
    if am.is_empty() || bm.is_empty() || (am.len() + bm.len()) * (a.len() + b.len()) > 4096 {
        return None;
    }
    // A word of one middle found anywhere on the other side could align
    // differently (ties between equally long matches): the full diff then.
    if am.iter().any(|t| b.contains(t)) || bm.iter().any(|t| a.contains(t)) {
        return None;
    }
    let join = |ts: &[&str]| ts.concat();
    let parts = [
        (SegmentKind::Equal, join(&a[..pre])),
        (SegmentKind::Removed, join(am)),
        (SegmentKind::Added, join(bm)),
        (SegmentKind::Equal, join(&a[a.len() - suf..])),
    ];
    Some(
        parts
            .into_iter()
            .filter(|(_, text)| !text.is_empty())
            .map(|(kind, text)| Segment { kind, text })
            .collect(),
    )
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

    /// The full diff, without the shortcut.
    fn full(old: &str, new: &str) -> Vec<Segment> {
        merged(&TextDiff::configure().diff_words(old, new))
    }

    #[test]
    fn the_shortcut_says_what_the_full_diff_says() {
        // Every line of up to five words over a small alphabet, against
        // each other (a deterministic sample of pairs).
        let words = ["a", "b", "c(x,", " ", "  ", "\t", "é"];
        let mut lines = Vec::new();
        let mut seed = 0x2545_f491_u64;
        for _ in 0..400 {
            let mut line = String::new();
            for _ in 0..(seed % 6) {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                line.push_str(words[(seed >> 33) as usize % words.len()]);
            }
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            lines.push(line);
        }
        let mut shortcut = 0;
        for (i, old) in lines.iter().enumerate() {
            for new in lines.iter().skip(i % 7).step_by(7) {
                if let Some(fast) = replaced_middle(old, new) {
                    shortcut += 1;
                    assert_eq!(fast, full(old, new), "{old:?} -> {new:?}");
                }
                assert_eq!(tokens(old).concat(), *old);
            }
        }
        assert!(shortcut > 1000, "the shortcut was taken {shortcut} times");
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
