//! Issue 16 (hardening), the landing: flagged index entries, branch
//! switches, reachability, operations in progress, batches, file_backup
//! over later commits, signals. Real binary, real git; each test checks
//! HEAD, refs, `git status` and `git fsck`, and fails before its fix.

use std::process::Stdio;
use std::time::Duration;

use crate::common::{BIN, Run, TestRepo, assert_has, error_code, sealed, str_of};

fn json_code(run: &Run) -> String {
    error_code(run)
}

// See: issue 16 item 1.
#[test]
fn local_edits_under_assume_unchanged_or_skip_worktree_are_refused_by_apply_and_rollback() {
    for flag in ["--assume-unchanged", "--skip-worktree"] {
        let (repo, id) = TestRepo::proposed(&[("s.ini", "tok\nconf=1\n")], "tok", "TOK");
        repo.git(&["update-index", flag, "s.ini"]);
        repo.write("s.ini", "tok\nconf=LOCAL\n");
        let head = repo.head();
        let run = repo.evolv(&["apply", "--json", &id]);
        assert_eq!(json_code(&run), "dirty_worktree", "{flag}");
        assert_eq!(repo.read("s.ini"), "tok\nconf=LOCAL\n", "{flag}");
        assert_eq!(repo.head(), head);

        // Clean again: the apply lands; then a flagged local edit stops the rollback.
        repo.write("s.ini", "tok\nconf=1\n");
        repo.evolv(&["apply", &id]).ok();
        repo.git(&["update-index", flag, "s.ini"]);
        repo.write("s.ini", "TOK\nconf=LOCAL2\n");
        let landed = repo.head();
        let run = repo.evolv(&["rollback", "--json", &id]);
        assert_eq!(json_code(&run), "dirty_worktree", "{flag}");
        assert_eq!(repo.read("s.ini"), "TOK\nconf=LOCAL2\n");
        assert_eq!(repo.head(), landed);
        repo.assert_fsck();
    }
}

// See: issue 16 item 2.
#[test]
fn a_branch_switch_during_a_validated_apply_lands_nothing_anywhere() {
    let (repo, id) = TestRepo::proposed(&[("f", "old\n")], "old", "new");
    let main = repo.head();
    let child = repo.spawn_evolv(&["apply", "--json", &id, "--validate", "sleep 2"]);
    std::thread::sleep(Duration::from_millis(1000));
    repo.git(&["switch", "-q", "-c", "other"]);
    let run = Run::wait(child);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert_eq!(json_code(&run), "branch_switched");
    assert_eq!(
        repo.rev("refs/heads/main").unwrap(),
        main,
        "main did not move"
    );
    assert_eq!(
        repo.rev("refs/heads/other").unwrap(),
        main,
        "other did not move"
    );
    assert_eq!(repo.status(), "", "nothing staged on the other branch");
    assert_eq!(repo.read("f"), "old\n");
    assert!(repo.rev(&format!("refs/evolv/applied/{id}")).is_none());
    repo.assert_fsck();
}

// See: issue 16 item 6.
#[test]
fn applied_means_reachable_and_list_apply_and_rollback_agree() {
    let (repo, id) = TestRepo::proposed(&[("f", "old\n")], "old", "new");
    repo.evolv(&["apply", &id]).ok();
    repo.git(&["reset", "-q", "--hard", "HEAD~1"]);
    let list = repo.evolv(&["list", "--json"]);
    assert_ne!(list.json()["proposals"][0]["status"], "applied");
    let rollback = repo.evolv(&["rollback", "--json", &id]);
    assert_eq!(json_code(&rollback), "not_applied");
    let run = repo.evolv(&["apply", "--json", &id]);
    run.ok();
    assert_eq!(repo.read("f"), "new\n");
    let list = repo.evolv(&["list", "--json"]);
    assert_eq!(list.json()["proposals"][0]["status"], "applied");
    assert_eq!(
        json_code(&repo.evolv(&["apply", "--json", &id])),
        "already_applied"
    );
    repo.assert_fsck();
}

