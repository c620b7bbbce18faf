//! `git evolv rewind`: the work tree put back to a checkpoint, its
//! tracked and untracked files, modes, symbolic links and deletions,
//! optionally only under some paths; HEAD, the index and the branch stay.
//!
//! Nothing is lost at any moment. Before a file is touched, the work tree
//! as the rewind found it is a checkpoint (`save`, when it differs from
//! the session's newest), and the rewind itself is one (`rewind`, its
//! first parent that state) recorded by one transaction, an op-log entry
//! that `git evolv undo` undoes. Only then are the files written, each by
//! temp file and rename: a kill leaves each path as it was or as the
//! target has it, and the checkpoints hold both.
//!
//! A file someone other than the session changed since the target
//! (`files::drifted`) is not overwritten: the rewind refuses and names
//! it. With `force`, the save above keeps its current state, and it is
//! rewound too.

use serde::{Deserialize, Serialize};

use super::chain::{self, Checkpoint};
use super::files;
use super::meta::Meta;
use super::record::{self, tree_changes};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::git::{Oid, Repo, RepoPath, TreeEdit};
use crate::ops::session::{Open, Session, UseCase};
use crate::store::audit::AuditAction;
use crate::store::transaction::Transaction;

/// Rewind the work tree to a checkpoint.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
pub struct RewindRequest {
    /// A checkpoint's commit id, or a unique prefix of it (4 digits at least).
    #[serde(default)]
    pub target: Option<String>,
    /// This many turns back: 1 is the start of the session's newest turn.
    #[serde(default)]
    pub turns: Option<u64>,
    /// The session's first checkpoint.
    #[serde(default)]
    pub session_start: bool,
    /// The session of `turns` and `session_start` (its id, or
    /// `<agent>/<session>`); default: the one checkpointed last.
    #[serde(default)]
    pub session: Option<String>,
    /// Only these paths (relative to `cwd`; a directory takes everything
    /// under it).
    #[serde(default)]
    pub paths: Vec<String>,
    /// Where `paths` are relative to (the repository's top when unset).
    #[serde(default)]
    pub cwd: Option<std::path::PathBuf>,
    /// Rewind files changed by someone else too, their state saved first.
    #[serde(default)]
    pub force: bool,
}

/// What the rewind did.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct RewindOutcome {
    /// The rewind's own checkpoint (empty when nothing was to rewind).
    pub id: String,
    /// The checkpoint rewound to.
    pub target: String,
    pub agent: String,
    pub session: String,
    /// The checkpoint that keeps the work tree as the rewind found it.
    pub saved: String,
    /// The paths written or removed.
    pub restored: Vec<String>,
    /// Paths someone else had changed, rewound because of `force`.
    pub forced: Vec<String>,
    /// The op log's record of it.
    pub op: String,
}

pub fn rewind(repo: &Repo, ctx: &Context, req: &RewindRequest) -> Result<RewindOutcome> {
    crate::git::ensure_no_operation_in_progress(repo)?;
    let (ref_name, chain, at) = resolve(repo, req)?;
    let target = &chain[at];
    let newest = &chain[0];
    let now = crate::git::worktree::snapshot::snapshot(repo)?;
    let specs = from_top(repo, req)?;
    let paths: Vec<RepoPath> = tree_changes(repo, now.tree, target.tree)?
        .into_iter()
        .filter(|p| under(p, &specs))
        .collect();
    let mut outcome = RewindOutcome {
        id: String::new(),
        target: target.id.to_string(),
        agent: target.meta.agent.clone(),
        session: target.meta.session.clone(),
        saved: newest.id.to_string(),
        restored: paths.iter().map(|p| p.lossy().into_owned()).collect(),
        forced: Vec::new(),
        op: String::new(),
    };
    if paths.is_empty() {
        return Ok(outcome);
    }
    let drift = files::drifted(repo, &chain, at, now.tree, &paths)?;
    if !drift.is_empty() && !req.force {
        return Err(Error::CheckpointDrift {
            checkpoint: short(target.id),
            paths: drift.iter().map(|p| p.lossy().into_owned()).collect(),
        });
    }
    outcome.forced = drift.iter().map(|p| p.lossy().into_owned()).collect();
    let base = |event: &str| Meta {
        agent: newest.meta.agent.clone(),
        session: newest.meta.session.clone(),
        turn: newest.meta.turn,
        event: event.to_string(),
        head: now.head,
        ..Meta::default()
    };
    let saved = if now.tree == newest.tree {
        newest.id
    } else {
        record::write(repo, &base("save"), None, now.tree, Some(newest.id))?
    };
    let tree = rewound_tree(repo, now.tree, target.tree, &paths, req.paths.is_empty())?;
    let meta = Meta {
        rewound_to: Some(target.id),
        ..base("rewind")
    };
    let id = record::write(repo, &meta, None, tree, Some(saved))?;
    let mut tx = Transaction::new(repo, ctx, AuditAction::Rewind, "");
    tx.swap(&ref_name, Some(newest.id), Some(id));
    tx.record().commit = Some(id.to_string());
    tx.record().files = outcome.restored.clone();
    tx.set_reflog(format!("evolv: rewind to {}", short(target.id)));
    let logged = tx.commit()?;
    crate::crashpoint!("rewind-recorded");
    files::write_paths(repo, target.tree, &paths)?;
    outcome.id = id.to_string();
    outcome.saved = saved.to_string();
    outcome.op = logged.id();
    Ok(outcome)
}

