//! `git evolv apply --validate`: seed scenario 6, the warm and throwaway
//! worktrees, failures and timeouts.

use std::time::{Duration, Instant};

use crate::common::{TestRepo, assert_human, error_code, strings_of};

#[test]
fn scenario_6_validation_runs_in_an_isolated_worktree_then_lands() {
    let (repo, id) = TestRepo::scenario_proposed(&["--scope", "backend/**"]);
    let where_file = repo.home().join("where");
    let cmd = format!(
        "pwd > {}; grep -q fetchUserData backend/user.go && echo checked",
        where_file.display()
    );
    let run = repo.apply_validating(&id, &cmd);
    let v = run.success().stdout_json();
    let wt = v["worktree_path"].as_str().unwrap().to_string();
    let ran_in = std::fs::read_to_string(&where_file).unwrap();
    assert_eq!(ran_in.trim(), wt);
    assert_ne!(std::path::Path::new(ran_in.trim()), repo.path());
    assert!(wt.contains(".git/evolv/worktrees/"), "{wt}");
    let report = &v["validation"][0];
    assert_eq!(report["command"], cmd.as_str());
    assert_eq!(report["exit_code"], 0);
    assert!(report["duration_ms"].is_u64());
    assert_eq!(report["output_tail"], "checked\n");
    assert!(repo.read("backend/user.go").contains("fetchUserData"));
    assert_eq!(repo.status(), "");
    // The warm worktree stays, registered with git, detached at N.
    assert_eq!(repo.worktree_count(), 2);
    let list = repo.git(&["worktree", "list", "--porcelain"]);
    assert!(list.contains(&format!("HEAD {}", repo.head())), "{list}");
    assert!(list.contains("detached"), "{list}");
    assert_eq!(
        repo.git(&["branch", "--list"]).trim(),
        "* main",
        "no helper branch left behind"
    );
    repo.assert_fsck();
}

#[test]
fn the_warm_worktree_is_reused_keeps_ignored_files_and_drops_untracked_ones() {
    let repo = TestRepo::with_files(&[
        (".gitignore", "build/\n"),
        ("a.txt", "one\n"),
        ("b.txt", "two\n"),
        ("c.txt", "three\n"),
    ]);
    let first = repo.propose("one", "uno", &[]);
    let run = repo.apply_validating(&first, "mkdir -p build sub && touch build/cache stray.txt sub/stray && echo scribbled > c.txt && rm b.txt");
    run.ok();
    let wt1 = run.json()["worktree_path"].as_str().unwrap().to_string();
    let second = repo.propose("two", "dos", &[]);
    // Tracked files a validation changed or deleted are restored.
    let check = "test -f build/cache && test ! -e stray.txt && test ! -e sub \
        && grep -q uno a.txt && grep -q dos b.txt && test \"$(cat c.txt)\" = three \
        && test -z \"$(git status --porcelain)\"";
    let run = repo.apply_validating(&second, check);
    run.ok();
    assert_eq!(
        run.json()["worktree_path"].as_str().unwrap(),
        wt1,
        "same warm worktree"
    );
    assert_eq!(repo.worktree_count(), 2);
}

#[test]
fn a_failed_validation_lands_nothing_and_reports_the_output() {
    let repo = TestRepo::scenario();
    let head = repo.head();
    let id = repo.propose("getUserData", "fetchUserData", &[]);
    let run = repo.apply_validating(&id, "echo compiling; echo 'error: boom' >&2; exit 3");
    assert_eq!(run.code, 1);
    assert_eq!(error_code(&run), "validation_failed");
    let v = run.json();
    assert_eq!(v["error"]["validation"][0]["exit_code"], 3);
    assert_eq!(
        v["error"]["validation"][0]["output_tail"],
        "compiling\nerror: boom\n"
    );
    assert_eq!(repo.head(), head);
    assert_eq!(repo.status(), "");
    assert!(repo.read("backend/user.go").contains("getUserData"));
    assert!(repo.rev(&format!("refs/evolv/applied/{id}")).is_none());
    let human = repo.transcript(&["apply", &id, "--validate", "echo visible-tail; false"]);
    assert_human!(repo, "validation_failed_tail", human);
    let log = repo.evolv(&["log", "--json"]).json();
    assert_eq!(log["entries"][0]["action"], "apply");
    assert_eq!(log["entries"][0]["success"], false);
    assert_eq!(log["entries"][0]["error_code"], "validation_failed");
    repo.assert_fsck();
}

#[test]
fn a_timeout_kills_the_process_group_and_lands_nothing() {
    let repo = TestRepo::scenario();
    let head = repo.head();
    let id = repo.propose("getUserData", "fetchUserData", &[]);
    let marker = repo.home().join("survivor");
    let cmd = format!("(sleep 2; touch {}) & sleep 60", marker.display());
    let started = Instant::now();
    let run = repo.evolv(&["apply", "--json", &id, "--timeout", "1", "--validate", &cmd]);
    assert!(started.elapsed() < Duration::from_secs(20));
    assert_eq!(run.code, 1);
    assert_eq!(error_code(&run), "timeout");
    assert_eq!(repo.head(), head);
    assert_eq!(repo.status(), "");
    std::thread::sleep(Duration::from_millis(2500));
    assert!(
        !marker.exists(),
        "a process of the validation's group survived the timeout"
    );
}

