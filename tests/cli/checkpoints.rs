//! Checkpoints and rewind (issue 40 items 2 and 3), through the real
//! binary on real repositories: a checkpoint is the whole work tree
//! (tracked and untracked, not ignored; modes, symbolic links, deletions)
//! and touches neither HEAD, the index nor a file; a rewind puts every
//! byte back, refuses what someone else changed, is undone by `undo`, and
//! loses nothing to a SIGKILL at any crash point.

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use serde_json::Value;

use crate::common::{TestRepo, error_code};

/// Every file of the work tree but `.git`: its bytes (a symbolic link's
/// target), and whether it is executable or a link.
type Files = BTreeMap<String, (Vec<u8>, &'static str)>;

fn files(repo: &TestRepo) -> Files {
    let mut out = Files::new();
    walk(repo.path(), repo.path(), &mut out);
    out
}

fn walk(top: &Path, dir: &Path, out: &mut Files) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let path = entry.path();
        let rel = path
            .strip_prefix(top)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        if rel == ".git" {
            continue;
        }
        let meta = std::fs::symlink_metadata(&path).unwrap();
        if meta.file_type().is_symlink() {
            let target = std::fs::read_link(&path).unwrap();
            out.insert(rel, (target.into_os_string().into_encoded_bytes(), "link"));
        } else if meta.is_dir() {
            walk(top, &path, out);
        } else {
            let kind = if meta.permissions().mode() & 0o111 != 0 {
                "exec"
            } else {
                "file"
            };
            out.insert(rel, (std::fs::read(&path).unwrap(), kind));
        }
    }
}

/// What a checkpoint cannot change: HEAD, the index file's bytes, the
/// status, the branch.
fn untouchable(repo: &TestRepo) -> (String, Vec<u8>, String, String) {
    (
        repo.head(),
        std::fs::read(repo.path().join(".git/index")).unwrap(),
        repo.status(),
        repo.git(&["symbolic-ref", "HEAD"]),
    )
}

fn scenario() -> TestRepo {
    let repo = TestRepo::with_files(&[
        ("a.txt", "a\n"),
        ("run.sh", "echo\n"),
        ("gone.txt", "bye\n"),
        ("dir/b.txt", "b\n"),
        ("dir/c.txt", "c\n"),
        (".gitignore", "*.log\n"),
    ]);
    std::os::unix::fs::symlink("a.txt", repo.file("link")).unwrap();
    repo.commit_all("with a link");
    repo
}

fn checkpoint(repo: &TestRepo, event: &str, extra: &[&str]) -> Value {
    let mut args = vec![
        "checkpoint",
        "--json",
        "--agent",
        "claude-code",
        "--session",
        "s1",
        "--event",
        event,
    ];
    args.extend_from_slice(extra);
    repo.evolv(&args).ok().json()
}

