//! The review page's op log and undo button (issue 26 item 6): the same
//! `op log` and `undo` the CLI runs, behind the page's auth and CSRF
//! rules, checked with git afterwards.

use serde_json::Value;

use crate::common::TestRepo;
use crate::undo::{newest, refs};
use crate::web_client::Server;

#[test]
fn the_page_lists_the_op_log_and_undoes_a_propose_after_a_dry_run() {
    let (repo, id) = TestRepo::scenario_proposed(&[]);
    let proposal = format!("refs/evolv/proposals/{id}");
    let op = newest(&repo);
    let before = refs(&repo);
    let server = Server::start(&repo);

    let log = server.get("/api/ops?n=5").json();
    let cli = repo.evolv(&["op", "log", "-n", "5", "--json"]).ok().json();
    assert_eq!(log, cli, "the page and the CLI render the same outcome");
    assert_eq!(log["operations"][0]["kind"], "propose");

    // The dry run the page shows in its confirmation changes nothing.
    let path = format!("/api/ops/{op}/undo");
    let preview = server.post(&path, r#"{"dry_run":true}"#);
    assert_eq!(preview.status, 200, "{}", preview.body);
    let preview = preview.json();
    assert_eq!(preview["undone"][0]["refs"][0]["ref"], proposal.as_str());
    assert_eq!(refs(&repo), before);
    assert_eq!(newest(&repo), op);

    let done = server.post(&path, "{}");
    assert_eq!(done.status, 200, "{}", done.body);
    let done: Value = done.json();
    assert_eq!(done["undone"][0]["op"], op.as_str());
    assert_eq!(repo.rev(&proposal), None, "the proposal ref is gone");
    let undo = &server.get("/api/ops?n=1").json()["operations"][0];
    assert_eq!(undo["kind"], "undo");
    assert_eq!(undo["actor"], "web");
    assert_eq!(undo["undoes"], op.as_str());

    // Undoing it twice is the CLI's refusal, as JSON with its code.
    let again = server.post(&path, "{}");
    assert_eq!(again.status, 409, "{}", again.body);
    assert_eq!(again.json()["error"]["code"], "not_undoable");
    repo.assert_fsck();
}

#[test]
fn undo_from_the_page_needs_the_session_and_the_pages_origin() {
    let (repo, _) = TestRepo::scenario_proposed(&[]);
    let op = newest(&repo);
    let before = refs(&repo);
    let server = Server::start(&repo);
    let path = format!("/api/ops/{op}/undo");
    // No cookie: 401. A foreign origin: 403. A GET: 405. Not JSON: 415.
    let no_cookie = crate::web_client::request(
        server.port,
        "POST",
        &path,
        &[
            ("Origin", &server.origin()),
            ("Content-Type", "application/json"),
        ],
        "{}",
    );
    assert_eq!(no_cookie.status, 401);
    let cookie = server.cookie.clone();
    let foreign = crate::web_client::request(
        server.port,
        "POST",
        &path,
        &[
            ("Cookie", &cookie),
            ("Origin", "http://evil.example"),
            ("Content-Type", "application/json"),
        ],
        "{}",
    );
    assert_eq!(foreign.status, 403);
    assert_eq!(server.get(&path).status, 405);
    let bad = server.post(&path, r#"{"dry_run":1}"#);
    assert_eq!(bad.status, 400, "{}", bad.body);
    let unknown = server.post("/api/ops/zz/undo", "{}");
    assert_eq!(unknown.status, 400, "{}", unknown.body);
    assert_eq!(refs(&repo), before, "nothing was undone");
    assert_eq!(newest(&repo), op);
}
