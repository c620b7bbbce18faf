//! Background tasks: `apply_edit` with `run_in_background`, `task_output`,
//! `task_list`, and the CLI's `apply --background` / `task`.

use crate::common::{assert_has, str_of};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::common::TestRepo;
use super::mcp_client::{Mcp, assert_matches_output_schema};

fn task_file(repo: &TestRepo, id: &str) -> Value {
    let path = repo
        .path()
        .join(".git/evolv/tasks")
        .join(id)
        .join("task.json");
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// An `apply_edit` with `run_in_background` over the scenario: the server,
/// its tools, the head before, the answer and how long it took.
pub struct BackgroundApply {
    pub repo: TestRepo,
    pub mcp: Mcp,
    pub tools: Vec<Value>,
    pub head: String,
    pub started: Value,
    pub answered_in: Duration,
}

impl BackgroundApply {
    /// Proposes `getUserData` → `fetchUserData` over the scenario and
    /// applies it in the background with `validate` as its validation.
    pub fn start(validate: &str) -> Self {
        let repo = TestRepo::scenario();
        repo.set_config("evolv.validate", validate);
        let mut mcp = Mcp::start(&repo);
        let tools = mcp.tools();
        let id = repo.propose("getUserData", "fetchUserData", &[]);
        let head = repo.head();
        let started_at = Instant::now();
        let started = mcp.call_ok(
            "apply_edit",
            json!({"patch_id": id, "run_in_background": true}),
        );
        let answered_in = started_at.elapsed();
        BackgroundApply {
            repo,
            mcp,
            tools,
            head,
            started,
            answered_in,
        }
    }

    /// The repository, the server, its tools, the head before and the answer.
    pub fn parts(&mut self) -> (&TestRepo, &mut Mcp, &[Value], &str, &Value) {
        (
            &self.repo,
            &mut self.mcp,
            &self.tools,
            &self.head,
            &self.started,
        )
    }
}

#[test]
fn a_background_apply_returns_a_task_id_at_once_and_task_output_follows_it() {
    let mut bg = BackgroundApply::start("echo validating; sleep 6; echo done");
    // The validation alone sleeps 6 s: an answer well before that was
    // given without waiting for it (a bound loose enough for a loaded CI
    // machine).
    assert!(
        bg.answered_in < Duration::from_secs(5),
        "answered before the validation could finish"
    );
    let (repo, mcp, tools, head, started) = bg.parts();
    assert_matches_output_schema(tools, "apply_edit", started);
    assert_eq!(started["status"], "running");
    let task = started["task_id"].as_str().unwrap().to_string();

    let now = mcp.call_ok("task_output", json!({"task_id": task, "block": false}));
    assert_matches_output_schema(tools, "task_output", &now);
    assert_eq!(now["status"], "running", "{now}");
    assert_eq!(
        repo.head(),
        head,
        "{now} {}",
        repo.git(&["reflog", "--all"])
    );

    let listed = mcp.call_ok("task_list", json!({}));
    assert_matches_output_schema(tools, "task_list", &listed);
    assert_eq!(listed["tasks"][0]["task_id"], task.as_str());

    let early = mcp.call_ok(
        "task_output",
        json!({"task_id": task, "block": true, "timeout_seconds": 0}),
    );
    assert_eq!(
        early["status"], "running",
        "timeout before the end: still running"
    );

    let done = mcp.call_ok(
        "task_output",
        json!({"task_id": task, "block": true, "timeout_seconds": 60}),
    );
    assert_matches_output_schema(tools, "task_output", &done);
    assert_eq!(done["status"], "succeeded", "{done}");
    assert!(
        done["output"].as_str().unwrap().contains("validating"),
        "{done}"
    );
    let landed = done["result"]["results"][0]["commit"].as_str().unwrap();
    assert_eq!(repo.head(), landed);
    assert!(repo.read("backend/user.go").contains("fetchUserData"));
    assert_eq!(repo.status(), "");

    // Any process reads the same state: the CLI.
    let cli = repo.evolv(&["task", &task, "--json"]);
    cli.ok();
    assert_eq!(cli.json()["status"], "succeeded");
    let cli_list = repo.evolv(&["task", "list", "--json"]);
    assert_eq!(cli_list.json()["tasks"][0]["task_id"], task.as_str());

    let e = mcp.call_err("task_output", json!({"task_id": "task_0_nope"}));
    assert_eq!(e["code"], "invalid_input");
    assert!(e["message"].as_str().unwrap().contains("task_0_nope"));
    repo.assert_fsck();
}

#[test]
fn the_cli_runs_background_applies_and_waits_for_them() {
    let (repo, id) = TestRepo::scenario_proposed(&[]);
    let run = repo.evolv(&["apply", &id, "--background"]);
    run.ok();
    let task = run.stdout.trim().to_string();
    assert!(task.starts_with("task_"), "{run:?}");
    let waited = repo.evolv(&["task", &task, "--wait", "--timeout", "60", "--json"]);
    waited.ok();
    assert_eq!(waited.json()["status"], "succeeded");
    assert!(repo.read("backend/user.go").contains("fetchUserData"));
    let unknown = repo.evolv(&["apply", "patch_0_dead", "--background"]);
    assert_eq!(unknown.code, 2, "an unknown id fails at once: {unknown:?}");
}

#[test]
fn a_task_that_times_out_is_timed_out_and_a_cancelled_one_cancelled() {
    let repo = TestRepo::scenario();
    repo.set_config("evolv.validate", "sleep 30");
    repo.set_config("evolv.timeout", "1");
    let id = repo.propose("getUserData", "fetchUserData", &[]);
    let head = repo.head();
    let task = repo
        .evolv(&["apply", &id, "--background"])
        .stdout
        .trim()
        .to_string();
    let r = repo.evolv(&["task", &task, "--wait", "--json"]);
    assert_eq!(r.code, 1);
    assert_eq!(r.json()["status"], "timed_out", "{r:?}");
    assert_eq!(r.json()["error"]["code"], "timeout");

    repo.set_config("evolv.timeout", "60");
    let task = repo
        .evolv(&["apply", &id, "--background"])
        .stdout
        .trim()
        .to_string();
    std::thread::sleep(Duration::from_millis(500));
    let r = repo.evolv(&["task", "cancel", &task, "--json"]);
    assert_eq!(r.json()["status"], "cancelled", "{r:?}");
    assert_eq!(r.json()["error"]["code"], "cancelled");
    assert_eq!(repo.head(), head, "the branch is untouched");
    assert_eq!(repo.status(), "");
    let worktrees = repo.git(&["worktree", "list", "--porcelain"]);
    assert!(!worktrees.contains("locked"), "{worktrees}");
}

#[test]
fn a_task_whose_process_died_is_reported_failed() {
    let repo = TestRepo::scenario();
    repo.set_config("evolv.validate", "sleep 30");
    let id = repo.propose("getUserData", "fetchUserData", &[]);
    let task = repo
        .evolv(&["apply", &id, "--background"])
        .stdout
        .trim()
        .to_string();
    let deadline = Instant::now() + Duration::from_secs(10);
    let pid = loop {
        if let Some(pid) = task_file(&repo, &task)["pid"].as_u64() {
            break pid;
        }
        assert!(Instant::now() < deadline, "no pid recorded");
        std::thread::sleep(Duration::from_millis(20));
    };
    std::thread::sleep(Duration::from_millis(300));
    let killed = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    std::thread::sleep(Duration::from_millis(300));
    let mut mcp = Mcp::start(&repo);
    let r = mcp.call_ok("task_output", json!({"task_id": task, "block": false}));
    assert_eq!(r["status"], "failed", "{r}");
    assert_has(str_of(&r["error"]["message"]), "ended without reporting");
}
