//! Asking the user before an apply or rollback lands on a protected branch
//! (`evolv.protectedBranches`, main and master by default).
//!
//! - 2025-11-25 connections whose client declared elicitation: the server
//!   sends `elicitation/create` and waits for the answer.
//! - 2026-07-28 connections (no server-to-client requests): the call
//!   returns an input-required result; the retried call carries the answer
//!   and the request state, which is only a key into `pending` here. What
//!   was asked (tool, arguments, branch head) is checked on our side.
//! - Clients that cannot be asked go ahead or are refused as
//!   `ops::permissions` says (`evolv.mcp.confirm`).
//!
//! What needs confirming, and the config it reads, is decided by
//! `ops::permissions`; this module only puts the question. There is no
//! argument a model could fill in to skip it.

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
use crate::ops::permissions::Confirmation;

/// How long an unanswered input-required confirmation stays valid.
const PENDING_TTL: Duration = Duration::from_secs(600);

/// The question put to the user about `c`.
fn question(c: &Confirmation) -> String {
    let mut text = format!(
        "{} {} on the protected branch {}?\n{} file(s), +{} -{} lines: {}",
        capitalise(c.action),
        c.patch_ids.join(", "),
        c.branch,
        c.files.len(),
        c.lines_added,
        c.lines_removed,
        evolv_core::comma_list::capped_comma_list(&c.files, 20)
    );
    if c.action == "apply" {
        if c.commands.is_empty() {
            text.push_str("\nValidation: none configured (git config evolv.validate).");
        } else {
            let cmds: Vec<String> = c.commands.iter().map(|c| format!("`{c}`")).collect();
            text.push_str(&format!("\nValidation that will run: {}.", cmds.join(", ")));
        }
    }
    text
}

/// The user said no (or could not answer): nothing was done.
fn refused(c: &Confirmation, why: &str) -> Error {
    Error::Cancelled {
        what: format!(
            "{}: {} of {} on the protected branch {} was not done",
            why,
            c.action,
            c.patch_ids.join(", "),
            c.branch
        ),
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

fn elicitation(confirmation: &Confirmation) -> ElicitRequestParams {
    let schema = serde_json::json!({
        "type": "object",
        "properties": {
            "confirm": {
                "type": "boolean",
                "title": format!("{} on {}", capitalise(confirmation.action), confirmation.branch),
                "description": "Check to go ahead; decline to leave the branch as it is.",
                "default": false
            }
        },
        "required": ["confirm"]
    });
    ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: question(confirmation),
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
    confirmation: Confirmation,
) -> Result<Gate> {
    let stateless = context
        .protocol_version()
        .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
    if stateless {
        let fingerprint = format!(
            "{tool}\n{}\n{}",
            serde_json::to_string(&request.arguments).unwrap_or_default(),
            confirmation.head
        );
        let can_ask = context
            .client_capabilities()
            .is_some_and(|c| c.elicitation.is_some());
        return ask_stateless(pending, request, can_ask, fingerprint, &confirmation);
    }
    if !context
        .peer
        .supported_elicitation_modes()
        .contains(&ElicitationMode::Form)
    {
        return unasked(&confirmation);
    }
    match context
        .peer
        .create_elicitation(elicitation(&confirmation))
        .await
    {
        Ok(answer) => answered(&answer, &confirmation),
        Err(e) => Err(refused(
            &confirmation,
            &format!("no answer to the confirmation ({e})"),
        )),
    }
}

/// A 2026-07-28 connection: the answer of a retried call whose request
/// state we handed out for the same question, else an input-required
/// result that asks it.
fn ask_stateless(
    pending: &Mutex<HashMap<String, Pending>>,
    request: &CallToolRequestParams,
    can_ask: bool,
    fingerprint: String,
    confirmation: &Confirmation,
) -> Result<Gate> {
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
                Some(a) => answered(&a, confirmation),
                None => Err(refused(confirmation, "the user declined")),
            };
        }
        // An unknown, stale or mismatched state: ask afresh.
    }
    if !can_ask {
        return unasked(confirmation);
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
        InputRequest::Elicitation(ElicitRequest::new(elicitation(confirmation))),
    );
    Ok(Gate::Ask(
        InputRequiredResult::new(Some(requests), Some(key)).into(),
    ))
}

/// What the user's answer means: go ahead only on an explicit yes.
fn answered(answer: &ElicitResult, confirmation: &Confirmation) -> Result<Gate> {
    if accepted(answer) {
        Ok(Gate::Proceed)
    } else if answer.action == ElicitationAction::Cancel {
        Err(refused(confirmation, "the user cancelled the confirmation"))
    } else {
        Err(refused(confirmation, "the user declined"))
    }
}

/// A client that cannot be asked: `ops` decides whether that is enough.
fn unasked(confirmation: &Confirmation) -> Result<Gate> {
    confirmation.unasked().map(|()| Gate::Proceed)
}
