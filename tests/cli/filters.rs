//! Filters and attributes, with git as the oracle: two clones of one
//! repository, configured alike; git-evolv lands a patch in one, git
//! fast-forwards the other to the very same commit, and every file must be
//! byte-identical in the two working trees, with `git status` clean in both.

use std::path::{Path, PathBuf};

use crate::common::{Error, Run, TestRepo, TestResult, sealed};
use crate::crash_scenario::crash_bin;

/// `git-evolv -C dir args`, run from `origin`.
fn evolv_in(origin: &TestRepo, dir: &Path, args: &[&str]) -> Run {
    origin.evolv(&[&["-C", dir.to_str().unwrap()], args].concat())
}

/// Proposes `old` → `new` in `dir`, filtered files included, and lands
/// it: the patch id and the apply's run.
fn land_filtered(origin: &TestRepo, dir: &Path) -> (String, Run) {
    let run = evolv_in(
        origin,
        dir,
        &[
            "propose",
            "--json",
            "-p",
            "old",
            "-r",
            "new",
            "--include-filtered",
        ],
    );
    run.ok();
    let id = run.json_str("/patch_id");
    let run = evolv_in(origin, dir, &["apply", "--json", &id]);
    run.ok();
    (id, run)
}

/// Every regular file under `dir` (`.git` left out), path → bytes.
fn try_snapshot(dir: &Path) -> Result<Vec<(String, Vec<u8>)>, Error> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d)? {
            let entry = entry?;
            let path = entry.path();
            if entry.file_name() == ".git" {
                continue;
            }
            if entry.file_type()?.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(dir)?.display().to_string();
                out.push((rel, std::fs::read(&path)?));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// The same as [`try_snapshot`]; panics when a file cannot be read.
#[track_caller]
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    try_snapshot(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
}

/// Configures a clone the way both twins are configured.
/// git run with `-C dir`.
fn git_at(origin: &TestRepo, dir: &Path, args: &[&str]) -> String {
    let mut all = vec!["-C", dir.to_str().unwrap()];
    all.extend_from_slice(args);
    origin.git(&all)
}

/// `theirs` fast-forwarded by git itself to `landed`, the commit
/// git-evolv landed in `ours`, holds the same files, and both are clean.
#[track_caller]
fn assert_git_writes_the_same(origin: &TestRepo, ours: &Path, theirs: &Path, landed: &str) {
    let git_in = |dir: &Path, args: &[&str]| git_at(origin, dir, args);
    git_in(theirs, &["fetch", "-q", ours.to_str().unwrap(), landed]);
    git_in(theirs, &["merge", "-q", "--ff-only", landed]);
    assert_eq!(
        snapshot(ours),
        snapshot(theirs),
        "git-evolv wrote what git writes"
    );
    for dir in [ours, theirs] {
        assert_eq!(git_in(dir, &["status", "--porcelain"]), "", "{dir:?}");
    }
}

fn configure(repo: &TestRepo, dir: &Path) {
    for (key, value) in [
        ("core.autocrlf", "true"),
        ("filter.upper.smudge", "tr a-z A-Z"),
        ("filter.upper.clean", "tr A-Z a-z"),
        ("filter.upper.required", "true"),
        ("user.name", "Test User"),
        ("user.email", "test@example.com"),
    ] {
        repo.git(&["-C", dir.to_str().unwrap(), "config", key, value]);
    }
}

/// Two clones of `origin` (`evolv` and `git` in its home), configured
/// alike (and with `config`), each of `files` checked out again under
/// that configuration, as in a user's clone.
fn twin_clones(origin: &TestRepo, files: &[&str], config: &[(&str, &str)]) -> Vec<PathBuf> {
    ["evolv", "git"]
        .iter()
        .map(|name| {
            let dir = origin.home().join(name);
            origin.git(&["clone", "-q", ".", dir.to_str().unwrap()]);
            configure(origin, &dir);
            for (key, value) in config {
                origin.git(&["-C", dir.to_str().unwrap(), "config", key, value]);
            }
            for f in files {
                std::fs::remove_file(dir.join(f)).unwrap();
            }
            origin.git(&["-C", dir.to_str().unwrap(), "checkout", "--", "."]);
            dir
        })
        .collect()
}

#[test]
fn landed_files_are_byte_identical_to_what_git_checks_out() -> TestResult {
    let origin = TestRepo::with_files(&[
        (
            ".gitattributes",
            "*.id ident\n*.dat filter=upper\n*.bat eol=crlf\n*.bin -text\n",
        ),
        ("plain.txt", "old line\nkeep\n"),
        ("stamp.id", "$Id$\nold\n"),
        ("shout.dat", "old words\n"),
        ("run.bat", "echo old\nexit\n"),
        ("raw.bin", "old\nbytes\n"),
    ]);
    let files = ["plain.txt", "stamp.id", "shout.dat", "run.bat", "raw.bin"];
    let twins = twin_clones(&origin, &files, &[]);
    let (ours, theirs) = (&twins[0], &twins[1]);
    assert_eq!(
        try_snapshot(ours)?,
        try_snapshot(theirs)?,
        "the twins start alike"
    );
    let plain = std::fs::read(ours.join("plain.txt"))?;
    assert!(
        plain.windows(2).any(|w| w == b"\r\n"),
        "autocrlf is in effect"
    );

    let evolv = |args: &[&str]| evolv_in(&origin, ours, args);
    // A filter driver and -text are skipped by default (#16 item 3); this
    // test is about landing them as git would, so it opts in.
    let run = evolv(&["propose", "--json", "-p", "old", "-r", "new"]);
    assert_eq!(run.json()["statistics"]["filtered_skipped"], 2);
    let (id, run) = land_filtered(&origin, ours);
    let landed = run.try_json_str("/commit")?;
    assert_eq!(
        run.json()["modified_files"].as_array().map(Vec::len),
        Some(5)
    );

    assert_git_writes_the_same(&origin, ours, theirs, &landed);
    let git_in = |dir: &Path, args: &[&str]| git_at(&origin, dir, args);
    let stamp = std::fs::read_to_string(ours.join("stamp.id"))?;
    assert!(stamp.starts_with("$Id: "), "ident expanded: {stamp}");
    let shout = std::fs::read(ours.join("shout.dat"))?;
    assert_eq!(shout, b"NEW WORDS\r\n", "smudged, then CRLF");
    assert_eq!(std::fs::read(ours.join("raw.bin"))?, b"new\nbytes\n");

    // A rollback restores what git would check out, too.
    evolv(&["rollback", "--json", &id]).ok();
    let reverted = git_in(ours, &["rev-parse", "HEAD"]);
    git_in(
        theirs,
        &["fetch", "-q", ours.to_str().unwrap(), reverted.trim()],
    );
    git_in(theirs, &["merge", "-q", "--ff-only", reverted.trim()]);
    assert_eq!(try_snapshot(ours)?, try_snapshot(theirs)?);
    assert_eq!(git_in(ours, &["status", "--porcelain"]), "");
    Ok(())
}

/// Whether git-lfs is installed (`.ci/run` installs it on Debian).
fn have_git_lfs(repo: &TestRepo) -> bool {
    repo.git_run(&["lfs", "version"]).code == 0
}

// Reported as ignored, never as passed, where git-lfs may be missing; CI
// (`.ci/run`) installs git-lfs and runs it with `--ignored`, and there a
// missing git-lfs fails it.
#[test]
#[ignore = "needs git-lfs: cargo test --locked --test cli -- --ignored lfs"]
fn lfs_files_land_and_validate_as_real_content_not_pointers() {
    let repo = TestRepo::empty();
    assert!(
        have_git_lfs(&repo),
        "git-lfs is not installed: install it (apt-get install git-lfs) to run this test"
    );
    repo.git(&["lfs", "install", "--local"]);
    repo.git(&["lfs", "track", "*.big"]);
    repo.write("data.big", "old payload\n");
    repo.write("code.txt", "old code\n");
    repo.commit_all("lfs content");
    let blob = repo.git(&["cat-file", "-p", "HEAD:data.big"]);
    assert!(
        blob.starts_with("version https://git-lfs"),
        "stored as a pointer: {blob}"
    );
    // The edit runs on the code; validation must see the real LFS content.
    let id = repo.propose("old code", "new code", &[]);
    for fresh in [false, true] {
        let mut args = vec!["apply", "--json", "--dry-run", &id, "--validate"];
        args.push("grep -qx 'old payload' data.big");
        if fresh {
            args.push("--fresh-worktree");
        }
        repo.evolv(&args).ok();
    }
    repo.evolv(&["apply", "--json", &id]).ok();
    repo.assert_clean_with(&[("data.big", "old payload\n"), ("code.txt", "new code\n")]);
}

/// Twin clones where a proposal (`lf` → `crlf` everywhere) changes
/// `.gitattributes` itself: N asks for CRLF in `*.txt`, and `+first.txt`
/// sorts before `.gitattributes`. Returns the origin (home of both), the
/// clone git-evolv lands in with the proposal's id, and git's clone.
fn attribute_twins() -> (TestRepo, PathBuf, PathBuf, String) {
    let origin = TestRepo::with_files(&[
        (".gitattributes", "*.txt eol=lf\n"),
        ("+first.txt", "lf line\nkeep\n"),
        ("plain.txt", "lf line\n"),
        ("z/last.txt", "lf line\n"),
    ]);
    let mut twins = ["evolv", "git"].iter().map(|name| {
        let dir = origin.home().join(name);
        origin.git(&["clone", "-q", ".", dir.to_str().unwrap()]);
        configure(&origin, &dir);
        dir
    });
    let (ours, theirs) = (twins.next().unwrap(), twins.next().unwrap());
    let ours_s = ours.to_str().unwrap();
    let run = origin.evolv(&["-C", ours_s, "propose", "--json", "-p", "lf", "-r", "crlf"]);
    run.ok();
    let id = run.json()["patch_id"].as_str().unwrap().to_string();
    (origin, ours, theirs, id)
}

/// Fast-forwards git's twin to `commit` and checks both twins alike.
fn assert_twins_alike(origin: &TestRepo, ours: &Path, theirs: &Path, commit: &str) {
    let (ours_s, theirs_s) = (ours.to_str().unwrap(), theirs.to_str().unwrap());
    origin.git(&["-C", theirs_s, "fetch", "-q", ours_s, commit]);
    origin.git(&["-C", theirs_s, "merge", "-q", "--ff-only", commit]);
    assert_eq!(
        std::fs::read(theirs.join("+first.txt")).unwrap(),
        b"crlf line\r\nkeep\r\n",
        "git writes CRLF under N's attributes"
    );
    assert_eq!(
        snapshot(ours),
        snapshot(theirs),
        "git-evolv wrote what git writes"
    );
    for dir in [ours_s, theirs_s] {
        assert_eq!(
            origin.git(&["-C", dir, "status", "--porcelain"]),
            "",
            "{dir}"
        );
    }
}

#[test]
fn attributes_the_landing_itself_changes_apply_to_the_files_it_lands() {
    let (origin, ours, theirs, id) = attribute_twins();
    let run = origin.evolv(&["-C", ours.to_str().unwrap(), "apply", "--json", &id]);
    run.ok();
    let landed = run.json()["commit"].as_str().unwrap().to_string();
    assert_twins_alike(&origin, &ours, &theirs, &landed);
}

#[test]
fn a_landing_killed_after_changing_gitattributes_is_completed_as_git_would() {
    // Killed right after the first file, N's .gitattributes: the files
    // still holding H's bytes are recognised as H's under N's attributes,
    // not mistaken for the user's edits.
    let (origin, ours, theirs, id) = attribute_twins();
    let crash = |args: &[&str], point: Option<&str>| {
        let mut cmd = sealed(crash_bin().to_str().unwrap(), origin.home());
        cmd.args(args).current_dir(&ours);
        if let Some(p) = point {
            cmd.env("GIT_EVOLV_CRASHPOINT", p);
        }
        Run::from(cmd.output().unwrap())
    };
    assert_eq!(crash(&["apply", &id], Some("after-first-file")).code, -1);
    let rec = crash(&["recover", "--json"], None);
    rec.ok();
    assert_eq!(rec.json()["action"], "rolled_forward", "{}", rec.stdout);
    assert_eq!(
        rec.json()["skipped"],
        serde_json::json!([]),
        "{}",
        rec.stdout
    );
    let landed = origin.git(&["-C", ours.to_str().unwrap(), "rev-parse", "HEAD"]);
    assert_twins_alike(&origin, &ours, &theirs, landed.trim());
}

/// A codemod of many files under attributes (issue 14 item 1): the
/// landing reads every path's attributes in one `git check-attr` pass and
/// writes the files from several threads (`checkout.workers`), and still
/// writes exactly what git's fast-forward writes, byte for byte.
#[test]
fn a_many_file_landing_under_attributes_writes_what_git_writes() -> TestResult {
    let exts = ["txt", "id", "dat", "bat"];
    let files: Vec<(String, String)> = (0..160)
        .map(|i| {
            let ext = exts[i % exts.len()];
            // `$Id$` only where `ident` is set: the upper filter's clean
            // side would lower-case it.
            let id = if ext == "id" { "$Id$\n" } else { "" };
            (
                format!("d{}/f{i}.{ext}", i % 5),
                format!("{id}old {i}\nkeep\n"),
            )
        })
        .collect();
    let mut all: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    all.push((
        ".gitattributes",
        "*.id ident\n*.dat filter=upper\n*.bat eol=crlf\n",
    ));
    let origin = TestRepo::with_files(&all);
    let paths: Vec<&str> = files.iter().map(|(p, _)| p.as_str()).collect();
    let twins = twin_clones(&origin, &paths, &[("checkout.workers", "4")]);
    let (ours, theirs) = (&twins[0], &twins[1]);
    assert_eq!(
        try_snapshot(ours)?,
        try_snapshot(theirs)?,
        "the twins start alike"
    );
    let (_, run) = land_filtered(&origin, ours);
    assert_eq!(
        run.json()["modified_files"].as_array().map(Vec::len),
        Some(160)
    );
    let landed = run.try_json_str("/commit")?;
    assert_git_writes_the_same(&origin, ours, theirs, &landed);
    let leftovers: Vec<_> = try_snapshot(ours)?
        .into_iter()
        .filter(|(p, _)| p.contains(".evolv-"))
        .map(|(p, _)| p)
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    Ok(())
}
