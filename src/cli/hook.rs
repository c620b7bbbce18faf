//! `git evolv hook <name> …`: the entry points git's hooks call (the
//! installed shims are `exec git-evolv hook <name> "$@"`). Each hook keeps
//! to what git needs: findings on stderr (git does not show a hook's stdout
//! reliably), exit 1 to refuse.

use std::io::Read;
use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};

use super::Output;
use super::lint::{summary, text};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::hooks::invocation;
use crate::ops::Session;
use crate::ops::commits::lint::CommitMsgHook;
use crate::ops::commits::pre_push::{PrePushOutcome, PrePushRequest};
use crate::policy::{Verdict, short_ref};
use crate::prompt;

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
    /// git's pre-push hook: refuses deleting or force-pushing protected
    /// branches, asks before a push to one; reads git's ref lines on stdin.
    PrePush {
        /// The remote's name (or its URL when pushing to a URL).
        remote: String,
        /// The remote's URL.
        url: String,
    },
    /// git's proc-receive hook (server side, `hooks install --server`): lands
    /// pushes to refs/for/<branch>; speaks pkt-lines with git on stdin/stdout.
    #[command(name = "proc-receive")]
    ProcReceive {
        /// Land the server's queue of pushed proposals and exit (what a push with
        /// `-o evolv.wait=false` starts, detached); not for git.
        #[arg(long, hide = true)]
        drain: bool,
    },
    /// git's pre-receive hook (server side): refuses direct pushes, deletions
    /// and force-pushes of evolv.protectedBranches; reads ref lines on stdin.
    #[command(name = "pre-receive")]
    PreReceive,
}

/// The hook git runs when the binary is installed as one (a link named
/// `commit-msg` or `pre-push`, or pre-commit's `<name>.legacy` after it
/// moved ours aside), with git's arguments; `None` for any other name
/// (`git-evolv`, `git evolv …`). Wrong arguments are an error, not a
/// guess.
pub fn installed_as(args: &[std::ffi::OsString]) -> Option<Result<HookArgs>> {
    let name = Path::new(args.first()?).file_name()?.to_str()?;
    let name = name
        .strip_suffix(crate::hooks::LEGACY_SUFFIX)
        .unwrap_or(name);
    let rest = &args[1..];
    let lossy = |s: &std::ffi::OsString| s.to_string_lossy().into_owned();
    let hook = match (name, rest) {
        ("commit-msg", [file]) => HookCommand::CommitMsg {
            file: PathBuf::from(file),
        },
        ("pre-push", [remote, url]) => HookCommand::PrePush {
            remote: lossy(remote),
            url: lossy(url),
        },
        ("commit-msg" | "pre-push", _) => {
            return Some(Err(Error::InvalidInput {
                message: format!(
                    "git-evolv was run as the {name} hook with {} argument(s), not git's",
                    rest.len()
                ),
                hint: format!(
                    "git runs hooks as `{name} …`; by hand, run `git evolv hook {name} …`"
                ),
            }));
        }
        _ => return None,
    };
    Some(Ok(HookArgs { hook }))
}

/// The shim's re-entry guard (`GIT_EVOLV_HOOK_ACTIVE`, see `hooks/`):
/// another hook manager running our hook again from inside the hook it
/// chains; the outer run does the work.
pub fn reentered(args: &HookArgs) -> bool {
    let name = match args.hook {
        HookCommand::CommitMsg { .. } => "commit-msg",
        HookCommand::PrePush { .. } => "pre-push",
        HookCommand::ProcReceive { .. } | HookCommand::PreReceive => return false,
    };
    let (Ok(active), Ok(pwd)) = (std::env::var("GIT_EVOLV_HOOK_ACTIVE"), std::env::var("PWD"))
    else {
        return false;
    };
    // As the shim matches it: `*":$hook@$PWD:"*`.
    format!(":{active}:").contains(&format!(":{name}@{pwd}:"))
}

/// Runs a hook for `actor` (who the op log names); the exit code is what
/// git sees (non-zero stops it).
pub fn run(dir: &Path, args: &HookArgs, out: &Output, actor: &str) -> Result<u8> {
    let context = Context::new(actor);
    match &args.hook {
        HookCommand::CommitMsg { file } => commit_msg(dir, file, (out, context)),
        HookCommand::PrePush { remote, url } => run_pre_push(dir, remote, url, (out, context)),
        HookCommand::ProcReceive { drain } => super::server_hook::proc_receive(dir, *drain),
        HookCommand::PreReceive => super::server_hook::pre_receive(dir),
    }
}