// See: issue 16 item 6.
#[test]
fn apply_and_rollback_refuse_while_a_merge_is_in_progress() {
    let (repo, id) = TestRepo::proposed(&[("f", "old\n"), ("g", "base\n")], "old", "new");
    repo.git(&["switch", "-q", "-c", "side"]);
    repo.write("g", "side\n");
    repo.commit_all("side");
    repo.git(&["switch", "-q", "main"]);
    repo.write("g", "main\n");
    repo.commit_all("main");
    let merge = repo.git_run(&["merge", "-q", "side"]);
    assert_ne!(merge.code, 0, "the merge conflicts");
    let head = repo.head();
    let run = repo.evolv(&["apply", "--json", &id]);
    assert_eq!(json_code(&run), "operation_in_progress");
    assert_has(&run.error_message(), "MERGE_HEAD");
    assert_eq!(repo.head(), head);
    assert_eq!(repo.read("f"), "old\n");
    repo.git(&["merge", "--abort"]);
    repo.evolv(&["apply", &id]).ok();
    repo.git(&["switch", "-q", "-c", "r2", "HEAD~1"]);
    repo.git(&["switch", "-q", "main"]);
    let cherry = repo.git_run(&["cherry-pick", "side"]);
    assert_ne!(cherry.code, 0);
    let run = repo.evolv(&["rollback", "--json", &id]);
    assert_eq!(json_code(&run), "operation_in_progress");
}

// See: issue 16 item 11.
#[test]
fn batch_results_carry_each_commits_own_numbers_and_parent() {
    let repo = TestRepo::with_files(&[("a", "1\n"), ("b", "2\n2\n"), ("c", "3\n3\n3\n")]);
    let ids: Vec<String> = [("1", "a"), ("2", "b"), ("3", "c")]
        .iter()
        .map(|(p, f)| repo.propose(p, "x", &["--scope", f]))
        .collect();
    let head = repo.head();
    let mut args = vec!["apply", "--json", "--batch"];
    args.extend(ids.iter().map(String::as_str));
    let run = repo.evolv(&args);
    run.ok();
    let results = run.json()["results"].as_array().unwrap().clone();
    let mut parent = head;
    for (i, r) in results.iter().enumerate() {
        assert_eq!(r["lines_added"], i + 1, "{r}");
        assert_eq!(r["lines_removed"], i + 1, "{r}");
        assert_eq!(r["previous_head"], parent.as_str());
        let commit = r["commit"].as_str().unwrap().to_string();
        assert_eq!(repo.rev(&format!("{commit}^")).unwrap(), parent);
        parent = commit;
    }
    // One batch, one operation (issue 39 item 1): its record runs from
    // the head before the first commit to the last one landed.
    let log = repo.evolv(&["log", "--json", "-n", "1"]);
    let entry = log.json()["entries"][0].clone();
    let first = results[0]["previous_head"].as_str().unwrap();
    assert_eq!(entry["previous_head"].as_str(), Some(first), "{entry:#}");
    assert_eq!(entry["commit"].as_str(), Some(parent.as_str()), "{entry:#}");
    assert_eq!(
        entry["patch_ids"].as_array().map(Vec::len),
        Some(results.len())
    );
    repo.assert_fsck();
}

// See: issue 16 item 14.
#[test]
fn file_backup_refuses_to_undo_later_commits_unless_forced_and_then_lists_them() {
    let (repo, id) = TestRepo::proposed(&[("f", "a\nb\n")], "a", "A");
    repo.apply_with_file_backup(&id);
    let id2 = repo.propose("b", "B", &[]);
    repo.evolv(&["apply", &id2]).ok();
    let head = repo.head();
    let run = repo.evolv(&["rollback", "--json", &id]);
    assert_eq!(json_code(&run), "later_changes");
    let message = run.json()["error"]["message"].as_str().unwrap().to_string();
    assert!(message.contains(&head[..12]), "{message}");
    assert_eq!(repo.head(), head);
    assert_eq!(repo.read("f"), "A\nB\n");
    let run = repo.evolv(&["rollback", "--json", "--force", &id]);
    run.ok();
    let undone = run.json()["undone_commits"].as_array().unwrap().clone();
    assert_eq!(undone.len(), 1);
    assert!(undone[0].as_str().unwrap().starts_with(&head[..12]));
    repo.assert_clean_with(&[("f", "a\nb\n")]);
}

// See: issue 16 item 4.
#[test]
fn sigterm_kills_the_validation_group_and_lands_nothing() {
    let (repo, id) = TestRepo::proposed(&[("f", "old\n")], "old", "new");
    let head = repo.head();
    let child = repo.spawn_evolv(&[
        "apply",
        "--json",
        &id,
        "--validate",
        "sleep 2; echo BROKEN > status.txt",
    ]);
    std::thread::sleep(Duration::from_millis(1000));
    let pid = child.id().to_string();
    std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    let run = Run::wait(child);
    assert_eq!(run.code, 143, "{}{}", run.stdout, run.stderr);
    assert_eq!(json_code(&run), "interrupted");
    std::thread::sleep(Duration::from_millis(1800));
    assert_eq!(repo.head(), head);
    assert_eq!(repo.read("f"), "old\n");
    let run = repo.evolv(&["apply", &id, "--validate", "test ! -e status.txt"]);
    run.ok();
    repo.assert_fsck();
}

