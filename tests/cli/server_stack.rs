//! Issue 38 item 17: a pushed series of commits is a stack, one proposal
//! per commit, each validated at its own tree; each member lands or is
//! refused with its reason, and the push output lists each member.

use crate::common::{assert_has, assert_lacks};
use crate::server_fixture::{Server, git_has_proc_receive};

fn server() -> Option<Server> {
    if !git_has_proc_receive() {
        return None;
    }
    let s = Server::new(&[("a.txt", "one\n")]);
    // Passes on every tree but one that holds bad.txt.
    s.git(&["config", "evolv.validate", "test ! -e bad.txt"]);
    Some(s)
}

fn by_pushed<'a>(records: &'a [serde_json::Value], commit: &str) -> &'a serde_json::Value {
    records
        .iter()
        .find(|r| r["pushed"] == commit)
        .unwrap_or_else(|| panic!("no record of {commit}: {records:?}"))
}

#[test]
fn a_series_of_three_is_three_proposals_each_landed_and_listed() {
    let Some(s) = server() else { return };
    let c = s.clone("c1");
    let commits: Vec<String> = (1..=3)
        .map(|n| s.commit(&c, &format!("f{n}.txt"), "x\n", &format!("feat: f{n}")))
        .collect();
    let run = s.push(&c, "origin", &["HEAD:refs/for/main"], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_has(
        &run.stderr,
        "a stack of 3 commits for main, one proposal each",
    );
    assert_eq!(
        run.stderr.matches(" landed as ").count(),
        3,
        "{}",
        run.stderr
    );
    assert_eq!(s.ref_target("main").unwrap(), commits[2]);
    let records = s.outcomes();
    assert_eq!(records.len(), 3, "{records:?}");
    for commit in &commits {
        let rec = by_pushed(&records, commit);
        assert_eq!(rec["state"], "landed", "{rec}");
        let id = rec["id"].as_str().unwrap();
        assert_eq!(
            s.ref_target(&format!("refs/evolv/proposals/{id}"))
                .as_deref(),
            Some(commit.as_str())
        );
        assert_eq!(
            s.ref_target(&format!("refs/evolv/applied/{id}")).as_deref(),
            Some(commit.as_str())
        );
    }
    // Each member's old is the one below it.
    assert_eq!(by_pushed(&records, &commits[1])["old"], commits[0].as_str());
    s.assert_fsck();
}

#[test]
fn each_member_is_validated_at_its_own_tree_and_lands_or_is_refused_with_its_reason() {
    let Some(s) = server() else { return };
    let c = s.clone("c1");
    let main = s.ref_target("main").unwrap();
    let good = s.commit(&c, "b.txt", "b\n", "feat: b");
    let bad = s.commit(&c, "bad.txt", "x\n", "feat: a bad tree");
    std::fs::remove_file(c.join("bad.txt")).unwrap();
    s.git_in(&c, &["add", "-A"], &[]);
    let run = s.git_in(&c, &["commit", "-q", "-m", "fix: drop bad.txt"], &[]);
    assert_eq!(run.code, 0);
    let top = s
        .git_in(&c, &["rev-parse", "HEAD"], &[])
        .stdout
        .trim()
        .to_string();
    // The top's tree passes: only a validation of each member's own tree
    // finds the middle one.
    let run = s.push(&c, "origin", &["HEAD:refs/for/main"], &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_has(&run.stderr, "a stack of 3 commits");
    assert_has(&run.stderr, "1 of 3 commits landed");
    assert_has(&run.stderr, "refused (validation_failed)");
    assert_has(&run.stderr, "refused (stack_member_refused)");
    assert_lacks(&run.stderr, "fail to run proc-receive");
    assert_eq!(s.ref_target("main").unwrap(), good);
    let records = s.outcomes();
    assert_eq!(records.len(), 3);
    assert_eq!(by_pushed(&records, &good)["state"], "landed");
    assert_eq!(by_pushed(&records, &good)["old"], main.as_str());
    let bad_rec = by_pushed(&records, &bad);
    assert_eq!(bad_rec["state"], "refused");
    assert_eq!(bad_rec["reason"]["code"], "validation_failed");
    let top_rec = by_pushed(&records, &top);
    assert_eq!(top_rec["state"], "refused");
    assert_eq!(top_rec["reason"]["code"], "stack_member_refused");
    assert_eq!(top_rec["members"].as_array().unwrap().len(), 3);
    // A re-push after fixing the middle lands only what is new.
    s.git_in(&c, &["reset", "-q", "--hard", &good], &[]);
    let fixed = s.commit(&c, "c.txt", "c\n", "feat: c instead");
    let run = s.push(&c, "origin", &["HEAD:refs/for/main"], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(s.ref_target("main").unwrap(), fixed);
    s.assert_fsck();
}

/// Verdicts make a re-push cheap: a pass the server made of its commands
/// on a tree stands for that tree; a failure is run again (a pusher cannot
/// ask for `--no-cache`, and a flaky failure must not refuse a tree forever).
#[test]
fn a_servers_pass_is_reused_for_the_same_tree_and_a_failure_runs_again() {
    let Some(s) = server() else { return };
    // Inside the bare repository: the sandbox shows it (read-only).
    let flag = s.bare.join("validation-passes");
    s.git(&[
        "config",
        "evolv.validate",
        &format!("test -f {}", flag.display()),
    ]);
    let c = s.clone("c1");
    let first = s.commit(&c, "b.txt", "b\n", "feat: b");
    let run = s.push(&c, "origin", &["HEAD:refs/for/main"], &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_has(&run.stderr, "validation_failed");
    // The same tree again, now passing: the stored failure is not reused.
    std::fs::write(&flag, "").unwrap();
    s.git_in(&c, &["commit", "-q", "--amend", "-m", "feat: b again"], &[]);
    let run = s.push(&c, "origin", &["HEAD:refs/for/main"], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_ne!(s.ref_target("main").unwrap(), first);
    // An empty commit on top has the tree just validated: its pass stands
    // although the command would fail now.
    std::fs::remove_file(&flag).unwrap();
    let run = s.git_in(
        &c,
        &["commit", "-q", "--allow-empty", "-m", "chore: empty"],
        &[],
    );
    assert_eq!(run.code, 0);
    let empty = s
        .git_in(&c, &["rev-parse", "HEAD"], &[])
        .stdout
        .trim()
        .to_string();
    let run = s.push(&c, "origin", &["HEAD:refs/for/main"], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(s.ref_target("main").unwrap(), empty);
    assert_eq!(s.refs("refs/evolv/verdicts/").len(), 1);
}

#[test]
fn four_clones_pushing_stacks_at_once_land_every_member_once() {
    let Some(s) = server() else { return };
    let clones: Vec<_> = (0..4).map(|n| s.clone(&format!("c{n}"))).collect();
    for (n, c) in clones.iter().enumerate() {
        for k in 1..=3 {
            s.commit(
                c,
                &format!("c{n}-{k}.txt"),
                "x\n",
                &format!("feat: c{n} {k}"),
            );
        }
    }
    // Every push started before any is waited for.
    let children: Vec<_> = clones
        .iter()
        .map(|c| {
            let mut cmd = crate::common::sealed("git", s.home());
            cmd.args(["push", "origin", "HEAD:refs/for/main"])
                .current_dir(c)
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped());
            cmd.spawn().unwrap()
        })
        .collect();
    let runs: Vec<_> = children.into_iter().map(crate::common::Run::wait).collect();
    for run in &runs {
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert_eq!(
            run.stderr.matches(" landed as ").count(),
            3,
            "{}",
            run.stderr
        );
    }
    let records = s.outcomes();
    assert_eq!(records.len(), 12, "{records:?}");
    assert!(
        records.iter().all(|r| r["state"] == "landed"),
        "{records:?}"
    );
    let files = s.git(&["ls-tree", "--name-only", "main"]);
    for n in 0..4 {
        for k in 1..=3 {
            assert!(files.contains(&format!("c{n}-{k}.txt")), "{files}");
        }
    }
    let count = s.git(&["rev-list", "--count", "main"]);
    assert_eq!(count.trim(), "13", "one commit each, nothing twice");
    s.assert_fsck();
}
