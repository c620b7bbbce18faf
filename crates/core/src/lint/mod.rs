//! Commit-message lint (Conventional Commits 1.0.0), pure: text and a
//! `LintConfig` in, a `Report` of findings out. No I/O, no git: reading git
//! config and files is `ops::commits::lint`'s job. Defaults and rule semantics
//! are commitlint's config-conventional, so switching to git-evolv changes no
//! verdict; on top, the message is cleaned as git cleans it and every finding
//! carries a line, a column, the expected form and a suggestion.

#[cfg(test)]
mod agreement;
mod clean;
mod config;
mod finding;
mod header;
mod ignore;
mod message;
mod rules;
mod suggest;
#[cfg(test)]
mod tests;

pub use clean::{CleanMode, Cleaned, CommentChar, GitCleanup, Line, SCISSORS, clean};
pub use config::{ConfigIssue, DEFAULT_TYPES, LintConfig, Rule, Severity};
pub use finding::{Finding, Report};
pub use ignore::reason as ignored_reason;

/// Lints one message: clean it for `mode`, skip it if commitlint would
/// (merge, revert, fixup!, version), else run the rules.
pub fn lint(raw: &str, mode: CleanMode, config: &LintConfig) -> Report {
    let cleaned = clean(raw, mode, &config.comment_char);
    if cleaned.is_empty() {
        return Report {
            empty: true,
            ..Report::default()
        };
    }
    if let Some(reason) = ignore::reason(&cleaned.text()) {
        return Report {
            ignored: Some(reason.to_string()),
            ..Report::default()
        };
    }
    check_rules(&cleaned, config)
}

/// Runs the rules on a cleaned, non-empty message, skipping nothing (a
/// server judges what a clone would skip: `receive::lint`).
pub fn check_rules(cleaned: &Cleaned, config: &LintConfig) -> Report {
    let parts = message::split(cleaned);
    let (findings, suggested_header) = rules::check(&parts, config);
    Report {
        ignored: None,
        empty: false,
        findings,
        suggested_header,
    }
}
