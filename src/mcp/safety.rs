//! What an MCP client may ask for. Clients are not trusted the way the
//! person at the terminal is: ids and paths are checked before any ops call,
//! and commands inside a client's execution plan run only when the
//! repository says so.

use crate::git::Repo;
use serde_json::Value;

use crate::error::{Error, Result};

/// The git config key that lets clients' execution plans run commands.
pub const ALLOW_PLAN_COMMANDS: &str = "evolv.mcp.allowPlanCommands";

fn refuse(field: &str, value: &str, why: &str, hint: &str) -> Error {
    Error::invalid(format!("argument `{field}`: '{value}' {why}"), hint)
}

/// A proposal or task id: never an option (`-…`), never a path.
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

/// A repository-relative path or glob: no absolute path, no `..`, no
/// leading `-`, no NUL. Matching happens over the repository's tree, so
/// nothing else can name a file outside it.
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
pub fn check_plan(repo: &Repo, plan: Option<&Value>) -> Result<()> {
    let Some(plan) = plan else { return Ok(()) };
    let commands: Vec<&str> = ["pre_conditions", "expected_outcomes"]
        .iter()
        .filter_map(|k| plan.get("validation")?.get(k)?.as_array())
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if commands.is_empty() || allowed(repo)? {
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

fn allowed(repo: &Repo) -> Result<bool> {
    // Through the one config adapter, so `git -c` and includes count too.
    let config = crate::git::config::Config::for_git_dir(repo.git_dir())?;
    Ok(config.bool(ALLOW_PLAN_COMMANDS)?.unwrap_or(false))
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
