//! Reviewing a proposal: the one place that checks a new comment (the
//! proposal exists, the locator names one of its files and a sane range)
//! before `store::comments` writes it, and what the review page draws
//! (`detail`: the changed files; `file_page`: a page of one file's
//! numbered lines with word marks). The review page calls `comment`; `show` (CLI, MCP)
//! reads them back through `comments`, and the per-file results an edit
//! list recorded through `file_results`.

mod page;
mod view;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::context::Context;
use crate::error::{Error, Result};
use crate::git::Repo;
use crate::store::comments::{self, Comment, Locator};
use crate::store::file_records::{self, FileResult};
use crate::store::proposals::{self, EditMeta, ProposalMeta};
use crate::validators::ValidatorReport;

use crate::ops::session::Session;
use crate::ops::session::{Open, UseCase};
pub use page::{FilePage, PAGE_LINES, RecentFiles};
pub use view::{FileView, Hunk, Line, Marks, number};

/// Longest comment body accepted, in bytes.
pub const MAX_BODY_BYTES: usize = 16 * 1024;
/// Longest quoted passage kept, in bytes.
pub const MAX_QUOTE_BYTES: usize = 64 * 1024;

/// A comment to add to a proposal.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CommentRequest {
    pub patch_id: String,
    pub body: String,
    pub locator: Locator,
    /// The selected text, as shown.
    #[serde(default)]
    pub quote: String,
}

fn bad(message: String) -> Error {
    Error::invalid(
        message,
        "a locator is {path, side: old|new, start_line, start_col, end_line, end_col}, lines and columns from 1, the end not before the start, the path one of the proposal's files",
    )
}

fn check_locator(loc: &Locator, files: &[String]) -> Result<()> {
    if !files.iter().any(|f| f == &loc.path) {
        return Err(bad(format!(
            "locator path '{}' is not a file of this proposal ({})",
            loc.path,
            files.join(", ")
        )));
    }
    if loc.start_line == 0 || loc.end_line == 0 || loc.start_col == 0 || loc.end_col == 0 {
        return Err(bad("locator lines and columns start at 1".into()));
    }
    if (loc.end_line, loc.end_col) < (loc.start_line, loc.start_col) {
        return Err(bad(format!(
            "locator ends ({}:{}) before it starts ({}:{})",
            loc.end_line, loc.end_col, loc.start_line, loc.start_col
        )));
    }
    Ok(())
}

/// Checks and stores a comment; returns it as stored (with id and author).
pub fn comment(repo: &Repo, ctx: &Context, req: &CommentRequest) -> Result<Comment> {
    let proposal = proposals::load(repo, &req.patch_id)?;
    let body = req.body.trim_end();
    if body.trim().is_empty() {
        return Err(Error::invalid(
            "the comment is empty",
            "write what should change",
        ));
    }
    if body.len() > MAX_BODY_BYTES || req.quote.len() > MAX_QUOTE_BYTES {
        return Err(Error::invalid(
            format!(
                "the comment ({} bytes) or its quote ({} bytes) is too long",
                body.len(),
                req.quote.len()
            ),
            format!(
                "keep the comment under {MAX_BODY_BYTES} bytes and the quote under {MAX_QUOTE_BYTES}"
            ),
        ));
    }
    check_locator(&req.locator, &proposal.meta.affected_files)?;
    let stored = comments::append(
        repo,
        ctx,
        Comment {
            id: String::new(),
            patch_id: proposal.id.to_string(),
            author: String::new(),
            created_at: proposals::now_secs(),
            body: body.to_string(),
            locator: req.locator.clone(),
            quote: req.quote.clone(),
        },
    )?;
    Ok(stored)
}

/// The comments of a proposal, oldest first.
pub fn comments(repo: &Repo, patch_id: &str) -> Result<Vec<Comment>> {
    comments::list(repo, patch_id)
}

/// Per changed file of an edit proposal: what the list did there and the
/// validators that checked it, as recorded at propose time (#12 item 2).
/// Empty for a replace, which records no per-file results.
pub fn file_results(meta: &ProposalMeta) -> Vec<FileResult> {
    match &meta.edit {
        EditMeta::Edits { files, validators } => file_records::per_file(files, validators),
        EditMeta::Replace { .. } | EditMeta::Other => Vec::new(),
    }
}

/// Every validator that ran when the proposal was made.
pub fn validators(meta: &ProposalMeta) -> &[ValidatorReport] {
    match &meta.edit {
        EditMeta::Edits { validators, .. } => validators,
        EditMeta::Replace { .. } | EditMeta::Other => &[],
    }
}

/// What the proposal view shows besides `show`'s outcome.
#[derive(Debug, Clone, Serialize)]
pub struct Detail {
    /// The stored operation (`replace`, `edits`, …).
    pub operation: String,
    /// The stored metadata, whole: whatever the engine recorded is shown.
    pub metadata: serde_json::Value,
    /// The changed files as the diff has them, without their lines.
    pub diff_files: Vec<FileView>,
}

