//! Issue 38: verdicts that lied. Each validator runs as its own command;
//! `--no-cache` reports and stores its own run; a directory input is hashed
//! by its files; a long-lived MCP session sees a changed toolchain; a
//! verdict ref that is not a commit is skipped with a warning and removed
//! by `gc`; an abort (127, 128+) stops a multi-target `test`.

use serde_json::Value;

use crate::common::{Run, TestRepo, assert_has};
use crate::verdicts::{runs, verdict_refs};

/// A command that counts its runs in `$HOME/runs`, then runs `rest`.
fn counted(repo: &TestRepo, rest: &str) -> String {
    format!("echo ran >> {}; {rest}", repo.home().join("runs").display())
}

fn verdict(run: &Run, i: usize) -> Value {
    run.stdout_json()["verdicts"][i].clone()
}

/// Each `evolv.validate` value, in order.
fn validators(repo: &TestRepo, commands: &[&str]) {
    for c in commands {
        repo.git(&["config", "--add", "evolv.validate", c]);
    }
}

// --- item 6: each validator is its own command --------------------------

/// A `# comment` in validator 1 used to swallow `&& validator 2`: the
/// set passed, and `apply` landed on that cached pass.
#[test]
fn a_comment_in_one_validator_cannot_skip_the_next() {
    let (repo, id) = TestRepo::proposed(&[("a.txt", "one\n")], "one", "two");
    let second = counted(&repo, "echo second ran; exit 3");
    validators(&repo, &["true # the rest is a comment", &second]);
    let head = repo.head();
    let tested = repo.evolv(&["test", "--json", &id]);
    tested.code(1);
    let v = verdict(&tested, 0);
    assert_eq!(v["status"], "fail", "{v}");
    assert_eq!(v["exit_code"], 3, "{v}");
    assert_eq!(runs(&repo), 1, "validator 2 ran");
    let each = v["commands"].as_array().expect("each validator's exit");
    assert_eq!(each.len(), 2, "{v}");
    assert_eq!(each[0]["command"], "true # the rest is a comment");
    assert_eq!(each[0]["exit_code"], 0);
    assert_eq!(each[1]["command"], second.as_str());
    assert_eq!(each[1]["exit_code"], 3);
    // The stored verdict is a fail: apply refuses, nothing lands.
    let applied = repo.evolv(&["apply", "--json", &id]);
    applied.code(1);
    assert_eq!(repo.head(), head, "nothing landed");
    assert_eq!(repo.status(), "");
    repo.assert_fsck();
}

