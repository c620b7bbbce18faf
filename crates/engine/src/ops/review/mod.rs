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

use crate::error::{Error, Result};
use crate::git::Repo;
use crate::store::audit::{AuditAction, AuditRecord, RefMove};
use crate::store::comments::{self, Comment, Locator};
use crate::store::file_records::{self, FileResult};
use crate::store::pending;
use crate::store::proposals::{self, EditMeta, ProposalMeta};
use crate::validators::ValidatorReport;

pub use page::{FilePage, PAGE_LINES, RecentFiles};
pub use view::{FileView, Hunk, Line, Marks, number};

/// Longest comment body accepted, in bytes.
pub const MAX_BODY_BYTES: usize = 16 * 1024;
/// Longest quoted passage kept, in bytes.
pub const MAX_QUOTE_BYTES: usize = 64 * 1024;

/// The review page's own views (the list with HEAD, a proposal's detail,
/// a file's hunks) and its start: opened as the page always has, an
/// interrupted landing recovered first.
pub struct ReviewPage;

/// The review page's live feed of refs: long-lived and read-only.
pub struct RefFeed;

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
pub fn comment(repo: &Repo, req: &CommentRequest) -> Result<Comment> {
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
    log_comment(repo, &stored)?;
    Ok(stored)
}

/// The comment's operation: its chain's ref moved from the comment before
/// it (or nothing) to it.
fn log_comment(repo: &Repo, stored: &Comment) -> Result<()> {
    let new = crate::git::Oid::parse(&stored.id)?;
    let old = repo.find_commit(new)?.parent_id(0).ok();
    let mut record = AuditRecord::new(AuditAction::Comment, &stored.patch_id, true);
    record.commit = Some(stored.id.clone());
    record.moved(RefMove::new(
        comments::comments_ref(&stored.patch_id),
        old,
        Some(new),
    ));
    pending::log(repo, &record)?;
    Ok(())
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

/// The operation, metadata and changed files of proposal `patch_id`.
pub fn detail(repo: &Repo, patch_id: &str) -> Result<Detail> {
    let p = proposals::load(repo, patch_id)?;
    Ok(Detail {
        operation: p.meta.edit.operation().to_string(),
        metadata: serde_json::to_value(&p.meta).unwrap_or_default(),
        diff_files: view::files(repo, &p)?,
    })
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
    let key = format!("{}:{}:{path}", p.base, p.commit);
    let hunks = recent.get_or(key, || view::hunks(repo, &p, path))?;
    Ok(hunks.map(|hunks| page::cut(path, &hunks, from)))
}

/// The branch HEAD is on (its short name, or `HEAD (detached)`) and
/// its commit: where apply lands. `None` on an unborn branch.
pub fn head(repo: &Repo) -> Option<(String, String)> {
    let head = crate::git::head(repo).ok()?;
    Some((head.display_name().to_string(), head.commit.to_string()))
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
