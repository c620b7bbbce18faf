//! The server's lint of pushed commit messages (`evolv.lintPushes`): each
//! commit a push would land is linted with the server's `evolv.commit.*`
//! rules, as `git evolv lint --range` lints it; errors refuse the push
//! with the findings.

use crate::error::{Error, Result};
use crate::git::{Oid, Repo};
use crate::lint::{self, CleanMode};
use crate::ops::settings::Settings;

/// Refuses the first of `commits` whose message has lint errors, naming
/// the commit, its header and every error.
pub fn check(repo: &Repo, settings: &Settings, commits: &[Oid]) -> Result<()> {
    if !settings.lint_pushes()? {
        return Ok(());
    }
    let config = settings.lint()?;
    for &c in commits {
        let commit = repo.find_commit(c)?;
        if commit.parent_count() > 1 {
            continue;
        }
        let a = commit.author();
        if config
            .author_ignored(&format!("{} <{}>", a.name, a.email))
            .is_some()
        {
            continue;
        }
        let text = String::from_utf8_lossy(commit.message_bytes()).into_owned();
        let report = lint::lint(&text, CleanMode::Stored, &config);
        if report.passed() {
            continue;
        }
        let errors: Vec<String> = report
            .findings
            .iter()
            .filter(|f| f.severity == lint::Severity::Error)
            .map(|f| format!("{} [{}]", f.message, f.rule.name()))
            .collect();
        return Err(Error::invalid(
            format!(
                "commit {} \"{}\" fails the server's commit message lint: {}",
                &c.to_string()[..12],
                commit.summary(),
                errors.join("; ")
            ),
            report.suggested_header.map_or_else(
                || "reword the commit (`git commit --amend`) and push again".to_string(),
                |h| format!("reword its header to `{h}` (`git commit --amend`) and push again"),
            ),
        ));
    }
    Ok(())
}
