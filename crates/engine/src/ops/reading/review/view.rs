//! What the proposal view draws: per-file metadata (for the file list,
//! before any line is rendered) and per-file hunks with line numbers on
//! both sides. Files come from the base → proposal tree diff `show`
//! prints; lines from that file's patch (as `git diff` has it) and the word diff.

use serde::Serialize;

use crate::diff::hunks::{self, LineKind};
use crate::diff::word::{self, SegmentKind};
use crate::error::Result;
use crate::git::{FileDiff, FileStatus, Repo, RepoPath};
use crate::store::proposals::Proposal;

/// One changed file, without its lines.
#[derive(Debug, Clone, Serialize)]
pub struct FileView {
    pub path: String,
    /// The path at the base, when renamed.
    pub old_path: Option<String>,
    /// `create`, `modify`, `delete` or `rename`.
    pub operation_type: &'static str,
    pub binary: bool,
    /// Marked `linguist-generated` (or a lock file): collapsed by default.
    pub generated: bool,
    pub lines_added: usize,
    pub lines_removed: usize,
    /// Lines the diff of this file has (hunk headers included).
    pub diff_lines: usize,
    pub old_oid: String,
    pub new_oid: String,
}

/// A hunk: its header and its lines.
#[derive(Debug, Clone, Serialize)]
pub struct Hunk {
    pub header: String,
    pub old_start: u32,
    pub old_lines: u32,
    pub new_start: u32,
    pub new_lines: u32,
    pub lines: Vec<Line>,
    /// Continues the last hunk of the page before (a long hunk cut
    /// between pages): its header was sent there.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cont: bool,
}

/// One diff line: kind `' '`, `'-'` or `'+'`, its numbers, its text
/// (without the newline).
#[derive(Debug, Clone, Serialize)]
pub struct Line {
    pub k: char,
    pub o: Option<u32>,
    pub n: Option<u32>,
    pub t: String,
    /// Word-level changes: `[start, end)` character ranges that changed,
    /// from the engine's word diff; absent when the line has no partner.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub w: Option<Marks>,
}

fn is_generated(repo: &Repo, path: &str) -> bool {
    if let Some(v) = repo.index_attribute(path, "linguist-generated") {
        return v != "false" && v != "unset";
    }
    let name = path.rsplit('/').next().unwrap_or(path);
    matches!(
        name,
        "Cargo.lock" | "package-lock.json" | "yarn.lock" | "pnpm-lock.yaml" | "poetry.lock"
    ) || name.ends_with(".min.js")
        || name.ends_with(".min.css")
}

/// The hunks of the file the review page opens on, numbered (see
/// [`hunks`]), and the path the page asks for them by.
pub type FirstFile = (String, Vec<Hunk>);

/// The proposal's changed files, in diff order, and the first file's
/// hunks: they come from the diff that counted its lines, so its first
/// page needs no second diff (for one 20,000-line file that second diff
/// was most of the page's first row).
pub fn files(repo: &Repo, p: &Proposal) -> Result<(Vec<FileView>, Option<FirstFile>)> {
    let mut diffs = diff_of(repo, p, &p.meta.affected_paths(), None)?;
    let first = diffs.first_mut().map(|d| {
        let path = d.new_path.as_deref().or(d.old_path.as_deref());
        let hunks = if d.binary {
            Vec::new()
        } else {
            number_lines(std::mem::take(&mut d.hunks))
        };
        (path.unwrap_or_default().to_string(), hunks)
    });
    let views = diffs
        .into_iter()
        .map(|d| {
            let operation_type = match d.status {
                FileStatus::Added => "create",
                FileStatus::Deleted => "delete",
                FileStatus::Renamed => "rename",
                FileStatus::Modified => "modify",
            };
            let path = d
                .new_path
                .clone()
                .or(d.old_path.clone())
                .unwrap_or_default();
            FileView {
                generated: is_generated(repo, &path),
                path,
                old_path: (d.status == FileStatus::Renamed).then(|| d.old_path.unwrap_or_default()),
                operation_type,
                binary: d.binary,
                lines_added: d.lines_added,
                lines_removed: d.lines_removed,
                diff_lines: d.diff_lines,
                old_oid: d.old_id.to_string(),
                new_oid: d.new_id.to_string(),
            }
        })
        .collect();
    Ok((views, first))
}

