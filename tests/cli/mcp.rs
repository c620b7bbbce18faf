//! `git evolv mcp`: the protocol, every tool, every error path, spoken over
//! the real binary's stdio and checked afterwards with git.

use crate::common::{assert_has, str_of};
use serde_json::{Value, json};

use super::common::TestRepo;
use super::mcp_client::{Mcp, assert_matches_output_schema};

const TOOLS: &[&str] = &[
    "propose_edit",
    "edit",
    "notebook_edit",
    "propose_patch",
    "propose_worktree",
    "read_file",
    "glob",
    "apply_edit",
    "list_proposals",
    "show_proposal",
    "drop_proposal",
    "rollback",
    "lint_commit",
    "check_repo",
    "audit_log",
    "op_log",
    "list_checkpoints",
    "undo",
    "task_output",
    "task_list",
];

/// Every node of a schema, for the structural checks.
fn walk<'a>(v: &'a Value, out: &mut Vec<&'a Value>) {
    out.push(v);
    match v {
        // Conditional refinements (`then: {properties: {commands: {minItems}}}`)
        // add constraints to typed properties; they are not properties.
        Value::Object(m) => m
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "if" | "then" | "else"))
            .for_each(|(_, c)| walk(c, out)),
        Value::Array(a) => a.iter().for_each(|c| walk(c, out)),
        _ => {}
    }
}

fn check_schema(tool: &str, which: &str, schema: &Value) {
    jsonschema::meta::validate(schema)
        .unwrap_or_else(|e| panic!("{tool} {which} is not a valid JSON Schema: {e}"));
    assert_eq!(schema["type"], "object", "{tool} {which}");
    let text = schema.to_string();
    assert!(
        !text.contains("$ref") && !text.contains("$defs"),
        "{tool} {which} is not flat: {text}"
    );
    let mut nodes = Vec::new();
    walk(schema, &mut nodes);
    for node in nodes {
        if let Some(props) = node.get("properties").and_then(Value::as_object) {
            assert!(
                node.get("type").is_some(),
                "{tool} {which}: untyped object {node}"
            );
            for (name, sub) in props {
                assert_ne!(
                    sub,
                    &Value::Bool(true),
                    "{tool} {which}: `{name}` is the true schema"
                );
                assert!(
                    sub.get("type").is_some()
                        || sub.get("enum").is_some()
                        || sub.get("const").is_some(),
                    "{tool} {which}: `{name}` has no type: {sub}"
                );
            }
        }
        assert!(
            node.get("anyOf").is_none(),
            "{tool} {which}: nested anyOf {node}"
        );
    }
}

#[test]
fn initialize_names_the_server_and_lists_every_tool_with_schemas_and_all_four_hints() {
    let repo = TestRepo::scenario();
    let mut mcp = Mcp::spawn(&repo);
    let init = mcp.request(
        "initialize",
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}),
    );
    assert_eq!(init["result"]["serverInfo"]["name"], "git-evolv");
    assert_eq!(
        init["result"]["serverInfo"]["version"],
        env!("CARGO_PKG_VERSION")
    );
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    mcp.notify("notifications/initialized", json!({}));
    let tools = mcp.tools();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    for t in TOOLS {
        assert!(names.contains(t), "missing tool {t}: {names:?}");
    }
    for tool in &tools {
        let name = tool["name"].as_str().unwrap();
        assert!(
            tool["title"].as_str().is_some_and(|t| !t.is_empty()),
            "{name}: title"
        );
        assert!(
            tool["description"].as_str().is_some_and(|d| d.len() > 40),
            "{name}: description"
        );
        let a = &tool["annotations"];
        for hint in [
            "readOnlyHint",
            "destructiveHint",
            "idempotentHint",
            "openWorldHint",
        ] {
            assert!(a[hint].is_boolean(), "{name}: {hint} not set: {a}");
        }
        assert_eq!(a["openWorldHint"], false, "{name}");
        check_schema(name, "inputSchema", &tool["inputSchema"]);
        check_schema(name, "outputSchema", &tool["outputSchema"]);
    }
    let hint =
        |n: &str, h: &str| tools.iter().find(|t| t["name"] == n).unwrap()["annotations"][h].clone();
    for n in [
        "propose_edit",
        "list_proposals",
        "show_proposal",
        "audit_log",
        "task_output",
    ] {
        assert_eq!(hint(n, "readOnlyHint"), true, "{n}");
        assert_eq!(hint(n, "destructiveHint"), false, "{n}");
    }
    for n in ["apply_edit", "rollback", "drop_proposal"] {
        assert_eq!(hint(n, "readOnlyHint"), false, "{n}");
        assert_eq!(hint(n, "destructiveHint"), true, "{n}");
    }
    let propose = tools.iter().find(|t| t["name"] == "propose_edit").unwrap();
    assert!(
        propose["description"]
            .as_str()
            .unwrap()
            .contains("refs/evolv/")
    );
    // execution_plan is the ExecutionPlan type, not a free-form value.
    let apply = tools.iter().find(|t| t["name"] == "apply_edit").unwrap();
    let plan = &apply["inputSchema"]["properties"]["execution_plan"];
    assert_eq!(
        plan["properties"]["rollback"]["required"],
        json!(["strategy"]),
        "{plan}"
    );
    mcp.finish();
}

