//! Proposals that travel: `push` sends them to a server's landing queue
//! (`refs/for/<branch>`, landed by its `proc-receive` hook), `fetch`
//! brings the server's `refs/evolv/*` home under
//! `refs/evolv/remotes/<remote>/`, and `status` reads what came of a
//! proposal there. All three go through git's own push and fetch, so every
//! transport, credential helper and `GIT_SSH_COMMAND` git knows works.

pub mod fetch;
pub mod push;
pub mod status;

use crate::error::{Error, Result};
use crate::git::{self, Repo};

/// Where a remote's fetched refs live: `refs/evolv/remotes/<remote>/`.
pub fn remote_prefix(remote: &str) -> String {
    format!("{}{remote}/", crate::store::REMOTES_PREFIX)
}

/// The remote a request names, else the current branch's upstream remote
/// (`branch.<b>.remote`), else `origin`. It must be a configured remote:
/// its fetched refs are kept under its name.
pub(crate) fn resolve_remote(repo: &Repo, named: Option<&str>) -> Result<String> {
    let remote = match named {
        Some(name) => name.to_string(),
        None => upstream_remote(repo)?.unwrap_or_else(|| "origin".to_string()),
    };
    let known = git::process::transport::remote_names(repo_dir(repo)?)?;
    if !valid_remote_name(&remote) || !known.contains(&remote) {
        let listed = if known.is_empty() {
            "none is configured".to_string()
        } else {
            format!("the configured ones are {}", known.join(", "))
        };
        return Err(Error::invalid_field(
            "remote",
            format!("`{remote}` is not a configured remote ({listed})"),
            "name a remote of `git remote`, or add one: `git remote add <name> <url>`",
        ));
    }
    Ok(remote)
}

/// The branch a push lands on when the request names none: the current
/// branch's upstream branch on that remote, else the current branch.
pub(crate) fn resolve_branch(repo: &Repo, named: Option<&str>) -> Result<String> {
    if let Some(branch) = named {
        let branch = branch.strip_prefix("refs/heads/").unwrap_or(branch);
        if !valid_branch_name(branch) {
            return Err(Error::invalid_field(
                "to",
                format!("`{branch}` is not a branch name git accepts"),
                "name a branch such as `main` (no spaces, `..`, `~^:?*[\\`, leading `-`)",
            ));
        }
        return Ok(branch.to_string());
    }
    let head = repo.head_branch().ok_or_else(|| {
        Error::invalid_field(
            "to",
            "HEAD is detached, so there is no branch to land on by default",
            "name the branch to land on",
        )
    })?;
    let short = head
        .strip_prefix("refs/heads/")
        .unwrap_or(&head)
        .to_string();
    let config = repo.config()?;
    let merge = config.string(&format!("branch.{short}.merge"));
    Ok(merge
        .and_then(|m| m.strip_prefix("refs/heads/"))
        .map(str::to_string)
        .unwrap_or(short))
}

fn upstream_remote(repo: &Repo) -> Result<Option<String>> {
    let Some(head) = repo.head_branch() else {
        return Ok(None);
    };
    let short = head.strip_prefix("refs/heads/").unwrap_or(&head);
    let config = repo.config()?;
    Ok(config
        .string(&format!("branch.{short}.remote"))
        .filter(|r| *r != ".")
        .map(str::to_string))
}

/// Where git runs: the work tree, or the git dir of a bare repository.
pub(crate) fn repo_dir(repo: &Repo) -> Result<&std::path::Path> {
    Ok(repo.work_tree().unwrap_or_else(|_| repo.git_dir()))
}

/// A remote name that can be part of a ref name and never reads as an
/// option.
fn valid_remote_name(name: &str) -> bool {
    valid_branch_name(name) && !name.contains('/')
}

/// A branch name git accepts (the server's own rule for `refs/for/<branch>`),
/// checked before the name reaches git.
fn valid_branch_name(name: &str) -> bool {
    evolv_core::receive::ref_name::check_branch(name).is_ok()
}

#[cfg(test)]
mod tests {
    use super::{valid_branch_name, valid_remote_name};

    #[test]
    fn names_git_refuses_are_refused_before_git_sees_them() {
        for bad in [
            "", "-f", "a..b", "a b", "a:b", "x.lock", "/a", "a/", "a@{1}", ".a", "a/.b",
        ] {
            assert!(!valid_branch_name(bad), "{bad:?}");
        }
        for good in ["main", "release/1.2", "feat-x_y"] {
            assert!(valid_branch_name(good), "{good:?}");
        }
        assert!(!valid_remote_name("a/b"));
        assert!(valid_remote_name("origin"));
    }
}
