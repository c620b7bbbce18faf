//! `git evolv test`: verdicts, their cache in refs, its key, and trust.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::common::{BIN, Run, TestRepo, sealed};

/// A command that counts its runs in `$HOME/runs` and exits with `code`.
fn counting(repo: &TestRepo, code: i32) -> String {
    let runs = repo.home().join("runs");
    format!(
        "echo ran >> {}; echo out-{code}; exit {code}",
        runs.display()
    )
}

/// How many runs a counting command made (in `$HOME/runs`).
pub(crate) fn runs(repo: &TestRepo) -> usize {
    std::fs::read_to_string(repo.home().join("runs")).map_or(0, |s| s.lines().count())
}

/// The names of the verdict refs of this clone.
pub(crate) fn verdict_refs(repo: &TestRepo) -> Vec<String> {
    repo.git(&[
        "for-each-ref",
        "--format=%(refname)",
        "refs/evolv/verdicts/",
    ])
    .lines()
    .map(str::to_string)
    .collect()
}

fn verdict(run: &Run, i: usize) -> Value {
    run.stdout_json()["verdicts"][i].clone()
}

fn test_json(repo: &TestRepo, command: &str, extra: &[&str]) -> Run {
    let mut args = vec!["test", "--json", "--command", command];
    args.extend_from_slice(extra);
    repo.evolv(&args)
}

#[test]
fn a_pass_is_stored_in_a_ref_and_reused_until_no_cache() {
    let repo = TestRepo::with_files(&[("a.txt", "one\n")]);
    let cmd = counting(&repo, 0);
    let first = test_json(&repo, &cmd, &[]);
    first.success();
    let v = verdict(&first, 0);
    assert_eq!(v["status"], "pass");
    assert_eq!(v["cached"], false);
    assert_eq!(v["target"], "HEAD");
    assert_eq!(v["output_tail"], "out-0\n");
    assert_eq!(v["tree"], repo.rev("HEAD^{tree}").unwrap().as_str());
    assert_eq!(verdict_refs(&repo).len(), 1);
    let second = test_json(&repo, &cmd, &[]);
    second.success();
    assert_eq!(verdict(&second, 0)["cached"], true);
    assert_eq!(runs(&repo), 1, "a cached pass does not run the command");
    let forced = test_json(&repo, &cmd, &["--no-cache"]);
    assert_eq!(verdict(&forced, 0)["cached"], false);
    assert_eq!(runs(&repo), 2);
    assert_eq!(repo.status(), "");
    repo.assert_fsck();
}

#[test]
fn exit_codes_follow_git_bisect_run_and_only_all_pass_exits_0() {
    let repo = TestRepo::with_files(&[("a.txt", "one\n")]);
    for (code, status) in [(1, "fail"), (125, "skip"), (127, "abort"), (130, "abort")] {
        let run = test_json(&repo, &counting(&repo, code), &[]);
        run.code(1);
        assert_eq!(verdict(&run, 0)["status"], status, "exit {code}");
        assert_eq!(verdict(&run, 0)["exit_code"], code);
    }
    // An abort is not stored: the run, not the tree, was broken.
    assert_eq!(verdict_refs(&repo).len(), 2);
    let human = repo.evolv(&["test", "--command", "echo broken; exit 3"]);
    human.code(1);
    assert!(human.stdout.starts_with("fail  HEAD"), "{}", human.stdout);
    assert!(human.stderr.contains("broken"), "{}", human.stderr);
}

#[test]
fn several_targets_run_in_parallel_worktrees_in_the_order_named() {
    let repo = TestRepo::with_files(&[("a.txt", "one\n")]);
    repo.write("a.txt", "two\n");
    repo.commit_all("two");
    let cmd = "grep -q two a.txt";
    let run = test_json(&repo, cmd, &["--jobs", "2", "HEAD~1", "HEAD"]);
    run.code(1);
    assert_eq!(verdict(&run, 0)["target"], "HEAD~1");
    assert_eq!(verdict(&run, 0)["status"], "fail");
    assert_eq!(verdict(&run, 1)["status"], "pass");
    let bad = repo.evolv(&["test", "--command", "true", "no-such-rev"]);
    bad.code(2);
    assert!(bad.stderr.contains("no-such-rev"), "{}", bad.stderr);
}

