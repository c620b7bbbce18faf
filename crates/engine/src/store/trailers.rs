//! The `Evolv-*` trailers git-evolv writes into commit messages, formatted
//! and parsed here and nowhere else. Pure: text in, text out.
//!
//! - proposal commits: `Evolv-Metadata: <json>` and `Evolv-Nonce: <n>`;
//! - landed commits: `Evolv-Patch: <id>` and, under a plan, `Evolv-Plan: <json>`;
//! - rollback commits: `Evolv-Rollback: <id>`.

/// The trailer keys, each with its `: ` separator.
pub const METADATA: &str = "Evolv-Metadata: ";
pub const NONCE: &str = "Evolv-Nonce: ";
pub const PATCH: &str = "Evolv-Patch: ";
pub const PLAN: &str = "Evolv-Plan: ";
pub const ROLLBACK: &str = "Evolv-Rollback: ";
/// The agent whose work a landed commit is (the Linux kernel's form).
pub const ASSISTED_BY: &str = "Assisted-by: ";

/// A proposal commit's message: summary, blank line, metadata, nonce.
pub fn proposal_message(summary: &str, metadata_json: &str, nonce: &str) -> String {
    format!("{summary}\n\n{METADATA}{metadata_json}\n{NONCE}{nonce}\n")
}

/// A landed commit's message: the proposal's summary, the agent that
/// assisted (`<agent>[:<model>]`), the patch id and, when it ran under
/// one, the plan (which rollback reads back).
pub fn landed_message(
    summary: &str,
    patch_id: &str,
    plan_json: Option<&str>,
    assisted_by: Option<&str>,
) -> String {
    let mut msg = format!("{summary}\n\n");
    if let Some(agent) = assisted_by {
        let agent: String = agent.chars().filter(|c| !c.is_control()).collect();
        msg.push_str(&format!("{ASSISTED_BY}{agent}\n"));
    }
    msg.push_str(&format!("{PATCH}{patch_id}\n"));
    if let Some(plan) = plan_json {
        msg.push_str(&fold(PLAN, plan));
    }
    msg
}

/// A trailer folded into lines of at most 100 characters, as git's trailer
/// continuation lines (a leading space) allow, so a landed commit passes
/// commitlint's footer-max-line-length (#16 item 17). `find_folded` joins
/// the continuation lines back without their first space.
fn fold(key: &str, value: &str) -> String {
    const WIDTH: usize = 99;
    let chars: Vec<char> = value.chars().collect();
    let first = WIDTH.saturating_sub(key.chars().count()).max(1);
    let mut out = String::from(key);
    out.extend(chars.iter().take(first));
    out.push('\n');
    for chunk in chars.get(first..).unwrap_or_default().chunks(WIDTH - 1) {
        out.push(' ');
        out.extend(chunk);
        out.push('\n');
    }
    out
}

/// The value of a trailer written by `fold` (a one-line one too).
pub fn find_folded(message: &str, key: &str) -> Option<String> {
    let mut lines = message.lines().skip_while(|l| !l.starts_with(key));
    let mut value = lines.next()?.strip_prefix(key)?.to_string();
    for line in lines.take_while(|l| l.starts_with(' ')) {
        value.push_str(&line[1..]);
    }
    Some(value)
}

/// A rollback commit's message: `subject`, blank line, `body`, then the
/// trailer naming the rolled-back patch.
pub fn rollback_message(subject: &str, body: &str, patch_id: &str) -> String {
    format!("{subject}\n\n{body}\n\n{ROLLBACK}{patch_id}\n")
}

/// The value of trailer `key` (one of the constants) in `message`: the
/// first line starting with it.
pub fn find<'m>(message: &'m str, key: &str) -> Option<&'m str> {
    message.lines().find_map(|l| l.strip_prefix(key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_message_parses_back() {
        let m = proposal_message("Replace a", "{\"x\":1}", "n1");
        assert_eq!(find(&m, METADATA), Some("{\"x\":1}"));
        assert_eq!(find(&m, NONCE), Some("n1"));
        let m = landed_message("Replace a", "patch_1_ab", Some("{}"), None);
        assert_eq!(find(&m, PATCH), Some("patch_1_ab"));
        assert_eq!(find_folded(&m, PLAN).as_deref(), Some("{}"));
        let long = format!("{{\"k\":\"{}\"}}", "v".repeat(300));
        let m = landed_message("s", "p", Some(&long), None);
        assert!(m.lines().all(|l| l.chars().count() <= 100), "{m}");
        assert_eq!(find_folded(&m, PLAN), Some(long));
        assert_eq!(find(&landed_message("s", "p", None, None), PLAN), None);
        let m = landed_message("feat: x", "p", None, Some("codex:gpt-5"));
        assert_eq!(m, "feat: x\n\nAssisted-by: codex:gpt-5\nEvolv-Patch: p\n");
        let m = rollback_message("Revert \"x\"", "This reverts commit c.", "patch_1_ab");
        assert_eq!(
            m,
            "Revert \"x\"\n\nThis reverts commit c.\n\nEvolv-Rollback: patch_1_ab\n"
        );
        assert_eq!(find(&m, ROLLBACK), Some("patch_1_ab"));
    }
}