#[test]
fn the_stateless_2026_revision_discovers_and_calls_tools() {
    let repo = TestRepo::scenario();
    let mut mcp = Mcp::spawn(&repo);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let discover = mcp.request("server/discover", json!({"_meta": meta}));
    let result = &discover["result"];
    assert_has(&result["supportedVersions"].to_string(), "\"2026-07-28\"");
    assert_has(&result["supportedVersions"].to_string(), "\"2025-11-25\"");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "git-evolv",
        "{discover}"
    );
    let list = mcp.request("tools/list", json!({"_meta": meta}));
    assert!(list["result"]["tools"].as_array().unwrap().len() >= TOOLS.len());
    let call = mcp.request(
        "tools/call",
        json!({"_meta": meta, "name": "propose_edit", "arguments": {"pattern": "getUserData", "replacement": "fetchUserData"}}),
    );
    assert_eq!(call["result"]["isError"], false, "{call}");
    assert_eq!(
        call["result"]["structuredContent"]["statistics"]["files_matched"],
        3
    );
    let missing = mcp.request(
        "tools/call",
        json!({"name": "list_proposals", "arguments": {}}),
    );
    assert_eq!(
        missing["error"]["code"], -32602,
        "a stateless call without _meta: {missing}"
    );
}

#[test]
fn propose_show_apply_rollback_round_trip_matches_the_cli_and_git() {
    let repo = TestRepo::scenario();
    let before = repo.head();
    let mut mcp = Mcp::start(&repo);
    let tools = mcp.tools();
    let proposed = mcp.call_ok(
        "propose_edit",
        json!({"pattern": "getUserData", "replacement": "fetchUserData", "scope": ["backend/**"]}),
    );
    assert_matches_output_schema(&tools, "propose_edit", &proposed);
    let id = proposed["patch_id"].as_str().unwrap().to_string();
    assert_eq!(
        proposed["affected_files"],
        json!(["backend/auth.go", "backend/user.go"])
    );
    assert_eq!(proposed["statistics"]["files_scanned"], 2);
    assert_eq!(proposed["diff_truncated"], false);
    assert_eq!(repo.head(), before, "propose touches no branch");
    assert_eq!(repo.status(), "");
    // The same fields as the CLI's --json.
    let cli = repo.evolv(&[
        "propose",
        "--json",
        "-p",
        "getUserData",
        "-r",
        "x",
        "-s",
        "frontend/**",
    ]);
    cli.ok();
    for key in cli.json().as_object().unwrap().keys() {
        assert!(
            proposed.get(key).is_some(),
            "MCP result lacks the CLI's `{key}`"
        );
    }
    let listed = mcp.call_ok("list_proposals", json!({}));
    assert_matches_output_schema(&tools, "list_proposals", &listed);
    assert_eq!(listed["proposals"].as_array().unwrap().len(), 2);
    let shown = mcp.call_ok("show_proposal", json!({"patch_id": id}));
    assert_matches_output_schema(&tools, "show_proposal", &shown);
    assert_eq!(shown["unified_diff"], proposed["unified_diff"]);
    let git_show = repo.git(&["show", "--format=", &format!("refs/evolv/proposals/{id}")]);
    assert!(git_show.contains("+func fetchUserData()"));

    repo.set_config("evolv.validate", "test -f backend/user.go");
    let applied = mcp.call_ok("apply_edit", json!({"patch_id": id}));
    assert_matches_output_schema(&tools, "apply_edit", &applied);
    let landed = applied["commit"].as_str().unwrap();
    assert_eq!(repo.head(), landed);
    assert_eq!(repo.git(&["rev-parse", "HEAD^"]).trim(), before);
    assert_eq!(applied["validation"][0]["exit_code"], 0);
    assert!(repo.read("backend/user.go").contains("fetchUserData"));
    assert_eq!(repo.status(), "");

    let rolled = mcp.call_ok("rollback", json!({"patch_id": id}));
    assert_matches_output_schema(&tools, "rollback", &rolled);
    assert!(repo.read("backend/user.go").contains("getUserData"));
    assert_eq!(repo.git(&["rev-parse", "HEAD^"]).trim(), landed);

    let log = mcp.call_ok("audit_log", json!({"limit": 2}));
    assert_matches_output_schema(&tools, "audit_log", &log);
    assert_eq!(log["entries"][0]["action"], "rollback");
    assert_eq!(log["entries"].as_array().unwrap().len(), 2);

    let dropped = mcp.call_ok("drop_proposal", json!({"patch_id": id}));
    assert_matches_output_schema(&tools, "drop_proposal", &dropped);
    assert!(repo.rev(&format!("refs/evolv/proposals/{id}")).is_none());

    let lint = mcp.call_ok("lint_commit", json!({"message": "feat: add login"}));
    assert_matches_output_schema(&tools, "lint_commit", &lint);
    assert_eq!(lint["success"], true);
    let bad = mcp.call_ok("lint_commit", json!({"message": "added stuff"}));
    assert_eq!(
        bad["success"], false,
        "findings are an answer, not an error"
    );

    repo.write("scratch.txt", "x");
    let check = mcp.call_ok("check_repo", json!({}));
    assert_matches_output_schema(&tools, "check_repo", &check);
    assert_eq!(check["uncommitted"], json!(["scratch.txt"]));
    repo.assert_fsck();
    mcp.finish();
}

