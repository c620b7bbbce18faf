//! `propose --from-checkpoints`: a session's net work (its first
//! checkpoint to its newest, rewinds included: what is proposed is where
//! the session ended) as one proposal on HEAD, or with `stack` one per
//! turn, each on the one before. Only the paths the session changed are
//! proposed, each as its newest checkpoint has it; a path HEAD changed
//! meanwhile in another way is refused by name. The proposal carries
//! `Assisted-by: <agent>[:<model>]`, which its landing writes into the
//! landed commit; never a `Signed-off-by`, which only a person gives.

use serde::{Deserialize, Serialize};

use super::chain::{self, Checkpoint};
use super::files::Image;
use super::record::tree_changes;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::git::{Oid, Repo, RepoPath, TreeEdit};
use crate::ops::session::{Open, Session, UseCase};
use crate::store::audit::AuditAction;
use crate::store::file_records::FileRecord;
use crate::store::proposals::{self, EditMeta, ProposalMeta};

/// Propose a session's work.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
pub struct FromCheckpointsRequest {
    /// A session (its id or `<agent>/<session>`), or a range of two of
    /// its checkpoints, `<from>..<to>` (ids or unique prefixes).
    pub source: String,
    /// One proposal per turn, stacked.
    #[serde(default)]
    pub stack: bool,
    /// The summary (default: one naming the agent, session and turn).
    #[serde(default)]
    pub message: Option<String>,
}

/// The proposals made, bottom first.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct FromCheckpointsOutcome {
    pub proposals: Vec<Proposed>,
    /// The trailer each carries.
    pub assisted_by: String,
}

/// One proposal.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct Proposed {
    pub patch_id: String,
    pub commit: String,
    pub summary: String,
    /// The turns it holds.
    pub turns: Vec<u64>,
    pub files: Vec<String>,
}

pub fn propose(
    repo: &Repo,
    ctx: &Context,
    req: &FromCheckpointsRequest,
) -> Result<FromCheckpointsOutcome> {
    let (all, from, to) = resolve(repo, &req.source)?;
    let newest = &all[to];
    let model = all[to..=from].iter().find_map(|c| c.meta.model.clone());
    let assisted_by = match &model {
        Some(m) => format!("{}:{m}", newest.meta.agent),
        None => newest.meta.agent.clone(),
    };
    let head = crate::git::head(repo)?;
    let mut base = head.commit;
    let mut onto: Option<String> = None;
    let mut out = Vec::new();
    for (start, end) in segments(&all, from, to, req.stack) {
        let turns: Vec<u64> = if req.stack {
            vec![all[start].meta.turn]
        } else {
            (all[start].meta.turn..=all[end].meta.turn).collect()
        };
        let summary = summary(req, &all[end], &turns);
        let Some(made) = one(
            repo,
            ctx,
            (&all[start], &all[end]),
            base,
            &summary,
            (&assisted_by, onto.clone()),
            head.ref_name(),
        )?
        else {
            continue;
        };
        base = Oid::parse(&made.commit)?;
        onto = Some(made.patch_id.clone());
        out.push(Proposed { turns, ..made });
    }
    if out.is_empty() {
        return Err(Error::invalid(
            format!(
                "the session's checkpoints in '{}' change nothing",
                req.source
            ),
            "`git evolv checkpoints` lists what each checkpoint changed",
        ));
    }
    Ok(FromCheckpointsOutcome {
        proposals: out,
        assisted_by,
    })
}

/// The session's checkpoints (newest first) and the places of the first
/// and last of the work to propose (`from` ≥ `to`).
fn resolve(repo: &Repo, source: &str) -> Result<(Vec<Checkpoint>, usize, usize)> {
    if let Some((a, b)) = source.split_once("..") {
        let (name_a, all, from) = chain::find(repo, a)?;
        let (name_b, _, to) = chain::find(repo, b)?;
        if name_a != name_b || to > from {
            return Err(Error::invalid(
                format!("'{source}' is not a range of one session's checkpoints, older first"),
                "give <older>..<newer>, two checkpoints of one session",
            ));
        }
        return Ok((all, from, to));
    }
    let (_, all) = chain::session(repo, source)?;
    let last = all.len() - 1;
    Ok((all, last, 0))
}

/// The (start, end) pairs of places to propose, oldest first: the whole
/// range, or each turn from its first checkpoint to the next turn's first.
fn segments(all: &[Checkpoint], from: usize, to: usize, stack: bool) -> Vec<(usize, usize)> {
    if !stack {
        return vec![(from, to)];
    }
    let mut starts: Vec<usize> = (to..=from)
        .rev()
        .filter(|&i| i == from || all[i].meta.turn != all[i + 1].meta.turn)
        .collect();
    starts.push(to);
    starts.dedup();
    starts.windows(2).map(|w| (w[0], w[1])).collect()
}

