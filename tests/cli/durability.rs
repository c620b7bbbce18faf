//! The landing's flushes (RELIABILITY.md, "Power loss"): every git flush
//! setting lands the same, and the default one waits only for the
//! landing's own files — never a whole-file-system `syncfs` where one
//! `fsync` orders everything before it (ext4, XFS).

use std::process::Command;

use crate::common::{BIN, TestRepo, assert_has_all, sealed};

/// A repository with `n` files holding the pattern, in a few directories.
fn many_files(n: usize) -> TestRepo {
    TestRepo::with_many(n, |i| {
        (
            format!("d{}/e{}/f{i}.txt", i % 3, i % 5),
            format!("line {i} getUserData\n"),
        )
    })
}

/// Whatever git's flush settings say, a landing of many files (written by
/// several threads) lands the same, and leaves no temp or flush file.
#[test]
fn every_flush_setting_lands_the_same_and_leaves_nothing_behind() {
    for config in [
        &[][..],
        &["core.fsyncMethod=batch"][..],
        &["core.fsyncMethod=fsync"][..],
        &["core.fsync=none"][..],
        &["core.fsync=committed,-index", "checkout.workers=3"][..],
        &["evolv.fsyncWorktree=true"][..],
        &["evolv.fsyncWorktree=true", "core.fsyncMethod=fsync"][..],
    ] {
        let repo = many_files(150);
        let head = repo.head();
        let id = repo.propose("getUserData", "fetchUserData", &[]);
        let run = repo.git_evolv(config, &["apply", "--json", &id]);
        run.ok();
        assert_eq!(repo.rev("HEAD~1").unwrap(), head, "{config:?}");
        assert_eq!(
            repo.status(),
            "",
            "{config:?}: nothing left in the working tree"
        );
        assert_eq!(repo.read("d1/e1/f1.txt"), "line 1 fetchUserData\n");
        let left: Vec<_> = std::fs::read_dir(repo.path().join(".git/evolv"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("flush.") || n.starts_with("index-") || n == "journal")
            .collect();
        assert!(left.is_empty(), "{config:?}: left in .git/evolv: {left:?}");
        repo.assert_fsck();
    }
}

/// A power cut after the branch moved, with the landing's journal still
/// on disk, can leave a landed file emptied, cut short or holding zeros
/// where its data never reached the disk: working-tree files are not
/// flushed by default, as git's checkout does not flush them. The next
/// command's recovery finds each by content and writes it again; so is a
/// path a kill left missing (the landing writes files in place: the old
/// one removed, the new one not yet created). A file with the user's own
/// content stays.
#[test]
fn files_a_power_cut_tore_after_the_branch_moved_are_restored_by_the_next_command() {
    let repo = many_files(150);
    let id = repo.propose("getUserData", "fetchUserData", &[]);
    // The repository's temp-file tag, made ahead: this landing writes its
    // files in place and makes none.
    let tag = "0123456789abcdef";
    std::fs::create_dir_all(repo.path().join(".git/evolv")).unwrap();
    std::fs::write(repo.path().join(".git/evolv/temp-tag"), tag).unwrap();
    let killed = repo.evolv_env(
        &["apply", &id],
        &[("GIT_EVOLV_CRASHPOINT", "before-journal-delete")],
    );
    assert_eq!(killed.code, -1, "{}", killed.stderr);
    assert!(repo.path().join(".git/evolv/journal").exists());
    let landed = "line 1 fetchUserData\n";
    assert_eq!(repo.read("d1/e1/f1.txt"), landed);
    // What the cut left: nothing, a start, zeros in place of the data.
    repo.write("d1/e1/f1.txt", "");
    repo.write("d2/e2/f2.txt", "line 2 fetch");
    repo.write_bytes("d0/e0/f0.txt", b"line 0 \0\0\0\0\0\0\0\0\0\0\0\0\0\n");
    repo.write("d1/e4/f4.txt", "my own edit\n");
    // The old file removed, the new one not yet renamed in: the path is
    // missing and the landing's temp file is left beside it.
    let temp = format!("d0/e1/.f6.txt.evolv-{tag}.tmp");
    std::fs::rename(repo.file("d0/e1/f6.txt"), repo.file(&temp)).unwrap();
    // Written in place: removed, and not yet created again.
    std::fs::remove_file(repo.file("d2/e0/f20.txt")).unwrap();
    let next = repo.evolv(&["list", "--json"]);
    next.ok();
    assert_eq!(repo.read("d0/e1/f6.txt"), "line 6 fetchUserData\n");
    assert_eq!(repo.read("d2/e0/f20.txt"), "line 20 fetchUserData\n");
    assert!(!repo.file(&temp).exists(), "{temp} removed");
    assert_eq!(repo.read("d1/e1/f1.txt"), landed);
    assert_eq!(repo.read("d2/e2/f2.txt"), "line 2 fetchUserData\n");
    assert_eq!(repo.read("d0/e0/f0.txt"), "line 0 fetchUserData\n");
    assert_eq!(repo.read("d1/e4/f4.txt"), "my own edit\n", "the user's");
    assert_eq!(repo.status().trim(), "M d1/e4/f4.txt");
    assert!(!repo.path().join(".git/evolv/journal").exists());
    repo.assert_fsck();
}

/// `evolv.fsyncWorktree` that is not a boolean is refused before anything
/// moves, naming the key and its value.
#[test]
fn a_bad_fsync_worktree_value_is_refused_before_the_branch_moves() {
    let repo = many_files(3);
    let head = repo.head();
    let id = repo.propose("getUserData", "fetchUserData", &[]);
    let run = repo.git_evolv(
        &["evolv.fsyncWorktree=sometimes"],
        &["apply", "--json", &id],
    );
    run.fails_with(2, "invalid_config");
    // git hands `-c` keys over lower-cased.
    assert_has_all(&run.stdout, &["evolv.fsyncworktree", "sometimes"]);
    assert_eq!(repo.head(), head);
    assert_eq!(repo.status(), "");
}

/// A barrier file a killed landing left behind is removed by the next
/// landing, with the other leftovers of dead processes.
#[test]
fn a_barrier_file_a_killed_landing_left_is_cleaned_up() {
    let repo = many_files(3);
    let mut child = Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    std::fs::create_dir_all(repo.path().join(".git/evolv")).unwrap();
    let left = repo.path().join(format!(".git/evolv/flush.{dead}"));
    std::fs::write(&left, "").unwrap();
    let id = repo.propose("getUserData", "fetchUserData", &[]);
    repo.evolv(&["apply", &id]).ok();
    assert!(!left.exists(), "{} removed", left.display());
    assert_eq!(repo.status(), "");
}

/// Whether jbd2 runs a journal for the device `findmnt` says holds `dir`
/// (`/proc/fs/jbd2/<device>-<inode>`): ext4 without one orders nothing.
fn jbd2_runs(dir: &std::path::Path) -> bool {
    let out = Command::new("findmnt")
        .args(["-n", "-o", "SOURCE", "-T"])
        .arg(dir)
        .output()
        .unwrap();
    let source = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let device = source.rsplit('/').next().unwrap_or_default().to_string();
    std::fs::read_dir("/proc/fs/jbd2").is_ok_and(|entries| {
        entries.flatten().any(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with(&format!("{device}-"))
        })
    })
}

