//! `git evolv apply` without validation: seed scenarios 3 to 5, landing,
//! dirty files and status, checked with git afterwards.

use crate::common::{TestRepo, assert_human, error_code};

#[test]
fn scenario_3_apply_lands_by_fast_forward_and_updates_only_changed_files() {
    let repo = TestRepo::scenario();
    let head = repo.head();
    let id = repo.propose("getUserData", "fetchUserData", &["--scope", "backend/**"]);
    let run = repo.evolv(&["apply", "--json", &id]);
    let v = run.success().stdout_json();
    assert_eq!(v["success"], true);
    assert_eq!(v["patch_id"], id.as_str());
    assert_eq!(v["previous_head"], head.as_str());
    let new = repo.head();
    assert_eq!(v["commit"], new.as_str());
    assert_eq!(
        repo.rev(&format!("{new}^")).unwrap(),
        head,
        "fast-forward: N's parent is H"
    );
    assert_eq!(repo.rev("refs/heads/main").unwrap(), new);
    assert_eq!(
        v["modified_files"],
        serde_json::json!(["backend/auth.go", "backend/user.go"])
    );
    assert!(v["worktree_path"].is_null(), "no validation, no worktree");
    assert!(v["audit_log_id"].is_string());
    assert_eq!(v["validation"], serde_json::json!([]));
    assert!(repo.read("backend/user.go").contains("fetchUserData"));
    assert!(repo.read("frontend/api.ts").contains("getUserData"));
    assert_eq!(repo.status(), "");
    assert_eq!(repo.worktree_count(), 1);
    assert_eq!(repo.rev(&format!("refs/evolv/applied/{id}")).unwrap(), new);
    assert_eq!(
        repo.git(&["log", "-1", "--format=%s"]).trim(),
        "refactor: replace 'getUserData' with 'fetchUserData' in backend/**"
    );
    repo.assert_fsck();
}

#[test]
fn scenario_4_unknown_id_is_patch_not_found_and_touches_nothing() {
    let repo = TestRepo::scenario();
    let before = (repo.head(), repo.status());
    let run = repo.transcript(&["apply", "invalid_patch"]);
    assert_human!(repo, "apply_unknown_id", run);
    let json = repo.evolv(&["apply", "--json", "invalid_patch"]);
    assert_eq!(error_code(&json), "patch_not_found");
    assert_eq!(
        json.json()["error"]["message"],
        "Patch 'invalid_patch' not found"
    );
    for hostile in ["--help-me", "../../HEAD", "refs/heads/main"] {
        let run = repo.evolv(&["apply", "--json", "--", hostile]);
        assert_eq!(error_code(&run), "patch_not_found", "{hostile}");
    }
    assert_eq!((repo.head(), repo.status()), before);
    assert_eq!(repo.worktree_count(), 1);
    assert!(
        !repo.path().join(".git/evolv/worktrees").exists(),
        "no worktree created"
    );
}

/// Asserts that `apply --json id` fails (exit 1) with the error `code`
/// naming `paths`.
#[track_caller]
fn assert_apply_refused(repo: &TestRepo, id: &str, code: &str, paths: &[&str]) {
    let run = repo.evolv(&["apply", "--json", id]);
    run.fails_with(1, code);
    assert_eq!(run.json()["error"]["paths"], serde_json::json!(paths));
}

#[test]
fn scenario_5_conflict_reports_paths_and_touches_nothing() {
    let (repo, id) = TestRepo::scenario_proposed(&["--scope", "backend/**"]);
    repo.write(
        "backend/user.go",
        "package main\nfunc getUserDataV2() string { return \"user\" }\n",
    );
    let moved = repo.commit_all("someone else edits the same line");
    assert_apply_refused(&repo, &id, "conflict", &["backend/user.go"]);
    assert_eq!(repo.head(), moved);
    assert_eq!(repo.status(), "");
    assert!(repo.read("backend/auth.go").contains("getUserData()"));
    assert!(repo.rev(&format!("refs/evolv/applied/{id}")).is_none());
    repo.assert_fsck();
}

#[test]
fn a_moved_head_is_replayed_three_way() {
    let (repo, id) = TestRepo::scenario_proposed(&[]);
    repo.write("README", "unrelated\n");
    repo.write(
        "backend/user.go",
        "// header\npackage main\nfunc getUserData() string { return \"user\" }\n",
    );
    let moved = repo.commit_all("unrelated work");
    let list = repo.evolv(&["list", "--json"]).json();
    assert_eq!(list["proposals"][0]["status"], "base-moved");
    repo.evolv(&["apply", "--json", &id]).ok();
    assert_eq!(repo.rev("HEAD^").unwrap(), moved);
    assert_eq!(
        repo.read("backend/user.go"),
        "// header\npackage main\nfunc fetchUserData() string { return \"user\" }\n"
    );
    assert_eq!(repo.read("README"), "unrelated\n");
    assert_eq!(repo.status(), "");
}

