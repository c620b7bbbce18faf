//! Undo and redo killed (SIGKILL) at every crash point after an earlier
//! undo and redo of the same landing, and after a random delay again and
//! again on one repository: each time the next command finishes or rolls
//! back what the killed one began. The branch, the work tree and the op
//! log always agree, and `git fsck` stays clean.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;

use crate::common::{TestRepo, sealed};
use crate::crash_scenario::{POINTS, crash_bin};
use crate::undo::ops;

/// Where the newest operation says it left `refs/heads/main`.
fn logged_branch(repo: &TestRepo, at: &str) -> Value {
    let newest = &ops(repo, 1)[0];
    let branch = newest["refs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ref"] == "refs/heads/main")
        .unwrap_or_else(|| panic!("{at}: {newest}"));
    branch["new"].clone()
}

/// Runs `git evolv undo` in `repo` with the crash build, killed at `point`.
fn undo_killed_at(repo: &TestRepo, point: &str) {
    let mut cmd = sealed(crash_bin().to_str().unwrap(), repo.home());
    cmd.args(["undo"]).current_dir(repo.path());
    cmd.env("GIT_EVOLV_CRASHPOINT", point);
    let code = cmd.output().unwrap().status.code();
    assert_eq!(code, None, "{point}: not killed");
}

/// An undo and a redo move the branch between the same two commits, so
/// the second undo's record differs from the first's only in what it
/// undoes: recovery of the second must not take the first for it (it did,
/// and left the log saying the branch was where it no longer was).
#[test]
fn a_second_undo_of_a_landing_killed_at_every_crash_point_is_logged_by_recovery() {
    for point in POINTS.iter().skip(2) {
        let (repo, id) = TestRepo::scenario_proposed(&[]);
        let h = repo.head();
        repo.evolv(&["apply", &id]).ok();
        repo.evolv(&["undo"]).ok();
        repo.evolv(&["redo"]).ok();
        let n = repo.head();
        undo_killed_at(&repo, point);
        repo.evolv(&["list"]).ok();
        let head = repo.head();
        assert!(head == h || head == n, "{point}: HEAD at {head}");
        assert_eq!(logged_branch(&repo, point), head.as_str(), "{point}");
        let undos = ops(&repo, 10)
            .iter()
            .filter(|o| o["kind"] == "undo")
            .count();
        assert_eq!(undos, if head == h { 2 } else { 1 }, "{point}");
        repo.assert_clean();
    }
}

/// xorshift: enough randomness for delays, seeded from the clock (the
/// seed is printed, so a failing run can be told apart).
fn delays(seed: u64) -> impl FnMut() -> Duration {
    let mut x = seed | 1;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        Duration::from_micros(x % 60_000)
    }
}

#[test]
fn undo_and_redo_killed_at_random_moments_are_recovered_by_the_next_command() {
    let (repo, id) = TestRepo::scenario_proposed(&[]);
    let h = repo.head();
    repo.evolv(&["apply", &id]).ok();
    let n = repo.head();
    let seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .subsec_nanos() as u64;
    let mut delay = delays(seed);
    for round in 0..24 {
        // `undo` alone undoes the newest operation: after an undo that is
        // the undo itself, so each round flips the landing.
        let mut cmd = sealed(crash_bin().to_str().unwrap(), repo.home());
        cmd.args(["undo"]).current_dir(repo.path());
        let mut child = cmd.spawn().unwrap();
        std::thread::sleep(delay());
        let _ = child.kill();
        child.wait().unwrap();
        // The next command recovers; then everything agrees.
        repo.evolv(&["list"]).ok();
        let head = repo.head();
        let at = format!("seed {seed}, round {round}");
        let user = repo.read("backend/user.go");
        match head {
            _ if head == h => assert!(user.contains("getUserData"), "{at}: {user}"),
            _ if head == n => assert!(user.contains("fetchUserData"), "{at}: {user}"),
            _ => panic!("{at}: HEAD at {head}, neither {h} nor {n}"),
        }
        repo.assert_clean();
        assert_eq!(
            logged_branch(&repo, &at),
            head.as_str(),
            "{at}: the log says where HEAD is"
        );
    }
    repo.assert_fsck();
}

/// The undo of a propose moves one ref, by compare-and-swap. Killed after
/// its journal, or after the ref moved and before the record: the next
/// command completes it (the ref gone, the undo logged once), and a redo
/// brings the proposal back.
#[test]
fn a_one_ref_undo_killed_before_its_record_is_completed_by_the_next_command() {
    for point in ["transaction-journalled", "transaction-refs-moved"] {
        let (repo, id) = TestRepo::scenario_proposed(&[]);
        let proposal = format!("refs/evolv/proposals/{id}");
        let commit = repo.rev(&proposal).unwrap();
        let propose = ops(&repo, 1)[0]["id"].clone();
        undo_killed_at(&repo, point);
        if point == "transaction-refs-moved" {
            assert!(repo.rev(&proposal).is_none(), "{point}: the ref moved");
            // Read with git: any git-evolv command would complete it.
            let tip = repo.git(&["log", "-1", "--format=%B", "refs/evolv/audit"]);
            assert!(
                tip.contains(r#""action":"propose""#),
                "{point}: no record yet: {tip}"
            );
        }
        repo.evolv(&["list"]).ok();
        assert!(repo.rev(&proposal).is_none(), "{point}");
        let log = ops(&repo, 10);
        assert_eq!(log[0]["kind"], "undo", "{point}: {log:?}");
        assert_eq!(log[0]["undoes"], propose, "{point}");
        assert_eq!(
            log.iter().filter(|o| o["kind"] == "undo").count(),
            1,
            "{point}"
        );
        let journal = repo.path().join(".git/evolv/pending");
        let left = std::fs::read_dir(&journal).map_or(0, |d| d.count());
        assert_eq!(left, 0, "{point}: journal files left in {journal:?}");
        repo.evolv(&["redo"]).ok();
        assert_eq!(repo.rev(&proposal), Some(commit), "{point}");
        repo.assert_fsck();
    }
}
