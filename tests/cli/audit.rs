//! The audit log and the rest of the bookkeeping never fail a command or
//! undo a landing (issue 14 item 3, issue 16 item 5): foreign locks are
//! reported in git's words under `ref_locked`, records that cannot be
//! appended are journalled and chained by the next command, and the
//! automatic recovery is silent when there is nothing of its own to do.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{
    BIN, Run, TestRepo, assert_has, assert_has_all, assert_human, assert_lacks, error_code, sealed,
};
use crate::crash_scenario::{Scenario, full_change_set};

fn repo_with_proposal() -> (TestRepo, String, String) {
    let repo = TestRepo::with_files(&[("a.txt", "tok\nx\n"), ("b.txt", "other\n")]);
    let base = repo.head();
    let id = repo.propose("tok", "TOK", &[]);
    (repo, id, base)
}

fn pending_files(repo: &TestRepo) -> usize {
    std::fs::read_dir(repo.path().join(".git/evolv/pending"))
        .map(|d| {
            d.filter(|e| {
                e.as_ref()
                    .is_ok_and(|e| e.path().extension().is_some_and(|x| x == "json"))
            })
            .count()
        })
        .unwrap_or(0)
}

/// The apply records of `refs/evolv/audit` itself (not the journalled ones).
fn chained_apply_records(repo: &TestRepo, id: &str) -> usize {
    let log = repo.git(&["log", "--format=%B", "refs/evolv/audit"]);
    log.lines()
        .filter(|l| {
            l.contains("\"action\":\"apply\"") && l.contains(id) && l.contains("\"success\":true")
        })
        .count()
}

fn no_revert_in_history(repo: &TestRepo) {
    let subjects = repo.git(&["log", "--format=%s", "main"]);
    assert!(!subjects.contains("Revert"), "{subjects}");
    assert!(!subjects.contains("Restore files"), "{subjects}");
}

// See: issue 16 item 5 (apply landed, reverted, then said "nothing was changed").
#[test]
fn a_stale_audit_lock_never_undoes_a_landing_and_its_record_arrives_later() {
    let (repo, id, base) = repo_with_proposal();
    let lock = repo.path().join(".git/refs/evolv/audit.lock");
    std::fs::write(&lock, "").unwrap();
    let run = repo.evolv(&["apply", "--json", &id]);
    let v = run.success().stdout_json();
    let landed = v["commit"].as_str().unwrap().to_string();
    assert_eq!(repo.head(), landed);
    assert_eq!(repo.rev("HEAD~1").unwrap(), base);
    assert_eq!(v["audit_log_id"], "pending");
    let w = &v["warnings"][0];
    assert_eq!(w["code"], "ref_locked", "{v}");
    let msg = w["message"].as_str().unwrap();
    assert_has_all(
        msg,
        &["Unable to create '", "refs/evolv/audit.lock': File exists."],
    );
    assert!(
        !w["hint"]
            .as_str()
            .unwrap()
            .contains("run the command again")
    );
    no_revert_in_history(&repo);
    assert_eq!(repo.read("a.txt"), "TOK\nx\n");
    assert_eq!(repo.status(), "");
    assert_eq!(
        repo.rev(&format!("refs/evolv/applied/{id}")).as_deref(),
        Some(landed.as_str())
    );
    assert!(
        lock.exists(),
        "a lock git-evolv did not create is never deleted"
    );
    assert_eq!(chained_apply_records(&repo, &id), 0);
    assert_eq!(pending_files(&repo), 1);
    // The log shows the record while it waits.
    let log = repo.evolv(&["log", "--json"]);
    log.ok();
    let entries = log.json()["entries"].as_array().unwrap().clone();
    assert!(
        entries.iter().any(|e| e["id"] == "pending"
            && e["action"] == "apply"
            && e["patch_id"] == id.as_str())
    );
    // Text output works with the pending entry too.
    repo.evolv(&["log"]).ok();
    // Applying again is refused: it landed.
    let again = repo.evolv(&["apply", "--json", &id]);
    assert_eq!(error_code(&again), "already_applied");
    // Once the lock is gone, the next command chains the record, and says so.
    std::fs::remove_file(&lock).unwrap();
    let list = repo.evolv(&["list"]);
    list.ok();
    assert_human!(repo, "journalled_bookkeeping_chained", list.stderr.clone());
    assert_eq!(chained_apply_records(&repo, &id), 1);
    assert_eq!(pending_files(&repo), 0);
    // ... once only.
    let rec = repo.evolv(&["recover", "--json"]);
    rec.ok();
    assert_eq!(rec.json()["action"], "nothing");
    assert_eq!(chained_apply_records(&repo, &id), 1);
    repo.assert_fsck();
}

