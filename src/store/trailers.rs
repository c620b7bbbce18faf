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

/// A proposal commit's message: summary, blank line, metadata, nonce.
pub fn proposal_message(summary: &str, metadata_json: &str, nonce: &str) -> String {
    format!("{summary}\n\n{METADATA}{metadata_json}\n{NONCE}{nonce}\n")
}

/// A landed commit's message: the proposal's summary, the patch id and,
/// when it ran under one, the plan (which rollback reads back).
pub fn landed_message(summary: &str, patch_id: &str, plan_json: Option<&str>) -> String {
    let mut msg = format!("{summary}\n\n{PATCH}{patch_id}\n");
    if let Some(plan) = plan_json {
        msg.push_str(&format!("{PLAN}{plan}\n"));
    }
    msg
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
        let m = landed_message("Replace a", "patch_1_ab", Some("{}"));
        assert_eq!(find(&m, PATCH), Some("patch_1_ab"));
        assert_eq!(find(&m, PLAN), Some("{}"));
        assert_eq!(find(&landed_message("s", "p", None), PLAN), None);
        let m = rollback_message("Revert \"x\"", "This reverts commit c.", "patch_1_ab");
        assert_eq!(
            m,
            "Revert \"x\"\n\nThis reverts commit c.\n\nEvolv-Rollback: patch_1_ab\n"
        );
        assert_eq!(find(&m, ROLLBACK), Some("patch_1_ab"));
    }
}
