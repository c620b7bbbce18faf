//! ExecutionPlan through the real binary: `plan schema`, `plan check`, and
//! apply under a plan (limits, dry run, pre/post conditions, timeout,
//! rollback strategies, batch, audit), checked with git afterwards.

use serde_json::{Value, json};

use crate::common::{
    BIN, Run, TestRepo, assert_has, assert_has_all, assert_human, error_code, run_with_stdin,
    sealed,
};

/// Writes `plan` to a new file outside the working tree and returns its
/// path.
fn plan_file(repo: &TestRepo, plan: &Value) -> String {
    let written = std::fs::read_dir(repo.home()).unwrap().count();
    named_plan_file(repo, &format!("plan-{written}.json"), plan)
}

/// Writes `plan` to `name` outside the working tree (a name a snapshot
/// shows) and returns its path.
fn named_plan_file(repo: &TestRepo, name: &str, plan: &Value) -> String {
    repo.home_file(name, &serde_json::to_string_pretty(plan).unwrap())
}

/// Runs git-evolv in the repository with `stdin` piped in.
fn evolv_stdin(repo: &TestRepo, args: &[&str], stdin: &str) -> Run {
    let mut cmd = sealed(BIN, repo.home());
    cmd.args(args).current_dir(repo.path());
    run_with_stdin(cmd, stdin)
}

/// A plan that lands (dry_run false) with git_revert and the given extras.
fn landing_plan(extra: Value) -> Value {
    let mut plan = json!({"dry_run": false, "rollback": {"strategy": "git_revert"}});
    if let (Value::Object(p), Value::Object(e)) = (&mut plan, extra) {
        p.extend(e);
    }
    plan
}

/// `apply --json id` under a landing plan with `extra` (see
/// [`landing_plan`]).
fn apply_landing(repo: &TestRepo, id: &str, extra: Value) -> Run {
    let file = plan_file(repo, &landing_plan(extra));
    repo.evolv(&["apply", "--json", id, "--plan", &file])
}

/// The scenario with a proposal over `backend/**`, and its state before
/// any apply (see [`snapshot`]).
fn backend_proposal() -> (TestRepo, String, (String, String, String)) {
    let (repo, id) = TestRepo::scenario_proposed(&["--scope", "backend/**"]);
    let before = snapshot(&repo);
    (repo, id, before)
}

/// The state a refused apply must leave exactly as it was.
fn snapshot(repo: &TestRepo) -> (String, String, String) {
    (
        repo.head(),
        repo.status(),
        repo.git(&["for-each-ref", "refs/heads", "refs/evolv/applied"]),
    )
}

#[test]
fn schema_is_draft_2020_12_and_accepts_what_check_accepts() {
    let repo = TestRepo::scenario();
    let run = repo.evolv(&["plan", "schema"]);
    let schema = run.success().stdout_json();
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert!(
        schema["required"]
            .as_array()
            .unwrap()
            .contains(&json!("rollback"))
    );
    let props = &schema["properties"];
    for field in ["dry_run", "validation", "rollback", "limits", "batch"] {
        assert!(
            props[field]["description"].is_string(),
            "{field} has no description"
        );
    }
    // The schema runs outside a repository too.
    let outside = sealed(BIN, repo.home())
        .args(["plan", "schema"])
        .current_dir(repo.home())
        .output()
        .unwrap();
    assert_eq!(outside.status.code(), Some(0));
}

