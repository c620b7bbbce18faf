//! The hook binary (issue #14 item 5): `hooks install` copies the small
//! `git-evolv-hook` into the hooks folder as a real file, so whatever later
//! writes that hook in place writes into the copy and never into an
//! installed binary; the copy lints as the shim did; `status` tells a copy
//! of another build (stale) and the link older versions installed, and
//! `install` refreshes both. Real repositories, the real binaries, real git.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::common::{
    BIN, Run, TestRepo, TestResult, assert_has, assert_has_all, assert_human, error_code, sealed,
};

const HOOK_BIN: &str = env!("CARGO_BIN_EXE_git-evolv-hook");
const VERSION: &str = env!("CARGO_PKG_VERSION");

fn hook_path(repo: &TestRepo, name: &str) -> PathBuf {
    repo.path().join(".git/hooks").join(name)
}

fn commit(repo: &TestRepo, message: &str) -> Run {
    repo.git_run(&["commit", "-q", "--allow-empty", "-m", message])
}

/// The hook is the same file as the built hook binary, and a real file.
#[track_caller]
fn assert_is_copy(path: &Path) {
    let meta = fs::symlink_metadata(path).unwrap();
    assert!(
        meta.file_type().is_file(),
        "{} is a real file, not a link",
        path.display()
    );
    assert_eq!(
        meta.permissions().mode() & 0o777,
        0o755,
        "{}",
        path.display()
    );
    assert!(
        fs::read(path).unwrap() == fs::read(HOOK_BIN).unwrap(),
        "{} is a copy of {HOOK_BIN}",
        path.display()
    );
}

/// `bytes` with `from` replaced by `to` (the same length), once.
fn patched(mut bytes: Vec<u8>, from: &[u8], to: &[u8]) -> Vec<u8> {
    assert_eq!(from.len(), to.len());
    let at = bytes
        .windows(from.len())
        .position(|w| w == from)
        .unwrap_or_else(|| panic!("{} not in the binary", String::from_utf8_lossy(from)));
    bytes[at..at + to.len()].copy_from_slice(to);
    bytes
}

