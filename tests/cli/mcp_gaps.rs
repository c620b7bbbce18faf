//! Small gaps of the MCP server (issue 25 item 6): a background task can
//! be cancelled from a client, and a proposal over thousands of files
//! answers with its lists capped as its diff is.

use serde_json::json;

use super::common::TestRepo;
use super::mcp_client::{Mcp, assert_matches_output_schema};
use super::mcp_tasks::BackgroundApply;

#[test]
fn task_cancel_stops_a_background_apply_and_nothing_lands() {
    let mut bg = BackgroundApply::start("echo started; sleep 60; echo finished");
    let (repo, mcp, tools, head, started) = bg.parts();
    let task = started["task_id"].as_str().expect("a task id").to_string();
    let cancelled = mcp.call_ok("task_cancel", json!({"task_id": task}));
    assert_matches_output_schema(tools, "task_cancel", &cancelled);
    assert_eq!(cancelled["status"], "cancelled", "{cancelled}");
    assert_eq!(repo.head(), head);
    assert_eq!(repo.status(), "");
    let e = mcp.call_err("task_cancel", json!({"task_id": "task_nope"}));
    assert_eq!(e["code"], "invalid_input", "{e}");
}

#[test]
fn a_proposal_over_many_files_lists_the_first_thousand() {
    let files: Vec<(String, String)> = (0..1200)
        .map(|i| (format!("src/f{i:04}.txt"), "getUserData\n".to_string()))
        .collect();
    let repo = TestRepo::with_files(&files);
    let mut mcp = Mcp::start(&repo);
    let proposed = mcp.call_ok(
        "propose_edit",
        json!({"pattern": "getUserData", "replacement": "fetchUserData"}),
    );
    assert_eq!(
        proposed["statistics"]["files_matched"], 1200,
        "{}",
        proposed["statistics"]
    );
    assert_eq!(
        proposed["affected_files"].as_array().map(Vec::len),
        Some(1000)
    );
    assert_eq!(proposed["affected_files_truncated"], true);
    assert_eq!(proposed["diff_truncated"], true);
    assert!(
        proposed.to_string().len() < 200_000,
        "{} bytes",
        proposed.to_string().len()
    );
}
