//! The undo of an operation that moved only git-evolv's refs costs about
//! one ref update (issue 26 item 7): its journal is flushed exactly where
//! git's `core.fsync` flushes refs (not by default), a journal a power cut
//! left empty blocks no command, and `undo` still finds its operation
//! behind many newer ones it cannot undo.

use crate::common::{BIN, TestRepo, sealed};
use crate::durability::calls;
use crate::undo::ops;

/// The trace of `strace -f` over one `undo` in `repo`, with the git
/// settings `config` (`key=value`).
fn traced_undo(repo: &TestRepo, config: &[(&str, &str)]) -> String {
    let trace = repo.home().join("undo-trace");
    let mut cmd = sealed("strace", repo.home());
    cmd.args([
        "-f",
        "-qq",
        "-e",
        "trace=syncfs,fsync,fdatasync,rename,unlink",
        "-o",
    ])
    .arg(&trace)
    .args([BIN, "undo"])
    .current_dir(repo.path());
    cmd.env("GIT_CONFIG_COUNT", config.len().to_string());
    for (i, (k, v)) in config.iter().enumerate() {
        cmd.env(format!("GIT_CONFIG_KEY_{i}"), k);
        cmd.env(format!("GIT_CONFIG_VALUE_{i}"), v);
    }
    let out = cmd.output().expect("strace is installed");
    assert!(out.status.success(), "{out:?}");
    std::fs::read_to_string(&trace).unwrap()
}

/// The first line of `trace` holding `word`.
fn line_of(trace: &str, word: &str) -> Option<usize> {
    trace.lines().position(|l| l.contains(word))
}

/// `git update-ref` flushes no ref under git's default `core.fsync`, and
/// neither does the undo of a propose (and its redo) flush its journal;
/// with `core.fsync=committed` (refs included) the journal file and its
/// directory are flushed before the proposal ref moves. Needs strace:
/// `.ci/run` installs it and runs this with `--ignored`.
#[test]
#[ignore = "needs strace; .ci/run installs it and runs this with --ignored"]
fn a_ref_undo_flushes_its_journal_only_where_git_flushes_refs() {
    let (repo, id) = TestRepo::scenario_proposed(&[]);
    let proposal = format!("refs/evolv/proposals/{id}");
    let flushes = ["fsync(", "fdatasync(", "syncfs("];
    for round in ["undo", "redo"] {
        let trace = traced_undo(&repo, &[]);
        let n: usize = flushes.iter().map(|f| calls(&trace, &[f])).sum();
        assert_eq!(n, 0, "{round}: no flush by default:\n{trace}");
    }
    assert!(repo.rev(&proposal).is_some(), "undone, then redone");
    let trace = traced_undo(&repo, &[("core.fsync", "committed")]);
    assert!(repo.rev(&proposal).is_none(), "undone again");
    assert_eq!(
        calls(&trace, &["fsync("]),
        2,
        "the journal and its directory:\n{trace}"
    );
    let flushed = line_of(&trace, "fsync(").unwrap();
    let moved = line_of(
        &trace,
        &format!(
            "unlink(\"{}",
            repo.path().join(".git").join(&proposal).display()
        ),
    );
    assert!(
        moved.is_some_and(|m| m > flushed),
        "flushed before the ref moved:\n{trace}"
    );
    assert_eq!(ops(&repo, 1)[0]["kind"], "undo");
    repo.assert_fsck();
}

/// A journal written without a flush may be all a power cut leaves: an
/// empty file, or zeros. Nothing is known of it, so the next command
/// removes it and goes on; before, every command failed to parse it.
#[test]
fn a_journal_a_power_cut_emptied_blocks_no_command() {
    let (repo, id) = TestRepo::scenario_proposed(&[]);
    let dir = repo.path().join(".git/evolv/pending");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("00000000000000000001-1-0.json"), b"").unwrap();
    std::fs::write(dir.join("00000000000000000002-1-0.json"), [0u8; 600]).unwrap();
    repo.evolv(&["undo"]).ok();
    assert!(repo.rev(&format!("refs/evolv/proposals/{id}")).is_none());
    let left = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(left, 0, "both removed, the undo's own completed");
    assert_eq!(ops(&repo, 1)[0]["kind"], "undo");
    // A journal that holds something but cannot be read is still refused.
    std::fs::write(dir.join("00000000000000000003-1-0.json"), b"{\"refs\":").unwrap();
    let run = repo.evolv(&["list"]);
    assert_ne!(run.code, 0, "a damaged journal is not silently dropped");
    assert!(
        run.stderr.contains("00000000000000000003-1-0.json"),
        "{}",
        run.stderr
    );
}

/// `undo` alone reads the newest few operations first: behind more of them
/// than it reads at first (dry runs, which changed nothing), it still
/// finds the propose.
#[test]
fn undo_finds_its_operation_behind_many_it_cannot_undo() {
    let (repo, id) = TestRepo::scenario_proposed(&[]);
    let proposed = ops(&repo, 1)[0]["id"].clone();
    for _ in 0..6 {
        repo.evolv(&["apply", "--dry-run", &id]).ok();
    }
    assert_eq!(ops(&repo, 1)[0]["kind"], "apply");
    let undo = repo.evolv(&["undo", "--json"]).ok().json();
    assert_eq!(undo["undone"][0]["op"], proposed);
    assert!(repo.rev(&format!("refs/evolv/proposals/{id}")).is_none());
    assert_eq!(
        undo["undone"][0]["id"],
        ops(&repo, 1)[0]["id"],
        "the new id"
    );
}
