//! The user's git identity, resolved as git resolves it: the
//! `GIT_AUTHOR_*` / `GIT_COMMITTER_*` variables first, then `user.name` and
//! `user.email` from config.

use crate::objects::view::Signature;

use crate::Context;
use crate::error::{Error, Result};

/// The author signature for new commits.
pub fn author(repo: &crate::Repo) -> Result<Signature> {
    signature(repo, "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL")
}

/// The committer signature for new commits.
pub fn committer(repo: &crate::Repo) -> Result<Signature> {
    signature(repo, "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL")
}

fn signature(repo: &crate::Repo, name_var: &str, email_var: &str) -> Result<Signature> {
    let config = repo.config()?;
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
        (Some(name), Some(email)) => signature_now(&name, &email),
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
/// A name or email git would refuse (`<`, `>`, a newline) is refused.
///
/// [`clock::now_secs`]: evolv_core::clock::now_secs
pub fn signature_now(name: &str, email: &str) -> Result<Signature> {
    let raw = match evolv_core::clock::test_time() {
        Some(t) => git2::Signature::new(name, email, &git2::Time::new(t, 0)),
        None => git2::Signature::now(name, email),
    };
    raw.map(|s| Signature::of(&s))
        .context(|| crate::objects::view::signature_doing(name, email))
}
