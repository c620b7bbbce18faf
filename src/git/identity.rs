//! The user's git identity, resolved as git resolves it: the
//! `GIT_AUTHOR_*` / `GIT_COMMITTER_*` variables first, then `user.name` and
//! `user.email` from config.

use git2::{Repository, Signature};

use crate::error::{Error, Result};
use crate::git::config::Config;

/// The author signature for new commits.
pub fn author(repo: &Repository) -> Result<Signature<'static>> {
    signature(repo, "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL")
}

/// The committer signature for new commits.
pub fn committer(repo: &Repository) -> Result<Signature<'static>> {
    signature(repo, "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL")
}

fn signature(repo: &Repository, name_var: &str, email_var: &str) -> Result<Signature<'static>> {
    let config = Config::for_git_dir(repo.path())?;
    let from_env = |var: &str| std::env::var(var).ok().filter(|v| !v.is_empty());
    let from_config = |key: &str| {
        config
            .string(key)
            .filter(|v| !v.is_empty())
            .map(str::to_string)
    };
    let name = from_env(name_var).or_else(|| from_config("user.name"));
    let email = from_env(email_var).or_else(|| from_config("user.email"));
    match (name, email) {
        (Some(name), Some(email)) => Ok(crate::clock::signature(&name, &email)?),
        (name, email) => {
            let missing: Vec<&str> = [
                name.is_none().then_some("user.name"),
                email.is_none().then_some("user.email"),
            ]
            .into_iter()
            .flatten()
            .collect();
            Err(Error::MissingIdentity {
                detail: format!(
                    "{} not set in git config (commits need an author)",
                    missing.join(" and ")
                ),
            })
        }
    }
}
