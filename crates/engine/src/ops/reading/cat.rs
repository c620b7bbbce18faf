//! cat: a file as it is in a proposal's tree (or HEAD's), so locators can
//! be computed from what the proposal will contain.

use serde::Serialize;

use crate::error::{Error, Result};
use crate::git::Repo;
use crate::ops::session::Session;
use crate::ops::session::{Open, UseCase};
use crate::store::proposals;

/// Which file of which tree, and which lines.
#[derive(Debug, Clone, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CatRequest {
    /// A proposal id, or `HEAD`.
    pub patch_id: String,
    /// Repository-relative path.
    pub path: String,
    /// First and last line (1-based, inclusive); the whole file when absent.
    #[serde(default)]
    pub lines: Option<(usize, usize)>,
}

/// The file's content (or the lines asked for).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct CatOutcome {
    pub patch_id: String,
    pub path: String,
    pub blob: String,
    /// Lines in the whole file.
    pub total_lines: usize,
    /// The first and last line returned (0 and 0 for an empty file).
    pub start_line: usize,
    pub end_line: usize,
    /// The text (invalid UTF-8 replaced); `bytes` is exact.
    pub content: String,
    pub binary: bool,
    #[serde(skip)]
    pub bytes: Vec<u8>,
}

/// Reads `path` from the proposal's tree.
pub fn cat(repo: &Repo, req: &CatRequest) -> Result<CatOutcome> {
    let commit = if req.patch_id == "HEAD" {
        crate::git::head(repo)?.commit
    } else {
        proposals::load(repo, &req.patch_id)?.commit
    };
    crate::edit::path::check_path(&req.path).map_err(|why| {
        Error::invalid(
            format!("path {why}"),
            "give a path relative to the top of the repository",
        )
    })?;
    let tree = repo.commit_tree(commit)?;
    let entry = tree
        .get_path(std::path::Path::new(&req.path))
        .ok_or_else(|| {
            Error::invalid(
                format!("{} does not exist in {}", req.path, req.patch_id),
                format!("list its files with `git ls-tree -r --name-only {commit}`"),
            )
        })?;
    let not_a_file = || {
        Error::invalid(
            format!("{} is not a file in {}", req.path, req.patch_id),
            "name a file, not a directory",
        )
    };
    if entry.kind != crate::git::objects::view::Kind::Blob {
        return Err(not_a_file());
    }
    let blob = repo.blob(entry.id).map_err(|_| not_a_file())?;
    let all = blob.as_slice();
    let binary = crate::edit::is_binary(all);
    let total = crate::edit::text::line_count(all);
    let (start, end, bytes) = match req.lines {
        None => (usize::from(total > 0), total, all.to_vec()),
        Some((a, b)) => {
            if a == 0 || b < a {
                return Err(Error::invalid_field(
                    "lines",
                    format!("lines {a}:{b} is not a range of lines"),
                    "give A:B with 1 <= A <= B",
                ));
            }
            if a > total {
                return Err(Error::invalid(
                    format!(
                        "line {a} exceeds file length ({total} lines) of {}",
                        req.path
                    ),
                    "ask for lines inside the file",
                ));
            }
            let b = b.min(total);
            let lines: Vec<&[u8]> = all.split_inclusive(|&c| c == b'\n').collect();
            (a, b, lines[a - 1..b].concat())
        }
    };
    Ok(CatOutcome {
        patch_id: req.patch_id.clone(),
        path: req.path.clone(),
        blob: entry.id.to_string(),
        total_lines: total,
        start_line: start,
        end_line: end,
        content: String::from_utf8_lossy(&bytes).into_owned(),
        binary,
        bytes,
    })
}

/// `cat -n`'s layout: the line number right-aligned in six columns, a tab.
pub fn numbered(o: &CatOutcome) -> Vec<u8> {
    let mut out = Vec::with_capacity(o.bytes.len() + 8 * (o.end_line + 1));
    for (i, line) in o.bytes.split_inclusive(|&c| c == b'\n').enumerate() {
        out.extend_from_slice(format!("{:>6}\t", o.start_line + i).as_bytes());
        out.extend_from_slice(line);
    }
    out
}

impl UseCase for CatRequest {
    const OPEN: Open = Open::Recovering;
    type Outcome = CatOutcome;

    fn run(&self, session: &Session) -> Result<CatOutcome> {
        cat(session.repo()?, self)
    }
}
