//! `git evolv propose`: a regex/literal replacement over a scope, an edit
//! list (`--edits FILE|-` or the single-edit flags) run by
//! `ops::proposing::edit`, or a patch (`--patch FILE|-`) run by
//! `ops::proposing::propose_patch`.

use std::io::Read;

use clap::Args;

use super::Output;
use crate::edit::list::{CheckMode, Edit, EditList, Locator};
use crate::error::{Error, Result};
use crate::ops::Session;
use crate::ops::proposing::capture::CaptureRequest;
use crate::ops::proposing::edit::EditOutcome;
use crate::ops::proposing::propose::{ProposeOutcome, ProposeRequest};
use crate::ops::proposing::propose_patch::{PatchAnswer, PatchRequest};

#[derive(Debug, Args)]
pub struct ProposeArgs {
    /// Regex to search for (multi-line mode: ^ and $ match at line ends).
    #[arg(long, short = 'p')]
    pub pattern: Option<String>,
    /// Replacement text; $1 and ${name} expand to captures unless --literal.
    #[arg(long, short = 'r', allow_hyphen_values = true)]
    pub replacement: Option<String>,
    /// Glob over repo-relative paths of files tracked at HEAD (repeatable; default all).
    #[arg(long, short = 's')]
    pub scope: Vec<String>,
    /// Treat the pattern and the replacement as plain text.
    #[arg(long)]
    pub literal: bool,
    /// One-line summary for the proposal commit.
    #[arg(long, short = 'm')]
    pub message: Option<String>,
    /// Also edit files git does not treat as text: those with a filter
    /// driver (git-lfs pointers are rewritten as text!), `binary` or `-text`.
    #[arg(long)]
    pub include_filtered: bool,
    /// Propose a patch: a unified diff (`git diff --binary`, `diff -u`), a
    /// `git format-patch` mailbox (a series becomes a stack) or an
    /// apply_patch envelope (`*** Begin Patch`).
    #[arg(long, value_name = "FILE|-", conflicts_with_all = ["pattern", "replacement"])]
    pub patch: Option<String>,
    /// Leading path components to strip from the patch's names (git
    /// apply's -p); detected as git does when left out.
    #[arg(long, value_name = "N", requires = "patch")]
    pub strip: Option<usize>,
    /// Propose what the work tree holds where it differs from HEAD (for
    /// the paths after `--`), then put those paths back to HEAD, as `git
    /// stash` does, once the proposal is stored.
    #[arg(long, conflicts_with_all = ["pattern", "replacement", "patch"])]
    pub from_worktree: bool,
    /// With --from-worktree: leave the work tree and index as they are.
    #[arg(long, requires = "from_worktree")]
    pub keep: bool,
    /// With --from-worktree: untracked, non-ignored files too (`git stash -u`).
    #[arg(long, requires = "from_worktree")]
    pub include_untracked: bool,
    /// Propose an agent session's work, from its checkpoints: a session
    /// (its id or AGENT/SESSION) or a range FROM..TO of its checkpoints.
    #[arg(long, value_name = "SESSION|RANGE", conflicts_with_all = ["pattern", "replacement", "patch", "from_worktree"])]
    pub from_checkpoints: Option<String>,
    /// With --from-checkpoints: one proposal per turn, stacked.
    #[arg(long, requires = "from_checkpoints")]
    pub stack: bool,
    /// With --from-worktree: the pathspecs to capture (all of the work tree
    /// when none).
    #[arg(last = true, value_name = "PATHSPEC")]
    pub pathspec: Vec<String>,
    #[command(flatten)]
    pub edits: EditArgs,
}