fn summary(req: &FromCheckpointsRequest, end: &Checkpoint, turns: &[u64]) -> String {
    if let Some(m) = req
        .message
        .as_deref()
        .and_then(|m| m.lines().next())
        .filter(|m| !m.trim().is_empty())
    {
        return m.trim().to_string();
    }
    let turns = match turns {
        [one] => format!("turn {one}"),
        [first, .., last] => format!("turns {first}-{last}"),
        [] => String::new(),
    };
    format!(
        "feat: work of {} session {}, {turns}",
        end.meta.agent, end.meta.session
    )
}

/// The proposal of what changed from `start` to `end`, on `base`; `None`
/// when it changes nothing there.
fn one(
    repo: &Repo,
    ctx: &Context,
    (start, end): (&Checkpoint, &Checkpoint),
    base: Oid,
    summary: &str,
    (assisted_by, onto): (&str, Option<String>),
    branch: &str,
) -> Result<Option<Proposed>> {
    let base_commit = repo.find_commit(base)?;
    let base_tree = repo.find_tree(base_commit.tree_id())?;
    let (edits, records) = overlay(repo, &base_tree, start, end)?;
    if edits.is_empty() {
        return Ok(None);
    }
    let tree = repo.find_tree(repo.edit_tree(base_tree.id(), &edits)?)?;
    let changed: Vec<RepoPath> = records.iter().map(|(p, _)| p.clone()).collect();
    let (added, removed) = crate::git::line_stats(repo, &base_tree, &tree, &changed)?;
    let files: Vec<String> = changed.iter().map(|p| p.lossy().into_owned()).collect();
    let meta = ProposalMeta {
        edit: EditMeta::Edits {
            files: records.iter().map(|(p, op)| record(p, op)).collect(),
            validators: Vec::new(),
        },
        scope: Vec::new(),
        created_at: proposals::now_secs(),
        files_scanned: files.len(),
        files_matched: files.len(),
        total_changes: files.len(),
        lines_added: added,
        lines_removed: removed,
        affected_files: files.clone(),
        affected_files_bytes: None,
        onto,
        assisted_by: Some(assisted_by.to_string()),
    };
    let author = crate::git::author(repo)?;
    let committer = crate::git::committer(repo)?;
    let commit = proposals::write_commit(
        repo,
        summary,
        &meta,
        (&author, &committer),
        &tree,
        &base_commit,
    )?;
    let (patch_id, _) =
        crate::store::new_proposal::store(repo, ctx, AuditAction::Propose, &meta, commit, |r| {
            r.branch = Some(branch.to_string());
            r.files = files.clone();
        })?;
    Ok(Some(Proposed {
        patch_id,
        commit: commit.to_string(),
        summary: summary.to_string(),
        turns: Vec::new(),
        files,
    }))
}

/// The edits that put on `base` what changed from `start` to `end`, and
/// each path's operation; a path `base` holds otherwise than `start` did
/// (and not as `end` does) is refused by name.
fn overlay(
    repo: &Repo,
    base: &crate::git::objects::view::Tree<'_>,
    start: &Checkpoint,
    end: &Checkpoint,
) -> Result<(Vec<TreeEdit>, Vec<Operation>)> {
    let paths = tree_changes(repo, start.tree, end.tree)?;
    let (start_tree, end_tree) = (repo.find_tree(start.tree)?, repo.find_tree(end.tree)?);
    let (mut on_base, mut was, mut now) = (
        Image::new(repo, base),
        Image::new(repo, &start_tree),
        Image::new(repo, &end_tree),
    );
    let (mut edits, mut records) = (Vec::new(), Vec::new());
    for path in &paths {
        let (here, before, after) = (on_base.at(path), was.at(path), now.at(path));
        if here == after {
            continue;
        }
        if here != before {
            return Err(Error::invalid(
                format!(
                    "'{path}' changed at HEAD since the session's checkpoint {}",
                    &start.id.to_string()[..12]
                ),
                "commit or drop that change first, or propose a range of checkpoints without it",
            ));
        }
        let operation = match (here, after) {
            (None, _) => "create",
            (_, None) => "delete",
            _ => "modify",
        };
        edits.push(match after {
            Some((id, mode)) => TreeEdit::Put {
                path: path.as_bytes().to_vec(),
                id,
                mode: mode as i32,
            },
            None => TreeEdit::Remove {
                path: path.as_bytes().to_vec(),
            },
        });
        records.push((path.clone(), operation));
    }
    Ok((edits, records))
}

/// A proposed path and what happens to it (`create`, `modify`, `delete`).
type Operation = (RepoPath, &'static str);

fn record(path: &RepoPath, operation: &str) -> FileRecord {
    FileRecord {
        path: path.lossy().into_owned(),
        operation_type: operation.to_string(),
        from_path: None,
        locator: None,
        warnings: Vec::new(),
    }
}

/// `propose --from-checkpoints`.
impl UseCase for FromCheckpointsRequest {
    const OPEN: Open = Open::Recovering;
    const WRITES_OBJECTS: bool = true;
    type Outcome = FromCheckpointsOutcome;

    fn run(&self, session: &Session) -> Result<FromCheckpointsOutcome> {
        propose(session.repo()?, session.context(), self)
    }
}