#[test]
fn engine_errors_are_tool_results_with_the_cli_message_code_and_hint() {
    let repo = TestRepo::scenario();
    let mut mcp = Mcp::start(&repo);
    let cli = repo.evolv(&["apply", "--json", "invalid_patch"]);
    let e = mcp.call_err("apply_edit", json!({"patch_id": "invalid_patch"}));
    assert_eq!(e["code"], "patch_not_found");
    assert_eq!(e["message"], "Patch 'invalid_patch' not found");
    assert_eq!(e["message"], cli.json()["error"]["message"]);
    assert!(e["hint"].as_str().is_some_and(|h| !h.is_empty()));

    let e = mcp.call_err(
        "propose_edit",
        json!({"pattern": "nothing-like-this", "replacement": "x"}),
    );
    assert_eq!(e["code"], "no_match");
    let cli = repo.evolv(&["propose", "--json", "-p", "nothing-like-this", "-r", "x"]);
    assert_eq!(e["message"], cli.json()["error"]["message"]);

    let id = mcp.call_ok(
        "propose_edit",
        json!({"pattern": "getUserData", "replacement": "f"}),
    )["patch_id"]
        .as_str()
        .unwrap()
        .to_string();
    let other = repo.propose("getUserData", "other", &[]);
    let e = mcp.call_err("rollback", json!({"patch_id": id}));
    assert_eq!(e["code"], "not_applied");

    repo.write("frontend/api.ts", "dirty\n");
    let e = mcp.call_err("apply_edit", json!({"patch_id": id}));
    assert_eq!(e["code"], "dirty_worktree");
    assert_eq!(e["paths"], json!(["frontend/api.ts"]));
    repo.git(&["checkout", "--", "frontend/api.ts"]);

    let head = repo.head();
    repo.set_config("evolv.validate", "echo broken; exit 3");
    let e = mcp.call_err("apply_edit", json!({"patch_id": id}));
    assert_eq!(e["code"], "validation_failed");
    assert!(
        e["validation"][0]["output_tail"]
            .as_str()
            .unwrap()
            .contains("broken")
    );
    assert_eq!(repo.head(), head);

    repo.set_config("evolv.validate", "sleep 5");
    repo.set_config("evolv.timeout", "1");
    let e = mcp.call_err("apply_edit", json!({"patch_id": id}));
    assert_eq!(e["code"], "timeout");
    assert_eq!(repo.head(), head);
    repo.set_config("--unset", "evolv.validate");
    repo.set_config("--unset", "evolv.timeout");

    let plan = json!({"dry_run": false, "rollback": {"strategy": "git_revert"}, "limits": {"max_files": 1}});
    let e = mcp.call_err(
        "apply_edit",
        json!({"patch_id": id, "execution_plan": plan}),
    );
    assert_eq!(e["code"], "constraint_violation");
    let bad_plan = json!({"rollback": {"strategy": "manual"}, "limits": {"max_files": 0}});
    let e = mcp.call_err(
        "apply_edit",
        json!({"patch_id": id, "execution_plan": bad_plan}),
    );
    assert_eq!(e["code"], "invalid_plan");
    assert!(
        e["issues"].as_array().unwrap().len() >= 2,
        "every problem at once: {e}"
    );

    mcp.call_ok("apply_edit", json!({"patch_id": id}));
    let e = mcp.call_err("apply_edit", json!({"patch_id": id}));
    assert_eq!(e["code"], "already_applied");

    let e = mcp.call_err("apply_edit", json!({"patch_id": other}));
    assert_eq!(e["code"], "conflict");
    repo.assert_clean();
}

