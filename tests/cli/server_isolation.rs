//! Issue 38 item 1: a server's validation runs pushed code, so it runs it
//! where it cannot write the repository it guards (bubblewrap), or runs
//! none and lands on CI's verdicts; after every validation the branch,
//! hooks and config are checked. Tested with the issue's own `ci.sh`: it
//! moves `main`, plants `hooks/post-receive`, rewrites the config, adds an
//! ssh key, and exits 1.

use std::path::Path;

use crate::common::{assert_has, assert_lacks};
use crate::server_fixture::{Server, git_has_proc_receive};

/// The pushed script of the issue, and then some.
const CI_SH: &str = r#"echo ci-ran
git update-ref refs/heads/main HEAD
common=$(git rev-parse --git-common-dir)
printf '#!/bin/sh\necho planted >&2\n' > "$common/hooks/post-receive"
chmod +x "$common/hooks/post-receive"
git config evolv.validate true
mkdir -p "$HOME/.ssh" && echo 'ssh-ed25519 AAAA attacker' >> "$HOME/.ssh/authorized_keys"
exit 1
"#;

fn bwrap_runs() -> bool {
    std::process::Command::new("bwrap")
        .args(["--ro-bind", "/", "/", "--cap-drop", "ALL", "--", "true"])
        .status()
        .is_ok_and(|s| s.success())
}

/// A server whose `main` is protected and validated by `sh ci.sh`.
fn server() -> Option<Server> {
    if !git_has_proc_receive() {
        return None;
    }
    let s = Server::new(&[("a.txt", "one\n"), ("ci.sh", "exit 0\n")]);
    s.git(&["config", "evolv.protectedBranches", "main"]);
    s.git(&["config", "evolv.validate", "sh ci.sh"]);
    Some(s)
}

/// What the pushed code must not have touched.
fn assert_untouched(s: &Server, main: &str, config: &str) {
    assert_eq!(s.ref_target("main").unwrap(), main, "main moved");
    assert!(
        !s.bare.join("hooks/post-receive").exists(),
        "a hook was planted"
    );
    assert_eq!(
        std::fs::read_to_string(s.bare.join("config")).unwrap(),
        config,
        "the config was rewritten"
    );
    assert!(
        !s.home().join(".ssh/authorized_keys").exists(),
        "a key was added"
    );
    s.assert_fsck();
}

fn push_ci_sh(s: &Server, dir: &Path) -> crate::common::Run {
    s.commit(dir, "ci.sh", CI_SH, "test: a ci.sh that attacks the server");
    s.push(dir, "origin", &["HEAD:refs/for/main"], &[])
}