#[test]
fn check_prints_the_plan_normalised_with_defaults() {
    let repo = TestRepo::scenario();
    let minimal = json!({"rollback": {"strategy": "git_revert"}});
    let file = named_plan_file(&repo, "min.json", &minimal);
    let run = repo.evolv(&["plan", "check", "--json", &file]);
    let v = run.success().stdout_json();
    assert_eq!(v["valid"], true);
    assert_eq!(
        v["plan"],
        json!({
            "dry_run": true,
            "validation": {"pre_conditions": [], "expected_outcomes": []},
            "rollback": {"strategy": "git_revert", "commands": []},
            "limits": {"max_files": 10, "max_changes": 50, "timeout_seconds": 30},
            "batch": false
        })
    );
    // Human form: a status line on stderr, the normalised plan on stdout.
    let human = repo.evolv(&["plan", "check", &file]);
    human.ok();
    assert_human!(repo, "plan_check_valid", human.transcript());
    let printed: Value = serde_json::from_str(&human.stdout).unwrap();
    assert_eq!(printed, v["plan"]);
    // From stdin.
    let stdin = evolv_stdin(
        &repo,
        &["plan", "check", "--json", "-"],
        r#"{"rollback": {"strategy": "manual", "commands": ["git revert HEAD"]}, "dry_run": false}"#,
    );
    stdin.ok();
    assert_eq!(stdin.json()["plan"]["dry_run"], false);
    assert_eq!(stdin.json()["plan"]["rollback"]["strategy"], "manual");
}

#[test]
fn check_reports_every_problem_at_once_with_path_value_and_allowed() {
    let repo = TestRepo::scenario();
    let file = named_plan_file(
        &repo,
        "bad.json",
        &json!({
            "dry_run": "yes",
            "limits": {"max_files": 0, "max_changes": 1001, "timeout_seconds": 301, "max_lines": 3},
            "rollback": {"strategy": "undo"},
            "extra": 1
        }),
    );
    let run = repo.evolv(&["plan", "check", "--json", &file]);
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert_eq!(error_code(&run), "invalid_plan");
    let issues = run.json()["error"]["issues"].as_array().unwrap().clone();
    let text: Vec<String> = issues
        .iter()
        .map(|i| format!("{}: {}", i["path"].as_str().unwrap(), i["message"]))
        .collect();
    let joined = text.join("\n");
    for expected in [
        "dry_run",
        "limits.max_files",
        "limits.max_changes",
        "limits.timeout_seconds",
        "limits.max_lines",
        "rollback.strategy",
        "extra",
    ] {
        assert!(
            issues.iter().any(|i| i["path"] == expected),
            "no issue for {expected}:\n{joined}"
        );
    }
    assert!(
        joined.contains("0 is below the minimum 1"),
        "value and bound named:\n{joined}"
    );
    assert!(
        joined.contains("1001 is above the maximum 1000"),
        "{joined}"
    );
    assert!(joined.contains("301 is above the maximum 300"), "{joined}");
    // People get the file name and every issue on stderr.
    let human = repo.transcript(&["plan", "check", &file]);
    assert_human!(repo, "plan_check_invalid", human);
    // A missing rollback, invalid JSON and a missing file.
    let no_rollback = plan_file(&repo, &json!({"dry_run": false}));
    let run = repo.evolv(&["plan", "check", "--json", &no_rollback]);
    assert_eq!(error_code(&run), "invalid_plan");
    assert_eq!(run.json()["error"]["issues"][0]["path"], "rollback");
    let broken = repo.home().join("broken.json");
    std::fs::write(&broken, "{ not json").unwrap();
    let run = repo.evolv(&["plan", "check", "--json", broken.to_str().unwrap()]);
    assert_eq!(error_code(&run), "invalid_plan");
    let run = repo.evolv(&["plan", "check", "--json", "/nonexistent/plan.json"]);
    run.code(2);
    assert_has(&run.stdout, "/nonexistent/plan.json");
}

