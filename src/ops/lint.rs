//! lint and the commit-msg hook: read the messages (an argument, a file,
//! stdin, or the commits of a range), build the `LintConfig` from git
//! config, and run the pure `lint` engine. Findings are the outcome, never
//! an `Error`; errors are for input that cannot be read or understood.

use std::path::{Path, PathBuf};

use git2::{Repository, Sort};
use serde::Serialize;

use crate::error::{Error, Result};
use crate::lint::{self, CleanMode, CommentChar, LintConfig, Report};

/// Where a single message comes from.
#[derive(Debug, Clone)]
pub enum MessageSource {
    /// Text already read (an argument, stdin); `name` is shown in reports.
    Text { name: String, text: String },
    /// A message file (`.git/COMMIT_EDITMSG`, `--file`).
    File(PathBuf),
}

/// The verdict on one message, with where it came from.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct MessageReport {
    /// `<argument>`, `<stdin>`, a file path or a commit id.
    pub source: String,
    /// The file the line numbers refer to, for annotations.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// Why range mode did not lint this commit (a merge, an ignored author).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    #[serde(flatten)]
    pub report: Report,
}

/// What `lint` found: `success` is false when any message has an error.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct LintOutcome {
    pub success: bool,
    pub errors: usize,
    pub warnings: usize,
    /// Messages the rules ran on.
    pub linted: usize,
    /// Messages not judged: ignored (merge, revert, fixup!, version),
    /// skipped (merges in range mode, ignored authors) or empty.
    pub not_linted: usize,
    pub messages: Vec<MessageReport>,
}

impl LintOutcome {
    fn from_messages(messages: Vec<MessageReport>) -> Self {
        let errors = messages.iter().map(|m| m.report.errors()).sum();
        let warnings = messages.iter().map(|m| m.report.warnings()).sum();
        let not_linted = messages
            .iter()
            .filter(|m| m.skipped.is_some() || m.report.ignored.is_some() || m.report.empty)
            .count();
        LintOutcome {
            success: errors == 0,
            errors,
            warnings,
            linted: messages.len() - not_linted,
            not_linted,
            messages,
        }
    }

    /// The process exit code: 1 when a message has errors.
    pub fn exit_code(&self) -> u8 {
        u8::from(!self.success)
    }
}

/// The repository around `dir`, if any (lint of a message works outside
/// one). Honours `GIT_DIR`, which git sets for some hooks.
pub fn discover(dir: &Path) -> Option<Repository> {
    if std::env::var_os("GIT_DIR").is_some() {
        return Repository::open_from_env().ok();
    }
    Repository::discover(dir).ok()
}

/// The lint settings from git config (`evolv.commit.*`, `core.commentChar`),
/// with git's layering: system, global, local, worktree. Outside a
/// repository, the user's global config still applies.
pub fn load_config(repo: Option<&Repository>) -> Result<LintConfig> {
    let git_config = match repo {
        Some(r) => r.config()?,
        None => git2::Config::open_default()?,
    };
    let mut config = LintConfig::default();
    let mut names: Vec<String> = Vec::new();
    git_config
        .entries(Some(r"evolv\.commit\..*"))?
        .for_each(|entry| {
            if let Some(name) = entry.name()
                && !names.iter().any(|n| n == name)
            {
                names.push(name.to_string());
            }
        })?;
    for name in names {
        // The value with git's precedence; every value for the list key.
        let values: Vec<String> = if name.eq_ignore_ascii_case("evolv.commit.ignoreauthors") {
            let mut all = Vec::new();
            git_config
                .multivar(&name, None)?
                .for_each(|e| all.extend(e.value().map(str::to_string)))?;
            all
        } else {
            git_config.get_string(&name).into_iter().collect()
        };
        for value in values {
            config
                .apply(&name["evolv.commit.".len()..], &value)
                .map_err(|issue| Error::InvalidConfig {
                    key: name.clone(),
                    value: value.clone(),
                    expected: issue.expected,
                })?;
        }
    }
    for key in ["core.commentchar", "core.commentstring"] {
        if let Ok(v) = git_config.get_string(key) {
            config.comment_char = CommentChar::from_config(&v);
        }
    }
    // `git -c key=value` reaches hooks only through the environment, which
    // libgit2 does not read.
    for (key, value) in command_line_config() {
        let lower = key.to_ascii_lowercase();
        if lower == "core.commentchar" || lower == "core.commentstring" {
            config.comment_char = CommentChar::from_config(&value);
        } else if let Some(rest) = key.strip_prefix("evolv.commit.") {
            config
                .apply(rest, &value)
                .map_err(|issue| Error::InvalidConfig {
                    key: key.clone(),
                    value: value.clone(),
                    expected: issue.expected,
                })?;
        }
    }
    Ok(config)
}

