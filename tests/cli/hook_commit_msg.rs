//! The commit-msg hook judges the message git will store (issue #17, item
//! 6), gives retry advice that does what it says (item 5), and reads only
//! the message and the configuration (issue #14, item 5).

use std::fs;
use std::os::unix::fs::PermissionsExt;

use crate::common::{Run, TestRepo, assert_has, assert_human, sealed};

/// A repository with git-evolv's hooks and an editor that puts `$MSG` in
/// front of what git wrote (so git's comments and `-v` diff stay below).
fn repo() -> TestRepo {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    repo.evolv(&["hooks", "install"]).ok();
    let editor = repo.home().join("editor.sh");
    fs::write(
        &editor,
        "#!/bin/sh\n{ printf '%s\\n' \"$MSG\"; cat \"$1\"; } > \"$1.tmp\" && mv \"$1.tmp\" \"$1\"\n",
    )
    .unwrap();
    fs::set_permissions(&editor, fs::Permissions::from_mode(0o755)).unwrap();
    repo
}

/// git with `MSG` typed into the editor.
fn git(repo: &TestRepo, msg: &str, args: &[&str]) -> Run {
    let mut cmd = sealed("git", repo.home());
    cmd.args(args)
        .current_dir(repo.path())
        .env("GIT_EDITOR", repo.home().join("editor.sh"))
        .env("MSG", msg);
    Run::from(cmd.output().unwrap()).named(format!("git {}", args.join(" ")))
}

/// The `Fix it and retry with:` command of a rejection.
fn retry_of(run: &Run) -> String {
    let at = run
        .stderr
        .find("retry with:\n")
        .unwrap_or_else(|| panic!("no retry advice: {}", run.stderr));
    run.stderr[at + 12..]
        .lines()
        .next()
        .unwrap()
        .trim()
        .to_string()
}

/// The file the retry command commits.
fn retry_file(run: &Run) -> String {
    let retry = retry_of(run);
    let at = retry.find("-F ").unwrap() + 3;
    retry[at..]
        .split(" &&")
        .next()
        .unwrap()
        .trim_matches('\'')
        .to_string()
}

fn count(repo: &TestRepo) -> usize {
    repo.git(&["rev-list", "--count", "HEAD"])
        .trim()
        .parse()
        .unwrap()
}

