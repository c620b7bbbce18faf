//! list, show and log: read-only views of proposals and the audit log.

use std::collections::HashMap;

use serde::Serialize;

use crate::error::Result;
use crate::git;
use crate::git::Repo;
use crate::store::audit::AuditEntry;
use crate::store::comments::Comment;
use crate::store::file_records::FileResult;
use crate::store::list_cache::Row;
use crate::store::pending::{self, Deferred};
use crate::store::proposals::{self, Proposal};
use crate::store::rows::{self, Listed};
use crate::store::verdicts::ProposalVerdict;
use crate::validators::ValidatorReport;

/// A proposal's state relative to the current HEAD.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum ProposalStatus {
    /// Proposed against the current HEAD and not applied.
    Pending,
    /// Landed by apply (and not rolled back).
    Applied,
    /// HEAD moved since propose; apply will replay it three-way.
    BaseMoved,
}

impl std::fmt::Display for ProposalStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ProposalStatus::Pending => "pending",
            ProposalStatus::Applied => "applied",
            ProposalStatus::BaseMoved => "base-moved",
        })
    }
}

/// One row of `list`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ProposalSummary {
    pub patch_id: String,
    pub summary: String,
    pub created_at: i64,
    pub age_seconds: i64,
    pub status: ProposalStatus,
    pub files_changed: usize,
    pub lines_added: usize,
    pub lines_removed: usize,
    pub affected_files: Vec<String>,
    /// Only when some name is not UTF-8: per entry of `affected_files`,
    /// its exact bytes in hex, or null (#16 item 7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub affected_files_bytes: Option<Vec<Option<String>>>,
    pub commit: String,
    pub base: String,
    /// The landed commit, when applied.
    pub applied_commit: Option<String>,
    /// The proposal this one is stacked on (#13).
    pub onto: Option<String>,
    /// The trusted stored verdict of `evolv.validate` on this proposal's
    /// tree (what `apply` would reuse); left out when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<ProposalVerdict>,
}

/// `{"proposals": [...]}`, oldest first.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ListOutcome {
    pub proposals: Vec<ProposalSummary>,
    /// Proposal refs this version cannot read (another version's, or not
    /// a proposal at all); `drop` and `gc` remove them. Left out when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unreadable: Vec<UnreadableProposal>,
    /// Verdict refs skipped (not a commit), each named, with how to remove
    /// it. Left out when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Deferred>,
}

/// A proposal ref that could not be read, and why.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct UnreadableProposal {
    pub patch_id: String,
    #[serde(rename = "ref")]
    pub ref_name: String,
    /// The error, as the CLI prints it.
    pub message: String,
    /// How to get rid of it.
    pub hint: String,
}

/// The stored diff of one proposal.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct ShowOutcome {
    #[serde(flatten)]
    pub proposal: ProposalSummary,
    pub pattern: String,
    pub replacement: String,
    pub scope: Vec<String>,
    pub unified_diff: String,
    /// The pending stack this proposal tops, bottom first, itself last
    /// (just itself when not stacked); apply lands all of it (#13).
    pub stack: Vec<String>,
    /// The pending proposals stacked on this one.
    pub stacked_above: Vec<String>,
    /// `unified_diff` in git's word-diff format, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub word_diff: Option<String>,
    #[serde(skip)]
    pub diff_bytes: Vec<u8>,
    /// Review comments (from the review page), oldest first.
    pub comments: Vec<Comment>,
    /// Per changed file of an edit list (`propose --edits`): operation
    /// type, locator, warnings and the validators that checked it, as
    /// recorded at propose time. Empty for a replace, which records none.
    pub files: Vec<FileResult>,
    /// Every validator that ran at propose time (each names its files).
    pub validators: Vec<ValidatorReport>,
    /// Verdict refs skipped (not a commit), each named, with how to remove
    /// it. Left out when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Deferred>,
}

/// `{"entries": [...]}`, newest first.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct LogOutcome {
    pub entries: Vec<AuditEntry>,
}

