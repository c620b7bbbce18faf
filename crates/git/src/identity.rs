//! The user's git identity, resolved as git resolves it: the
//! `GIT_AUTHOR_*` / `GIT_COMMITTER_*` variables first, then `user.name` and
//! `user.email` from config.

use git2::{Repository, Signature};

use crate::Context;
use crate::config::Config;
use crate::error::{Error, Result};

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
        (Some(name), Some(email)) => {
            signature_now(&name, &email).context(|| format!("make the signature {name} <{email}>"))
        }
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

/// A signature of `name <email>` at [`clock::now_secs`]: the local time
/// zone's offset as `git commit` records it, or UTC under the test clock.
///
/// [`clock::now_secs`]: evolv_core::clock::now_secs
pub fn signature_now(name: &str, email: &str) -> Result<Signature<'static>, git2::Error> {
    match evolv_core::clock::test_time() {
        Some(t) => Signature::new(name, email, &git2::Time::new(t, 0)),
        None => Signature::now(name, email),
    }
}
