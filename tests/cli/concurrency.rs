//! Several landings at once on one repository, with `git status` running
//! meanwhile (a small round of issue 5 §4 and issue 14 item 4): landings
//! queue for their turn, so every apply lands, none fails; the branch's
//! first-parent history is the base plus exactly one commit per landing,
//! no revert; every success has its applied ref and one audit record, and
//! the checkout is clean but for the user's own file.

use std::process::{Command, Stdio};

use crate::common::{BIN, TestRepo, sealed};

#[test]
fn concurrent_applies_land_whole_or_fail_cleanly() {
    const WRITERS: usize = 8;
    let files: Vec<(String, String)> = (0..WRITERS)
        .map(|i| (format!("w{i}/file.txt"), format!("value {i}\n")))
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    let repo = TestRepo::with_files(&refs);
    repo.write("mine.txt", "the user's own untracked file\n");
    let ids: Vec<String> = (0..WRITERS)
        .map(|i| {
            repo.propose(
                &format!("value {i}"),
                &format!("changed {i}"),
                &["--scope", &format!("w{i}/**")],
            )
        })
        .collect();
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
