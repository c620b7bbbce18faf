//! Asking the user before an apply or rollback lands on a protected branch
//! (`evolv.protectedBranches`, main and master by default).
//!
//! - 2025-11-25 connections whose client declared elicitation: the server
//!   sends `elicitation/create` and waits for the answer.
//! - 2026-07-28 connections (no server-to-client requests): the call
//!   returns an input-required result; the retried call carries the answer
//!   and the request state, which is only a key into `pending` here. What
//!   was asked (tool, arguments, branch head) is checked on our side.
//! - Clients that cannot be asked are not blocked (the propose/apply split
//!   is their confirmation) unless `evolv.mcp.confirm` is `always`.
//!
//! There is no argument a model could fill in to skip the question.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rmcp::RoleServer;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ElicitRequest, ElicitRequestParams, ElicitResult,
    ElicitationAction, InputRequest, InputRequests, InputRequiredResult, ProtocolVersion,
};
use rmcp::service::{ElicitationMode, RequestContext};

use crate::error::{Error, Result};
use crate::git;
use crate::git::Repo;
use crate::ops::apply::{self, ApplyRequest};
use crate::policy::{PushPolicy, PushToProtected};
use crate::store::proposals;

/// The git config key: `auto` (ask when the client can be asked; the
/// default), `always` (refuse when it cannot), `never` (never ask).
pub const CONFIRM_KEY: &str = "evolv.mcp.confirm";

/// How long an unanswered input-required confirmation stays valid.
const PENDING_TTL: Duration = Duration::from_secs(600);

/// `evolv.mcp.confirm`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Auto,
    Always,
    Never,
}

/// What the user is asked about.
#[derive(Debug, Clone)]
pub struct Summary {
    pub mode: Mode,
    /// "apply" or "roll back".
    pub action: &'static str,
    pub patch_ids: Vec<String>,
    /// The protected branch's short name.
    pub branch: String,
    /// The branch head when asked: an answer is only good for that head.
    pub head: String,
    pub files: Vec<String>,
    pub lines_added: usize,
    pub lines_removed: usize,
    /// The commands the apply will run.
    pub commands: Vec<String>,
}

impl Summary {
    fn question(&self) -> String {
        let mut text = format!(
            "{} {} on the protected branch {}?\n{} file(s), +{} -{} lines: {}",
            capitalise(self.action),
            self.patch_ids.join(", "),
            self.branch,
            self.files.len(),
            self.lines_added,
            self.lines_removed,
            self.files.join(", ")
        );
        if self.action == "apply" {
            if self.commands.is_empty() {
                text.push_str("\nValidation: none configured (git config evolv.validate).");
            } else {
                let cmds: Vec<String> = self.commands.iter().map(|c| format!("`{c}`")).collect();
                text.push_str(&format!("\nValidation that will run: {}.", cmds.join(", ")));
            }
        }
        text
    }

    fn refused(&self, why: &str) -> Error {
        Error::Cancelled {
            what: format!(
                "{}: {} of {} on the protected branch {} was not done",
                why,
                self.action,
                self.patch_ids.join(", "),
                self.branch
            ),
        }
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
        .unwrap_or_default()
}

/// A confirmation handed out as an input-required result.
#[derive(Debug, Clone)]
pub struct Pending {
    fingerprint: String,
    asked: Instant,
}

/// Go ahead, or answer the call with this (an input-required result).
pub enum Gate {
    Proceed,
    Ask(CallToolResponse),
}

fn mode(repo: &Repo) -> Result<Mode> {
    // Through the one config adapter, so `git -c` and includes count too.
    let config = crate::git::config::Config::for_git_dir(repo.git_dir())?;
    match config.string(CONFIRM_KEY).map(str::to_string) {
        None => Ok(Mode::Auto),
        Some(raw) => match raw.trim().to_ascii_lowercase().as_str() {
            "auto" | "" => Ok(Mode::Auto),
            "always" => Ok(Mode::Always),
            "never" => Ok(Mode::Never),
            _ => Err(Error::InvalidConfig {
                key: CONFIRM_KEY.into(),
                value: raw,
                expected: "auto, always or never".into(),
            }),
        },
    }
}

/// The protected branch HEAD is on, if it is one.
fn protected_branch(repo: &Repo) -> Result<Option<(String, String)>> {
    let head = git::head(repo)?;
    let Some(branch) = head.branch else {
        return Ok(None);
    };
    let values = crate::git::config::Config::for_git_dir(repo.git_dir())?.protected_branches();
    let policy = PushPolicy::new(&values, PushToProtected::default(), false).map_err(|m| {
        Error::invalid(
            m,
            "fix it with `git config --replace-all evolv.protectedBranches 'main master'`",
        )
    })?;
    if !policy.is_protected(&branch) {
        return Ok(None);
    }
    let short = branch.trim_start_matches("refs/heads/").to_string();
    Ok(Some((short, head.commit.to_string())))
}

/// What an apply would be asked about; `None` when no question is due (not
/// a protected branch, a dry run, or `evolv.mcp.confirm never`).
pub fn apply_summary(repo: &Repo, req: &ApplyRequest) -> Result<Option<Summary>> {
    let mode = mode(repo)?;
    let Some((branch, head)) = protected_branch(repo)? else {
        return Ok(None);
    };
    if mode == Mode::Never {
        return Ok(None);
    }
    // Unknown ids and bad plans are reported by apply itself, as the CLI
    // reports them: no question before an apply that cannot happen.
    let mut files = Vec::new();
    let (mut added, mut removed) = (0, 0);
    for id in &req.patch_ids {
        let Ok(p) = proposals::load(repo, id) else {
            return Ok(None);
        };
        files.extend(p.meta.affected_files.iter().cloned());
        added += p.meta.lines_added;
        removed += p.meta.lines_removed;
    }
    let Ok(preview) = apply::preview(repo, req) else {
        return Ok(None);
    };
    if preview.dry_run {
        return Ok(None);
    }
    files.sort();
    files.dedup();
    Ok(Some(Summary {
        mode,
        action: "apply",
        patch_ids: req.patch_ids.clone(),
        branch,
        head,
        files,
        lines_added: added,
        lines_removed: removed,
        commands: preview.commands,
    }))
}

/// What a rollback would be asked about.
pub fn rollback_summary(repo: &Repo, id: &str) -> Result<Option<Summary>> {
    let mode = mode(repo)?;
    let Some((branch, head)) = protected_branch(repo)? else {
        return Ok(None);
    };
    if mode == Mode::Never || proposals::applied_commit(repo, id).is_none() {
        return Ok(None);
    }
    let Ok(p) = proposals::load(repo, id) else {
        return Ok(None);
    };
    Ok(Some(Summary {
        mode,
        action: "roll back",
        patch_ids: vec![id.to_string()],
        branch,
        head,
        files: p.meta.affected_files.clone(),
        lines_added: p.meta.lines_removed,
        lines_removed: p.meta.lines_added,
        commands: Vec::new(),
    }))
}

fn elicitation(summary: &Summary) -> ElicitRequestParams {
    let schema = serde_json::json!({
        "type": "object",
        "properties": {
            "confirm": {
                "type": "boolean",
                "title": format!("{} on {}", capitalise(summary.action), summary.branch),
                "description": "Check to go ahead; decline to leave the branch as it is.",
                "default": false
            }
        },
        "required": ["confirm"]
    });
    ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: summary.question(),
        requested_schema: serde_json::from_value(schema).expect("a valid elicitation schema"),
    }
}

