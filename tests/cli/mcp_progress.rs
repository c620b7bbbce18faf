//! `git evolv mcp`, long work (#11 item 6): progress notifications with real
//! counts when the request carries a progress token, and a cancellation
//! that kills the validation's process group and leaves everything as it was.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::common::TestRepo;
use super::mcp_client::Mcp;

/// The `notifications/progress` of `token` received so far.
fn progress_of(mcp: &Mcp, token: impl Into<Value>) -> Vec<&Value> {
    let token = token.into();
    mcp.notifications
        .iter()
        .filter(|n| n["method"] == "notifications/progress")
        .filter(|n| n["params"]["progressToken"] == token)
        .collect()
}

#[track_caller]
fn assert_increasing(progress: &[&Value]) {
    let values: Vec<f64> = progress
        .iter()
        .map(|n| n["params"]["progress"].as_f64().unwrap())
        .collect();
    assert!(
        values.windows(2).all(|w| w[0] < w[1]),
        "progress must increase with every notification: {values:?}"
    );
}

/// After the response no notification of the call may follow: a ping
/// answered later proves the stream has moved on.
#[track_caller]
fn assert_nothing_after_the_response(mcp: &mut Mcp, token: &str) {
    let before = progress_of(mcp, token).len();
    std::thread::sleep(Duration::from_millis(300));
    let ping = mcp.request("ping", json!({}));
    assert!(ping.get("result").is_some(), "{ping}");
    assert_eq!(progress_of(mcp, token).len(), before, "late progress");
}

#[test]
fn propose_over_a_large_tree_reports_files_scanned_of_the_total() {
    let repo = TestRepo::empty();
    let files = 3000;
    for i in 0..files {
        let text = if i % 1000 == 7 { "needle\n" } else { "hay\n" };
        repo.write(&format!("d{}/f{i}.txt", i % 30), text);
    }
    repo.commit_all("many files");
    let mut mcp = Mcp::start(&repo);
    let r = mcp.request(
        "tools/call",
        json!({"name": "propose_edit",
               "arguments": {"pattern": "needle", "replacement": "pin", "literal": true},
               "_meta": {"progressToken": 42}}),
    );
    assert_eq!(r["result"]["isError"], false, "{r}");
    assert_eq!(
        r["result"]["structuredContent"]["statistics"]["files_matched"],
        3
    );
    let notes = progress_of(&mcp, 42);
    assert!(notes.len() >= 2, "{:?}", mcp.notifications);
    assert_increasing(&notes);
    let first = &notes[0]["params"];
    assert_eq!(first["progress"], 0.0, "{first}");
    assert_eq!(first["total"], f64::from(files), "{first}");
    let message = first["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!("Scanning files: 0/{files}")),
        "{first}"
    );
    // The last report is the whole tree, with the matches counted.
    let last = &notes.last().unwrap()["params"];
    assert_eq!(last["progress"], f64::from(files), "{last}");
    assert_eq!(last["total"], f64::from(files), "{last}");
    assert_eq!(
        last["message"],
        format!("Scanning files: {files}/{files} (3 matched)")
    );
    // Without a token: not one notification.
    let before = mcp.notifications.len();
    mcp.call_ok(
        "propose_edit",
        json!({"pattern": "hay", "replacement": "straw", "scope": ["d1/**"]}),
    );
    assert_eq!(mcp.notifications.len(), before);
    mcp.finish();
}

#[test]
fn a_validation_reports_its_lines_of_output_as_they_are_written() {
    let repo = TestRepo::scenario();
    let command = "for i in 1 2 3 4 5; do echo step $i; sleep 0.3; done";
    repo.git(&["config", "evolv.validate", command]);
    let mut mcp = Mcp::start(&repo);
    let id = repo.propose("getUserData", "fetchUserData", &[]);
    let r = mcp.request(
        "tools/call",
        json!({"name": "apply_edit", "arguments": {"patch_id": id},
               "_meta": {"progressToken": "tok-1"}}),
    );
    assert_eq!(r["result"]["isError"], false, "{r}");
    let progress = progress_of(&mcp, "tok-1");
    assert_increasing(&progress);
    let messages: Vec<&str> = progress
        .iter()
        .map(|n| n["params"]["message"].as_str().unwrap())
        .collect();
    let running = format!("Running `{command}`: ");
    let validating: Vec<&&str> = messages
        .iter()
        .filter(|m| m.starts_with(&running))
        .collect();
    // Announced at once, then line by line (0.3 s apart, so each count
    // gets a notification of its own), ending with all five.
    assert_eq!(
        validating.first().map(|m| &m[running.len()..]),
        Some("0 lines of output"),
        "{messages:#?}"
    );
    for n in 1..=5 {
        let s = if n == 1 { "" } else { "s" };
        let want = format!("{running}{n} line{s} of output (step {n})");
        assert!(
            validating.iter().any(|m| **m == want),
            "no `{want}` in {messages:#?}"
        );
    }
    // The landing's file count comes last, and the branch moved.
    assert!(
        messages.last().unwrap().starts_with("Landing files: "),
        "{messages:#?}"
    );
    assert_ne!(repo.rev(&format!("refs/evolv/applied/{id}")), None);
    assert_nothing_after_the_response(&mut mcp, "tok-1");
    mcp.finish();
}

