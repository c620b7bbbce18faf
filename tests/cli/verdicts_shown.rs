//! The stored verdict of `evolv.validate` on a proposal's tree, in `list`,
//! `show`, MCP `show_proposal` and the review page's API: its state, when,
//! where, and that it is cached. Only the configured command's verdict on
//! that exact tree counts.

use serde_json::Value;

use crate::common::{TestRepo, assert_has, assert_lacks, listed};
use crate::web_client::Server;

fn tested_and_untested() -> (TestRepo, String, String) {
    let repo = TestRepo::with_files(&[("a.txt", "one\n"), ("b.txt", "uno\n")]);
    let tested = repo.propose("one", "two", &[]);
    let untested = repo.propose("uno", "dos", &[]);
    repo.set_config("evolv.validate", "grep -q two a.txt");
    repo.evolv(&["test", &tested]).success();
    (repo, tested, untested)
}

fn assert_cached_pass(v: &Value) {
    assert_eq!(v["status"], "pass", "{v}");
    assert_eq!(v["cached"], true);
    assert_eq!(v["source"], "local");
    assert_eq!(v["command"], "grep -q two a.txt");
    assert!(v["made_at"].as_i64().unwrap() > 0);
    assert!(v["made_by"].as_str().unwrap().contains('@'));
}

#[test]
fn list_and_show_carry_the_verdict_of_the_proposal_tree() {
    let (repo, tested, untested) = tested_and_untested();
    let list = repo.evolv(&["list", "--json"]).json();
    assert_cached_pass(&listed(&list, &tested)["verdict"]);
    assert!(listed(&list, &untested).get("verdict").is_none(), "{list}");
    let show = repo.evolv(&["show", "--json", &tested]).json();
    assert_cached_pass(&show["verdict"]);
    let human = repo.evolv(&["list"]);
    let line = human.stdout.lines().find(|l| l.contains(&tested)).unwrap();
    assert_has(line, "[pass, cached]");
    let line = human
        .stdout
        .lines()
        .find(|l| l.contains(&untested))
        .unwrap();
    assert_lacks(line, "cached");
    let human = repo.evolv(&["show", &tested]);
    assert_has(
        &human.stdout,
        "verdict: pass, cached (`grep -q two a.txt`, exit 0, made ",
    );
    // Another command is another key: that verdict is not this one's.
    repo.set_config("evolv.validate", "grep -q two a.txt ");
    let list = repo.evolv(&["list", "--json"]).json();
    assert!(listed(&list, &tested).get("verdict").is_none(), "{list}");
}

#[test]
fn show_proposal_and_the_review_page_carry_the_verdict() {
    use crate::mcp_client::{Mcp, assert_matches_output_schema};
    let (repo, tested, untested) = tested_and_untested();
    let mut mcp = Mcp::start(&repo);
    let tools = mcp.tools();
    let shown = mcp.call_ok("show_proposal", serde_json::json!({"patch_id": tested}));
    assert_matches_output_schema(&tools, "show_proposal", &shown);
    assert_cached_pass(&shown["verdict"]);
    let server = Server::start(&repo);
    let list = server.get("/api/proposals");
    assert_eq!(list.status, 200, "{}", list.body);
    assert_cached_pass(&listed(&list.json(), &tested)["verdict"]);
    let page = server.get(&format!("/api/proposals/{tested}"));
    assert_cached_pass(&page.json()["verdict"]);
    let page = server.get(&format!("/api/proposals/{untested}"));
    assert!(page.json().get("verdict").is_none());
}
