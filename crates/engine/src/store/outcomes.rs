//! The refs a pusher fetches to read what the server did with a push to
//! `refs/for/<branch>` (docs/server.md, "Refs"). Only names and the record's
//! shape live here; the server writes them (`ops::server::receive`), clients
//! read them after `git evolv fetch` (`ops::server::remote::fetch`, the one
//! refspec).

use serde::{Deserialize, Serialize};

/// A pushed commit stored as a proposal: `refs/evolv/proposals/<id>`.
pub const PROPOSAL_PREFIX: &str = super::PROPOSALS_PREFIX;
/// A landed proposal: `refs/evolv/applied/<id>` → the commit on the branch.
pub const APPLIED_PREFIX: &str = super::APPLIED_PREFIX;
/// The outcome of one pushed proposal: `refs/evolv/outcomes/<id>` → a blob
/// holding an [`Outcome`] as JSON, rewritten as the proposal moves from
/// queued to landed or refused.
pub const OUTCOMES_PREFIX: &str = "refs/evolv/outcomes/";
/// The landing queue's index: `refs/evolv/queue/<id>` → the queued record,
/// there from arrival until the proposal is decided, so a drainer reads
/// the queue, not every record ever written.
pub const QUEUE_PREFIX: &str = "refs/evolv/queue/";
/// Landed proposals by pushed commit: `refs/evolv/landed/<pushed>/<branch>`
/// → the landed record, so a re-push is answered with one lookup.
pub const LANDED_PREFIX: &str = "refs/evolv/landed/";
/// The namespace a push lands through (git's `receive.procReceiveRefs`).
pub const FOR_PREFIX: &str = "refs/for/";

/// Where a pushed proposal stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// Accepted into the queue (`-o evolv.wait=false`), not landed yet.
    Queued,
    /// On the branch: `new` is the branch's commit after the landing.
    Landed,
    /// Not landed: `reason` says why.
    Refused,
}

/// Why a proposal was refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Reason {
    /// The stable error code (`conflict`, `validation_failed`, …).
    pub code: String,
    /// One line, as `git push` shows after `[remote rejected]`.
    pub message: String,
    /// The paths it concerns (conflicting files, refused tree entries).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    /// The tail of the validation's output, or lint findings.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub output: String,
}

/// Who pushed, as the transport tells the hook.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Pusher {
    /// `REMOTE_USER` (HTTP) or the ssh login user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    /// `REMOTE_ADDR` (HTTP, git daemon) or the address in `SSH_CLIENT`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    /// The pushed commit's author, `Name <email>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
}

/// The record under `refs/evolv/outcomes/<id>`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// The proposal id (`refs/evolv/proposals/<id>`).
    pub id: String,
    /// The branch it targets (`main`, not `refs/heads/main`).
    pub branch: String,
    pub state: State,
    /// The pushed commit.
    pub pushed: String,
    /// The branch before the landing (landed), or when it was refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old: Option<String>,
    /// The branch after the landing. While `queued`, the commit a landing
    /// in progress is about to put on the branch: a kill after its swap
    /// leaves it there, and recovery marks the proposal landed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new: Option<String>,
    /// Landed earlier: this push was of a commit already landed (`id` is
    /// the earlier proposal's).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub already: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<Reason>,
    pub pusher: Pusher,
    /// Seconds since the epoch: received, and decided (landed or refused).
    pub received_at: u64,
    /// Nanoseconds since the epoch at arrival: the queue's order.
    pub received_ns: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_at: Option<u64>,
    /// A push of several commits is a stack: one proposal per commit,
    /// bottom first, the pushed commit (this record's own) last. Each is
    /// landed or refused on its own; empty for a push of one commit.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<Member>,
    /// On the record of a member below the top: the id of the push's
    /// record (the top), which the queue lands. Never queued itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack: Option<String>,
}

/// One commit of a pushed stack, as the push's record tells it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Member {
    /// Its proposal id (`refs/evolv/proposals/<id>` → `pushed`).
    pub id: String,
    /// The pushed commit.
    pub pushed: String,
    pub state: State,
    /// The commit it landed as (once landed, or about to be).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<Reason>,
}

/// `refs/evolv/outcomes/<id>`.
pub fn outcome_ref(id: &str) -> String {
    format!("{OUTCOMES_PREFIX}{id}")
}

/// `refs/evolv/queue/<id>`.
pub fn queue_ref(id: &str) -> String {
    format!("{QUEUE_PREFIX}{id}")
}

/// `refs/evolv/landed/<pushed>/<branch>`.
pub fn landed_ref(pushed: &str, branch: &str) -> String {
    format!("{LANDED_PREFIX}{pushed}/{branch}")
}

impl Member {
    /// `rec`, a member's own record, as a queued member of its stack.
    pub fn queued(rec: &Outcome) -> Member {
        Member {
            id: rec.id.clone(),
            pushed: rec.pushed.clone(),
            state: State::Queued,
            new: None,
            reason: None,
        }
    }
}
