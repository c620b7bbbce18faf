//! The few things read through the git command line because libgit2 does
//! not see them: configuration given with `git -c` (GIT_CONFIG_PARAMETERS,
//! GIT_CONFIG_COUNT), which is how `git -c evolv.pushToProtected=allow push`
//! reaches a hook, and where a setting came from (`--show-origin`).

use std::path::Path;
use std::process::{Command, Stdio};

use git2::Repository;

/// Every value of `key`, as git itself resolves it (command-line, worktree,
/// local, global, system); `None` when git cannot be run, in which case the
/// caller falls back to libgit2.
pub fn config_values(dir: &Path, key: &str) -> Option<Vec<String>> {
    let out = Command::new("git")
        .args(["config", "--get-all", key])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    match out.status.code() {
        Some(0) => Some(
            String::from_utf8_lossy(&out.stdout)
                .lines()
                .map(str::to_string)
                .collect(),
        ),
        // 1: the key is not set.
        Some(1) => Some(Vec::new()),
        _ => None,
    }
}

/// `key`'s values with libgit2 (no `git -c`), the fallback of `config_values`.
pub fn config_values_git2(repo: &Repository, key: &str) -> Vec<String> {
    let Ok(config) = repo.config() else {
        return Vec::new();
    };
    let mut values = Vec::new();
    if let Ok(mut entries) = config.multivar(key, None) {
        while let Some(Ok(entry)) = entries.next() {
            if let Some(v) = entry.value() {
                values.push(v.to_string());
            }
        }
    }
    values
}

/// `scope origin value` lines of `git config --show-origin
/// --show-scope --get-all key`, e.g. `local file:.git/config .githooks` (tab-separated).
pub fn config_origin(dir: &Path, key: &str) -> Option<String> {
    let out = Command::new("git")
        .args(["config", "--show-origin", "--show-scope", "--get-all", key])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (out.status.success() && !text.is_empty()).then_some(text)
}