/// The checkpoint a request names: its session's ref, the session's
/// checkpoints newest first, and its place among them.
fn resolve(repo: &Repo, req: &RewindRequest) -> Result<(String, Vec<Checkpoint>, usize)> {
    let asked = [req.target.is_some(), req.turns.is_some(), req.session_start];
    if asked.iter().filter(|a| **a).count() != 1 {
        return Err(Error::InvalidRequest {
            field: "target",
            message: "a rewind needs one target: a checkpoint id, a number of turns back, or a session's start".into(),
            hint: "give a checkpoint id, --turns N or --session-start".into(),
        });
    }
    if let Some(id) = &req.target {
        return chain::find(repo, id);
    }
    let (name, all) = match &req.session {
        Some(s) => chain::session(repo, s)?,
        None => chain::newest_session(repo)?,
    };
    if req.session_start {
        let last = all.len() - 1;
        return Ok((name, all, last));
    }
    let turns = req.turns.unwrap_or(1);
    let newest_turn = all[0].meta.turn;
    if turns == 0 || turns > newest_turn {
        return Err(Error::InvalidRequest {
            field: "turns",
            message: format!(
                "session '{}' has {newest_turn} turn(s); cannot go {turns} back",
                all[0].meta.session
            ),
            hint: format!("give 1 to {newest_turn}, or --session-start"),
        });
    }
    let turn = newest_turn + 1 - turns;
    // The turn's first checkpoint: its start, before the agent did anything.
    let at = all
        .iter()
        .rposition(|c| c.meta.turn == turn)
        .or_else(|| all.iter().rposition(|c| c.meta.turn > turn))
        .unwrap_or(all.len() - 1);
    Ok((name, all, at))
}

/// The request's paths from the repository's top.
fn from_top(repo: &Repo, req: &RewindRequest) -> Result<Vec<String>> {
    let top = crate::git::workdir(repo)?;
    let prefix = match &req.cwd {
        Some(cwd) => {
            let cwd = cwd.canonicalize().unwrap_or_else(|_| cwd.clone());
            let top = top.canonicalize().unwrap_or_else(|_| top.to_path_buf());
            cwd.strip_prefix(&top)
                .map(|p| p.to_path_buf())
                .unwrap_or_default()
        }
        None => std::path::PathBuf::new(),
    };
    req.paths
        .iter()
        .map(|p| {
            let joined = normalize(&prefix.join(p));
            joined.ok_or_else(|| {
                Error::invalid(
                    format!(
                        "path '{p}' is outside the repository at '{}'",
                        top.display()
                    ),
                    "name paths inside the work tree",
                )
            })
        })
        .collect()
}

/// `path` with `.` and `..` resolved, as `/`-separated text; `None` when
/// it climbs above its start.
fn normalize(path: &std::path::Path) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    for c in path.components() {
        match c {
            std::path::Component::Normal(n) => parts.push(n.to_string_lossy().into_owned()),
            std::path::Component::ParentDir => {
                parts.pop()?;
            }
            std::path::Component::CurDir => {}
            _ => return None,
        }
    }
    Some(parts.join("/"))
}

/// Whether `path` is one of `specs` or under one (all paths when none).
fn under(path: &RepoPath, specs: &[String]) -> bool {
    if specs.is_empty() {
        return true;
    }
    let bytes = path.as_bytes();
    specs.iter().any(|s| {
        let s = s.trim_end_matches('/').as_bytes();
        s.is_empty() || bytes == s || (bytes.starts_with(s) && bytes[s.len()] == b'/')
    })
}

/// The work tree after the rewind: the target's tree when every path is
/// rewound, else `now` with `paths` as the target has them.
fn rewound_tree(
    repo: &Repo,
    now: Oid,
    target: Oid,
    paths: &[RepoPath],
    whole: bool,
) -> Result<Oid> {
    if whole {
        return Ok(target);
    }
    let tree = repo.find_tree(target)?;
    let mut image = files::Image::new(repo, &tree);
    let edits: Vec<TreeEdit> = paths
        .iter()
        .map(|p| match image.at(p) {
            Some((id, mode)) => TreeEdit::Put {
                path: p.as_bytes().to_vec(),
                id,
                mode: mode as i32,
            },
            None => TreeEdit::Remove {
                path: p.as_bytes().to_vec(),
            },
        })
        .collect();
    repo.edit_tree(now, &edits)
}

fn short(id: Oid) -> String {
    id.to_string()[..12].to_string()
}

impl UseCase for RewindRequest {
    const OPEN: Open = Open::Recovering;
    const WRITES_OBJECTS: bool = true;
    type Outcome = RewindOutcome;

    fn run(&self, session: &Session) -> Result<RewindOutcome> {
        rewind(session.repo()?, session.context(), self)
    }
}