#[test]
fn seed_scenario_7_max_changes_50_refuses_a_patch_of_more_than_50_lines() {
    let body: String = (0..60).map(|i| format!("let v{i} = oldName;\n")).collect();
    let repo = TestRepo::with_files(&[("big.rs", body.as_str()), ("small.rs", "oldName\n")]);
    let id = repo.propose("oldName", "newName", &["--scope", "big.rs"]);
    let before = snapshot(&repo);
    let run = apply_landing(&repo, &id, json!({"limits": {"max_changes": 50}}));
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(error_code(&run), "constraint_violation");
    let msg = run.json()["error"]["message"].as_str().unwrap().to_string();
    assert!(msg.contains("limits.max_changes"), "{msg}");
    assert!(
        msg.contains("120"),
        "actual value (60 added + 60 removed): {msg}"
    );
    assert!(msg.contains("50"), "allowed value: {msg}");
    assert_eq!(snapshot(&repo), before, "nothing touched");
    assert_eq!(
        repo.worktree_count(),
        1,
        "limits are checked before any worktree"
    );
    // The same patch within a larger limit lands.
    apply_landing(&repo, &id, json!({"limits": {"max_changes": 200}})).ok();
    assert!(repo.read("big.rs").contains("newName"));
    repo.assert_fsck();
}

#[test]
fn max_files_counts_the_files_the_patch_changes() {
    let (repo, id) = TestRepo::proposed(
        &[("a.txt", "x\n"), ("b.txt", "x\n"), ("c.txt", "x\n")],
        "x",
        "y",
    );
    let before = snapshot(&repo);
    let run = apply_landing(&repo, &id, json!({"limits": {"max_files": 2}}));
    assert_eq!(error_code(&run), "constraint_violation");
    let msg = run.json()["error"]["message"].as_str().unwrap().to_string();
    assert_has_all(&msg, &["limits.max_files", "3", "2"]);
    assert_eq!(snapshot(&repo), before);
}

#[test]
fn a_plan_that_does_not_say_dry_run_false_only_previews() {
    let (repo, id, before) = backend_proposal();
    let file = named_plan_file(
        &repo,
        "preview.json",
        &json!({"rollback": {"strategy": "git_revert"}}),
    );
    let run = repo.evolv(&["apply", "--json", &id, "--plan", &file]);
    let v = run.success().stdout_json();
    assert_eq!(v["dry_run"], true);
    assert_eq!(v["success"], true);
    assert_eq!(
        v["modified_files"],
        json!(["backend/auth.go", "backend/user.go"])
    );
    assert_eq!(snapshot(&repo), before, "a dry run moves nothing");
    assert!(repo.read("backend/user.go").contains("getUserData"));
    let human = repo.evolv(&["apply", &id, "--plan", &file]);
    human.ok();
    assert_human!(repo, "plan_apply_preview", human.transcript());
    // --dry-run overrides a plan that would land.
    let landing = plan_file(&repo, &landing_plan(json!({})));
    let run = repo.evolv(&["apply", "--json", &id, "--plan", &landing, "--dry-run"]);
    run.ok();
    assert_eq!(run.json()["dry_run"], true);
    assert_eq!(snapshot(&repo), before);
    // And the plan lands it when it says so; the audit record carries the plan.
    let run = repo.evolv(&["apply", "--json", &id, "--plan", &landing]);
    run.ok();
    assert_eq!(run.json()["dry_run"], false);
    assert_eq!(repo.rev("HEAD").unwrap(), run.json()["commit"]);
    let log = repo.evolv(&["log", "--json"]);
    log.ok();
    let entries = log.json()["entries"].as_array().unwrap().clone();
    let applies: Vec<&Value> = entries.iter().filter(|e| e["action"] == "apply").collect();
    assert_eq!(applies.len(), 4, "three previews and one landing");
    assert!(applies.iter().all(|e| e["plan"].is_object()));
    assert_eq!(applies[0]["plan"]["dry_run"], false);
    assert_eq!(
        applies[0]["dry_run"],
        Value::Null,
        "the landing was no dry run"
    );
    assert_eq!(applies[1]["dry_run"], true);
    repo.assert_fsck();
}

#[test]
fn pre_conditions_run_at_the_head_and_expected_outcomes_at_the_new_commit() {
    let (repo, id) = TestRepo::scenario_proposed(&["--scope", "backend/**"]);
    let run = apply_landing(
        &repo,
        &id,
        json!({"validation": {
            "pre_conditions": ["grep -q 'func getUserData' backend/user.go"],
            "expected_outcomes": ["grep -q 'func fetchUserData' backend/user.go"]
        }}),
    );
    run.ok();
    let stages: Vec<Value> = run.json()["validation"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["stage"].clone())
        .collect();
    assert_eq!(stages.len(), 2, "{}", run.stdout);
    assert!(repo.read("backend/user.go").contains("fetchUserData"));
    repo.assert_fsck();
}