// See: issue 16 item 5 (propose exited 1 yet stored a proposal each time).
#[test]
fn propose_under_a_stale_audit_lock_stores_its_proposal_and_succeeds() {
    let repo = TestRepo::with_files(&[("a.txt", "tok\n")]);
    std::fs::write(repo.path().join(".git/refs/evolv/audit.lock"), "").unwrap_or_else(|_| {
        std::fs::create_dir_all(repo.path().join(".git/refs/evolv")).unwrap();
        std::fs::write(repo.path().join(".git/refs/evolv/audit.lock"), "").unwrap();
    });
    for n in 1..=2 {
        let run = repo.evolv(&["propose", "--json", "-p", "tok", "-r", &format!("t{n}")]);
        let v = run.success().stdout_json();
        assert_eq!(v["warnings"][0]["code"], "ref_locked", "{v}");
        let id = v["patch_id"].as_str().unwrap();
        assert!(repo.rev(&format!("refs/evolv/proposals/{id}")).is_some());
    }
    let text = repo.evolv(&["propose", "-p", "tok", "-r", "t3"]);
    text.ok();
    assert_human!(repo, "propose_audit_record_later", text.stderr.clone());
    let list = repo.evolv(&["list", "--json"]);
    assert_eq!(
        list.json()["proposals"].as_array().map_or(0, Vec::len),
        3,
        "{}",
        list.stdout
    );
}

