//! Configuration as git reads it, `git -c` included (issue #10 item 4):
//! every documented key set through `git -c` reaches the command, and a
//! bad value is `invalid_config` naming the key, the value and what is
//! expected.

use crate::common::{
    TestRepo, assert_has, assert_has_all, assert_human, error_code, run_with_stdin, sealed,
};

/// `evolv.validate=false` names the command `false`, which fails: the
/// validation runs and lands nothing. Before the fix, libgit2 never saw
/// `git -c` and the patch landed unvalidated.
#[test]
fn git_dash_c_evolv_validate_false_runs_the_validation_and_it_fails() {
    let (repo, id) = TestRepo::scenario_proposed(&[]);
    let before = repo.head();
    let run = repo.git_evolv(&["evolv.validate=false"], &["apply", "--json", &id]);
    run.fails_with(1, "validation_failed");
    assert_has(&run.stdout, "`false`");
    assert_eq!(repo.head(), before);
    assert_eq!(repo.status(), "");
    // Without `-c`, nothing is configured and the same patch lands.
    repo.evolv(&["apply", &id]).ok();
    assert_ne!(repo.head(), before);
    repo.assert_fsck();
}

#[test]
fn git_dash_c_sets_the_apply_keys() {
    let (repo, id) = TestRepo::scenario_proposed(&[]);
    let before = repo.head();
    // evolv.timeout with a slow validation command.
    let run = repo.git_evolv(
        &["evolv.validate=sleep 5", "evolv.timeout=1"],
        &["apply", "--json", &id],
    );
    assert_eq!(error_code(&run), "timeout");
    // evolv.plan naming a missing file.
    let run = repo.git_evolv(&["evolv.plan=plans/none.json"], &["apply", "--json", &id]);
    assert_eq!(error_code(&run), "invalid_config");
    assert_has(&run.stdout, "plans/none.json");
    // evolv.worktree=fresh: a throwaway worktree, gone afterwards (the
    // warm one of the timeout run stays).
    let worktrees = repo.worktree_count();
    let run = repo.git_evolv(
        &["evolv.worktree=fresh", "evolv.validate=true"],
        &["apply", "--json", &id],
    );
    run.ok();
    let wt = run.json()["worktree_path"].as_str().unwrap().to_string();
    assert!(!wt.contains(".git/evolv"), "{wt}");
    assert!(!std::path::Path::new(&wt).exists());
    assert_ne!(repo.head(), before);
    assert_eq!(repo.worktree_count(), worktrees);
}

#[test]
fn git_dash_c_user_identity_signs_the_proposal() {
    let repo = TestRepo::scenario();
    let run = repo.git_evolv(
        &["user.name=Dash C", "user.email=dash@c.example"],
        &[
            "propose",
            "--json",
            "--pattern",
            "getUserData",
            "--replacement",
            "x",
        ],
    );
    run.ok();
    let id = run.json()["patch_id"].as_str().unwrap().to_string();
    let author = repo.git(&[
        "log",
        "-1",
        "--format=%an <%ae>",
        &format!("refs/evolv/proposals/{id}"),
    ]);
    assert_eq!(author.trim(), "Dash C <dash@c.example>");
}

