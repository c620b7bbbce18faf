//! Partial clones (`git clone --filter=blob:none`, served over `file://`
//! with `uploadpack.allowFilter`): git-evolv reads what it needs through
//! the promisor remote, as git does, and requires no blob a tree operation
//! does not read (issue 25 item 14).

use crate::common::{Run, TestRepo, error_code, sealed};

/// A blobless clone of `origin` named `name` beside it (with `extra`
/// options of `git clone`), with an identity to commit as.
fn clone_of(origin: &TestRepo, name: &str, extra: &[&str]) -> std::path::PathBuf {
    origin.git(&["config", "uploadpack.allowFilter", "true"]);
    origin.git(&["config", "uploadpack.allowAnySHA1InWant", "true"]);
    let clone = origin.home().join(name);
    let url = format!("file://{}", origin.path().display());
    let mut cmd = sealed("git", origin.home());
    cmd.args(["clone", "-q", "--filter=blob:none"])
        .args(extra)
        .arg(&url)
        .arg(&clone)
        .current_dir(origin.home());
    Run::of(cmd).ok();
    for (key, value) in [("user.name", "T"), ("user.email", "t@e.x")] {
        in_clone(origin, &clone, "git", &["config", key, value]).ok();
    }
    clone
}

/// A blobless clone of `origin`, checked out at its HEAD (so HEAD's blobs
/// are here and older ones are not).
fn blobless_clone(origin: &TestRepo) -> std::path::PathBuf {
    clone_of(origin, "clone", &[])
}

fn in_clone(origin: &TestRepo, clone: &std::path::Path, program: &str, args: &[&str]) -> Run {
    let mut cmd = sealed(program, origin.home());
    cmd.args(args).current_dir(clone);
    Run::of(cmd)
}

fn missing_objects(origin: &TestRepo, clone: &std::path::Path) -> usize {
    let run = in_clone(
        origin,
        clone,
        "git",
        &["rev-list", "--objects", "--all", "--missing=print"],
    );
    run.ok();
    run.stdout.lines().filter(|l| l.starts_with('?')).count()
}

#[test]
fn a_stale_proposal_replays_and_lands_in_a_blobless_clone() {
    let origin = TestRepo::with_files(&[("a.txt", "one\n"), ("lib/b.txt", "getUserData\n")]);
    // The proposal's base holds an `a.txt` the clone will not have.
    let base_a = origin.git(&["rev-parse", "HEAD:a.txt"]);
    let propose = origin.evolv(&[
        "propose",
        "--json",
        "--pattern",
        "getUserData",
        "--replacement",
        "fetchUserData",
    ]);
    propose.ok();
    let id = propose.json_str("/patch_id");
    origin.write("a.txt", "two\n");
    origin.commit_all("the branch moves");
    let clone = blobless_clone(&origin);
    in_clone(
        &origin,
        &clone,
        "git",
        &[
            "fetch",
            "-q",
            "--filter=blob:none",
            "origin",
            "+refs/evolv/*:refs/evolv/*",
        ],
    )
    .ok();
    assert!(
        missing_objects(&origin, &clone) > 0,
        "the clone lacks blobs"
    );
    let listed = in_clone(
        &origin,
        &clone,
        "git",
        &["rev-list", "--objects", "--all", "--missing=print"],
    );
    assert!(
        listed.stdout.contains(&format!("?{}", base_a.trim())),
        "the base's a.txt is absent"
    );

    let bin = crate::common::BIN;
    let applied = in_clone(&origin, &clone, bin, &["apply", "--json", &id]);
    applied.ok();
    assert_eq!(
        std::fs::read_to_string(clone.join("lib/b.txt")).expect("landed"),
        "fetchUserData\n"
    );
    assert_eq!(
        in_clone(&origin, &clone, "git", &["status", "--porcelain"]).stdout,
        ""
    );
    in_clone(&origin, &clone, "git", &["fsck", "--no-progress"]).ok();
}

/// `git evolv propose --json` of `getUserData` → `replacement` in `clone`.
fn propose_in(origin: &TestRepo, clone: &std::path::Path, replacement: &str) -> Run {
    let args = [
        "propose",
        "--json",
        "--pattern",
        "getUserData",
        "--replacement",
        replacement,
    ];
    in_clone(origin, clone, crate::common::BIN, &args)
}

