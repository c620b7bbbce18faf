//! `git evolv mcp`: the tool arguments that mirror CLI flags
//! (`include_filtered` = `propose --include-filtered`, `force` = `rollback
//! --force`, `all_above` = `drop --all-above`): in the schema, and with the
//! CLI's results and messages.

use serde_json::{Value, json};

use super::common::TestRepo;
use super::mcp_client::{Mcp, assert_matches_output_schema};

/// `tools/list`'s input schema property `field` of `tool`.
fn property(tools: &[Value], tool: &str, field: &str) -> Value {
    let t = tools.iter().find(|t| t["name"] == tool).unwrap();
    t["inputSchema"]["properties"][field].clone()
}

#[track_caller]
fn assert_documented_flag(tools: &[Value], tool: &str, field: &str, flag: &str) {
    let p = property(tools, tool, field);
    assert_eq!(p["type"], "boolean", "{tool}.{field}: {p}");
    assert_eq!(p["default"], false, "{tool}.{field}: {p}");
    let text = p["description"].as_str().unwrap_or_default();
    assert!(text.contains(flag), "{tool}.{field} names {flag}: {text}");
}

#[test]
fn include_filtered_edits_what_git_does_not_treat_as_text_as_the_cli_does() {
    let repo = TestRepo::with_files(&[
        (".gitattributes", "*.raw -text\n*.pointer filter=lfs\n"),
        ("plain.txt", "old\n"),
        ("data.raw", "old\n"),
        ("big.pointer", "old\n"),
    ]);
    let mut mcp = Mcp::start(&repo);
    let tools = mcp.tools();
    assert_documented_flag(
        &tools,
        "propose_edit",
        "include_filtered",
        "--include-filtered",
    );
    let skipped = mcp.call_ok(
        "propose_edit",
        json!({"pattern": "old", "replacement": "new"}),
    );
    assert_eq!(skipped["affected_files"], json!(["plain.txt"]));
    assert_eq!(skipped["statistics"]["filtered_skipped"], 2);
    let cli = repo.evolv(&["propose", "--json", "-p", "old", "-r", "new"]);
    assert_eq!(cli.json()["statistics"], skipped["statistics"]);

    let all = mcp.call_ok(
        "propose_edit",
        json!({"pattern": "old", "replacement": "new", "include_filtered": true}),
    );
    assert_matches_output_schema(&tools, "propose_edit", &all);
    assert_eq!(
        all["affected_files"],
        json!(["big.pointer", "data.raw", "plain.txt"])
    );
    assert_eq!(all["statistics"]["filtered_skipped"], 0);
    let cli = repo.propose_run("old", "new", &["--include-filtered"]);
    assert_eq!(cli.json()["statistics"], all["statistics"]);
    assert_eq!(cli.json()["affected_files"], all["affected_files"]);
    let id = all["patch_id"].as_str().unwrap();
    let files = repo.git(&[
        "diff",
        "--name-only",
        "HEAD",
        &format!("refs/evolv/proposals/{id}"),
    ]);
    assert_eq!(files, "big.pointer\ndata.raw\nplain.txt\n");
    assert_eq!(repo.status(), "");
    mcp.finish();
}

