//! Which of the events git-evolv wires hold its entry in the agent's
//! config, and for Codex whether Codex will run each.

use evolv_core::agents::Agent;
use evolv_core::agents::json_doc::Node;
use evolv_core::agents::wiring::{is_ours, wires};

use super::{EventState, Target, codex_trust, settings_file};
use crate::error::Result;

/// The wired events, and notes on what was found.
pub fn events(target: &Target) -> Result<(Vec<EventState>, Vec<String>)> {
    let text = settings_file::read(&target.file)?;
    let doc = match &text {
        Some(text) => Some(settings_file::parse(&target.file, text)?),
        None => None,
    };
    let trust = if target.agent == Agent::Codex {
        codex_trust::hooks(target)?
    } else {
        Vec::new()
    };
    let mut notes = Vec::new();
    let events = wires(target.agent)
        .iter()
        .map(|wire| {
            let list = doc
                .as_ref()
                .and_then(|d| d.get("hooks"))
                .and_then(|h| h.get(wire.event))
                .and_then(Node::items);
            let wired = list.is_some_and(|items| items.iter().any(is_ours));
            let states: Vec<&str> = trust
                .iter()
                .filter(|t| t.event == wire.event)
                .map(|t| t.state)
                .collect();
            let trust = (target.agent == Agent::Codex && wired).then(|| {
                if states.iter().all(|s| *s == "trusted") {
                    "trusted".to_string()
                } else {
                    states
                        .iter()
                        .find(|s| **s != "trusted")
                        .map_or("untrusted", |s| s)
                        .to_string()
                }
            });
            EventState {
                event: wire.event.to_string(),
                matcher: wire.matcher.map(str::to_string),
                checkpoint: wire.moment,
                wired,
                trust,
            }
        })
        .collect::<Vec<_>>();
    for t in trust.iter().filter(|t| t.state != "trusted") {
        notes.push(format!(
            "Codex will not run git-evolv's {} hook: it is {} (Codex runs a hook only when \
             [hooks.state.\"{}\"] trusted_hash = \"{}\" is in {}); run `git evolv agent install \
             codex{}` again, or trust it in Codex's /hooks",
            t.event,
            t.state,
            t.key,
            t.hash,
            codex_trust::config_path()?.display(),
            if target.user { " --user" } else { "" },
        ));
    }
    Ok((events, notes))
}
