//! Confirmation on protected branches: elicitation on 2025-11-25, the
//! input-required result on 2026-07-28, and clients that cannot be asked.

use crate::common::assert_has_all;
use serde_json::{Value, json};

use super::common::TestRepo;
use super::mcp_client::Mcp;

fn elicitation_client(repo: &TestRepo) -> Mcp {
    Mcp::start_with(repo, json!({"elicitation": {"form": {}}}))
}

#[test]
fn an_apply_on_a_protected_branch_asks_and_a_yes_lands_it() {
    let repo = TestRepo::scenario();
    repo.set_config("evolv.validate", "true");
    let mut mcp = elicitation_client(&repo);
    let id = repo.propose("getUserData", "fetchUserData", &[]);
    let applied = mcp.call_ok("apply_edit", json!({"patch_id": id}));
    assert_eq!(mcp.server_requests.len(), 1, "one question");
    let q = &mcp.server_requests[0];
    assert_eq!(q["method"], "elicitation/create");
    let message = q["params"]["message"].as_str().unwrap();
    assert_has_all(message, &["main", "3 file(s)", "`true`"]);
    assert_eq!(repo.head(), applied["commit"].as_str().unwrap());
}

#[test]
fn decline_or_cancel_is_a_cancelled_error_and_touches_nothing() {
    let repo = TestRepo::scenario();
    let mut mcp = elicitation_client(&repo);
    let id = repo.propose("getUserData", "fetchUserData", &[]);
    let head = repo.head();
    for answer in [
        json!({"action": "decline"}),
        json!({"action": "cancel"}),
        json!({"action": "accept", "content": {"confirm": false}}),
    ] {
        mcp.elicit_answer = answer.clone();
        let e = mcp.call_err("apply_edit", json!({"patch_id": id}));
        assert_eq!(e["code"], "cancelled", "{answer}: {e}");
        assert_eq!(repo.head(), head);
        assert_eq!(repo.status(), "");
    }
    // Rollback asks too.
    mcp.elicit_answer = json!({"action": "accept", "content": {"confirm": true}});
    mcp.call_ok("apply_edit", json!({"patch_id": id}));
    let landed = repo.head();
    mcp.elicit_answer = json!({"action": "decline"});
    let e = mcp.call_err("rollback", json!({"patch_id": id}));
    assert_eq!(e["code"], "cancelled");
    assert_eq!(repo.head(), landed);
}

#[test]
fn unprotected_branches_and_clients_that_cannot_be_asked_are_not_blocked() {
    let repo = TestRepo::scenario();
    repo.git(&["checkout", "-q", "-b", "feature"]);
    let mut asked = elicitation_client(&repo);
    let id = repo.propose("getUserData", "fetchUserData", &[]);
    asked.call_ok("apply_edit", json!({"patch_id": id}));
    assert!(asked.server_requests.is_empty(), "feature is not protected");

    repo.git(&["checkout", "-q", "main"]);
    let mut plain = Mcp::start(&repo);
    let id = repo.propose("getUserData", "loadUserData", &[]);
    plain.call_ok("apply_edit", json!({"patch_id": id}));
    assert!(repo.read("backend/user.go").contains("loadUserData"));

    repo.set_config("evolv.mcp.confirm", "always");
    let head = repo.head();
    let id = repo.propose("loadUserData", "x", &[]);
    let e = plain.call_err("apply_edit", json!({"patch_id": id}));
    assert_eq!(e["code"], "confirmation_required");
    assert!(e["hint"].as_str().unwrap().contains("evolv.mcp.confirm"));
    assert_eq!(repo.head(), head);
}