/// The base → proposal diff of `paths` (exact bytes: a name that is not
/// UTF-8 is diffed too), renames found; only `only`'s patch when given.
fn diff_of(
    repo: &Repo,
    p: &Proposal,
    paths: &[RepoPath],
    only: Option<&str>,
) -> Result<Vec<FileDiff>> {
    let old = repo.commit_tree(p.base)?.id();
    let new = repo.commit_tree(p.commit)?.id();
    repo.file_diffs(old, new, paths, only)
}

/// The tree diff entry of the file the page shows as `path` (`None`: not
/// one of the proposal's files). Only that path is compared; a file that
/// then looks added or deleted may be one side of a rename, so only then
/// are all the proposal's paths compared, renames found, as `files` does.
fn file_diff(repo: &Repo, p: &Proposal, path: &str) -> Result<Option<FileDiff>> {
    let paths = p.meta.affected_paths();
    let Some(exact) = paths.iter().find(|q| q.lossy() == path) else {
        return Ok(None);
    };
    let shown = |d: &FileDiff| d.new_path.as_deref().or(d.old_path.as_deref()) == Some(path);
    let alone = diff_of(repo, p, std::slice::from_ref(exact), Some(path))?;
    if let Some(d) = alone.into_iter().find(|d| shown(d))
        && d.status == FileStatus::Modified
    {
        return Ok(Some(d));
    }
    Ok(diff_of(repo, p, &paths, Some(path))?
        .into_iter()
        .find(|d| shown(d)))
}

/// The hunks of one file of the proposal (`None`: not one of its files),
/// as `git diff` (and `show`) has them, numbered on both sides, without
/// word marks (see [`mark_words`]). Only this file is diffed, once: the
/// hunks come from the patch that also tells whether it is binary (a
/// second line diff of a 20,000-line file cost the first page 2.85× a
/// 1-line proposal's time).
pub fn hunks(repo: &Repo, p: &Proposal, path: &str) -> Result<Option<Vec<Hunk>>> {
    let Some(d) = file_diff(repo, p, path)? else {
        return Ok(None);
    };
    if d.binary {
        return Ok(Some(Vec::new()));
    }
    Ok(Some(number_lines(d.hunks)))
}

/// Line numbers on both sides, and word changes between paired lines.
pub fn number(structured: Vec<hunks::Hunk>) -> Vec<Hunk> {
    let mut out = number_lines(structured);
    for h in &mut out {
        mark_words(&mut h.lines, 0..usize::MAX);
    }
    out
}

/// Line numbers on both sides, no word marks yet.
pub(super) fn number_lines(structured: Vec<hunks::Hunk>) -> Vec<Hunk> {
    let mut out = Vec::with_capacity(structured.len());
    for h in structured {
        // An empty side's start is the line before it (git's convention).
        let mut o = if h.old_lines == 0 {
            h.old_start + 1
        } else {
            h.old_start
        } as u32;
        let mut n = if h.new_lines == 0 {
            h.new_start + 1
        } else {
            h.new_start
        } as u32;
        let mut lines = Vec::with_capacity(h.lines.len());
        for l in h.lines {
            let (k, on, nn) = match l.kind {
                LineKind::Context => ('\u{20}', Some(o), Some(n)),
                LineKind::Removed => ('-', Some(o), None),
                LineKind::Added => ('+', None, Some(n)),
            };
            o += u32::from(on.is_some());
            n += u32::from(nn.is_some());
            lines.push(Line {
                k,
                o: on,
                n: nn,
                t: l.text,
                w: None,
            });
        }
        out.push(Hunk {
            header: h.header,
            old_start: h.old_start as u32,
            old_lines: h.old_lines as u32,
            new_start: h.new_start as u32,
            new_lines: h.new_lines as u32,
            lines,
            cont: false,
        });
    }
    out
}

