//! `git evolv list`, `show` and `log`.

use clap::Args;

use super::Output;
use crate::error::Result;
use crate::ops::Session;
use crate::ops::reading::inspect::{
    ListRequest, LogOutcome, LogRequest, ProposalSummary, ShowOutcome, ShowRequest,
};
use crate::store::verdicts::ProposalVerdict;

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The proposal to show.
    pub patch_id: String,
    /// Show changes inside lines, git's default word-diff format ([-old-]{+new+}).
    #[arg(long)]
    pub word_diff: bool,
}

#[derive(Debug, Args)]
pub struct LogArgs {
    /// Show at most N entries.
    #[arg(long, short = 'n', value_name = "N")]
    pub limit: Option<usize>,
}

/// `3m`, `2h`, `5d`: how long ago.
fn age(seconds: i64) -> String {
    match seconds {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m", s / 60),
        s if s < 86_400 => format!("{}h", s / 3600),
        s => format!("{}d", s / 86_400),
    }
}

pub fn list(session: &Session, out: &Output) -> Result<()> {
    let outcome = session.run(&ListRequest {})?;
    if out.json {
        out.json_value(&outcome);
        return Ok(());
    }
    for u in &outcome.unreadable {
        out.status(&format!("warning: {}\nhint: {}", u.message, u.hint));
    }
    for w in &outcome.warnings {
        out.deferred(w);
    }
    if outcome.proposals.is_empty() {
        out.status("No proposals. Make one with `git evolv propose --pattern … --replacement …`.");
        return Ok(());
    }
    let mut text = format!(
        "{:<28} {:>4}  {:<10} {:>5} {:>11}  SUMMARY\n",
        "ID", "AGE", "STATUS", "FILES", "LINES"
    );
    for p in &outcome.proposals {
        text.push_str(&row(p));
    }
    out.data(text.as_bytes());
    Ok(())
}

fn row(p: &ProposalSummary) -> String {
    format!(
        "{:<28} {:>4}  {:<10} {:>5} {:>11}  {}\n",
        p.patch_id,
        age(p.age_seconds),
        p.status.to_string(),
        p.files_changed,
        format!("+{} -{}", p.lines_added, p.lines_removed),
        match &p.onto {
            Some(onto) => format!("{} (stacked on {onto})", p.summary),
            None => p.summary.clone(),
        } + &p
            .verdict
            .as_ref()
            .map(|v| format!(" [{}, cached]", v.status.as_str()))
            .unwrap_or_default()
    )
}

/// `verdict: pass, cached (`make test`, exit 0, made … by …, local)`,
/// then each validator's exit when there are several.
fn verdict_text(v: &ProposalVerdict) -> String {
    let mut text = format!(
        "verdict: {}, cached (`{}`, exit {}, made {} by {}, {})\n",
        v.status.as_str(),
        v.command,
        v.exit_code,
        crate::clock::utc_rfc3339(v.made_at),
        v.made_by,
        v.source
    );
    if v.commands.len() > 1 {
        text.push_str(&super::test::command_exits(&v.commands, "  "));
    }
    text
}

pub fn show(session: &Session, args: &ShowArgs, out: &Output) -> Result<()> {
    let mut outcome = session.run(&ShowRequest {
        patch_id: args.patch_id.clone(),
    })?;
    if args.word_diff {
        outcome.word_diff = Some(crate::diff::word::word_diff(&outcome.diff_bytes));
    }
    render_show(&outcome, out);
    Ok(())
}

/// Shared with the demo.
pub fn render_show(outcome: &ShowOutcome, out: &Output) {
    if out.json {
        out.json_value(outcome);
        return;
    }
    for w in &outcome.warnings {
        out.deferred(w);
    }
    let p = &outcome.proposal;
    let first = format!("patch {} ({})", p.patch_id, p.status);
    let first = out.paint_commit(&first);
    out.line(&format!(
        "{first}\nproposal commit {}, base {}\n\n    {}\n",
        p.commit, p.base, p.summary
    ));
    if let Some(v) = &p.verdict {
        out.line(&verdict_text(v));
    }
    if outcome.stack.len() > 1 {
        out.line(&format!(
            "stack (bottom first; apply lands all of it): {}\n",
            outcome.stack.join(" -> ")
        ));
    }
    if !outcome.stacked_above.is_empty() {
        out.line(&format!(
            "stacked on this one: {}\n",
            outcome.stacked_above.join(", ")
        ));
    }
    match &outcome.word_diff {
        Some(w) => out.data(w.as_bytes()),
        None => out.diff(&outcome.diff_bytes),
    }
    if !outcome.files.is_empty() {
        out.line(&render_file_results(&outcome.files));
    }
    if !outcome.comments.is_empty() {
        out.line(&render_comments(&outcome.comments));
    }
}