/// The settings of `git -c k=v` (`GIT_CONFIG_PARAMETERS`, single-quoted
/// `'k'='v'` or `'k=v'` items) and of `GIT_CONFIG_COUNT`/`_KEY_n`/`_VALUE_n`.
fn command_line_config() -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let Ok(count) = std::env::var("GIT_CONFIG_COUNT") {
        for i in 0..count.trim().parse::<usize>().unwrap_or(0) {
            if let (Ok(k), Ok(v)) = (
                std::env::var(format!("GIT_CONFIG_KEY_{i}")),
                std::env::var(format!("GIT_CONFIG_VALUE_{i}")),
            ) {
                out.push((k, v));
            }
        }
    }
    if let Ok(params) = std::env::var("GIT_CONFIG_PARAMETERS") {
        out.extend(parse_config_parameters(&params));
    }
    out
}

/// Parses git's `GIT_CONFIG_PARAMETERS`: sq-quoted words, each `'k=v'` or
/// `'k'='v'`, separated by spaces; `'\\''` is an embedded quote.
fn parse_config_parameters(params: &str) -> Vec<(String, String)> {
    type Chars<'a> = std::iter::Peekable<std::str::Chars<'a>>;
    /// One sq-quoted word, the opening quote already consumed.
    fn word(chars: &mut Chars<'_>) -> Option<String> {
        let mut s = String::new();
        loop {
            match chars.next()? {
                '\'' if chars.peek() == Some(&'\\') => {
                    // `'\''`: close, escaped quote, reopen.
                    chars.next();
                    chars.next();
                    chars.next();
                    s.push('\'');
                }
                '\'' => return Some(s),
                c => s.push(c),
            }
        }
    }
    let mut out = Vec::new();
    let mut chars = params.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        if chars.next() != Some('\'') {
            break;
        }
        let Some(first) = word(&mut chars) else {
            break;
        };
        let item = if chars.peek() == Some(&'=') {
            chars.next();
            let value = if chars.next() == Some('\'') {
                word(&mut chars).unwrap_or_default()
            } else {
                String::new()
            };
            (first, value)
        } else {
            match first.split_once('=') {
                Some((k, v)) => (k.to_string(), v.to_string()),
                None => (first, "true".to_string()),
            }
        };
        out.push(item);
    }
    out
}

/// Lints one message (argument, stdin or file), cleaned as git cleans an
/// edited message. An empty message (nothing left after cleaning) is bad
/// input here; the commit-msg hook lets it through, git aborts it itself.
pub fn lint_message(source: &MessageSource, config: &LintConfig) -> Result<LintOutcome> {
    let outcome = lint_message_allow_empty(source, config)?;
    if let Some(m) = outcome.messages.iter().find(|m| m.report.empty) {
        return Err(Error::invalid(
            format!(
                "the commit message from {} is empty (after removing comment lines)",
                m.source
            ),
            "give a message such as \"feat: add login\"",
        ));
    }
    Ok(outcome)
}

fn lint_message_allow_empty(source: &MessageSource, config: &LintConfig) -> Result<LintOutcome> {
    let (name, file, text) = match source {
        MessageSource::Text { name, text } => (name.clone(), None, text.clone()),
        MessageSource::File(path) => {
            let text = read_message(path)?;
            let shown = path.display().to_string();
            (shown.clone(), Some(shown), text)
        }
    };
    let report = lint::lint(&text, CleanMode::Edit, config);
    Ok(LintOutcome::from_messages(vec![MessageReport {
        source: name,
        file,
        commit: None,
        author: None,
        summary: None,
        skipped: None,
        report,
    }]))
}

/// Reads a message file; bytes that are not UTF-8 are replaced (git allows
/// other encodings, the rules only need the ASCII structure).
fn read_message(path: &Path) -> Result<String> {
    let bytes = std::fs::read(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Error::invalid(
            format!("commit message file '{}' does not exist", path.display()),
            "check the path (relative paths are relative to the current directory); \
             git passes the message file to the commit-msg hook as its first argument",
        ),
        _ => Error::io("read commit message file", path, e),
    })?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// Lints every commit in `range` (`A..B` or `A...B`), oldest first. Merge