/// Whether an elicitation answer says yes.
fn accepted(result: &ElicitResult) -> bool {
    result.action == ElicitationAction::Accept
        && result
            .content
            .as_ref()
            .and_then(|c| c.get("confirm"))
            .and_then(|v| v.as_bool())
            == Some(true)
}

fn nonce() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default(),
    );
    let a = h.finish();
    let mut h2 = std::collections::hash_map::RandomState::new().build_hasher();
    h2.write_u64(a);
    format!("confirm-{a:016x}{:016x}", h2.finish())
}

/// Decides whether the call may go ahead, asking the user if it can.
pub async fn gate(
    pending: &Mutex<HashMap<String, Pending>>,
    tool: &str,
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
    summary: Summary,
) -> Result<Gate> {
    let fingerprint = format!(
        "{tool}\n{}\n{}",
        serde_json::to_string(&request.arguments).unwrap_or_default(),
        summary.head
    );
    let stateless = context
        .protocol_version()
        .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
    if stateless {
        let can_ask = context
            .client_capabilities()
            .is_some_and(|c| c.elicitation.is_some());
        if let Some(state) = &request.request_state {
            let recorded = pending.lock().expect("pending lock").remove(state);
            if let Some(p) = recorded
                && p.fingerprint == fingerprint
                && p.asked.elapsed() < PENDING_TTL
            {
                let answer = request
                    .input_responses
                    .as_ref()
                    .and_then(|r| r.get("confirm"))
                    .and_then(|v| serde_json::from_value::<ElicitResult>(v.clone()).ok());
                return match answer {
                    Some(a) if accepted(&a) => Ok(Gate::Proceed),
                    Some(a) if a.action == ElicitationAction::Cancel => {
                        Err(summary.refused("the user cancelled the confirmation"))
                    }
                    _ => Err(summary.refused("the user declined")),
                };
            }
            // An unknown, stale or mismatched state: ask afresh.
        }
        if !can_ask {
            return unasked(&summary);
        }
        let key = nonce();
        {
            let mut map = pending.lock().expect("pending lock");
            map.retain(|_, p| p.asked.elapsed() < PENDING_TTL);
            map.insert(
                key.clone(),
                Pending {
                    fingerprint,
                    asked: Instant::now(),
                },
            );
        }
        let mut requests = InputRequests::new();
        requests.insert(
            "confirm".into(),
            InputRequest::Elicitation(ElicitRequest::new(elicitation(&summary))),
        );
        return Ok(Gate::Ask(
            InputRequiredResult::new(Some(requests), Some(key)).into(),
        ));
    }
    if !context
        .peer
        .supported_elicitation_modes()
        .contains(&ElicitationMode::Form)
    {
        return unasked(&summary);
    }
    match context.peer.create_elicitation(elicitation(&summary)).await {
        Ok(answer) if accepted(&answer) => Ok(Gate::Proceed),
        Ok(answer) if answer.action == ElicitationAction::Cancel => {
            Err(summary.refused("the user cancelled the confirmation"))
        }
        Ok(_) => Err(summary.refused("the user declined")),
        Err(e) => Err(summary.refused(&format!("no answer to the confirmation ({e})"))),
    }
}

/// A client that cannot be asked: go ahead, unless the repository wants
/// every such landing confirmed.
fn unasked(summary: &Summary) -> Result<Gate> {
    match summary.mode {
        Mode::Always => Err(Error::ConfirmationRequired {
            what: format!(
                "{} of {} on the protected branch {}",
                summary.action,
                summary.patch_ids.join(", "),
                summary.branch
            ),
        }),
        Mode::Auto | Mode::Never => Ok(Gate::Proceed),
    }
}
