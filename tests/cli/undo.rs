//! `git evolv op log`, `op show`, `undo` and `redo` of the operations that
//! move only git-evolv's refs (issue 26): propose, edit, drop, gc,
//! comment. Checked with git: the refs, `git gc --prune=now`, fsck.

use serde_json::Value;

use crate::common::{TestRepo, error_code};
use crate::web_client::Server;

/// The newest `n` operations of the op log, as JSON.
pub fn ops(repo: &TestRepo, n: usize) -> Vec<Value> {
    let log = repo.evolv(&["op", "log", "-n", &n.to_string(), "--json"]);
    log.ok().json()["operations"].as_array().unwrap().clone()
}

/// The id of the newest operation.
pub fn newest(repo: &TestRepo) -> String {
    ops(repo, 1)[0]["id"].as_str().unwrap().to_string()
}

/// Every ref under `refs/evolv/` but the log and the kept objects, and
/// the branches: what an undo must put back exactly.
pub fn refs(repo: &TestRepo) -> String {
    repo.git(&["for-each-ref", "--format=%(refname) %(objectname)"])
        .lines()
        .filter(|l| !l.starts_with("refs/evolv/audit ") && !l.starts_with("refs/evolv/kept/"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn op_log_lists_kind_time_actor_refs_and_paths_in_the_issue_shape() {
    let (repo, id) = TestRepo::scenario_proposed(&[]);
    let commit = repo.rev(&format!("refs/evolv/proposals/{id}")).unwrap();
    let op = &ops(&repo, 1)[0];
    let keys: Vec<&str> = ["id", "kind", "time", "actor", "refs", "paths"].to_vec();
    for k in keys {
        assert!(op.get(k).is_some(), "{k} missing: {op}");
    }
    assert_eq!(op["kind"], "propose");
    assert_eq!(op["actor"], "cli");
    assert_eq!(
        op["refs"],
        serde_json::json!([{"ref": format!("refs/evolv/proposals/{id}"), "old": null, "new": commit}])
    );
    assert!(op["time"].as_str().unwrap().ends_with('Z'), "{op}");
    // op show takes a unique prefix and answers the same object.
    let prefix = &op["id"].as_str().unwrap()[..8];
    let show = repo.evolv(&["op", "show", prefix, "--json"]).ok().json();
    assert_eq!(&show, op);
    let missing = repo.evolv(&["op", "show", "dead", "--json"]);
    assert_eq!(
        (missing.code, error_code(&missing).as_str()),
        (2, "op_not_found")
    );
    let bad = repo.evolv(&["op", "show", "zz", "--json"]);
    assert_eq!((bad.code, error_code(&bad).as_str()), (2, "invalid_input"));
    // The human listing names the kind and actor; the end is said.
    let text = repo.evolv(&["op", "log"]);
    text.ok();
    assert!(text.stdout.contains("propose") && text.stdout.contains("cli"));
    assert!(
        text.stderr.contains("the log starts here"),
        "{}",
        text.stderr
    );
}

#[test]
fn records_of_earlier_versions_are_listed_and_their_undo_is_refused() {
    let repo = TestRepo::scenario();
    // A record as versions before the op log wrote it: no refs, no actor.
    let old = r#"{"action":"drop","patch_id":"patch_1_aa","success":true,"timestamp":1700000000}"#;
    let tree = repo.git(&["hash-object", "-t", "tree", "/dev/null"]);
    let rec = repo.git(&["commit-tree", tree.trim(), "-m", old]);
    repo.git(&["update-ref", "refs/evolv/audit", rec.trim()]);
    // Unmarked (issue 38): listed apart from this clone's operations.
    let log = repo.evolv(&["op", "log", "-n", "5", "--json"]).ok().json();
    assert_eq!(log["operations"], serde_json::json!([]), "{log}");
    let op = &log["foreign"][0];
    assert!(
        op["foreign"].as_str().unwrap().contains("not marked"),
        "{op}"
    );
    assert_eq!(
        (op["kind"].as_str(), op["derived"].as_bool()),
        (Some("drop"), Some(true))
    );
    assert_eq!(op["actor"], Value::Null);
    let run = repo.evolv(&["undo", &rec.trim()[..10], "--json"]);
    assert_eq!((run.code, error_code(&run).as_str()), (1, "not_undoable"));
    assert!(
        run.error_message().contains("earlier version"),
        "{}",
        run.stderr
    );
}

#[test]
fn undo_and_redo_of_a_propose_remove_and_restore_the_proposal_ref() {
    let (repo, id) = TestRepo::scenario_proposed(&[]);
    let before = refs(&repo);
    let proposed = newest(&repo);
    let dry = repo.evolv(&["undo", "--dry-run", "--json"]).ok().json();
    assert_eq!(dry["undone"][0]["refs"][0]["new"], Value::Null);
    assert_eq!(refs(&repo), before, "a dry run changes nothing");
    let undo = repo.evolv(&["undo", "--json"]).ok().json();
    assert_eq!(undo["undone"][0]["op"], proposed.as_str());
    assert_eq!(undo["undone"][0]["kind"], "undo");
    assert!(repo.rev(&format!("refs/evolv/proposals/{id}")).is_none());
    // Kept reachable: a redo works after git's most aggressive prune.
    repo.git(&["gc", "-q", "--prune=now"]);
    let redo = repo.evolv(&["redo", "--json"]).ok().json();
    assert_eq!(redo["undone"][0]["kind"], "redo");
    assert_eq!(refs(&repo), before);
    repo.evolv(&["show", &id]).ok();
    let kinds: Vec<String> = ops(&repo, 3)
        .iter()
        .map(|o| o["kind"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(kinds, ["redo", "undo", "propose"]);
    repo.assert_fsck();
}

#[test]
fn undo_of_an_undo_is_a_redo_and_an_undone_operation_is_not_undone_twice() {
    let (repo, id) = TestRepo::scenario_proposed(&[]);
    let proposed = newest(&repo);
    repo.evolv(&["undo"]).ok();
    let again = repo.evolv(&["undo", &proposed, "--json"]);
    assert_eq!(
        (again.code, error_code(&again).as_str()),
        (1, "not_undoable")
    );
    // `undo` alone now takes the undo: a redo.
    let redo = repo.evolv(&["undo", "--json"]).ok().json();
    assert_eq!(redo["undone"][0]["kind"], "redo");
    assert!(repo.rev(&format!("refs/evolv/proposals/{id}")).is_some());
    let nothing = repo.evolv(&["redo", "--json"]);
    assert_eq!(
        (nothing.code, error_code(&nothing).as_str()),
        (1, "nothing_to_undo")
    );
}

#[test]
fn undo_of_a_drop_brings_back_every_ref_with_its_comments_after_gc_prune() {
    let (repo, id) = TestRepo::scenario_proposed(&[]);
    repo.evolv(&["apply", &id]).ok();
    let before = refs(&repo);
    repo.evolv(&["drop", &id]).ok();
    let dropped = &ops(&repo, 1)[0];
    assert_eq!(dropped["kind"], "drop");
    let names: Vec<&str> = dropped["refs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["ref"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&format!("refs/evolv/proposals/{id}").as_str()),
        "{names:?}"
    );
    repo.git(&["reflog", "expire", "--expire=now", "--all"]);
    repo.git(&["gc", "-q", "--prune=now"]);
    let dry = repo.evolv(&["undo", "--dry-run"]).ok().stdout.clone();
    assert!(dry.contains(&format!("refs/evolv/proposals/{id}")), "{dry}");
    repo.evolv(&["undo"]).ok();
    assert_eq!(refs(&repo), before);
    repo.evolv(&["show", &id]).ok();
    repo.assert_fsck();
}

#[test]
fn undo_of_gc_restores_the_old_proposals_and_gc_prunes_kept_refs_after_14_days() {
    let repo = TestRepo::scenario();
    let old = repo.evolv_env(
        &["propose", "--json", "-p", "getUserData", "-r", "x"],
        &[("GIT_EVOLV_TEST_TIME", "1000000000")],
    );
    let id = old.ok().json()["patch_id"].as_str().unwrap().to_string();
    repo.evolv(&["gc", "--older-than", "1"]).ok();
    assert_eq!(ops(&repo, 1)[0]["kind"], "gc");
    assert!(repo.rev(&format!("refs/evolv/proposals/{id}")).is_none());
    repo.git(&["gc", "-q", "--prune=now"]);
    repo.evolv(&["undo"]).ok();
    assert!(repo.rev(&format!("refs/evolv/proposals/{id}")).is_some());
    // The undo put back exactly what gc moved: the proposal, and the kept
    // refs gc had made gone with it (issue 39 item 1).
    let kept = || {
        repo.git(&["for-each-ref", "refs/evolv/kept/"])
            .lines()
            .count()
    };
    assert_eq!(kept(), 0);
    // A drop keeps it again; 15 days on, gc removes what was kept (nothing
    // else).
    let other = repo.propose("getUserData", "y", &[]);
    repo.evolv(&["drop", &other]).ok();
    assert!(kept() > 0);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let later = (now + 15 * 86_400).to_string();
    repo.evolv_env(
        &["gc", "--worktrees"],
        &[("GIT_EVOLV_TEST_TIME", later.as_str())],
    )
    .ok();
    assert_eq!(kept(), 0);
    assert!(repo.rev(&format!("refs/evolv/proposals/{id}")).is_some());
}

#[test]
fn undo_of_a_ref_moved_since_is_refused_naming_the_ref() {
    let (repo, id) = TestRepo::scenario_proposed(&[]);
    let proposed = newest(&repo);
    let name = format!("refs/evolv/proposals/{id}");
    repo.git(&["update-ref", &name, "HEAD"]);
    let run = repo.evolv(&["undo", &proposed, "--json"]);
    assert_eq!((run.code, error_code(&run).as_str()), (1, "undo_conflict"));
    assert!(run.error_message().contains(&name), "{}", run.stderr);
    assert_eq!(repo.rev(&name), Some(repo.head()), "nothing changed");
}

#[test]
fn an_edit_and_a_comment_from_the_page_are_logged_and_undone() {
    let (repo, id) = TestRepo::scenario_proposed(&[]);
    let server = Server::start(&repo);
    let body = serde_json::json!({
        "body": "rename it", "quote": "fetchUserData",
        "locator": {"path": "backend/user.go", "side": "new",
                    "start_line": 2, "start_col": 6, "end_line": 2, "end_col": 19}});
    let r = server.post(&format!("/api/proposals/{id}/comments"), &body.to_string());
    assert_eq!(r.status, 201, "{}", r.body);
    let op = &ops(&repo, 1)[0];
    assert_eq!(
        (op["kind"].as_str(), op["actor"].as_str()),
        (Some("comment"), Some("web"))
    );
    repo.evolv(&["undo", op["id"].as_str().unwrap()]).ok();
    assert!(repo.rev(&format!("refs/evolv/comments/{id}")).is_none());
    repo.evolv(&["redo"]).ok();
    let show = repo.evolv(&["show", "--json", &id]).ok().json();
    assert_eq!(show["comments"].as_array().unwrap().len(), 1);
    drop(server);
    let edit = repo.evolv(&[
        "propose",
        "--json",
        "--file",
        "frontend/api.ts",
        "--old",
        "data",
        "--new",
        "d",
    ]);
    let eid = edit.ok().json()["patch_id"].as_str().unwrap().to_string();
    assert_eq!(ops(&repo, 1)[0]["kind"], "edit");
    repo.evolv(&["undo"]).ok();
    assert!(repo.rev(&format!("refs/evolv/proposals/{eid}")).is_none());
    repo.assert_fsck();
}

/// The ids of a drop or gc operation.
fn op_ids(op: &Value) -> Vec<&str> {
    let ids = op["patch_ids"].as_array().unwrap_or_else(|| panic!("{op}"));
    ids.iter().map(|v| v.as_str().unwrap()).collect()
}

#[test]
fn a_drop_or_gc_of_several_is_one_operation_and_one_undo_brings_them_all_back() {
    let (repo, a) = TestRepo::scenario_proposed(&[]);
    repo.evolv(&["apply", &a]).ok();
    let b = repo.propose("fetchUserData", "loadUserData", &[]);
    let c = repo.propose("fetchUserData", "readUserData", &[]);
    let before = refs(&repo);
    let count = || ops(&repo, 1000).len();
    let logged = count();
    repo.evolv(&["drop", &a, &b, &c]).ok();
    assert_eq!(count(), logged + 1, "one operation");
    let drop = &ops(&repo, 1)[0];
    assert_eq!(drop["kind"], "drop");
    assert_eq!(op_ids(drop), [a.as_str(), &b, &c]);
    // a's proposal and applied marker, b's and c's proposals.
    assert!(drop["refs"].as_array().unwrap().len() >= 4, "{drop}");
    let text = repo.evolv(&["op", "log", "-n", "1"]).ok().stdout.clone();
    assert!(text.contains("and 2 more"), "{text}");
    repo.git(&["gc", "-q", "--prune=now"]);
    let undo = repo.evolv(&["undo", "--json"]).ok().json();
    assert_eq!(undo["undone"].as_array().unwrap().len(), 1, "{undo}");
    assert_eq!(refs(&repo), before, "every ref back");
    assert_eq!(count(), logged + 2);
    assert_eq!(op_ids(&ops(&repo, 1)[0]), [a.as_str(), &b, &c]);
    // gc of several: one operation too.
    let old = [("GIT_EVOLV_TEST_TIME", "1000000000")];
    let run =
        |r: &str| repo.evolv_env(&["propose", "--json", "-p", "fetchUserData", "-r", r], &old);
    let d = run("x").ok().json()["patch_id"]
        .as_str()
        .unwrap()
        .to_string();
    let e = run("y").ok().json()["patch_id"]
        .as_str()
        .unwrap()
        .to_string();
    let before = refs(&repo);
    let logged = count();
    repo.evolv(&["gc", "--older-than", "1"]).ok();
    assert_eq!(count(), logged + 1, "one operation");
    let gc = &ops(&repo, 1)[0];
    assert_eq!(
        (gc["kind"].as_str(), op_ids(gc).len()),
        (Some("gc"), 2),
        "{gc}"
    );
    assert!(op_ids(gc).contains(&d.as_str()) && op_ids(gc).contains(&e.as_str()));
    repo.evolv(&["undo"]).ok();
    assert_eq!(refs(&repo), before);
    repo.assert_fsck();
}
