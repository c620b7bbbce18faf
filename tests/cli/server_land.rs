//! Issue 28: a bare repository with `hooks install --server` lands pushes
//! to `refs/for/<branch>` (validated, through the landing queue) and tells
//! the pusher in its own `git push` output; the pre-receive hook guards the
//! protected branches. Real bare repositories, clones and `git push`.

use crate::common::{assert_has, assert_lacks};
use crate::server_fixture::{Server, git_has_proc_receive};

fn server() -> Option<Server> {
    git_has_proc_receive().then(|| Server::new(&[("a.txt", "one\n"), ("b.txt", "two\n")]))
}

#[test]
fn install_server_sets_hooks_and_config_and_uninstall_removes_them() {
    let Some(s) = server() else { return };
    assert_eq!(
        s.git(&["config", "receive.procReceiveRefs"]).trim(),
        "refs/for"
    );
    assert_eq!(
        s.git(&["config", "receive.advertisePushOptions"]).trim(),
        "true"
    );
    let status = s.evolv(&["--json", "hooks", "status"], &[]);
    for hook in ["pre-receive", "proc-receive"] {
        assert_has(&status.stdout, &format!("\"name\": \"{hook}\""));
        let text = std::fs::read_to_string(s.bare.join("hooks").join(hook)).unwrap();
        assert_has(&text, crate::common::BIN);
    }
    let again = s.evolv(&["hooks", "install", "--server"], &[]);
    assert_has(&again.stdout, "unchanged");
    let off = s.evolv(&["hooks", "uninstall"], &[]);
    assert_eq!(off.code, 0, "{}", off.stderr);
    assert!(!s.bare.join("hooks/proc-receive").exists());
    assert_eq!(
        s.git_in(&s.bare, &["config", "receive.procReceiveRefs"], &[])
            .code,
        1
    );
    // In a clone (not bare), --server is refused with the reason.
    let refused = s.seed.evolv(&["hooks", "install", "--server"]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert_has(&refused.stderr, "not a bare repository");
}

#[test]
fn a_push_to_refs_for_main_lands_and_git_push_prints_the_branch_update() {
    let Some(s) = server() else { return };
    let c = s.clone("c1");
    let before = s.ref_target("main").unwrap();
    let pushed = s.commit(&c, "c.txt", "new\n", "feat: c");
    let run = s.push(&c, "origin", &["HEAD:refs/for/main"], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_has(
        &run.stderr,
        &format!("{}..{}  HEAD -> main", &before[..7], &pushed[..7]),
    );
    assert_has(&run.stderr, "remote: git-evolv: patch_");
    assert_eq!(s.ref_target("main").unwrap(), pushed);
    let o = s.only_outcome();
    assert_eq!(
        (o["state"].as_str(), o["branch"].as_str()),
        (Some("landed"), Some("main"))
    );
    assert_eq!(o["new"], pushed.as_str());
    assert_eq!(o["old"], before.as_str());
    let id = o["id"].as_str().unwrap();
    assert_eq!(
        s.ref_target(&format!("refs/evolv/proposals/{id}")).unwrap(),
        pushed
    );
    assert_eq!(
        s.ref_target(&format!("refs/evolv/applied/{id}")).unwrap(),
        pushed
    );
    // The op log records who pushed and what came of it.
    let audit = s.git(&["log", "-1", "--format=%B", "refs/evolv/audit"]);
    assert_has(&audit, "push:");
    assert_has(&audit, id);
    // Idempotent: the same commit again is "already landed".
    let again = s.push(&c, "origin", &["HEAD:refs/for/main"], &[]);
    assert_eq!(again.code, 0, "{}", again.stderr);
    assert_has(&again.stderr, &format!("already landed as {id}"));
    assert_eq!(s.outcomes().len(), 1);
    s.assert_fsck();
}

#[test]
fn a_series_lands_rebased_onto_a_branch_that_moved_keeping_its_authors() {
    let Some(s) = server() else { return };
    let (c1, c2) = (s.clone("c1"), s.clone("c2"));
    s.commit(&c1, "one.txt", "1\n", "feat: one");
    assert_eq!(s.push(&c1, "origin", &["HEAD:refs/for/main"], &[]).code, 0);
    s.commit(&c2, "two.txt", "2\n", "feat: two");
    s.commit(&c2, "three.txt", "3\n", "feat: three");
    let run = s.push(&c2, "origin", &["HEAD:refs/for/main"], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let log = s.git(&["log", "--format=%s|%an", "main"]);
    assert!(
        log.starts_with("feat: three|c2\nfeat: two|c2\nfeat: one|c1\n"),
        "{log}"
    );
    assert_eq!(
        s.git(&["rev-list", "--merges", "--count", "main"]).trim(),
        "0"
    );
    s.assert_fsck();
}

#[test]
fn a_conflict_is_refused_with_its_paths_and_nothing_moves() {
    let Some(s) = server() else { return };
    let (c1, c2) = (s.clone("c1"), s.clone("c2"));
    s.commit(&c1, "a.txt", "from c1\n", "fix: a from c1");
    assert_eq!(s.push(&c1, "origin", &["HEAD:refs/for/main"], &[]).code, 0);
    let main = s.ref_target("main").unwrap();
    s.commit(&c2, "a.txt", "from c2\n", "fix: a from c2");
    let run = s.push(&c2, "origin", &["HEAD:refs/for/main"], &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_has(&run.stderr, "[remote rejected] HEAD -> refs/for/main");
    assert_has(
        &run.stderr,
        "conflicts with the branch on the server in: a.txt",
    );
    assert_has(&run.stderr, "remote: git-evolv:   conflict: a.txt");
    assert_eq!(s.ref_target("main").unwrap(), main);
    let refused: Vec<_> = s
        .outcomes()
        .into_iter()
        .filter(|o| o["state"] == "refused")
        .collect();
    assert_eq!(refused.len(), 1);
    assert_eq!(refused[0]["reason"]["code"], "conflict");
    assert_eq!(refused[0]["reason"]["paths"][0], "a.txt");
    s.assert_fsck();
}

#[test]
fn the_servers_validation_runs_and_a_failure_shows_its_output_tail() {
    let Some(s) = server() else { return };
    s.git(&[
        "config",
        "evolv.validate",
        "echo checking-$(cat c.txt); test \"$(cat c.txt)\" = good",
    ]);
    let c = s.clone("c1");
    let main = s.ref_target("main").unwrap();
    s.commit(&c, "c.txt", "bad\n", "feat: bad c");
    let run = s.push(&c, "origin", &["HEAD:refs/for/main"], &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_has(&run.stderr, "[remote rejected]");
    assert_has(&run.stderr, "remote: git-evolv:   | checking-bad");
    assert_eq!(s.ref_target("main").unwrap(), main);
    s.git_in(&c, &["reset", "-q", "--hard", "HEAD~"], &[]);
    let good = s.commit(&c, "c.txt", "good\n", "feat: good c");
    let run = s.push(&c, "origin", &["HEAD:refs/for/main"], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(s.ref_target("main").unwrap(), good);
    s.assert_fsck();
}

#[test]
fn wait_false_answers_at_once_and_a_detached_drainer_lands_it() {
    let Some(s) = server() else { return };
    let c = s.clone("c1");
    let pushed = s.commit(&c, "c.txt", "new\n", "feat: c");
    let run = s.push(
        &c,
        "origin",
        &["-o", "evolv.wait=false", "HEAD:refs/for/main"],
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_has(&run.stderr, "HEAD -> refs/evolv/proposals/patch_");
    assert_has(&run.stderr, "queued for main");
    let decided = s.wait_decided();
    assert_eq!(decided.len(), 1);
    assert_eq!(decided[0]["state"], "landed", "{decided:?}");
    assert_eq!(s.ref_target("main").unwrap(), pushed);
    s.assert_fsck();
}

#[test]
fn pushes_over_git_daemon_land_too() {
    let Some(mut s) = server() else { return };
    let url = s.daemon_url();
    let c = s.clone("c1");
    let pushed = s.commit(&c, "c.txt", "new\n", "feat: over the daemon");
    let run = s.push(&c, &url, &["HEAD:refs/for/main"], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_has(&run.stderr, "HEAD -> main");
    assert_eq!(s.ref_target("main").unwrap(), pushed);
    let o = s.only_outcome();
    assert_eq!(o["pusher"]["address"], "127.0.0.1", "{o}");
    s.assert_fsck();
}

#[test]
fn pre_receive_refuses_direct_pushes_deletions_and_force_pushes_of_protected_branches() {
    let Some(s) = server() else { return };
    let c = s.clone("c1");
    let main = s.ref_target("main").unwrap();
    s.commit(&c, "c.txt", "x\n", "feat: x");
    let direct = s.push(&c, "origin", &["--no-verify", "HEAD:main"], &[]);
    assert_eq!(direct.code, 1);
    assert_has(&direct.stderr, "main is protected");
    assert_has(&direct.stderr, "push to refs/for/main");
    let delete = s.push(&c, "origin", &[":main"], &[]);
    assert_eq!(delete.code, 1);
    s.git_in(&c, &["checkout", "-q", "--orphan", "rewritten"], &[]);
    s.commit(&c, "d.txt", "d\n", "feat: history rewritten");
    let force = s.push(&c, "origin", &["--force", "HEAD:main"], &[]);
    assert_eq!(force.code, 1, "{}", force.stderr);
    assert_has(&force.stderr, "main is protected");
    let forged = s.push(
        &c,
        "origin",
        &["HEAD:refs/evolv/applied/patch_1_deadbeef"],
        &[],
    );
    assert_eq!(forged.code, 1);
    assert_has(&forged.stderr, "the server's own bookkeeping");
    assert_eq!(s.ref_target("main").unwrap(), main);
    assert!(s.refs("refs/evolv/applied/").is_empty());
    // A branch nobody protects takes direct pushes as git does.
    let topic = s.push(&c, "origin", &["HEAD:refs/heads/topic"], &[]);
    assert_eq!(topic.code, 0, "{}", topic.stderr);
    assert_lacks(&topic.stderr, "protected");
}

#[test]
fn a_later_push_lands_only_what_is_new_when_earlier_commits_landed_rebased() {
    let Some(s) = server() else { return };
    let (c1, c2) = (s.clone("c1"), s.clone("c2"));
    s.commit(&c1, "one.txt", "1\n", "feat: one");
    assert_eq!(s.push(&c1, "origin", &["HEAD:refs/for/main"], &[]).code, 0);
    s.commit(&c2, "two.txt", "2\n", "feat: two");
    assert_eq!(s.push(&c2, "origin", &["HEAD:refs/for/main"], &[]).code, 0);
    // c2's history still has its "feat: two", which landed rebased.
    s.commit(&c2, "three.txt", "3\n", "feat: three");
    let run = s.push(&c2, "origin", &["HEAD:refs/for/main"], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let log = s.git(&["log", "--format=%s", "main"]);
    assert_eq!(log, "feat: three\nfeat: two\nfeat: one\ninitial\n");
    s.assert_fsck();
}

#[test]
fn with_evolv_lint_pushes_a_message_that_fails_the_lint_is_refused_with_findings() {
    let Some(s) = server() else { return };
    s.git(&["config", "evolv.lintPushes", "true"]);
    let c = s.clone("c1");
    let main = s.ref_target("main").unwrap();
    s.commit(&c, "c.txt", "x\n", "Added some stuff.");
    let run = s.push(&c, "origin", &["HEAD:refs/for/main"], &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_has(&run.stderr, "fails the server's commit message lint");
    assert_has(&run.stderr, "[type-empty]");
    assert_eq!(s.ref_target("main").unwrap(), main);
    s.git_in(
        &c,
        &["commit", "-q", "--amend", "-m", "feat: add some stuff"],
        &[],
    );
    let run = s.push(&c, "origin", &["HEAD:refs/for/main"], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}
