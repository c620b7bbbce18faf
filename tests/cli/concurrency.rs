//! Several landings at once on one repository, with `git status` running
//! meanwhile (a small round of issue 5 §4 and issue 14 item 4): landings
//! queue for their turn, so every apply lands, none fails; the branch's
//! first-parent history is the base plus exactly one commit per landing,
//! no revert; every success has its applied ref and one audit record, and
//! the checkout is clean but for the user's own file.

use std::process::{Command, Stdio};

use crate::common::{BIN, TestRepo, sealed};

/// `n` files `w{i}/file.txt` holding `value {i}`, committed.
fn writers_repo(n: usize) -> TestRepo {
    TestRepo::with_many(n, |i| (format!("w{i}/file.txt"), format!("value {i}\n")))
}

/// One proposal for each of the first `n` files: `value {i}` → `changed {i}`.
fn propose_each(repo: &TestRepo, n: usize) -> Vec<String> {
    (0..n)
        .map(|i| {
            repo.propose(
                &format!("value {i}"),
                &format!("changed {i}"),
                &["--scope", &format!("w{i}/**")],
            )
        })
        .collect()
}

#[test]
fn concurrent_applies_land_whole_or_fail_cleanly() {
    const WRITERS: usize = 8;
    let repo = writers_repo(WRITERS);
    repo.write("mine.txt", "the user's own untracked file\n");
    let ids = propose_each(&repo, WRITERS);
    let status_loop = sealed("sh", repo.home())
        .args([
            "-c",
            "for i in $(seq 1 40); do git status --porcelain >/dev/null 2>&1; done",
        ])
        .current_dir(repo.path())
        .spawn()
        .unwrap();
    let children: Vec<_> = ids
        .iter()
        .map(|id| {
            let mut cmd: Command = sealed(BIN, repo.home());
            cmd.args(["apply", "--json", id])
                .current_dir(repo.path())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            (id.clone(), cmd.spawn().unwrap())
        })
        .collect();
    let mut landed = Vec::new();
    for (id, child) in children {
        let out = child.wait_with_output().unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        match out.status.code() {
            Some(0) => landed.push((id, v["commit"].as_str().unwrap().to_string())),
            other => panic!("{id}: no apply may fail, exit {other:?}: {v}"),
        }
    }
    let _ = status_loop.wait_with_output();
    assert_eq!(
        landed.len(),
        WRITERS,
        "bounded retries let every apply land"
    );
    let history = repo.git(&["rev-list", "--first-parent", "HEAD"]);
    assert_eq!(
        history.lines().count(),
        1 + WRITERS,
        "one commit per landing:\n{history}"
    );
    let subjects = repo.git(&["log", "--format=%s", "HEAD"]);
    assert!(!subjects.contains("Revert"), "{subjects}");
    for (id, commit) in &landed {
        assert_eq!(history.lines().filter(|l| l == commit).count(), 1, "{id}");
        assert_eq!(
            repo.rev(&format!("refs/evolv/applied/{id}")).as_deref(),
            Some(commit.as_str())
        );
        let i: usize = ids.iter().position(|x| x == id).unwrap();
        assert_eq!(
            repo.read(&format!("w{i}/file.txt")),
            format!("changed {i}\n")
        );
    }
    let log = repo.evolv(&["log", "--json"]).json();
    let successes = log["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["action"] == "apply" && e["success"] == true)
        .count();
    assert_eq!(successes, landed.len());
    assert_eq!(repo.status(), "?? mine.txt\n");
    assert_eq!(repo.read("mine.txt"), "the user's own untracked file\n");
    assert!(!repo.path().join(".git/index.lock").exists());
    repo.assert_fsck();
}

/// Issue 14's round: 8 writers, each proposing and landing 3 changes in
/// turn, all at once. No propose and no apply fails (the audit log and the
/// landing queue wait, never fail), no command reports a recovery it did
/// not make, the history is the base plus one commit per landing and no
/// revert, and every landing has its applied ref and audit record.
#[test]
fn eight_writers_proposing_and_landing_three_times_each_never_fail() {
    const WRITERS: usize = 8;
    const EACH: usize = 3;
    let files: Vec<(String, String)> = (0..WRITERS)
        .flat_map(|i| {
            (0..EACH).map(move |k| (format!("w{i}/f{k}.txt"), format!("value {i} {k}\n")))
        })
        .collect();
    let repo = TestRepo::with_files(&files);
    let base = repo.head();
    // Each writer: propose, then apply, three times; stops at the first
    // failure, printing what failed.
    let script = r#"set -e
for k in 0 1 2; do
  out=$("$EVOLV" propose --json -p "value $W $k" -r "changed $W $k" --scope "w$W/f$k.txt") || { echo "propose $k failed: $out"; exit 1; }
  id=$(printf '%s' "$out" | sed -n 's/.*"patch_id": "\([^"]*\)".*/\1/p')
  "$EVOLV" apply "$id" || { echo "apply $k ($id) failed"; exit 1; }
done"#;
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            sealed("sh", repo.home())
                .args(["-c", script])
                .env("EVOLV", BIN)
                .env("W", w.to_string())
                .current_dir(repo.path())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for (w, child) in writers.into_iter().enumerate() {
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(0),
            "writer {w}: {}{stderr}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert!(
            !stderr.contains("recovered"),
            "writer {w} reported a recovery: {stderr}"
        );
    }
    let history = repo.git(&["rev-list", "--first-parent", &format!("{base}..HEAD")]);
    assert_eq!(
        history.lines().count(),
        WRITERS * EACH,
        "one commit per landing:\n{history}"
    );
    let subjects = repo.git(&["log", "--format=%s", &format!("{base}..HEAD")]);
    assert!(!subjects.contains("Revert"), "{subjects}");
    for i in 0..WRITERS {
        for k in 0..EACH {
            assert_eq!(
                repo.read(&format!("w{i}/f{k}.txt")),
                format!("changed {i} {k}\n")
            );
        }
    }
    let applied = repo.git(&["for-each-ref", "--format=%(refname)", "refs/evolv/applied"]);
    assert_eq!(applied.lines().count(), WRITERS * EACH, "{applied}");
    let log = repo.evolv(&["log", "--json"]).json();
    let count = |action: &str| {
        log["entries"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["action"] == action && e["success"] == true)
            .count()
    };
    assert_eq!(count("apply"), WRITERS * EACH);
    assert_eq!(count("propose"), WRITERS * EACH);
    assert_eq!(repo.status(), "");
    assert!(!repo.path().join(".git/index.lock").exists());
    assert!(!repo.path().join(".git/evolv/journal").exists());
    repo.assert_fsck();
}

