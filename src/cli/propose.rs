//! `git evolv propose`.

use clap::Args;
use git2::Repository;

use super::Output;
use crate::error::Result;
use crate::ops::propose::{self, ProposeOutcome, ProposeRequest};

#[derive(Debug, Args)]
pub struct ProposeArgs {
    /// Regex to search for (multi-line mode: ^ and $ match at line ends).
    #[arg(long, short = 'p')]
    pub pattern: String,
    /// Replacement text; $1 and ${name} expand to captures unless --literal.
    #[arg(long, short = 'r', allow_hyphen_values = true)]
    pub replacement: String,
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
}

impl ProposeArgs {
    fn request(&self) -> ProposeRequest {
        ProposeRequest {
            pattern: self.pattern.clone(),
            replacement: self.replacement.clone(),
            scope: self.scope.clone(),
            literal: self.literal,
            message: self.message.clone(),
            include_filtered: self.include_filtered,
        }
    }
}

pub fn run(repo: &Repository, args: &ProposeArgs, out: &Output) -> Result<()> {
    let outcome = propose::propose(repo, &args.request())?;
    render(&outcome, out);
    Ok(())
}

/// Shared with the demo.
pub fn render(o: &ProposeOutcome, out: &Output) {
    if out.json {
        out.json_value(o);
        return;
    }
    out.diff(&o.diff_bytes);
    let s = &o.statistics;
    let binary = if s.binary_skipped > 0 {
        format!(", {} binary skipped", s.binary_skipped)
    } else {
        String::new()
    };
    for skipped in &o.skipped {
        out.status(&format!("skipped {}: {}", skipped.path, skipped.reason));
    }
    out.status(&format!(
        "Proposed {}: {} file(s), {} replacement(s), +{} -{} lines ({} file(s) scanned{binary}).\nApply it with `git evolv apply {}`, discard it with `git evolv drop {}`.",
        o.patch_id, s.files_matched, s.total_changes, s.lines_added, s.lines_removed, s.files_scanned, o.patch_id, o.patch_id
    ));
}
