//! Splitting a hunk into smaller ones, as `git add -p`'s `s` does: each run
//! of changed lines becomes a hunk of its own, with the unchanged lines
//! around it as context (a context line between two runs is the trailing
//! context of the one and the leading context of the other).

use super::{Hunk, HunkLine};

/// The hunks `hunk` splits into; itself alone when it has one run of
/// changes.
pub fn split_hunk(hunk: &Hunk) -> Vec<Hunk> {
    let lines = &hunk.lines;
    let is_change = |l: &HunkLine| !matches!(l, HunkLine::Context(_));
    // Each run of changes: [start, end) in `lines`.
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if is_change(&lines[i]) {
            let start = i;
            while i < lines.len() && is_change(&lines[i]) {
                i += 1;
            }
            runs.push((start, i));
        } else {
            i += 1;
        }
    }
    if runs.len() < 2 {
        return vec![hunk.clone()];
    }
    let mut out = Vec::new();
    for n in 0..runs.len() {
        let from = if n == 0 { 0 } else { runs[n - 1].1 };
        let to = runs.get(n + 1).map_or(lines.len(), |next| next.0);
        // The old and new line numbers where `from` begins.
        let (mut old, mut new) = (hunk.old_start, hunk.new_start);
        for line in &lines[..from] {
            match line {
                HunkLine::Context(_) => {
                    old += 1;
                    new += 1;
                }
                HunkLine::Remove(_) => old += 1,
                HunkLine::Add(_) => new += 1,
            }
        }
        let part: Vec<HunkLine> = lines[from..to].to_vec();
        let count = |keep: fn(&HunkLine) -> bool| part.iter().filter(|l| keep(l)).count();
        out.push(Hunk {
            old_start: old,
            old_count: count(|l| !matches!(l, HunkLine::Add(_))),
            new_start: new,
            new_count: count(|l| !matches!(l, HunkLine::Remove(_))),
            lines: part,
            line: hunk.line,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::patch::Body;
    use crate::patch::apply::apply_hunks;
    use crate::patch::unified;

    fn hunk_of(text: &str) -> Hunk {
        match unified::parse(text.as_bytes()).unwrap().remove(0).body {
            Body::Hunks(mut h) => h.remove(0),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn each_run_of_changes_becomes_a_hunk_that_applies_alone() {
        let hunk = hunk_of("--- a/f\n+++ b/f\n@@ -1,5 +1,5 @@\n a\n-b\n+B\n c\n-d\n+D\n e\n");
        let parts = split_hunk(&hunk);
        assert_eq!(parts.len(), 2);
        assert_eq!((parts[0].old_start, parts[0].old_count), (1, 3));
        assert_eq!((parts[1].old_start, parts[1].old_count), (3, 3));
        let base = b"a\nb\nc\nd\ne\n";
        assert_eq!(
            apply_hunks(&parts[..1], "f", base).unwrap(),
            b"a\nB\nc\nd\ne\n"
        );
        assert_eq!(
            apply_hunks(&parts[1..], "f", base).unwrap(),
            b"a\nb\nc\nD\ne\n"
        );
        assert_eq!(apply_hunks(&parts, "f", base).unwrap(), b"a\nB\nc\nD\ne\n");
        assert_eq!(split_hunk(&parts[0]), vec![parts[0].clone()]);
    }
}