#[test]
fn a_failing_pre_condition_or_expected_outcome_lands_nothing() {
    let (repo, id, before) = backend_proposal();
    for (name, validation) in [
        (
            "pre",
            json!({"pre_conditions": ["echo precheck; grep -q fetchUserData backend/user.go"]}),
        ),
        (
            "post",
            json!({"expected_outcomes": ["echo postcheck; grep -q getUserData backend/user.go"]}),
        ),
    ] {
        let run = apply_landing(&repo, &id, json!({ "validation": validation }));
        assert_eq!(run.code, 1, "{name}: {}", run.stdout);
        assert_eq!(error_code(&run), "validation_failed", "{name}");
        assert_has(&run.stdout, &format!("{name}check"));
        assert_eq!(snapshot(&repo), before, "{name}: nothing landed");
    }
}

#[test]
fn the_plan_timeout_bounds_the_whole_apply_and_removes_a_throwaway_worktree() {
    let (repo, id, before) = backend_proposal();
    let file = plan_file(
        &repo,
        &landing_plan(json!({
            "limits": {"timeout_seconds": 1},
            "validation": {"expected_outcomes": ["sleep 30"]}
        })),
    );
    let started = std::time::Instant::now();
    let run = repo.evolv(&["apply", "--json", &id, "--plan", &file, "--fresh-worktree"]);
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    assert_eq!(error_code(&run), "timeout");
    assert_eq!(snapshot(&repo), before);
    assert_eq!(repo.worktree_count(), 1, "the throwaway worktree is gone");
    // A longer --timeout cannot loosen the plan's bound.
    let run = repo.evolv(&["apply", "--json", &id, "--plan", &file, "--timeout", "100"]);
    assert_eq!(error_code(&run), "timeout");
    assert_eq!(snapshot(&repo), before);
}

#[test]
fn rollback_follows_the_strategy_of_the_plan_it_was_applied_under() {
    // git_revert: a revert commit.
    let (repo, id) = TestRepo::scenario_proposed(&["--scope", "backend/**"]);
    apply_landing(&repo, &id, json!({})).ok();
    let run = repo.evolv(&["rollback", "--json", &id]);
    run.ok();
    assert_eq!(run.json()["strategy"], "git_revert");
    assert!(
        repo.git(&["log", "-1", "--format=%s"])
            .starts_with("Revert "),
        "a revert commit"
    );
    assert!(repo.read("backend/user.go").contains("getUserData"));

    // file_backup: the pre-apply commit is kept under refs/evolv/backup/<id>.
    let repo = TestRepo::scenario();
    let h = repo.head();
    let id = repo.propose("getUserData", "fetchUserData", &["--scope", "backend/**"]);
    let file = plan_file(
        &repo,
        &json!({"dry_run": false, "rollback": {"strategy": "file_backup"}}),
    );
    repo.evolv(&["apply", "--json", &id, "--plan", &file]).ok();
    assert_eq!(repo.rev(&format!("refs/evolv/backup/{id}")).unwrap(), h);
    let run = repo.evolv(&["rollback", "--json", &id]);
    run.ok();
    assert_eq!(run.json()["strategy"], "file_backup");
    assert_eq!(
        repo.git(&["diff", &h, "HEAD", "--stat"]),
        "",
        "the files are back"
    );
    assert_eq!(repo.rev(&format!("refs/evolv/backup/{id}")), None);
    assert_eq!(repo.status(), "");

    // manual: nothing changes, the plan's steps are printed.
    let (repo, id) = TestRepo::scenario_proposed(&["--scope", "backend/**"]);
    let file = plan_file(
        &repo,
        &json!({"dry_run": false, "rollback": {"strategy": "manual", "commands": ["git revert --no-edit HEAD"]}}),
    );
    repo.evolv(&["apply", "--json", &id, "--plan", &file]).ok();
    let landed = repo.head();
    let run = repo.evolv(&["rollback", &id]);
    run.ok();
    assert_human!(repo, "plan_rollback_manual", run.transcript());
    assert_eq!(repo.head(), landed, "manual changes nothing");
    // The strategy can be overridden on the command line.
    let run = repo.evolv(&["rollback", "--json", &id, "--strategy", "git_revert"]);
    run.ok();
    assert_ne!(repo.head(), landed);
    repo.assert_fsck();
}

