//! `propose --from-worktree` (issue 30 item 1): what the work tree holds is
//! proposed byte for byte (CRLF, no final newline, binary, modes, symlinks,
//! deletions, clean filters as `git add` runs them), then those paths go
//! back to HEAD, as `git stash` does, only once the proposal is stored;
//! unrelated files and their staged state are untouched.

use crate::common::{TestRepo, assert_has, error_code};

/// The bytes of `path` in proposal `id`.
fn shown(repo: &TestRepo, id: &str, path: &str) -> Vec<u8> {
    let spec = format!("refs/evolv/proposals/{id}:{path}");
    repo.git_run(&["cat-file", "blob", &spec])
        .ok()
        .stdout_bytes
        .clone()
}

fn mode_of(repo: &TestRepo, id: &str, path: &str) -> String {
    let line = repo.git(&["ls-tree", &format!("refs/evolv/proposals/{id}"), "--", path]);
    line.split(' ').next().unwrap_or_default().to_string()
}

fn scenario() -> TestRepo {
    let repo = TestRepo::with_files(&[
        ("crlf.txt", "a\r\nb\r\n"),
        ("tail.txt", "tail\n"),
        ("run.sh", "echo\n"),
        ("gone.txt", "bye\n"),
        ("other/staged.txt", "s\n"),
        ("other/dirty.txt", "d\n"),
        (".gitignore", "*.log\n"),
    ]);
    std::os::unix::fs::symlink("tail.txt", repo.file("link")).unwrap();
    repo.commit_all("with a link");
    repo
}

