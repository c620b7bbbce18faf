//! Two processes judging the same key at once (issue 27 item 7): the
//! command runs once, or twice with one verdict stored once, never a torn
//! or foreign entry. Both runs are held until the other has started, so
//! the two stores race for the same ref.

use serde_json::Value;

use crate::common::{Run, TestRepo};
use crate::verdicts::runs;

/// Counts its runs in `$HOME/runs` and waits (up to 5 s) for a second run
/// to start, so two runs overlap.
fn meeting(repo: &TestRepo) -> String {
    let runs = repo.home().join("runs");
    let runs = runs.display();
    format!(
        "echo ran >> {runs}; i=0; while [ $(wc -l < {runs}) -lt 2 ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done; echo met"
    )
}

/// Every verdict ref, each holding one whole passing verdict.
fn verdict_refs(repo: &TestRepo) -> Vec<String> {
    let refs: Vec<String> = repo
        .git(&[
            "for-each-ref",
            "--format=%(refname)",
            "refs/evolv/verdicts/",
        ])
        .lines()
        .map(str::to_string)
        .collect();
    for name in &refs {
        let message = repo.git(&["log", "-1", "--format=%B", name]);
        let json = message.split("\nEvolv-Mark: ").next().unwrap();
        let v: Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {message}"));
        assert_eq!(v["status"], "pass", "{v}");
    }
    refs
}

#[test]
fn two_tests_of_one_key_at_once_store_one_whole_verdict() {
    let repo = TestRepo::with_files(&[("a.txt", "one\n")]);
    let cmd = meeting(&repo);
    let args = ["test", "--json", "--command", cmd.as_str()];
    let (a, b) = (repo.spawn_evolv(&args), repo.spawn_evolv(&args));
    let (a, b) = (Run::wait(a), Run::wait(b));
    a.success();
    b.success();
    let (va, vb) = (&a.json()["verdicts"][0], &b.json()["verdicts"][0]);
    assert_eq!(va["status"], "pass");
    assert_eq!(vb["status"], "pass");
    assert_eq!(va["tree"], vb["tree"]);
    assert!((1..=2).contains(&runs(&repo)), "{} runs", runs(&repo));
    assert_eq!(verdict_refs(&repo).len(), 1, "stored once");
    let again = repo.evolv(&["test", "--json", "--command", &cmd]);
    assert_eq!(again.json()["verdicts"][0]["cached"], true);
    assert_eq!(again.json()["verdicts"][0]["source"], "local");
    repo.assert_fsck();
}

#[test]
fn a_test_and_an_apply_of_one_tree_at_once_agree() {
    let (repo, id) = TestRepo::proposed(&[("a.txt", "one\n")], "one", "two");
    let cmd = meeting(&repo);
    repo.set_config("evolv.validate", &cmd);
    let head = repo.head();
    let test = repo.spawn_evolv(&["test", "--json", &id]);
    let apply = repo.spawn_evolv(&["apply", "--json", &id]);
    let (test, apply) = (Run::wait(test), Run::wait(apply));
    test.success();
    apply.success();
    assert_eq!(test.json()["verdicts"][0]["status"], "pass");
    assert_eq!(apply.json()["verdict"]["status"], "pass");
    assert!((1..=2).contains(&runs(&repo)), "{} runs", runs(&repo));
    assert_eq!(verdict_refs(&repo).len(), 1, "stored once");
    assert_eq!(repo.rev("HEAD~1").unwrap(), head);
    assert_eq!(repo.read("a.txt"), "two\n");
    assert_eq!(repo.status(), "");
    repo.assert_fsck();
}
