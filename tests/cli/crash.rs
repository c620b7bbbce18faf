//! Crash tests (issue 5): the debug binary, which has crash points
//! compiled in (src/crash.rs), is SIGKILLed at each named step of a landing, then
//! `git evolv recover` (or any other command) runs, and the repository is
//! checked with git: the branch is at H or N, every changed path holds H's
//! or N's content (all of them the same side), everything else is
//! byte-identical, no `.lock` is left, `git fsck --strict` is clean and
//! `git commit` works.

use crate::common::{Run, TestRepo, assert_has, error_code, sealed};
use crate::crash_scenario::{
    Node, POINTS, Scenario, Spec, after_cas, crash_bin, file, full_change_set, locks_in, node,
};

/// One crash trial: apply killed at `point`, then `recover_with` runs.
fn trial(specs: Vec<Spec>, point: &str, recover_with: &[&str]) -> bool {
    let sc = Scenario::new(specs);
    let run = sc.run(&["apply", &sc.id], Some(point));
    assert_eq!(
        run.code, -1,
        "{point}: apply was not killed: {}",
        run.stderr
    );
    let rec = sc.run(recover_with, None);
    assert_eq!(rec.code, 0, "{point}: {recover_with:?}: {}", rec.stderr);
    if rec.stdout.starts_with('{') {
        // Nobody edited anything: recovery must not call a file the user's.
        assert_eq!(rec.json()["skipped"], serde_json::json!([]), "{point}");
    }
    let landed = sc.assert_consistent(point);
    // Recovery is idempotent.
    let again = sc.run(&["recover", "--json"], None);
    assert_eq!(again.json()["action"], "nothing", "{point}");
    landed
}

#[test]
fn every_crash_point_of_a_full_landing_recovers_to_h_or_n() {
    let mut outcomes = Vec::new();
    for point in POINTS {
        let landed = trial(full_change_set(), point, &["recover", "--json"]);
        outcomes.push((point, landed));
    }
    // Before the compare-and-swap the landing is undone, after it finished.
    for (point, landed) in outcomes {
        assert_eq!(landed, after_cas(point), "{point}");
    }
}

#[test]
fn any_later_command_recovers_first() {
    for point in POINTS {
        trial(full_change_set(), point, &["list"]);
    }
}

#[test]
fn a_one_file_landing_recovers_at_every_point() {
    for point in POINTS {
        let specs = vec![Spec {
            path: "only.txt",
            h: file("one\n"),
            n: file("two\n"),
        }];
        trial(specs, point, &["recover", "--json"]);
    }
}

#[test]
fn a_recovery_killed_half_way_is_recovered_too() {
    let landing_points = POINTS.iter().filter(|p| after_cas(p));
    for point in landing_points {
        let sc = Scenario::new(full_change_set());
        let run = sc.run(&["apply", &sc.id], Some(point));
        assert_eq!(run.code, -1, "{point}");
        // The recovery itself dies at each of its steps, then runs again.
        for inner in POINTS.iter().filter(|p| after_cas(p) && **p != "after-cas") {
            let _ = sc.run(&["recover"], Some(inner));
        }
        let rec = sc.run(&["recover"], None);
        assert_eq!(rec.code, 0, "{point}: {}", rec.stderr);
        assert!(
            sc.assert_consistent(point),
            "{point}: after the CAS it lands"
        );
    }
}

#[test]
fn a_recovery_killed_while_putting_the_index_back_is_recovered_too() {
    // Killed after N's index went in but before the branch moved: recovery
    // puts H's entries back, and dies itself around that index's rename.
    for inner in ["before-index-rename", "after-index-rename"] {
        let sc = Scenario::new(full_change_set());
        let run = sc.run(&["apply", &sc.id], Some("after-early-index"));
        assert_eq!(run.code, -1, "{inner}");
        assert_eq!(sc.run(&["recover"], Some(inner)).code, -1, "{inner}");
        if inner == "before-index-rename" {
            // The lock holds the restored index: it stands guard until
            // recovery has run.
            let add = sc.repo.git_run(&["add", "keep.txt"]);
            assert_ne!(add.code, 0, "{inner}");
        }
        let rec = sc.run(&["recover", "--json"], None);
        rec.ok();
        assert!(!sc.assert_consistent(inner), "{inner}: rolled back");
    }
}

