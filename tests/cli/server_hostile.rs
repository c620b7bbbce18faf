//! Issue 28 item 7: ref names, push options and trees arrive from the
//! network. Each is bounded, never passed to a shell or as a flag, and a
//! push never names a command the server runs.

use std::io::Write;
use std::process::Stdio;

use crate::common::{BIN, assert_has, sealed};
use crate::server_fixture::{Server, git_has_proc_receive};

fn server() -> Option<Server> {
    git_has_proc_receive().then(|| Server::new(&[("a.txt", "one\n")]))
}

#[test]
fn hostile_ref_names_are_refused_and_create_nothing() {
    let Some(s) = server() else { return };
    let c = s.clone("c1");
    s.commit(&c, "c.txt", "x\n", "feat: x");
    let long = format!("HEAD:refs/for/{}", "b".repeat(300));
    for spec in [
        "HEAD:refs/for/-rf",
        "HEAD:refs/for/HEAD",
        "HEAD:refs/for/nobranch",
        &long,
    ] {
        let run = s.push(&c, "origin", &[spec], &[]);
        assert_eq!(run.code, 1, "{spec}: {}", run.stderr);
        assert_has(&run.stderr, "[remote rejected]");
    }
    assert!(s.refs("refs/heads/").iter().all(|r| r == "refs/heads/main"));
    assert!(s.refs("refs/for/").is_empty());
}

#[test]
fn push_options_are_bounded_and_never_name_a_command() {
    let Some(s) = server() else { return };
    let c = s.clone("c1");
    s.commit(&c, "c.txt", "x\n", "feat: x");
    let marker = s.home().join("pwned");
    let evil = format!("evolv.validate=touch {}", marker.display());
    let run = s.push(&c, "origin", &["-o", &evil, "HEAD:refs/for/main"], &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_has(&run.stderr, "unknown push option");
    assert!(!marker.exists());
    let big = format!("x={}", "o".repeat(2000));
    let run = s.push(&c, "origin", &["-o", &big, "HEAD:refs/for/main"], &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let mut many = Vec::new();
    for i in 0..40 {
        many.extend(["-o".to_string(), format!("o{i}")]);
    }
    many.push("HEAD:refs/for/main".into());
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    let run = s.push(&c, "origin", &many, &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(s.git(&["rev-list", "--count", "main"]).trim(), "1");
}

/// A commit on main whose tree holds `entry` (a raw `git mktree` line,
/// `BLOB` standing for a blob's id): what a hostile client can push.
fn hostile_commit(s: &Server, dir: &std::path::Path, entry: &str) -> String {
    let mut hash = sealed("git", s.home());
    hash.args(["hash-object", "-w", "--stdin"]).current_dir(dir);
    let blob = run_stdin(hash, b"payload\n");
    let base = s.git_in(dir, &["ls-tree", "HEAD"], &[]).stdout;
    let mut mk = sealed("git", s.home());
    mk.args(["mktree"]).current_dir(dir);
    let line = entry.replace("BLOB", &blob);
    let tree = run_stdin(mk, format!("{base}{line}\n").as_bytes());
    let message = "feat: hostile";
    let commit = s.git_in(
        dir,
        &["commit-tree", &tree, "-p", "HEAD", "-m", message],
        &[],
    );
    commit.stdout.trim().to_string()
}

fn run_stdin(mut cmd: std::process::Command, input: &[u8]) -> String {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn trees_git_would_refuse_are_refused() {
    let Some(s) = server() else { return };
    let c = s.clone("c1");
    let main = s.ref_target("main").unwrap();
    for entry in [
        "100644 blob BLOB\t.git",
        "120000 blob BLOB\t.gitmodules",
        "100644 blob BLOB\t.GIT",
    ] {
        let commit = hostile_commit(&s, &c, entry);
        let run = s.push(&c, "origin", &[&format!("{commit}:refs/for/main")], &[]);
        assert_eq!(run.code, 1, "{entry}: {}", run.stderr);
        assert_has(&run.stderr, "[remote rejected]");
        assert_eq!(s.ref_target("main").unwrap(), main);
    }
    let codes: Vec<_> = s
        .outcomes()
        .iter()
        .map(|o| o["reason"]["code"].clone())
        .collect();
    assert_eq!(codes, vec!["unsafe_path"; 3], "{codes:?}");
}

#[test]
fn malformed_protocol_input_is_an_error_not_a_panic() {
    let Some(s) = server() else { return };
    for input in [&b"zzzz"[..], b"0009hello", b"000eversion=9\n0000", b"ffff"] {
        let mut cmd = sealed(BIN, s.home());
        cmd.args(["hook", "proc-receive"])
            .current_dir(&s.bare)
            .stderr(Stdio::piped());
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let _ = child.stdin.take().unwrap().write_all(input);
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{input:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}
