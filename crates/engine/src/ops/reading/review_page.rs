//! The review page's use cases: the list with where HEAD is, one
//! proposal's view, a page of one file's hunks, and the live feed's refs.
//! Each answers what the page's JSON API sends, whole, so the web front
//! end only routes and renders.

use std::collections::BTreeMap;

use serde::Serialize;

use super::review::{self, Detail, FilePage, RecentFiles};
use crate::error::{Error, Result};
use crate::git::Repo;
use crate::ops::reading::inspect::{self, ListOutcome, ListRequest};
use crate::ops::reading::proposal_verdicts::attach as attach_verdicts;
use crate::ops::session::Session;
use crate::ops::session::{Open, UseCase};

/// The page's list (`GET /api/proposals`): `list`'s outcome and where
/// HEAD is. The page opens as it always has, an interrupted landing
/// recovered first.
pub struct ReviewList;

/// `GET /api/proposals`: `list`'s outcome and where HEAD is.
#[derive(Debug, Serialize)]
pub struct ListView {
    #[serde(flatten)]
    pub list: ListOutcome,
    pub branch: Option<String>,
    pub head: Option<String>,
}

impl UseCase for ReviewList {
    const OPEN: Open = Open::Recovering;
    type Outcome = ListView;

    fn run(&self, session: &Session) -> Result<ListView> {
        let (branch, head) = review::head(session.repo()?).unzip();
        Ok(ListView {
            list: session.run(&ListRequest {})?,
            branch,
            head,
        })
    }
}

/// One proposal's view (`GET /api/proposals/{id}`); the first file's
/// hunks are kept in `recent` for the page asked for next.
pub struct ReviewProposal {
    pub patch_id: String,
    pub recent: RecentFiles,
}

/// `show`'s outcome without the patch text (stack, comments and the
/// per-file results included), the operation, metadata and changed files.
/// No line of any file: the page asks for those a page at a time
/// ([`ReviewFilePage`]), so a big proposal opens as fast as a small one.
#[derive(Debug, Serialize)]
pub struct ProposalView {
    #[serde(flatten)]
    pub show: serde_json::Map<String, serde_json::Value>,
    #[serde(flatten)]
    pub detail: Detail,
    /// The branch HEAD is on (what apply lands on).
    pub branch: Option<String>,
}

impl UseCase for ReviewProposal {
    const OPEN: Open = Open::Recovering;
    type Outcome = ProposalView;

    fn run(&self, session: &Session) -> Result<ProposalView> {
        let repo = session.repo()?;
        let mut outcome = inspect::show_without_diff(repo, &self.patch_id)?;
        let one = std::slice::from_mut(&mut outcome.proposal);
        outcome.warnings = attach_verdicts(repo, session.settings()?, one)?;
        let Ok(serde_json::Value::Object(mut show)) = serde_json::to_value(outcome) else {
            return Err(Error::Internal {
                at: "the review page's proposal view",
                message: "show's outcome is not a JSON object".into(),
            });
        };
        // Never computed here: not sent empty either.
        show.remove("unified_diff");
        Ok(ProposalView {
            show,
            detail: review::detail(repo, &self.patch_id, &self.recent)?,
            branch: review::head(repo).map(|(branch, _)| branch),
        })
    }
}

/// A page of one file's hunks (`GET /api/proposals/{id}/file`), starting
/// at line `from`; `None`: not a file of the proposal. The file's hunks
/// are kept in `recent` for its next pages.
pub struct ReviewFilePage {
    pub patch_id: String,
    pub path: String,
    pub from: usize,
    pub recent: RecentFiles,
}

impl UseCase for ReviewFilePage {
    const OPEN: Open = Open::Recovering;
    type Outcome = Option<FilePage>;

    fn run(&self, session: &Session) -> Result<Option<FilePage>> {
        let (id, path) = (&self.patch_id, &self.path);
        review::file_page(session.repo()?, id, path, self.from, &self.recent)
    }
}

/// The review page's live feed of refs: long-lived and read-only.
pub struct RefFeed;

impl UseCase for RefFeed {
    const OPEN: Open = Open::ReadOnly;
    type Outcome = BTreeMap<String, String>;

    /// Every ref under `refs/evolv/` and where HEAD points, as ref name to
    /// object id: what the feed compares between polls.
    fn run(&self, session: &Session) -> Result<BTreeMap<String, String>> {
        Ok(evolv_refs(session.repo()?))
    }
}

/// Every ref under `refs/evolv/` (loose and packed: libgit2 re-reads
/// `packed-refs` when it changes) and where HEAD points. A ref that
/// cannot be read is left out.
fn evolv_refs(repo: &Repo) -> BTreeMap<String, String> {
    let mut refs: BTreeMap<String, String> = repo
        .readable_refs_matching("refs/evolv/*")
        .into_iter()
        .map(|(name, id)| (name, id.to_string()))
        .collect();
    if let Some(head) = repo.ref_target("HEAD") {
        refs.insert("HEAD".into(), head.to_string());
    }
    refs
}
