//! The small typing fixes of issue #10 item 9 that a user can observe:
//! stdout write errors are reported, the warm-worktree lock wait ends at
//! `--timeout`, and proposals stored in the old metadata format still read.

use std::fs::File;
use std::time::{Duration, Instant};

use crate::common::{BIN, TestRepo, error_code, sealed};

#[test]
fn a_failed_write_to_stdout_is_an_error_but_a_closed_pipe_is_not() {
    let (repo, id) = TestRepo::scenario_proposed(&[]);
    let full = File::create("/dev/full").unwrap();
    let out = sealed(BIN, repo.home())
        .args(["list"])
        .current_dir(repo.path())
        .stdout(full)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("standard output"), "{stderr}");
    // `| head -c0`: the reader goes away; that is not an error.
    let mut child = sealed(BIN, repo.home())
        .args(["show", &id])
        .current_dir(repo.path())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "{status:?}");
}

#[test]
fn waiting_for_a_busy_warm_worktree_ends_at_the_timeout() {
    let (repo, id) = TestRepo::scenario_proposed(&[]);
    let before = repo.head();
    // Another process holds every warm slot.
    let dir = repo.path().join(".git/evolv/worktrees");
    std::fs::create_dir_all(&dir).unwrap();
    let held: Vec<File> = (0..8)
        .map(|slot| {
            let f = File::create(dir.join(format!("evolv-wt-{slot}.lock"))).unwrap();
            f.lock().unwrap();
            f
        })
        .collect();
    let start = Instant::now();
    let run = repo.evolv(&[
        "apply",
        "--json",
        &id,
        "--validate",
        "true",
        "--timeout",
        "1",
    ]);
    let took = start.elapsed();
    assert_eq!(error_code(&run), "timeout", "{}", run.stdout);
    assert!(took < Duration::from_secs(20), "{took:?}");
    assert_eq!(repo.head(), before);
    drop(held);
    repo.evolv(&["apply", &id, "--validate", "true"]).ok();
    assert_ne!(repo.head(), before);
}

#[test]
fn a_proposal_stored_in_the_old_metadata_format_still_shows_and_applies() {
    let repo = TestRepo::scenario();
    repo.write(
        "backend/user.go",
        "package main\nfunc fetchUserData() string { return \"user\" }\n",
    );
    repo.git(&["add", "-A"]);
    let tree = repo.git(&["write-tree"]).trim().to_string();
    repo.git(&["checkout", "--", "."]);
    repo.git(&["reset", "-q", "--hard"]);
    let head = repo.head();
    let message = "Replace getUserData\n\nEvolv-Metadata: {\"operation\":\"replace\",\"pattern\":\"getUserData\",\"replacement\":\"fetchUserData\",\"literal\":false,\"scope\":[],\"created_at\":1763793123,\"files_scanned\":3,\"files_matched\":1,\"total_changes\":1,\"lines_added\":1,\"lines_removed\":1,\"affected_files\":[\"backend/user.go\"]}\nEvolv-Nonce: 1\n";
    let commit = repo
        .git(&["commit-tree", &tree, "-p", &head, "-m", message])
        .trim()
        .to_string();
    let id = "patch_1763793123_0ldf0rma";
    repo.git(&["update-ref", &format!("refs/evolv/proposals/{id}"), &commit]);
    let run = repo.evolv(&["show", "--json", id]);
    run.ok();
    assert_eq!(run.json()["pattern"], "getUserData");
    repo.evolv(&["apply", id]).ok();
    assert!(repo.read("backend/user.go").contains("fetchUserData"));
    repo.assert_fsck();
}