/// Edits of every kind: a changed file, a deletion, a new untracked file
/// in a new directory, an ignored file, a mode change, a symbolic link
/// retargeted, a directory turned into a file, bytes that are not text.
fn edit_everything(repo: &TestRepo) {
    repo.write("a.txt", "a\nchanged\n");
    std::fs::remove_file(repo.file("gone.txt")).unwrap();
    repo.write("new/untracked.txt", "new\n");
    repo.write("debug.log", "ignored\n");
    std::fs::set_permissions(repo.file("run.sh"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::remove_file(repo.file("link")).unwrap();
    std::os::unix::fs::symlink("run.sh", repo.file("link")).unwrap();
    std::fs::remove_dir_all(repo.file("dir")).unwrap();
    repo.write("dir", "now a file\n");
    repo.write_bytes("bin.dat", &[0, 159, 146, 150, 0, 1]);
}

#[test]
fn a_checkpoint_is_the_whole_work_tree_and_touches_nothing() {
    let repo = scenario();
    edit_everything(&repo);
    repo.git(&["add", "a.txt"]);
    let before = untouchable(&repo);
    let files_before = files(&repo);
    let out = checkpoint(&repo, "after-tool", &["--tool", "Bash", "--model", "opus"]);
    assert_eq!(untouchable(&repo), before, "HEAD, index, status, branch");
    assert_eq!(files(&repo), files_before, "no file touched");
    let id = out["id"].as_str().unwrap();
    assert_eq!(
        repo.rev("refs/evolv/checkpoints/claude-code/s1").as_deref(),
        Some(id)
    );
    let tree = repo.git(&["ls-tree", "-r", id]);
    for (path, mode) in [
        ("a.txt", "100644"),
        ("run.sh", "100755"),
        ("link", "120000"),
        ("new/untracked.txt", "100644"),
        ("dir", "100644"),
        ("bin.dat", "100644"),
    ] {
        let line = tree.lines().find(|l| l.ends_with(&format!("\t{path}")));
        assert!(
            line.is_some_and(|l| l.starts_with(mode)),
            "{path} {mode} in\n{tree}"
        );
    }
    for absent in ["gone.txt", "debug.log", "dir/b.txt"] {
        assert!(!tree.contains(absent), "{absent} in\n{tree}");
    }
    for (path, (bytes, _)) in &files_before {
        if path == "debug.log" {
            continue;
        }
        let stored = repo.git_run(&["cat-file", "blob", &format!("{id}:{path}")]);
        assert_eq!(&stored.ok().stdout_bytes, bytes, "{path}");
    }
    let message = repo.git(&["log", "-1", "--format=%B", id]);
    for trailer in [
        "Evolv-Checkpoint-Agent: claude-code",
        "Evolv-Checkpoint-Session: s1",
        "Evolv-Checkpoint-Turn: 1",
        "Evolv-Checkpoint-Tool: Bash",
        "Evolv-Checkpoint-Model: opus",
    ] {
        assert!(message.contains(trailer), "{trailer} in {message}");
    }
    let changed: Vec<&str> = out["changed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(
        changed.contains(&"gone.txt") && changed.contains(&"new/untracked.txt"),
        "{changed:?}"
    );
    repo.assert_fsck();
}

#[test]
fn turns_are_counted_and_nothing_changed_records_nothing_but_a_turn_start() {
    let repo = scenario();
    let first = checkpoint(&repo, "turn-start", &[]);
    assert_eq!(first["turn"], 1);
    let same = checkpoint(&repo, "after-tool", &["--tool", "Read"]);
    assert_eq!(same["skipped"], true);
    assert_eq!(same["id"], first["id"], "the previous one is named");
    repo.write("a.txt", "x\n");
    let edit = checkpoint(&repo, "after-tool", &["--tool", "Edit"]);
    assert_eq!(
        (edit["turn"].as_u64(), edit["skipped"].as_bool()),
        (Some(1), Some(false))
    );
    assert_eq!(edit["changed"], serde_json::json!(["a.txt"]));
    let second = checkpoint(&repo, "turn-start", &[]);
    assert_eq!(
        (second["turn"].as_u64(), second["skipped"].as_bool()),
        (Some(2), Some(false))
    );
    let list = repo.evolv(&["checkpoints", "--json"]).ok().json();
    let session = &list["sessions"][0];
    assert_eq!(session["count"], 3);
    let events: Vec<&str> = session["checkpoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["event"].as_str().unwrap())
        .collect();
    assert_eq!(events, ["turn-start", "after-tool", "turn-start"]);
    let human = repo.evolv(&["checkpoints"]).ok().stdout.clone();
    assert!(
        human.contains("claude-code/s1 (3 checkpoint(s)") && human.contains("after-tool Edit"),
        "{human}"
    );
    // One ref for the session, whose chain gc keeps.
    let refs = repo.git(&[
        "for-each-ref",
        "--format=%(refname)",
        "refs/evolv/checkpoints",
    ]);
    assert_eq!(refs.trim(), "refs/evolv/checkpoints/claude-code/s1");
}

#[test]
fn a_rewind_puts_every_byte_back_and_undo_and_redo_move_it_again() {
    let repo = scenario();
    let index = std::fs::read(repo.path().join(".git/index")).unwrap();
    let head = repo.head();
    let start = files(&repo);
    checkpoint(&repo, "turn-start", &[]);
    edit_everything(&repo);
    checkpoint(&repo, "after-tool", &["--tool", "Bash"]);
    let edited = files(&repo);
    let rewind = repo.evolv(&["rewind", "--json", "~1"]).ok().json();
    let mut expected = start.clone();
    expected.insert("debug.log".into(), (b"ignored\n".to_vec(), "file"));
    assert_eq!(
        files(&repo),
        expected,
        "the turn's start, the ignored file left"
    );
    assert_eq!(repo.head(), head);
    assert_eq!(
        std::fs::read(repo.path().join(".git/index")).unwrap(),
        index,
        "index untouched"
    );
    assert!(
        rewind["restored"].as_array().unwrap().len() >= 7,
        "{rewind}"
    );
    repo.evolv(&["undo"]).ok();
    assert_eq!(files(&repo), edited, "undo: as before the rewind");
    repo.evolv(&["redo"]).ok();
    assert_eq!(files(&repo), expected, "redo: rewound again");
    let ops = repo.evolv(&["op", "log", "--json"]).ok().stdout.clone();
    assert!(ops.contains("rewind"), "{ops}");
    repo.assert_fsck();
}

#[test]
fn a_session_start_a_checkpoint_id_and_paths_can_be_the_target() {
    let repo = scenario();
    let start = files(&repo);
    let first = checkpoint(&repo, "turn-start", &[]);
    repo.write("a.txt", "one\n");
    repo.write("dir/b.txt", "one\n");
    let one = checkpoint(&repo, "after-tool", &["--tool", "Edit"]);
    checkpoint(&repo, "turn-start", &[]);
    repo.write("a.txt", "two\n");
    repo.write("dir/b.txt", "two\n");
    checkpoint(&repo, "after-tool", &["--tool", "Edit"]);
    let id = one["id"].as_str().unwrap();
    repo.evolv(&["rewind", &id[..10], "--", "dir"]).ok();
    assert_eq!(
        (repo.read("a.txt"), repo.read("dir/b.txt")),
        ("two\n".into(), "one\n".into())
    );
    repo.evolv(&["rewind", "--json", "--session-start", "s1"])
        .ok();
    assert_eq!(files(&repo), start);
    let none = repo
        .evolv(&["rewind", "--json", first["id"].as_str().unwrap()])
        .ok()
        .json();
    assert_eq!(
        none["restored"],
        serde_json::json!([]),
        "nothing left to rewind"
    );
    let bad = repo.evolv(&["rewind", "--json", "~9"]);
    assert_eq!(error_code(&bad), "invalid_input", "{}", bad.stdout);
    repo.assert_fsck();
}

#[test]
fn a_file_someone_else_changed_is_refused_by_name_and_force_saves_it_first() {
    let repo = scenario();
    checkpoint(&repo, "turn-start", &[]);
    repo.write("a.txt", "agent\n");
    checkpoint(&repo, "after-tool", &["--tool", "Edit"]);
    checkpoint(&repo, "stop", &[]);
    // The user, between turns; then the next turn starts.
    repo.write("run.sh", "user between turns\n");
    checkpoint(&repo, "turn-start", &[]);
    // The user again, after the session's newest checkpoint.
    repo.write("dir/b.txt", "user now\n");
    let refused = repo.evolv(&["rewind", "--json", "~2"]);
    assert_eq!(refused.code, 1, "{}", refused.stdout);
    assert_eq!(error_code(&refused), "checkpoint_drift");
    assert!(
        refused.stdout.contains("run.sh") && refused.stdout.contains("dir/b.txt"),
        "{}",
        refused.stdout
    );
    assert!(
        !refused.stdout.contains("a.txt"),
        "the agent's own file is no drift: {}",
        refused.stdout
    );
    assert_eq!(repo.read("a.txt"), "agent\n", "nothing touched");
    let forced = repo
        .evolv(&["rewind", "--json", "--force", "~2"])
        .ok()
        .json();
    assert_eq!(
        (repo.read("a.txt"), repo.read("dir/b.txt")),
        ("a\n".into(), "b\n".into())
    );
    let saved = forced["saved"].as_str().unwrap();
    let kept = repo.git(&["show", &format!("{saved}:dir/b.txt")]);
    assert_eq!(kept, "user now\n", "the user's work is a checkpoint");
    assert_eq!(forced["forced"], serde_json::json!(["dir/b.txt", "run.sh"]));
    repo.assert_fsck();
}

/// A kill at each crash point of a checkpoint loses nothing: the files are
/// as they were, the next checkpoint records them, git fsck is clean.
#[test]
fn a_sigkill_during_a_checkpoint_loses_nothing() {
    for point in [
        "checkpoint-written",
        "transaction-journalled",
        "transaction-refs-moved",
    ] {
        let repo = scenario();
        edit_everything(&repo);
        let before = files(&repo);
        let index = std::fs::read(repo.path().join(".git/index")).unwrap();
        let killed = repo.evolv_env(
            &["checkpoint", "--agent", "codex", "--session", "k"],
            &[("GIT_EVOLV_CRASHPOINT", point)],
        );
        assert_ne!(killed.code, 0, "{point}: killed");
        assert_eq!(files(&repo), before, "{point}");
        assert_eq!(
            std::fs::read(repo.path().join(".git/index")).unwrap(),
            index,
            "{point}"
        );
        let out = repo
            .evolv(&["checkpoint", "--json", "--agent", "codex", "--session", "k"])
            .ok()
            .json();
        let id = out["id"].as_str().unwrap();
        let stored = repo.git_run(&["cat-file", "blob", &format!("{id}:bin.dat")]);
        assert_eq!(stored.ok().stdout_bytes, before["bin.dat"].0, "{point}");
        repo.assert_fsck();
    }
}

/// A kill during a rewind loses nothing: the work tree as found is a
/// checkpoint before any file is touched, the rewind run again finishes
/// it, and undo brings back every byte of what it met.
#[test]
fn a_sigkill_during_a_rewind_loses_nothing() {
    for point in [
        "rewind-recorded",
        "rewind-first-file",
        "transaction-journalled",
    ] {
        let repo = scenario();
        let start = files(&repo);
        checkpoint(&repo, "turn-start", &[]);
        edit_everything(&repo);
        checkpoint(&repo, "after-tool", &["--tool", "Bash"]);
        repo.write("a.txt", "more, unrecorded\n");
        let edited = files(&repo);
        let killed = repo.evolv_env(
            &["rewind", "--force", "~1"],
            &[("GIT_EVOLV_CRASHPOINT", point)],
        );
        assert_ne!(killed.code, 0, "{point}: killed");
        repo.evolv(&["rewind", "--force", "~1"]).ok();
        let mut expected = start.clone();
        expected.insert("debug.log".into(), (b"ignored\n".to_vec(), "file"));
        assert_eq!(files(&repo), expected, "{point}: rewound");
        // Every byte met is in a checkpoint of the session.
        let list = repo.evolv(&["checkpoints", "--json"]).ok().json();
        let ids: Vec<&str> = list["sessions"][0]["checkpoints"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["id"].as_str().unwrap())
            .collect();
        let found = ids.iter().any(|id| {
            repo.git_run(&["cat-file", "blob", &format!("{id}:a.txt")])
                .stdout
                == "more, unrecorded\n"
        });
        assert!(found, "{point}: the unrecorded edit is kept");
        if point == "transaction-journalled" {
            repo.evolv(&["undo"]).ok();
            assert_eq!(files(&repo), edited, "{point}: undo brings it all back");
        }
        repo.assert_fsck();
    }
}

#[test]
fn checkpoints_off_record_nothing_and_prune_drops_old_sessions() {
    let repo = scenario().on_test_clock();
    repo.set_config("evolv.checkpoints.enabled", "false");
    let off = checkpoint(&repo, "turn-start", &[]);
    assert_eq!(off["disabled"], true);
    assert_eq!(repo.rev("refs/evolv/checkpoints/claude-code/s1"), None);
    repo.set_config("evolv.checkpoints.enabled", "true");
    repo.evolv(&["checkpoint", "--agent", "codex", "--session", "old"])
        .ok();
    repo.write("a.txt", "newer\n");
    checkpoint(&repo, "turn-start", &[]);
    repo.set_config("evolv.checkpoints.keep", "1");
    repo.set_config("evolv.checkpoints.keepDays", "0");
    let pruned = repo
        .evolv(&["checkpoints", "--prune", "--json"])
        .ok()
        .json();
    assert_eq!(
        pruned["pruned"],
        serde_json::json!(["refs/evolv/checkpoints/codex/old"])
    );
    assert!(repo.rev("refs/evolv/checkpoints/claude-code/s1").is_some());
    repo.assert_fsck();
}

/// `propose --from-checkpoints`: the session's net work (its rewinds
/// counted), or one proposal per turn, landing with `Assisted-by`.
#[test]
fn a_sessions_work_becomes_proposals_whose_landing_says_assisted_by() {
    let repo = scenario();
    let agent = |event: &str, extra: &[&str]| {
        let mut args = vec![
            "checkpoint",
            "--agent",
            "codex",
            "--session",
            "w",
            "--model",
            "gpt-5",
            "--event",
            event,
        ];
        args.extend_from_slice(extra);
        repo.evolv(&args).ok();
    };
    agent("turn-start", &[]);
    repo.write("a.txt", "turn one\n");
    repo.write("scratch.txt", "to be rewound\n");
    agent("after-tool", &["--tool", "apply_patch"]);
    repo.evolv(&[
        "rewind",
        "--json",
        "--session",
        "codex/w",
        "~1",
        "--",
        "scratch.txt",
    ])
    .ok();
    agent("turn-start", &[]);
    repo.write("new.txt", "turn two\n");
    agent("after-tool", &["--tool", "shell"]);
    let stack = repo
        .evolv(&[
            "propose",
            "--json",
            "--from-checkpoints",
            "codex/w",
            "--stack",
        ])
        .ok()
        .json();
    let proposals = stack["proposals"].as_array().unwrap();
    assert_eq!(proposals.len(), 2, "{stack}");
    assert_eq!(
        proposals[0]["files"],
        serde_json::json!(["a.txt"]),
        "the rewind counts"
    );
    assert_eq!(proposals[1]["files"], serde_json::json!(["new.txt"]));
    let one = repo
        .evolv(&["propose", "--json", "--from-checkpoints", "w"])
        .ok()
        .json();
    assert_eq!(one["assisted_by"], "codex:gpt-5");
    let id = one["proposals"][0]["patch_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        one["proposals"][0]["files"],
        serde_json::json!(["a.txt", "new.txt"])
    );
    // The work is in the work tree: put it back to the session's start, then land.
    repo.evolv(&["rewind", "--session-start", "w"]).ok();
    repo.evolv(&["apply", &id]).ok();
    let message = repo.git(&["log", "-1", "--format=%B"]);
    assert!(
        message.contains("\nAssisted-by: codex:gpt-5\n"),
        "{message}"
    );
    assert!(!message.contains("Signed-off-by"), "{message}");
    assert_eq!(
        (repo.read("a.txt"), repo.read("new.txt")),
        ("turn one\n".into(), "turn two\n".into())
    );
    repo.assert_fsck();
}

/// The MCP tool lists what the CLI lists.
#[test]
fn the_mcp_tool_lists_what_the_cli_lists() {
    use crate::mcp_client::{Mcp, assert_matches_output_schema};
    let repo = scenario();
    checkpoint(&repo, "turn-start", &[]);
    repo.write("a.txt", "by the agent\n");
    checkpoint(&repo, "after-tool", &["--tool", "Edit"]);
    let cli = repo.evolv(&["checkpoints", "--json"]).ok().json();
    let mut mcp = Mcp::start(&repo);
    let tools = mcp.tools();
    let out = mcp.call_ok("list_checkpoints", serde_json::json!({ "session": "s1" }));
    assert_matches_output_schema(&tools, "list_checkpoints", &out);
    assert_eq!(out["sessions"], cli["sessions"]);
    assert_eq!(
        out["sessions"][0]["checkpoints"][0]["changed"],
        serde_json::json!(["a.txt"])
    );
    mcp.finish();
}

/// A checkpoint is taken mid-merge (the conflicted file as it is) and
/// while another process holds the index lock: it writes no index.
#[test]
fn a_conflicted_merge_and_a_locked_index_are_checkpointed_as_they_are() {
    let repo = scenario();
    repo.git(&["checkout", "-q", "-b", "other"]);
    repo.write("a.txt", "theirs\n");
    repo.commit_all("theirs");
    repo.git(&["checkout", "-q", "main"]);
    repo.write("a.txt", "ours\n");
    repo.commit_all("ours");
    let merge = repo.git_run(&["merge", "-q", "other"]);
    assert_ne!(merge.code, 0, "a conflict");
    let conflicted = std::fs::read(repo.file("a.txt")).unwrap();
    std::fs::write(repo.path().join(".git/index.lock"), b"").unwrap();
    let out = checkpoint(&repo, "after-tool", &["--tool", "Bash"]);
    let id = out["id"].as_str().unwrap();
    let stored = repo.git_run(&["cat-file", "blob", &format!("{id}:a.txt")]);
    assert_eq!(stored.ok().stdout_bytes, conflicted);
    assert_eq!(
        std::fs::read(repo.path().join(".git/index.lock")).unwrap(),
        b"",
        "not taken"
    );
    std::fs::remove_file(repo.path().join(".git/index.lock")).unwrap();
    assert!(repo.status().contains("UU a.txt"), "{}", repo.status());
}
