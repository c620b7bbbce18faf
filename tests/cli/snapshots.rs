//! Snapshot tests of the human output (issue 10, item 7): the clock and
//! the id source are fixed (`GIT_EVOLV_TEST_TIME`, read by debug builds
//! only), each command a minute after the previous one, and what still
//! varies between runs (temporary paths, hashes, durations) is redacted.
//! Snapshots live in `tests/cli/snapshots/`; after an intended change of
//! output, review the diff with `INSTA_UPDATE=always cargo test --locked`
//! and `git diff`.

use crate::common::{Error, TestRepo, TestResult, assert_human};

/// The seed's scenario, its commands on the test clock.
fn scenario() -> TestRepo {
    TestRepo::scenario().on_test_clock()
}

/// The proposal `getUserData` → `fetchUserData` in frontend/ only.
fn frontend_proposal(repo: &TestRepo) -> Result<String, Error> {
    repo.try_propose("getUserData", "fetchUserData", &["-s", "frontend/**"])
}

#[test]
fn propose_human() {
    let repo = scenario();
    let out = repo.transcript(&[
        "propose",
        "--pattern",
        "getUserData",
        "--replacement",
        "fetchUserData",
        "--scope",
        "backend/**",
    ]);
    assert_human!(repo, "propose", out);
}

#[test]
fn empty_list_and_log_human() {
    let repo = scenario();
    let out = repo.transcripts(&[&["list"], &["log"]]);
    assert_human!(repo, "empty", out);
}

#[test]
fn show_list_and_log_human() -> TestResult {
    let repo = scenario();
    let a = repo.try_propose("getUserData", "fetchUserData", &[])?;
    repo.try_propose("user", "account", &["-m", "Rename user to account"])?;
    repo.evolv(&["apply", &a]).try_success()?;
    let show = repo.transcript(&["show", &a]);
    let list = repo.transcript(&["list"]);
    let log = repo.transcripts(&[&["log"], &["log", "-n", "1"]]);
    assert_human!(repo, "show", show);
    assert_human!(repo, "list", list);
    assert_human!(repo, "log", log);
    Ok(())
}

#[test]
fn apply_and_rollback_human() -> TestResult {
    let repo = scenario();
    let a = frontend_proposal(&repo)?;
    let apply = repo.transcripts(&[
        &["apply", &a, "--dry-run", "--validate", "true"],
        &["apply", &a, "--validate", "true"],
    ]);
    let rollback = repo.transcript(&["rollback", &a]);
    assert_human!(repo, "apply", apply);
    assert_human!(repo, "rollback", rollback);
    Ok(())
}

#[test]
fn lint_human() {
    let repo = scenario();
    let out = repo.transcripts(&[
        &["lint", "feat(api): add the user endpoint"],
        &["lint", "feet: Add stuff."],
        &["lint", "--format", "github", "fix:missing space"],
    ]);
    assert_human!(repo, "lint", out);
}

#[test]
fn error_rendering_human() -> TestResult {
    let repo = scenario();
    let a = frontend_proposal(&repo)?;
    repo.try_write("frontend/api.ts", "dirty\n")?;
    let out = repo.transcripts(&[
        &["show", "patch_1_nope"],
        &["propose", "-p", "nothing-matches-this", "-r", "x"],
        &["propose", "-p", "(", "-r", "x"],
        &["apply", &a],
        &["rollback", &a],
        &["rollback", &a, "--strategy", "bogus"],
    ]);
    repo.try_git(&["checkout", "--", "frontend/api.ts"])?;
    let failed = repo.transcript(&[
        "apply",
        &a,
        "--validate",
        "echo checking; echo broken >&2; exit 3",
    ]);
    assert_human!(repo, "errors", out);
    assert_human!(repo, "validation_failed", failed);
    Ok(())
}

/// Every subcommand, as `git evolv SUB --help` prints it.
const SUBCOMMANDS: &[&str] = &[
    "propose",
    "list",
    "show",
    "drop",
    "apply",
    "rollback",
    "recover",
    "log",
    "gc",
    "plan",
    "demo",
    "lint",
    "hooks",
    "hook",
    "check",
    "cat",
    "glob",
    "ask",
    "completions",
    "install-man",
    "help",
    "mcp",
    "task",
    "serve",
];

/// The `--help` of git-evolv and of each subcommand: the reference a
/// user reads, pinned (`help_<subcommand>.snap`).
#[test]
fn every_help_text_human() -> TestResult {
    let repo = TestRepo::try_empty()?;
    assert_human!(repo, "help_git_evolv", repo.transcript(&["--help"]));
    for sub in SUBCOMMANDS {
        let name = format!("help_{}", sub.replace('-', "_"));
        assert_human!(repo, name.as_str(), repo.transcript(&[sub, "--help"]));
    }
    Ok(())
}
