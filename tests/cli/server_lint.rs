//! Issue 38 item 5: with `evolv.lintPushes`, the server refuses what a
//! clone's lint skips because autosquash or git would deal with it (empty
//! messages, fixups, merge messages on one-parent commits, authors the
//! pusher chose), and keeps what a release or a real revert writes.

use std::path::Path;

use crate::common::assert_has;
use crate::server_fixture::{Server, git_has_proc_receive};

fn server() -> Option<Server> {
    if !git_has_proc_receive() {
        return None;
    }
    let s = Server::new(&[("a.txt", "one\n")]);
    s.git(&["config", "evolv.lintPushes", "true"]);
    s.git(&["config", "evolv.commit.ignoreAuthors", "dependabot[bot]"]);
    Some(s)
}

/// A one-parent commit on `origin/main` changing `a.txt`, with exactly
/// `message` (written by `git commit-tree`, which takes an empty one).
fn commit_with(s: &Server, dir: &Path, message: &str, author: (&str, &str)) -> String {
    std::fs::write(dir.join("a.txt"), format!("{message:?}\n")).unwrap();
    s.git_in(dir, &["add", "a.txt"], &[]);
    let tree = s.git_in(dir, &["write-tree"], &[]).stdout;
    let env = [
        ("GIT_AUTHOR_NAME", author.0),
        ("GIT_AUTHOR_EMAIL", author.1),
    ];
    let file = s.home().join("message.txt");
    std::fs::write(&file, message).unwrap();
    let args = ["commit-tree", tree.trim(), "-p", "origin/main", "-F"];
    let mut cmd = crate::common::sealed("git", s.home());
    cmd.args(args).arg(&file).current_dir(dir);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let run = crate::common::Run::of(cmd);
    assert_eq!(run.code, 0, "{}", run.stderr);
    s.git_in(dir, &["reset", "-q", "--hard", "origin/main"], &[]);
    run.stdout.trim().to_string()
}

#[test]
fn six_messages_a_clone_skips_are_refused_on_the_server() {
    let Some(s) = server() else { return };
    let c = s.clone("c1");
    let main = s.ref_target("main").unwrap();
    let dev = ("Dev", "dev@example.com");
    let bot = ("dependabot[bot]", "bot@example.com");
    let cases = [
        ("", dev, "the message is empty"),
        ("fixup! feat: one", dev, "fixup!/squash!/amend!"),
        ("squash! feat: one", dev, "fixup!/squash!/amend!"),
        ("amend! feat: one", dev, "fixup!/squash!/amend!"),
        (
            "Merge branch 'topic'",
            dev,
            "a merge message on a commit that is not a merge",
        ),
        (
            "Revert \"whatever\"",
            dev,
            "fails the server's commit message lint",
        ),
        ("bad message from a chosen author", bot, "[type-empty]"),
    ];
    for (message, author, expected) in cases {
        let commit = commit_with(&s, &c, message, author);
        let run = s.push(&c, "origin", &[&format!("{commit}:refs/for/main")], &[]);
        assert_eq!(run.code, 1, "{message:?} landed: {}", run.stderr);
        assert_has(&run.stderr, "fails the server's commit message lint");
        assert_has(&run.stderr, expected);
        assert_eq!(s.ref_target("main").unwrap(), main, "{message:?}");
    }
    s.assert_fsck();
}

#[test]
fn a_release_version_and_a_real_revert_land() {
    let Some(s) = server() else { return };
    let c = s.clone("c1");
    let dev = ("Dev", "dev@example.com");
    let release = commit_with(&s, &c, "chore(release): v1.2.0", dev);
    let run = s.push(&c, "origin", &[&format!("{release}:refs/for/main")], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    s.git_in(&c, &["fetch", "-q", "origin"], &[]);
    s.git_in(&c, &["reset", "-q", "--hard", "origin/main"], &[]);
    let landed = s.ref_target("main").unwrap();
    let run = s.git_in(&c, &["revert", "--no-edit", "HEAD"], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let body = s.git_in(&c, &["log", "-1", "--format=%B"], &[]).stdout;
    assert_has(&body, &format!("This reverts commit {landed}."));
    let run = s.push(&c, "origin", &["HEAD:refs/for/main"], &[]);
    assert_eq!(run.code, 0, "a real revert is refused: {}", run.stderr);
    // The same title reverting a commit the server never had is linted.
    let fake = commit_with(
        &s,
        &c,
        "Revert \"feat: x\"\n\nThis reverts commit 0123456789abcdef0123456789abcdef01234567.\n",
        dev,
    );
    let run = s.push(&c, "origin", &[&format!("{fake}:refs/for/main")], &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
}