#[test]
fn a_branch_moved_just_before_the_swap_gets_its_index_back_and_replays() {
    let sc = Scenario::new(full_change_set());
    // X: an empty commit on H, set behind the landing's back (no index.lock,
    // as `git update-ref` does) between its early index and its CAS.
    let h_tree = sc.repo.git(&["rev-parse", &format!("{}^{{tree}}", sc.h)]);
    let x = sc
        .repo
        .git(&["commit-tree", h_tree.trim(), "-p", &sc.h, "-m", "X"])
        .trim()
        .to_string();
    let race = format!(
        "after-early-index=git update-ref refs/heads/main {x} {}",
        sc.h
    );
    let run = sc.run_env(
        &["apply", "--json", &sc.id],
        &[("GIT_EVOLV_CRASHPOINT_RUN", race.as_str())],
    );
    run.ok();
    let tip = sc.branch();
    assert_eq!(sc.repo.rev(&format!("{tip}^")), Some(x), "replayed onto X");
    let tree = sc.repo.git(&["rev-parse", &format!("{tip}^{{tree}}")]);
    assert_eq!(tree.trim(), sc.n_tree);
    for s in &sc.specs {
        let now = node(sc.repo.path(), s.path);
        let ok = now == s.n || (matches!(s.n, Node::Missing) && now == Node::Dir);
        assert!(ok, "{}: {now:?}", s.path);
    }
    for (p, before) in &sc.untouched {
        assert_eq!(&node(sc.repo.path(), p), before, "unrelated {p}");
    }
    assert_eq!(sc.repo.status(), sc.status);
    assert!(locks_in(&sc.repo.path().join(".git")).is_empty());
    let leftovers: Vec<_> = std::fs::read_dir(sc.repo.path().join(".git/evolv"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("index"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    sc.repo.assert_fsck();
}

#[test]
fn a_git_commit_racing_the_swap_commits_nothing() {
    // `git commit` reads HEAD, then the index, then takes index.lock. Run
    // at each step around the compare-and-swap, it finds our lock and
    // commits nothing; it never records H's index on top of N.
    for point in ["after-early-index", "after-cas", "after-first-file"] {
        let sc = Scenario::new(full_change_set());
        let status = sc.repo.home().join("race-status");
        let race = format!(
            "{point}=git commit -q --allow-empty -m race; echo $? > '{}'",
            status.display()
        );
        let run = sc.run_env(
            &["apply", "--json", &sc.id],
            &[("GIT_EVOLV_CRASHPOINT_RUN", race.as_str())],
        );
        run.ok();
        let code = std::fs::read_to_string(&status).unwrap();
        assert_ne!(code.trim(), "0", "{point}: the racing commit went through");
        assert!(sc.assert_consistent(point), "{point}");
    }
}

#[test]
fn a_linked_worktree_landing_recovers_at_every_point() {
    // The journal, index and index.lock of a linked worktree live in its
    // own git dir (.git/worktrees/<name>); the main worktree is untouched.
    for point in POINTS {
        let sc = Scenario::new(full_change_set());
        let wt = sc.repo.home().join("linked");
        let wt_s = wt.to_str().unwrap();
        sc.repo
            .git(&["worktree", "add", "-q", "-b", "feat", wt_s, &sc.h]);
        let in_wt = |args: &[&str], point: Option<&str>| {
            let mut cmd = sealed(crash_bin().to_str().unwrap(), sc.repo.home());
            cmd.args(args).current_dir(&wt);
            if let Some(p) = point {
                cmd.env("GIT_EVOLV_CRASHPOINT", p);
            }
            Run::from(cmd.output().unwrap())
        };
        let git_wt = |args: &[&str]| {
            let out = sealed("git", sc.repo.home())
                .args(args)
                .current_dir(&wt)
                .output()
                .unwrap();
            assert!(out.status.success(), "{point}: git {args:?}");
            String::from_utf8(out.stdout).unwrap()
        };
        let run = in_wt(&["apply", &sc.id], Some(point));
        assert_eq!(run.code, -1, "{point}: {}", run.stderr);
        in_wt(&["recover"], None).ok();
        let tip = sc.repo.rev("refs/heads/feat").unwrap();
        let landed = tip != sc.h;
        assert_eq!(landed, after_cas(point), "{point}");
        if landed {
            let tree = sc.repo.git(&["rev-parse", &format!("{tip}^{{tree}}")]);
            assert_eq!(tree.trim(), sc.n_tree, "{point}");
        }
        for s in &sc.specs {
            let want = if landed { &s.n } else { &s.h };
            let now = node(&wt, s.path);
            let ok = &now == want || (matches!(want, Node::Missing) && now == Node::Dir);
            assert!(ok, "{point}: {}: {now:?} (landed: {landed})", s.path);
        }
        assert_eq!(
            git_wt(&["status", "--porcelain", "--ignored"]),
            "",
            "{point}"
        );
        assert_eq!(sc.repo.rev("refs/heads/main").unwrap(), sc.h, "{point}");
        for (p, before) in &sc.untouched {
            assert_eq!(&node(sc.repo.path(), p), before, "{point}: main's {p}");
        }
        assert_eq!(sc.repo.status(), sc.status, "{point}: main's status");
        assert!(locks_in(&sc.repo.path().join(".git")).is_empty(), "{point}");
        assert!(
            !sc.repo
                .path()
                .join(".git/worktrees/linked/evolv/journal")
                .exists(),
            "{point}"
        );
        sc.repo.assert_fsck();
        git_wt(&["commit", "-q", "--allow-empty", "-m", "probe"]);
    }
}

#[test]
fn files_renamed_before_a_lost_ref_update_are_put_back() {
    // A power cut may keep the renames of the first files but lose the
    // branch update before them: killed half-way through the files, the branch
    // is set back to H by hand, and recovery must undo those files too.
    let sc = Scenario::new(full_change_set());
    assert_eq!(
        sc.run(&["apply", &sc.id], Some("after-middle-file")).code,
        -1
    );
    std::fs::remove_file(sc.repo.path().join(".git/index.lock")).unwrap();
    sc.repo.git(&["update-ref", "refs/heads/main", &sc.h]);
    let rec = sc.run(&["recover", "--json"], None);
    let v = rec.success().stdout_json();
    assert_eq!(v["action"], "rolled_back", "{v}");
    assert!(!v["restored"].as_array().unwrap().is_empty(), "{v}");
    assert!(!sc.assert_consistent("lost ref update"));
}

#[test]
fn a_killed_rollback_recovers_to_n_or_its_revert() {
    for point in POINTS {
        let sc = Scenario::new(full_change_set());
        sc.run(&["apply", &sc.id], None).ok();
        let n = sc.branch();
        let run = sc.run(&["rollback", &sc.id], Some(point));
        assert_eq!(run.code, -1, "{point}: {}", run.stderr);
        sc.run(&["recover"], None).ok();
        let tip = sc.branch();
        let reverted = tip != n;
        for s in &sc.specs {
            let want = if reverted { &s.h } else { &s.n };
            let now = node(sc.repo.path(), s.path);
            let ok = &now == want || (matches!(want, Node::Missing) && now == Node::Dir);
            assert!(ok, "{point}: {}: {now:?} (reverted: {reverted})", s.path);
        }
        sc.assert_status_and_no_lock(point);
        assert_eq!(
            sc.repo
                .rev(&format!("refs/evolv/applied/{}", sc.id))
                .is_none(),
            reverted,
            "{point}: applied ref"
        );
        sc.assert_usable();
    }
}

#[test]
fn a_user_edit_after_the_crash_is_kept_and_reported() {
    let sc = Scenario::new(full_change_set());
    let run = sc.run(&["apply", &sc.id], Some("after-cas"));
    assert_eq!(run.code, -1);
    // index.lock is held across the working-tree update, as git does: a
    // concurrent `git add` fails fast instead of interleaving.
    let add = sc.repo.git_run(&["add", "keep.txt"]);
    assert_ne!(add.code, 0);
    assert_has(&add.stderr, "index.lock': File exists");
    // The user edits a file the landing had not reached yet.
    sc.repo.write("mod.txt", "my own edit\n");
    let rec = sc.run(&["recover", "--json"], None);
    let v = rec.success().stdout_json();
    assert_eq!(v["action"], "rolled_forward");
    assert_eq!(v["skipped"], serde_json::json!(["mod.txt"]));
    assert_eq!(sc.repo.read("mod.txt"), "my own edit\n");
    // The index holds N's blob, so git shows the edit as the user's own
    // unstaged change on top of N.
    assert!(
        sc.repo.status().contains(" M mod.txt"),
        "{}",
        sc.repo.status()
    );
    assert!(locks_in(&sc.repo.path().join(".git")).is_empty());
    sc.repo.assert_fsck();
}

#[test]
fn a_foreign_index_lock_is_never_deleted_and_git_words_are_shown() {
    let sc = Scenario::new(full_change_set());
    std::fs::write(sc.repo.path().join(".git/index.lock"), "git's own").unwrap();
    let run = sc.run(&["apply", "--json", &sc.id], None);
    assert_eq!(error_code(&run), "index_locked");
    assert_has(&run.error_message(), "File exists");
    assert_eq!(sc.branch(), sc.h, "nothing moved");
    assert!(!sc.repo.path().join(".git/evolv/journal").exists());
    assert_eq!(
        std::fs::read(sc.repo.path().join(".git/index.lock")).unwrap(),
        b"git's own"
    );
    // A crash after the CAS, then a foreign lock: recovery refuses, keeps it.
    std::fs::remove_file(sc.repo.path().join(".git/index.lock")).unwrap();
    assert_eq!(sc.run(&["apply", &sc.id], Some("after-cas")).code, -1);
    std::fs::remove_file(sc.repo.path().join(".git/index.lock")).unwrap();
    std::fs::write(sc.repo.path().join(".git/index.lock"), "git's own").unwrap();
    let rec = sc.run(&["recover"], None);
    assert_ne!(rec.code, 0);
    assert_has(&rec.stderr, "index.lock': File exists");
    assert_has(&rec.stderr, "git evolv recover");
    std::fs::remove_file(sc.repo.path().join(".git/index.lock")).unwrap();
    sc.run(&["recover"], None).ok();
    assert!(sc.assert_consistent("after the user removed their lock"));
}

#[test]
fn dirty_files_and_untracked_files_in_the_way_are_refused_before_anything() {
    let sc = Scenario::new(full_change_set());
    sc.repo.write("mod.txt", "dirty inside the change set\n");
    let run = sc.run(&["apply", "--json", &sc.id], None);
    assert_eq!(error_code(&run), "dirty_worktree");
    assert_eq!(sc.repo.read("mod.txt"), "dirty inside the change set\n");
    assert_eq!(sc.branch(), sc.h);

    let sc = Scenario::new(full_change_set());
    sc.repo
        .write("new_name.txt", "untracked, where N creates a file\n");
    let run = sc.run(&["apply", "--json", &sc.id], None);
    assert_eq!(error_code(&run), "dirty_worktree");
    assert_eq!(
        sc.repo.read("new_name.txt"),
        "untracked, where N creates a file\n"
    );
    assert_eq!(sc.branch(), sc.h);
    assert!(locks_in(&sc.repo.path().join(".git")).is_empty());
    assert!(!sc.repo.path().join(".git/evolv/journal").exists());
}

#[test]
fn paths_outside_the_working_tree_or_through_symlinks_are_refused() {
    let sc = Scenario::new(vec![Spec {
        path: "only.txt",
        h: file("one\n"),
        n: file("two\n"),
    }]);
    // N writes below a directory that is a symlink in the working tree.
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), sc.repo.file("escape")).unwrap();
    sc.store_adding("escape/pwned.txt", "x\n", "patch_2_badbad00");
    let run = sc.run(&["apply", "--json", "patch_2_badbad00"], None);
    assert_eq!(error_code(&run), "dirty_worktree", "{}", run.stdout);
    assert!(!outside.path().join("pwned.txt").exists());
    assert_eq!(sc.branch(), sc.h);
}

#[test]
fn a_killed_batch_apply_recovers_to_h_or_n() {
    for point in POINTS {
        let sc = Scenario::new(full_change_set());
        // A second proposal on the same base, touching another file.
        let extra = [sc.store_adding("keep2.txt", "second\n", "patch_2_c0ffee02")];
        let run = sc.run(
            &["apply", "--batch", &sc.id, "patch_2_c0ffee02"],
            Some(point),
        );
        assert_eq!(run.code, -1, "{point}: {}", run.stderr);
        sc.run(&["recover"], None).ok();
        let tip = sc.branch();
        let landed = tip != sc.h;
        for s in sc.specs.iter().chain(&extra) {
            let want = if landed { &s.n } else { &s.h };
            let now = node(sc.repo.path(), s.path);
            let ok = &now == want || (matches!(want, Node::Missing) && now == Node::Dir);
            assert!(ok, "{point}: {}: {now:?} (landed: {landed})", s.path);
        }
        sc.assert_status_and_no_lock(point);
        for id in [sc.id.as_str(), "patch_2_c0ffee02"] {
            let applied = sc.repo.rev(&format!("refs/evolv/applied/{id}"));
            assert_eq!(applied.is_some(), landed, "{point}: {id}");
        }
        sc.assert_usable();
    }
}

#[test]
fn a_failure_after_the_branch_moved_is_undone_by_a_revert_commit() {
    let sc = Scenario::new(full_change_set());
    let mut cmd = sealed(crash_bin().to_str().unwrap(), sc.repo.home());
    let out = cmd
        .args(["apply", "--json", &sc.id])
        .current_dir(sc.repo.path())
        .env("GIT_EVOLV_TEST_FAILPOINT", "after-branch-move")
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "landing_failed", "{v}");
    let tip = sc.branch();
    assert_ne!(tip, sc.h, "the undo is a new commit on top of N");
    let tree = sc.repo.git(&["rev-parse", &format!("{tip}^{{tree}}")]);
    let h_tree = sc.repo.git(&["rev-parse", &format!("{}^{{tree}}", sc.h)]);
    assert_eq!(tree, h_tree);
    for s in &sc.specs {
        let now = node(sc.repo.path(), s.path);
        let ok = now == s.h || (matches!(s.h, Node::Missing) && now == Node::Dir);
        assert!(ok, "{}: {now:?}", s.path);
    }
    assert_eq!(sc.repo.status(), sc.status);
    assert!(locks_in(&sc.repo.path().join(".git")).is_empty());
    assert!(!sc.repo.path().join(".git/evolv/journal").exists());
    sc.repo.assert_fsck();
}