fn summarise(
    repo: &Repo,
    p: &Proposal,
    head: Option<crate::git::Oid>,
    now: i64,
) -> ProposalSummary {
    let applied = crate::ops::applying::rollback::landed_commit(repo, &p.id);
    let status = status(applied, head, stack_base(repo, p));
    summary_of(p.id.to_string(), Row::of(p), status, applied, now)
}

/// A proposal's status: applied where it landed, else pending while the
/// branch head is where its stack stands.
fn status(
    applied: Option<crate::git::Oid>,
    head: Option<crate::git::Oid>,
    stack_base: crate::git::Oid,
) -> ProposalStatus {
    if applied.is_some() {
        ProposalStatus::Applied
    } else if head == Some(stack_base) {
        ProposalStatus::Pending
    } else {
        ProposalStatus::BaseMoved
    }
}

/// Row `p` of proposal `id`, its status and where it landed known.
fn summary_of(
    id: String,
    p: Row,
    status: ProposalStatus,
    applied: Option<crate::git::Oid>,
    now: i64,
) -> ProposalSummary {
    ProposalSummary {
        patch_id: id,
        summary: p.summary,
        created_at: p.created_at,
        age_seconds: (now - p.created_at).max(0),
        status,
        files_changed: p.files_matched,
        lines_added: p.lines_added,
        lines_removed: p.lines_removed,
        affected_files: p.affected_files,
        affected_files_bytes: p.affected_files_bytes,
        commit: p.commit.to_string(),
        base: p.base.to_string(),
        applied_commit: applied.map(|o| o.to_string()),
        onto: p.onto,
        verdict: None,
    }
}

/// The commit `p`'s pending stack stands on: its own base, or, stacked on
/// pending proposals, the base of the bottom one (a stacked proposal's
/// parent is the proposal below it, never the branch head).
fn stack_base(repo: &Repo, p: &Proposal) -> crate::git::Oid {
    let below = crate::ops::applying::stack::below(repo, p).unwrap_or_default();
    let bottom = below.first().unwrap_or(p);
    // Stacked on a proposal that has landed (the rest of a part applied):
    // its base is where that one landed.
    bottom
        .meta
        .onto
        .as_deref()
        .and_then(|onto| crate::ops::applying::rollback::landed_commit(repo, onto))
        .unwrap_or(bottom.base)
}

/// [`stack_base`] of a listed row, the proposals below it looked up among
/// the rows (`by_id`) and the applied `markers`, not read again.
fn listed_stack_base(
    repo: &Repo,
    l: &Listed,
    by_id: &HashMap<&str, &Listed>,
    markers: &HashMap<String, crate::git::Oid>,
    head: Option<crate::git::Oid>,
) -> crate::git::Oid {
    if l.row.onto.is_none() {
        return l.row.base;
    }
    let below = crate::ops::applying::stack::below_by(
        l,
        |id| markers.contains_key(id),
        |id| by_id.get(id).copied(),
    )
    .unwrap_or_default();
    let bottom = below.first().copied().unwrap_or(l);
    // As in `stack_base`: on a landed proposal, where that one landed.
    bottom
        .row
        .onto
        .as_deref()
        .and_then(|onto| {
            let landed = *markers.get(onto)?;
            crate::ops::applying::rollback::landed_on(repo, onto, landed, head?)
        })
        .unwrap_or(bottom.row.base)
}

fn head_commit(repo: &Repo) -> Option<crate::git::Oid> {
    git::head(repo).ok().map(|h| h.commit)
}

/// `list` takes no parameters.
#[derive(Debug, Clone, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListRequest {}

/// The proposal `show` prints.
#[derive(Debug, Clone, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShowRequest {
    /// The proposal to show.
    pub patch_id: String,
}

/// How much of the audit log to read.
#[derive(Debug, Clone, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LogRequest {
    /// The newest `limit` records; `None` for all.
    #[serde(default)]
    pub limit: Option<usize>,
}