#[test]
fn a_propose_reads_missing_blobs_through_the_promisor_remote() {
    let origin = TestRepo::with_files(&[("a.txt", "one\n"), ("lib/b.txt", "getUserData\n")]);
    // HEAD's own blobs absent: a blobless clone without a checkout.
    let bare = clone_of(&origin, "bare", &["--no-checkout"]);
    assert!(missing_objects(&origin, &bare) >= 2);
    let proposed = propose_in(&origin, &bare, "fetchUserData");
    proposed.ok();
    let matched = &proposed.json()["statistics"]["files_matched"];
    assert_eq!(matched, 1, "{}", proposed.stdout);

    // With the remote gone, a blob that cannot be had is `partial_clone`.
    let offline = clone_of(&origin, "offline", &["--no-checkout"]);
    let unreachable = ["remote", "set-url", "origin", "file:///nonexistent/repo"];
    in_clone(&origin, &offline, "git", &unreachable).ok();
    let failed = propose_in(&origin, &offline, "x");
    assert_eq!(error_code(&failed), "partial_clone");
    let hint = failed.json_str("/error/hint");
    assert!(hint.contains("origin"), "{hint}");
}

// Issue 38 item 22: an exact edit of a file outside the sparse checkout of
// a blobless clone failed with "read blob …: object not found"; git reads
// the same file through its lazy fetch, and so does git-evolv now.
#[test]
fn an_exact_edit_outside_the_sparse_checkout_reads_the_blob_from_the_promisor() {
    let origin = TestRepo::with_files(&[("lib/b.txt", "b\n"), ("out/c.txt", "keep\n")]);
    let clone = clone_of(&origin, "sparse", &["--sparse"]);
    in_clone(&origin, &clone, "git", &["sparse-checkout", "set", "lib"]).ok();
    let c = origin.git(&["rev-parse", "HEAD:out/c.txt"]);
    let listed = in_clone(
        &origin,
        &clone,
        "git",
        &["rev-list", "--objects", "--all", "--missing=print"],
    );
    assert!(
        listed.stdout.contains(&format!("?{}", c.trim())),
        "out/c.txt's blob is absent"
    );
    let args = [
        "propose",
        "--json",
        "--file",
        "out/c.txt",
        "--old",
        "keep",
        "--new",
        "kept",
    ];
    let proposed = in_clone(&origin, &clone, crate::common::BIN, &args);
    assert_eq!(proposed.code, 0, "{}", proposed.stdout);
    let id = proposed.json_str("/patch_id");
    let spec = format!("refs/evolv/proposals/{id}:out/c.txt");
    let shown = in_clone(&origin, &clone, "git", &["cat-file", "blob", &spec]);
    assert_eq!(shown.ok().stdout, "kept\n");
    in_clone(&origin, &clone, "git", &["fsck", "--no-progress"]).ok();
}

// Issue 38 item 22: replaying a stale proposal in a repository that lacks
// a blob neither side changed failed inside libgit2 ("failed to insert
// entry: invalid object specified") where `git merge-tree --write-tree`
// merges cleanly: the merge writes trees without requiring objects it
// never reads, as git's does.
#[test]
fn a_stale_proposal_replays_where_a_blob_neither_side_changed_is_absent() {
    let repo = TestRepo::with_files(&[
        ("a.txt", "one\n"),
        ("lib/b.txt", "getUserData\n"),
        ("out/c.txt", "keep\n"),
    ]);
    let id = repo.propose("getUserData", "fetchUserData", &[]);
    repo.write("a.txt", "two\n");
    repo.commit_all("the branch moves");
    // The blob of out/c.txt, which neither side changes, goes.
    let c = repo.git(&["rev-parse", "HEAD:out/c.txt"]);
    let c = c.trim();
    std::fs::remove_file(repo.file(&format!(".git/objects/{}/{}", &c[..2], &c[2..]))).unwrap();
    assert_ne!(
        repo.git_run(&["cat-file", "-e", c]).code,
        0,
        "the blob is absent"
    );
    let proposal = format!("refs/evolv/proposals/{id}");
    let merged = repo.git_run(&["merge-tree", "--write-tree", "HEAD", &proposal]);
    assert_eq!(merged.code, 0, "git merges it: {}", merged.stderr);
    let expected = merged.stdout.trim().to_string();
    let applied = repo.evolv(&["apply", "--json", &id]);
    assert_eq!(applied.code, 0, "{}", applied.stdout);
    assert_eq!(repo.read("lib/b.txt"), "fetchUserData\n");
    assert_eq!(repo.git(&["rev-parse", "HEAD^{tree}"]).trim(), expected);
    assert_eq!(
        repo.git(&["status", "--porcelain", "--", "lib", "a.txt"]),
        ""
    );
}
