//! Codex's hook trust. Codex (0.171) runs a hook from a hooks.json or
//! config.toml only when the user's `$CODEX_HOME/config.toml` holds
//! `[hooks.state."<key>"] trusted_hash = "<hash>"` for it, and skips it
//! silently otherwise; editing a hook changes its hash, so an edited hook
//! is skipped until trusted again. Read from Codex's source
//! (codex-rs/hooks/src/engine/discovery.rs, `command_hook_hash`; lib.rs,
//! `hook_key`; config/src/fingerprint.rs, `version_for_toml`):
//! - key: `<absolute path of the file>:<event in snake_case>:<group index>:<handler index>`;
//! - hash: `sha256:` + hex SHA-256 of the compact JSON, keys sorted, of
//!   `{event_name, matcher, hooks: [handler]}`, where the matcher is left
//!   out for UserPromptSubmit and Stop (Codex ignores it there) and the
//!   handler is normalised: `type`, `command`, `timeout` (600 when unset,
//!   at least 1), `async` (false when unset), `statusMessage` when set.
//!
//! `agent install codex` trusts the hooks it wrote by appending such
//! tables (remembered in the ledger, removed by uninstall); status reports
//! each of git-evolv's hooks as trusted, untrusted, modified or disabled.

use std::path::{Path, PathBuf};

use evolv_core::agents::Agent;
use evolv_core::agents::json_doc::Node;
use evolv_core::agents::wiring::is_our_command;
use sha2::{Digest, Sha256};

use super::ledger::{self, Ledger, TrustEdit};
use super::{Target, locate, settings_file};
use crate::error::{Error, Result};

/// One of git-evolv's hooks in a Codex hooks file, and whether Codex runs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookTrust {
    pub event: String,
    pub key: String,
    pub hash: String,
    /// trusted, untrusted, modified or disabled.
    pub state: &'static str,
}

/// The user's config.toml, where Codex keeps trust.
pub fn config_path() -> Result<PathBuf> {
    Ok(locate::user_dir(Agent::Codex)?.join("config.toml"))
}

