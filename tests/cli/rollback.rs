//! `git evolv rollback`.

use crate::common::{TestRepo, error_code};

#[test]
fn rollback_reverts_the_landed_commit_with_a_new_commit() {
    let repo = TestRepo::scenario();
    let original = repo.read("backend/user.go");
    let id = repo.propose("getUserData", "fetchUserData", &[]);
    repo.evolv(&["apply", &id]).ok();
    let landed = repo.head();
    let run = repo.evolv(&["rollback", "--json", &id]);
    let v = run.success().stdout_json();
    let revert = repo.head();
    assert_eq!(v["commit"], revert.as_str());
    assert_eq!(v["reverted"], landed.as_str());
    assert_eq!(
        repo.rev("HEAD^").unwrap(),
        landed,
        "a new commit on top, nothing rewritten"
    );
    assert!(
        repo.git(&["log", "-1", "--format=%B"])
            .contains(&format!("This reverts commit {landed}"))
    );
    assert_eq!(repo.read("backend/user.go"), original);
    assert_eq!(repo.status(), "");
    assert!(repo.rev(&format!("refs/evolv/applied/{id}")).is_none());
    let list = repo.evolv(&["list", "--json"]).json();
    assert_ne!(list["proposals"][0]["status"], "applied");
    repo.assert_fsck();
}

#[test]
fn rollback_of_what_was_not_applied_or_does_not_exist_is_refused() {
    let (repo, id) = TestRepo::scenario_proposed(&[]);
    let run = repo.evolv(&["rollback", "--json", &id]);
    assert_eq!((run.code, error_code(&run).as_str()), (1, "not_applied"));
    let run = repo.evolv(&["rollback", "--json", "patch_0_dead"]);
    assert_eq!(
        (run.code, error_code(&run).as_str()),
        (2, "patch_not_found")
    );
}

#[test]
fn rollback_conflicts_are_reported_cleanly() {
    let repo = TestRepo::scenario();
    let id = repo.propose(
        "getUserData",
        "fetchUserData",
        &["--scope", "backend/user.go"],
    );
    repo.evolv(&["apply", &id]).ok();
    repo.write(
        "backend/user.go",
        "package main\nfunc fetchUserDataV2() string { return \"user\" }\n",
    );
    let head = repo.commit_all("build on it");
    let run = repo.evolv(&["rollback", "--json", &id]);
    assert_eq!((run.code, error_code(&run).as_str()), (1, "conflict"));
    assert_eq!(
        run.json()["error"]["paths"],
        serde_json::json!(["backend/user.go"])
    );
    assert_eq!(repo.head(), head);
    assert_eq!(repo.status(), "");
}

#[test]
fn rollback_refuses_to_overwrite_uncommitted_work() {
    let (repo, id) = TestRepo::scenario_proposed(&[]);
    repo.evolv(&["apply", &id]).ok();
    let head = repo.head();
    repo.write(
        "backend/user.go",
        "package main\n// wip\nfunc fetchUserData() string { return \"user\" }\n",
    );
    let run = repo.evolv(&["rollback", "--json", &id]);
    assert_eq!(error_code(&run), "dirty_worktree");
    assert_eq!(repo.head(), head);
    assert!(repo.read("backend/user.go").contains("// wip"));
}