#[test]
fn unknown_tools_and_malformed_requests_are_32602_and_the_server_survives() {
    let repo = TestRepo::scenario();
    let mut mcp = Mcp::start(&repo);
    let unknown = json!({"name": "no_such_tool", "arguments": {}});
    let r = mcp.request("tools/call", unknown);
    assert_eq!(r["error"]["code"], -32602, "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no_such_tool")
    );
    let r = mcp.request("tools/call", json!({"arguments": {}}));
    assert_eq!(r["error"]["code"], -32602, "no name: {r}");
    let r = mcp.request(
        "tools/call",
        json!({"name": "propose_edit", "arguments": "pattern=x"}),
    );
    assert_eq!(r["error"]["code"], -32602, "arguments not an object: {r}");
    let r = mcp.request("tools/call", json!({"name": 5}));
    assert_eq!(r["error"]["code"], -32602, "name not a string: {r}");
    // Params that are not even an object: rmcp answers "Invalid request"
    // without an id (it cannot tell which request it was).
    mcp.send(&json!({"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": 7}));
    let r = mcp.next_frame();
    assert!(
        [-32600, -32602].contains(&r["error"]["code"].as_i64().unwrap()),
        "{r}"
    );
    // A line that is not JSON at all is dropped; the server keeps going.
    mcp.send_raw("this is not json");
    let listed = mcp.call_ok("list_proposals", json!({}));
    assert_eq!(listed["proposals"], json!([]));
    mcp.finish();
}

