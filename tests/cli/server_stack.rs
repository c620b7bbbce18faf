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