/// `PostToolUse` → `post_tool_use`, as Codex labels events in its keys.
fn label(event: &str) -> String {
    let mut out = String::new();
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The hash Codex computes for `handler` in `group` under `event`.
pub fn hash(event: &str, group: &Node, handler: &Node) -> String {
    use serde_json::{Map, Value, json};
    // Keys inserted in sorted order: the JSON is canonical whatever map
    // serde_json was built with.
    let mut h = Map::new();
    if let Some(a) = handler.get("async").map(|n| n.value.clone()) {
        let on = matches!(a, evolv_core::agents::json_doc::Value::Other(ref t) if t == "true");
        h.insert("async".into(), json!(on));
    } else {
        h.insert("async".into(), json!(false));
    }
    let command = handler.get("command").and_then(Node::as_str).unwrap_or("");
    h.insert("command".into(), json!(command));
    if let Some(m) = handler.get("statusMessage").and_then(Node::as_str) {
        h.insert("statusMessage".into(), json!(m));
    }
    let timeout = match handler.get("timeout").map(|n| &n.value) {
        Some(evolv_core::agents::json_doc::Value::Other(t)) => t.parse::<u64>().unwrap_or(600),
        _ => 600,
    };
    h.insert("timeout".into(), json!(timeout.max(1)));
    h.insert("type".into(), json!("command"));
    let mut identity = Map::new();
    identity.insert("event_name".into(), json!(label(event)));
    identity.insert("hooks".into(), Value::Array(vec![Value::Object(h)]));
    let matcher = group.get("matcher").and_then(Node::as_str);
    if let Some(m) = matcher.filter(|_| !matches!(event, "UserPromptSubmit" | "Stop")) {
        identity.insert("matcher".into(), json!(m));
    }
    let bytes = serde_json::to_vec(&Value::Object(identity)).expect("JSON values serialize");
    let digest = Sha256::digest(&bytes);
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// git-evolv's hooks in the target's hooks.json, with their trust.
pub fn hooks(target: &Target) -> Result<Vec<HookTrust>> {
    let Some(text) = settings_file::read(&target.file)? else {
        return Ok(Vec::new());
    };
    let doc = settings_file::parse(&target.file, &text)?;
    let states = trust_states()?;
    let mut out = Vec::new();
    let events = doc.get("hooks").and_then(Node::members).unwrap_or_default();
    for member in events {
        for (gi, group) in member.value.items().unwrap_or_default().iter().enumerate() {
            let handlers = group.get("hooks").and_then(Node::items).unwrap_or_default();
            for (hi, handler) in handlers.iter().enumerate() {
                let ours = handler.get("command").and_then(Node::as_str);
                if !ours.is_some_and(is_our_command) {
                    continue;
                }
                let key = format!("{}:{}:{gi}:{hi}", target.file.display(), label(&member.key));
                let hash = hash(&member.key, group, handler);
                let state = match states.get(&key) {
                    Some((Some(false), _)) => "disabled",
                    Some((_, Some(h))) if *h == hash => "trusted",
                    Some((_, Some(_))) => "modified",
                    _ => "untrusted",
                };
                out.push(HookTrust {
                    event: member.key.clone(),
                    key,
                    hash,
                    state,
                });
            }
        }
    }
    Ok(out)
}

type States = std::collections::BTreeMap<String, (Option<bool>, Option<String>)>;

/// `hooks.state` of the user's config.toml: key → (enabled, trusted_hash).
fn trust_states() -> Result<States> {
    let file = config_path()?;
    let Some(text) = settings_file::read(&file)? else {
        return Ok(States::new());
    };
    let value: toml::Table = text.parse().map_err(|e: toml::de::Error| {
        Error::invalid(
            format!("{} is not valid TOML: {}", file.display(), e.message()),
            "fix Codex's config.toml (Codex cannot read it either), then run the command again",
        )
    })?;
    let state = value
        .get("hooks")
        .and_then(|h| h.get("state"))
        .and_then(toml::Value::as_table);
    Ok(state
        .into_iter()
        .flatten()
        .map(|(k, v)| {
            let enabled = v.get("enabled").and_then(toml::Value::as_bool);
            let hash = v
                .get("trusted_hash")
                .and_then(toml::Value::as_str)
                .map(str::to_string);
            (k.clone(), (enabled, hash))
        })
        .collect())
}

/// Trusts git-evolv's untrusted hooks: a `[hooks.state."<key>"]` table
/// appended to config.toml for each (a table git-evolv appended before
/// for a changed hook is replaced). A key the user's own config already
/// holds is left alone (status reports it).
pub fn trust(target: &Target) -> Result<()> {
    let file = config_path()?;
    let mut record = ledger::load(&target.file).unwrap_or_else(|| Ledger {
        file: target.file.clone(),
        ..Ledger::default()
    });
    for hook in hooks(target)? {
        if hook.state != "untrusted" && hook.state != "modified" {
            continue;
        }
        let before = settings_file::read(&file)?;
        let mut text = before.clone().unwrap_or_default();
        let quoted_key = toml::Value::String(hook.key.clone()).to_string();
        let header = format!("[hooks.state.{quoted_key}]");
        if let Some(old) = record
            .codex_trust
            .iter()
            .position(|e| e.appended.contains(&header))
        {
            let edit = record.codex_trust.remove(old);
            if let Some(at) = text.rfind(&edit.appended) {
                text.replace_range(at..at + edit.appended.len(), "");
            }
        } else if text.contains(&header) || hook.state == "modified" {
            continue;
        }
        let appended = format!("\n{header}\ntrusted_hash = \"{}\"\n", hook.hash);
        text.push_str(&appended);
        if text.parse::<toml::Table>().is_err() {
            // Not a table we can add (the user keeps hooks.state inline):
            // status says the hook is untrusted and how to trust it.
            continue;
        }
        record.codex_trust.push(TrustEdit {
            config: file.clone(),
            appended,
            created_file: before.is_none(),
        });
        ledger::save(&record)?;
        settings_file::write(&file, &text)?;
    }
    Ok(())
}

/// Removes what `trust` appended, newest first; config.toml goes when
/// install created it and nothing else is in it.
pub fn untrust(target: &Target, record: Option<&Ledger>) -> Result<()> {
    let Some(record) = record else {
        return Ok(());
    };
    let _ = target;
    for edit in record.codex_trust.iter().rev() {
        remove_edit(&edit.config, edit)?;
    }
    Ok(())
}

fn remove_edit(file: &Path, edit: &TrustEdit) -> Result<()> {
    let Some(mut text) = settings_file::read(file)? else {
        return Ok(());
    };
    let Some(at) = text.rfind(&edit.appended) else {
        return Ok(());
    };
    text.replace_range(at..at + edit.appended.len(), "");
    if edit.created_file && text.trim().is_empty() {
        settings_file::delete(file)
    } else {
        settings_file::write(file, &text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use evolv_core::agents::json_doc::parse;

    #[test]
    fn events_are_labelled_as_codex_labels_them() {
        assert_eq!(label("PostToolUse"), "post_tool_use");
        assert_eq!(label("UserPromptSubmit"), "user_prompt_submit");
        assert_eq!(label("Stop"), "stop");
    }

    #[test]
    fn the_hash_normalises_as_codex_does() {
        let group = parse(r#"{"hooks":[{"type":"command","command":"echo hello"}]}"#).unwrap();
        let handler = &group.get("hooks").unwrap().items().unwrap()[0];
        let explicit = parse(
            r#"{"matcher":"x","hooks":[{"command":"echo hello","timeout":600,"async":false,"type":"command"}]}"#,
        )
        .unwrap();
        let explicit_handler = &explicit.get("hooks").unwrap().items().unwrap()[0];
        // A matcher is ignored on Stop; the defaults are spelled out.
        assert_eq!(
            hash("Stop", &group, handler),
            hash("Stop", &explicit, explicit_handler)
        );
        assert_ne!(
            hash("PreToolUse", &group, handler),
            hash("PreToolUse", &explicit, explicit_handler)
        );
        // sha256 of {"event_name":"stop","hooks":[{"async":false,"command":"echo hello","timeout":600,"type":"command"}]}
        let canonical = r#"{"event_name":"stop","hooks":[{"async":false,"command":"echo hello","timeout":600,"type":"command"}]}"#;
        let digest = Sha256::digest(canonical.as_bytes());
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hash("Stop", &group, handler), format!("sha256:{hex}"));
    }
}
