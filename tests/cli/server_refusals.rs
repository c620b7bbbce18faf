//! Issue 38 items 4 and 18: what a server says when it refuses a push, and
//! what a refused push leaves behind.

use crate::common::{assert_has, assert_lacks};
use crate::server_fixture::{Server, git_has_proc_receive};

fn server() -> Option<Server> {
    git_has_proc_receive().then(|| Server::new(&[("a.txt", "one\n")]))
}

#[test]
fn a_root_commit_is_refused_as_a_root_commit_not_a_merge() {
    let Some(s) = server() else { return };
    let c = s.clone("c1");
    let main = s.ref_target("main").unwrap();
    s.git_in(&c, &["checkout", "-q", "--orphan", "fresh"], &[]);
    s.commit(&c, "z.txt", "z\n", "feat: unrelated history");
    let run = s.push(&c, "origin", &["HEAD:refs/for/main"], &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_has(&run.stderr, "is a root commit");
    assert_lacks(&run.stderr, "merge commit");
    assert_eq!(s.ref_target("main").unwrap(), main);
    s.assert_fsck();
}

/// A server whose lint refuses `bad message` commits.
fn linting_server() -> Option<Server> {
    let s = server()?;
    s.git(&["config", "evolv.lintPushes", "true"]);
    Some(s)
}

/// Pushes a new commit with a message the lint refuses; its id.
fn push_refused(s: &Server, c: &std::path::Path, n: usize) -> (String, crate::common::Run) {
    s.git_in(c, &["reset", "-q", "--hard", "origin/main"], &[]);
    let commit = s.commit(c, &format!("r{n}.txt"), "x\n", "bad message");
    (commit, s.push(c, "origin", &["HEAD:refs/for/main"], &[]))
}

#[test]
fn a_refused_push_is_kept_out_of_sight_and_its_proposal_ref_goes() {
    let Some(s) = linting_server() else { return };
    let c = s.clone("c1");
    let (commit, run) = push_refused(&s, &c, 1);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let rec = s.only_outcome();
    assert_eq!(rec["state"], "refused");
    let id = rec["id"].as_str().unwrap();
    assert!(
        s.ref_target(&format!("refs/evolv/proposals/{id}"))
            .is_none()
    );
    assert_eq!(
        s.ref_target(&format!("refs/evolv/refused/anonymous/{id}")),
        Some(commit.clone())
    );
    // Not advertised: neither ls-remote nor a fetch of everything sees it.
    let listed = s.git_in(&c, &["ls-remote", "origin"], &[]).stdout;
    assert_lacks(&listed, "refs/evolv/refused");
    assert_lacks(&listed, &commit);
    let other = s.clone("c2");
    s.git_in(
        &other,
        &["fetch", "-q", "origin", "refs/evolv/*:refs/evolv/*"],
        &[],
    );
    let run = s.git_in(&other, &["cat-file", "-e", &commit], &[]);
    assert_ne!(run.code, 0, "a clone fetched the refused commit");
    assert_eq!(
        s.git(&["config", "--get-all", "transfer.hideRefs"]).trim(),
        "refs/evolv/refused"
    );
}

#[test]
fn refused_pushes_expire_and_gc_then_prunes_their_objects() {
    let Some(s) = linting_server() else { return };
    s.git(&["config", "evolv.receive.keepRefused", "0"]);
    let c = s.clone("c1");
    let (first, _) = push_refused(&s, &c, 1);
    assert_eq!(s.refs("refs/evolv/refused/").len(), 1);
    // The next push expires it.
    let (_, run) = push_refused(&s, &c, 2);
    assert_eq!(run.code, 1);
    let kept = s.refs("refs/evolv/refused/");
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_ne!(s.ref_target(&kept[0]).unwrap(), first);
    s.git(&["reflog", "expire", "--expire=now", "--all"]);
    s.git(&["gc", "-q", "--prune=now"]);
    let run = s.git_in(&s.bare, &["cat-file", "-e", &first], &[]);
    assert_ne!(run.code, 0, "the expired refused commit is still stored");
    s.assert_fsck();
}

#[test]
fn past_the_quota_a_pushers_next_push_is_refused_before_anything_is_stored() {
    let Some(s) = linting_server() else { return };
    s.git(&["config", "evolv.receive.refusedQuota", "2"]);
    let c = s.clone("c1");
    for n in 1..=2 {
        let (_, run) = push_refused(&s, &c, n);
        assert_has(&run.stderr, "fails the server's commit message lint");
    }
    let (third, run) = push_refused(&s, &c, 3);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_has(&run.stderr, "at most 2 are kept per pusher");
    assert_eq!(s.outcomes().len(), 2, "the third push was recorded");
    let run = s.git_in(&s.bare, &["cat-file", "-e", &third], &[]);
    assert_ne!(run.code, 0, "the refused push's objects were stored");
    // A good push is refused too until the refusals expire.
    s.git(&["config", "evolv.receive.keepRefused", "0"]);
    s.git_in(&c, &["reset", "-q", "--hard", "origin/main"], &[]);
    let good = s.commit(&c, "g.txt", "g\n", "feat: a good change");
    let run = s.push(&c, "origin", &["HEAD:refs/for/main"], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(s.ref_target("main").unwrap(), good);
}