#[test]
fn a_bad_argument_names_the_field() {
    let repo = TestRepo::scenario();
    let mut mcp = Mcp::start(&repo);
    let e = mcp.call_err("propose_edit", json!({"replacement": "x"}));
    assert_eq!(e["code"], "invalid_input");
    assert!(e["message"].as_str().unwrap().contains("`pattern`"), "{e}");
    let e = mcp.call_err("propose_edit", json!({"pattern": 5, "replacement": "x"}));
    assert!(e["message"].as_str().unwrap().contains("`pattern`"), "{e}");
    let e = mcp.call_err(
        "propose_edit",
        json!({"pattern": "a", "replacement": "x", "confirm": true}),
    );
    assert!(e["message"].as_str().unwrap().contains("`confirm`"), "{e}");
    let e = mcp.call_err("apply_edit", json!({"patch_id": "p", "execution_plan": {"rollback": {"strategy": "git_revert"}, "limits": {"max_files": "ten"}}}));
    assert!(
        e["message"].as_str().unwrap().contains("limits.max_files"),
        "{e}"
    );
    let e = mcp.call_err(
        "task_output",
        json!({"task_id": "t", "timeout_seconds": -1}),
    );
    assert!(
        e["message"].as_str().unwrap().contains("`timeout_seconds`"),
        "{e}"
    );
    let e = mcp.call_err("apply_edit", json!({}));
    assert!(e["message"].as_str().unwrap().contains("patch_id"), "{e}");
}

#[test]
fn paths_ids_and_client_plan_commands_are_confined() {
    let repo = TestRepo::scenario();
    let mut mcp = Mcp::start(&repo);
    for scope in ["/etc/**", "../**", "backend/../../x", "-rf"] {
        let e = mcp.call_err(
            "propose_edit",
            json!({"pattern": "a", "replacement": "b", "scope": [scope]}),
        );
        assert_eq!(e["code"], "invalid_input", "{scope}: {e}");
        assert!(e["message"].as_str().unwrap().contains("`scope`"), "{e}");
    }
    let e = mcp.call_err("show_proposal", json!({"patch_id": "--all"}));
    assert_eq!(e["code"], "invalid_input");
    let e = mcp.call_err("apply_edit", json!({"patch_id": "-x"}));
    assert_eq!(e["code"], "invalid_input");
    let e = mcp.call_err("show_proposal", json!({"patch_id": "../../HEAD"}));
    assert_eq!(e["code"], "patch_not_found");

    let id = repo.propose("getUserData", "fetchUserData", &[]);
    let marker = repo.home().join("plan-ran");
    let plan = json!({
        "dry_run": false,
        "rollback": {"strategy": "git_revert"},
        "validation": {"expected_outcomes": [format!("touch {}", marker.display())]}
    });
    let head = repo.head();
    let e = mcp.call_err(
        "apply_edit",
        json!({"patch_id": id, "execution_plan": plan}),
    );
    assert_eq!(e["code"], "invalid_input");
    assert_has(str_of(&e["hint"]), "evolv.mcp.allowPlanCommands true");
    assert!(!marker.exists(), "the client's command must not run");
    assert_eq!(repo.head(), head);
    repo.set_config("evolv.mcp.allowPlanCommands", "true");
    mcp.call_ok(
        "apply_edit",
        json!({"patch_id": id, "execution_plan": plan}),
    );
    assert!(marker.exists(), "allowed: the plan's command ran");
    assert_ne!(repo.head(), head);
}

#[test]
fn stdout_carries_only_frames_even_when_validation_writes_to_it() {
    let repo = TestRepo::scenario();
    // A validation that writes to stdout and reads stdin: neither may reach
    // the protocol stream (the harness fails on any non-JSON line).
    repo.set_config("evolv.validate", "echo NOT-JSON; cat; git --version");
    let mut mcp = Mcp::start(&repo);
    let id = repo.propose("getUserData", "fetchUserData", &[]);
    let applied = mcp.call_ok("apply_edit", json!({"patch_id": id}));
    assert!(
        applied["validation"][0]["output_tail"]
            .as_str()
            .unwrap()
            .contains("NOT-JSON")
    );
    let listed = mcp.call_ok("list_proposals", json!({}));
    assert_eq!(listed["proposals"][0]["status"], "applied");
    mcp.finish();
}