/// The edit-list flags (#13).
#[derive(Debug, Args, Default)]
pub struct EditArgs {
    /// Propose an edit list (JSON) from FILE, or stdin with `-`.
    #[arg(long, value_name = "FILE|-", conflicts_with_all = ["pattern", "file", "delete", "rename"])]
    pub edits: Option<String>,
    /// Print the edit list's JSON Schema (draft 2020-12) and exit.
    #[arg(long)]
    pub edits_schema: bool,
    /// The file of a single edit (--old/--new, --lines/--new-from, --write-from).
    #[arg(long, value_name = "PATH")]
    pub file: Option<String>,
    /// Exact text to replace in --file (must occur once unless --replace-all).
    #[arg(long, requires = "file", allow_hyphen_values = true)]
    pub old: Option<String>,
    /// Text to put in place of --old.
    #[arg(long, requires = "old", allow_hyphen_values = true)]
    pub new: Option<String>,
    /// Replace every occurrence of --old.
    #[arg(long, requires = "old")]
    pub replace_all: bool,
    /// Lines A:B (1-based, inclusive) of --file to replace with --new-from.
    #[arg(long, value_name = "A:B", requires_all = ["file", "new_from"])]
    pub lines: Option<String>,
    /// The new text of --lines, from FILE or stdin (`-`).
    #[arg(long, value_name = "FILE|-", requires = "lines")]
    pub new_from: Option<String>,
    /// Write --file's whole content from FILE or stdin (`-`), creating it if needed.
    #[arg(long, value_name = "FILE|-", requires = "file", conflicts_with_all = ["old", "lines"])]
    pub write_from: Option<String>,
    /// Delete PATH.
    #[arg(long, value_name = "PATH")]
    pub delete: Option<String>,
    /// Rename OLD to NEW, keeping content and mode.
    #[arg(long, num_args = 2, value_names = ["OLD", "NEW"])]
    pub rename: Option<Vec<String>>,
    /// Store the edits that succeeded and report the ones that failed.
    #[arg(long)]
    pub keep_going: bool,
    /// Base the edits on this pending proposal instead of HEAD (a stack).
    #[arg(long, value_name = "ID")]
    pub onto: Option<String>,
    /// Validators: strict rejects on failure (default), warn stores and reports, only reports and stores nothing.
    #[arg(long, value_enum)]
    pub check: Option<CheckArg>,
}

/// `--check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CheckArg {
    Strict,
    Warn,
    Only,
}

impl From<CheckArg> for CheckMode {
    fn from(c: CheckArg) -> Self {
        match c {
            CheckArg::Strict => CheckMode::Strict,
            CheckArg::Warn => CheckMode::Warn,
            CheckArg::Only => CheckMode::Only,
        }
    }
}

impl EditArgs {
    fn any(&self) -> bool {
        self.edits.is_some()
            || self.file.is_some()
            || self.delete.is_some()
            || self.rename.is_some()
    }

    /// The edit list the flags describe.
    fn list(&self, message: Option<String>) -> Result<EditList> {
        let mut list = match &self.edits {
            Some(src) => {
                let text = read_text(src, "--edits")?;
                EditList::from_json(&text).map_err(|m| {
                    Error::invalid(
                        m,
                        "fix the edit list; `git evolv propose --edits-schema` prints its format",
                    )
                })?
            }
            None => EditList::default(),
        };
        if let Some(path) = &self.file {
            let path = path.clone();
            if let (Some(old), Some(new)) = (&self.old, &self.new) {
                list.edits.push(Edit::Replace {
                    path,
                    old: old.clone(),
                    new: new.clone(),
                    replace_all: self.replace_all,
                });
            } else if self.old.is_some() {
                return Err(Error::invalid(
                    "--old needs --new",
                    "pass the replacement text with --new",
                ));
            } else if let Some(lines) = &self.lines {
                let (a, b) = parse_lines(lines)?;
                let new = read_text(self.new_from.as_deref().unwrap_or("-"), "--new-from")?;
                let locator = Locator {
                    start_line: Some(a),
                    start_col: Some(1),
                    end_line: Some(b + 1),
                    end_col: Some(1),
                    ..Default::default()
                };
                list.edits.push(Edit::Range { path, locator, new });
            } else if let Some(src) = &self.write_from {
                list.edits.push(Edit::Write {
                    path,
                    content: read_text(src, "--write-from")?,
                });
            } else {
                return Err(Error::invalid(
                    "--file needs an edit: --old/--new, --lines/--new-from or --write-from",
                    "see `git evolv propose --help`",
                ));
            }
        }
        if let Some(path) = &self.delete {
            list.edits.push(Edit::Delete { path: path.clone() });
        }
        if let Some([from, to]) = self.rename.as_deref() {
            list.edits.push(Edit::Rename {
                path: from.clone(),
                to: to.clone(),
            });
        }
        if message.is_some() {
            list.message = message;
        }
        if self.onto.is_some() {
            list.onto = self.onto.clone();
        }
        list.keep_going |= self.keep_going;
        if let Some(c) = self.check {
            list.check = Some(c.into());
        }
        Ok(list)
    }
}

