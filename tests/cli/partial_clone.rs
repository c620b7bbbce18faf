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