/// `git -c evolv.mcp.confirm=always evolv mcp`: git hands the setting to
/// the server in its environment, and the server must see it (libgit2's
/// config does not).
#[test]
fn confirm_and_protected_branches_follow_git_dash_c() {
    let repo = TestRepo::scenario();
    let env = [
        ("GIT_CONFIG_COUNT", "2"),
        ("GIT_CONFIG_KEY_0", "evolv.mcp.confirm"),
        ("GIT_CONFIG_VALUE_0", "always"),
        ("GIT_CONFIG_KEY_1", "evolv.protectedBranches"),
        ("GIT_CONFIG_VALUE_1", "feature"),
    ];
    repo.git(&["checkout", "-q", "-b", "feature"]);
    let mut plain = Mcp::initialize(Mcp::spawn_env(&repo, &["mcp"], &env), json!({}));
    let head = repo.head();
    let id = repo.propose("getUserData", "fetchUserData", &[]);
    let e = plain.call_err("apply_edit", json!({"patch_id": id}));
    assert_eq!(e["code"], "confirmation_required", "{e}");
    assert_eq!(repo.head(), head);
}

fn meta(elicitation: bool) -> Value {
    let caps = if elicitation {
        json!({"elicitation": {"form": {}}})
    } else {
        json!({})
    };
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": caps
    })
}

#[test]
fn stateless_clients_get_an_input_required_result_and_the_answer_is_checked_server_side() {
    let repo = TestRepo::scenario();
    let mut mcp = Mcp::spawn(&repo);
    let id = repo.propose("getUserData", "fetchUserData", &[]);
    let head = repo.head();
    let args = json!({"patch_id": id});
    let first = mcp.request(
        "tools/call",
        json!({"_meta": meta(true), "name": "apply_edit", "arguments": args}),
    );
    let r = &first["result"];
    assert_eq!(r["resultType"], "input_required", "{first}");
    let state = r["requestState"].as_str().unwrap().to_string();
    let q = &r["inputRequests"]["confirm"];
    assert_eq!(q["method"], "elicitation/create", "{q}");
    assert!(q["params"]["message"].as_str().unwrap().contains("main"));
    assert_eq!(repo.head(), head);

    // A forged state is not trusted: the question comes again.
    let forged = mcp.request("tools/call", json!({
        "_meta": meta(true), "name": "apply_edit", "arguments": args,
        "requestState": "confirm-forged", "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}
    }));
    assert_eq!(forged["result"]["resultType"], "input_required", "{forged}");
    assert_eq!(repo.head(), head);

    // The real state with different arguments is not an answer either.
    let other = mcp.request("tools/call", json!({
        "_meta": meta(true), "name": "apply_edit", "arguments": {"patch_id": id, "dry_run": false, "patch_ids": []},
        "requestState": state, "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}
    }));
    assert_eq!(other["result"]["resultType"], "input_required", "{other}");
    let state = other["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_string();

    let declined = mcp.request("tools/call", json!({
        "_meta": meta(true), "name": "apply_edit", "arguments": {"patch_id": id, "dry_run": false, "patch_ids": []},
        "requestState": state, "inputResponses": {"confirm": {"action": "decline"}}
    }));
    assert_eq!(
        crate::mcp_client::error_body(&declined["result"])["error"]["code"],
        "cancelled"
    );
    assert_eq!(repo.head(), head);

    let again = mcp.request(
        "tools/call",
        json!({"_meta": meta(true), "name": "apply_edit", "arguments": args}),
    );
    let state = again["result"]["requestState"]
        .as_str()
        .unwrap()
        .to_string();
    let yes = mcp.request("tools/call", json!({
        "_meta": meta(true), "name": "apply_edit", "arguments": args,
        "requestState": state, "inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}
    }));
    assert_eq!(yes["result"]["isError"], false, "{yes}");
    assert_ne!(repo.head(), head);

    // A 2026 client without elicitation is not blocked.
    let id2 = repo.propose("fetchUserData", "loadUserData", &[]);
    let plain = mcp.request(
        "tools/call",
        json!({"_meta": meta(false), "name": "apply_edit", "arguments": {"patch_id": id2}}),
    );
    assert_eq!(plain["result"]["isError"], false, "{plain}");
    assert!(repo.read("backend/user.go").contains("loadUserData"));
}