#[test]
fn the_work_tree_is_proposed_byte_for_byte_and_put_back_like_git_stash() {
    let repo = scenario();
    let head = repo.head();
    repo.write("crlf.txt", "a\r\nB\r\n");
    repo.write("tail.txt", "no final newline");
    repo.write_bytes("bin.dat", &[0, 159, 146, 150, 0, 1]);
    repo.git(&["add", "-N", "bin.dat"]);
    repo.git(&["update-index", "--chmod=+x", "run.sh"]);
    std::fs::set_permissions(
        repo.file("run.sh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    std::fs::remove_file(repo.file("link")).unwrap();
    std::os::unix::fs::symlink("crlf.txt", repo.file("link")).unwrap();
    std::fs::remove_file(repo.file("gone.txt")).unwrap();
    // Outside the pathspec: a staged change and an unstaged one.
    repo.write("other/staged.txt", "S\n");
    repo.git(&["add", "other/staged.txt"]);
    repo.write("other/dirty.txt", "D\n");
    repo.write("untracked.txt", "u\n");
    let run = repo.evolv(&[
        "propose",
        "--json",
        "--from-worktree",
        "--",
        "crlf.txt",
        "tail.txt",
        "bin.dat",
        "run.sh",
        "link",
        "gone.txt",
    ]);
    run.ok();
    let id = run.json_str("/patch_id");
    assert_eq!(shown(&repo, &id, "crlf.txt"), b"a\r\nB\r\n");
    assert_eq!(shown(&repo, &id, "tail.txt"), b"no final newline");
    assert_eq!(shown(&repo, &id, "bin.dat"), [0, 159, 146, 150, 0, 1]);
    assert_eq!(mode_of(&repo, &id, "run.sh"), "100755");
    assert_eq!(mode_of(&repo, &id, "link"), "120000");
    assert_eq!(shown(&repo, &id, "link"), b"crlf.txt");
    assert_eq!(
        repo.git(&["ls-tree", &format!("refs/evolv/proposals/{id}"), "gone.txt"]),
        ""
    );
    assert_eq!(
        repo.git(&["rev-parse", &format!("refs/evolv/proposals/{id}^")])
            .trim(),
        head
    );
    // Those paths are back at HEAD; the others are as they were.
    assert_eq!(repo.head(), head);
    let status = repo.git(&["status", "--porcelain"]);
    assert_eq!(
        status, " M other/dirty.txt\nM  other/staged.txt\n?? untracked.txt\n",
        "{status}"
    );
    assert_eq!(repo.read("crlf.txt"), "a\r\nb\r\n");
    assert!(!repo.file("bin.dat").exists());
    assert_eq!(
        std::fs::read_link(repo.file("link")).unwrap().to_str(),
        Some("tail.txt")
    );
    repo.assert_fsck();
}

#[test]
fn keep_leaves_the_work_tree_and_untracked_files_come_when_asked() {
    let repo = scenario();
    repo.write("tail.txt", "changed\n");
    repo.write("new/file.txt", "n\n");
    repo.write("debug.log", "ignored\n");
    let run = repo.evolv(&[
        "propose",
        "--json",
        "--from-worktree",
        "--keep",
        "--include-untracked",
    ]);
    run.ok();
    let id = run.json_str("/patch_id");
    assert_eq!(shown(&repo, &id, "new/file.txt"), b"n\n");
    assert_eq!(
        repo.git(&[
            "ls-tree",
            &format!("refs/evolv/proposals/{id}"),
            "debug.log"
        ]),
        "",
        "ignored files stay out"
    );
    assert_eq!(
        repo.read("tail.txt"),
        "changed\n",
        "--keep leaves the work tree"
    );
    assert_eq!(run.json()["restored"], serde_json::json!([]));
    // Without --keep the untracked file goes, with the directory it leaves.
    let run = repo.evolv(&[
        "propose",
        "--json",
        "--from-worktree",
        "--include-untracked",
    ]);
    run.ok();
    assert!(!repo.file("new").exists());
    assert_eq!(repo.read("debug.log"), "ignored\n");
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
}

#[test]
fn clean_filters_run_as_git_add_runs_them() {
    let repo = TestRepo::with_files(&[(".gitattributes", "*.up filter=upper\n"), ("a.up", "X\n")])
        .with_config("filter.upper.clean", "tr a-z A-Z")
        .with_config("filter.upper.smudge", "cat");
    repo.write("a.up", "shout\n");
    let id = repo
        .evolv(&["propose", "--json", "--from-worktree"])
        .ok()
        .json_str("/patch_id");
    assert_eq!(shown(&repo, &id, "a.up"), b"SHOUT\n");
}

#[test]
fn nothing_to_capture_is_an_error_and_a_kill_before_the_put_back_loses_nothing() {
    let repo = scenario();
    let run = repo.evolv(&["propose", "--json", "--from-worktree"]);
    assert_eq!(error_code(&run), "invalid_input", "{}", run.stdout);
    repo.write("tail.txt", "work\n");
    let killed = repo.evolv_env(
        &["propose", "--from-worktree"],
        &[("GIT_EVOLV_CRASHPOINT", "capture-stored")],
    );
    assert_ne!(killed.code, 0, "killed");
    assert_eq!(
        repo.read("tail.txt"),
        "work\n",
        "the work tree still has it"
    );
    let refs = repo.git(&[
        "for-each-ref",
        "--format=%(refname)",
        "refs/evolv/proposals",
    ]);
    let id = refs.trim().rsplit('/').next().unwrap().to_string();
    assert_eq!(
        shown(&repo, &id, "tail.txt"),
        b"work\n",
        "and so does the proposal"
    );
    repo.assert_fsck();
}

/// The MCP tool captures the same way and answers the CLI's JSON.
#[test]
fn the_mcp_tool_captures_as_the_cli_does() {
    use crate::mcp_client::{Mcp, assert_matches_output_schema};
    let repo = scenario();
    repo.write("tail.txt", "from the tool\n");
    repo.write("other/dirty.txt", "stays\n");
    let mut mcp = Mcp::start(&repo);
    let tools = mcp.tools();
    let out = mcp.call_ok(
        "propose_worktree",
        serde_json::json!({ "paths": "tail.txt" }),
    );
    assert_matches_output_schema(&tools, "propose_worktree", &out);
    let id = out["patch_id"].as_str().expect("an id");
    assert_eq!(shown(&repo, id, "tail.txt"), b"from the tool\n");
    assert_eq!(out["restored"], serde_json::json!(["tail.txt"]));
    assert_eq!(repo.git(&["status", "--porcelain"]), " M other/dirty.txt\n");
    mcp.finish();
}

/// An LFS-tracked file is captured as `git add` stores it: a pointer, its
/// content in LFS's store. Ignored where git-lfs may be missing; `.ci/run`
/// installs git-lfs and runs it with `--ignored`.
#[test]
#[ignore = "needs git-lfs: cargo test --locked --test cli -- --ignored lfs"]
fn lfs_files_are_captured_as_git_add_stores_them() {
    let repo = TestRepo::empty();
    assert_eq!(
        repo.git_run(&["lfs", "version"]).code,
        0,
        "git-lfs is not installed"
    );
    repo.git(&["lfs", "install", "--local"]);
    repo.git(&["lfs", "track", "*.big"]);
    repo.write("data.big", "old payload\n");
    repo.commit_all("lfs content");
    repo.write("data.big", "new payload\n");
    let id = repo
        .evolv(&["propose", "--json", "--from-worktree", "--keep"])
        .ok()
        .json_str("/patch_id");
    let pointer = String::from_utf8(shown(&repo, &id, "data.big")).unwrap();
    assert!(pointer.starts_with("version https://git-lfs"), "{pointer}");
    repo.git(&["add", "data.big"]);
    let added = repo.git(&["cat-file", "-p", ":data.big"]);
    assert_eq!(pointer, added, "the pointer git add makes");
}

/// `propose --from-worktree` with `GIT_TRACE` on; what the trace says git
/// ran (one `trace: built-in: git <command>` line per git command).
fn traced_capture(repo: &TestRepo, args: &[&str]) -> (crate::common::Run, String) {
    let trace = repo.home().join("git-trace");
    let _ = std::fs::remove_file(&trace);
    let mut full = vec!["propose", "--json", "--from-worktree"];
    full.extend_from_slice(args);
    let run = repo.evolv_env(&full, &[("GIT_TRACE", trace.to_str().unwrap())]);
    (run, std::fs::read_to_string(&trace).unwrap_or_default())
}

fn ran_checkout(trace: &str) -> bool {
    trace.contains("built-in: git checkout")
}

/// The put-back of plain files is done in process (issue 30 item 5: `git
/// checkout` read and wrote the whole index once more): the files are
/// HEAD's again, their index entries HEAD's with the files' stat data
/// (`git diff-files`, which does not refresh, sees no change), and the
/// staged and unstaged state of the other paths is as it was.
#[test]
fn plain_files_go_back_to_head_without_git_checkout() {
    let repo = scenario();
    repo.write("crlf.txt", "a\r\nB\r\n");
    repo.write("new.txt", "added then edited\n");
    repo.git(&["add", "new.txt"]);
    repo.write("new.txt", "edited\n");
    repo.write("tail.txt", "staged\n");
    repo.git(&["add", "tail.txt"]);
    std::fs::remove_file(repo.file("gone.txt")).unwrap();
    repo.write("other/staged.txt", "S\n");
    repo.git(&["add", "other/staged.txt"]);
    repo.write("other/dirty.txt", "D\n");
    let (run, trace) = traced_capture(
        &repo,
        &["--", "crlf.txt", "new.txt", "tail.txt", "gone.txt", "link"],
    );
    run.ok();
    assert!(!ran_checkout(&trace), "{trace}");
    let id = run.json_str("/patch_id");
    assert_eq!(shown(&repo, &id, "new.txt"), b"edited\n");
    assert_eq!(shown(&repo, &id, "tail.txt"), b"staged\n");
    assert_eq!(repo.read("crlf.txt"), "a\r\nb\r\n");
    assert_eq!(repo.read("gone.txt"), "bye\n");
    assert!(!repo.file("new.txt").exists());
    let restored = [
        "diff-files",
        "--name-only",
        "--",
        "crlf.txt",
        "tail.txt",
        "gone.txt",
    ];
    assert_eq!(repo.git(&restored), "");
    let status = repo.git(&["status", "--porcelain"]);
    assert_eq!(
        status, " M other/dirty.txt\nM  other/staged.txt\n",
        "{status}"
    );
    assert!(!repo.file(".git/index.lock").exists());
    repo.assert_fsck();
}

/// Where git's own checkout does what writing the files here would not
/// (a `.gitattributes` among the paths changes how the others are written;
/// a hook runs when the index is written; a version 4 index; an untracked
/// cache git keeps), the put-back is still `git checkout`, and ends the
/// same.
#[test]
fn what_only_git_checkout_does_is_left_to_it() {
    let attributes = |repo: &TestRepo| {
        repo.write(".gitattributes", "*.dat binary\n");
        repo.commit_all("attributes");
        repo.write(".gitattributes", "*.txt text\n");
        repo.write("tail.txt", "edited\n");
    };
    let hook = |repo: &TestRepo| {
        let hook = repo.file(".git/hooks/post-index-change");
        std::fs::create_dir_all(hook.parent().unwrap()).unwrap();
        std::fs::write(&hook, "#!/bin/sh\ntouch hook-ran\n").unwrap();
        std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        repo.write("tail.txt", "edited\n");
    };
    let version_4 = |repo: &TestRepo| {
        repo.git(&["update-index", "--index-version", "4"]);
        repo.write("tail.txt", "edited\n");
    };
    let untracked_cache = |repo: &TestRepo| {
        repo.git(&["config", "core.untrackedCache", "true"]);
        repo.git(&["status", "--porcelain"]);
        repo.write("tail.txt", "edited\n");
    };
    type SetUp = fn(&TestRepo);
    let cases: [(&str, SetUp); 4] = [
        ("a .gitattributes", attributes),
        ("a post-index-change hook", hook),
        ("a version 4 index", version_4),
        ("an untracked cache", untracked_cache),
    ];
    for (case, set_up) in cases {
        let repo = scenario();
        set_up(&repo);
        let (run, trace) = traced_capture(&repo, &[]);
        run.ok();
        assert!(ran_checkout(&trace), "{case}: {trace}");
        assert_eq!(repo.read("tail.txt"), "tail\n", "{case}");
        let status = repo.git(&["status", "--porcelain", "--untracked-files=no"]);
        assert_eq!(status, "", "{case}");
        if case == "a post-index-change hook" {
            assert!(repo.file("hook-ran").exists(), "{case}");
        }
        repo.assert_fsck();
    }
}

/// With `GIT_INDEX_FILE` naming another index, git's checkout puts the
/// paths back in that one, and `.git/index` is left as it was.
#[test]
fn another_index_file_is_the_one_put_back() {
    let repo = scenario();
    repo.write("tail.txt", "edited\n");
    repo.git(&["add", "tail.txt"]);
    let other = repo.home().join("other-index");
    std::fs::copy(repo.file(".git/index"), &other).unwrap();
    repo.git(&["reset", "-q"]);
    let before = std::fs::read(repo.file(".git/index")).unwrap();
    let trace = repo.home().join("git-trace");
    let env = [
        ("GIT_INDEX_FILE", other.to_str().unwrap()),
        ("GIT_TRACE", trace.to_str().unwrap()),
    ];
    repo.evolv_env(&["propose", "--from-worktree"], &env).ok();
    assert!(ran_checkout(&std::fs::read_to_string(&trace).unwrap()));
    assert_eq!(repo.read("tail.txt"), "tail\n");
    assert_eq!(std::fs::read(repo.file(".git/index")).unwrap(), before);
    let staged = repo.git_run(&["diff", "--cached", "--name-only"]);
    assert_eq!(staged.stdout, "", "the default index stages nothing");
}

/// The proposals stored, by id.
fn proposal_ids(repo: &TestRepo) -> Vec<String> {
    let refs = repo.git(&[
        "for-each-ref",
        "--format=%(refname:lstrip=3)",
        "refs/evolv/proposals",
    ]);
    refs.lines().map(str::to_string).collect()
}

// Issue 38 item 13: with `index.lock` held, the capture reported failure
// but had stored the proposal, under an id it did not name, and a retry
// made a duplicate. As `git stash` does, a locked index now stops it
// before anything is stored; the retry makes the one proposal.
#[test]
fn a_locked_index_stores_nothing_and_the_retry_makes_one_proposal() {
    let repo = scenario();
    repo.write("tail.txt", "work\n");
    std::fs::write(repo.file(".git/index.lock"), "").unwrap();
    let run = repo.evolv(&["propose", "--json", "--from-worktree"]);
    assert_eq!(error_code(&run), "index_locked", "{}", run.stdout);
    assert_ne!(run.code, 0);
    assert_has(&run.error_message(), "index.lock");
    assert_eq!(repo.read("tail.txt"), "work\n");
    assert_eq!(proposal_ids(&repo), Vec::<String>::new(), "nothing stored");
    std::fs::remove_file(repo.file(".git/index.lock")).unwrap();
    let run = repo.evolv(&["propose", "--json", "--from-worktree"]);
    run.ok();
    let id = run.json_str("/patch_id");
    assert_eq!(
        proposal_ids(&repo),
        vec![id.clone()],
        "exactly one proposal"
    );
    assert_eq!(shown(&repo, &id, "tail.txt"), b"work\n");
    assert_eq!(repo.read("tail.txt"), "tail\n");
    repo.assert_fsck();
}

/// An `index.lock` taken after the capture began (between the proposal's
/// storing and the put-back) cannot stop it before storing: the capture
/// then succeeds, names the id, and lists what it did not put back.
#[test]
fn a_lock_taken_after_the_proposal_is_stored_is_named_with_the_id() {
    let repo = scenario();
    repo.write("tail.txt", "work\n");
    let lock = format!(
        "capture-stored=: > '{}'",
        repo.file(".git/index.lock").display()
    );
    let run = repo.evolv_env(
        &["propose", "--json", "--from-worktree"],
        &[("GIT_EVOLV_CRASHPOINT_RUN", lock.as_str())],
    );
    run.ok();
    let id = run.json_str("/patch_id");
    assert_eq!(proposal_ids(&repo), vec![id.clone()]);
    assert_eq!(shown(&repo, &id, "tail.txt"), b"work\n");
    let v = run.json();
    assert_eq!(v["restored"], serde_json::json!([]), "{v}");
    assert_eq!(v["not_restored"][0]["path"], "tail.txt", "{v}");
    let reason = v["not_restored"][0]["reason"].as_str().unwrap();
    assert!(reason.contains("index.lock"), "{reason}");
    assert_eq!(repo.read("tail.txt"), "work\n", "the work tree keeps it");
    assert!(
        repo.file(".git/index.lock").exists(),
        "someone else's lock stays"
    );
    std::fs::remove_file(repo.file(".git/index.lock")).unwrap();
    repo.assert_fsck();
}

// Issue 38 item 12: the put-back wrote HEAD's version over paths without
// checking them again, so a save made while the capture ran was in neither
// the proposal nor the work tree. A path that is no longer what was
// captured is now left as it is, and the outcome says so: here a changed
// file, a deleted one brought back and an untracked one, each saved again
// between the proposal's storing and the put-back (deterministically, at
// the `capture-stored` point), in process and through `git checkout`.
#[test]
fn a_save_made_while_the_capture_runs_is_left_in_the_work_tree_and_named() {
    for through_git_checkout in [false, true] {
        let repo = scenario();
        if through_git_checkout {
            repo.git(&["update-index", "--index-version", "4"]);
        }
        repo.write("tail.txt", "captured\n");
        repo.write("crlf.txt", "a\r\nB\r\n");
        std::fs::remove_file(repo.file("gone.txt")).unwrap();
        repo.write("new.txt", "first\n");
        let save = format!(
            "capture-stored=cd '{}' && printf 'saved\\n' > tail.txt && printf 'back\\n' > gone.txt && printf 'second\\n' > new.txt",
            repo.path().display()
        );
        let run = repo.evolv_env(
            &[
                "propose",
                "--json",
                "--from-worktree",
                "--include-untracked",
            ],
            &[("GIT_EVOLV_CRASHPOINT_RUN", save.as_str())],
        );
        run.ok();
        let id = run.json_str("/patch_id");
        // The proposal holds what was captured.
        assert_eq!(shown(&repo, &id, "tail.txt"), b"captured\n");
        assert_eq!(shown(&repo, &id, "new.txt"), b"first\n");
        // The saves are where the user made them.
        assert_eq!(repo.read("tail.txt"), "saved\n");
        assert_eq!(repo.read("gone.txt"), "back\n");
        assert_eq!(repo.read("new.txt"), "second\n");
        // The path not saved again went back to HEAD.
        assert_eq!(repo.read("crlf.txt"), "a\r\nb\r\n");
        let v = run.json();
        assert_eq!(v["restored"], serde_json::json!(["crlf.txt"]), "{v}");
        let left: Vec<&str> = v["not_restored"]
            .as_array()
            .expect("not_restored")
            .iter()
            .map(|l| l["path"].as_str().unwrap())
            .collect();
        assert_eq!(left, ["gone.txt", "new.txt", "tail.txt"], "{v}");
        let reason = v["not_restored"][0]["reason"].as_str().unwrap();
        assert!(reason.contains("changed after it was captured"), "{reason}");
        // Their index entries are as they were: HEAD's for the tracked
        // ones, none for the untracked file.
        let status = repo.git(&["status", "--porcelain"]);
        assert_eq!(status, " M gone.txt\n M tail.txt\n?? new.txt\n", "{status}");
        repo.assert_fsck();
    }
    // People are told which paths were left.
    let repo = scenario();
    repo.write("tail.txt", "captured\n");
    let save = format!(
        "capture-stored=printf 'saved\\n' > '{}'",
        repo.file("tail.txt").display()
    );
    let run = repo.evolv_env(
        &["propose", "--from-worktree"],
        &[("GIT_EVOLV_CRASHPOINT_RUN", save.as_str())],
    );
    run.ok();
    assert!(
        run.stderr.contains("left tail.txt") || run.stdout.contains("left tail.txt"),
        "{}{}",
        run.stdout,
        run.stderr
    );
}

// Found by the adversarial pass: a file turned into a directory (or back)
// failed deep in the tree's update, as a `git_error` naming an object id.
// Now it is `invalid_input` naming the path, the cause and the fix, and
// nothing is touched.
#[test]
fn a_file_turned_into_a_directory_or_back_is_refused_by_name_and_nothing_moves() {
    for (from_file, shown) in [(true, "'x' was a file"), (false, "'d' was a directory")] {
        let repo = TestRepo::with_files(&[("x", "a\n"), ("d/y", "b\n"), ("keep.txt", "k\n")]);
        if from_file {
            std::fs::remove_file(repo.file("x")).unwrap();
            repo.write("x/z", "c\n");
        } else {
            std::fs::remove_dir_all(repo.file("d")).unwrap();
            repo.write("d", "f\n");
        }
        repo.write("keep.txt", "mine\n");
        let status = repo.status();
        let run = repo.evolv(&[
            "propose",
            "--from-worktree",
            "--include-untracked",
            "--json",
        ]);
        run.fails_with(2, "invalid_input");
        crate::common::assert_has_all(&run.stdout, &[shown, "git add -A", "pathspec"]);
        assert_eq!(repo.status(), status, "nothing moved");
        assert_eq!(repo.read("keep.txt"), "mine\n");
        let proposals = repo.git(&["for-each-ref", "refs/evolv/proposals"]);
        assert_eq!(proposals.trim(), "", "no proposal stored");
    }
}

// Found by the adversarial pass: a changed file whose name is not UTF-8
// was proposed as a new file under a lossy copy of its name (U+FFFD), the
// real file left as it was. It is now refused by name, and nothing moves.
#[test]
fn a_name_that_is_not_utf8_is_refused_not_proposed_under_another_name() {
    use std::os::unix::ffi::OsStrExt;
    let repo = TestRepo::with_files(&[("keep.txt", "k\n")]);
    let name = repo
        .path()
        .join(std::ffi::OsStr::from_bytes(b"caf\xe9.txt"));
    std::fs::write(&name, "a\n").unwrap();
    repo.commit_all("a name that is not UTF-8");
    std::fs::write(&name, "b\n").unwrap();
    let status = repo.status();
    let run = repo.evolv(&["propose", "--from-worktree", "--json"]);
    run.fails_with(2, "invalid_input");
    crate::common::assert_has_all(&run.stdout, &["caf\\\\351.txt", "not UTF-8"]);
    assert_eq!(repo.status(), status, "nothing moved");
    assert_eq!(std::fs::read(&name).unwrap(), b"b\n");
    let proposals = repo.git(&["for-each-ref", "refs/evolv/proposals"]);
    assert_eq!(proposals.trim(), "", "no proposal stored");
}

// Found by the adversarial pass: a new `.gitattributes` captured with
// --include-untracked was removed only after HEAD's files were written
// back, so they were converted under its rule (CRLF here) and the work
// tree was left dirty. Untracked files now go first, as `git stash -u`
// cleans before it resets.
#[test]
fn a_new_gitattributes_captured_with_untracked_files_converts_nothing_put_back() {
    let repo = TestRepo::with_files(&[("a.txt", "x\n")]);
    repo.write("a.txt", "y\n");
    repo.write(".gitattributes", "*.txt text eol=crlf\n");
    let run = repo.evolv(&[
        "propose",
        "--from-worktree",
        "--include-untracked",
        "--json",
    ]);
    run.ok();
    assert_eq!(repo.status(), "", "put back to HEAD");
    assert_eq!(std::fs::read(repo.file("a.txt")).unwrap(), b"x\n");
    assert!(!repo.file(".gitattributes").exists());
    repo.assert_fsck();
}

/// With `core.fileMode` off, git takes an executable's mode from the index
/// whatever the file says; the check before the put-back compares the
/// content only, as git does, and the file goes back.
#[test]
fn with_file_mode_off_an_unchanged_save_is_still_put_back() {
    let repo = scenario();
    repo.git(&["config", "core.fileMode", "false"]);
    repo.git(&["update-index", "--chmod=+x", "run.sh"]);
    repo.git(&["commit", "-qm", "executable in the index only"]);
    repo.write("run.sh", "echo changed\n");
    let run = repo.evolv(&["propose", "--json", "--from-worktree"]);
    run.ok();
    let v = run.json();
    assert_eq!(v["restored"], serde_json::json!(["run.sh"]), "{v}");
    assert_eq!(v["not_restored"], serde_json::json!([]), "{v}");
    assert_eq!(repo.read("run.sh"), "echo\n");
}