#[test]
fn git_dash_c_sets_every_lint_key() {
    let repo = TestRepo::with_files(&[("a", "1\n")]);
    let lint =
        |config: &[&str], message: &str| repo.git_evolv(config, &["lint", "--json", message]);
    assert_eq!(lint(&[], "fix: x").code, 0);
    assert_eq!(lint(&["evolv.commit.types=feat"], "fix: x").code, 1);
    assert_eq!(lint(&["evolv.commit.scopes=api"], "feat(ui): x").code, 1);
    assert_eq!(
        lint(
            &["evolv.commit.headerMaxLength=10"],
            "feat: a longer header"
        )
        .code,
        1
    );
    let long = "x".repeat(120);
    let body = format!("fix: x\n\n{long}\n");
    assert_eq!(lint(&[], &body).code, 1);
    assert_eq!(lint(&["evolv.commit.bodyMaxLineLength=200"], &body).code, 0);
    let footer = format!("fix: x\n\nbody\n\nRefs: {long}\n");
    assert_eq!(lint(&[], &footer).code, 1);
    assert_eq!(
        lint(&["evolv.commit.footerMaxLineLength=200"], &footer).code,
        0
    );
    assert_eq!(lint(&[], "zzz: x").code, 1);
    assert_eq!(lint(&["evolv.commit.rule.type-enum=off"], "zzz: x").code, 0);
    // core.commentChar: with `;` as the comment character, `#` lines are message.
    repo.write("msg.txt", "fix: x\n\n#123 is the issue\n; Please enter\n");
    let run = repo.git_evolv(
        &["core.commentChar=;"],
        &["lint", "--json", "--file", "msg.txt"],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    // evolv.commit.ignoreAuthors: a bad message by an ignored author passes in range mode.
    repo.write("b", "2\n");
    repo.git(&["add", "b"]);
    repo.git(&[
        "-c",
        "user.name=Bot",
        "-c",
        "user.email=bot@x",
        "commit",
        "-q",
        "-m",
        "bad message",
    ]);
    assert_eq!(
        repo.git_evolv(&[], &["lint", "--json", "--range", "HEAD~1..HEAD"])
            .code,
        1
    );
    let run = repo.git_evolv(
        &["evolv.commit.ignoreAuthors=Bot"],
        &["lint", "--json", "--range", "HEAD~1..HEAD"],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    // A bad value names the key, the value and what is expected.
    let run = repo.git_evolv(
        &["evolv.commit.headerMaxLength=long"],
        &["lint", "--json", "fix: x"],
    );
    assert_eq!(error_code(&run), "invalid_config");
    let msg = run.json()["error"]["message"].as_str().unwrap().to_string();
    assert_has_all(&msg, &["evolv.commit.headermaxlength", "long"]);
}

#[test]
fn git_dash_c_sets_the_push_keys() {
    let repo = TestRepo::with_files(&[("a", "1\n")]);
    let head = repo.head();
    let zero = "0".repeat(40);
    let line = format!("refs/heads/release {head} refs/heads/release {zero}\n");
    let hook = |config: &[&str]| {
        let cmd = repo.git_with_evolv(config, &["evolv", "hook", "pre-push", "origin", "/nowhere"]);
        run_with_stdin(cmd, &line)
    };
    // `release` is not protected by default: the push passes.
    assert_eq!(hook(&[]).code, 0);
    // Protected through `git -c`, and with no terminal to ask: refused.
    let run = hook(&["evolv.protectedBranches=release"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    // And let through when pushToProtected=allow.
    let run = hook(&[
        "evolv.protectedBranches=release",
        "evolv.pushToProtected=allow",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // A bad value is invalid_config naming it.
    let run = hook(&["evolv.pushToProtected=sometimes"])
        .named("git -c evolv.pushToProtected=sometimes evolv hook pre-push origin /nowhere");
    assert_human!(repo, "pre_push_bad_config_value", run.transcript());
}

#[test]
fn git_dash_c_core_hooks_path_is_seen_by_hooks_install() {
    let repo = TestRepo::with_files(&[("a", "1\n")]);
    let run = repo.git_evolv(
        &["core.hooksPath=elsewhere"],
        &["hooks", "install", "--json"],
    );
    assert_eq!(error_code(&run), "hooks_path_set");
    assert_has(&run.stdout, "command");
}

#[test]
fn a_bad_config_value_or_line_is_invalid_config_naming_it() {
    let (repo, id) = TestRepo::scenario_proposed(&[]);
    repo.set_config("evolv.timeout", "soon");
    let run = repo.evolv(&["apply", "--json", &id]);
    assert_eq!(error_code(&run), "invalid_config");
    let msg = run.error_message();
    for needle in ["evolv.timeout", "soon", "positive"] {
        assert_has(&msg, needle);
    }
    repo.set_config("--unset", "evolv.timeout");
    repo.set_config("evolv.worktree", "tepid");
    let run = repo.evolv(&["apply", "--json", &id]);
    assert_eq!(error_code(&run), "invalid_config");
    repo.set_config("--unset", "evolv.worktree");
    // A broken config file: git refuses it, so do we, naming file and line.
    let config = repo.path().join(".git/config");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str("[evolv]\n\t= oops\n");
    std::fs::write(&config, text).unwrap();
    let run = repo.evolv(&["apply", "--json", &id]);
    assert_eq!(error_code(&run), "invalid_config");
    assert_has(&run.stdout, ".git/config");
    let _ = sealed;
}

// See: issue 14 item 1: `checkout.workers` and
// `checkout.thresholdForParallelism` decide how many threads write a
// landing's files. A value git refuses ("bad numeric config value") was
// silently taken as unset; now it is refused before anything is written.
#[test]
fn a_checkout_worker_setting_git_refuses_is_refused_with_nothing_changed() {
    let repo = TestRepo::scenario();
    let head = repo.head();
    let id = repo.propose("getUserData", "fetchUserData", &[]);
    for setting in [
        "checkout.workers=many",
        "checkout.thresholdForParallelism=4 files",
    ] {
        let run = repo.git_evolv(&[setting], &["apply", "--json", &id]);
        assert_eq!(
            error_code(&run),
            "invalid_config",
            "{setting}: {}",
            run.stdout
        );
        let key = setting.split('=').next().unwrap();
        assert_has(&run.stdout, key);
        assert_eq!(repo.head(), head, "{setting}");
        assert_eq!(repo.status(), "", "{setting}");
        assert!(!repo.path().join(".git/evolv/journal").exists());
    }
    // What git reads as integers: units and hex.
    repo.git_evolv(
        &[
            "checkout.workers=0x2",
            "checkout.thresholdForParallelism=1k",
        ],
        &["apply", &id],
    )
    .ok();
    assert_ne!(repo.head(), head);
    assert_eq!(repo.status(), "");
}
