//! `git evolv test [<rev|proposal>…] [--command CMD] [--jobs N] [--no-cache]`.

use clap::Args;

use super::Output;
use crate::error::Result;
use crate::ops::Session;
use crate::ops::test::{BisectOutcome, TargetVerdict, TestRequest};
use crate::store::verdicts::{CommandExit, Status};

#[derive(Debug, Args)]
pub struct TestArgs {
    /// Revisions or proposal ids (default: HEAD).
    pub targets: Vec<String>,
    /// The command to run with `sh -c` (default: each `evolv.validate` value, each its own command).
    #[arg(long, value_name = "CMD")]
    pub command: Option<String>,
    /// How many targets to run at once, each in its own warm worktree.
    #[arg(long, short = 'j', value_name = "N", default_value_t = 1)]
    pub jobs: usize,
    /// Run even where a trusted verdict for the same key is stored.
    #[arg(long)]
    pub no_cache: bool,
    /// Find the first failing commit of a range A..B (A taken as good), or
    /// the first failing proposal of the stack a proposal id tops.
    #[arg(long, value_name = "RANGE|PROPOSAL", conflicts_with = "targets")]
    pub bisect: Option<String>,
}

/// Exit 0 only when every target passed, 1 otherwise.
pub fn run(session: &Session, args: &TestArgs, out: &Output) -> Result<u8> {
    let req = TestRequest {
        targets: args.targets.clone(),
        command: args.command.clone(),
        jobs: Some(args.jobs),
        no_cache: args.no_cache,
        bisect: args.bisect.clone(),
    };
    let outcome = session.run(&req)?;
    let passed = outcome.all_passed();
    if out.json {
        let mut value = serde_json::json!({
            "success": passed,
            "verdicts": outcome.verdicts,
            "bisect": outcome.bisect,
        });
        if let Some(aborted) = &outcome.aborted {
            value["aborted"] = serde_json::json!(aborted);
        }
        if !outcome.warnings.is_empty() {
            value["warnings"] = serde_json::json!(outcome.warnings);
        }
        out.json_value(&value);
        return Ok(if passed { 0 } else { 1 });
    }
    for w in &outcome.warnings {
        out.deferred(w);
    }
    if let Some(found) = &outcome.bisect {
        bisect_lines(found, out);
    } else {
        for v in &outcome.verdicts {
            out.line(&verdict_line(v));
            if !matches!(v.status, Status::Pass | Status::NotRun) && !v.output_tail.is_empty() {
                out.status(v.output_tail.trim_end());
            }
        }
    }
    if let Some(a) = &outcome.aborted {
        out.status(&format!(
            "error: the run aborted at {}: exit {} (127, 128 and above, or killed, stop the run as in `git bisect run`); {} target(s) not run\nhint: fix what broke the run itself (a missing command, a crash), then test again; exit 125 marks a target that cannot be tested",
            a.target, a.exit_code, a.not_run
        ));
    }
    Ok(if passed { 0 } else { 1 })
}

/// Each command of a set and its exit, one line each, after `indent`:
/// `` `make test` exit 0``, `` `make lint` not run``.
pub fn command_exits(commands: &[CommandExit], indent: &str) -> String {
    commands
        .iter()
        .map(|c| match c.exit_code {
            Some(code) => format!("{indent}`{}` exit {code}\n", c.command),
            None => format!("{indent}`{}` not run\n", c.command),
        })
        .collect()
}

/// `pass  HEAD  (tree 1234567, exit 0, 120 ms)`, or `… cached, made … by …`;
/// then each command's exit when there are several.
fn verdict_line(v: &TargetVerdict) -> String {
    if v.status == Status::NotRun {
        return format!("not run {}  (an earlier target aborted the run)", v.target);
    }
    let tree = v.tree.get(..7).unwrap_or(&v.tree);
    let how = if v.cached {
        format!(
            "cached: made at {} by {} ({})",
            v.made_at, v.made_by, v.source
        )
    } else {
        format!("{} ms", v.duration_ms)
    };
    let exit = v.exit_code.map_or("none".into(), |c| c.to_string());
    let mut line = format!(
        "{:<5} {}  (tree {tree}, exit {exit}, {how})",
        v.status.as_str(),
        v.target,
    );
    if v.commands.len() > 1 {
        line.push('\n');
        line.push_str(command_exits(&v.commands, "      ").trim_end());
    }
    line
}

/// Each verdict taken, then the answer: the first failing commit with its
/// output tail, the candidates skips left, or that nothing failed.
fn bisect_lines(found: &BisectOutcome, out: &Output) {
    for v in &found.verdicts {
        out.line(&verdict_line(v));
    }
    if let Some(first) = &found.first_failing {
        out.line(&format!(
            "first failing: {} ({} runs for {} commits)",
            first.target,
            found.verdicts.len(),
            found.members
        ));
        out.status(first.output_tail.trim_end());
    } else if !found.candidates.is_empty() {
        out.line(&format!(
            "skipped commits hide the first failing one; it could be any of: {}",
            found.candidates.join(" ")
        ));
    } else {
        out.line(&format!(
            "no failing commit among {} commits (or proposals)",
            found.members
        ));
    }
}