#[test]
fn a_detached_head_landing_recovers_at_every_point() {
    for point in POINTS {
        let sc = Scenario::new(full_change_set());
        sc.repo.git(&["checkout", "-q", "--detach"]);
        let run = sc.run(&["apply", &sc.id], Some(point));
        assert_eq!(run.code, -1, "{point}: {}", run.stderr);
        sc.run(&["recover"], None).ok();
        let landed = sc.assert_consistent(point);
        assert_eq!(
            sc.repo.rev("refs/heads/main").unwrap(),
            sc.h,
            "{point}: main stays"
        );
        assert_eq!(landed, after_cas(point), "{point}");
    }
}

#[test]
fn an_empty_ref_lock_left_by_a_killed_ref_update_is_released() {
    let sc = Scenario::new(full_change_set());
    assert_eq!(
        sc.run(&["apply", &sc.id], Some("after-index-rename")).code,
        -1
    );
    // libgit2 creates a ref lock empty and fills it just before renaming:
    // a kill in between leaves this.
    let lock = sc
        .repo
        .path()
        .join(format!(".git/refs/evolv/applied/{}.lock", sc.id));
    std::fs::create_dir_all(lock.parent().unwrap()).unwrap();
    std::fs::write(&lock, "").unwrap();
    let audit_lock = sc.repo.path().join(".git/refs/evolv/audit.lock");
    std::fs::write(&audit_lock, "").unwrap();
    sc.run(&["recover"], None).ok();
    assert!(sc.assert_consistent("empty ref locks"));
}

