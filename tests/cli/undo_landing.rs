//! `git evolv undo` of landings (issue 26): apply and rollback move the
//! branch back through the landing machinery when nothing was built on
//! them and nothing was pushed, else a revert; dirty paths are refused,
//! unrelated staged changes stay staged; a kill at every crash point of
//! the undo is recovered by the next command; many writers at once keep
//! one linear log.

use crate::common::{TestRepo, error_code, sealed};
use crate::crash_scenario::{POINTS, crash_bin};
use crate::undo::{ops, refs};

/// The scenario with one proposal applied: the repository, the id, the
/// head before (H) and the landed commit (N).
fn applied() -> (TestRepo, String, String, String) {
    let (repo, id) = TestRepo::scenario_proposed(&[]);
    let h = repo.head();
    repo.evolv(&["apply", &id]).ok();
    let n = repo.head();
    (repo, id, h, n)
}

#[test]
fn undo_of_an_apply_moves_the_branch_back_and_the_proposal_is_pending_again() {
    let (repo, id, h, n) = applied();
    let before_files = repo.read("backend/user.go");
    repo.write("notes.txt", "staged\n");
    repo.git(&["add", "notes.txt"]);
    let dry = repo.evolv(&["undo", "--dry-run", "--json"]).ok().json();
    assert_eq!(dry["undone"][0]["method"], "move_back");
    assert_eq!(dry["undone"][0]["refs"][0]["ref"], "refs/heads/main");
    assert_eq!(dry["undone"][0]["paths"].as_array().unwrap().len(), 3);
    assert_eq!(repo.head(), n, "a dry run moves nothing");
    assert_eq!(repo.read("backend/user.go"), before_files);
    let undo = repo.evolv(&["undo", "--json"]).ok().json();
    assert_eq!(undo["undone"][0]["op_kind"], "apply");
    assert_eq!(repo.head(), h);
    assert!(repo.read("backend/user.go").contains("getUserData"));
    assert_eq!(repo.status(), "A  notes.txt\n");
    let list = repo.evolv(&["list", "--json"]).ok().json();
    assert_eq!(list["proposals"][0]["status"], "pending", "{list}");
    let op = &ops(&repo, 1)[0];
    assert_eq!(op["kind"], "undo");
    assert_eq!(op["paths"].as_array().unwrap().len(), 3);
    // The landed commit stays reachable for a redo after gc --prune=now.
    repo.git(&["reflog", "expire", "--expire=now", "--all"]);
    repo.git(&["gc", "-q", "--prune=now"]);
    repo.evolv(&["redo"]).ok();
    assert_eq!(repo.head(), n);
    assert!(repo.read("backend/user.go").contains("fetchUserData"));
    assert_eq!(repo.status(), "A  notes.txt\n");
    assert_eq!(repo.rev(&format!("refs/evolv/applied/{id}")), Some(n));
    repo.assert_fsck();
}

#[test]
fn undo_of_a_pushed_apply_is_a_revert_and_says_why() {
    let (repo, id, _h, n) = applied();
    let remote = repo.home().join("remote.git");
    let remote = remote.to_str().unwrap();
    repo.git(&["init", "-q", "--bare", remote]);
    repo.git(&["remote", "add", "origin", remote]);
    repo.git(&["push", "-q", "origin", "main"]);
    let undo = repo.evolv(&["undo", "--json"]).ok().json();
    let u = &undo["undone"][0];
    assert_eq!(u["method"], "revert");
    assert!(
        u["reason"]
            .as_str()
            .unwrap()
            .contains("refs/remotes/origin/main"),
        "{u}"
    );
    assert_eq!(repo.rev("HEAD^"), Some(n), "nothing rewritten");
    assert!(repo.read("backend/user.go").contains("getUserData"));
    assert_eq!(repo.status(), "");
    let list = repo.evolv(&["list", "--json"]).ok().json();
    assert_ne!(list["proposals"][0]["status"], "applied", "{list}");
    assert!(repo.rev(&format!("refs/evolv/applied/{id}")).is_none());
    repo.assert_fsck();
}

