//! What the proposal view draws: per-file metadata (for the file list,
//! before any line is rendered) and per-file hunks with line numbers on
//! both sides, from the same base → proposal tree diff `show` prints.

use git2::{Delta, DiffOptions, Patch, Repository};
use serde::Serialize;

use crate::error::Result;
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
    pub w: Option<Vec<[u32; 2]>>,
}

fn options(paths: &[String]) -> DiffOptions {
    let mut o = DiffOptions::new();
    o.context_lines(3);
    o.disable_pathspec_match(true);
    for p in paths {
        o.pathspec(p);
    }
    o
}

fn diff<'r>(repo: &'r Repository, p: &Proposal, paths: &[String]) -> Result<git2::Diff<'r>> {
    let old = repo.find_commit(p.base)?.tree()?;
    let new = repo.find_commit(p.commit)?.tree()?;
    let mut opts = options(paths);
    let mut diff = repo.diff_tree_to_tree(Some(&old), Some(&new), Some(&mut opts))?;
    let mut find = git2::DiffFindOptions::new();
    find.renames(true);
    diff.find_similar(Some(&mut find))?;
    Ok(diff)
}

fn is_generated(repo: &Repository, path: &str) -> bool {
    let attr = repo
        .get_attr(
            std::path::Path::new(path),
            "linguist-generated",
            git2::AttrCheckFlags::INDEX_ONLY,
        )
        .ok()
        .flatten();
    if let Some(v) = attr {
        return v != "false" && v != "unset";
    }
    let name = path.rsplit('/').next().unwrap_or(path);
    matches!(
        name,
        "Cargo.lock" | "package-lock.json" | "yarn.lock" | "pnpm-lock.yaml" | "poetry.lock"
    ) || name.ends_with(".min.js")
        || name.ends_with(".min.css")
}

/// The proposal's changed files, in diff order.
pub fn files(repo: &Repository, p: &Proposal) -> Result<Vec<FileView>> {
    let diff = diff(repo, p, &p.meta.affected_files)?;
    let mut out = Vec::new();
    for i in 0..diff.deltas().len() {
        let delta = diff.get_delta(i).expect("index in range");
        let new_path = delta
            .new_file()
            .path()
            .map(|p| p.to_string_lossy().into_owned());
        let old_path = delta
            .old_file()
            .path()
            .map(|p| p.to_string_lossy().into_owned());
        let operation_type = match delta.status() {
            Delta::Added => "create",
            Delta::Deleted => "delete",
            Delta::Renamed => "rename",
            _ => "modify",
        };
        let path = new_path.clone().or(old_path.clone()).unwrap_or_default();
        let (mut added, mut removed, mut lines) = (0, 0, 0);
        let mut binary = delta.flags().is_binary();
        if let Some(patch) = Patch::from_diff(&diff, i)? {
            let (_, a, r) = patch.line_stats()?;
            (added, removed) = (a, r);
            lines = (0..patch.num_hunks())
                .map(|h| patch.num_lines_in_hunk(h).unwrap_or(0) + 1)
                .sum();
            binary |= patch.delta().flags().is_binary();
        }
        out.push(FileView {
            generated: is_generated(repo, &path),
            path,
            old_path: (delta.status() == Delta::Renamed).then(|| old_path.unwrap_or_default()),
            operation_type,
            binary,
            lines_added: added,
            lines_removed: removed,
            diff_lines: lines,
            old_oid: delta.old_file().id().to_string(),
            new_oid: delta.new_file().id().to_string(),
        });
    }
    Ok(out)
}

fn text(bytes: &[u8]) -> String {
    let s = String::from_utf8_lossy(bytes);
    s.strip_suffix('\n')
        .map(|s| s.strip_suffix('\r').unwrap_or(s))
        .unwrap_or(&s)
        .to_string()
}

/// The hunks of one file of the proposal (`None`: not one of its files).
pub fn hunks(repo: &Repository, p: &Proposal, path: &str) -> Result<Option<Vec<Hunk>>> {
    let Some(file) = files(repo, p)?.into_iter().find(|f| f.path == path) else {
        return Ok(None);
    };
    let mut paths = vec![file.path.clone()];
    paths.extend(file.old_path.clone());
    let diff = diff(repo, p, &paths)?;
    let mut out = Vec::new();
    for i in 0..diff.deltas().len() {
        let Some(patch) = Patch::from_diff(&diff, i)? else {
            continue;
        };
        for h in 0..patch.num_hunks() {
            let (hunk, n) = patch.hunk(h)?;
            let mut lines = Vec::with_capacity(n);
            for l in 0..n {
                let line = patch.line_in_hunk(h, l)?;
                let k = line.origin();
                if !matches!(k, ' ' | '+' | '-') {
                    continue;
                }
                lines.push(Line {
                    k,
                    o: line.old_lineno(),
                    n: line.new_lineno(),
                    t: text(line.content()),
                    w: None,
                });
            }
            out.push(Hunk {
                header: text(hunk.header()),
                old_start: hunk.old_start(),
                old_lines: hunk.old_lines(),
                new_start: hunk.new_start(),
                new_lines: hunk.new_lines(),
                lines,
            });
        }
    }
    Ok(Some(out))
}