/// Each part of the key, flipped alone, misses: zero false hits.
#[test]
fn flipping_any_part_of_the_key_misses() {
    let repo = TestRepo::with_files(&[("a.txt", "one\n"), (".gitignore", "dep.lock\n")]);
    let tool = repo.home().join("tool");
    std::fs::write(&tool, "v1\n").unwrap();
    repo.write("dep.lock", "lock-1\n");
    repo.set_config("evolv.test.env", "FLAVOUR");
    repo.set_config("evolv.test.fingerprint", &format!("cat {}", tool.display()));
    repo.set_config("evolv.test.inputs", "dep.lock");
    let cmd = counting(&repo, 0);
    let cached = |command: &str, flavour: &str| -> bool {
        let run = repo.evolv_env(
            &["test", "--json", "--command", command],
            &[("FLAVOUR", flavour)],
        );
        run.success();
        verdict(&run, 0)["cached"].as_bool().unwrap()
    };
    assert!(!cached(&cmd, "a"));
    assert!(cached(&cmd, "a"), "the same key hits");
    assert!(!cached(&cmd, "b"), "an env value");
    std::fs::write(&tool, "v2\n").unwrap();
    assert!(!cached(&cmd, "a"), "the fingerprint output");
    repo.write("dep.lock", "lock-2\n");
    assert!(!cached(&cmd, "a"), "a declared input");
    assert!(!cached(&format!("{cmd} "), "a"), "the command");
    repo.write("a.txt", "onf\n");
    repo.commit_all("one byte");
    assert!(!cached(&cmd, "a"), "a tracked file");
    assert_eq!(runs(&repo), 6);
}

fn in_clone(dir: &Path, home: &Path, args: &[&str]) -> Run {
    let mut cmd = sealed(BIN, home);
    cmd.args(args).current_dir(dir);
    Run::of(cmd)
}

fn git_in(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .status()
        .unwrap();
    assert!(ok.success(), "git {args:?}");
}

