//! The server's lint of pushed commit messages (`evolv.lintPushes`): each
//! commit a push would land is linted with the server's `evolv.commit.*`
//! rules; errors refuse the push with the findings.
//!
//! Stricter than `git evolv lint --range` in a clone (issue 38 item 5).
//! The clone's skips assume a workflow a server does not have: nothing
//! autosquashes a `fixup!` on its way to `main`, `git commit-tree` writes
//! empty messages, a one-parent commit titled `Merge branch …` is no
//! merge, and the pusher chooses the author that `ignoreAuthors` trusts.
//! So on a server:
//! - an empty message, `fixup!`/`squash!`/`amend!`, and a merge message on
//!   a commit that is not a merge are refused;
//! - no author is ignored;
//! - a release version (`1.2.0`, `chore(release): v1.2.0`) passes, as in
//!   a clone, and so does a real revert: `Revert "…"` (or `Reapply "…"`)
//!   whose body says `This reverts commit <id>.` of a commit the server
//!   has. Any other `Revert …` is linted like any message.

use crate::error::{Error, Result};
use crate::git::{Oid, Repo};
use crate::lint::{self, CleanMode, LintConfig};
use crate::ops::settings::Settings;

/// Refuses the first of `commits` whose message the server does not take,
/// naming the commit, its header and why.
pub fn check(repo: &Repo, settings: &Settings, commits: &[Oid]) -> Result<()> {
    if !settings.lint_pushes()? {
        return Ok(());
    }
    let config = settings.lint()?;
    for &c in commits {
        let commit = repo.find_commit(c)?;
        let text = String::from_utf8_lossy(commit.message_bytes()).into_owned();
        if let Some((why, hint)) = refusal(repo, &text, &config) {
            return Err(Error::invalid(
                format!(
                    "commit {} \"{}\" fails the server's commit message lint: {why}",
                    &c.to_string()[..12],
                    commit.summary(),
                ),
                hint,
            ));
        }
    }
    Ok(())
}

/// Why the server refuses `text` (a one-parent commit's message), and
/// what to do; `None` when it passes.
fn refusal(repo: &Repo, text: &str, config: &LintConfig) -> Option<(String, String)> {
    let reword = || "reword the commit (`git commit --amend`, `git rebase -i`) and push again";
    let cleaned = lint::clean(text, CleanMode::Stored, &config.comment_char);
    if cleaned.is_empty() {
        return Some((
            "the message is empty [empty-message]".into(),
            reword().into(),
        ));
    }
    match lint::ignored_reason(&cleaned.text()) {
        None => {}
        Some("release version") => return None,
        Some("revert message" | "reapply message") if reverts_a_known_commit(repo, text) => {
            return None;
        }
        Some("merge message") => {
            return Some((
                "a merge message on a commit that is not a merge [merge-message]".into(),
                reword().into(),
            ));
        }
        Some(reason) if reason.starts_with("fixup!") => {
            return Some((
                "a fixup!/squash!/amend! commit: nothing autosquashes it on the server [fixup]"
                    .into(),
                "squash it before pushing (`git rebase -i --autosquash`) and push again".into(),
            ));
        }
        // A revert or reapply that reverts nothing the server knows is a
        // message like any other: the rules judge it.
        Some(_) => {}
    }
    let report = lint::check_rules(&cleaned, config);
    if report.passed() {
        return None;
    }
    let errors: Vec<String> = report
        .findings
        .iter()
        .filter(|f| f.severity == lint::Severity::Error)
        .map(|f| format!("{} [{}]", f.message, f.rule.name()))
        .collect();
    Some((
        errors.join("; "),
        report.suggested_header.map_or_else(
            || reword().to_string(),
            |h| format!("reword its header to `{h}` (`git commit --amend`) and push again"),
        ),
    ))
}

/// Whether the body says `This reverts commit <id>.` (as `git revert`
/// writes it) of a commit the server has.
fn reverts_a_known_commit(repo: &Repo, text: &str) -> bool {
    text.lines().any(|line| {
        line.trim()
            .strip_prefix("This reverts commit ")
            .and_then(|rest| rest.strip_suffix('.'))
            .and_then(|id| Oid::parse(id).ok())
            .is_some_and(|id| repo.find_commit(id).is_ok())
    })
}
