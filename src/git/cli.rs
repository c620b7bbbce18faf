//! Running the git CLI itself, where git does a job better than libgit2:
//! checkouts that honour every filter driver and cost what git's cost.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::error::{Error, Result};

/// Git's repository variables. Cleared for every command git-evolv starts
/// in a worktree, so it finds that worktree's repository by its directory,
/// not the caller's.
pub const REPO_VARS: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_PREFIX",
    "GIT_CEILING_DIRECTORIES",
];

/// Runs `git <args>` in `dir` with hooks disabled; a failure carries git's
/// own message.
pub fn run(dir: &Path, args: &[&str]) -> Result<()> {
    let mut cmd = Command::new("git");
    cmd.arg("-c")
        .arg("core.hooksPath=/dev/null")
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    for var in REPO_VARS {
        cmd.env_remove(var);
    }
    let out = cmd
        .output()
        .map_err(|e| Error::io("run `git` (is it on PATH?) in", dir, e))?;
    if out.status.success() {
        return Ok(());
    }
    Err(Error::Git {
        message: format!(
            "`git {}` in {} failed: {}",
            args.join(" "),
            dir.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ),
    })
}