/// `[start, end)` character ranges within a line.
pub type Marks = Vec<[u32; 2]>;

/// Marks the changed words of each pair of [`partners`] in `lines` that
/// has a line in `within`.
pub(super) fn mark_words(lines: &mut [Line], within: std::ops::Range<usize>) {
    for (old, new) in partners(lines, within) {
        let (w_old, w_new) = word_marks(&lines[old].t, &lines[new].t);
        lines[old].w = w_old;
        lines[new].w = w_new;
    }
}

/// Pairs each run of removed lines with the added run after it, line by
/// line: the pairs (indexes into `lines`) with a line in `within` (a page
/// of a long file pays only for its own lines, its pairs found in the
/// whole hunk).
pub(super) fn partners(lines: &[Line], within: std::ops::Range<usize>) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].k != '-' {
            i += 1;
            continue;
        }
        let del_start = i;
        while i < lines.len() && lines[i].k == '-' {
            i += 1;
        }
        let add_start = i;
        while i < lines.len() && lines[i].k == '+' {
            i += 1;
        }
        let pairs = (add_start - del_start).min(i - add_start);
        out.extend(
            (0..pairs)
                .map(|j| (del_start + j, add_start + j))
                .filter(|(old, new)| within.contains(old) || within.contains(new)),
        );
    }
    out
}

/// The changed words of a removed line and the added line it pairs with.
pub(super) fn word_marks(old: &str, new: &str) -> (Option<Marks>, Option<Marks>) {
    ranges(&word::segments(old, new))
}

/// Character ranges of the removed and added segments on each side; none
/// when nothing but whitespace is shared (a whole-line change).
fn ranges(segments: &[word::Segment]) -> (Option<Marks>, Option<Marks>) {
    let shared = segments
        .iter()
        .any(|s| s.kind == SegmentKind::Equal && !s.text.trim().is_empty());
    if !shared {
        return (None, None);
    }
    let (mut old, mut new) = (Vec::new(), Vec::new());
    let (mut at_old, mut at_new) = (0u32, 0u32);
    for s in segments {
        let len = s.text.chars().count() as u32;
        match s.kind {
            SegmentKind::Equal => {
                at_old += len;
                at_new += len;
            }
            SegmentKind::Removed => {
                old.push([at_old, at_old + len]);
                at_old += len;
            }
            SegmentKind::Added => {
                new.push([at_new, at_new + len]);
                at_new += len;
            }
        }
    }
    (Some(old), Some(new))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_numbered_on_both_sides_and_words_marked() {
        let old = b"a\nlet user = getUserData();\nc\n";
        let new = b"a\nlet user = fetchUserData();\nc\nd\n";
        let h = number(crate::git::file_hunks(old, new).unwrap());
        let l = &h[0].lines;
        let got: Vec<(char, Option<u32>, Option<u32>)> =
            l.iter().map(|l| (l.k, l.o, l.n)).collect();
        assert_eq!(
            got,
            vec![
                (' ', Some(1), Some(1)),
                ('-', Some(2), None),
                ('+', None, Some(2)),
                (' ', Some(3), Some(3)),
                ('+', None, Some(4)),
            ]
        );
        let marked = |line: &Line| -> Vec<String> {
            let chars: Vec<char> = line.t.chars().collect();
            line.w
                .as_ref()
                .unwrap()
                .iter()
                .map(|[s, e]| chars[*s as usize..*e as usize].iter().collect())
                .collect()
        };
        assert_eq!(marked(&l[1]), ["getUserData();"]);
        assert_eq!(marked(&l[2]), ["fetchUserData();"]);
        assert!(l[4].w.is_none(), "an added line without a partner");
    }

    #[test]
    fn an_insertion_into_an_empty_file_starts_at_line_1() {
        let h = number(crate::git::file_hunks(b"", b"x\ny\n").unwrap());
        assert_eq!(h[0].lines[0].n, Some(1));
        assert_eq!(h[0].lines[1].n, Some(2));
    }
}