#[test]
fn a_branch_switched_after_the_crash_is_not_written_into() {
    let sc = Scenario::new(vec![Spec {
        path: "only.txt",
        h: file("one\n"),
        n: file("two\n"),
    }]);
    assert_eq!(sc.run(&["apply", &sc.id], Some("after-cas")).code, -1);
    // The user removes the lock by hand and switches to another branch
    // (by force: the index already names N's blob, the file is still H's).
    std::fs::remove_file(sc.repo.path().join(".git/index.lock")).unwrap();
    sc.repo.git(&["checkout", "-f", "-q", "-b", "other", &sc.h]);
    let rec = sc.run(&["recover", "--json"], None);
    rec.ok();
    assert_eq!(rec.json()["action"], "abandoned");
    assert_eq!(sc.repo.read("only.txt"), "one\n", "the other branch's file");
    assert!(!sc.repo.path().join(".git/evolv/journal").exists());
    assert!(locks_in(&sc.repo.path().join(".git")).is_empty());
    sc.repo.assert_fsck();
}

// See: issue 14 item 1: a landing of many files writes them in place from
// several threads (issue 25 item 20), or, with `evolv.fsyncWorktree`,
// renames its staged files into place. Killed while they write or rename
// (after the first, the middle and the last file), recovery finishes every
// file: one left missing between its removal and its new file, one cut
// short, one whose temp file waits beside it.
#[test]
fn a_landing_killed_while_its_threads_write_files_is_finished_by_recovery() {
    let files: Vec<(String, String)> = (0..240)
        .map(|i| (format!("d{:02}/f{i:03}.txt", i % 12), format!("old {i}\n")))
        .collect();
    let points = ["after-first-file", "after-middle-file", "after-last-file"];
    for (point, staged) in points.iter().flat_map(|p| [(*p, false), (*p, true)]) {
        let repo = TestRepo::with_files(&files);
        if staged {
            repo.git(&["config", "evolv.fsyncWorktree", "true"]);
        }
        let h = repo.head();
        let id = repo.propose("old", "new", &[]);
        let killed = repo.evolv_env(&["apply", &id], &[("GIT_EVOLV_CRASHPOINT", point)]);
        assert_eq!(
            killed.code, -1,
            "{point} (staged: {staged}): {}",
            killed.stderr
        );
        let n = repo.rev(&format!("refs/evolv/proposals/{id}")).unwrap();
        let moved = repo.head();
        assert_ne!(
            moved, h,
            "{point} (staged: {staged}): the branch moved before the files"
        );
        let written: Vec<&String> = files
            .iter()
            .map(|(p, _)| p)
            .filter(|p| std::fs::read_to_string(repo.file(p)).is_ok_and(|t| t.starts_with("new")))
            .collect();
        assert!(
            !written.is_empty(),
            "{point} (staged: {staged}): none written"
        );
        if !staged && written.len() >= 2 {
            // What a kill between two steps of one file leaves: the path
            // removed and nothing written yet, or the start of the file.
            std::fs::remove_file(repo.file(written[0])).unwrap();
            std::fs::write(repo.file(written[1]), "ne").unwrap();
        }
        let run = repo.evolv(&["recover", "--json"]);
        run.ok();
        assert_eq!(
            run.json()["action"],
            "rolled_forward",
            "{point} (staged: {staged}): {}",
            run.stdout
        );
        for (i, (path, _)) in files.iter().enumerate() {
            let text = std::fs::read_to_string(repo.file(path)).unwrap();
            assert_eq!(
                text,
                format!("new {i}\n"),
                "{point} (staged: {staged}): {path}"
            );
        }
        assert_eq!(repo.status(), "", "{point} (staged: {staged})");
        assert_eq!(
            repo.git(&["rev-parse", "HEAD^{tree}"]),
            repo.git(&["rev-parse", &format!("{n}^{{tree}}")]),
            "{point} (staged: {staged})"
        );
        let temps = files
            .iter()
            .map(|(p, _)| repo.file(p).parent().unwrap().to_path_buf())
            .flat_map(|d| std::fs::read_dir(d).unwrap().flatten())
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .count();
        assert_eq!(temps, 0, "{point} (staged: {staged}): temp files left");
        repo.assert_fsck();
    }
}