/// commits are skipped unless `include_merges`; so are authors matching
/// `evolv.commit.ignoreAuthors`.
pub fn lint_range(
    repo: &Repository,
    range: &str,
    include_merges: bool,
    config: &LintConfig,
) -> Result<LintOutcome> {
    let spec = repo.revparse(range).map_err(|e| bad_range(range, &e))?;
    if !spec.mode().contains(git2::RevparseMode::RANGE) {
        return Err(Error::invalid(
            format!("--range '{range}' is a single revision, not a range"),
            "pass A..B, e.g. --range origin/main..HEAD (the commits on HEAD that origin/main lacks)",
        ));
    }
    let (Some(from), Some(to)) = (spec.from(), spec.to()) else {
        return Err(Error::invalid(
            format!("--range '{range}' has an empty side"),
            "name both ends, e.g. --range origin/main..HEAD",
        ));
    };
    let mut walk = repo.revwalk()?;
    walk.set_sorting(Sort::TOPOLOGICAL | Sort::REVERSE)?;
    walk.push(to.id())?;
    if spec.mode().contains(git2::RevparseMode::MERGE_BASE) {
        walk.push(from.id())?;
        if let Ok(base) = repo.merge_base(from.id(), to.id()) {
            walk.hide(base)?;
        }
    } else {
        walk.hide(from.id())?;
    }
    let mut messages = Vec::new();
    for oid in walk {
        let commit = repo.find_commit(oid?)?;
        let author = commit.author();
        let author_text = format!(
            "{} <{}>",
            String::from_utf8_lossy(author.name_bytes()),
            String::from_utf8_lossy(author.email_bytes())
        );
        let text = String::from_utf8_lossy(commit.message_bytes()).into_owned();
        let skipped = if commit.parent_count() > 1 && !include_merges {
            Some("merge commit (pass --include-merges to lint merges)".to_string())
        } else {
            config
                .author_ignored(&author_text)
                .map(|p| format!("author matches evolv.commit.ignoreAuthors '{p}'"))
        };
        let report = if skipped.is_some() {
            Report::default()
        } else {
            lint::lint(&text, CleanMode::Stored, config)
        };
        messages.push(MessageReport {
            source: oid_short(&commit),
            file: None,
            commit: Some(commit.id().to_string()),
            author: Some(author_text),
            summary: Some(text.lines().next().unwrap_or("").to_string()),
            skipped,
            report,
        });
    }
    Ok(LintOutcome::from_messages(messages))
}

fn oid_short(commit: &git2::Commit<'_>) -> String {
    let id = commit.id().to_string();
    id[..12.min(id.len())].to_string()
}

fn bad_range(range: &str, e: &git2::Error) -> Error {
    Error::invalid(
        format!("--range '{range}': {}", e.message()),
        "check both revisions exist (`git rev-parse A B`); in CI, fetch the base first \
         (actions/checkout with fetch-depth: 0, or `git fetch origin main`)",
    )
}

/// The commit-msg hook's answer: the lint outcome and, when rejected, where
/// git kept the message and how to reuse it.
#[derive(Debug, Clone, Serialize)]
pub struct CommitMsgOutcome {
    #[serde(flatten)]
    pub outcome: LintOutcome,
    /// The message file as git passed it.
    pub message_file: String,
    /// The same file as an absolute path, usable from any directory.
    pub kept_at: String,
    /// The command that retries the commit with the kept message.
    pub retry: String,
}

/// `git evolv hook commit-msg <file>`: lints the message file git passes
/// (`.git/COMMIT_EDITMSG`, `.git/MERGE_MSG`, a linked worktree's file).
pub fn commit_msg(file: &Path, config: &LintConfig) -> Result<CommitMsgOutcome> {
    let outcome = lint_message_allow_empty(&MessageSource::File(file.to_path_buf()), config)?;
    let kept_at = std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf());
    let kept = kept_at.display().to_string();
    Ok(CommitMsgOutcome {
        outcome,
        message_file: file.display().to_string(),
        retry: format!("git commit -e -F {}", shell_quote(&kept)),
        kept_at: kept,
    })
}

/// Quotes for sh when needed.
fn shell_quote(s: &str) -> String {
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+:@%".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::parse_config_parameters;

    #[test]
    fn reads_git_dash_c_parameters_in_both_formats() {
        let got =
            parse_config_parameters("'core.commentchar'=';' 'evolv.commit.types=feat,fix' 'x.y'");
        assert_eq!(
            got,
            [
                ("core.commentchar".to_string(), ";".to_string()),
                ("evolv.commit.types".to_string(), "feat,fix".to_string()),
                ("x.y".to_string(), "true".to_string()),
            ]
        );
        let got = parse_config_parameters("'user.name'='O'\\''Brien'");
        assert_eq!(got, [("user.name".to_string(), "O'Brien".to_string())]);
    }
}
