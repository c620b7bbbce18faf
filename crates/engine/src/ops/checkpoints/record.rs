//! `git evolv checkpoint` (and an agent's hook through it): the whole
//! work tree recorded as a commit on its session's ref, HEAD, the index,
//! the branch and the files left as they are. The tree is HEAD's, edited
//! at the paths `git status` finds changed (`git::worktree::snapshot`):
//! an unchanged file is known by the index's stat data and never read.
//!
//! Nothing changed since the session's previous checkpoint: nothing new
//! is recorded (`skipped`), except at a turn's start, whose checkpoint is
//! the turn's boundary that `rewind --turns` finds; it costs one small
//! commit whose tree is the previous one's.

use serde::{Deserialize, Serialize};

use super::chain::{self, Checkpoint};
use super::meta::Meta;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::git::{Oid, Repo, RepoPath};
use crate::ops::settings::Settings;
use crate::store::audit::AuditAction;
use crate::store::transaction::Transaction;

/// What happened in the agent's loop.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum CheckpointEvent {
    /// A turn starts (the user's prompt is submitted): the turn count
    /// goes up by one.
    TurnStart,
    /// A tool that can write ran (an edit, a patch, a shell command).
    AfterTool { tool: String },
    /// The agent's turn ended.
    Stop,
    /// Asked for by hand.
    Manual,
}

impl CheckpointEvent {
    pub fn name(&self) -> &'static str {
        match self {
            CheckpointEvent::TurnStart => "turn-start",
            CheckpointEvent::AfterTool { .. } => "after-tool",
            CheckpointEvent::Stop => "stop",
            CheckpointEvent::Manual => "manual",
        }
    }
}

/// Record one checkpoint of the work tree.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
pub struct CheckpointRequest {
    /// The agent (`claude-code`, `codex`, `gemini`, `cursor`, …).
    pub agent: String,
    /// The agent's session id.
    pub session: String,
    pub event: CheckpointEvent,
    /// The model, where the agent's payload names it.
    #[serde(default)]
    pub model: Option<String>,
    /// The prompt text: stored only with `evolv.checkpoints.storePrompts`.
    #[serde(default)]
    pub prompt: Option<String>,
}

/// The checkpoint recorded (or the previous one, when nothing changed).
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct CheckpointOutcome {
    /// The checkpoint's commit id.
    pub id: String,
    pub agent: String,
    pub session: String,
    /// Its session's ref.
    #[serde(rename = "ref")]
    pub ref_name: String,
    pub turn: u64,
    /// The paths that differ from the session's previous checkpoint (from
    /// HEAD for a session's first).
    pub changed: Vec<String>,
    /// Nothing changed since the previous checkpoint: nothing recorded,
    /// `id` is that one's.
    pub skipped: bool,
    /// `evolv.checkpoints.enabled` is false: nothing recorded.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub disabled: bool,
}

/// How many times a checkpoint is tried again when another one of the
/// same session (parallel tool calls) moved its ref first.
const ATTEMPTS: usize = 5;

pub fn checkpoint(
    repo: &Repo,
    settings: &Settings,
    ctx: &Context,
    req: &CheckpointRequest,
) -> Result<CheckpointOutcome> {
    check_names(req)?;
    let ref_name = chain::session_ref(&req.agent, &req.session);
    if !settings.checkpoints_enabled()? {
        return Ok(CheckpointOutcome {
            id: String::new(),
            agent: req.agent.clone(),
            session: req.session.clone(),
            ref_name,
            turn: 0,
            changed: Vec::new(),
            skipped: true,
            disabled: true,
        });
    }
    let prompt = if settings.checkpoints_store_prompts()? {
        req.prompt.as_deref()
    } else {
        None
    };
    let mut attempt = 0;
    loop {
        match once(repo, ctx, req, &ref_name, prompt) {
            Err(Error::ConcurrentUpdate { .. }) if attempt + 1 < ATTEMPTS => attempt += 1,
            other => return other,
        }
    }
}

