//! `git evolv checkpoints`: every session's checkpoints, newest first,
//! each with what it changed since the one before (since HEAD for a
//! session's first).

use serde::{Deserialize, Serialize};

use super::chain::{self, Checkpoint};
use super::record::changed_paths;
use crate::error::Result;
use crate::git::Repo;
use crate::ops::session::{Open, Session, UseCase};

/// List checkpoints.
#[derive(Debug, Clone, Default, Deserialize, schemars::JsonSchema)]
pub struct CheckpointsRequest {
    /// Only this session (its id, or `<agent>/<session>`).
    #[serde(default)]
    pub session: Option<String>,
    /// At most this many checkpoints per session, newest first.
    #[serde(default)]
    pub limit: Option<usize>,
}

/// The sessions, newest first.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct CheckpointsOutcome {
    pub sessions: Vec<SessionCheckpoints>,
}

/// One session's checkpoints.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct SessionCheckpoints {
    pub agent: String,
    pub session: String,
    #[serde(rename = "ref")]
    pub ref_name: String,
    /// How many checkpoints it has (all of them, whatever `limit` shows).
    pub count: usize,
    /// Newest first.
    pub checkpoints: Vec<CheckpointInfo>,
}

/// One checkpoint.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct CheckpointInfo {
    pub id: String,
    pub turn: u64,
    /// `turn-start`, `after-tool`, `stop`, `manual`, `save`, `rewind`.
    pub event: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// When it was recorded, seconds since the epoch.
    pub time: i64,
    /// The commit HEAD was on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head: Option<String>,
    /// For a rewind: the checkpoint it rewound to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rewound_to: Option<String>,
    /// Paths changed since the checkpoint before.
    pub changed: Vec<String>,
}

pub fn list(repo: &Repo, req: &CheckpointsRequest) -> Result<CheckpointsOutcome> {
    let chains = match &req.session {
        Some(name) => vec![chain::session(repo, name)?],
        None => {
            let mut all = Vec::new();
            for (name, tip) in chain::sessions(repo)? {
                let checkpoints = chain::chain(repo, tip)?;
                if !checkpoints.is_empty() {
                    all.push((name, checkpoints));
                }
            }
            all
        }
    };
    let mut sessions = Vec::new();
    for (ref_name, checkpoints) in chains {
        sessions.push(session_of(repo, ref_name, &checkpoints, req.limit)?);
    }
    sessions.sort_by_key(|s| std::cmp::Reverse(s.checkpoints.first().map_or(0, |c| c.time)));
    Ok(CheckpointsOutcome { sessions })
}

fn session_of(
    repo: &Repo,
    ref_name: String,
    checkpoints: &[Checkpoint],
    limit: Option<usize>,
) -> Result<SessionCheckpoints> {
    let newest = &checkpoints[0];
    let shown = limit.unwrap_or(usize::MAX).min(checkpoints.len());
    let mut infos = Vec::with_capacity(shown);
    for (i, c) in checkpoints.iter().take(shown).enumerate() {
        let before = checkpoints.get(i + 1).map(|p| p.tree);
        infos.push(CheckpointInfo {
            id: c.id.to_string(),
            turn: c.meta.turn,
            event: c.meta.event.clone(),
            tool: c.meta.tool.clone(),
            model: c.meta.model.clone(),
            time: c.time,
            head: c.meta.head.map(|h| h.to_string()),
            rewound_to: c.meta.rewound_to.map(|h| h.to_string()),
            changed: changed_paths(repo, before, c.meta.head, c.tree)?,
        });
    }
    Ok(SessionCheckpoints {
        agent: newest.meta.agent.clone(),
        session: newest.meta.session.clone(),
        ref_name,
        count: checkpoints.len(),
        checkpoints: infos,
    })
}

impl UseCase for CheckpointsRequest {
    const OPEN: Open = Open::View;
    type Outcome = CheckpointsOutcome;

    fn run(&self, session: &Session) -> Result<CheckpointsOutcome> {
        list(session.repo()?, self)
    }
}
