//! The MCP tools `op_log` and `undo` (issue 26): the client's name is the
//! actor, undo calls the same ops function as the CLI and answers the same
//! outcome, and moving a protected branch back asks first.

use serde_json::json;

use crate::common::{TestRepo, assert_has_all};
use crate::mcp_client::{Mcp, assert_matches_output_schema};

#[test]
fn op_log_names_the_client_and_undo_of_its_propose_removes_the_proposal() {
    let repo = TestRepo::scenario();
    let mut mcp = Mcp::start(&repo);
    let proposed = mcp.call_ok(
        "propose_edit",
        json!({"pattern": "getUserData", "replacement": "fetchUserData"}),
    );
    let id = proposed["patch_id"].as_str().unwrap().to_string();
    let log = mcp.call_ok("op_log", json!({"limit": 1}));
    let op = &log["operations"][0];
    assert_eq!(
        (op["kind"].as_str(), op["actor"].as_str()),
        (Some("propose"), Some("mcp:evolv-tests"))
    );
    // The CLI answers the same JSON for the same operation.
    let cli = repo.evolv(&["op", "log", "-n", "1", "--json"]).ok().json();
    assert_eq!(cli["operations"][0], *op);
    let dry = mcp.call_ok("undo", json!({"dry_run": true}));
    assert_eq!(dry["undone"][0]["op"], op["id"]);
    assert!(repo.rev(&format!("refs/evolv/proposals/{id}")).is_some());
    let undone = mcp.call_ok("undo", json!({}));
    assert_eq!(undone["undone"][0]["kind"], "undo");
    assert!(repo.rev(&format!("refs/evolv/proposals/{id}")).is_none());
    let tools = mcp.tools();
    assert_matches_output_schema(&tools, "op_log", &log);
    assert_matches_output_schema(&tools, "undo", &undone);
    let redone = mcp.call_ok("undo", json!({"redo": true}));
    assert_eq!(redone["undone"][0]["kind"], "redo");
    assert!(repo.rev(&format!("refs/evolv/proposals/{id}")).is_some());
    let err = mcp.call_err("undo", json!({"op": "zz"}));
    assert_eq!(err["code"], "invalid_input");
    mcp.finish();
}

#[test]
fn undo_of_an_apply_on_a_protected_branch_asks_first() {
    let (repo, id) = TestRepo::scenario_proposed(&[]);
    repo.evolv(&["apply", &id]).ok();
    let n = repo.head();
    let mut mcp = Mcp::start_with(&repo, json!({"elicitation": {"form": {}}}));
    // The apply was the CLI's: this client names it to undo it.
    let err = mcp.call_err("undo", json!({}));
    assert_eq!(err["code"], "nothing_to_undo");
    let log = mcp.call_ok("op_log", json!({"limit": 1}));
    let op = log["operations"][0]["id"].clone();
    let undone = mcp.call_ok("undo", json!({"op": op}));
    assert_eq!(mcp.server_requests.len(), 1, "one question");
    let message = mcp.server_requests[0]["params"]["message"]
        .as_str()
        .unwrap();
    assert_has_all(message, &["main", "3 file(s)"]);
    assert_eq!(undone["undone"][0]["method"], "move_back");
    assert_eq!(repo.rev("HEAD"), repo.rev(&format!("{n}^")));
    repo.assert_clean();
}
