//! `git evolv hook <name> …`: the entry points git's hooks call (the
//! installed shims are `exec git-evolv hook <name> "$@"`). Each hook keeps
//! to what git needs: findings on stderr, exit 1 to refuse.

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use super::Output;
use super::lint::{summary, text};
use crate::error::Result;
use crate::ops::lint;

#[derive(Debug, Args)]
pub struct HookArgs {
    #[command(subcommand)]
    pub hook: HookCommand,
}

/// The hooks git-evolv implements.
#[derive(Debug, Subcommand)]
pub enum HookCommand {
    /// git's commit-msg hook: lint the message file; exit 1 refuses the commit.
    #[command(name = "commit-msg")]
    CommitMsg {
        /// The message file git passes (`.git/COMMIT_EDITMSG`, `.git/MERGE_MSG`, …).
        #[arg(value_name = "FILE")]
        file: PathBuf,
    },
}

pub fn run(dir: &Path, args: &HookArgs, out: &Output) -> Result<u8> {
    match &args.hook {
        HookCommand::CommitMsg { file } => commit_msg(dir, file, out),
    }
}

/// Lints the message; on rejection says where git kept it and how to retry.
fn commit_msg(dir: &Path, file: &Path, out: &Output) -> Result<u8> {
    let repo = lint::discover(dir);
    let config = lint::load_config(repo.as_ref())?;
    let result = lint::commit_msg(file, &config)?;
    if out.json {
        out.json_value(&result);
        return Ok(result.outcome.exit_code());
    }
    let findings = text(&result.outcome, false);
    if result.outcome.success {
        if !findings.is_empty() {
            out.status(findings.trim_end());
        }
        return Ok(0);
    }
    out.status(&format!(
        "git evolv: commit message rejected ({})\n\n{}\nYour message was NOT lost: git kept it in {}{}.\n\
         Fix it and retry with:\n    {}\n\
         (Conventional Commits: type(scope): description, e.g. `feat(parser): accept tabs`.)",
        summary(&result.outcome),
        findings,
        result.message_file,
        if result.kept_at != result.message_file {
            format!(" ({})", result.kept_at)
        } else {
            String::new()
        },
        result.retry,
    ));
    Ok(result.outcome.exit_code())
}