/// Lints the message; on rejection says where git kept it and how to retry.
///
/// This is the hook's hot path, run on every commit: it reads the message
/// file and the configuration from the git directory, and nothing else (no
/// libgit2 repository, no recovery, no index). See: issue #14, item 5.
fn commit_msg(dir: &Path, file: &Path, (out, context): (&Output, Context)) -> Result<u8> {
    let result = Session::open_for::<CommitMsgHook>(dir, context)?.run(&CommitMsgHook {
        file: file.to_path_buf(),
    })?;
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
    let cleaned = match &result.retry_file {
        Some(f) if *f != result.kept_at => {
            format!("\nThe message as this commit would store it is in {f}.")
        }
        _ => String::new(),
    };
    out.status(&format!(
        "git evolv: commit message rejected ({})\n\n{}\nYour message was NOT lost: git kept it in {}{}.{cleaned}\n\
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

fn run_pre_push(
    dir: &Path,
    remote: &str,
    url: &str,
    (out, context): (&Output, Context),
) -> Result<u8> {
    let mut stdin = String::new();
    std::io::stdin()
        .read_to_string(&mut stdin)
        .map_err(|e| Error::io("read", "stdin", e))?;
    if stdin.trim().is_empty() {
        return Ok(0);
    }
    let prompt_off = terminal_prompt_disabled();
    let terminal = !prompt_off && prompt::open_terminal().is_some();
    let dry_run = invocation::push_is_dry_run();
    let outcome = Session::open_for::<PrePushRequest>(dir, context)?.run(&PrePushRequest {
        remote: remote.to_string(),
        url: url.to_string(),
        stdin,
        terminal,
        dry_run,
    })?;
    out.status(&render(&outcome));
    if prompt_off && outcome.refs.iter().any(|r| r.protected) {
        out.status("  note: GIT_TERMINAL_PROMPT=0: not asking on the terminal");
    }
    if out.json {
        out.json_value(&outcome);
    }
    if outcome.refused {
        out.status("git-evolv: push refused.");
        return Ok(1);
    }
    if outcome.needs_confirmation {
        if !terminal {
            // The policy asks for a terminal only when there is one.
            return Ok(1);
        }
        let asked: Vec<&str> = outcome
            .refs
            .iter()
            .filter(|r| r.verdict == Verdict::Confirm)
            .map(|r| r.line.remote_ref.as_str())
            .collect();
        let kind = match (
            asked.len(),
            asked.iter().all(|r| r.starts_with("refs/heads/")),
        ) {
            (1, true) => "branch",
            (_, true) => "branches",
            (1, false) => "ref",
            (_, false) => "refs",
        };
        let names: Vec<&str> = asked.iter().map(|r| short_ref(r)).collect();
        let question = format!(
            "Push directly to the protected {kind} {} on {remote}?",
            names.join(", ")
        );
        let timeout = std::env::var("GIT_EVOLV_PROMPT_TIMEOUT")
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
            .map_or(prompt::CONFIRM_TIMEOUT, std::time::Duration::from_secs);
        match prompt::confirm(&question, timeout)? {
            prompt::Confirmation::Yes => {}
            prompt::Confirmation::No => {
                out.status("git-evolv: push cancelled; nothing was sent.");
                return Ok(1);
            }
            prompt::Confirmation::TimedOut => {
                out.status(&format!(
                    "git-evolv: no answer in {} s: push cancelled; nothing was sent.",
                    timeout.as_secs()
                ));
                return Ok(1);
            }
        }
    }
    Ok(0)
}

/// The report on stderr: one block per ref, then the notes.
fn render(outcome: &PrePushOutcome) -> String {
    let mut text = format!(
        "git-evolv pre-push → {} ({})\n",
        outcome.remote, outcome.url
    );
    for r in &outcome.refs {
        let name = short_ref(&r.line.remote_ref);
        let what = if r.line.is_deletion() {
            "delete".to_string()
        } else if r.line.creates() {
            "new".to_string()
        } else {
            match (r.ahead, r.behind) {
                (Some(a), Some(b)) => format!("{a} ahead, {b} behind"),
                _ => "remote state unknown".to_string(),
            }
        };
        let protected = if r.protected { ", protected" } else { "" };
        let verdict = match &r.verdict {
            Verdict::Allowed => "ok",
            Verdict::Confirm => "needs confirmation",
            Verdict::Refused { .. } => "REFUSED",
        };
        text.push_str(&format!("  {name} ({what}{protected}): {verdict}\n"));
        if let Verdict::Refused { reason, suggestion } = &r.verdict {
            text.push_str(&format!("    error: {reason}\n    hint: {suggestion}\n"));
        }
        if r.verdict == Verdict::Confirm {
            text.push_str(&format!(
                "    warning: {name} is protected (evolv.protectedBranches: {}); prefer a pull request\n",
                outcome.protected_patterns.join(", ")
            ));
        }
        for note in &r.notes {
            text.push_str(&format!("    note: {note}\n"));
        }
    }
    if !outcome.uncommitted.is_empty() {
        const SHOWN: usize = 10;
        text.push_str(&format!(
            "  note: {} file(s) with uncommitted changes are not part of this push:\n",
            outcome.uncommitted.len()
        ));
        for path in outcome.uncommitted.iter().take(SHOWN) {
            text.push_str(&format!("    {path}\n"));
        }
        if outcome.uncommitted.len() > SHOWN {
            text.push_str(&format!(
                "    … and {} more (`git status`)\n",
                outcome.uncommitted.len() - SHOWN
            ));
        }
    }
    text.trim_end().to_string()
}

/// `GIT_TERMINAL_PROMPT=0` (or false/no/off): git's own switch for "never
/// prompt on the terminal", set by agents and CI runners that have a
/// terminal nobody watches. See: issue #17, item 7.
fn terminal_prompt_disabled() -> bool {
    std::env::var("GIT_TERMINAL_PROMPT").is_ok_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "0" | "false" | "no" | "off"
        )
    })
}
