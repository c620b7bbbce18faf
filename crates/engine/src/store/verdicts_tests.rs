use super::*;
use crate::git::test_git::git;
use crate::store::test_repo as repo;

fn verdict(key: &str, status: Status) -> Verdict {
    Verdict {
        key: key.into(),
        target: "HEAD".into(),
        tree: "4b825dc642cb6eb9a060e54bf8d69288fbee4904".into(),
        command: "make test".into(),
        commands: vec![CommandExit {
            command: "make test".into(),
            exit_code: Some(if status == Status::Pass { 0 } else { 1 }),
            duration_ms: 5,
        }],
        status,
        exit_code: if status == Status::Pass { 0 } else { 1 },
        duration_ms: 5,
        output_tail: "ok\n".into(),
        made_at: 7,
        made_by: made_by(),
    }
}

#[test]
fn exit_codes_read_as_git_bisect_run_reads_them() {
    let read: Vec<&str> = [0, 1, 2, 124, 125, 126, 127, 128, 255, -1]
        .map(|c| Status::of_exit(c).as_str())
        .to_vec();
    assert_eq!(
        read,
        [
            "pass", "fail", "fail", "fail", "skip", "fail", "abort", "abort", "abort", "abort"
        ]
    );
}

#[test]
fn a_stored_verdict_is_found_by_its_key_and_only_by_it() {
    let (_d, repo) = repo();
    assert_eq!(lookup(&repo, "k1").unwrap(), None);
    store(&repo, &verdict("k1", Status::Pass)).unwrap();
    let found = lookup(&repo, "k1").unwrap().unwrap();
    assert_eq!(found.verdict, verdict("k1", Status::Pass));
    assert_eq!(found.source, "local");
    assert_eq!(lookup(&repo, "k2").unwrap(), None);
    let out = git(
        repo.common_dir(),
        &["cat-file", "-p", "refs/evolv/verdicts/k1^{tree}"],
    );
    assert_eq!(out, "", "a verdict's tree is the empty tree");
}

/// The first verdict stored under a key stays; a second store returns it.
#[test]
fn a_key_is_stored_once() {
    let (_d, repo) = repo();
    store(&repo, &verdict("k", Status::Pass)).unwrap();
    let second = store(&repo, &verdict("k", Status::Fail)).unwrap();
    assert_eq!(second.verdict.status, Status::Pass);
    assert_eq!(
        lookup(&repo, "k").unwrap().unwrap().verdict.status,
        Status::Pass
    );
}

/// A verdict written by someone without this clone's secret (a fetched or
/// pushed ref, or by hand) is not used, even a pass at our own ref.
#[test]
fn a_verdict_without_our_mark_is_not_trusted() {
    let (_d, repo) = repo();
    let json = serde_json::to_string(&verdict("k", Status::Pass)).unwrap();
    let forged = format!("{json}{MARK_TRAILER}{}\n", "0".repeat(40));
    for message in [forged, json] {
        let sig = git::signature_now("x", "x@y").unwrap();
        let oid = repo
            .write_record(&message, repo.empty_tree().unwrap(), &[], &sig)
            .unwrap();
        git::compare_and_swap_force(&repo, &verdict_ref("k"), oid, "t").unwrap();
        assert_eq!(lookup(&repo, "k").unwrap(), None);
    }
    // Our own verdict replaces the foreign one.
    store(&repo, &verdict("k", Status::Fail)).unwrap();
    assert_eq!(
        lookup(&repo, "k").unwrap().unwrap().verdict.status,
        Status::Fail
    );
}

#[test]
fn a_remotes_verdict_counts_only_when_the_remote_is_trusted() {
    let (_d, repo) = repo();
    let json = serde_json::to_string(&verdict("k", Status::Pass)).unwrap();
    let sig = git::signature_now("x", "x@y").unwrap();
    let oid = repo
        .write_record(&json, repo.empty_tree().unwrap(), &[], &sig)
        .unwrap();
    let name = format!("{REMOTES_PREFIX}ci/verdicts/k");
    git::compare_and_swap_force(&repo, &name, oid, "t").unwrap();
    assert_eq!(lookup(&repo, "k").unwrap(), None);
    git(
        repo.common_dir(),
        &["config", "evolv.test.trust", "origin, ci"],
    );
    let repo = crate::git::open_any(repo.common_dir()).unwrap();
    let found = lookup(&repo, "k").unwrap().unwrap();
    assert_eq!(found.source, "ci");
    assert_eq!(all_refs(&repo).len(), 1);
}

/// A verdict answers only for the set it lists: one stored before each
/// validator ran on its own (no `commands`), or a pass that does not show
/// each command exiting 0, stands for nothing (issue 38 item 6).
#[test]
fn a_verdict_covers_only_the_commands_it_shows_passing() {
    let set = ["make test".to_string()];
    let tree: Oid = "4b825dc642cb6eb9a060e54bf8d69288fbee4904".parse().unwrap();
    let covers = |v: &Verdict, set: &[String]| v.covers(tree, set);
    assert!(covers(&verdict("k", Status::Pass), &set));
    assert!(covers(&verdict("k", Status::Fail), &set));
    let other: Oid = "0123456789012345678901234567890123456789".parse().unwrap();
    assert!(
        !verdict("k", Status::Pass).covers(other, &set),
        "another tree"
    );
    let mut old = verdict("k", Status::Pass);
    old.commands.clear();
    assert!(!covers(&old, &set), "an old-shape verdict");
    let mut half = verdict("k", Status::Pass);
    half.commands.push(CommandExit {
        command: "make lint".into(),
        exit_code: None,
        duration_ms: 0,
    });
    let two = ["make test".to_string(), "make lint".to_string()];
    assert!(
        !covers(&half, &two),
        "a pass with a command that did not run"
    );
    assert!(!covers(&verdict("k", Status::Pass), &two), "another set");
}
