//! Issue 38 items 14 to 16: `undo --to` undoes all or nothing, its dry
//! run shows what the real run does, and a redo says what it did (in its
//! commit, its record and its words).

use serde_json::Value;

use crate::common::{TestRepo, error_code};
use crate::undo::{newest, ops, refs};

#[test]
fn undo_to_that_cannot_undo_every_operation_changes_nothing() {
    let repo = TestRepo::scenario();
    repo.propose("getUserData", "loadUserData", &[]);
    let stop = newest(&repo);
    let a = repo.propose("getUserData", "fetchUserData", &[]);
    let b = repo.propose("getUserData", "readUserData", &[]);
    // a's ref moved by hand since: its undo is refused (undo_conflict).
    repo.git(&["update-ref", &format!("refs/evolv/proposals/{a}"), "HEAD"]);
    let before = refs(&repo);
    let logged = ops(&repo, 100).len();
    let run = repo.evolv(&["undo", "--to", &stop, "--json"]);
    assert_eq!((run.code, error_code(&run).as_str()), (1, "undo_conflict"));
    assert!(
        run.error_hint().contains("nothing was changed"),
        "{}",
        run.stdout
    );
    assert_eq!(refs(&repo), before, "b's proposal is still there");
    assert!(repo.rev(&format!("refs/evolv/proposals/{b}")).is_some());
    assert_eq!(ops(&repo, 100).len(), logged, "no undo was logged");
}

/// The undone operations of an outcome, as the plan and the run must
/// agree on them: the operation, its kind, the method, every ref moved
/// and every path.
fn plan(outcome: &Value) -> Vec<Value> {
    outcome["undone"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| serde_json::json!([u["op"], u["kind"], u["method"], u["refs"], u["paths"]]))
        .collect()
}

#[test]
fn undo_to_dry_run_shows_the_moves_back_the_real_run_makes() {
    let (repo, a) = TestRepo::scenario_proposed(&[]);
    let stop = newest(&repo);
    let h = repo.head();
    repo.evolv(&["apply", &a]).ok();
    let b = repo.propose("fetchUserData", "loadUserData", &[]);
    repo.evolv(&["apply", &b]).ok();
    let dry = repo
        .evolv(&["undo", "--to", &stop, "--dry-run", "--json"])
        .ok()
        .json();
    let methods: Vec<&Value> = dry["undone"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| &u["method"])
        .filter(|m| *m != "refs")
        .collect();
    assert_eq!(methods, ["move_back", "move_back"], "{dry}");
    let real = repo.evolv(&["undo", "--to", &stop, "--json"]).ok().json();
    assert_eq!(plan(&dry), plan(&real));
    assert_eq!(repo.head(), h);
    repo.assert_clean();
}

#[test]
fn a_forward_redo_says_it_moves_the_branch_forward() {
    let (repo, id) = TestRepo::scenario_proposed(&[]);
    repo.evolv(&["apply", &id]).ok();
    let n = repo.head();
    let undo = repo.evolv(&["undo"]).ok().stdout.clone();
    assert!(undo.contains("moving the branch back"), "{undo}");
    let dry = repo.evolv(&["redo", "--dry-run", "--json"]).ok().json();
    assert_eq!(dry["undone"][0]["method"], "move_forward", "{dry}");
    let redo = repo.evolv(&["redo"]).ok().stdout.clone();
    assert!(redo.contains("moving the branch forward"), "{redo}");
    assert!(!redo.contains("moving the branch back"), "{redo}");
    assert_eq!(repo.head(), n);
}

#[test]
fn a_redo_made_as_a_commit_reapplies_the_landing_and_names_only_it() {
    let (repo, id) = TestRepo::scenario_proposed(&[]);
    let h = repo.head();
    repo.evolv(&["apply", &id]).ok();
    let n = repo.head();
    let landed = repo
        .git(&["log", "-1", "--format=%s", &n])
        .trim()
        .to_string();
    repo.evolv(&["undo"]).ok();
    repo.write("later.txt", "later\n");
    let later = repo.commit_all("later work");
    let redo = repo.evolv(&["redo", "--json"]).ok().json();
    let u = &redo["undone"][0];
    assert_eq!(
        (u["kind"].as_str(), u["method"].as_str()),
        (Some("redo"), Some("reapply")),
        "{u}"
    );
    let message = repo.last_message();
    let title = message.lines().next().unwrap();
    assert_eq!(title, format!("Reapply \"{landed}\""), "{message}");
    assert!(
        !message.contains(&h),
        "names no commit it does not revert: {message}"
    );
    assert!(!message.contains("reverts"), "{message}");
    assert!(message.contains(&n), "{message}");
    assert_eq!(repo.rev("HEAD^"), Some(later));
    assert!(repo.read("backend/user.go").contains("fetchUserData"));
    let op = &ops(&repo, 1)[0];
    assert_eq!(op["kind"], "redo");
    let text = repo
        .evolv(&["op", "show", op["id"].as_str().unwrap()])
        .ok()
        .stdout
        .clone();
    assert!(!text.contains("revert"), "{text}");
    repo.assert_clean();
}