fn write_exec(path: &Path, bytes: &[u8]) {
    let _ = fs::remove_file(path);
    fs::write(path, bytes).unwrap();
    fs::set_permissions(path, fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn hooks_install_copies_the_hook_binary_which_lints_like_before() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let run = repo.evolv(&["hooks", "install", "--json"]);
    run.ok();
    for hook in ["commit-msg", "pre-push"] {
        assert_is_copy(&hook_path(&repo, hook));
        let st = repo.hook_status(hook);
        assert_eq!(
            (st["state"].as_str(), st["runs"].as_bool()),
            (Some("installed"), Some(true)),
            "{st}"
        );
        assert_eq!(st["version"], VERSION, "{st}");
        assert_eq!(st["stale"], false, "{st}");
    }
    // A bad message is refused by the copy, with the advice of before; a
    // good one passes.
    let bad = commit(&repo, "not conventional");
    assert_eq!(bad.code, 1, "{}", bad.stderr);
    assert_has_all(
        &bad.stderr,
        &[
            "commit message rejected",
            "Fix it and retry with:",
            "EVOLV_REJECTED_MSG",
        ],
    );
    commit(&repo, "feat: linted by the copy").ok();
    assert_eq!(
        repo.git(&["log", "-1", "--format=%s"]).trim(),
        "feat: linted by the copy"
    );
    // Idempotent.
    repo.assert_hooks_reinstall_unchanged();
    // Uninstall removes the copies, and only them.
    repo.evolv(&["hooks", "uninstall"]).ok();
    for hook in ["commit-msg", "pre-push"] {
        assert!(fs::symlink_metadata(hook_path(&repo, hook)).is_err());
    }
    assert!(Path::new(HOOK_BIN).is_file() && Path::new(BIN).is_file());
    commit(&repo, "no hook any more").ok();
}

/// The data-loss case of the link layout: anything that writes the hook by
/// opening its path (`cp`, `>`, a hook manager) writes into the copy; the
/// installed binaries stay byte for byte what they were.
#[test]
fn hooks_writing_over_the_installed_hook_never_touches_the_binaries() -> TestResult {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    repo.evolv(&["hooks", "install"]).ok();
    let before = (fs::read(BIN)?, fs::read(HOOK_BIN)?);
    let other = repo.home().join("other-script");
    write_exec(&other, b"#!/bin/sh\necho other >> .git/other.log\n");

    let cp = sealed("cp", repo.home())
        .arg(&other)
        .arg(hook_path(&repo, "commit-msg"))
        .current_dir(repo.path())
        .output()?;
    assert!(cp.status.success(), "{cp:?}");
    // And by shell redirection, which opens the path for writing.
    let sh = sealed("sh", repo.home())
        .args(["-c", "printf '#!/bin/sh\\nexit 0\\n' > .git/hooks/pre-push"])
        .current_dir(repo.path())
        .output()?;
    assert!(sh.status.success(), "{sh:?}");

    assert!(fs::read(BIN)? == before.0, "git-evolv is unchanged");
    assert!(
        fs::read(HOOK_BIN)? == before.1,
        "git-evolv-hook is unchanged"
    );
    assert_eq!(fs::read(hook_path(&repo, "commit-msg"))?, fs::read(&other)?);
    // The other script is the hook now, and runs; git-evolv's does not.
    commit(&repo, "not conventional, not checked").ok();
    assert_eq!(repo.read(".git/other.log"), "other\n");
    assert_eq!(repo.hook_status("commit-msg")["state"], "foreign");
    // `install` chains it, and both run.
    repo.evolv(&["hooks", "install"]).ok();
    assert_eq!(repo.hook_status("commit-msg")["state"], "chained");
    let bad = commit(&repo, "not conventional");
    assert_eq!(bad.code, 1, "{}", bad.stderr);
    assert_eq!(repo.read(".git/other.log"), "other\nother\n");
    Ok(())
}

/// A copy of another build (an upgrade since it was installed) is stale,
/// whether the version it carries differs or only its bytes; `install`
/// refreshes it.
#[test]
fn hooks_status_reports_a_stale_copy_and_install_refreshes_it() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    repo.evolv(&["hooks", "install"]).ok();
    let hook = hook_path(&repo, "commit-msg");
    let older = "9".repeat(VERSION.len());
    let old = patched(
        fs::read(HOOK_BIN).unwrap(),
        format!("embedded version={VERSION}\0").as_bytes(),
        format!("embedded version={older}\0").as_bytes(),
    );
    write_exec(&hook, &old);

    let st = repo.hook_status("commit-msg");
    assert_eq!(st["state"], "installed", "{st}");
    assert_eq!(st["runs"], true, "{st}");
    assert_eq!(st["version"], older, "{st}");
    assert_eq!(st["stale"], true, "{st}");
    assert!(
        st["notes"].to_string().contains("git evolv hooks install"),
        "{st}"
    );
    assert_eq!(repo.hook_status("pre-push")["stale"], false);
    let human = repo.evolv(&["hooks", "status"]);
    assert_human!(repo, "hooks_status_stale_copy", human.transcript());
    // The stale copy still lints.
    assert_eq!(commit(&repo, "not conventional").code, 1);

    assert_eq!(repo.hook_changes("install"), ["updated", "unchanged"]);
    assert_is_copy(&hook);
    assert_eq!(repo.hook_status("commit-msg")["stale"], false);

    // The same version, another build: stale too.
    let mut other_build = fs::read(HOOK_BIN).unwrap();
    other_build.extend_from_slice(b"another build");
    write_exec(&hook, &other_build);
    let st = repo.hook_status("commit-msg");
    assert_eq!(
        (st["version"].as_str(), st["stale"].as_bool()),
        (Some(VERSION), Some(true)),
        "{st}"
    );
    repo.evolv(&["hooks", "install"]).ok();
    assert_is_copy(&hook);
}

/// Older versions linked `git-evolv` itself as the hook: it keeps working,
/// `status` says it is stale and why, and `install` replaces the link by
/// a copy (the binary it pointed to is left alone). A link whose binary
/// moved away is reported as not running.
#[test]
fn hooks_install_migrates_the_link_layout_of_older_versions() -> TestResult {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let before = fs::read(BIN)?;
    for hook in ["commit-msg", "pre-push"] {
        std::os::unix::fs::symlink(BIN, hook_path(&repo, hook))?;
    }
    let st = repo.hook_status("commit-msg");
    assert_eq!(
        (
            st["state"].as_str(),
            st["runs"].as_bool(),
            st["stale"].as_bool()
        ),
        (Some("installed"), Some(true), Some(true)),
        "{st}"
    );
    assert_eq!(st["binary"], BIN, "{st}");
    assert!(
        st["notes"].to_string().contains("a link to git-evolv"),
        "{st}"
    );
    // The link still lints (git-evolv dispatches on the hook's name).
    let bad = commit(&repo, "not conventional");
    assert_eq!(bad.code, 1, "{}", bad.stderr);
    assert_has(&bad.stderr, "commit message rejected");

    assert_eq!(repo.hook_changes("install"), ["updated", "updated"]);
    for hook in ["commit-msg", "pre-push"] {
        assert_is_copy(&hook_path(&repo, hook));
        assert_eq!(repo.hook_status(hook)["stale"], false);
    }
    assert!(fs::read(BIN)? == before, "the linked binary is untouched");
    commit(&repo, "feat: after the migration").ok();

    // A dangling link (the binary moved): git skips it without a word, so
    // status says it does not run; install puts a copy in its place.
    let hook = hook_path(&repo, "commit-msg");
    fs::remove_file(&hook)?;
    std::os::unix::fs::symlink("/nonexistent/bin/git-evolv", &hook)?;
    let st = repo.hook_status("commit-msg");
    assert_eq!(
        (st["state"].as_str(), st["runs"].as_bool()),
        (Some("installed"), Some(false)),
        "{st}"
    );
    assert_eq!(st["binary"], "/nonexistent/bin/git-evolv", "{st}");
    repo.evolv(&["hooks", "install"]).ok();
    assert_is_copy(&hook);
    Ok(())
}