#[test]
fn batch_lands_all_as_consecutive_commits_with_one_fast_forward_or_none() {
    let repo = TestRepo::with_files(&[("a.txt", "alpha\n"), ("b.txt", "beta\n")]);
    let h = repo.head();
    let a = repo.propose("alpha", "ALPHA", &[]);
    let b = repo.propose("beta", "BETA", &[]);
    let counter = repo.home().join("runs");
    let validate = format!("echo run >> {}", counter.display());

    // A failing batch lands nothing, not even the first proposal.
    let run = repo.evolv(&[
        "apply",
        "--json",
        "--batch",
        &a,
        &b,
        "--validate",
        "grep -q ALPHA a.txt && ! grep -q BETA b.txt",
    ]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(repo.head(), h);
    assert_eq!(repo.status(), "");

    let file = plan_file(&repo, &landing_plan(json!({"batch": true})));
    let run = repo.evolv(&[
        "apply",
        "--json",
        &a,
        &b,
        "--plan",
        &file,
        "--validate",
        &validate,
    ]);
    let v = run.success().stdout_json();
    assert_eq!(v["batch"], true);
    assert_eq!(v["results"].as_array().unwrap().len(), 2);
    assert_eq!(
        std::fs::read_to_string(&counter).unwrap().lines().count(),
        1,
        "validated once"
    );
    let log = repo.git(&["log", "--format=%H", &format!("{h}..HEAD")]);
    assert_eq!(log.lines().count(), 2, "two consecutive commits");
    assert_eq!(repo.rev("HEAD~2").unwrap(), h);
    let reflog = repo.git(&["reflog", "show", "--format=%H", "main"]);
    assert_eq!(
        reflog.lines().next().unwrap(),
        repo.head(),
        "one reflog entry for the batch"
    );
    assert_eq!(reflog.lines().nth(1).unwrap(), h);
    assert_eq!(repo.read("a.txt"), "ALPHA\n");
    assert_eq!(repo.read("b.txt"), "BETA\n");
    repo.assert_fsck();
}

#[test]
fn without_batch_several_ids_apply_in_turn_and_stop_at_the_first_failure() {
    let repo = TestRepo::with_files(&[
        ("a.txt", "alpha\n"),
        ("b.txt", "beta\n"),
        ("c.txt", "gamma\n"),
    ]);
    let h = repo.head();
    let a = repo.propose("alpha", "ALPHA", &[]);
    let b = repo.propose("beta", "BETA", &[]);
    let c = repo.propose("gamma", "GAMMA", &[]);
    let run = repo.evolv(&[
        "apply",
        "--json",
        &a,
        &b,
        &c,
        "--validate",
        "! grep -q BETA b.txt",
    ]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let v = run.json();
    assert_eq!(v["success"], false);
    assert_eq!(v["results"].as_array().unwrap().len(), 1);
    assert_eq!(v["results"][0]["patch_id"], a.as_str());
    assert_eq!(v["failed_patch_id"], b.as_str());
    assert_eq!(v["error"]["code"], "validation_failed");
    assert_eq!(repo.rev("HEAD~1").unwrap(), h, "only the first landed");
    assert_eq!(repo.read("c.txt"), "gamma\n");
    assert_eq!(repo.status(), "");
}

#[test]
fn evolv_plan_in_git_config_names_the_default_plan() {
    let (repo, id, before) = backend_proposal();
    repo.write(
        "plans/strict.json",
        r#"{"dry_run": false, "rollback": {"strategy": "git_revert"}, "limits": {"max_files": 1}}"#,
    );
    repo.commit_all("add a plan");
    let before_head = repo.head();
    repo.set_config("evolv.plan", "plans/strict.json");
    let run = repo.evolv(&["apply", "--json", &id]);
    assert_eq!(error_code(&run), "constraint_violation");
    assert_eq!(repo.head(), before_head);
    let _ = before;
    // A configured plan that does not exist is a clear error naming it.
    repo.set_config("evolv.plan", "plans/missing.json");
    let run = repo.evolv(&["apply", "--json", &id]);
    assert_eq!(error_code(&run), "invalid_config");
    assert_has(&run.stdout, "plans/missing.json");
    // --plan wins over the configured one.
    apply_landing(&repo, &id, json!({})).ok();
    assert_ne!(repo.head(), before_head);
}

#[test]
fn an_invalid_plan_stops_apply_before_anything_runs() {
    let (repo, id, before) = backend_proposal();
    let run = evolv_stdin(
        &repo,
        &["apply", "--json", &id, "--plan", "-"],
        r#"{"rollback": {"strategy": "git_revert"}, "limits": {"max_files": 101}, "surprise": true}"#,
    );
    assert_eq!(run.code, 2);
    assert_eq!(error_code(&run), "invalid_plan");
    let issues = run.json()["error"]["issues"].as_array().unwrap().clone();
    assert_eq!(issues.len(), 2, "{issues:?}");
    assert_eq!(snapshot(&repo), before);
    assert_eq!(repo.worktree_count(), 1);
}

#[test]
fn a_failure_after_the_branch_moved_is_undone_by_the_plans_strategy() {
    let failpoint = [("GIT_EVOLV_TEST_FAILPOINT", "after-branch-move")];
    for (strategy, subject) in [
        ("git_revert", "Revert \""),
        ("file_backup", "revert: restore files changed by"),
    ] {
        let repo = TestRepo::scenario();
        let h = repo.head();
        let id = repo.propose("getUserData", "fetchUserData", &["--scope", "backend/**"]);
        let file = plan_file(
            &repo,
            &json!({"dry_run": false, "rollback": {"strategy": strategy}}),
        );
        let run = repo.evolv_env(&["apply", "--json", &id, "--plan", &file], &failpoint);
        assert_eq!(error_code(&run), "landing_failed", "{strategy}");
        assert!(
            repo.git(&["log", "-1", "--format=%s"]).starts_with(subject),
            "{strategy}: the undo commit is on top"
        );
        assert_eq!(
            repo.rev("HEAD~2").unwrap(),
            h,
            "{strategy}: N, then its undo"
        );
        assert_eq!(
            repo.git(&["diff", &h, "HEAD"]),
            "",
            "{strategy}: H's content"
        );
        assert_eq!(repo.status(), "", "{strategy}");
        assert_eq!(repo.rev(&format!("refs/evolv/applied/{id}")), None);
        repo.assert_fsck();
    }
    let repo = TestRepo::scenario();
    let h = repo.head();
    let id = repo.propose("getUserData", "fetchUserData", &["--scope", "backend/**"]);
    let file = plan_file(
        &repo,
        &json!({"dry_run": false, "rollback": {"strategy": "manual", "commands": ["git reset --keep HEAD~1"]}}),
    );
    let run = repo.evolv_env(&["apply", "--json", &id, "--plan", &file], &failpoint);
    assert_eq!(error_code(&run), "landing_failed");
    let msg = run.json()["error"]["message"].as_str().unwrap().to_string();
    assert!(msg.contains("git reset --keep HEAD~1"), "{msg}");
    assert_eq!(
        repo.rev("HEAD~1").unwrap(),
        h,
        "manual: the branch stays at N"
    );
}