#[test]
fn undo_of_an_apply_with_commits_on_top_is_a_revert_keeping_them() {
    let (repo, _id, _h, n) = applied();
    repo.write("later.txt", "later\n");
    let later = repo.commit_all("later work");
    // Its dry run computes the revert and writes no object.
    let objects = || repo.git(&["count-objects", "-v"]);
    let before = objects();
    let dry = repo.evolv(&["undo", "--dry-run", "--json"]).ok().json();
    assert_eq!(dry["undone"][0]["method"], "revert");
    assert_eq!(
        dry["undone"][0]["paths"],
        serde_json::json!(["backend/auth.go", "backend/user.go", "frontend/api.ts"])
    );
    assert_eq!(objects(), before);
    let undo = repo.evolv(&["undo", "--json"]).ok().json();
    assert_eq!(undo["undone"][0]["method"], "revert");
    assert!(
        undo["undone"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("moved on")
    );
    assert_eq!(repo.rev("HEAD^"), Some(later));
    assert!(
        repo.git(&["log", "-1", "--format=%B"])
            .contains(&format!("This reverts commit {n}"))
    );
    assert_eq!(repo.read("later.txt"), "later\n");
    repo.assert_clean();
}

#[test]
fn undo_refuses_a_landed_path_changed_since_naming_it() {
    let (repo, _id, _h, n) = applied();
    repo.write("backend/user.go", "package main\n// mine\n");
    let run = repo.evolv(&["undo", "--json"]);
    assert_eq!((run.code, error_code(&run).as_str()), (1, "dirty_worktree"));
    assert!(run.stdout.contains("backend/user.go"), "{}", run.stdout);
    assert_eq!(repo.head(), n);
    assert_eq!(repo.read("backend/user.go"), "package main\n// mine\n");
}

/// The dry run refuses the same dirty path, and a refused undo leaves no
/// ref behind: the kept ref for a redo is the landing's own bookkeeping,
/// set only once the branch has moved.
#[test]
fn a_refused_undo_and_its_dry_run_leave_no_ref_behind() {
    let (repo, _id, _h, n) = applied();
    let refs = || repo.git(&["for-each-ref", "--format=%(refname) %(objectname)"]);
    let before = refs();
    repo.write("backend/user.go", "package main\n// mine\n");
    for args in [&["undo", "--dry-run", "--json"][..], &["undo", "--json"]] {
        let run = repo.evolv(args);
        assert_eq!(error_code(&run), "dirty_worktree", "{args:?}");
        assert!(run.stdout.contains("backend/user.go"), "{}", run.stdout);
    }
    assert_eq!(refs(), before);
    assert_eq!(repo.head(), n);
    assert!(!repo.path().join(".git/evolv/journal").exists());
    assert!(!repo.path().join(".git/index.lock").exists());
}

#[test]
fn undo_of_a_rollback_brings_the_landing_back() {
    let (repo, id, _h, n) = applied();
    repo.evolv(&["rollback", &id]).ok();
    let before = refs(&repo);
    let undo = repo.evolv(&["undo", "--json"]).ok().json();
    assert_eq!(undo["undone"][0]["op_kind"], "rollback");
    assert_eq!(undo["undone"][0]["method"], "move_back");
    assert_eq!(repo.head(), n);
    assert_eq!(repo.rev(&format!("refs/evolv/applied/{id}")), Some(n));
    assert!(repo.read("backend/user.go").contains("fetchUserData"));
    repo.assert_clean();
    repo.evolv(&["undo"]).ok();
    assert_eq!(refs(&repo), before, "the redo of the rollback");
}

#[test]
fn undo_to_undoes_every_operation_after_it_newest_first() {
    let (repo, id) = TestRepo::scenario_proposed(&[]);
    let start = ops(&repo, 1)[0]["id"].as_str().unwrap().to_string();
    let h = repo.head();
    let before = refs(&repo);
    repo.evolv(&["apply", &id]).ok();
    let second = repo.propose("auth", "authorize", &[]);
    let run = repo.evolv(&["undo", "--to", &start, "--json"]).ok().json();
    let kinds: Vec<&str> = run["undone"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["op_kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["propose", "apply"]);
    assert_eq!(repo.head(), h);
    assert!(
        repo.rev(&format!("refs/evolv/proposals/{second}"))
            .is_none()
    );
    assert_eq!(refs(&repo), before);
    repo.assert_clean();
}

#[test]
fn an_undo_killed_at_every_crash_point_is_finished_or_rolled_back() {
    for point in POINTS.iter().skip(2) {
        let (repo, _id, h, n) = applied();
        let mut cmd = sealed(crash_bin().to_str().unwrap(), repo.home());
        cmd.args(["undo"]).current_dir(repo.path());
        cmd.env("GIT_EVOLV_CRASHPOINT", point);
        let killed = cmd.output().unwrap();
        assert_eq!(killed.status.code(), None, "{point}: not killed");
        repo.evolv(&["list"]).ok();
        let head = repo.head();
        let user = repo.read("backend/user.go");
        let moved_back = head == h && user.contains("getUserData");
        let stayed = head == n && user.contains("fetchUserData");
        assert!(moved_back || stayed, "{point}: head {head}, {user}");
        repo.assert_clean();
        let undone = ops(&repo, 1)[0]["kind"] == "undo";
        assert_eq!(undone, moved_back, "{point}: the log says what happened");
    }
}

#[test]
fn a_refs_only_undo_killed_after_its_journal_is_completed_by_the_next_command() {
    let (repo, id) = TestRepo::scenario_proposed(&[]);
    // A drop of an applied proposal moves several refs: journalled.
    repo.evolv(&["apply", &id]).ok();
    repo.evolv(&["drop", &id]).ok();
    assert!(ops(&repo, 1)[0]["refs"].as_array().unwrap().len() > 1);
    let mut cmd = sealed(crash_bin().to_str().unwrap(), repo.home());
    cmd.args(["undo"]).current_dir(repo.path());
    cmd.env("GIT_EVOLV_CRASHPOINT", "transaction-journalled");
    assert_eq!(cmd.output().unwrap().status.code(), None);
    repo.evolv(&["list"]).ok();
    assert!(repo.rev(&format!("refs/evolv/proposals/{id}")).is_some());
    assert_eq!(ops(&repo, 1)[0]["kind"], "undo");
    repo.assert_fsck();
}

/// sed programs reading one JSON field of a pretty-printed outcome.
const PATCH_ID: &str = r#"sed -n 's/.*"patch_id": "\(.*\)".*/\1/p' | head -1"#;
const AUDIT_ID: &str = r#"sed -n 's/.*"audit_log_id": "\(.*\)".*/\1/p' | head -1"#;

#[test]
fn many_processes_proposing_applying_and_undoing_keep_one_linear_log() {
    let repo = TestRepo::with_many(8, |i| (format!("f{i}.txt"), format!("v{i} old\n")));
    let children: Vec<_> = (0..8)
        .map(|i| {
            let script = format!(
                "id=$(\"$EVOLV\" propose --json -p 'v{i} old' -r 'v{i} new' -s f{i}.txt | {PATCH_ID}); \
                 op=$(\"$EVOLV\" apply --json \"$id\" | {AUDIT_ID}); \
                 \"$EVOLV\" undo \"$op\" >/dev/null 2>&1; true"
            );
            let mut cmd = sealed("sh", repo.home());
            cmd.args(["-c", &script])
                .current_dir(repo.path())
                .env("EVOLV", crash_bin());
            cmd.spawn().unwrap()
        })
        .collect();
    for mut c in children {
        c.wait().unwrap();
    }
    repo.evolv(&["recover"]).ok();
    let chain = repo.git(&["rev-list", "--count", "refs/evolv/audit"]);
    let first_parent = repo.git(&["rev-list", "--count", "--first-parent", "refs/evolv/audit"]);
    assert_eq!(chain, first_parent, "one linear chain");
    let all = ops(&repo, 1000);
    assert_eq!(all.len().to_string(), chain.trim(), "no entry lost");
    let count = |k: &str| all.iter().filter(|o| o["kind"] == k).count();
    assert_eq!(count("propose"), 8);
    // Every undo names what it undid: an apply it was asked to undo.
    let undos: Vec<_> = all.iter().filter(|o| o["kind"] == "undo").collect();
    assert!(!undos.is_empty());
    for u in undos {
        let target = all.iter().find(|o| o["id"] == u["undoes"]).unwrap();
        assert_eq!(target["kind"], "apply", "{u}");
        assert_eq!(target["patch_id"], u["patch_id"], "{u}");
    }
    repo.assert_clean();
}