/// `--lines A:B`: a 1-based, inclusive, non-empty range of lines.
fn parse_lines(spec: &str) -> Result<(usize, usize)> {
    const HINT: &str =
        "give the first and last line to replace, 1-based and inclusive, e.g. --lines 12:20";
    let (a, b) = super::cat::parse_lines(spec, HINT)?;
    if a == 0 || b < a {
        return Err(super::cat::bad_lines(spec, HINT));
    }
    Ok((a, b))
}

/// Reads FILE or stdin (`-`) as UTF-8.
fn read_text(src: &str, flag: &str) -> Result<String> {
    String::from_utf8(read_bytes(src)?).map_err(|e| {
        Error::invalid(
            format!("{flag} {src} is not UTF-8 ({e})"),
            "edit lists and edit texts are UTF-8",
        )
    })
}

impl ProposeArgs {
    fn request(&self) -> Result<ProposeRequest> {
        let (Some(pattern), Some(replacement)) = (&self.pattern, &self.replacement) else {
            return Err(Error::invalid(
                "propose needs --pattern and --replacement, or an edit (--edits, --file, --delete, --rename)",
                "see `git evolv propose --help`",
            ));
        };
        Ok(ProposeRequest {
            pattern: pattern.clone(),
            replacement: replacement.clone(),
            scope: self.scope.clone().into(),
            literal: self.literal,
            message: self.message.clone(),
            include_filtered: self.include_filtered,
        })
    }
}

/// Whether the command line gives an edit list (`--edits`, `--file`, …)
/// rather than a regex over a scope.
pub fn edits(args: &ProposeArgs) -> bool {
    args.edits.any() || args.edits.onto.is_some()
}

pub fn run(session: &Session, args: &ProposeArgs, out: &Output) -> Result<u8> {
    if let Some(source) = &args.patch {
        return run_patch(session, args, source, out);
    }
    if args.from_worktree {
        return run_capture(session, args, out);
    }
    if let Some(source) = &args.from_checkpoints {
        return run_from_checkpoints(session, args, source, out);
    }
    if edits(args) {
        if args.pattern.is_some() {
            return Err(Error::invalid(
                "--pattern cannot be combined with edit flags",
                "propose a regex over a scope, or an edit list, not both",
            ));
        }
        let list = args.edits.list(args.message.clone())?;
        let outcome = session.run(&list)?;
        render_edit(&outcome, out);
        return Ok(if outcome.success { 0 } else { 1 });
    }
    let req = args.request()?;
    let outcome = session.run(&req)?;
    render(&outcome, out);
    Ok(0)
}

/// `propose --patch`: one outcome, or one per mailbox message (a stack);
/// `--json` prints the one outcome, or `{"proposals": […]}` for a series.
fn run_patch(session: &Session, args: &ProposeArgs, source: &str, out: &Output) -> Result<u8> {
    if args.edits.any() {
        return Err(Error::invalid(
            "--patch cannot be combined with edit flags",
            "propose the patch, or an edit list, not both",
        ));
    }
    let text = read_bytes(source)?;
    let req = PatchRequest {
        text,
        source: if source == "-" {
            "stdin".into()
        } else {
            source.to_string()
        },
        strip: args.strip,
        message: args.message.clone(),
        onto: args.edits.onto.clone(),
        check: args.edits.check.map(Into::into),
    };
    let answer = PatchAnswer::of(session.run(&req)?);
    let success = answer.outcomes().iter().all(|o| o.success);
    match &answer {
        PatchAnswer::One(one) => render_edit(one, out),
        series if out.json => out.json_value(series),
        series => series.outcomes().iter().for_each(|o| render_edit(o, out)),
    }
    Ok(if success { 0 } else { 1 })
}

/// `propose --from-checkpoints`.
fn run_from_checkpoints(
    session: &Session,
    args: &ProposeArgs,
    source: &str,
    out: &Output,
) -> Result<u8> {
    let req = crate::ops::checkpoints::propose::FromCheckpointsRequest {
        source: source.to_string(),
        stack: args.stack,
        message: args.message.clone(),
    };
    let made = session.run(&req)?;
    if out.json {
        out.success_json(&made);
        return Ok(0);
    }
    for p in &made.proposals {
        out.line(&format!(
            "{}  {} ({} file(s))",
            p.patch_id,
            p.summary,
            p.files.len()
        ));
    }
    out.status(&format!(
        "Assisted-by: {} (its landed commit carries it); review with `git evolv show <id>`, land with `git evolv apply <id>`.",
        made.assisted_by
    ));
    Ok(0)
}