#[test]
fn a_foreign_branch_lock_is_reported_in_gits_words_and_nothing_lands() {
    let (repo, id, base) = repo_with_proposal();
    let lock = repo.path().join(".git/refs/heads/main.lock");
    std::fs::write(&lock, "").unwrap();
    let index_before = std::fs::read(repo.path().join(".git/index")).unwrap();
    let run = repo.evolv(&["apply", "--json", &id]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert_eq!(error_code(&run), "ref_locked");
    let v = run.json();
    let msg = v["error"]["message"].as_str().unwrap();
    assert!(
        msg.starts_with("Unable to create '")
            && msg.ends_with("refs/heads/main.lock': File exists."),
        "{msg}"
    );
    assert!(
        !v["error"]["hint"]
            .as_str()
            .unwrap()
            .contains("run the command again")
    );
    assert!(lock.exists());
    std::fs::remove_file(&lock).unwrap();
    assert_eq!(repo.head(), base);
    assert_eq!(repo.status(), "");
    assert_eq!(
        std::fs::read(repo.path().join(".git/index")).unwrap(),
        index_before
    );
    assert!(repo.rev(&format!("refs/evolv/applied/{id}")).is_none());
    // Without the lock it lands.
    repo.evolv(&["apply", &id]).ok();
    no_revert_in_history(&repo);
}

#[test]
fn a_foreign_lock_on_a_bookkeeping_ref_is_journalled_and_completed() {
    let (repo, id, _) = repo_with_proposal();
    let lock = repo
        .path()
        .join(format!(".git/refs/evolv/applied/{id}.lock"));
    std::fs::create_dir_all(lock.parent().unwrap()).unwrap();
    std::fs::write(&lock, "").unwrap();
    let run = repo.evolv(&["apply", "--json", &id]);
    let v = run.success().stdout_json();
    assert_eq!(v["warnings"][0]["code"], "ref_locked", "{v}");
    assert!(
        v["warnings"][0]["message"]
            .as_str()
            .unwrap()
            .contains(&format!("applied/{id}.lock': File exists."))
    );
    let landed = v["commit"].as_str().unwrap().to_string();
    assert_eq!(repo.head(), landed);
    no_revert_in_history(&repo);
    assert!(repo.rev(&format!("refs/evolv/applied/{id}")).is_none());
    // Only the ref waits: the audit record is chained at once.
    assert_eq!(chained_apply_records(&repo, &id), 1);
    std::fs::remove_file(&lock).unwrap();
    repo.evolv(&["log"]).ok();
    assert_eq!(
        repo.rev(&format!("refs/evolv/applied/{id}")).as_deref(),
        Some(landed.as_str())
    );
    assert_eq!(chained_apply_records(&repo, &id), 1);
    repo.assert_fsck();
}

// The failpoint of issue 14 item 6: the audit append loses races on purpose.
#[test]
fn an_audit_append_that_loses_races_keeps_the_landing_and_the_record_arrives() {
    // A few lost races: the append waits its turn and the record is chained now.
    let (repo, id, _) = repo_with_proposal();
    let run = repo.evolv_env(
        &["apply", "--json", &id],
        &[("GIT_EVOLV_TEST_AUDIT_RACES", "3")],
    );
    run.ok();
    assert!(run.json()["warnings"].is_null(), "{}", run.stdout);
    assert_eq!(chained_apply_records(&repo, &id), 1);
    let races = repo.git(&["log", "--format=%B", "refs/evolv/audit"]);
    assert_eq!(
        races.matches("\"action\":\"race\"").count(),
        3,
        "the races really happened"
    );
    no_revert_in_history(&repo);

    // Every race lost: the landing stays landed, the record is journalled,
    // and the next command chains it.
    let (repo, id, base) = repo_with_proposal();
    let run = repo.evolv_env(
        &["apply", "--json", &id],
        &[("GIT_EVOLV_TEST_AUDIT_RACES", "100000")],
    );
    let v = run.success().stdout_json();
    assert_eq!(v["warnings"][0]["code"], "concurrent_update", "{v}");
    assert_eq!(repo.rev("HEAD~1").unwrap(), base);
    assert_eq!(repo.head(), v["commit"].as_str().unwrap());
    no_revert_in_history(&repo);
    assert_eq!(chained_apply_records(&repo, &id), 0);
    repo.evolv(&["list"]).ok();
    assert_eq!(chained_apply_records(&repo, &id), 1);
    assert_eq!(pending_files(&repo), 0);
    repo.assert_fsck();
}

/// Holds git-evolv's landing lock from another process, as a live landing
/// does. The caller waits for the child it gets back.
#[allow(clippy::zombie_processes)]
fn hold_landing_lock(repo: &Path, seconds: u32) -> std::process::Child {
    let lock = repo.join(".git/evolv/landing.lock");
    let mut child = Command::new("flock")
        .arg(&lock)
        .args(["sleep", &seconds.to_string()])
        .spawn()
        .expect("flock(1) is installed");
    let start = Instant::now();
    loop {
        let free = Command::new("flock")
            .args(["-n"])
            .arg(&lock)
            .arg("true")
            .status()
            .unwrap()
            .success();
        if !free {
            return child;
        }
        if start.elapsed() > Duration::from_secs(10) {
            let _ = child.wait();
            panic!("flock never took the lock");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn automatic_recovery_never_claims_a_landing_a_live_process_holds() {
    let sc = Scenario::new(full_change_set());
    // A landing whose journal is there: killed after the branch moved.
    let killed = sc.run(&["apply", &sc.id], Some("after-cas"));
    assert_eq!(killed.code, -1);
    assert!(sc.repo.path().join(".git/evolv/journal").exists());
    // While a live process holds the landing lock the journal is its own:
    // another command neither waits for it nor reports it as recovered.
    let mut holder = hold_landing_lock(sc.repo.path(), 3);
    let start = Instant::now();
    let run = sc.run(&["log"], None);
    run.ok();
    assert!(
        start.elapsed() < Duration::from_secs(2),
        "it waited for the live landing"
    );
    assert_lacks(&run.stderr, "recovered");
    assert!(sc.repo.path().join(".git/evolv/journal").exists());
    holder.wait().unwrap();
    // Once nobody holds it, the next command recovers it and says so.
    let run = sc.run(&["log"], None);
    run.ok();
    assert_has(&run.stderr, "recovered: completed the interrupted landing");
    assert!(sc.assert_consistent("after recovery"));
}

#[test]
fn commands_running_beside_landings_never_fail_and_never_say_recovered() {
    let mut files: Vec<(String, String)> = (0..6)
        .map(|i| (format!("w{i}.txt"), format!("value {i}\n")))
        .collect();
    files.push(("stable.txt".into(), "stable\n".into()));
    let repo = TestRepo::with_files(&files);
    let ids: Vec<String> = (0..6)
        .map(|i| {
            repo.propose(
                &format!("value {i}"),
                &format!("changed {i}"),
                &["--scope", &format!("w{i}.txt")],
            )
        })
        .collect();
    let spawn = |args: Vec<String>| {
        let mut cmd = sealed(BIN, repo.home());
        cmd.args(&args)
            .current_dir(repo.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd.spawn().unwrap()
    };
    let mut children = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        children.push(("apply", spawn(vec!["apply".into(), id.clone()])));
        children.push((
            "propose",
            spawn(vec![
                "propose".into(),
                "-p".into(),
                "stable".into(),
                "-r".into(),
                format!("s{i}"),
            ]),
        ));
        children.push(("list", spawn(vec!["list".into()])));
    }
    for (what, child) in children {
        let run = Run::wait(child);
        assert_eq!(run.code, 0, "{what}: {}{}", run.stdout, run.stderr);
        assert!(!run.stderr.contains("recovered"), "{what}: {}", run.stderr);
    }
    for i in 0..6 {
        assert_eq!(repo.read(&format!("w{i}.txt")), format!("changed {i}\n"));
    }
    let log = repo.evolv(&["log", "--json"]).json();
    let entries = log["entries"].as_array().unwrap();
    let count = |action: &str| {
        entries
            .iter()
            .filter(|e| e["action"] == action && e["success"] == true)
            .count()
    };
    assert_eq!(count("apply"), 6);
    assert_eq!(count("propose"), 12);
    no_revert_in_history(&repo);
    repo.assert_fsck();
}
