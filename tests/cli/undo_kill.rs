//! Undo and redo killed (SIGKILL) after a random delay, again and again
//! on one repository: each time the next command finishes or rolls back
//! what the killed one began. The branch, the work tree and the op log
//! always agree, and `git fsck` stays clean.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::common::sealed;
use crate::crash_scenario::crash_bin;
use crate::undo::ops;

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
#[ignore = "finds a bug not yet fixed: about one run in three, after a kill the newest op's branch move disagrees with HEAD (run with --ignored)"]
fn undo_and_redo_killed_at_random_moments_are_recovered_by_the_next_command() {
    let (repo, id) = crate::common::TestRepo::scenario_proposed(&[]);
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
        let newest = &ops(&repo, 1)[0];
        let branch = newest["refs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["ref"] == "refs/heads/main")
            .unwrap_or_else(|| panic!("{at}: {newest}"));
        assert_eq!(
            branch["new"],
            head.as_str(),
            "{at}: the log says where HEAD is"
        );
    }
    repo.assert_fsck();
}
