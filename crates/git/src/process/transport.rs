//! git's own push and fetch, run as the git command line: the remote's
//! transport (file, git://, http(s), ssh), its credentials, `GIT_SSH_COMMAND`,
//! `url.<base>.insteadOf` and the user's hooks are git's, not ours.
//! Every remote name and ref arrives after `--` or as a checked name, so
//! none is ever read as an option.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::error::{Error, Result};

/// What a git run said.
#[derive(Debug, Clone)]
pub struct GitRun {
    pub success: bool,
    pub stdout: String,
    pub stderr: String,
}

/// `git push --porcelain [-o option]… -- <remote> <refspec>…` in `dir`,
/// with full object ids in the report (`core.abbrev=no`).
pub fn push(dir: &Path, remote: &str, refspecs: &[String], options: &[String]) -> Result<GitRun> {
    let mut args: Vec<&str> = vec!["-c", "core.abbrev=no", "push", "--porcelain"];
    for option in options {
        args.push("-o");
        args.push(option);
    }
    args.push("--");
    args.push(remote);
    args.extend(refspecs.iter().map(String::as_str));
    run_git(dir, &args)
}

/// `git fetch --prune --no-write-fetch-head -- <remote> <refspec>…` in
/// `dir`: the refspecs are given here, never added to
/// `remote.<name>.fetch`, and `--prune` removes only what their
/// destinations hold that the remote no longer has.
pub fn fetch(dir: &Path, remote: &str, refspecs: &[String]) -> Result<GitRun> {
    let mut args: Vec<&str> = vec![
        "fetch",
        "--quiet",
        "--prune",
        "--no-write-fetch-head",
        "--",
        remote,
    ];
    args.extend(refspecs.iter().map(String::as_str));
    run_git(dir, &args)
}

/// The configured remotes (`git remote`).
pub fn remote_names(dir: &Path) -> Result<Vec<String>> {
    let run = run_git(dir, &["remote"])?;
    Ok(run.stdout.lines().map(str::to_string).collect())
}

fn run_git(dir: &Path, args: &[&str]) -> Result<GitRun> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| Error::io("run `git` (is it on PATH?) in", dir, e))?;
    Ok(GitRun {
        success: out.status.success(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    })
}