/// A step that still fails once others were taken (here injected, as
/// another process moving a ref in between would): the error names every
/// operation undone, with its undo, and where it stopped.
#[test]
fn undo_to_that_stops_part_way_says_exactly_what_it_undid() {
    let repo = TestRepo::scenario();
    repo.propose("getUserData", "loadUserData", &[]);
    let stop = newest(&repo);
    let a = repo.propose("getUserData", "fetchUserData", &[]);
    let pa = newest(&repo);
    let b = repo.propose("getUserData", "readUserData", &[]);
    let pb = newest(&repo);
    let run = repo.evolv_env(
        &["undo", "--to", &stop, "--json"],
        &[("GIT_EVOLV_TEST_FAILPOINT", "undo-later-step")],
    );
    assert_eq!(error_code(&run), "undo_incomplete", "{}", run.stdout);
    assert_ne!(run.code, 0);
    let undo_of_b = newest(&repo);
    let message = run.error_message();
    assert!(
        message.contains(&format!("{pb} by {undo_of_b}")),
        "names the operation undone and its undo: {message}"
    );
    assert!(
        message.contains(&format!("stopped at operation {pa}")),
        "{message}"
    );
    assert!(
        !run.error_hint().contains("nothing was changed"),
        "{}",
        run.stdout
    );
    assert!(repo.rev(&format!("refs/evolv/proposals/{b}")).is_none());
    assert!(repo.rev(&format!("refs/evolv/proposals/{a}")).is_some());
    // Running it again undoes the rest.
    repo.evolv(&["undo", "--to", &stop]).ok();
    assert!(repo.rev(&format!("refs/evolv/proposals/{a}")).is_none());
}

/// The second landing `undo --to` would undo writes a file holding
/// uncommitted work: refused before the first moves anything.
#[test]
fn undo_to_refuses_uncommitted_work_a_later_step_would_overwrite_before_any_step() {
    let repo = TestRepo::scenario();
    let a = repo.propose("getUserData", "fetchUserData", &["--scope", "frontend/**"]);
    let stop = newest(&repo);
    repo.evolv(&["apply", &a]).ok();
    let b = repo.propose("getUserData", "loadUserData", &["--scope", "backend/**"]);
    repo.evolv(&["apply", &b]).ok();
    let nb = repo.head();
    repo.write("frontend/api.ts", "// mine\n");
    let before = refs(&repo);
    let logged = ops(&repo, 100).len();
    let run = repo.evolv(&["undo", "--to", &stop, "--json"]);
    assert_eq!(
        (run.code, error_code(&run).as_str()),
        (1, "dirty_worktree"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("frontend/api.ts"), "{}", run.stdout);
    assert_eq!(repo.head(), nb, "the first landing was not undone either");
    assert_eq!(refs(&repo), before);
    assert_eq!(ops(&repo, 100).len(), logged);
    assert_eq!(repo.read("frontend/api.ts"), "// mine\n");
    assert!(repo.read("backend/user.go").contains("loadUserData"));
}

/// With a commit on top of two landings, `undo --to` reverts both, the
/// second on top of the first's revert: its dry run shows the same.
#[test]
fn undo_to_dry_run_shows_two_reverts_as_the_run_makes_them() {
    let (repo, a) = TestRepo::scenario_proposed(&[]);
    let stop = newest(&repo);
    let h = repo.head();
    repo.evolv(&["apply", &a]).ok();
    let b = repo.propose("fetchUserData", "loadUserData", &[]);
    repo.evolv(&["apply", &b]).ok();
    repo.write("later.txt", "later\n");
    let later = repo.commit_all("later work");
    let dry = repo
        .evolv(&["undo", "--to", &stop, "--dry-run", "--json"])
        .ok()
        .json();
    let real = repo.evolv(&["undo", "--to", &stop, "--json"]).ok().json();
    let shape = |o: &Value| -> Vec<Value> {
        o["undone"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| serde_json::json!([u["op"], u["method"], u["paths"]]))
            .collect()
    };
    assert_eq!(shape(&dry), shape(&real));
    let methods: Vec<&str> = real["undone"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|u| u["method"].as_str())
        .filter(|m| *m != "refs")
        .collect();
    assert_eq!(methods, ["revert", "revert"], "{real}");
    assert_eq!(repo.rev("HEAD~2"), Some(later));
    assert_eq!(repo.git(&["diff", &h, "HEAD", "--", "backend"]), "");
    repo.assert_clean();
}