// See: issue 16 item 4: a worktree whose previous user's group may be alive.
#[test]
fn a_worktree_whose_group_outlived_a_killed_apply_is_not_reused() {
    let (repo, id) = TestRepo::proposed(&[("f", "old\n")], "old", "new");
    let mut child = sealed(BIN, repo.home())
        .args([
            "apply",
            &id,
            "--validate",
            "sleep 3; echo BROKEN > status.txt",
        ])
        .current_dir(repo.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(1200));
    child.kill().unwrap(); // SIGKILL: no handler runs, the group lives on
    let _ = child.wait();
    let run = repo.apply_validating(&id, "sleep 3; test ! -e status.txt");
    run.ok();
    assert_eq!(repo.read("f"), "new\n");
    repo.assert_fsck();
}

// See: issue 16 item 2, its sibling on a detached HEAD: checking out
// another commit meanwhile is a switch too (another landing is not).
#[test]
fn a_checkout_of_another_commit_during_a_detached_apply_lands_nothing() {
    let repo = TestRepo::with_files(&[("f", "old\n"), ("g", "1\n")]);
    repo.write("g", "2\n");
    let second = repo.commit_all("second");
    repo.git(&["checkout", "-q", "--detach", "HEAD"]);
    let id = repo.propose("old", "new", &[]);
    let child = repo.spawn_evolv(&["apply", "--json", &id, "--validate", "sleep 2"]);
    std::thread::sleep(Duration::from_millis(1000));
    repo.git(&["checkout", "-q", "--detach", "HEAD~1"]);
    let run = Run::wait(child);
    assert_eq!(json_code(&run), "branch_switched", "{}", run.stdout);
    assert_eq!(
        repo.rev("HEAD~0").unwrap(),
        repo.rev(&format!("{second}~1")).unwrap()
    );
    repo.assert_clean_with(&[("f", "old\n")]);
}

// See: issue 16 item 6 (a sibling found in the adversarial pass): the
// same proposal applied on two branches (here from a linked worktree).
// The applied marker names the last landing only; on the other branch the
// landing is still in its history, so it is still applied there: list
// says so, apply refuses, and rollback undoes that branch's own landing
// (from its own parent) and leaves the other branch's marker alone.
#[test]
fn a_proposal_applied_on_two_branches_stays_applied_on_each() {
    let (repo, id) = TestRepo::proposed(&[("a.txt", "tok\n"), ("b.txt", "x\n")], "tok", "TOK");
    let feat = repo.home().join("feat");
    let feat_s = feat.to_str().unwrap();
    repo.git(&["worktree", "add", "-q", "-b", "feat", feat_s]);
    let in_feat = |args: &[&str]| {
        Run::from(
            sealed(BIN, repo.home())
                .args(args)
                .current_dir(&feat)
                .output()
                .unwrap(),
        )
    };
    in_feat(&["apply", &id]).ok();
    // main moves first, so its landing is a commit of its own.
    repo.write("b.txt", "y\n");
    repo.commit_all("main moves");
    repo.evolv(&["apply", &id]).ok();
    // feat's own history has its landing.
    let listed = in_feat(&["list", "--json"]);
    assert_eq!(listed.json()["proposals"][0]["status"], "applied");
    let again = in_feat(&["apply", &id, "--json"]);
    assert_eq!(json_code(&again), "already_applied", "{}", again.stdout);
    let feat_landing = repo.git(&["rev-parse", "feat"]).trim().to_string();
    let main_landing = repo.head();
    let back = in_feat(&["rollback", &id, "--strategy", "file_backup", "--json"]);
    back.ok();
    assert_eq!(back.json()["reverted"], feat_landing.as_str());
    assert_eq!(
        std::fs::read_to_string(feat.join("a.txt")).unwrap(),
        "tok\n"
    );
    let listed = in_feat(&["list", "--json"]);
    assert_eq!(listed.json()["proposals"][0]["status"], "base-moved");
    // main's landing and its marker are untouched.
    assert_eq!(
        repo.rev(&format!("refs/evolv/applied/{id}")).as_deref(),
        Some(main_landing.as_str())
    );
    let listed = repo.evolv(&["list", "--json"]);
    assert_eq!(listed.json()["proposals"][0]["status"], "applied");
    repo.evolv(&["rollback", &id]).ok();
    repo.assert_clean_with(&[("a.txt", "tok\n")]);
}