/// `exec` and `cd` in validator 1 change nothing for validator 2.
#[test]
fn exec_and_cd_in_one_validator_do_not_change_the_next() {
    let repo = TestRepo::with_files(&[("a.txt", "one\n")]);
    validators(&repo, &["exec true", "cd /", "test -f a.txt", "exit 4"]);
    let run = repo.evolv(&["test", "--json"]);
    run.code(1);
    let v = verdict(&run, 0);
    assert_eq!(v["exit_code"], 4, "exec did not end the set: {v}");
    let exits: Vec<Value> = v["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["exit_code"].clone())
        .collect();
    assert_eq!(exits, [0, 0, 0, 4].map(Value::from), "{v}");
    let human = repo.evolv(&["test"]);
    human.code(1);
    assert_has(&human.stdout, "exit 4");
    assert_has(&human.stdout, "`exec true` exit 0");
}

/// A cached pass of the set stands for each validator: a test that passed
/// lets `apply` land without running them, and the apply says each exit.
#[test]
fn a_cached_pass_of_the_set_records_each_validator() {
    let (repo, id) = TestRepo::proposed(&[("a.txt", "one\n")], "one", "two");
    validators(&repo, &[&counted(&repo, "true"), "test -f a.txt"]);
    repo.evolv(&["test", &id]).success();
    assert_eq!(runs(&repo), 1);
    let applied = repo.evolv(&["apply", "--json", &id]);
    applied.success();
    let v = &applied.stdout_json()["verdict"];
    assert_eq!(v["cached"], true, "{v}");
    assert_eq!(v["commands"].as_array().unwrap().len(), 2, "{v}");
    assert_eq!(v["commands"][1]["exit_code"], 0, "{v}");
    assert_eq!(runs(&repo), 1);
}

// --- item 7: --no-cache reports and stores its own run -------------------

#[test]
fn no_cache_reports_its_own_run_and_replaces_the_stored_verdict() {
    let (repo, id) = TestRepo::proposed(&[("a.txt", "one\n")], "one", "two");
    let flag = repo.home().join("fixed");
    repo.set_config(
        "evolv.validate",
        &format!("test -f {} || {{ echo flaky; exit 1; }}", flag.display()),
    );
    repo.evolv(&["test", &id]).code(1);
    // The flake is gone: a cached fail still answers without --no-cache.
    std::fs::write(&flag, "").unwrap();
    assert_eq!(
        verdict(&repo.evolv(&["test", "--json", &id]), 0)["cached"],
        true
    );
    let forced = repo.evolv(&["test", "--json", "--no-cache", &id]);
    forced.success();
    let v = verdict(&forced, 0);
    assert_eq!(v["status"], "pass", "--no-cache reports its own run: {v}");
    assert_eq!(v["exit_code"], 0);
    assert_eq!(v["cached"], false);
    assert_eq!(verdict_refs(&repo).len(), 1);
    // The new verdict is the stored one: a plain test hits the pass and
    // apply lands the good tree.
    let again = repo.evolv(&["test", "--json", &id]);
    again.success();
    assert_eq!(verdict(&again, 0)["cached"], true);
    let head = repo.head();
    repo.evolv(&["apply", &id]).success();
    assert_eq!(repo.rev("HEAD~1").unwrap(), head);
    repo.assert_fsck();
}

/// `apply --no-cache` stores its run over a stored fail as well.
#[test]
fn apply_no_cache_replaces_a_stored_fail() {
    let (repo, id) = TestRepo::proposed(&[("a.txt", "one\n")], "one", "two");
    let flag = repo.home().join("fixed");
    repo.set_config("evolv.validate", &format!("test -f {}", flag.display()));
    repo.evolv(&["apply", "--dry-run", &id]).code(1);
    std::fs::write(&flag, "").unwrap();
    repo.evolv(&["apply", "--dry-run", "--no-cache", &id])
        .success();
    let again = repo.evolv(&["apply", "--json", "--dry-run", &id]);
    again.success();
    assert_eq!(again.stdout_json()["verdict"]["cached"], true);
    assert_eq!(again.stdout_json()["verdict"]["status"], "pass");
}

// --- item 8: a directory input is hashed by its files --------------------

#[test]
fn a_changed_file_in_an_input_directory_misses_the_cache() {
    let repo = TestRepo::with_files(&[("a.txt", "one\n"), (".gitignore", "deps/\n")]);
    repo.write("deps/one.txt", "1\n");
    repo.write("deps/inner/two.txt", "2\n");
    repo.set_config("evolv.test.inputs", "deps");
    let cmd = counted(&repo, "true");
    let cached = || {
        let run = repo.evolv(&["test", "--json", "--command", &cmd]);
        run.success();
        verdict(&run, 0)["cached"].as_bool().unwrap()
    };
    assert!(!cached());
    assert!(cached(), "nothing changed: a hit");
    repo.write("deps/one.txt", "1 changed\n");
    assert!(!cached(), "a changed file in the directory");
    repo.write("deps/inner/two.txt", "2 changed\n");
    assert!(!cached(), "a changed file in a subdirectory");
    repo.write("deps/three.txt", "3\n");
    assert!(!cached(), "a new file");
    std::fs::remove_file(repo.file("deps/three.txt")).unwrap();
    assert!(cached(), "back as it was: the earlier key");
    std::fs::rename(repo.file("deps/one.txt"), repo.file("deps/uno.txt")).unwrap();
    assert!(!cached(), "a renamed file");
    assert_eq!(runs(&repo), 5);
    // A declared input that is a link to a directory is that directory.
    std::os::unix::fs::symlink(repo.file("deps"), repo.file("linked")).unwrap();
    repo.set_config("evolv.test.inputs", "linked");
    assert!(!cached());
    assert!(cached());
    repo.write("deps/uno.txt", "changed through the link\n");
    assert!(!cached(), "a changed file behind the link");
}

// --- item 9: a long-lived MCP session and a changed toolchain -------------

#[test]
fn a_long_lived_mcp_session_sees_a_changed_toolchain() {
    use crate::mcp_client::Mcp;
    let (repo, id) = TestRepo::proposed(&[("a.txt", "one\n")], "one", "two");
    let tool = repo.home().join("toolchain");
    std::fs::write(&tool, "compiler 1.0\n").unwrap();
    repo.set_config("evolv.test.fingerprint", &format!("cat {}", tool.display()));
    repo.set_config("evolv.validate", &counted(&repo, "true"));
    let mut mcp = Mcp::start(&repo);
    let tested = mcp.call_ok("test", serde_json::json!({"targets": [id]}));
    assert_eq!(tested["verdicts"][0]["status"], "pass");
    assert_eq!(runs(&repo), 1);
    std::fs::write(&tool, "compiler 2.0\n").unwrap();
    let applied = mcp.call_ok("apply_edit", serde_json::json!({"patch_id": id}));
    assert_eq!(
        applied["verdict"]["cached"], false,
        "the pass made with the old toolchain was reused: {applied}"
    );
    assert_eq!(runs(&repo), 2, "the validation ran with the new toolchain");
    assert_eq!(repo.read("a.txt"), "two\n");
    mcp.finish();
}

// --- item 10: a verdict ref that is not a commit ---------------------------

/// The key of the validation on `id`'s tree, learnt from a test that is
/// then deleted.
fn key_of(repo: &TestRepo, id: &str) -> String {
    repo.evolv(&["test", id]).success();
    let refs = verdict_refs(repo);
    assert_eq!(refs.len(), 1, "{refs:?}");
    repo.git(&["update-ref", "-d", &refs[0]]);
    refs[0].rsplit('/').next().unwrap().to_string()
}

#[test]
fn a_verdict_ref_to_a_blob_or_tree_is_skipped_with_a_warning_and_gc_removes_it() {
    let (repo, id) = TestRepo::proposed(&[("a.txt", "one\n"), ("b.txt", "b\n")], "one", "two");
    let other = repo.propose("^b$", "c", &["--scope", "b.txt"]);
    repo.set_config("evolv.validate", "true");
    let key = key_of(&repo, &id);
    let other_key = key_of(&repo, &other);
    let blob = repo.git(&["rev-parse", "HEAD:a.txt"]).trim().to_string();
    let tree = repo.git(&["rev-parse", "HEAD^{tree}"]).trim().to_string();
    repo.set_config("evolv.test.trust", "origin");
    let local = format!("refs/evolv/verdicts/{key}");
    let remote = format!("refs/evolv/remotes/origin/verdicts/{other_key}");
    let untrusted = format!("refs/evolv/remotes/fork/verdicts/{key}");
    let plant = || {
        for r in verdict_refs(&repo) {
            repo.git(&["update-ref", "-d", &r]);
        }
        repo.git(&["update-ref", &local, &tree]);
        repo.git(&["update-ref", &remote, &blob]);
        repo.git(&["update-ref", &untrusted, &blob]);
    };
    plant();
    let listed = repo.evolv(&["list", "--json"]);
    listed.success();
    let warnings = listed.stdout_json()["warnings"].to_string();
    assert_has(&warnings, &local);
    assert_has(&warnings, &remote);
    assert_eq!(
        listed.stdout_json()["proposals"].as_array().unwrap().len(),
        2
    );
    let human = repo.evolv(&["list"]);
    human.success();
    assert_has(&human.stderr, &format!("warning: {remote}"));
    for (target, bad) in [(&id, &local), (&other, &remote)] {
        let shown = repo.evolv(&["show", "--json", target]);
        shown.success();
        assert_has(&shown.stdout_json()["warnings"].to_string(), bad);
        plant();
        let tested = repo.evolv(&["test", "--json", target]);
        tested.success();
        assert_has(&tested.stdout_json()["warnings"].to_string(), bad);
        assert_eq!(verdict(&tested, 0)["cached"], false);
        plant();
        let dry = repo.evolv(&["apply", "--json", "--dry-run", target]);
        dry.success();
        assert_has(&dry.stdout_json()["warnings"].to_string(), bad);
        plant();
        let human = repo.evolv(&["apply", "--dry-run", target]);
        human.success();
        assert_has(&human.stderr, bad);
        plant();
    }
    let gc = repo.evolv(&["gc", "--json", "--worktrees"]);
    gc.success();
    let pruned = gc.stdout_json()["pruned_verdicts"].to_string();
    for bad in [&local, &remote, &untrusted] {
        assert_has(&pruned, bad);
        assert_eq!(repo.rev(bad), None, "{bad} removed");
    }
    repo.evolv(&["gc", "--older-than", "1"]).success();
    repo.assert_fsck();
}

/// `gc --older-than` with a blob under an untrusted remote's verdicts.
#[test]
fn gc_older_than_survives_a_blob_verdict_ref() {
    let repo = TestRepo::with_files(&[("a.txt", "one\n")]);
    let blob = repo.git(&["rev-parse", "HEAD:a.txt"]).trim().to_string();
    let name = "refs/evolv/remotes/fork/verdicts/0123";
    repo.git(&["update-ref", name, &blob]);
    let gc = repo.evolv(&["gc", "--json", "--older-than", "30"]);
    gc.success();
    assert_has(&gc.stdout_json()["pruned_verdicts"].to_string(), name);
    assert_eq!(repo.rev(name), None);
}

// --- item 11: 127 and 128+ abort a multi-target run -----------------------

#[test]
fn an_abort_stops_a_multi_target_test_and_the_rest_are_not_run() {
    let repo = TestRepo::with_files(&[("a.txt", "one\n")]);
    repo.write("a.txt", "two\n");
    repo.commit_all("two");
    repo.write("a.txt", "three\n");
    repo.commit_all("three");
    for code in [127, 128, 137] {
        let _ = std::fs::remove_file(repo.home().join("runs"));
        let cmd = counted(&repo, &format!("exit {code}"));
        let run = repo.evolv(&[
            "test",
            "--json",
            "--command",
            &cmd,
            "HEAD~2",
            "HEAD~1",
            "HEAD",
        ]);
        assert_ne!(run.code, 0, "exit {code}");
        assert_eq!(
            runs(&repo),
            1,
            "exit {code}: the run stopped after the first target"
        );
        assert_eq!(verdict(&run, 0)["status"], "abort");
        assert_eq!(verdict(&run, 0)["exit_code"], code);
        for i in [1, 2] {
            assert_eq!(verdict(&run, i)["status"], "not_run", "{}", run.stdout);
        }
        assert_eq!(run.stdout_json()["aborted"]["target"], "HEAD~2");
        let human = repo.evolv(&["test", "--command", &cmd, "HEAD~2", "HEAD~1", "HEAD"]);
        assert_ne!(human.code, 0);
        assert_has(&human.stdout, "not run");
        assert_has(&human.stderr, "aborted");
    }
    assert!(verdict_refs(&repo).is_empty(), "an abort is not stored");
}

/// `git evolv gc` with no option does its housekeeping, as `git gc` does:
/// a verdict ref that is not a commit goes, nothing else.
#[test]
fn plain_gc_removes_a_verdict_ref_that_is_not_a_commit() {
    let (repo, id) = TestRepo::proposed(&[("a.txt", "one\n")], "one", "two");
    repo.set_config("evolv.validate", "true");
    repo.evolv(&["test", &id]).success();
    let good = verdict_refs(&repo);
    let tree = repo.git(&["rev-parse", "HEAD^{tree}"]).trim().to_string();
    let name = "refs/evolv/verdicts/not-a-commit";
    repo.git(&["update-ref", name, &tree]);
    let gc = repo.evolv(&["gc"]);
    gc.success();
    assert_has(&gc.stdout, "pruned 1 verdict(s)");
    assert_eq!(repo.rev(name), None);
    assert_eq!(verdict_refs(&repo), good, "the real verdict stays");
    repo.evolv(&["show", &id]).success();
    repo.assert_fsck();
}
