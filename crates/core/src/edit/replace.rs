//! `op: replace`: exact text, exactly once unless `replace_all`. A miss
//! reports the closest region and its first differing line, because the
//! usual cause is text that drifted (whitespace, indentation, a stale view).

use super::failure::{Candidate, EditCode, EditFailure};
use super::is_binary;
use super::text::{Change, excerpt, is_crlf, line_of, to_eol};

/// What one exact replace needs.
pub struct ReplaceEdit<'a> {
    pub index: usize,
    pub path: &'a str,
    pub old: &'a str,
    pub new: &'a str,
    pub replace_all: bool,
}

/// Applies the replace to `content`; the changes are byte ranges of `content`.
pub fn apply(
    content: &[u8],
    edit: &ReplaceEdit<'_>,
) -> Result<(Vec<u8>, Vec<Change>), EditFailure> {
    let fail = |code, message: String, hint: &str| {
        EditFailure::new(Some(edit.index), edit.path, code, message, hint)
    };
    if is_binary(content) {
        return Err(fail(
            EditCode::BinaryFile,
            format!("edits[{}]: {} is a binary file", edit.index, edit.path),
            "text edits cannot change binary files; use op \"write\" or \"delete\"",
        ));
    }
    if edit.old == edit.new {
        return Err(EditFailure::invalid(
            Some(edit.index),
            edit.path,
            format!(
                "edits[{}].new is the same as old: the edit changes nothing",
                edit.index
            ),
        ));
    }
    let crlf = is_crlf(content);
    // `old` written with `\n` matches `\r\n` in a CRLF file; `new` takes
    // the file's line ending.
    let old = to_eol(edit.old, crlf);
    let new = to_eol(edit.new, crlf);
    let mut needle = old.as_str();
    let mut hits = find_all(content, needle.as_bytes());
    if hits.is_empty() && old != edit.old {
        needle = edit.old;
        hits = find_all(content, needle.as_bytes());
    }
    let old_len = needle.len();
    if hits.is_empty() {
        return Err(miss(content, edit, &new));
    }
    if hits.len() > 1 && !edit.replace_all {
        let lines: Vec<usize> = hits.iter().map(|&h| line_of(content, h)).collect();
        let mut f = fail(
            EditCode::AmbiguousMatch,
            format!(
                "edits[{}]: the old text occurs {} times in {} (lines {}); it must occur exactly once",
                edit.index,
                hits.len(),
                edit.path,
                crate::comma_list::comma_list(&lines)
            ),
            "add surrounding lines to old so that it names one place, or set replace_all to change every occurrence",
        );
        f.detail.lines = Some(lines);
        return Err(f);
    }
    let mut out = Vec::with_capacity(content.len() + new.len() * hits.len());
    let mut last = 0;
    let mut changes = Vec::with_capacity(hits.len());
    for &h in &hits {
        out.extend_from_slice(&content[last..h]);
        out.extend_from_slice(new.as_bytes());
        changes.push(Change {
            edit: edit.index,
            start: h,
            end: h + old_len,
            new_len: new.len(),
        });
        last = h + old_len;
    }
    out.extend_from_slice(&content[last..]);
    Ok((out, changes))
}

/// Non-overlapping occurrences, left to right.
pub fn find_all(hay: &[u8], needle: &[u8]) -> Vec<usize> {
    let mut out = Vec::new();
    if needle.is_empty() || needle.len() > hay.len() {
        return out;
    }
    let first = needle[0];
    let mut at = 0;
    while at + needle.len() <= hay.len() {
        match hay[at..].iter().position(|&b| b == first) {
            None => break,
            Some(p) => {
                let s = at + p;
                if s + needle.len() > hay.len() {
                    break;
                }
                if &hay[s..s + needle.len()] == needle {
                    out.push(s);
                    at = s + needle.len();
                } else {
                    at = s + 1;
                }
            }
        }
    }
    out
}

/// `no_match`, or `already_applied` when `new` is there instead.
fn miss(content: &[u8], edit: &ReplaceEdit<'_>, new: &str) -> EditFailure {
    if !edit.new.is_empty() {
        let found = find_all(content, new.as_bytes());
        let found = if found.is_empty() {
            find_all(content, edit.new.as_bytes())
        } else {
            found
        };
        if let Some(&at) = found.first() {
            return EditFailure::new(
                Some(edit.index),
                edit.path,
                EditCode::AlreadyApplied,
                format!(
                    "edits[{}]: the old text is not in {}, but the new text already is (line {}): the edit looks applied already",
                    edit.index,
                    edit.path,
                    line_of(content, at)
                ),
                "drop this edit from the list; `git evolv cat` shows the file as the edit sees it",
            );
        }
    }
    let text = String::from_utf8_lossy(content);
    let candidate = closest(&text, edit.old);
    let where_ = match &candidate {
        Some(c) => format!(
            "; the closest region is lines {}-{}, where line {} differs: expected `{}` but the file has `{}`",
            c.start_line,
            c.end_line,
            c.first_diff_line,
            excerpt(&c.expected, 120).escape_debug(),
            excerpt(&c.found, 120).escape_debug()
        ),
        None => String::new(),
    };
    let mut f = EditFailure::new(
        Some(edit.index),
        edit.path,
        EditCode::NoMatch,
        format!(
            "edits[{}]: the old text was not found in {}{where_}",
            edit.index, edit.path
        ),
        "copy old exactly from the file at the base, whitespace, indentation and line endings included (`git evolv cat` or `git show HEAD:<path>` prints it)",
    );
    f.detail.candidate = candidate;
    f
}

