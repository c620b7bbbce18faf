//! Paths are bytes (#16 item 7, second half): files whose names are not
//! UTF-8 are proposed, shown, applied, rolled back and recovered after a
//! kill like any other, named as git names them, with their exact bytes
//! in JSON.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use crate::common::{TestRepo, assert_human, error_code};

const LATIN1: &[u8] = b"caf\xe9.txt";
const IN_DIR: &[u8] = b"d\xffir/x.txt";

fn at(repo: &TestRepo, rel: &[u8]) -> PathBuf {
    repo.path().join(OsStr::from_bytes(rel))
}

fn write(repo: &TestRepo, rel: &[u8], content: &str) {
    let p = at(repo, rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, content).unwrap();
}

fn bytes(repo: &TestRepo, rel: &[u8]) -> Vec<u8> {
    std::fs::read(at(repo, rel)).unwrap()
}

/// A repository with `caf\xe9.txt`, `d\xffir/x.txt` and `a.txt`, all `tok`.
fn odd_repo() -> TestRepo {
    let repo = TestRepo::with_files(&[("a.txt", "tok\n")]);
    write(&repo, LATIN1, "tok\n");
    write(&repo, IN_DIR, "tok\nmore\n");
    repo.commit_all("odd names");
    repo
}

/// Clean, and HEAD's tree is `start`'s again.
#[track_caller]
fn assert_back_at(repo: &TestRepo, start: &str) {
    assert_clean(repo);
    assert_eq!(
        repo.git(&["rev-parse", "HEAD^{tree}"]),
        repo.git(&["rev-parse", &format!("{start}^{{tree}}")])
    );
}

/// `git status --porcelain -z`, as bytes: empty when clean.
#[track_caller]
fn assert_clean(repo: &TestRepo) {
    let run = repo.git_run(&["status", "--porcelain", "-z", "--untracked-files=all"]);
    assert_eq!(run.code, 0);
    assert!(
        run.stdout_bytes.is_empty(),
        "not clean: {:?}",
        String::from_utf8_lossy(&run.stdout_bytes)
    );
    repo.assert_fsck();
}

/// The raw names HEAD's commit changed (`git show --name-only -z`).
fn names_in_head(repo: &TestRepo) -> Vec<Vec<u8>> {
    let run = repo.git_run(&["show", "--name-only", "-z", "--format=", "HEAD"]);
    run.stdout_bytes
        .split(|b| *b == 0)
        .filter(|n| !n.is_empty() && *n != b"\n")
        .map(|n| n.strip_prefix(b"\n").unwrap_or(n).to_vec())
        .collect()
}