#[test]
fn large_diffs_are_capped_with_a_flag_and_full_statistics() {
    let body: String = (0..1000)
        .map(|i| format!("line {i} getUserData\n"))
        .collect();
    let repo = TestRepo::with_files(&[("big.txt", &body)]);
    let mut mcp = Mcp::start(&repo);
    let r = mcp.call_ok(
        "propose_edit",
        json!({"pattern": "getUserData", "replacement": "x", "max_diff_bytes": 1000}),
    );
    assert_eq!(r["diff_truncated"], true);
    assert!(r["unified_diff"].as_str().unwrap().len() <= 1000);
    assert!(r["diff_total_bytes"].as_u64().unwrap() > 30_000);
    assert_eq!(r["statistics"]["total_changes"], 1000);
    assert_eq!(r["statistics"]["lines_added"], 1000);
    let id = r["patch_id"].as_str().unwrap();
    let shown = mcp.call_ok("show_proposal", json!({"patch_id": id}));
    assert_eq!(
        shown["diff_truncated"], false,
        "64 KiB by default: {}",
        shown["diff_total_bytes"]
    );
    let capped = mcp.call_ok(
        "show_proposal",
        json!({"patch_id": id, "max_diff_bytes": 65}),
    );
    assert_eq!(capped["diff_truncated"], true);
    assert!(capped["unified_diff"].as_str().unwrap().len() <= 65);
    // The whole patch stays in git.
    let full = repo.git(&["show", "--format=", &format!("refs/evolv/proposals/{id}")]);
    assert_eq!(full.matches("\n+line").count(), 1000);
}

#[test]
fn edit_lists_and_notebook_cells_are_proposed_with_structured_results() {
    let notebook = r#"{"cells": [{"cell_type": "code", "execution_count": null, "id": "c1", "metadata": {}, "outputs": [], "source": ["print(1)"]}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
"#;
    let repo = TestRepo::with_files(&[("src/a.py", "x = 1\ny = 2\n"), ("nb.ipynb", notebook)]);
    let head = repo.head();
    let mut mcp = Mcp::start(&repo);
    let tools = mcp.tools();
    let r = mcp.call_ok(
        "edit",
        json!({"message": "tweak", "edits": [
            {"op": "replace", "path": "src/a.py", "old": "y = 2", "new": "y = 3"},
            {"op": "write", "path": "src/new.py", "content": "z = 0\n"}
        ]}),
    );
    assert_matches_output_schema(&tools, "edit", &r);
    assert_eq!(r["statistics"]["edits_applied"], 2);
    assert_eq!(r["files"].as_array().unwrap().len(), 2);
    assert_eq!(r["diff_truncated"], false);
    let id = r["patch_id"].as_str().unwrap().to_string();
    assert_eq!(repo.head(), head, "edit touches no branch");
    assert_eq!(repo.status(), "");
    let shown = repo.git(&["show", &format!("refs/evolv/proposals/{id}:src/a.py")]);
    assert_eq!(shown, "x = 1\ny = 3\n");

    let e = mcp.call_err(
        "edit",
        json!({"edits": [{"op": "replace", "path": "src/a.py", "old": "nope", "new": "qqq"}]}),
    );
    assert_eq!(e["code"], "no_match", "{e}");
    let e = mcp.call_err(
        "edit",
        json!({"edits": [{"op": "replace", "path": "src/a.py", "new": "x"}]}),
    );
    assert_eq!(e["code"], "invalid_input");
    assert!(
        e["message"].as_str().unwrap().contains("edits[0]")
            && e["message"].as_str().unwrap().contains("`old`"),
        "{e}"
    );
    let e = mcp.call_err(
        "edit",
        json!({"edits": [{"op": "write", "path": "../outside", "content": "x"}]}),
    );
    assert_eq!(e["code"], "invalid_input", "{e}");
    let e = mcp.call_err(
        "edit",
        json!({"edits": [{"op": "write", "path": "/etc/passwd", "content": "x"}]}),
    );
    assert_eq!(e["code"], "invalid_input", "{e}");

    let nb = mcp.call_ok(
        "notebook_edit",
        json!({"path": "nb.ipynb", "mode": "replace", "cell_id": "c1", "source": "print(2)"}),
    );
    assert_matches_output_schema(&tools, "notebook_edit", &nb);
    let nb_id = nb["patch_id"].as_str().unwrap();
    let stored = repo.git(&["show", &format!("refs/evolv/proposals/{nb_id}:nb.ipynb")]);
    assert!(stored.contains("print(2)"), "{stored}");
    let e = mcp.call_err(
        "notebook_edit",
        json!({"path": "nb.ipynb", "mode": "sideways"}),
    );
    assert!(e["message"].as_str().unwrap().contains("`mode`"), "{e}");

    let applied = mcp.call_ok("apply_edit", json!({"patch_ids": [id]}));
    assert_eq!(repo.head(), applied["commit"].as_str().unwrap());
    assert_eq!(repo.read("src/new.py"), "z = 0\n");
    let words = mcp.call_ok(
        "show_proposal",
        json!({"patch_id": nb_id, "word_diff": true}),
    );
    assert_matches_output_schema(&tools, "show_proposal", &words);
    assert!(
        words["word_diff"].as_str().unwrap().contains("{+"),
        "{words}"
    );
    repo.assert_fsck();
}