#[test]
fn uncommitted_changes_to_patched_files_are_refused() {
    let (repo, id) = TestRepo::scenario_proposed(&["--scope", "backend/**"]);
    let head = repo.head();
    repo.write(
        "backend/user.go",
        "package main\n// my work in progress\nfunc getUserData() string { return \"user\" }\n",
    );
    assert_apply_refused(&repo, &id, "dirty_worktree", &["backend/user.go"]);
    assert!(repo.read("backend/user.go").contains("my work in progress"));
    assert_eq!(repo.head(), head);

    // Staged only, with the working tree matching the index.
    repo.git(&["add", "backend/user.go"]);
    let run = repo.evolv(&["apply", "--json", &id]);
    assert_eq!(error_code(&run), "dirty_worktree");
    assert_eq!(repo.head(), head);
    assert!(
        repo.git(&["diff", "--cached", "--name-only"])
            .contains("backend/user.go")
    );
}

#[test]
fn unrelated_staged_and_unstaged_changes_survive_a_landing_exactly() {
    let repo = TestRepo::scenario();
    repo.write("notes.txt", "one\n");
    repo.write("docs/guide.md", "guide\n");
    repo.commit_all("more files");
    let id = repo.propose("getUserData", "fetchUserData", &["--scope", "backend/**"]);
    repo.write("notes.txt", "one\nstaged\n");
    repo.git(&["add", "notes.txt"]);
    repo.write("notes.txt", "one\nstaged\nunstaged on top\n");
    repo.write("docs/guide.md", "guide, edited\n");
    repo.write("scratch.tmp", "untracked\n");
    let cached = repo.git(&["diff", "--cached"]);
    let unstaged = repo.git(&["diff", "--", "notes.txt", "docs"]);
    repo.evolv(&["apply", "--json", &id]).ok();
    assert_eq!(repo.git(&["diff", "--cached"]), cached);
    assert_eq!(repo.git(&["diff", "--", "notes.txt", "docs"]), unstaged);
    assert_eq!(repo.read("notes.txt"), "one\nstaged\nunstaged on top\n");
    assert_eq!(repo.read("scratch.tmp"), "untracked\n");
    assert_eq!(
        repo.status(),
        " M docs/guide.md\nMM notes.txt\n?? scratch.tmp\n",
        "only the user's own changes remain"
    );
    repo.assert_fsck();
}

#[test]
fn applying_twice_is_refused() {
    let (repo, id) = TestRepo::scenario_proposed(&[]);
    repo.evolv(&["apply", &id]).ok();
    let head = repo.head();
    let run = repo.evolv(&["apply", "--json", &id]);
    assert_eq!(run.code, 1);
    assert_eq!(error_code(&run), "already_applied");
    assert_eq!(repo.head(), head);
}

#[test]
fn executable_bit_is_kept_when_a_script_is_patched() {
    let repo = TestRepo::with_files(&[("run.sh", "#!/bin/sh\necho old\n")]);
    repo.git(&["update-index", "--chmod=+x", "run.sh"]);
    std::process::Command::new("chmod")
        .args(["+x", repo.file("run.sh").to_str().unwrap()])
        .status()
        .unwrap();
    repo.commit_all("exec");
    let id = repo.propose("old", "new", &[]);
    repo.evolv(&["apply", &id]).ok();
    assert_eq!(
        repo.git(&["ls-files", "-s", "run.sh"])
            .split(' ')
            .next()
            .unwrap(),
        "100755"
    );
    use std::os::unix::fs::PermissionsExt;
    assert_ne!(
        std::fs::metadata(repo.file("run.sh"))
            .unwrap()
            .permissions()
            .mode()
            & 0o111,
        0
    );
    assert_eq!(repo.status(), "");
}

#[test]
fn exit_codes_follow_the_contract() {
    let repo = TestRepo::scenario();
    assert_eq!(repo.evolv(&["list"]).code, 0);
    assert_eq!(repo.evolv(&["apply"]).code, 2, "usage error");
    assert_eq!(repo.evolv(&["no-such-command"]).code, 2);
    assert_eq!(
        repo.evolv(&["show", "patch_1_abc"]).code,
        2,
        "unknown patch"
    );
    assert_eq!(
        repo.evolv(&["propose", "-p", "nothing-here", "-r", "x"])
            .code,
        1,
        "the answer is no"
    );
}

#[test]
fn a_repository_wide_edit_is_written_as_one_pack_and_lands_cleanly() {
    // Above 64 changed files the new blobs go into a single pack rather than
    // loose objects; that path once wrote an empty pack.
    let repo = TestRepo::with_many(80, |i| {
        (format!("src/m{i}/f.txt"), format!("{i}: getUserData\n"))
    });
    repo.git(&["gc", "-q"]);
    let packs_before = std::fs::read_dir(repo.path().join(".git/objects/pack"))
        .unwrap()
        .count();
    let id = repo.propose("getUserData", "fetchUserData", &[]);
    let packs_after = std::fs::read_dir(repo.path().join(".git/objects/pack"))
        .unwrap()
        .count();
    assert!(packs_after > packs_before, "a pack was written");
    let show = repo.evolv(&["show", "--json", &id]).json();
    assert_eq!(show["files_changed"], 80);
    repo.evolv(&["apply", &id]).ok();
    repo.assert_clean_with(&[("src/m79/f.txt", "79: fetchUserData\n")]);
}

