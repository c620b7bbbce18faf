//! Issue 39 item 3: a server's landing validates through the pipeline
//! apply and `test` use, so it has their verdict cache and the execution
//! plan's limits. A tree whose trusted verdict exists lands without its
//! command running; a plan in `evolv.plan` bounds what a push may change.

use std::path::Path;

use crate::common::{Run, assert_has, sealed};
use crate::server_fixture::{Server, git_has_proc_receive};

fn evolv_in(s: &Server, dir: &Path, args: &[&str]) -> Run {
    let mut cmd = sealed(crate::common::BIN, s.home());
    cmd.args(args).current_dir(dir);
    Run::of(cmd)
}

/// The command a server and CI validate with: it passes until `deny`
/// exists in the bare repository (readable inside the sandbox), then
/// fails, so a landing after that passes only if it did not run.
fn deny_command(s: &Server) -> String {
    format!("test ! -e {}", s.bare.join("deny").display())
}

#[test]
fn a_tree_with_a_trusted_verdict_lands_on_the_server_without_running_the_command() {
    if !git_has_proc_receive() {
        return;
    }
    let s = Server::new(&[("a.txt", "one\n")]);
    let command = deny_command(&s);
    s.git(&["config", "evolv.validate", &command]);
    s.git(&["config", "evolv.test.trust", "ci"]);
    let dev = s.clone("dev");
    let pushed = s.commit(&dev, "b.txt", "two\n", "feat: b");
    // CI (here the developer's clone) validates the commit and its
    // verdict reaches the server under the trusted remote's name.
    s.git_in(&dev, &["config", "evolv.validate", &command], &[]);
    let t = evolv_in(&s, &dev, &["test", "HEAD", "--json"]);
    assert_eq!(t.code, 0, "{}{}", t.stdout, t.stderr);
    let fetch = s.git_in(
        &s.bare,
        &[
            "fetch",
            "-q",
            dev.to_str().unwrap(),
            "+refs/evolv/verdicts/*:refs/evolv/remotes/ci/verdicts/*",
        ],
        &[],
    );
    assert_eq!(fetch.code, 0, "{}", fetch.stderr);
    // From now on the command fails wherever it runs.
    std::fs::write(s.bare.join("deny"), "").unwrap();

    let run = s.push(&dev, "origin", &["HEAD:refs/for/main"], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(s.ref_target("main").unwrap(), pushed);
    assert_eq!(s.only_outcome()["state"], "landed");
    // Nothing ran, so the server stored no verdict of its own.
    assert_eq!(s.refs("refs/evolv/verdicts/"), Vec::<String>::new());

    // A tree without a verdict runs the command, which now fails.
    s.commit(&dev, "c.txt", "three\n", "feat: c");
    let run = s.push(&dev, "origin", &["HEAD:refs/for/main"], &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_has(&run.stderr, "validation_failed");
    assert_eq!(s.ref_target("main").unwrap(), pushed);
    s.assert_fsck();
}

#[test]
fn the_plan_in_evolv_plan_bounds_what_a_push_may_change_on_the_server() {
    if !git_has_proc_receive() {
        return;
    }
    let s = Server::new(&[("a.txt", "one\n")]);
    // Relative to the bare repository, where a server keeps its plan.
    std::fs::write(
        s.bare.join("plan.json"),
        r#"{"rollback": {"strategy": "git_revert"},
            "limits": {"max_files": 1, "max_changes": 50, "timeout_seconds": 30}}"#,
    )
    .unwrap();
    s.git(&["config", "evolv.plan", "plan.json"]);
    let main = s.ref_target("main").unwrap();
    let dev = s.clone("dev");
    std::fs::write(dev.join("b.txt"), "b\n").unwrap();
    s.commit(&dev, "c.txt", "c\n", "feat: two files");
    s.git_in(&dev, &["add", "b.txt"], &[]);
    s.git_in(&dev, &["commit", "-q", "--amend", "--no-edit"], &[]);
    let run = s.push(&dev, "origin", &["HEAD:refs/for/main"], &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_has(&run.stderr, "constraint_violation");
    assert_has(&run.stderr, "limits.max_files");
    assert_eq!(s.ref_target("main").unwrap(), main);

    // One file is within the plan's limits: it lands.
    s.git_in(&dev, &["reset", "-q", "--hard", "origin/main"], &[]);
    let one = s.commit(&dev, "d.txt", "d\n", "feat: one file");
    let run = s.push(&dev, "origin", &["HEAD:refs/for/main"], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(s.ref_target("main").unwrap(), one);
    s.assert_fsck();
}