#[test]
fn validation_and_timeout_come_from_git_config_when_no_flags_are_given() {
    let repo = TestRepo::scenario();
    repo.git(&["config", "--add", "evolv.validate", "echo first"]);
    repo.git(&["config", "--add", "evolv.validate", "echo second"]);
    let id = repo.propose("getUserData", "fetchUserData", &[]);
    let v = repo.evolv(&["apply", "--json", &id]).json();
    let commands = strings_of(&v["validation"], "command");
    assert_eq!(commands, ["echo first", "echo second"]);

    let repo = TestRepo::scenario();
    repo.set_config("evolv.validate", "sleep 30");
    repo.set_config("evolv.timeout", "1");
    let id = repo.propose("getUserData", "fetchUserData", &[]);
    let started = Instant::now();
    let run = repo.evolv(&["apply", "--json", &id]);
    assert_eq!(error_code(&run), "timeout");
    assert!(started.elapsed() < Duration::from_secs(20));
}

#[test]
fn fresh_worktree_is_removed_and_pruned_afterwards() {
    let (repo, id) = TestRepo::scenario_proposed(&[]);
    let v = repo
        .evolv(&[
            "apply",
            "--json",
            &id,
            "--fresh-worktree",
            "--validate",
            "true",
        ])
        .json();
    let wt = v["worktree_path"].as_str().unwrap();
    assert!(!wt.contains(".git/evolv"), "{wt}");
    assert!(
        !std::path::Path::new(wt).exists(),
        "throwaway worktree removed"
    );
    assert_eq!(repo.worktree_count(), 1);

    // evolv.worktree = fresh does the same; and a failure still cleans up.
    repo.set_config("evolv.worktree", "fresh");
    let id = repo.propose("fetchUserData", "loadUserData", &[]);
    let run = repo.apply_validating(&id, "false");
    assert_eq!(error_code(&run), "validation_failed");
    assert_eq!(repo.worktree_count(), 1);
    repo.assert_fsck();
}

#[test]
fn stale_throwaway_worktrees_from_a_killed_run_are_cleaned() {
    let repo = TestRepo::scenario();
    let stale = repo.home().join("killed/evolv-tmp-99999-dead");
    repo.git(&["worktree", "add", "-q", "--detach", stale.to_str().unwrap()]);
    assert_eq!(repo.worktree_count(), 2);
    let id = repo.propose("getUserData", "fetchUserData", &[]);
    repo.apply_validating(&id, "true").ok();
    let list = repo.git(&["worktree", "list"]);
    assert!(!list.contains("evolv-tmp-99999-dead"), "{list}");
    assert!(!stale.exists());
}

#[test]
fn gc_worktrees_removes_the_warm_worktree() {
    let (repo, id) = TestRepo::scenario_proposed(&[]);
    repo.evolv(&["apply", &id, "--validate", "true"]).ok();
    assert_eq!(repo.worktree_count(), 2);
    let v = repo.evolv(&["gc", "--worktrees", "--json"]).json();
    assert_eq!(v["removed_worktrees"].as_array().unwrap().len(), 1);
    assert_eq!(repo.worktree_count(), 1);
    repo.assert_fsck();
}

#[test]
fn validation_does_not_see_the_callers_git_environment() {
    let (repo, id) = TestRepo::scenario_proposed(&[]);
    let git_dir = repo.path().join(".git");
    let run = repo.evolv_env(
        &[
            "apply",
            "--json",
            &id,
            "--validate",
            "test -z \"$GIT_DIR\" && git rev-parse --show-toplevel",
        ],
        &[("GIT_DIR", git_dir.to_str().unwrap())],
    );
    run.ok();
    let top = run.json()["validation"][0]["output_tail"]
        .as_str()
        .unwrap()
        .trim()
        .to_string();
    assert!(top.contains(".git/evolv/worktrees/"), "{top}");
}

#[test]
fn the_validation_worktree_runs_filter_drivers_like_a_checkout_by_git() {
    // A smudge filter stands in for git-lfs: libgit2 skips drivers it does
    // not know and would leave the clean (pointer) form in the worktree.
    let repo = TestRepo::new()
        .with_config("filter.upper.smudge", "tr a-z A-Z")
        .with_config("filter.upper.clean", "tr A-Z a-z")
        .with(".gitattributes", "*.dat filter=upper\n")
        .with("x.dat", "hello\n")
        .with("a.txt", "one\n")
        .committed("filtered file");
    assert_eq!(repo.git(&["cat-file", "-p", "HEAD:x.dat"]), "hello\n");
    for fresh in [false, true] {
        let (from, to) = if fresh {
            ("two", "three")
        } else {
            ("one", "two")
        };
        let id = repo.propose(from, to, &[]);
        let mut args = vec!["apply", "--json", &id, "--validate", "grep -qx HELLO x.dat"];
        if fresh {
            args.push("--fresh-worktree");
        }
        let run = repo.evolv(&args);
        assert_eq!(run.code, 0, "fresh={fresh}: {}", run.stdout);
    }
    assert_eq!(
        repo.worktree_count(),
        2,
        "the warm one stays, the fresh one is gone"
    );
    repo.assert_fsck();
}