/// Rollbacks wait for their turn in the landing queue like applies (issue
/// 14 item 4): rolling back some landings while others land, every command
/// succeeds, each rollback is one revert commit of its landing, and the
/// tip holds exactly the changes still applied.
#[test]
fn rollbacks_queue_with_concurrent_applies_and_none_fails() {
    const EACH: usize = 4;
    let repo = writers_repo(2 * EACH);
    let ids = propose_each(&repo, 2 * EACH);
    for id in &ids[..EACH] {
        repo.evolv(&["apply", id]).ok();
    }
    let base = repo.head();
    let spawn = |args: [&str; 3]| {
        let mut cmd: Command = sealed(BIN, repo.home());
        cmd.args(args)
            .current_dir(repo.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd.spawn().unwrap()
    };
    let children: Vec<_> = (0..EACH)
        .flat_map(|i| {
            [
                (ids[i].clone(), spawn(["rollback", "--json", &ids[i]])),
                (
                    ids[EACH + i].clone(),
                    spawn(["apply", "--json", &ids[EACH + i]]),
                ),
            ]
        })
        .collect();
    for (id, child) in children {
        let out = child.wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{id}: no command may fail: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let new = repo.git(&["rev-list", "--first-parent", &format!("{base}..HEAD")]);
    assert_eq!(new.lines().count(), 2 * EACH, "one commit each:\n{new}");
    let reverts = repo.git(&["log", "--format=%s", &format!("{base}..HEAD")]);
    assert_eq!(
        reverts.lines().filter(|s| s.starts_with("Revert")).count(),
        EACH,
        "{reverts}"
    );
    for (i, id) in ids.iter().enumerate() {
        let want = if i < EACH { "value" } else { "changed" };
        assert_eq!(
            repo.read(&format!("w{i}/file.txt")),
            format!("{want} {i}\n")
        );
        assert_eq!(
            repo.rev(&format!("refs/evolv/applied/{id}")).is_some(),
            i >= EACH
        );
    }
    repo.assert_clean();
}

/// A validated apply whose branch is moved by someone else while its
/// validation runs (the validation command itself commits to the branch,
/// once): the proposal is replayed onto the new head, and validated again
/// only when the replay differs from the validated tree in a file the
/// proposal touches (docs/apply.md, "What was validated against what"). Returns
/// the validation runs (the last line of `a.txt` each saw) and the outcome.
fn apply_while_the_branch_moves(
    moved_file: &str,
    edit: &str,
) -> (TestRepo, Vec<String>, serde_json::Value) {
    let body = "alpha\n1\n2\n3\n4\n5\n6\nomega\n";
    let repo = TestRepo::with_files(&[("a.txt", body), ("other.txt", "other\n")]);
    let id = repo.propose("alpha", "ALPHA", &["--scope", "a.txt"]);
    let runs = repo.home().join("runs");
    let mark = repo.home().join("moved");
    let cmd = format!(
        "tail -n 1 a.txt >> '{runs}'; grep -q ALPHA a.txt || exit 1; \
         if [ ! -e '{mark}' ]; then : > '{mark}'; cd '{repo}' && {edit} {moved_file} && \
         git commit -qam 'moved meanwhile'; fi",
        runs = runs.display(),
        mark = mark.display(),
        repo = repo.path().display(),
    );
    let run = repo.apply_validating(&id, &cmd);
    run.ok();
    let seen = std::fs::read_to_string(&runs).unwrap();
    let seen = seen.lines().map(str::to_string).collect();
    let v = run.json();
    (repo, seen, v)
}

#[test]
fn a_head_moved_in_other_files_during_validation_lands_the_replay_without_revalidating() {
    let (repo, runs, v) = apply_while_the_branch_moves("other.txt", "echo more >>");
    assert_eq!(runs, ["omega"], "validated once");
    let moved = repo.rev("HEAD~1").unwrap();
    assert_eq!(
        repo.git(&["log", "-1", "--format=%s", "HEAD~1"]).trim(),
        "moved meanwhile"
    );
    assert_eq!(
        v["previous_head"],
        moved.as_str(),
        "replayed onto the moved head: {v}"
    );
    repo.assert_clean_with(&[
        ("a.txt", "ALPHA\n1\n2\n3\n4\n5\n6\nomega\n"),
        ("other.txt", "other\nmore\n"),
    ]);
}

#[test]
fn a_head_moved_in_a_touched_file_during_validation_is_validated_again() {
    let (repo, runs, v) = apply_while_the_branch_moves("a.txt", "sed -i s/omega/OMEGA/");
    assert_eq!(
        runs,
        ["omega", "OMEGA"],
        "validated again, on the replayed tree"
    );
    let moved = repo.rev("HEAD~1").unwrap();
    assert_eq!(v["previous_head"], moved.as_str(), "{v}");
    assert_eq!(v["validation"].as_array().map(Vec::len), Some(1), "{v}");
    assert_eq!(repo.read("a.txt"), "ALPHA\n1\n2\n3\n4\n5\n6\nOMEGA\n");
    assert_eq!(
        repo.git(&["rev-list", "--count", "HEAD"]).trim(),
        "3",
        "base, the moving commit, the landing"
    );
    repo.assert_clean();
}
