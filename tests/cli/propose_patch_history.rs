//! `propose --patch` on real history (issue 30 item 3): for every commit of
//! two public projects' history (fixtures/history, offline), the commit's
//! `git diff --binary` proposed onto its parent gives exactly the commit's
//! tree; `git format-patch` series give the series' trees, as a stack.

use std::path::Path;

use crate::common::TestRepo;

/// A repository holding the bundle `name`'s history as `refs/history`.
fn history(name: &str) -> TestRepo {
    let repo = TestRepo::empty();
    let bundle =
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("fixtures/history/{name}.bundle"));
    let bundle = bundle.to_str().expect("utf-8 path");
    repo.git(&["fetch", "-q", bundle, "main:refs/history"]);
    repo
}

fn tree(repo: &TestRepo, rev: &str) -> String {
    repo.git(&["rev-parse", &format!("{rev}^{{tree}}")])
        .trim()
        .to_string()
}

/// Proposes `patch` onto `parent` (HEAD moved there, the work tree left as
/// it is: propose reads only the base commit) and returns the answer.
fn propose_onto(repo: &TestRepo, parent: &str, patch: &[u8]) -> serde_json::Value {
    repo.git(&["update-ref", "HEAD", parent]);
    let file = repo.home().join("history.patch");
    std::fs::write(&file, patch).expect("write the patch");
    let run = repo.evolv(&[
        "propose",
        "--json",
        "--patch",
        file.to_str().expect("utf-8"),
    ]);
    run.ok();
    run.json()
}

fn round_trip(name: &str) -> usize {
    let repo = history(name);
    let commits = repo.git(&["rev-list", "--reverse", "refs/history"]);
    let commits: Vec<&str> = commits.lines().collect();
    let mut proposed = 0;
    for pair in commits.windows(2) {
        let (parent, commit) = (pair[0], pair[1]);
        let patch = repo
            .git_run(&["diff", "--binary", "-M", parent, commit])
            .ok()
            .stdout_bytes
            .clone();
        if patch.is_empty() {
            continue;
        }
        let answer = propose_onto(&repo, parent, &patch);
        let id = answer["patch_id"].as_str().expect("a proposal id");
        let got = tree(&repo, &format!("refs/evolv/proposals/{id}"));
        assert_eq!(
            got,
            tree(&repo, commit),
            "{name}: {commit} through its diff"
        );
        repo.git(&["update-ref", "-d", &format!("refs/evolv/proposals/{id}")]);
        proposed += 1;
    }
    // Series of five, as `git format-patch` writes them: a stack.
    for start in (0..commits.len().saturating_sub(6)).step_by(commits.len() / 4) {
        let (base, last) = (commits[start], commits[start + 5]);
        let mbox = repo
            .git_run(&[
                "format-patch",
                "--binary",
                "--stdout",
                &format!("{base}..{last}"),
            ])
            .ok()
            .stdout_bytes
            .clone();
        let answer = propose_onto(&repo, base, &mbox);
        let stack = answer["proposals"]
            .as_array()
            .expect("a series answers with proposals");
        let trees: Vec<String> = stack
            .iter()
            .map(|p| {
                tree(
                    &repo,
                    &format!("refs/evolv/proposals/{}", p["patch_id"].as_str().unwrap()),
                )
            })
            .collect();
        let wanted: Vec<String> = commits[start + 1..=start + 5]
            .iter()
            .filter(|c| {
                !repo
                    .git(&["diff", "--name-only", &format!("{c}^"), c])
                    .trim()
                    .is_empty()
            })
            .map(|c| tree(&repo, c))
            .collect();
        assert_eq!(trees, wanted, "{name}: the series {base}..{last}");
    }
    repo.assert_fsck();
    proposed
}

#[test]
fn every_commit_of_real_history_round_trips_through_its_diff() {
    let threads: Vec<_> = ["fd", "tokio"]
        .into_iter()
        .map(|name| std::thread::spawn(move || (name, round_trip(name))))
        .collect();
    let mut total = 0;
    for t in threads {
        let (name, proposed) = t.join().expect("no panic");
        assert!(proposed > 200, "{name}: {proposed} commits proposed");
        total += proposed;
    }
    assert!(total > 600, "{total}");
}