/// Every proposal with its status.
pub fn list(repo: &Repo) -> Result<ListOutcome> {
    let head = head_commit(repo);
    let now = proposals::now_secs();
    let listing = rows::rows(repo)?;
    // Every applied marker in one read, not a ref lookup per proposal.
    let markers: HashMap<String, crate::git::Oid> = repo
        .readable_refs_under(crate::store::APPLIED_PREFIX)
        .into_iter()
        .map(|(name, id)| (name[crate::store::APPLIED_PREFIX.len()..].to_string(), id))
        .collect();
    // Only a stacked proposal looks others up by id.
    let by_id: HashMap<&str, &Listed> = if listing.rows.iter().any(|l| l.row.onto.is_some()) {
        listing.rows.iter().map(|l| (l.id.as_str(), l)).collect()
    } else {
        HashMap::new()
    };
    let statuses: Vec<_> = listing
        .rows
        .iter()
        .map(|l| {
            let landed = markers.get(l.id.as_str()).copied();
            let applied = landed.zip(head).and_then(|(landed, head)| {
                crate::ops::applying::rollback::landed_on(repo, &l.id, landed, head)
            });
            (
                status(
                    applied,
                    head,
                    listed_stack_base(repo, l, &by_id, &markers, head),
                ),
                applied,
            )
        })
        .collect();
    drop(by_id);
    // The rows move into the summaries: 10,000 rows are not copied.
    let proposals = listing
        .rows
        .into_iter()
        .zip(statuses)
        .map(|(l, (status, applied))| summary_of(l.id.into(), l.row, status, applied, now))
        .collect();
    let unreadable = listing
        .unreadable
        .into_iter()
        .map(|u| UnreadableProposal {
            ref_name: proposals::proposal_ref(&u.id),
            message: u.error.to_string(),
            hint: format!("remove it with `git evolv drop {}`", u.id),
            patch_id: u.id,
        })
        .collect();
    Ok(ListOutcome {
        proposals,
        unreadable,
        warnings: Vec::new(),
    })
}

/// One proposal and its diff against its base.
pub fn show(repo: &Repo, patch_id: &str) -> Result<ShowOutcome> {
    let p = proposals::load(repo, patch_id)?;
    let commit = repo.find_commit(p.commit)?;
    let base_tree = repo.find_commit(p.base)?.tree()?;
    let diff = git::patch_text(
        repo,
        &base_tree,
        &commit.tree()?,
        Some(&p.meta.affected_paths()),
    )?;
    outcome(repo, &p, diff)
}

/// `show` with `unified_diff` left empty, the patch text never computed
/// (the review page draws each file from its own hunks, page by page).
pub fn show_without_diff(repo: &Repo, patch_id: &str) -> Result<ShowOutcome> {
    outcome(repo, &proposals::load(repo, patch_id)?, Vec::new())
}

fn outcome(repo: &Repo, p: &Proposal, diff: Vec<u8>) -> Result<ShowOutcome> {
    let mut stack: Vec<String> = crate::ops::applying::stack::below(repo, p)?
        .into_iter()
        .map(|q| q.id.into())
        .collect();
    stack.push(p.id.to_string());
    let stacked_above = crate::ops::applying::stack::above(&proposals::list(repo)?, repo, &p.id);
    Ok(ShowOutcome {
        stack,
        stacked_above,
        word_diff: None,
        proposal: summarise(repo, p, head_commit(repo), proposals::now_secs()),
        pattern: p.meta.edit.pattern().unwrap_or_default().to_string(),
        replacement: p.meta.edit.replacement().unwrap_or_default().to_string(),
        scope: p.meta.scope.clone(),
        unified_diff: String::from_utf8_lossy(&diff).into_owned(),
        diff_bytes: diff,
        comments: super::review::comments(repo, p.id.as_str())?,
        files: super::review::file_results(&p.meta),
        validators: super::review::validators(&p.meta).to_vec(),
        warnings: Vec::new(),
    })
}

/// The audit log, newest first.
pub fn log(repo: &Repo, limit: Option<usize>) -> Result<LogOutcome> {
    Ok(LogOutcome {
        entries: pending::read_all(repo, limit)?,
    })
}