#[test]
fn the_issues_ci_sh_runs_sandboxed_is_refused_and_writes_nothing() {
    let Some(s) = server() else { return };
    assert!(
        bwrap_runs(),
        "bwrap cannot run here: install bubblewrap (.ci/run does)"
    );
    let main = s.ref_target("main").unwrap();
    let config = std::fs::read_to_string(s.bare.join("config")).unwrap();
    let c = s.clone("c1");
    let run = push_ci_sh(&s, &c);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_has(&run.stderr, "[remote rejected]");
    // It ran (its output is the pusher's), and it was refused for its exit.
    assert_has(&run.stderr, "ci-ran");
    assert_has(&run.stderr, "validation_failed");
    assert_lacks(&run.stderr, "validation_tampered");
    assert_untouched(&s, &main, &config);
    // A later push runs no planted hook and lands.
    s.git_in(&c, &["reset", "-q", "--hard", "origin/main"], &[]);
    let good = s.commit(&c, "b.txt", "fine\n", "feat: a fine change");
    let run = s.push(&c, "origin", &["HEAD:refs/for/main"], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_lacks(&run.stderr, "planted");
    assert_eq!(s.ref_target("main").unwrap(), good);
    assert_eq!(
        s.git_in(&s.bare, &["worktree", "list", "--porcelain"], &[])
            .stdout
            .matches("worktree ")
            .count(),
        1,
        "the throwaway worktree outlived the landing"
    );
}

#[test]
fn without_a_sandbox_nothing_runs_and_the_refusal_names_what_to_install() {
    let Some(s) = server() else { return };
    s.git(&["config", "evolv.receive.sandbox", "/nonexistent/bwrap"]);
    let main = s.ref_target("main").unwrap();
    let config = std::fs::read_to_string(s.bare.join("config")).unwrap();
    let c = s.clone("c1");
    let run = push_ci_sh(&s, &c);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_has(&run.stderr, "isolation_unavailable");
    assert_has(&run.stderr, "/nonexistent/bwrap");
    assert_lacks(&run.stderr, "ci-ran");
    let rec = s.only_outcome();
    assert_eq!(rec["state"], "refused");
    assert_eq!(rec["reason"]["code"], "isolation_unavailable");
    assert_untouched(&s, &main, &config);
}

#[test]
fn a_sandbox_that_lets_writes_through_is_caught_after_validation_and_undone() {
    let Some(s) = server() else { return };
    // A "sandbox" that isolates nothing: it runs what follows `--`.
    let fake = s.home().join("leaky-bwrap");
    std::fs::write(
        &fake,
        "#!/bin/sh\nwhile [ \"$1\" != -- ]; do shift; done\nshift\nexec \"$@\"\n",
    )
    .unwrap();
    std::process::Command::new("chmod")
        .args(["+x", fake.to_str().unwrap()])
        .status()
        .unwrap();
    s.git(&["config", "evolv.receive.sandbox", fake.to_str().unwrap()]);
    let main = s.ref_target("main").unwrap();
    let config = std::fs::read_to_string(s.bare.join("config")).unwrap();
    let c = s.clone("c1");
    let run = push_ci_sh(&s, &c);
    let _ = std::fs::remove_file(s.home().join(".ssh/authorized_keys"));
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_has(&run.stderr, "validation_tampered");
    assert_has(&run.stderr, "refs/heads/main moved");
    assert_has(&run.stderr, "post-receive was added");
    assert_has(&run.stderr, "config was changed");
    let rec = s.only_outcome();
    assert_eq!(rec["reason"]["code"], "validation_tampered");
    assert_untouched(&s, &main, &config);
}

#[test]
fn a_verdict_server_runs_no_pushed_code_and_lands_only_on_cis_marked_verdict() {
    let Some(s) = server() else { return };
    s.git(&["config", "evolv.receive.validation", "verdict"]);
    // Two validators: CI's verdict must answer for the set.
    s.git(&["config", "--add", "evolv.validate", "test -f a.txt"]);
    // No sandbox on this server, and none needed: nothing runs.
    s.git(&["config", "evolv.receive.sandbox", "/nonexistent/bwrap"]);
    std::fs::create_dir_all(s.bare.join("evolv")).unwrap();
    let secret = [7u8; 32];
    std::fs::write(s.bare.join("evolv/ci-verdict-secret"), secret).unwrap();
    let main = s.ref_target("main").unwrap();

    let dev = s.clone("dev");
    let pushed = s.commit(&dev, "b.txt", "two\n", "feat: b");
    // Without a verdict: refused, naming what is missing.
    let run = s.push(&dev, "origin", &["HEAD:refs/for/main"], &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_has(&run.stderr, "no_trusted_verdict");
    assert_eq!(s.ref_target("main").unwrap(), main);

    // The pusher vouches for their own code: their mark is not CI's.
    let own = s.git_in(&dev, &["config", "evolv.validate", "sh ci.sh"], &[]);
    assert_eq!(own.code, 0);
    let t = evolv_in(&s, &dev, &["test", "HEAD"]);
    assert_eq!(t.code, 0, "{}{}", t.stdout, t.stderr);
    let run = s.push(
        &dev,
        "origin",
        &["refs/evolv/verdicts/*:refs/evolv/verdicts/*"],
        &[],
    );
    assert_eq!(
        run.code, 0,
        "a new verdict ref is let through: {}",
        run.stderr
    );
    let run = s.push(&dev, "origin", &["HEAD:refs/for/main"], &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_has(&run.stderr, "no_trusted_verdict");

    // CI, holding the shared secret, validates the same tree and pushes
    // its verdict over the pusher's (same tree, same command: same key).
    let ci = s.clone("ci");
    s.git_in(&ci, &["fetch", "-q", &s.url(), &pushed], &[]);
    s.git_in(&ci, &["checkout", "-q", &pushed], &[]);
    s.git_in(&ci, &["config", "evolv.validate", "sh ci.sh"], &[]);
    s.git_in(
        &ci,
        &["config", "--add", "evolv.validate", "test -f a.txt"],
        &[],
    );
    std::fs::create_dir_all(ci.join(".git/evolv")).unwrap();
    std::fs::write(ci.join(".git/evolv/verdict-secret"), secret).unwrap();
    let t = evolv_in(&s, &ci, &["test", "HEAD"]);
    assert_eq!(t.code, 0, "{}{}", t.stdout, t.stderr);
    let run = s.push(
        &ci,
        "origin",
        &["--force", "refs/evolv/verdicts/*:refs/evolv/verdicts/*"],
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let run = s.push(&dev, "origin", &["HEAD:refs/for/main"], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(s.ref_target("main").unwrap(), pushed);
    s.assert_fsck();
}

fn evolv_in(s: &Server, dir: &Path, args: &[&str]) -> crate::common::Run {
    let mut cmd = crate::common::sealed(crate::common::BIN, s.home());
    cmd.args(args).current_dir(dir);
    crate::common::Run::of(cmd)
}

#[test]
fn pre_receive_lets_verdict_refs_through_only_in_verdict_mode_and_never_deletes_one() {
    let Some(s) = server() else { return };
    let dev = s.clone("dev");
    let head = s.git_in(&dev, &["rev-parse", "HEAD"], &[]).stdout;
    let key = "refs/evolv/verdicts/0123456789abcdef0123456789abcdef01234567";
    s.git_in(&dev, &["update-ref", key, head.trim()], &[]);
    let run = s.push(&dev, "origin", &[&format!("{key}:{key}")], &[]);
    assert_eq!(
        run.code, 1,
        "isolated mode takes no verdict: {}",
        run.stderr
    );
    s.git(&["config", "evolv.receive.validation", "verdict"]);
    let run = s.push(&dev, "origin", &[&format!("{key}:{key}")], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // Replaced (CI's verdict wins over one pushed first), never deleted.
    let other = s.commit(&dev, "x.txt", "x\n", "feat: x");
    s.git_in(&dev, &["update-ref", key, &other], &[]);
    let run = s.push(&dev, "origin", &["--force", &format!("{key}:{key}")], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let run = s.push(&dev, "origin", &[&format!(":{key}")], &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let bad = "refs/evolv/verdicts/not-a-key";
    s.git_in(&dev, &["update-ref", bad, head.trim()], &[]);
    let run = s.push(&dev, "origin", &[&format!("{bad}:{bad}")], &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
}

#[test]
fn a_verdict_server_lands_a_stack_whose_every_commit_ci_validated() {
    let Some(s) = server() else { return };
    s.git(&["config", "evolv.receive.validation", "verdict"]);
    std::fs::create_dir_all(s.bare.join("evolv")).unwrap();
    let secret = [9u8; 32];
    std::fs::write(s.bare.join("evolv/ci-verdict-secret"), secret).unwrap();
    let dev = s.clone("dev");
    let commits: Vec<String> = (1..=3)
        .map(|n| s.commit(&dev, &format!("f{n}.txt"), "x\n", &format!("feat: f{n}")))
        .collect();
    // CI validates only the top: the members below have no verdict.
    s.git_in(&dev, &["config", "evolv.validate", "sh ci.sh"], &[]);
    std::fs::create_dir_all(dev.join(".git/evolv")).unwrap();
    std::fs::write(dev.join(".git/evolv/verdict-secret"), secret).unwrap();
    let t = evolv_in(&s, &dev, &["test", "HEAD"]);
    assert_eq!(t.code, 0, "{}{}", t.stdout, t.stderr);
    let refspec = "refs/evolv/verdicts/*:refs/evolv/verdicts/*";
    assert_eq!(s.push(&dev, "origin", &["--force", refspec], &[]).code, 0);
    let main = s.ref_target("main").unwrap();
    let run = s.push(&dev, "origin", &["HEAD:refs/for/main"], &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_has(&run.stderr, "no_trusted_verdict");
    assert_eq!(s.ref_target("main").unwrap(), main);
    // Each commit validated, as docs/server.md says: the stack lands.
    let mut args = vec!["test"];
    args.extend(commits.iter().map(String::as_str));
    let t = evolv_in(&s, &dev, &args);
    assert_eq!(t.code, 0, "{}{}", t.stdout, t.stderr);
    assert_eq!(s.push(&dev, "origin", &["--force", refspec], &[]).code, 0);
    let run = s.push(&dev, "origin", &["HEAD:refs/for/main"], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(s.ref_target("main").unwrap(), commits[2]);
    s.assert_fsck();
}