// See: issue 16 item 5's class (a message that sends the user in a
// circle), found in the adversarial pass: an unreadable journal made
// every command, `recover` included, say "run `git evolv recover`".
// `recover` now sets it aside, touching no file, and says what to check.
#[test]
fn an_unreadable_journal_is_set_aside_by_recover_and_nothing_is_touched() {
    let (repo, id) = TestRepo::proposed(&[("a.txt", "tok\n")], "tok", "TOK");
    let head = repo.head();
    let journal = repo.path().join(".git/evolv/journal");
    std::fs::create_dir_all(journal.parent().unwrap()).unwrap();
    std::fs::write(&journal, "{\"version\": 1, \"kind\": \"la").unwrap();
    let run = repo.evolv(&["apply", &id, "--json"]);
    assert_eq!(run.code, 2);
    assert_eq!(json_code(&run), "interrupted_landing");
    let hint = run.json()["error"]["hint"].as_str().unwrap().to_string();
    assert!(hint.contains("sets the journal aside"), "{hint}");
    let rec = repo.evolv(&["recover", "--json"]);
    let v = rec.success().stdout_json();
    assert_eq!(v["action"], "abandoned");
    assert_has(str_of(&v["message"]), "journal.unreadable.");
    assert!(!journal.exists());
    let kept: Vec<_> = std::fs::read_dir(journal.parent().unwrap())
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("journal.unreadable.")
        })
        .collect();
    assert_eq!(kept.len(), 1);
    assert_eq!(repo.head(), head);
    assert_eq!(repo.read("a.txt"), "tok\n");
    repo.evolv(&["apply", &id]).ok();
    repo.assert_clean_with(&[("a.txt", "TOK\n")]);
}

// See: issue 16 item 2's class (the branch changing under a validated
// apply), found in the adversarial pass: `git reset --hard HEAD~1` during
// the validation rewound the branch, and the apply landed onto the
// rewound head without validating again, although the validation had run
// on history (here the file `b`) that is no longer there.
#[test]
fn a_branch_rewound_during_validation_is_validated_again() {
    let repo = TestRepo::with_files(&[("a.txt", "tok\n")]);
    repo.write("b", "needed by the validation\n");
    repo.commit_all("add b");
    let id = repo.propose("tok", "TOK", &[]);
    let count = repo.home().join("validations");
    let validate = format!("echo run >> '{}'; sleep 2; test -f b", count.display());
    let apply = repo.spawn_evolv(&["apply", &id, "--validate", &validate, "--json"]);
    let t0 = std::time::Instant::now();
    while !count.exists() {
        assert!(t0.elapsed().as_secs() < 60, "the validation never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    repo.git(&["reset", "-q", "--hard", "HEAD~1"]);
    let rewound = repo.head();
    let run = Run::wait(apply);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert_eq!(json_code(&run), "validation_failed");
    let runs = std::fs::read_to_string(&count).unwrap();
    assert_eq!(runs.lines().count(), 2, "{runs}");
    assert_eq!(repo.head(), rewound);
    assert_eq!(repo.read("a.txt"), "tok\n");
    assert_eq!(repo.status(), "");
}

// See: issue 16 item 15's class (messages that name the wrong cause),
// found in the adversarial pass: a fetched proposal whose tree writes
// `.git/config` was refused as "uncommitted changes in .git/config" with
// a `git stash` hint. Nothing was written, but the cause is the path.
#[test]
fn a_proposal_writing_into_dot_git_is_refused_as_an_unsafe_path() {
    use crate::crash_scenario::{git_env, store_proposal};
    let repo = TestRepo::with_files(&[("a.txt", "tok\n")]);
    let h = repo.head();
    let blob = git_env(&repo, &["hash-object", "-w", "--stdin"], &[], b"evil\n");
    let inner = git_env(
        &repo,
        &["mktree"],
        &[],
        format!("100644 blob {blob}\tconfig\n").as_bytes(),
    );
    let a = repo.git(&["rev-parse", "HEAD:a.txt"]).trim().to_string();
    let tree = git_env(
        &repo,
        &["mktree"],
        &[],
        format!("040000 tree {inner}\t.git\n100644 blob {a}\ta.txt\n").as_bytes(),
    );
    store_proposal(&repo, &h, &tree, "patch_3_badbad00");
    let config = std::fs::read(repo.file(".git/config")).unwrap();
    let run = repo.evolv(&["apply", "--json", "patch_3_badbad00"]);
    assert_eq!(json_code(&run), "unsafe_path", "{}", run.stdout);
    assert_eq!(std::fs::read(repo.file(".git/config")).unwrap(), config);
    assert_eq!(repo.head(), h);
}
