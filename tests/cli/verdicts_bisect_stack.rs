//! `git evolv test --bisect <top proposal>`: the first failing proposal of
//! a stack, named by its id, in at most ⌈log2 N⌉+1 runs; the branch and
//! the proposals untouched.

use crate::common::TestRepo;

/// A stack of 7 proposals, each adding a line `n` to `log`; from the 5th
/// on, the line is `bad`. Returns the repository and the ids, bottom first.
fn stack_of_seven() -> (TestRepo, Vec<String>) {
    let repo = TestRepo::with_files(&[("log", "start\n")]);
    let mut ids: Vec<String> = Vec::new();
    let mut text = String::from("start\n");
    for i in 1..=7 {
        let line = if i >= 5 {
            format!("bad {i}")
        } else {
            format!("ok {i}")
        };
        let old = text.trim_end().to_string();
        let new = format!("{old}\n{line}");
        let mut args = vec!["propose", "--json"];
        if let Some(below) = ids.last() {
            args.extend(["--onto", below.as_str()]);
        }
        args.extend(["--file", "log", "--old", &old, "--new", &new]);
        let run = repo.evolv(&args);
        run.success();
        ids.push(run.json_str("/patch_id"));
        text = format!("{new}\n");
    }
    (repo, ids)
}

#[test]
fn bisect_of_a_stack_names_its_first_failing_proposal() {
    let (repo, ids) = stack_of_seven();
    let head = repo.head();
    let runs = repo.home().join("runs");
    let cmd = format!(
        "echo x >> {}; tail -1 log; ! grep -q bad log",
        runs.display()
    );
    let top = ids.last().unwrap();
    let run = repo.evolv(&["test", "--json", "--command", &cmd, "--bisect", top]);
    run.code(1);
    let found = &run.json()["bisect"];
    assert_eq!(found["members"], 7);
    assert_eq!(found["first_failing"]["target"], ids[4].as_str(), "{found}");
    assert_eq!(found["first_failing"]["output_tail"], "bad 5\n");
    let count = std::fs::read_to_string(&runs).unwrap().lines().count();
    assert!(count <= 4, "{count} runs for 7 (⌈log2 7⌉+1 = 4)");
    // Every member is a proposal of the stack, named by its id.
    for v in found["verdicts"].as_array().unwrap() {
        assert!(
            ids.contains(&v["target"].as_str().unwrap().to_string()),
            "{v}"
        );
    }
    // The human answer names it too; nothing moved.
    let human = repo.evolv(&["test", "--command", &cmd, "--bisect", top]);
    human.code(1);
    assert!(
        human.stdout.contains(&format!("first failing: {}", ids[4])),
        "{}",
        human.stdout
    );
    assert_eq!(repo.head(), head);
    assert_eq!(repo.status(), "");
    let list = repo.evolv(&["list", "--json"]).json();
    assert_eq!(list["proposals"].as_array().unwrap().len(), 7);
    // A stack that passes: one run, exit 0. A bad id: a clear error.
    repo.evolv(&["test", "--command", "true", "--bisect", top])
        .success();
    let bad = repo.evolv(&["test", "--command", "true", "--bisect", "nonsense"]);
    bad.code(2);
    assert!(bad.stderr.contains("nor a proposal id"), "{}", bad.stderr);
    repo.assert_fsck();
}