/// The operation, metadata and changed files of proposal `patch_id`;
/// the first file's hunks, found by the same diff, are kept in `recent`
/// for the first page the review page asks for next.
pub fn detail(repo: &Repo, patch_id: &str, recent: &RecentFiles) -> Result<Detail> {
    let p = proposals::load(repo, patch_id)?;
    let (diff_files, first) = view::files(repo, &p)?;
    if let Some((path, hunks)) = first {
        recent.keep(page_key(&p, &path), hunks);
    }
    Ok(Detail {
        operation: p.meta.edit.operation().to_string(),
        metadata: serde_json::to_value(&p.meta).unwrap_or_default(),
        diff_files,
    })
}

/// What `recent` keeps a file's hunks under: the proposal's trees (its
/// base and commit) and the path.
fn page_key(p: &proposals::Proposal, path: &str) -> String {
    format!("{}:{}:{path}", p.base, p.commit)
}

/// The page of one file's hunks that starts at line `from` (see
/// [`FilePage`]), numbered on both sides with word marks. `None` when
/// `path` is not one of the proposal's files, as the page lists them.
/// The file's hunks are kept in `recent` for its next pages.
pub fn file_page(
    repo: &Repo,
    patch_id: &str,
    path: &str,
    from: usize,
    recent: &RecentFiles,
) -> Result<Option<FilePage>> {
    let p = proposals::load(repo, patch_id)?;
    let hunks = recent.get_or(page_key(&p, path), || view::hunks(repo, &p, path))?;
    Ok(hunks.map(|hunks| page::cut(path, &hunks, from)))
}

/// The branch HEAD is on (its short name, or `HEAD (detached)`) and
/// its commit: where apply lands. `None` on an unborn branch.
pub fn head(repo: &Repo) -> Option<(String, String)> {
    let head = crate::git::head(repo).ok()?;
    Some((head.display_name().to_string(), head.commit.to_string()))
}

impl UseCase for CommentRequest {
    const OPEN: Open = Open::Recovering;
    const WRITES_OBJECTS: bool = true;
    type Outcome = Comment;

    fn run(&self, session: &Session) -> Result<Comment> {
        comment(session.repo()?, session.context(), self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::comments::Side;

    fn loc(path: &str, a: (u32, u32), b: (u32, u32)) -> Locator {
        Locator {
            path: path.into(),
            side: Side::Old,
            start_line: a.0,
            start_col: a.1,
            end_line: b.0,
            end_col: b.1,
        }
    }

    /// The open (`detail`) keeps the first file's hunks from the diff that
    /// counted its lines: the page asked for next is not diffed again, and
    /// is the page a diff of that file alone gives.
    #[test]
    fn the_first_files_first_page_comes_from_the_diff_the_open_made() {
        let dir = tempfile::tempdir().unwrap();
        let git = |args: &[&str]| crate::git::test_git::git(dir.path(), args);
        git(&["init", "-q", "-b", "main"]);
        let text: String = (0..2000)
            .map(|i| format!("let v{i} = old({i});\n"))
            .collect();
        std::fs::write(dir.path().join("a.rs"), text).unwrap();
        std::fs::write(dir.path().join("b.rs"), "old()\n").unwrap();
        git(&["add", "."]);
        git(&[
            "-c",
            "user.name=T",
            "-c",
            "user.email=t@e.x",
            "commit",
            "-qm",
            "init",
        ]);
        let session =
            crate::ops::Session::open_for::<crate::ops::proposing::propose::ProposeRequest>(
                dir.path(),
                crate::context::Context::new("cli"),
            )
            .unwrap();
        let id = session
            .run(&crate::ops::proposing::propose::ProposeRequest {
                pattern: "old".into(),
                replacement: "new".into(),
                ..Default::default()
            })
            .unwrap()
            .patch_id;
        let repo = &crate::git::open_any(dir.path()).unwrap();
        let recent = RecentFiles::default();
        let d = detail(repo, &id, &recent).unwrap();
        assert_eq!(d.diff_files[0].path, "a.rs");
        assert_eq!(d.diff_files[0].lines_added, 2000);
        let p = proposals::load(repo, &id).unwrap();
        let kept = recent
            .get_or(page_key(&p, "a.rs"), || panic!("a.rs was diffed again"))
            .unwrap()
            .unwrap();
        assert_eq!(kept.iter().map(|h| h.lines.len()).sum::<usize>(), 4000);
        let from_kept = file_page(repo, &id, "a.rs", 0, &recent).unwrap().unwrap();
        let alone = file_page(repo, &id, "a.rs", 0, &RecentFiles::default())
            .unwrap()
            .unwrap();
        assert_eq!(format!("{from_kept:?}"), format!("{alone:?}"));
        assert!(from_kept.hunks[0].lines.iter().any(|l| l.w.is_some()));
    }

    #[test]
    fn locators_outside_the_proposal_or_backwards_are_refused() {
        let files = vec!["src/a.rs".to_string()];
        assert!(check_locator(&loc("src/a.rs", (1, 1), (1, 1)), &files).is_ok());
        assert!(check_locator(&loc("src/a.rs", (2, 5), (3, 1)), &files).is_ok());
        for l in [
            loc("src/b.rs", (1, 1), (1, 2)),
            loc("src/a.rs", (0, 1), (1, 2)),
            loc("src/a.rs", (1, 0), (1, 2)),
            loc("src/a.rs", (3, 1), (2, 9)),
            loc("src/a.rs", (3, 5), (3, 4)),
        ] {
            let e = check_locator(&l, &files).unwrap_err();
            assert_eq!(e.code(), "invalid_input", "{l:?}");
        }
    }
}