#[test]
fn read_file_and_glob_read_the_repository_with_line_numbers_and_confined_paths() {
    let repo = TestRepo::scenario();
    std::os::unix::fs::symlink("/etc", repo.file("etc-link")).unwrap();
    repo.commit_all("a symlink");
    let mut mcp = Mcp::start(&repo);
    let tools = mcp.tools();
    let r = mcp.call_ok("read_file", json!({"path": "backend/user.go"}));
    assert_matches_output_schema(&tools, "read_file", &r);
    assert_eq!(r["total_lines"], 2);
    assert_eq!(
        r["numbered"],
        "     1\tpackage main\n     2\tfunc getUserData() string { return \"user\" }\n"
    );
    let id = repo.propose("getUserData", "fetchUserData", &[]);
    let r = mcp.call_ok(
        "read_file",
        json!({"path": "backend/user.go", "patch_id": id, "start_line": 2}),
    );
    assert_eq!(r["start_line"], 2);
    assert!(
        r["content"]
            .as_str()
            .unwrap()
            .starts_with("func fetchUserData()"),
        "{r}"
    );
    for bad in ["/etc/passwd", "../outside", "etc-link/passwd"] {
        let e = mcp.call_err("read_file", json!({"path": bad}));
        assert_eq!(e["code"], "invalid_input", "{bad}: {e}");
    }
    let e = mcp.call_err("read_file", json!({"path": "a", "patch_id": "-x"}));
    assert_eq!(e["code"], "invalid_input");
    let e = mcp.call_err(
        "read_file",
        json!({"path": "backend/user.go", "patch_id": "patch_0_none"}),
    );
    assert_eq!(e["code"], "patch_not_found");

    let g = mcp.call_ok("glob", json!({"pattern": "**/*.go"}));
    assert_matches_output_schema(&tools, "glob", &g);
    let mut paths: Vec<&str> = g["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    paths.sort();
    assert_eq!(paths, ["backend/auth.go", "backend/user.go"]);
    assert_eq!(g["truncated"], false);
    let g = mcp.call_ok(
        "glob",
        json!({"pattern": "*.ts", "path": "frontend", "tracked": true}),
    );
    assert_eq!(g["files"][0]["path"], "api.ts");
    let e = mcp.call_err("glob", json!({"pattern": "*", "path": "../"}));
    assert_eq!(e["code"], "invalid_input");
    let e = mcp.call_err("glob", json!({"pattern": "/etc/*"}));
    assert_eq!(e["code"], "invalid_input");
}