/// How alike two lines are, cheaply: exact, then ignoring the indentation,
/// then ignoring all whitespace.
fn cheap_score(a: &str, b: &str) -> u32 {
    if a == b {
        4
    } else if a.trim() == b.trim() {
        3
    } else if squash(a) == squash(b) {
        2
    } else {
        0
    }
}

fn squash(s: &str) -> String {
    s.chars().filter(|c| !c.is_whitespace()).collect()
}

/// The region of `text` most like `old`, by lines; `None` for an empty file.
pub fn closest(text: &str, old: &str) -> Option<Candidate> {
    let lines: Vec<&str> = text.lines().map(|l| l.trim_end_matches('\r')).collect();
    let wanted: Vec<&str> = old.lines().map(|l| l.trim_end_matches('\r')).collect();
    if lines.is_empty() || wanted.is_empty() {
        return None;
    }
    let k = wanted.len().min(lines.len());
    let windows = lines.len() - k + 1;
    // Bound the work on huge files: a window costs k line comparisons.
    let budget = 2_000_000usize;
    let step = ((windows * k) / budget).max(1);
    let mut best = (0u32, 0usize);
    for start in (0..windows).step_by(step) {
        let score: u32 = (0..k)
            .map(|j| cheap_score(wanted[j], lines[start + j]))
            .sum();
        if score > best.0 {
            best = (score, start);
        }
    }
    if best.0 == 0 {
        // Nothing alike line by line: the line most like old's first line.
        let first = wanted[0];
        let mut top = (0.0f32, 0usize);
        for (i, l) in lines.iter().enumerate().take(20_000) {
            if l.len() > 2_000 || first.len() > 2_000 {
                continue;
            }
            let r = similar::TextDiff::from_chars(first, l).ratio();
            if r > top.0 {
                top = (r, i);
            }
        }
        if top.0 < 0.3 {
            return None;
        }
        best.1 = top.1.min(windows - 1);
    }
    let start = best.1;
    let diff = (0..k).find(|&j| wanted[j] != lines[start + j]).unwrap_or(0);
    Some(Candidate {
        start_line: start + 1,
        end_line: start + k,
        first_diff_line: start + diff + 1,
        expected: wanted[diff].to_string(),
        found: lines[start + diff].to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit<'a>(old: &'a str, new: &'a str, all: bool) -> ReplaceEdit<'a> {
        ReplaceEdit {
            index: 0,
            path: "f",
            old,
            new,
            replace_all: all,
        }
    }

    #[test]
    fn replaces_exactly_once() {
        let (out, ch) = apply(b"a\nb\nc\n", &edit("b", "B", false)).unwrap();
        assert_eq!(out, b"a\nB\nc\n");
        assert_eq!(ch.len(), 1);
    }

    #[test]
    fn several_occurrences_are_ambiguous_with_lines() {
        let err = apply(b"x\ny\nx\n", &edit("x", "z", false)).unwrap_err();
        assert_eq!(err.code, EditCode::AmbiguousMatch);
        assert_eq!(err.detail.lines, Some(vec![1, 3]));
        let (out, _) = apply(b"x\ny\nx\n", &edit("x", "z", true)).unwrap();
        assert_eq!(out, b"z\ny\nz\n");
    }

    #[test]
    fn lf_old_matches_crlf_and_new_takes_crlf() {
        let (out, _) = apply(b"a\r\nb\r\nc\r\n", &edit("a\nb\n", "x\ny\nz\n", false)).unwrap();
        assert_eq!(out, b"x\r\ny\r\nz\r\nc\r\n");
    }

    #[test]
    fn drifted_indentation_reports_the_candidate() {
        let err = apply(
            b"fn main() {\n\tlet x = 1;\n\tprint(x);\n}\n",
            &edit("    let x = 1;\n    print(x);", "y", false),
        )
        .unwrap_err();
        assert_eq!(err.code, EditCode::NoMatch);
        let c = err.detail.candidate.unwrap();
        assert_eq!((c.start_line, c.end_line, c.first_diff_line), (2, 3, 2));
        assert_eq!(c.found, "\tlet x = 1;");
        assert!(err.message.contains("lines 2-3"), "{}", err.message);
    }

    #[test]
    fn new_text_present_is_already_applied() {
        let err = apply(b"let y = 2;\n", &edit("let x = 1;", "let y = 2;", false)).unwrap_err();
        assert_eq!(err.code, EditCode::AlreadyApplied);
    }

    #[test]
    fn binary_is_refused() {
        let err = apply(b"a\0b", &edit("a", "b", false)).unwrap_err();
        assert_eq!(err.code, EditCode::BinaryFile);
    }
}