#[test]
fn hook_cleans_the_message_as_the_commit_will() {
    // See: issue #17, item 6.
    let repo = repo();
    // `-m` keeps `#` lines: the stored header would be `#42 fix login`.
    let run = git(
        &repo,
        "",
        &["commit", "--allow-empty", "-m", "#42 fix login"],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_human!(repo, "commit_msg_hook_dash_m_hash", run.transcript());
    // commit.cleanup=whitespace keeps them through the editor too.
    let run = git(
        &repo,
        "#42 fix login",
        &["-c", "commit.cleanup=whitespace", "commit", "--allow-empty"],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    // --cleanup=verbatim keeps the trailing space git would store.
    let run = git(
        &repo,
        "",
        &[
            "commit",
            "--allow-empty",
            "--cleanup=verbatim",
            "-m",
            "feat: x ",
        ],
    );
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_human!(repo, "commit_msg_hook_verbatim_space", run.transcript());
    // Through the editor with the default cleanup, comments go.
    let run = git(
        &repo,
        "feat: through the editor",
        &["commit", "--allow-empty"],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(repo.last_message(), "feat: through the editor");
}

#[test]
fn hook_retry_after_amend_amends() {
    // See: issue #17, item 5.
    let repo = repo();
    let parent = repo.head();
    repo.write("b.txt", "b\n");
    repo.git(&["add", "b.txt"]);
    git(&repo, "", &["commit", "-q", "-m", "feat: one"]).ok();
    let n = count(&repo);
    let run = git(&repo, "", &["commit", "--amend", "-m", "bad message"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(retry_of(&run).contains("commit --amend"), "{}", run.stderr);
    fs::write(retry_file(&run), "feat: one, amended\n").unwrap();
    let args: Vec<String> = shell_words(&retry_of(&run));
    let args: Vec<&str> = args.iter().skip(1).map(String::as_str).collect();
    git(&repo, "", &args).ok();
    assert_eq!(count(&repo), n, "amended, not a new commit");
    assert_eq!(repo.rev("HEAD~1").unwrap(), parent);
    assert_eq!(
        repo.git(&["log", "-1", "--format=%s"]).trim(),
        "feat: one, amended"
    );
}

#[test]
fn hook_retry_after_verbose_and_auto_comment_char_keeps_only_the_message() {
    // See: issue #17, item 5 (`-v` diff, core.commentChar=auto comments).
    let repo = repo();
    repo.write("a.txt", "changed\n");
    repo.git(&["add", "a.txt"]);
    for extra in [
        &["commit", "-v"][..],
        &["-c", "core.commentChar=auto", "commit"][..],
    ] {
        let run = git(&repo, "bad message", extra);
        assert_eq!(run.code, 1, "{}", run.stderr);
        let kept = fs::read_to_string(retry_file(&run)).unwrap();
        assert_eq!(kept, "bad message\n", "{extra:?}");
    }
}

#[test]
fn hook_retry_during_a_rebase_reword_amends_then_continues() {
    // See: issue #17, item 5.
    let repo = repo();
    for (file, msg) in [("b.txt", "feat: one"), ("c.txt", "feat: two")] {
        repo.write(file, "x\n");
        repo.git(&["add", file]);
        git(&repo, "", &["commit", "-q", "-m", msg]).ok();
    }
    let mut cmd = sealed("git", repo.home());
    cmd.args(["rebase", "-i", "HEAD~2"])
        .current_dir(repo.path())
        .env("GIT_SEQUENCE_EDITOR", "sed -i 1s/^pick/reword/")
        .env("GIT_EDITOR", repo.home().join("editor.sh"))
        .env("MSG", "bad reword");
    let run = Run::from(cmd.output().unwrap());
    assert_ne!(run.code, 0, "{}", run.stderr);
    let retry = retry_of(&run);
    assert!(
        retry.contains("commit --amend") && retry.ends_with("&& git rebase --continue"),
        "{retry}"
    );
    fs::write(retry_file(&run), "feat: one, reworded\n").unwrap();
    let file = retry_file(&run);
    git(&repo, "", &["commit", "--amend", "-F", &file]).ok();
    git(&repo, "", &["rebase", "--continue"]).ok();
    assert_eq!(
        repo.git(&["log", "-2", "--format=%s"]),
        "feat: two\nfeat: one, reworded\n"
    );
}

#[test]
fn hook_reads_its_configuration_without_libgit2() {
    // See: issue #14, item 5: a SHA-256 repository, which libgit2 cannot
    // open; the local `evolv.commit.types` must still apply.
    let repo = TestRepo::empty();
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    let init = repo.git_run(&["init", "-q", "--object-format=sha256", r.to_str().unwrap()]);
    init.ok();
    let g = |args: &[&str]| {
        let mut full = vec!["-C", r.to_str().unwrap()];
        full.extend_from_slice(args);
        repo.git_run(&full)
    };
    g(&["config", "user.name", "T"]).ok();
    g(&["config", "user.email", "t@e.x"]).ok();
    g(&["config", "evolv.commit.types", "wip,feat"]).ok();
    let mut cmd = sealed(crate::common::BIN, repo.home());
    cmd.args(["hooks", "install"]).current_dir(r);
    Run::from(cmd.output().unwrap()).ok();
    let ok = g(&["commit", "-q", "--allow-empty", "-m", "wip: x"]);
    assert_eq!(ok.code, 0, "{}", ok.stderr);
    let bad = g(&["commit", "-q", "--allow-empty", "-m", "fix: x"]);
    assert_eq!(bad.code, 1, "{}", bad.stderr);
    assert_has(&bad.stderr, "type-enum");
}

/// Splits a simple shell command line (single quotes, `&&` ends it).
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '\'' => quoted = !quoted,
            ' ' if !quoted => {
                if cur == "&&" {
                    break;
                }
                if !cur.is_empty() {
                    words.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() && cur != "&&" {
        words.push(cur);
    }
    words
}
