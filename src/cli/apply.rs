//! `git evolv apply`.

use std::path::PathBuf;

use clap::Args;

use super::Output;
use crate::error::Result;
use crate::ops::Session;
use crate::ops::applying::apply::{ApplyOutcome, ApplyReport, ApplyRequest, ApplyVerdict};
use crate::ops::applying::apply_answer::ApplyAnswer;
use crate::validation_report::Stage;

#[derive(Debug, Args)]
pub struct ApplyArgs {
    /// The proposals to apply, in order (see `git evolv list`).
    #[arg(required = true, value_name = "PATCH_ID")]
    pub patch_ids: Vec<String>,
    /// Command run with `sh -c` in the validation worktree (repeatable;
    /// default: git config evolv.validate).
    #[arg(long = "validate", value_name = "CMD")]
    pub validate: Vec<String>,
    /// Seconds the whole apply may take (default: evolv.timeout, else 30;
    /// with a plan, the smaller of this and the plan's limit).
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<u64>,
    /// Validate in a throwaway worktree instead of the warm one.
    #[arg(long)]
    pub fresh_worktree: bool,
    /// Execution plan (JSON file, or - for stdin; default: git config evolv.plan).
    #[arg(long, value_name = "FILE")]
    pub plan: Option<PathBuf>,
    /// Do everything but move the branch, and report what would land.
    #[arg(long)]
    pub dry_run: bool,
    /// Stack all proposals in one worktree, validate once, land all or none.
    #[arg(long)]
    pub batch: bool,
    /// Run the apply in the background and print its task id at once
    /// (follow it with `git evolv task <task_id> --wait`).
    #[arg(long)]
    pub background: bool,
    /// Land only the changes to paths these globs match; the rest stays a
    /// pending proposal under the same id, stacked on what landed.
    #[arg(long, num_args = 1.., value_name = "GLOB", conflicts_with = "interactive")]
    pub paths: Vec<String>,
    /// Choose hunk by hunk on the terminal, with the keys of `git add -p`
    /// (y, n, a, d, s, q, ?); the rest stays pending.
    #[arg(long, short = 'i', conflicts_with = "background")]
    pub interactive: bool,
    /// Run the validation commands even when a trusted verdict for the
    /// candidate tree is cached (see `git evolv test`).
    #[arg(long)]
    pub no_cache: bool,
}

/// Returns the exit code: 0, or the failure's code when some proposals
/// landed before one failed (the report says which).
pub fn run(session: &Session, args: &ApplyArgs, out: &Output) -> Result<u8> {
    let req = ApplyRequest {
        patch_ids: args.patch_ids.clone(),
        validate: (!args.validate.is_empty()).then(|| args.validate.clone()),
        timeout_secs: args.timeout,
        fresh_worktree: args.fresh_worktree.then_some(true),
        plan: args.plan.as_deref().map(super::plan::source).transpose()?,
        dry_run: args.dry_run,
        batch: args.batch,
        paths: (!args.paths.is_empty()).then(|| args.paths.clone().into()),
        no_cache: args.no_cache,
        hunks: None,
    };
    if args.background {
        let started = session.run(&crate::ops::applying::task::TaskRequest::from_apply(&req)?)?;
        if out.json {
            out.json_value(&ApplyAnswer::Started(started));
        } else {
            out.line(&started.task_id);
            out.status(&format!(
                "Applying {} in the background. Follow it with `git evolv task {} --wait`.",
                started.patch_ids.join(", "),
                started.task_id
            ));
        }
        return Ok(0);
    }
    let mut req = req;
    if args.interactive {
        let [id] = args.patch_ids.as_slice() else {
            return Err(crate::error::Error::invalid(
                "-i takes one proposal id",
                "apply the others on their own",
            ));
        };
        let files = session.run(&crate::ops::applying::apply::part::PartHunks {
            patch_id: id.clone(),
        })?;
        let stdin = std::io::stdin();
        let chosen =
            super::apply_interactive::choose(files, &mut stdin.lock(), &mut std::io::stdout())
                .map_err(|e| crate::error::Error::io("ask on", "the terminal", e))?;
        if chosen.is_empty() {
            out.status("No change chosen; nothing applied.");
            return Ok(0);
        }
        req.hunks = Some(chosen);
    }
    let report = session.run(&req)?;
    Ok(render_report(report, args.patch_ids.len(), out))
}

fn render_report(report: ApplyReport, ids: usize, out: &Output) -> u8 {
    let code = report.error.as_ref().map_or(0, |e| e.exit_code());
    if out.json {
        out.json_value(&ApplyAnswer::of(report, ids));
        return code;
    }
    for o in &report.results {
        render(o, out);
    }
    if let Some(e) = &report.error {
        let landed: Vec<&str> = report.results.iter().map(|o| o.patch_id.as_str()).collect();
        out.status(&format!(
            "Landed before the failure: {}.",
            landed.join(", ")
        ));
        out.error(e);
    }
    code
}

/// How many of a landing's files its one-line summary names.
pub const SHOWN_FILES: usize = 10;

/// Shared with the demo.
pub fn render(o: &ApplyOutcome, out: &Output) {
    if out.json {
        out.success_json(o);
        return;
    }
    for d in &o.warnings {
        out.deferred(d);
    }
    let verb = if o.dry_run { "Would apply" } else { "Applied" };
    let mut text = format!(
        "{verb} {} as {} on {} ({} file(s), +{} -{}: {}).\n",
        o.patch_id,
        &o.commit[..12],
        o.branch,
        o.modified_files.len(),
        o.lines_added,
        o.lines_removed,
        evolv_core::comma_list::capped_comma_list(
            &crate::git::types::path::shown(&o.modified_files, o.modified_files_bytes.as_deref()),
            SHOWN_FILES
        )
    );
    let cached = o.verdict.as_ref().filter(|v| v.cached);
    for v in &o.validation {
        let stands_for = |c: &&ApplyVerdict| c.commands.iter().any(|x| x.command == v.command);
        match cached.filter(|c| stands_for(c) && v.stage == Stage::Validate) {
            Some(c) => text.push_str(&format!(
                "  Validate `{}`: cached {}, {}; not run again (--no-cache runs it)\n",
                v.command,
                c.status.as_str(),
                c.provenance()
            )),
            None => text.push_str(&format!(
                "  {:?} `{}`: exit {} in {} ms\n",
                v.stage, v.command, v.exit_code, v.duration_ms
            )),
        }
    }
    if o.dry_run {
        text.push_str("Dry run: nothing landed. Apply it for real without --dry-run (or with a plan saying \"dry_run\": false).");
    } else {
        text.push_str(&format!(
            "Undo it with `git evolv rollback {}`.",
            o.patch_id
        ));
    }
    out.line(&text);
}