/// Without `git-evolv-hook` beside `git-evolv`, install says which file is
/// missing and how to get it, and writes nothing.
#[test]
fn hooks_install_without_the_hook_binary_names_it_and_the_fix() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let dir = tempfile::tempdir().unwrap();
    let lone = dir.path().join("git-evolv");
    if fs::hard_link(BIN, &lone).is_err() {
        fs::copy(BIN, &lone).unwrap();
    }
    let mut cmd = sealed(lone.to_str().unwrap(), repo.home());
    cmd.args(["--json", "hooks", "install"])
        .current_dir(repo.path());
    let run = Run::from(cmd.output().unwrap());
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert_eq!(error_code(&run), "io_error");
    let error = &run.json()["error"];
    let missing = dir.path().join("git-evolv-hook");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains(missing.to_str().unwrap()),
        "{error}"
    );
    assert!(
        error["hint"].as_str().unwrap().contains("cargo install"),
        "{error}"
    );
    for hook in ["commit-msg", "pre-push"] {
        assert!(
            fs::symlink_metadata(hook_path(&repo, hook)).is_err(),
            "{hook}"
        );
    }
}

/// The hook binary by hand: `git-evolv-hook commit-msg FILE` lints,
/// `--version` names it, anything else is a usage error.
#[test]
fn hooks_the_hook_binary_runs_by_hand() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    repo.write("msg", "not conventional\n");
    let by_hand = |args: &[&str]| {
        let mut cmd = sealed(HOOK_BIN, repo.home());
        cmd.args(args).current_dir(repo.path());
        Run::from(cmd.output().unwrap()).named(format!("git-evolv-hook {}", args.join(" ")))
    };
    let bad = by_hand(&["commit-msg", "msg"]);
    assert_eq!(bad.code, 1, "{}", bad.stderr);
    assert_human!(repo, "hook_binary_rejects_by_hand", bad.transcript());
    repo.write("msg", "fix: by hand\n");
    by_hand(&["commit-msg", "msg"]).ok();
    let v = by_hand(&["--version"]);
    v.ok();
    assert_eq!(v.stdout, format!("git-evolv-hook {VERSION}\n"));
    let usage = by_hand(&["lint"]);
    assert_eq!(usage.code, 2, "{}", usage.stderr);
    assert_human!(repo, "hook_binary_usage", usage.transcript());
}

/// pre-commit and lefthook call a hook file their own when it holds their
/// fingerprint (and then write their script into it in place): neither
/// binary may hold one.
#[test]
fn hooks_the_binaries_carry_no_hook_managers_fingerprint() -> TestResult {
    // One pass per binary (git-evolv is ~170 MB in a debug build).
    let marks = regex::bytes::Regex::new(
        "LEFTHOOK|138fd403232d2ddd5efb44317e38bf03|4d9958c90bc262f47553e2c073f14cfe\
         |d8ee923c46731b42cd95cc869add4062|49fd668cb42069aa1b6048464be5d395\
         |79f09a650522a87b0da915d0d983b2de|e358c9dae00eac5d06b38dfdb1e33a8c",
    )?;
    for bin in [HOOK_BIN, BIN] {
        let bytes = fs::read(bin)?;
        if let Some(m) = marks.find(&bytes) {
            panic!("{} is in {bin}", String::from_utf8_lossy(m.as_bytes()));
        }
    }
    // git-evolv itself does not carry the hook binary's identification
    // (a copy of it in a hooks folder is not taken for the hook binary).
    let id = regex::bytes::Regex::new("git-evolv-hook embedded version=")?;
    assert!(!id.is_match(&fs::read(BIN)?));
    assert!(id.is_match(&fs::read(HOOK_BIN)?));
    Ok(())
}
