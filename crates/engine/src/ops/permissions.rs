//! What a client that is not the person at the terminal (an MCP client)
//! may ask for, and which of its landings need the user's confirmation
//! first. The rules, the config keys they read and their defaults live
//! here; a front end asks these functions and only renders the answer or
//! puts the question to the user.
//!
//! - Ids and paths a client sends are checked before any use case runs:
//!   no option (`-…`), no absolute path, no `..`, no NUL.
//! - Commands inside a client's execution plan run only when the
//!   repository allows it (`evolv.mcp.allowPlanCommands`, off by default).
//! - An apply or rollback that lands on a protected branch
//!   (`evolv.protectedBranches`, main and master by default) is confirmed
//!   by the user, as `evolv.mcp.confirm` says (`auto` by default).

use serde_json::Value;

use crate::error::{Error, Result};
use crate::git::Repo;
use crate::policy::{PushPolicy, PushToProtected};

use super::settings::{ALLOW_PLAN_COMMANDS, Settings};

pub use super::settings::ConfirmMode;

/// A landing on a protected branch that the user confirms first: what
/// they are asked about.
#[derive(Debug, Clone)]
pub struct Confirmation {
    pub mode: ConfirmMode,
    /// "apply" or "roll back".
    pub action: &'static str,
    pub patch_ids: Vec<String>,
    /// The protected branch's short name.
    pub branch: String,
    /// The branch head when asked: an answer is only good for that head.
    pub head: String,
    pub files: Vec<String>,
    pub lines_added: usize,
    pub lines_removed: usize,
    /// The commands the apply will run.
    pub commands: Vec<String>,
}

impl Confirmation {
    /// For a client that cannot be asked: go ahead (the propose/apply
    /// split is its confirmation), unless the repository wants every such
    /// landing confirmed (`evolv.mcp.confirm always`).
    pub fn unasked(&self) -> Result<()> {
        match self.mode {
            ConfirmMode::Always => Err(Error::ConfirmationRequired {
                what: format!(
                    "{} of {} on the protected branch {}",
                    self.action,
                    self.patch_ids.join(", "),
                    self.branch
                ),
            }),
            ConfirmMode::Auto | ConfirmMode::Never => Ok(()),
        }
    }
}

/// The protected branch HEAD is on, if it is one: its short name and head.
fn protected_branch(repo: &Repo, settings: &Settings) -> Result<Option<(String, String)>> {
    let head = crate::git::head(repo)?;
    let Some(branch) = head.branch else {
        return Ok(None);
    };
    let values = settings.protected_branches();
    let policy = PushPolicy::new(&values, PushToProtected::default(), false).map_err(|m| {
        Error::invalid(
            m,
            "fix it with `git config --replace-all evolv.protectedBranches 'main master'`",
        )
    })?;
    if !policy.is_protected(&branch) {
        return Ok(None);
    }
    let short = branch.trim_start_matches("refs/heads/").to_string();
    Ok(Some((short, head.commit.to_string())))
}

/// What a landing to confirm changes: the user is asked about these.
pub struct Changes {
    pub files: Vec<String>,
    pub lines_added: usize,
    pub lines_removed: usize,
    pub commands: Vec<String>,
}

/// The question before `action` of `patch_ids` lands on HEAD's branch;
/// `None` when HEAD is not on a protected branch, the repository never
/// asks (`evolv.mcp.confirm never`), or `changes` finds nothing to ask
/// about (read only once a question would be due).
pub fn confirmation(
    repo: &Repo,
    settings: &Settings,
    (action, patch_ids): (&'static str, &[String]),
    changes: impl FnOnce() -> Option<Changes>,
) -> Result<Option<Confirmation>> {
    let mode = settings.confirm_mode()?;
    let Some((branch, head)) = protected_branch(repo, settings)? else {
        return Ok(None);
    };
    if mode == ConfirmMode::Never {
        return Ok(None);
    }
    Ok(changes().map(|c| Confirmation {
        mode,
        action,
        patch_ids: patch_ids.to_vec(),
        branch,
        head,
        files: c.files,
        lines_added: c.lines_added,
        lines_removed: c.lines_removed,
        commands: c.commands,
    }))
}

fn refuse(field: &str, value: &str, why: &str, hint: &str) -> Error {
    Error::invalid(format!("argument `{field}`: '{value}' {why}"), hint)
}

/// A proposal or task id a client sent: never an option (`-…`), never a
/// path.
pub fn check_id(field: &str, id: &str) -> Result<()> {
    if id.starts_with('-') {
        return Err(refuse(
            field,
            id,
            "begins with '-'",
            "ids look like patch_1763793123_3fa9c1 (list_proposals shows them)",
        ));
    }
    Ok(())
}

/// A repository-relative path or glob a client sent: no absolute path, no
/// `..`, no leading `-`, no NUL. Matching happens over the repository's
/// tree, so nothing else can name a file outside it.
pub fn check_path(field: &str, path: &str) -> Result<()> {
    let hint =
        "paths and globs are relative to the top of the repository, e.g. 'src/**' or 'README.md'";
    if path.starts_with('/') || path.starts_with('\\') || path.get(1..3) == Some(":\\") {
        return Err(refuse(field, path, "is absolute", hint));
    }
    if path.split(['/', '\\']).any(|c| c == "..") {
        return Err(refuse(field, path, "leaves the repository ('..')", hint));
    }
    if path.starts_with('-') {
        return Err(refuse(field, path, "begins with '-'", hint));
    }
    if path.contains('\0') {
        return Err(refuse(field, path, "contains a NUL byte", hint));
    }
    Ok(())
}

/// Refuses a client's plan that would run commands unless the repository
/// allows it. Commands the repository configures itself (evolv.validate,
/// evolv.plan) always run; this only concerns what the client sent.
pub fn check_client_plan(settings: &Settings, plan: Option<&Value>) -> Result<()> {
    let Some(plan) = plan else { return Ok(()) };
    let commands: Vec<&str> = ["pre_conditions", "expected_outcomes"]
        .iter()
        .filter_map(|k| plan.get("validation")?.get(k)?.as_array())
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if commands.is_empty() || settings.plan_commands_allowed()? {
        return Ok(());
    }
    Err(Error::invalid(
        format!(
            "argument `execution_plan.validation`: this repository does not run commands from an MCP client's plan ({})",
            commands
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        format!(
            "allow it with `git config {ALLOW_PLAN_COMMANDS} true`, or send the plan without validation commands (the repository's own evolv.validate still runs)"
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_outside_the_repository_are_refused() {
        for bad in ["/etc/passwd", "../x", "a/../../b", "-rf", "a\0b", "C:\\x"] {
            assert!(check_path("path", bad).is_err(), "{bad}");
        }
        for good in ["src/**", "**/*.rs", "README.md", "a/b..c"] {
            assert!(check_path("path", good).is_ok(), "{good}");
        }
    }

    #[test]
    fn ids_beginning_with_a_dash_are_refused() {
        assert!(check_id("patch_id", "--all").is_err());
        assert!(check_id("patch_id", "patch_1_ab").is_ok());
    }
}