fn once(
    repo: &Repo,
    ctx: &Context,
    req: &CheckpointRequest,
    ref_name: &str,
    prompt: Option<&str>,
) -> Result<CheckpointOutcome> {
    let previous = match repo.ref_target(ref_name) {
        Some(tip) => chain::read(repo, tip)?,
        None => None,
    };
    let snapshot = crate::git::worktree::snapshot::snapshot(repo)?;
    let turn = next_turn(previous.as_ref(), &req.event);
    let outcome = |id: Oid, changed: Vec<String>, skipped: bool| CheckpointOutcome {
        id: id.to_string(),
        agent: req.agent.clone(),
        session: req.session.clone(),
        ref_name: ref_name.to_string(),
        turn,
        changed,
        skipped,
        disabled: false,
    };
    if let Some(prev) = &previous
        && prev.tree == snapshot.tree
        && req.event != CheckpointEvent::TurnStart
    {
        return Ok(outcome(prev.id, Vec::new(), true));
    }
    let meta = Meta {
        agent: req.agent.clone(),
        session: req.session.clone(),
        turn,
        event: req.event.name().to_string(),
        tool: match &req.event {
            CheckpointEvent::AfterTool { tool } => Some(tool.clone()),
            _ => None,
        },
        model: req.model.clone().filter(|m| !m.trim().is_empty()),
        head: snapshot.head,
        rewound_to: None,
    };
    let before = previous.as_ref().map(|p| p.tree);
    let changed = changed_paths(repo, before, snapshot.head, snapshot.tree)?;
    let previous_id = previous.as_ref().map(|p| p.id);
    let id = write(repo, &meta, prompt, snapshot.tree, previous_id)?;
    crate::crashpoint!("checkpoint-written");
    let mut tx = Transaction::new(repo, ctx, AuditAction::Checkpoint, "");
    tx.swap(ref_name, previous_id, Some(id));
    // The paths are the commit's to tell (`git evolv checkpoints`): a
    // record per tool call listing them again would cost as much storage
    // as the changed blobs themselves.
    tx.record().commit = Some(id.to_string());
    tx.set_reflog(format!("evolv: checkpoint turn {turn} {}", meta.event));
    tx.commit()?;
    Ok(outcome(id, changed, false))
}

/// A session's first checkpoint is turn 1; a turn start opens the next.
fn next_turn(previous: Option<&Checkpoint>, event: &CheckpointEvent) -> u64 {
    match previous {
        None => 1,
        Some(p) if *event == CheckpointEvent::TurnStart => p.meta.turn + 1,
        Some(p) => p.meta.turn.max(1),
    }
}

/// Writes a checkpoint commit of `tree` after `previous` (its session's
/// checkpoint before, if any) and the commit HEAD is on, which its last
/// parent keeps reachable for the session's proposals.
pub(super) fn write(
    repo: &Repo,
    meta: &Meta,
    prompt: Option<&str>,
    tree: Oid,
    previous: Option<Oid>,
) -> Result<Oid> {
    let mut parents: Vec<Oid> = previous.into_iter().collect();
    if let Some(head) = meta.head
        && !parents.contains(&head)
    {
        parents.push(head);
    }
    let who = crate::git::committer(repo)
        .or_else(|_| crate::git::signature_now("git-evolv", "git-evolv@localhost"))?;
    repo.write_record(&meta.message(prompt), tree, &parents, &who)
}

/// The paths where `after` differs from `before` (a previous checkpoint's
/// tree), or from HEAD's tree (the empty tree on an unborn branch).
pub(super) fn changed_paths(
    repo: &Repo,
    before: Option<Oid>,
    head: Option<Oid>,
    after: Oid,
) -> Result<Vec<String>> {
    let before = match (before, head) {
        (Some(tree), _) => tree,
        (None, Some(head)) => repo.find_commit(head)?.tree_id(),
        (None, None) => repo.empty_tree()?,
    };
    Ok(tree_changes(repo, before, after)?
        .iter()
        .map(|p| p.lossy().into_owned())
        .collect())
}

/// The paths of files (not directories) that differ between two trees.
pub(super) fn tree_changes(repo: &Repo, before: Oid, after: Oid) -> Result<Vec<RepoPath>> {
    if before == after {
        return Ok(Vec::new());
    }
    let (old, new) = (repo.find_tree(before)?, repo.find_tree(after)?);
    Ok(crate::git::changed_paths(repo, &old, &new)?
        .into_iter()
        .map(|c| c.path)
        .collect())
}

/// Refuses an empty agent or session name: it would name no ref.
fn check_names(req: &CheckpointRequest) -> Result<()> {
    for (field, value) in [("agent", &req.agent), ("session", &req.session)] {
        if value.trim().is_empty() {
            return Err(Error::InvalidRequest {
                field,
                message: format!("the checkpoint's {field} is empty"),
                hint: format!("name the {field} (`git evolv checkpoint --{field} NAME`)"),
            });
        }
    }
    Ok(())
}
