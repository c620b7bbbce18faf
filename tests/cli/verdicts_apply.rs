//! `apply` and the verdict cache: a test then an apply of the same tree
//! runs the validation once; a cached fail refuses the landing; a run
//! during an apply is stored; `--no-cache` (CLI, MCP) runs again.

use serde_json::Value;

use crate::common::{TestRepo, assert_has, error_code};
use crate::verdicts::runs;

/// `evolv.validate`: counts its runs in `$HOME/runs`, prints `out-<code>`
/// and exits with `code`.
fn validating(repo: &TestRepo, code: i32) {
    let runs = repo.home().join("runs");
    let cmd = format!(
        "echo ran >> {}; echo out-{code}; exit {code}",
        runs.display()
    );
    repo.set_config("evolv.validate", &cmd);
}

fn verdict_refs(repo: &TestRepo) -> usize {
    crate::verdicts::verdict_refs(repo).len()
}

fn applied_verdict(run: &crate::common::Run) -> Value {
    run.stdout_json()["verdict"].clone()
}

#[test]
fn a_tested_proposal_applies_without_running_the_validation_again() {
    let (repo, id) = TestRepo::proposed(&[("a.txt", "one\n")], "one", "two");
    validating(&repo, 0);
    repo.evolv(&["test", &id]).success();
    assert_eq!(runs(&repo), 1);
    let head = repo.head();
    let run = repo.evolv(&["apply", "--json", &id]);
    run.success();
    let v = applied_verdict(&run);
    assert_eq!(v["cached"], true, "{v}");
    assert_eq!(v["status"], "pass");
    assert_eq!(v["source"], "local");
    assert!(v["made_by"].as_str().unwrap().contains('@'), "{v}");
    assert_eq!(runs(&repo), 1, "the cached pass stood for the run");
    assert_eq!(run.stdout_json()["worktree_path"], Value::Null);
    assert_eq!(repo.rev("HEAD~1").unwrap(), head, "it landed");
    assert_eq!(repo.read("a.txt"), "two\n");
    assert_eq!(repo.status(), "");
    repo.assert_fsck();
}

#[test]
fn an_apply_stores_its_verdict_and_no_cache_runs_again() {
    let (repo, id) = TestRepo::proposed(&[("a.txt", "one\n")], "one", "two");
    validating(&repo, 0);
    let run = repo.evolv(&["apply", "--json", &id, "--dry-run"]);
    run.success();
    assert_eq!(applied_verdict(&run)["cached"], false);
    assert_eq!(runs(&repo), 1);
    assert_eq!(verdict_refs(&repo), 1, "the apply's run is stored");
    // `git evolv test` of the proposal now hits the apply's verdict.
    let tested = repo.evolv(&["test", "--json", &id]);
    tested.success();
    assert_eq!(tested.stdout_json()["verdicts"][0]["cached"], true);
    assert_eq!(runs(&repo), 1);
    let human = repo.evolv(&["apply", &id, "--dry-run"]);
    human.success();
    assert_has(&human.stdout, "cached pass, made ");
    assert_eq!(runs(&repo), 1);
    let forced = repo.evolv(&["apply", "--json", &id, "--no-cache"]);
    forced.success();
    assert_eq!(applied_verdict(&forced)["cached"], false);
    assert_eq!(runs(&repo), 2, "--no-cache ran the validation");
    assert_eq!(verdict_refs(&repo), 1, "the same key, stored once");
    assert_eq!(repo.read("a.txt"), "two\n");
    repo.assert_fsck();
}

#[test]
fn a_cached_fail_refuses_the_landing_with_its_output_until_no_cache() {
    let (repo, id) = TestRepo::proposed(&[("a.txt", "one\n")], "one", "two");
    validating(&repo, 3);
    repo.evolv(&["test", &id]).code(1);
    assert_eq!(runs(&repo), 1);
    let head = repo.head();
    let run = repo.evolv(&["apply", "--json", &id]);
    run.code(1);
    assert_eq!(error_code(&run), "validation_failed");
    let error = &run.json()["error"];
    assert_has(
        error["message"].as_str().unwrap(),
        "a cached verdict, made ",
    );
    assert_has(error["hint"].as_str().unwrap(), "--no-cache");
    assert_has(&run.stdout, "out-3");
    assert_eq!(runs(&repo), 1, "the cached fail ran nothing");
    assert_eq!(repo.head(), head, "nothing landed");
    let human = repo.evolv(&["apply", &id]);
    human.code(1);
    assert_has(&human.stderr, "cached verdict");
    // --no-cache runs it: the code was fixed outside the tree meanwhile.
    validating(&repo, 0);
    let forced = repo.evolv(&["apply", "--json", &id, "--no-cache"]);
    forced.success();
    assert_eq!(runs(&repo), 2);
    assert_eq!(repo.rev("HEAD~1").unwrap(), head);
    assert_eq!(repo.status(), "");
    repo.assert_fsck();
}

/// MCP `apply_edit` reports the cached verdict and takes `no_cache`.
#[test]
fn mcp_apply_edit_reuses_verdicts_and_takes_no_cache() {
    use crate::mcp_client::{Mcp, assert_matches_output_schema};
    let (repo, id) = TestRepo::proposed(&[("a.txt", "one\n")], "one", "two");
    validating(&repo, 0);
    let mut mcp = Mcp::start(&repo);
    let tools = mcp.tools();
    mcp.call_ok("test", serde_json::json!({"targets": [id]}));
    let dry = mcp.call_ok(
        "apply_edit",
        serde_json::json!({"patch_id": id, "dry_run": true}),
    );
    assert_matches_output_schema(&tools, "apply_edit", &dry);
    assert_eq!(dry["verdict"]["cached"], true, "{dry}");
    assert_eq!(runs(&repo), 1);
    let landed = mcp.call_ok(
        "apply_edit",
        serde_json::json!({"patch_id": id, "no_cache": true}),
    );
    assert_eq!(landed["verdict"]["cached"], false);
    assert_eq!(runs(&repo), 2);
    assert_eq!(repo.read("a.txt"), "two\n");
}