/// Starts an apply whose validation leaves a process in the background
/// (its pid in `pidfile`), cancels it once the validation runs, and
/// returns that pid.
fn cancel_a_running_validation(repo: &TestRepo, mcp: &mut Mcp, pidfile: &Path) -> String {
    let id = repo.propose("getUserData", "fetchUserData", &[]);
    let call = mcp.send_request(
        "tools/call",
        json!({"name": "apply_edit", "arguments": {"patch_id": id}}),
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    while !pidfile.exists() {
        assert!(Instant::now() < deadline, "validation never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Another call while the apply runs is answered.
    let listed = mcp.call_ok("list_proposals", json!({}));
    assert_eq!(listed["proposals"][0]["status"], "pending");
    let bad = mcp.request("tools/call", json!({"name": "nope"}));
    assert_eq!(bad["error"]["code"], -32602);
    mcp.notify(
        "notifications/cancelled",
        json!({"requestId": call, "reason": "user pressed stop"}),
    );
    std::fs::read_to_string(pidfile).unwrap().trim().to_string()
}

fn alive(pid: &str) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
        && !std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .unwrap_or_default()
            .contains(") Z ")
}

#[track_caller]
fn assert_killed(pid: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while alive(pid) {
        assert!(
            Instant::now() < deadline,
            "the validation's process group was not killed"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The apply ended as cancelled: audited, nothing landed, nothing left.
#[track_caller]
fn assert_nothing_changed(repo: &TestRepo, mcp: &mut Mcp, head: &str) {
    // The audit entry is the apply's last act: wait for it.
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let log = mcp.call_ok("audit_log", json!({"limit": 1}));
        if log["entries"][0]["error_code"] == "cancelled" {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "no cancelled apply audited: {log}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(repo.head(), head, "the branch is untouched");
    assert_eq!(repo.status(), "");
    assert!(!repo.read("backend/user.go").contains("fetchUserData"));
    let worktrees = repo.git(&["worktree", "list", "--porcelain"]);
    assert!(
        !worktrees.contains("locked"),
        "no worktree left locked: {worktrees}"
    );
    let listed = mcp.call_ok("list_proposals", json!({}));
    assert_eq!(listed["proposals"][0]["status"], "pending");
    repo.assert_fsck();
}

#[test]
fn cancellation_kills_the_validation_cleans_the_worktree_and_keeps_the_branch() {
    let repo = TestRepo::scenario();
    let pidfile = repo.home().join("validation.pid");
    repo.set_config(
        "evolv.validate",
        &format!(
            "touch scratch; sleep 60 & echo $! > {}; wait",
            pidfile.display()
        ),
    );
    let mut mcp = Mcp::start(&repo);
    let head = repo.head();
    let pid = cancel_a_running_validation(&repo, &mut mcp, &pidfile);
    assert_killed(&pid);
    assert_nothing_changed(&repo, &mut mcp, &head);
    // The warm worktree serves the next apply (cleaned of what the
    // cancelled run left: `scratch` below must not exist).
    std::fs::remove_file(&pidfile).unwrap();
    repo.set_config("evolv.validate", "test ! -e scratch");
    let id = repo.propose("getUserData", "fetchUserData", &["-s", "backend/**"]);
    mcp.call_ok("apply_edit", json!({"patch_id": id}));
    assert_ne!(repo.head(), head);
    mcp.finish();
}

#[test]
fn cancellation_with_a_throwaway_worktree_removes_it() {
    let repo = TestRepo::scenario();
    let pidfile = repo.home().join("validation.pid");
    let wtfile = repo.home().join("worktree.path");
    repo.set_config("evolv.worktree", "fresh");
    // The command notes where it runs, leaves a file there, a child in
    // the background, and a grandchild in the same group.
    repo.set_config(
        "evolv.validate",
        &format!(
            "pwd > {}; touch scratch; sh -c 'sleep 60' & (sleep 60 & echo $! > {}; wait) & wait",
            wtfile.display(),
            pidfile.display()
        ),
    );
    let mut mcp = Mcp::start(&repo);
    let head = repo.head();
    let worktrees = repo.worktree_count();
    let pid = cancel_a_running_validation(&repo, &mut mcp, &pidfile);
    assert_killed(&pid);
    assert_nothing_changed(&repo, &mut mcp, &head);
    assert_eq!(repo.worktree_count(), worktrees, "the throwaway is gone");
    let dir = std::fs::read_to_string(&wtfile).unwrap();
    assert!(!Path::new(dir.trim()).exists(), "{dir} left behind");
    mcp.finish();
}

/// The pids written to `file` so far, one a line.
fn pids_in(file: &Path) -> Vec<String> {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

// See: issue 39 item 4. `test` runs its targets on job threads of their
// own; the call's cancellation and progress reach them through the
// session's context.
#[test]
fn a_cancelled_test_with_two_jobs_stops_every_process_within_a_second_and_reports_progress() {
    let repo = TestRepo::scenario();
    repo.write("backend/extra.go", "package main\n");
    repo.commit_all("second commit");
    let pids = repo.home().join("test.pids");
    // Each target's command notes its shell and two children it leaves
    // running in the background, says so on its output, and waits.
    repo.set_config(
        "evolv.validate",
        &format!(
            "echo $$ >> {p}; sleep 30 & echo $! >> {p}; sleep 30 & echo $! >> {p}; echo started; wait",
            p = pids.display()
        ),
    );
    let mut mcp = Mcp::start(&repo);
    let call = mcp.send_request(
        "tools/call",
        json!({"name": "test", "arguments": {"targets": ["HEAD", "HEAD~1"], "jobs": 2},
               "_meta": {"progressToken": "t-test"}}),
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    while pids_in(&pids).len() < 6 {
        assert!(Instant::now() < deadline, "both jobs never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Progress arrives while the commands run (a ping reads what came).
    let progress_seen = Instant::now() + Duration::from_secs(10);
    loop {
        let ping = mcp.request("ping", json!({}));
        assert!(ping.get("result").is_some(), "{ping}");
        let running = progress_of(&mcp, "t-test").iter().any(|n| {
            n["params"]["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("Running `echo $$"))
        });
        if running {
            break;
        }
        assert!(
            Instant::now() < progress_seen,
            "no progress while the test ran: {:?}",
            mcp.notifications
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_increasing(&progress_of(&mcp, "t-test"));
    mcp.notify(
        "notifications/cancelled",
        json!({"requestId": call, "reason": "user pressed stop"}),
    );
    let cancelled = Instant::now();
    let started = pids_in(&pids);
    assert_eq!(started.len(), 6, "{started:?}");
    while started.iter().any(|p| alive(p)) {
        assert!(
            cancelled.elapsed() < Duration::from_secs(1),
            "still running 1 s after the cancel: {:?}",
            started.iter().filter(|p| alive(p)).collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    // Cut short, the runs are no verdicts: nothing is stored.
    let stored = repo.git(&["for-each-ref", "refs/evolv/verdicts/"]);
    assert_eq!(stored, "", "a cancelled run was stored");
    mcp.finish();
}

#[test]
fn a_client_told_of_info_hears_each_validation_line_before_the_result() {
    let repo = TestRepo::scenario();
    repo.git(&[
        "config",
        "evolv.validate",
        "echo one; echo two >&2; echo three",
    ]);
    let mut mcp = Mcp::start(&repo);
    let id = repo.propose("getUserData", "fetchUserData", &[]);
    let level = mcp.request("logging/setLevel", json!({"level": "info"}));
    assert!(level.get("error").is_none(), "{level}");
    // No progress token: the lines come through the log alone.
    let r = mcp.request(
        "tools/call",
        json!({"name": "apply_edit", "arguments": {"patch_id": id}}),
    );
    assert_eq!(r["result"]["isError"], false, "{r}");
    let lines: Vec<&Value> = mcp
        .notifications
        .iter()
        .filter(|n| n["method"] == "notifications/message")
        .map(|n| &n["params"])
        .collect();
    let said: Vec<&str> = lines
        .iter()
        .map(|p| p["data"]["line"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(said, ["one", "two", "three"], "{lines:#?}");
    for p in &lines {
        assert_eq!(p["level"], "info", "{p}");
        assert_eq!(p["logger"], "git-evolv", "{p}");
        assert_eq!(p["data"]["command"], "echo one; echo two >&2; echo three");
    }
    assert!(
        !mcp.notifications
            .iter()
            .any(|n| n["method"] == "notifications/progress"),
        "progress without a token"
    );
    assert_ne!(repo.rev(&format!("refs/evolv/applied/{id}")), None);
    mcp.finish();
}