/// Per file of an edit list: the operation, where, its warnings and what
/// each validator said when it was proposed (a failure with its first
/// line of output).
fn render_file_results(files: &[crate::store::file_records::FileResult]) -> String {
    let mut text = String::from(
        "
per file, as proposed:
",
    );
    for f in files {
        let r = &f.record;
        let at = r.locator.as_ref().map_or(String::new(), |l| {
            format!(
                " {}:{}-{}:{}",
                l.start_line, l.start_col, l.end_line, l.end_col
            )
        });
        let from = r
            .from_path
            .as_ref()
            .map_or(String::new(), |p| format!(" from {p}"));
        text.push_str(&format!("  {} ({}{from}){at}\n", r.path, r.operation_type));
        for w in &r.warnings {
            text.push_str(&format!("    warning: {w}\n"));
        }
        for v in &f.validators {
            let verdict = if v.passed { "passed" } else { "FAILED" };
            let first = v.output.lines().find(|l| !l.trim().is_empty());
            if !v.checked {
                // Says what it did not look at, and why.
                let why = first.unwrap_or("not checked");
                text.push_str(&format!("    validator {}: {why}\n", v.name));
                continue;
            }
            match (v.passed, first) {
                (false, Some(line)) => {
                    text.push_str(&format!("    validator {} {verdict}: {line}\n", v.name))
                }
                _ => text.push_str(&format!("    validator {} {verdict}\n", v.name)),
            }
        }
    }
    text
}

/// The review comments under a proposal's diff: locator, quote, body.
fn render_comments(comments: &[crate::store::comments::Comment]) -> String {
    let mut text = format!("\n{} review comment(s):\n", comments.len());
    for c in comments {
        let l = &c.locator;
        let side = match l.side {
            crate::store::comments::Side::Old => "old",
            crate::store::comments::Side::New => "new",
        };
        text.push_str(&format!(
            "\n{}:{}:{}-{}:{} ({side}) by {}\n",
            l.path, l.start_line, l.start_col, l.end_line, l.end_col, c.author
        ));
        for q in c.quote.lines() {
            text.push_str(&format!("  > {q}\n"));
        }
        for b in c.body.lines() {
            text.push_str(&format!("  {b}\n"));
        }
    }
    text
}

pub fn log(session: &Session, args: &LogArgs, out: &Output) -> Result<()> {
    if args.limit == Some(0) && !out.json {
        // `git log -n 0` prints nothing: zero entries were asked for.
        return Ok(());
    }
    render_log(&session.run(&LogRequest { limit: args.limit })?, out);
    Ok(())
}

/// Shared with the demo.
pub fn render_log(outcome: &LogOutcome, out: &Output) {
    if out.json {
        out.json_value(outcome);
        return;
    }
    if outcome.entries.is_empty() {
        out.status("The audit log is empty.");
        return;
    }
    let now = crate::store::proposals::now_secs();
    let mut text = String::new();
    for e in &outcome.entries {
        let r = &e.record;
        let verdict = match (&r.error_code, r.success) {
            (_, true) => "ok".to_string(),
            (Some(code), false) => format!("FAILED ({code})"),
            (None, false) => "FAILED".to_string(),
        };
        let commit = r
            .commit
            .as_deref()
            .map(|c| format!(" -> {}", &c[..12.min(c.len())]))
            .unwrap_or_default();
        // A dry run landed nothing; the log must not read like a landing.
        let action = if r.dry_run {
            format!("{} (dry run)", r.action)
        } else {
            r.action.to_string()
        };
        let commit = if r.dry_run && !commit.is_empty() {
            format!(" (would land{})", commit.trim_start_matches(" ->"))
        } else {
            commit
        };
        // Listed, never acted on: another clone's, or written by hand.
        let foreign = if e.foreign {
            " [not marked by this clone]"
        } else {
            ""
        };
        text.push_str(&format!(
            "{:<12}  {:>4} ago  {:<8} {} {verdict}{commit}{foreign}\n",
            // A journalled record has no audit id yet: `pending`.
            &e.id[..12.min(e.id.len())],
            age(now.saturating_sub(r.timestamp)),
            action,
            r.patch_id
        ));
    }
    out.data(text.as_bytes());
}