// See: issue 16 item 7.
#[test]
fn names_that_are_not_utf8_are_proposed_applied_and_rolled_back_by_revert() {
    let repo = odd_repo();
    let start = repo.head();
    let run = repo.evolv(&["propose", "--json", "-p", "tok", "-r", "TOK"]);
    let v = run.success().stdout_json();
    assert_eq!(
        v["affected_files"],
        serde_json::json!(["a.txt", "caf\u{fffd}.txt", "d\u{fffd}ir/x.txt"])
    );
    // The lossless column: hex of each name that is not UTF-8.
    assert_eq!(
        v["affected_files_bytes"],
        serde_json::json!([null, "636166e92e747874", "64ff69722f782e747874"])
    );
    assert_eq!(v["statistics"]["path_skipped"], 0);
    assert_eq!(v["statistics"]["files_matched"], 3);
    assert_eq!(v["skipped"], serde_json::json!([]));
    // The diff names them as git diff does.
    let diff = v["unified_diff"].as_str().unwrap();
    assert!(
        diff.contains(r#"diff --git "a/caf\351.txt" "b/caf\351.txt""#),
        "{diff}"
    );
    assert!(diff.contains(r#"+++ "b/d\377ir/x.txt""#), "{diff}");
    let id = v["patch_id"].as_str().unwrap().to_string();
    let git_diff = repo.git(&["diff", &start, &format!("refs/evolv/proposals/{id}")]);
    assert_eq!(diff, git_diff, "the diff is git's, byte for byte");

    let show = repo.evolv(&["show", &id]);
    show.ok();
    assert_human!(repo, "show_non_utf8_names", show.transcript());
    // The review page's file list has every file (it diffs by exact path).
    let server = crate::web_client::Server::start(&repo);
    let page = server.get(&format!("/api/proposals/{id}")).json();
    let files = page["diff_files"].as_array().map_or(0, Vec::len);
    assert_eq!(files, 3, "{page}");
    drop(server);

    let apply = repo.evolv(&["apply", &id]);
    apply.ok();
    assert!(
        apply
            .stdout
            .contains(r#"a.txt, "caf\351.txt", "d\377ir/x.txt""#),
        "{}",
        apply.stdout
    );
    assert_eq!(bytes(&repo, LATIN1), b"TOK\n");
    assert_eq!(bytes(&repo, IN_DIR), b"TOK\nmore\n");
    assert_eq!(repo.read("a.txt"), "TOK\n");
    assert_clean(&repo);
    let mut names = names_in_head(&repo);
    names.sort();
    assert_eq!(names, [b"a.txt".to_vec(), LATIN1.to_vec(), IN_DIR.to_vec()]);
    // The audit record keeps the exact names too.
    let log = repo.evolv(&["log", "--json"]);
    let entry = &log.json()["entries"][0];
    assert_eq!(entry["action"], "apply");
    assert_eq!(
        entry["files_bytes"],
        serde_json::json!([null, "636166e92e747874", "64ff69722f782e747874"])
    );

    let list = repo.evolv(&["list", "--json"]);
    let listed = &list.json()["proposals"][0];
    assert_eq!(listed["status"], "applied");
    assert_eq!(listed["affected_files_bytes"][2], "64ff69722f782e747874");
    let rollback = repo.evolv(&["rollback", &id, "--json"]);
    let r = rollback.success().stdout_json();
    assert_eq!(r["modified_files_bytes"][1], "636166e92e747874");
    assert_eq!(bytes(&repo, LATIN1), b"tok\n");
    assert_eq!(bytes(&repo, IN_DIR), b"tok\nmore\n");
    assert_back_at(&repo, &start);
}

// See: issue 16 item 7.
#[test]
fn names_that_are_not_utf8_roll_back_from_the_file_backup() {
    let repo = odd_repo();
    let start = repo.head();
    let id = repo.propose("tok", "TOK", &["--scope", "d*/**"]);
    repo.evolv(&["apply", &id]).ok();
    assert_eq!(bytes(&repo, IN_DIR), b"TOK\nmore\n");
    assert_eq!(bytes(&repo, LATIN1), b"tok\n", "outside the scope");
    let run = repo.evolv(&["rollback", &id, "--strategy", "file_backup"]);
    run.ok();
    assert_human!(repo, "rollback_non_utf8_names", run.transcript());
    assert_eq!(bytes(&repo, IN_DIR), b"tok\nmore\n");
    assert_back_at(&repo, &start);
}

// See: issue 16 items 1 and 7: the dirty check reads such a file too.
#[test]
fn a_local_edit_in_a_file_whose_name_is_not_utf8_is_never_overwritten() {
    let repo = odd_repo();
    let id = repo.propose("tok", "TOK", &[]);
    write(&repo, LATIN1, "tok\nmine\n");
    let run = repo.evolv(&["apply", &id, "--json"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert_eq!(error_code(&run), "dirty_worktree");
    assert!(run.stdout.contains(r#"\"caf\\351.txt\""#), "{}", run.stdout);
    assert_eq!(bytes(&repo, LATIN1), b"tok\nmine\n");
    assert_eq!(bytes(&repo, IN_DIR), b"tok\nmore\n");
    // The same under assume-unchanged, which git's own diff believes.
    repo.git(&["checkout", "--", "."]);
    let name = OsStr::from_bytes(LATIN1).to_owned();
    let mut cmd = crate::common::sealed("git", repo.home());
    cmd.args(["update-index", "--assume-unchanged", "--"])
        .arg(&name)
        .current_dir(repo.path());
    assert!(cmd.status().unwrap().success());
    write(&repo, LATIN1, "tok\nmine again\n");
    let run = repo.evolv(&["apply", &id, "--json"]);
    assert_eq!(error_code(&run), "dirty_worktree", "{}", run.stdout);
    assert_eq!(bytes(&repo, LATIN1), b"tok\nmine again\n");
}

// See: issue 16 item 7: the journal stores such paths losslessly, and a
// landing killed anywhere recovers to H or N, byte for byte.
#[test]
fn a_landing_of_names_that_are_not_utf8_killed_anywhere_recovers() {
    for point in [
        "after-journal",
        "after-early-index",
        "after-cas",
        "after-first-file",
        "after-middle-file",
        "before-index-rename",
        "before-journal-delete",
    ] {
        let repo = odd_repo();
        let h = repo.head();
        let id = repo.propose("tok", "TOK", &[]);
        let run = repo.evolv_env(&["apply", &id], &[("GIT_EVOLV_CRASHPOINT", point)]);
        assert_eq!(run.code, -1, "{point}: not killed: {}", run.stderr);
        let journal = std::fs::read_to_string(repo.path().join(".git/evolv/journal"))
            .unwrap_or_else(|e| panic!("{point}: no journal: {e}"));
        let parsed: serde_json::Value = serde_json::from_str(&journal).unwrap();
        let hex = parsed["changes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["path"]["hex"] == "636166e92e747874");
        assert!(hex, "{point}: {journal}");
        assert_eq!(parsed["version"], 2, "{point}");
        let rec = repo.evolv(&["recover", "--json"]);
        rec.ok();
        assert_eq!(rec.json()["skipped"], serde_json::json!([]), "{point}");
        let landed = repo.head() != h;
        let want: &[u8] = if landed { b"TOK\n" } else { b"tok\n" };
        assert_eq!(bytes(&repo, LATIN1), want, "{point} (landed: {landed})");
        let want: &[u8] = if landed {
            b"TOK\nmore\n"
        } else {
            b"tok\nmore\n"
        };
        assert_eq!(bytes(&repo, IN_DIR), want, "{point} (landed: {landed})");
        assert_eq!(
            landed,
            point != "after-journal" && point != "after-early-index"
        );
        assert_clean(&repo);
        assert!(!repo.path().join(".git/evolv/journal").exists(), "{point}");
        assert!(!repo.path().join(".git/index.lock").exists(), "{point}");
    }
}

// See: issue 16 item 8, still true with bytes: a backslash is part of one
// file name on Linux; it lands, rolls back, and is named as git names it.
#[test]
fn a_backslash_name_lands_rolls_back_and_is_quoted_as_git_quotes_it() {
    let (repo, id) = TestRepo::proposed(
        &[("w\\in.txt", "tok\n"), ("dir/a\\b", "tok\n")],
        "tok",
        "TOK",
    );
    let run = repo.evolv(&["apply", &id]);
    run.ok();
    assert_human!(repo, "apply_backslash_names", run.transcript());
    assert_eq!(repo.read("w\\in.txt"), "TOK\n");
    assert_eq!(repo.read("dir/a\\b"), "TOK\n");
    assert_clean(&repo);
    repo.evolv(&["rollback", &id]).ok();
    assert_eq!(repo.read("w\\in.txt"), "tok\n");
    assert_eq!(repo.read("dir/a\\b"), "tok\n");
    assert_clean(&repo);
}

// See: issue 16 item 7. A validated apply whose branch moved meanwhile
// lands without validating again only if the replay holds what was
// validated in every file the proposal touches; a name compared by its
// lossy form is in neither tree, and so compared equal whatever it held.
#[test]
fn a_replay_that_changes_a_file_whose_name_is_not_utf8_is_validated_again() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    write(&repo, LATIN1, "tok\n1\n2\n3\n4\nend\n");
    repo.commit_all("odd name");
    let id = repo.propose("tok", "TOK", &[]);
    let count = repo.home().join("validations");
    let validate = format!("echo run >> '{}'; sleep 2", count.display());
    let apply = crate::common::sealed(crate::common::BIN, repo.home())
        .args(["apply", &id, "--validate", &validate])
        .current_dir(repo.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = std::time::Instant::now();
    while !count.exists() {
        assert!(t0.elapsed().as_secs() < 60, "the validation never started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // A change to the same file, far from the proposal's line: the replay
    // merges cleanly, and differs from what was validated.
    write(&repo, LATIN1, "tok\n1\n2\n3\n4\nend, edited\n");
    repo.commit_all("edit the odd file");
    let out = apply.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(bytes(&repo, LATIN1), b"TOK\n1\n2\n3\n4\nend, edited\n");
    let runs = std::fs::read_to_string(&count).unwrap();
    assert_eq!(runs.lines().count(), 2, "validated once only: {runs}");
    assert_clean(&repo);
}