/// `propose --from-worktree`.
fn run_capture(session: &Session, args: &ProposeArgs, out: &Output) -> Result<u8> {
    if args.edits.any() || args.edits.onto.is_some() {
        return Err(Error::invalid(
            "--from-worktree cannot be combined with edit flags or --onto",
            "capture the work tree onto HEAD, or propose an edit list, not both",
        ));
    }
    let req = CaptureRequest {
        pathspec: args.pathspec.clone(),
        cwd: std::env::current_dir().ok(),
        keep: args.keep,
        include_untracked: args.include_untracked,
        message: args.message.clone(),
        check: args.edits.check.map(Into::into),
    };
    let captured = session.run(&req)?;
    if out.json {
        out.json_value(&captured);
    } else {
        render_edit(&captured.outcome, out);
        if !captured.restored.is_empty() {
            out.line(&format!(
                "put {} path(s) back to HEAD in the work tree and index",
                captured.restored.len()
            ));
        }
        for left in &captured.not_restored {
            out.status(&format!(
                "warning: left {} as it is: {}",
                left.path, left.reason
            ));
        }
    }
    Ok(if captured.outcome.success { 0 } else { 1 })
}

/// Reads FILE or stdin (`-`) as bytes.
fn read_bytes(src: &str) -> Result<Vec<u8>> {
    if src == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| Error::io("read", "stdin", e))?;
        return Ok(buf);
    }
    std::fs::read(src).map_err(|e| Error::io("read", src, e))
}

/// `--edits-schema` needs no repository.
pub fn wants_schema(args: &ProposeArgs) -> bool {
    args.edits.edits_schema
}

/// Prints the edit list's JSON Schema.
pub fn print_schema(out: &Output) {
    out.json_value(&EditList::json_schema());
}

fn render_edit(o: &EditOutcome, out: &Output) {
    if out.json {
        out.json_value(o);
        return;
    }
    out.diff(&o.diff_bytes);
    for w in &o.warnings {
        out.status(&format!("warning: {w}"));
    }
    for f in &o.failures {
        out.status(&format!(
            "skipped {}: {} ({})",
            f.label(),
            f.message,
            f.code.as_str()
        ));
    }
    for v in &o.validators {
        let name = v
            .command
            .as_deref()
            .map(|c| format!("{} (`{c}`)", v.name))
            .unwrap_or_else(|| v.name.clone());
        if !v.checked {
            out.status(&format!("validator {name}: {}", v.output.trim_end()));
        } else if v.passed {
            out.status(&format!("validator {name}: ok ({})", v.files.join(", ")));
        } else {
            out.status(&format!(
                "validator {name}: FAILED ({})\n{}",
                v.files.join(", "),
                v.output.trim_end()
            ));
        }
    }
    let s = &o.statistics;
    let counts = format!(
        "{} file(s), {} of {} edit(s), +{} -{} lines",
        s.files_changed, s.edits_applied, s.edits, s.lines_added, s.lines_removed
    );
    match &o.patch_id {
        Some(id) => {
            let onto = o
                .onto
                .as_deref()
                .map(|p| format!(", stacked on {p}"))
                .unwrap_or_default();
            out.status(&format!(
                "Proposed {id}: {counts}{onto}.\nApply it with `git evolv apply {id}`, discard it with `git evolv drop {id}`."
            ));
        }
        None => out.status(&format!("Checked only, nothing stored: {counts}.")),
    }
}

/// Shared with the demo.
pub fn render(o: &ProposeOutcome, out: &Output) {
    if out.json {
        out.success_json(o);
        return;
    }
    // Streamed from the spool in whole lines: never all in memory.
    if let Err(e) = o.diff.write_chunks(&mut |chunk| out.diff(chunk)) {
        out.status(&format!("warning: the diff could not be read back: {e}"));
    }
    for d in &o.warnings {
        out.deferred(d);
    }
    let s = &o.statistics;
    let binary = if s.binary_skipped > 0 {
        format!(", {} binary skipped", s.binary_skipped)
    } else {
        String::new()
    };
    for skipped in &o.skipped {
        out.status(&format!("skipped {}: {}", skipped.shown(), skipped.reason));
    }
    out.status(&format!(
        "Proposed {}: {} file(s), {} replacement(s), +{} -{} lines ({} file(s) scanned{binary}).\nApply it with `git evolv apply {}`, discard it with `git evolv drop {}`.",
        o.patch_id, s.files_matched, s.total_changes, s.lines_added, s.lines_removed, s.files_scanned, o.patch_id, o.patch_id
    ));
}