#[test]
fn force_lets_a_file_backup_rollback_undo_later_commits_as_the_cli_does() {
    let repo = TestRepo::with_files(&[("f", "a\nb\n")]);
    let id = repo.propose("a", "A", &[]);
    repo.apply_with_file_backup(&id);
    let later = repo.propose("b", "B", &[]);
    repo.evolv(&["apply", &later]).ok();
    let head = repo.head();
    let mut mcp = Mcp::start(&repo);
    let tools = mcp.tools();
    assert_documented_flag(&tools, "rollback", "force", "--force");

    let refused = mcp.call_err("rollback", json!({"patch_id": id}));
    let cli = repo.evolv(&["rollback", "--json", &id]);
    assert_eq!(cli.code, 1);
    assert_eq!(refused["code"], "later_changes");
    assert_eq!(refused["message"], cli.json()["error"]["message"]);
    assert_eq!(refused["hint"], cli.json()["error"]["hint"]);
    assert_eq!(repo.head(), head, "refused: nothing moved");
    assert_eq!(repo.read("f"), "A\nB\n");

    let done = mcp.call_ok("rollback", json!({"patch_id": id, "force": true}));
    assert_matches_output_schema(&tools, "rollback", &done);
    assert_eq!(done["strategy"], "file_backup");
    let undone = done["undone_commits"].as_array().unwrap();
    assert_eq!(undone.len(), 1, "{done}");
    assert!(undone[0].as_str().unwrap().starts_with(&head[..12]));
    assert_eq!(repo.read("f"), "a\nb\n");
    assert_eq!(repo.git(&["rev-parse", "HEAD^"]).trim(), head);
    repo.assert_clean();
    mcp.finish();
}

#[test]
fn all_above_drops_a_stack_as_the_cli_does() {
    let repo = TestRepo::with_files(&[("f", "one\ntwo\n")]);
    let mut mcp = Mcp::start(&repo);
    let tools = mcp.tools();
    assert_documented_flag(&tools, "drop_proposal", "all_above", "--all-above");
    let low = repo.propose("one", "1", &[]);
    let high = mcp.call_ok(
        "edit",
        json!({"onto": low, "edits": [{"path": "f", "op": "replace", "old": "two", "new": "2"}]}),
    );
    let high = high["patch_id"].as_str().unwrap().to_string();

    let refused = mcp.call_err("drop_proposal", json!({"patch_id": low}));
    let cli = repo.evolv(&["drop", "--json", &low]);
    assert_eq!(refused["code"], cli.json()["error"]["code"]);
    assert_eq!(refused["message"], cli.json()["error"]["message"]);
    assert!(repo.rev(&format!("refs/evolv/proposals/{low}")).is_some());

    let dropped = mcp.call_ok("drop_proposal", json!({"patch_id": low, "all_above": true}));
    assert_matches_output_schema(&tools, "drop_proposal", &dropped);
    let mut ids: Vec<&str> = dropped["dropped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    ids.sort();
    let mut want = vec![low.as_str(), high.as_str()];
    want.sort();
    assert_eq!(ids, want);
    assert_eq!(repo.git(&["for-each-ref", "refs/evolv/proposals/"]), "");
    mcp.finish();
}

#[test]
fn read_file_and_glob_refuse_bad_ranges_and_paths_with_the_cli_message() {
    let repo = TestRepo::with_files(&[("f", "1\n2\n3\n4\n5\n"), ("d/g", "x\n")]);
    let mut mcp = Mcp::start(&repo);
    let e = mcp.call_err(
        "read_file",
        json!({"path": "f", "start_line": 4, "end_line": 2}),
    );
    let cli = repo.evolv(&["cat", "--json", "HEAD", "f", "--lines", "4:2"]);
    assert_eq!(cli.code, 2);
    let want = &cli.json()["error"];
    assert_eq!(e["code"], "invalid_input");
    assert_eq!(e["message"], want["message"]);
    assert_eq!(
        e["message"],
        "invalid input: lines 4:2 is not a range of lines"
    );
    assert_eq!(
        want["hint"],
        "give A:B with 1 <= A <= B (on the command line: --lines)"
    );

    // A file where a directory belongs (a missing one is the CLI's own
    // error: its --path is relative to the current directory).
    let e = mcp.call_err("glob", json!({"pattern": "*", "path": "f"}));
    let cli = repo.evolv(&["glob", "--json", "*", "--path", "f"]);
    assert_eq!(cli.code, 2);
    assert_eq!(e["message"], cli.json()["error"]["message"]);
    assert_eq!(
        e["message"],
        "invalid input: path f is not a directory of the working tree"
    );
    mcp.finish();
}
