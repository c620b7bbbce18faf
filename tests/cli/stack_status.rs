//! The status `list` gives a stacked proposal (issue 25 item 15): its
//! parent is the proposal below it, never the branch head, so it is
//! `pending` while the stack's bottom stands on the head.

use crate::common::TestRepo;

fn propose(repo: &TestRepo, args: &[&str]) -> String {
    let mut all = vec!["propose", "--json"];
    all.extend_from_slice(args);
    let run = repo.evolv(&all);
    run.ok();
    run.json_str("/patch_id")
}

/// `(id, status)` of every proposal, by id (`list` orders by time, and
/// these are made in one second).
fn statuses(repo: &TestRepo) -> Vec<(String, String)> {
    let v = repo.evolv(&["list", "--json"]).json();
    let mut all: Vec<(String, String)> = v["proposals"]
        .as_array()
        .expect("proposals")
        .iter()
        .map(|p| {
            let field = |k: &str| p[k].as_str().unwrap_or_default().to_string();
            (field("patch_id"), field("status"))
        })
        .collect();
    all.sort();
    all
}

#[test]
fn a_stacked_proposal_is_pending_until_the_branch_moves() {
    let repo = TestRepo::with_files(&[("a.txt", "one\ntwo\n")]);
    let p1 = propose(&repo, &["--file", "a.txt", "--old", "one", "--new", "ONE"]);
    let p2 = propose(
        &repo,
        &[
            "--onto", &p1, "--file", "a.txt", "--old", "two", "--new", "TWO",
        ],
    );
    let p3 = propose(
        &repo,
        &[
            "--onto", &p2, "--file", "a.txt", "--old", "TWO", "--new", "2",
        ],
    );
    let all = |status: &str| {
        let mut v: Vec<(String, String)> = [&p1, &p2, &p3]
            .map(|id| (id.clone(), status.to_string()))
            .into();
        v.sort();
        v
    };
    assert_eq!(statuses(&repo), all("pending"));

    repo.write("b.txt", "b\n");
    repo.commit_all("the branch moves");
    assert_eq!(statuses(&repo), all("base-moved"));
}