/// The file system type `stat -f` names for `dir`.
/// The file system `dir` is on, and whether it orders its writes through
/// one journal (XFS; ext3 or ext4 with its journal running).
fn journaled(dir: &std::path::Path) -> (String, bool) {
    let kind = fs_type(dir);
    let journaled =
        kind == "xfs" || (matches!(kind.as_str(), "ext2/ext3" | "ext4") && jbd2_runs(dir));
    (kind, journaled)
}

fn fs_type(dir: &std::path::Path) -> String {
    let out = Command::new("stat")
        .args(["-f", "-c", "%T"])
        .arg(dir)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// With git's default flush settings the landing flushes N's objects, its
/// journal, the refs and the index, not the working-tree files it writes
/// (git's checkout does not flush them either): where the file system
/// commits every name change in order, the journal's data is waited for
/// and no `fsync` follows (the branch's move cannot be committed without
/// it; git flushes no ref), and no staged file is waited for; elsewhere (ext4
/// without its journal) each of those few files is flushed on its own,
/// never with a `syncfs`, which would wait for every other process's
/// writes. `evolv.fsyncWorktree=true` waits for each staged file as well
/// (and, elsewhere, flushes the file system twice). Needs strace:
/// `.ci/run` installs it and runs this with `--ignored`, as it does the LFS
/// test.
#[test]
#[ignore = "needs strace; .ci/run installs it and runs this with --ignored"]
fn the_default_landing_flushes_its_own_files_not_the_file_system() {
    let repo = many_files(40);
    let (kind, journaled) = journaled(repo.path());
    let trace = traced_apply(&repo, &[]);
    let fsync_worktree = [
        ("GIT_CONFIG_COUNT", "1"),
        ("GIT_CONFIG_KEY_0", "evolv.fsyncWorktree"),
        ("GIT_CONFIG_VALUE_0", "true"),
    ];
    if journaled {
        assert_targeted(&trace, &kind, false);
        let repo = many_files(40);
        assert_targeted(&traced_apply(&repo, &fsync_worktree), &kind, true);
    } else {
        assert_eq!(
            calls(&trace, &["syncfs("]),
            0,
            "{kind}: no syncfs:\n{trace}"
        );
        assert_no_staged_file_waited_for(&trace, &kind);
        let object = calls(&trace, &[".git/objects/", "O_NOFOLLOW"]);
        assert!(
            object >= 1,
            "{kind}: the new commit flushed alone:\n{trace}"
        );
        let repo = many_files(40);
        let trace = traced_apply(&repo, &fsync_worktree);
        // Two: before the branch moves and at the end (issue 14: a third
        // `syncfs` waited for everyone's writes).
        let syncfs = calls(&trace, &["syncfs("]);
        assert_eq!(
            syncfs, 2,
            "{kind}: with evolv.fsyncWorktree the fallback flushes the file system twice:\n{trace}"
        );
    }
    // The targeted flushes themselves, whatever this machine's file system
    // (debug builds take it for an ordered one on request).
    let ordered = [("GIT_EVOLV_TEST_ORDERED_FS", "1")];
    let repo = many_files(40);
    assert_targeted(&traced_apply(&repo, &ordered), "assumed", false);
    let repo = many_files(40);
    let both: Vec<_> = ordered.iter().chain(&fsync_worktree).copied().collect();
    assert_targeted(&traced_apply(&repo, &both), "assumed", true);
}

/// The trace of `strace -f` over one `apply` of everything proposed in `repo`.
fn traced_apply(repo: &TestRepo, env: &[(&str, &str)]) -> String {
    let id = repo.propose("getUserData", "fetchUserData", &[]);
    let calls = "trace=syncfs,fsync,fdatasync,sync_file_range,openat";
    let trace = traced(repo, calls, &["apply", &id], env);
    repo.assert_clean();
    trace
}

/// The trace (`strace -f -e <calls>`) of git-evolv run with `args` and
/// `env` in `repo`, which must succeed.
fn traced(repo: &TestRepo, calls: &str, args: &[&str], env: &[(&str, &str)]) -> String {
    let trace = repo.home().join("trace");
    let mut cmd = sealed("strace", repo.home());
    cmd.args(["-f", "-qq", "-e", calls, "-o"])
        .arg(&trace)
        .arg(BIN)
        .args(args)
        .current_dir(repo.path());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("strace is installed");
    assert!(out.status.success(), "{out:?}");
    std::fs::read_to_string(&trace).unwrap()
}

/// The lines of `trace` (system calls) that hold every one of `words`.
pub fn calls(trace: &str, words: &[&str]) -> usize {
    trace
        .lines()
        .filter(|l| words.iter().all(|w| l.contains(w)))
        .count()
}

/// No `syncfs`; with `worktree` (`evolv.fsyncWorktree`) a wait for each
/// staged file, on the descriptor it was written through (no staged file
/// opened again by name), and without it none; the landing's journal
/// waited for, and no `fsync` at all: the file system commits the branch's
/// move after the journal or with it, and the ending's files (the new
/// index among them) before the journal's deletion, in order (issue 25
/// item 20).
fn assert_targeted(trace: &str, kind: &str, worktree: bool) {
    let syncfs = calls(trace, &["syncfs("]);
    assert_eq!(syncfs, 0, "{kind}: no syncfs:\n{trace}");
    let staged = staged_files_flushed(trace);
    if worktree {
        assert!(
            staged >= 40,
            "{kind}: a wait for each staged file, got {staged}"
        );
    } else {
        assert_eq!(staged, 0, "{kind}: no staged file flushed:\n{trace}");
    }
    let reopened = calls(trace, &[".evolv-", ".tmp\"", "O_RDONLY"]);
    assert_eq!(
        reopened, 0,
        "{kind}: staged files waited for where written:\n{trace}"
    );
    let journal = calls(trace, &["evolv/journal\"", "O_NOFOLLOW"]);
    assert_eq!(journal, 1, "{kind}: the journal waited for:\n{trace}");
    let fsynced = fsynced_files(trace);
    assert!(fsynced.is_empty(), "{kind}: no fsync: {fsynced:?}\n{trace}");
    let barrier = calls(trace, &["evolv/flush.", "O_CREAT"]);
    assert_eq!(barrier, 0, "{kind}: no barrier file:\n{trace}");
    let ending = calls(trace, &["evolv/index-new.", "O_NOFOLLOW"]);
    assert_eq!(ending, 1, "{kind}: the new index waited for:\n{trace}");
}

/// `propose --from-worktree` makes its proposal durable no later than the
/// work tree's restore by waiting for the proposal's own objects and ref,
/// where the file system commits names in order (then no `fsync`: the
/// restore is committed after them or with them); no `syncfs`, which
/// would wait for every other process's writes (issue 30 item 5: 0.18 s of
/// 0.47 s for 10 files of a 100,000-file repository). Where names are not
/// committed in order (ext4 without its journal), one `syncfs` is the
/// fallback.
#[test]
#[ignore = "needs strace; .ci/run installs it and runs this with --ignored"]
fn a_work_tree_capture_flushes_its_proposal_not_the_file_system() {
    let (kind, journaled) = journaled(many_files(1).path());
    // The targeted flush, whatever this machine's file system (debug
    // builds take it for an ordered one on request).
    let mut targeted = vec![traced_capture(&[("GIT_EVOLV_TEST_ORDERED_FS", "1")])];
    let real = traced_capture(&[]);
    if journaled {
        targeted.push(real);
    } else {
        assert_eq!(
            calls(&real, &["syncfs("]),
            1,
            "{kind}: the fallback:\n{real}"
        );
    }
    for trace in targeted {
        assert_eq!(calls(&trace, &["syncfs("]), 0, "no syncfs:\n{trace}");
        // The commit, 8 trees (the root, d0, d0/e0, d1, d1/e1, d1/e2, d2,
        // d2/e2: a removal changes its trees too) and the 3 blobs git
        // hash-object wrote loose: 12, less any another object shares.
        let objects = calls(&trace, &[".git/objects/", "O_NOFOLLOW"]);
        assert!(
            objects >= 11,
            "the proposal's objects flushed ({objects}):\n{trace}"
        );
        let proposal_ref = calls(&trace, &["refs/evolv/proposals/", "O_NOFOLLOW"]);
        assert_eq!(proposal_ref, 1, "its ref flushed:\n{trace}");
        let fsynced = fsynced_files(&trace);
        assert!(fsynced.is_empty(), "no fsync: {fsynced:?}\n{trace}");
    }
}

/// The trace of `strace -f` over one `propose --from-worktree` of three
/// files changed and one removed; the work tree is back at HEAD after it.
fn traced_capture(env: &[(&str, &str)]) -> String {
    let repo = many_files(40);
    for i in [1, 2, 7] {
        let path = format!("d{}/e{}/f{i}.txt", i % 3, i % 5);
        std::fs::write(repo.path().join(&path), format!("line {i} edited\n")).unwrap();
    }
    std::fs::remove_file(repo.path().join("d0/e0/f0.txt")).unwrap();
    let trace = repo.home().join("trace");
    let mut cmd = sealed("strace", repo.home());
    cmd.args(["-f", "-qq", "-e", "trace=syncfs,fsync,openat", "-o"])
        .arg(&trace)
        .args([BIN, "propose", "--from-worktree", "--json"])
        .current_dir(repo.path());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("strace is installed");
    assert!(out.status.success(), "{out:?}");
    assert_eq!(repo.status(), "", "put back to HEAD");
    repo.assert_fsck();
    std::fs::read_to_string(&trace).unwrap()
}

/// How many flushes (`sync_file_range`, `fdatasync`, `fsync`) in `trace`
/// went to a staged temp file (`.<name>.evolv-<tag>.tmp`).
fn staged_files_flushed(trace: &str) -> usize {
    flushed_files(trace)
        .iter()
        .filter(|(_, p)| p.contains(".evolv-") && p.ends_with(".tmp"))
        .count()
}

/// The files `fsync`ed in `trace`, but for the repository's temp-file tag,
/// written (and flushed) once, by its first landing.
fn fsynced_files(trace: &str) -> Vec<String> {
    flushed_files(trace)
        .into_iter()
        // The temp-file tag is written once per repository, whole under
        // its own name (`temp-tag.<pid>.<tag>`) and linked into place.
        .filter(|(call, p)| *call == "fsync(" && !p.contains("/evolv/temp-tag"))
        .map(|(_, p)| p)
        .collect()
}

/// Each flush (`sync_file_range`, `fdatasync`, `fsync`) in `trace`, with the
/// file it went to: each call's descriptor is looked up in the last
/// `openat` that returned it in the same thread.
fn flushed_files(trace: &str) -> Vec<(&'static str, String)> {
    let mut open = std::collections::HashMap::new();
    let mut flushed = Vec::new();
    for line in trace.lines() {
        let Some((pid, call)) = line.split_once(' ') else {
            continue;
        };
        let call = call.trim_start();
        if call.starts_with("openat(") {
            let path = call.split('"').nth(1).unwrap_or_default();
            if let Some(fd) = call
                .rsplit("= ")
                .next()
                .and_then(|r| r.trim().parse::<i32>().ok())
            {
                open.insert((pid.to_string(), fd), path.to_string());
            }
            continue;
        }
        let flush = ["sync_file_range(", "fdatasync(", "fsync("]
            .into_iter()
            .find_map(|c| Some((c, call.strip_prefix(c)?)));
        let Some((name, rest)) = flush else {
            continue;
        };
        let fd = rest
            .split([',', ')'])
            .next()
            .and_then(|f| f.parse::<i32>().ok());
        let path = fd.and_then(|fd| open.get(&(pid.to_string(), fd)));
        flushed.push((name, path.cloned().unwrap_or_default()));
    }
    flushed
}

/// By default no staged file is flushed (N's loose objects, the journal,
/// the refs and the index are), nor waited for with `fdatasync`.
fn assert_no_staged_file_waited_for(trace: &str, kind: &str) {
    assert_eq!(
        staged_files_flushed(trace),
        0,
        "{kind}: staged files not flushed:\n{trace}"
    );
    let fdatasync = calls(trace, &["fdatasync("]);
    assert_eq!(fdatasync, 0, "{kind}: no fdatasync:\n{trace}");
}

/// The trace of `strace -f` over one `propose` of every file of `repo`.
fn traced_propose(repo: &TestRepo, env: &[(&str, &str)]) -> String {
    let args = ["propose", "-p", "getUserData", "-r", "fetchUserData"];
    traced(repo, "trace=fsync,fdatasync,sync_file_range", &args, env)
}

/// A proposal's pack and its index are flushed as git flushes the packs it
/// writes, except where the file system commits names in order: there
/// both files' data is waited for and no `fsync` follows (the proposal's
/// ref is committed after them or not at all: issue 25 item 20). Either
/// way the pack is whole and the proposal reads back. Needs strace.
#[test]
#[ignore = "needs strace; .ci/run installs it and runs this with --ignored"]
fn a_proposal_pack_is_waited_for_not_fsynced_where_names_commit_in_order() {
    let (kind, journaled) = journaled(many_files(1).path());
    let ordered = [("GIT_EVOLV_TEST_ORDERED_FS", "1")];
    for (env, one) in [(&ordered[..], true), (&[][..], journaled)] {
        let repo = many_files(100);
        let trace = traced_propose(&repo, env);
        let fsyncs = calls(&trace, &["fsync("]);
        let waits = calls(&trace, &["sync_file_range("]);
        if one {
            assert_eq!(
                (fsyncs, waits),
                (0, 2),
                "{kind} {env:?}: both waited for, no fsync:\n{trace}"
            );
        } else {
            assert_eq!((fsyncs, waits), (2, 0), "{kind} {env:?}: two:\n{trace}");
        }
        repo.git(&["fsck", "--strict", "--no-dangling"]);
        let listed = repo.evolv(&["list", "--json"]).json();
        assert_eq!(listed["proposals"].as_array().unwrap().len(), 1);
    }
}