#[test]
fn files_rewritten_by_git_filters_are_not_mistaken_for_changes() {
    // Under core.autocrlf the checked-out bytes (CRLF) differ from the blob
    // (LF); with stale stat data the fast check must defer to git's filters.
    let repo = TestRepo::scenario();
    repo.set_config("core.autocrlf", "true");
    std::fs::remove_file(repo.file("backend/user.go")).unwrap();
    repo.git(&["checkout", "--", "backend/user.go"]);
    assert!(
        repo.read("backend/user.go").contains("\r\n"),
        "git wrote CRLF"
    );
    std::process::Command::new("touch")
        .args([
            "-d",
            "2001-01-01",
            repo.file("backend/user.go").to_str().unwrap(),
        ])
        .status()
        .unwrap();
    assert_eq!(repo.status(), "");
    let id = repo.propose("getUserData", "fetchUserData", &["--scope", "backend/**"]);
    repo.evolv(&["apply", "--json", &id]).ok();
    assert_eq!(repo.status(), "");
}

// See: issue 14 item 1: an unvalidated apply checks its paths for
// uncommitted work once, under `index.lock`. Right after `git reset --hard`
// every file is racily clean and is read to be judged: an edit of the same
// size made after the reset is found, and only that file is named.
#[test]
fn an_edit_among_many_racily_clean_files_is_found_by_the_one_check() {
    let repo = TestRepo::with_many(150, |i| {
        (format!("d{}/f{i:03}.txt", i % 5), format!("tok {i:03}\n"))
    });
    let id = repo.propose("tok", "TOK", &[]);
    // Every file rewritten in the index's second: racily clean.
    repo.git(&["reset", "-q", "--hard"]);
    std::fs::write(repo.file("d2/f077.txt"), "tik 077\n").unwrap();
    let run = repo.evolv(&["apply", "--json", &id]);
    assert_eq!(error_code(&run), "dirty_worktree", "{}", run.stdout);
    let paths = run.json()["error"]["paths"].clone();
    assert_eq!(paths, serde_json::json!(["d2/f077.txt"]), "{}", run.stdout);
    assert_eq!(repo.read("d2/f077.txt"), "tik 077\n");
    assert_eq!(repo.status(), " M d2/f077.txt\n");

    // Put back, the same files land.
    repo.git(&["checkout", "--", "d2/f077.txt"]);
    repo.evolv(&["apply", &id]).ok();
    assert_eq!(repo.read("d4/f149.txt"), "TOK 149\n");
    assert_eq!(repo.status(), "");
}

/// A landing of many files names its first ten in its one-line summary and
/// counts the rest, as does its rollback; `--json` lists every one.
#[test]
fn a_landing_of_many_files_names_ten_and_counts_the_rest() {
    let repo = TestRepo::with_many(12, |i| (format!("f{i:02}.txt"), "old\n".into()));
    let id = repo.propose("old", "new", &[]);
    let text = repo.evolv(&["apply", &id]).success().stdout.clone();
    let summary = text.lines().next().unwrap_or_default();
    assert!(
        summary.contains("(12 file(s), +12 -12: f00.txt, f01.txt"),
        "{text}"
    );
    assert!(summary.contains("f09.txt and 2 more)."), "{text}");
    assert!(!summary.contains("f10.txt"), "{text}");
    let rollback = repo.evolv(&["rollback", &id]).success().stdout.clone();
    assert!(rollback.contains("(12 file(s): f00.txt"), "{rollback}");
    assert!(rollback.contains("and 2 more)."), "{rollback}");
    repo.assert_fsck();
}

/// A file written in place gives its index entry the stat data it had
/// when written (issue 25 item 20, as git's checkout does): `git
/// diff-files`, which compares stat data without refreshing, sees no
/// change, whether the files were written by one thread or several.
#[test]
fn landed_files_carry_their_own_stat_data_into_the_index() {
    for n in [3, 150] {
        let repo = TestRepo::with_many(n, |i| (format!("d{}/f{i}.txt", i % 4), "tok\n".into()));
        let id = repo.propose("tok", "TOK", &[]);
        repo.evolv(&["apply", &id]).ok();
        assert_eq!(repo.read("d0/f0.txt"), "TOK\n");
        let stale = repo.git(&["diff-files", "--name-only"]);
        assert_eq!(stale, "", "{n} files: stat data differs for {stale}");
        assert_eq!(repo.status(), "");
    }
}