/// A pass fetched from another clone is not used unless that remote is
/// trusted, whether fetched under the remote's name or over our own refs.
#[test]
fn a_fetched_pass_is_used_only_from_a_trusted_remote() {
    let ci = TestRepo::with_files(&[("a.txt", "one\n")]);
    let cmd = counting(&ci, 0);
    test_json(&ci, &cmd, &[]).success();
    let dev = ci.home().join("dev");
    git_in(
        ci.home(),
        &[
            "clone",
            "-q",
            ci.path().to_str().unwrap(),
            dev.to_str().unwrap(),
        ],
    );
    git_in(
        &dev,
        &["fetch", "-q", "origin", "refs/evolv/*:refs/evolv/*"],
    );
    git_in(
        &dev,
        &[
            "fetch",
            "-q",
            "origin",
            "refs/evolv/verdicts/*:refs/evolv/remotes/origin/verdicts/*",
        ],
    );
    let cached = || {
        let run = in_clone(&dev, ci.home(), &["test", "--json", "--command", &cmd]);
        run.success();
        verdict(&run, 0)["cached"].as_bool().unwrap()
    };
    assert!(!cached(), "an untrusted fetched pass is not used");
    assert_eq!(runs(&ci), 2);
    // The run above stored dev's own verdict; drop it to see the remote's.
    let key = in_clone(&dev, ci.home(), &["test", "--json", "--command", &cmd]);
    assert_eq!(verdict(&key, 0)["source"], "local");
    let mine = String::from_utf8(
        Command::new("git")
            .arg("-C")
            .arg(&dev)
            .args([
                "for-each-ref",
                "--format=%(refname)",
                "refs/evolv/verdicts/",
            ])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    git_in(&dev, &["update-ref", "-d", mine.trim()]);
    git_in(&dev, &["config", "evolv.test.trust", "origin"]);
    let run = in_clone(&dev, ci.home(), &["test", "--json", "--command", &cmd]);
    assert_eq!(verdict(&run, 0)["cached"], true);
    assert_eq!(verdict(&run, 0)["source"], "origin");
    assert_eq!(runs(&ci), 2);
}

/// A stack of 9 commits whose 6th breaks `grep`: found in at most
/// ⌈log2 9⌉ + 1 = 5 runs, reported with its output tail.
#[test]
fn bisect_finds_the_first_failing_commit_within_log2_runs() {
    let repo = TestRepo::with_files(&[("state", "good\n")]);
    let base = repo.head();
    for i in 1..=9 {
        let state = if i >= 6 { "bad" } else { "good" };
        repo.write("state", &format!("{state}\n"));
        repo.write("n", &format!("{i}\n"));
        repo.commit_all(&format!("c{i}"));
    }
    let sixth = repo.rev("HEAD~3").unwrap();
    let runs_file = repo.home().join("runs");
    let cmd = format!(
        "echo x >> {}; cat state; grep -q good state",
        runs_file.display()
    );
    let range = format!("{base}..HEAD");
    let run = repo.evolv(&["test", "--json", "--command", &cmd, "--bisect", &range]);
    run.code(1);
    let v = run.stdout_json();
    assert_eq!(v["bisect"]["first_failing"]["target"], sixth.as_str());
    assert_eq!(v["bisect"]["first_failing"]["output_tail"], "bad\n");
    assert!(runs(&repo) <= 5, "{} runs", runs(&repo));
    // A skipped member (exit 125) is stepped over; one skipped right
    // before the first failing leaves both as candidates, as git bisect says.
    let skipping = |skip: &str| {
        let cmd = format!("test $(git rev-parse HEAD) = {skip} && exit 125; {cmd}");
        let run = repo.evolv(&["test", "--json", "--command", &cmd, "--bisect", &range]);
        run.code(1);
        run.stdout_json()["bisect"].clone()
    };
    let found = skipping(&repo.rev("HEAD~5").unwrap());
    assert_eq!(found["first_failing"]["target"], sixth.as_str());
    let fifth = repo.rev("HEAD~4").unwrap();
    let found = skipping(&fifth);
    assert_eq!(found["first_failing"], Value::Null);
    assert_eq!(found["candidates"], serde_json::json!([fifth, sixth]));
    // Nothing fails: one run, exit 0.
    let human = repo.evolv(&["test", "--command", "true", "--bisect", &range]);
    human.success();
    assert!(
        human.stdout.contains("no failing commit among 9 commits"),
        "{}",
        human.stdout
    );
}

/// `gc --older-than N` prunes verdicts made more than N days ago and keeps
/// newer ones.
#[test]
fn gc_prunes_verdicts_by_age() {
    let repo = TestRepo::with_files(&[("a.txt", "one\n")]);
    let old = repo.evolv_env(
        &["test", "--json", "--command", "true"],
        &[("GIT_EVOLV_TEST_TIME", "1000000000")],
    );
    old.success();
    test_json(&repo, "true ", &[]).success();
    let count = || verdict_refs(&repo).len();
    assert_eq!(count(), 2);
    let gc = repo.evolv(&["gc", "--json", "--older-than", "30"]);
    gc.success();
    assert_eq!(
        gc.stdout_json()["pruned_verdicts"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(count(), 1);
    repo.assert_fsck();
}

/// The MCP tool `test` runs `evolv.validate`, reuses the stored verdict and
/// says so; it is not read-only.
#[test]
fn the_mcp_test_tool_gives_verdicts_and_reuses_them() {
    use crate::mcp_client::{Mcp, assert_matches_output_schema};
    let repo = TestRepo::with_files(&[("a.txt", "one\n")]);
    repo.set_config("evolv.validate", &counting(&repo, 0));
    let mut mcp = Mcp::start(&repo);
    let tools = mcp.tools();
    let first = mcp.call_ok("test", serde_json::json!({}));
    assert_matches_output_schema(&tools, "test", &first);
    assert_eq!(first["verdicts"][0]["status"], "pass");
    assert_eq!(first["verdicts"][0]["cached"], false);
    let second = mcp.call_ok("test", serde_json::json!({"targets": ["HEAD"]}));
    assert_eq!(second["verdicts"][0]["cached"], true);
    assert_eq!(runs(&repo), 1);
    let tool = tools.iter().find(|t| t["name"] == "test").unwrap();
    assert_eq!(tool["annotations"]["readOnlyHint"], false);
}
