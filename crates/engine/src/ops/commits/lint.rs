//! lint and the commit-msg hook: read the messages (an argument, a file,
//! stdin, or the commits of a range), build the `LintConfig` from git
//! config, and run the pure `lint` engine. Findings are the outcome, never
//! an `Error`; errors are for input that cannot be read or understood.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::error::{Error, Result};
use crate::git::{Order, RangeProblem, Repo, RevRange};
use crate::hooks::invocation::InProgress;
use crate::lint::{self, CleanMode, CommentChar, LintConfig, Report};

use crate::ops::session::Session;
use crate::ops::session::{Open, UseCase};
use crate::ops::settings::Settings;

/// What to lint: one message (text or file) or the commits of a range.
#[derive(Debug, Clone, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, default)]
pub struct LintRequest {
    /// The message text.
    pub message: Option<String>,
    /// A message file, cleaned as git cleans an edited message.
    pub file: Option<PathBuf>,
    /// Every commit in `A..B`, oldest first (needs a repository).
    pub range: Option<String>,
    /// With `range`, lint merge commits too (skipped by default).
    pub include_merges: bool,
}

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

/// `lint`: the message, the file or the range of `req` (exactly one),
/// with the session's settings (the repository's around `dir` if there is
/// one). A range needs a repository (the one around `dir`, honouring
/// `GIT_DIR`, which git sets for some hooks); a message does not.
pub fn run(dir: &Path, settings: &Settings, req: &LintRequest) -> Result<LintOutcome> {
    let config = settings.lint()?;
    match (&req.message, &req.file, &req.range) {
        (None, None, Some(range)) => {
            let repo = crate::git::discover(dir).ok_or_else(|| Error::NotARepository {
                path: dir.to_path_buf(),
            })?;
            lint_range(&repo, range, req.include_merges, &config)
        }
        (Some(text), None, None) => lint_message(
            &MessageSource::Text {
                name: "<argument>".into(),
                text: text.clone(),
            },
            &config,
        ),
        (None, Some(file), None) => lint_message(&MessageSource::File(file.clone()), &config),
        _ => Err(Error::invalid_field(
            "message",
            "give exactly one of message, file and range",
            "lint a message text, a message file, or the commits of a range A..B",
        )),
    }
}

/// One message to lint with an open repository's settings (the MCP
/// tool): `name` is how reports show it.
#[derive(Debug, Clone)]
pub struct MessageRequest {
    pub name: String,
    pub text: String,
}

/// `lint` of a message read from stdin (shown as `<stdin>` in reports).
pub fn run_stdin(settings: &Settings, text: &str) -> Result<LintOutcome> {
    let config = settings.lint()?;
    lint_message(
        &MessageSource::Text {
            name: "<stdin>".into(),
            text: text.to_string(),
        },
        &config,
    )
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
    repo: &Repo,
    range: &str,
    include_merges: bool,
    config: &LintConfig,
) -> Result<LintOutcome> {
    let RevRange {
        from,
        to,
        symmetric,
    } = repo.parse_range(range).map_err(|p| match p {
        RangeProblem::SingleRevision => Error::invalid_field(
            "range",
            format!("range '{range}' is a single revision, not a range"),
            "give A..B, e.g. origin/main..HEAD (the commits on HEAD that origin/main lacks)",
        ),
        RangeProblem::EmptySide => Error::invalid_field(
            "range",
            format!("range '{range}' has an empty side"),
            "name both ends, e.g. origin/main..HEAD",
        ),
        RangeProblem::Unresolved(why) => bad_range(range, &why),
    })?;
    let (from_side, hide) = match symmetric {
        true => (
            vec![to, from],
            repo.merge_base(from, to).into_iter().collect(),
        ),
        false => (vec![to], vec![from]),
    };
    let mut messages = Vec::new();
    for oid in repo.walk(&from_side, &hide, Order::OldestFirst)? {
        let commit = repo.find_commit(oid)?;
        let author = commit.author();
        let author_text = format!("{} <{}>", author.name, author.email);
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

fn oid_short(commit: &crate::git::objects::view::Commit<'_>) -> String {
    let id = commit.id().to_string();
    id[..12.min(id.len())].to_string()
}

fn bad_range(range: &str, why: &str) -> Error {
    Error::invalid_field(
        "range",
        format!("range '{range}': {why}"),
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
    /// When rejected: the message as this commit would have stored it
    /// (comments, the `-v` diff and git's whitespace cleaned away), which
    /// `retry` commits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_file: Option<String>,
    /// The command that retries the commit with the kept message, fitted
    /// to the situation (amend, rebase, merge, cherry-pick, revert).
    pub retry: String,
}

/// What the commit-msg hook knows about the commit it judges.
#[derive(Debug, Clone)]
pub struct CommitMsgRequest {
    /// The message file git passes (`.git/COMMIT_EDITMSG`, `.git/MERGE_MSG`, …).
    pub file: PathBuf,
    pub config: LintConfig,
    /// How this commit will clean its message (`CleanMode::Edit` when unknown).
    pub cleanup: CleanMode,
    /// `git commit --amend`.
    pub amend: bool,
    /// `git commit -v`.
    pub verbose: bool,
    /// The operation in progress in the git directory.
    pub in_progress: InProgress,
    /// Where to ask git whether a rebase's commit already exists.
    pub work_dir: PathBuf,
}

impl CommitMsgRequest {
    /// The request of the commit-msg hook run in `dir` on the message file
    /// `file`: the lint settings from the git dir alone (no repository
    /// opened: the hook must start fast), the cleanup of `git commit` when
    /// its command line is known (else, a rebase, a merge, another OS, the
    /// editor's cleanup), and the operation in progress.
    pub fn for_hook(dir: &Path, settings: &Settings, file: &Path) -> Result<CommitMsgRequest> {
        use crate::git::config::discover_git_dir;
        use crate::hooks::invocation::{self, CommitArgs};
        use crate::lint::GitCleanup;
        let config = settings.lint()?;
        let git_dir = discover_git_dir(dir);
        let args = invocation::parent_git_args("commit").map(|a| CommitArgs::parse(&a));
        let cleanup = match &args {
            Some(a) => CleanMode::Git(GitCleanup::for_commit(
                a.cleanup.as_deref().or_else(|| settings.commit_cleanup()),
                a.editor(),
                a.verbose,
            )),
            None => CleanMode::Edit,
        };
        Ok(CommitMsgRequest {
            file: file.to_path_buf(),
            config,
            cleanup,
            amend: args.as_ref().is_some_and(|a| a.amend),
            verbose: args.as_ref().is_some_and(|a| a.verbose),
            in_progress: git_dir.as_deref().map_or(InProgress::None, InProgress::of),
            work_dir: dir.to_path_buf(),
        })
    }
}

/// `git evolv hook commit-msg <file>`: lints the message file git passes,
/// cleaned exactly as this commit's cleanup mode will clean it. On
/// rejection the cleaned message is saved beside the file for the retry.
pub fn commit_msg(request: &CommitMsgRequest) -> Result<CommitMsgOutcome> {
    let file = &request.file;
    let raw = read_message(file)?;
    let report = lint::lint(&raw, request.cleanup, &request.config);
    let shown = file.display().to_string();
    let outcome = LintOutcome::from_messages(vec![MessageReport {
        source: shown.clone(),
        file: Some(shown.clone()),
        commit: None,
        author: None,
        summary: None,
        skipped: None,
        report,
    }]);
    let kept_at = std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf());
    let kept = kept_at.display().to_string();
    if outcome.success {
        return Ok(CommitMsgOutcome {
            outcome,
            message_file: shown,
            retry: format!("git commit -e -F {}", shell_quote(&kept)),
            retry_file: None,
            kept_at: kept,
        });
    }
    let cleaned = lint::clean(&raw, request.cleanup, &request.config.comment_char).text();
    let saved = kept_at.with_file_name("EVOLV_REJECTED_MSG");
    let retry_file = match std::fs::write(&saved, format!("{cleaned}\n")) {
        Ok(()) => saved,
        // A read-only place: the original file is the next best thing.
        Err(_) => kept_at.clone(),
    };
    let retry = retry_command(request, &cleaned, &retry_file.display().to_string());
    Ok(CommitMsgOutcome {
        outcome,
        message_file: shown,
        retry,
        retry_file: Some(retry_file.display().to_string()),
        kept_at: kept,
    })
}

/// The command that commits the saved message again, in the situation the
/// rejected commit was made in. See: issue #17, item 5.
fn retry_command(request: &CommitMsgRequest, message: &str, file: &str) -> String {
    // A kept line starting with the comment character (`#42 fix login`
    // from `-m`) would be stripped by the editor's cleanup: let git pick
    // a comment character the message does not use.
    let comment = match &request.config.comment_char {
        CommentChar::Prefix(p) => p.clone(),
        CommentChar::Auto => "#".into(),
    };
    let auto = message.lines().any(|l| l.starts_with(comment.as_str()))
        || request.config.comment_char == CommentChar::Auto;
    let git = if auto {
        "git -c core.commentChar=auto"
    } else {
        "git"
    };
    let verbose = if request.verbose { " -v" } else { "" };
    let file = shell_quote(file);
    let commit = format!("{git} commit{verbose} -e -F {file}");
    let amend = format!("{git} commit --amend{verbose} -e -F {file}");
    match request.in_progress {
        InProgress::Rebase => {
            if nothing_staged(&request.work_dir) {
                // A reword: the commit exists with its old message.
                format!("{amend} && git rebase --continue")
            } else {
                format!("{commit} && git rebase --continue")
            }
        }
        InProgress::CherryPick { sequence: true } => {
            format!("{commit} && git cherry-pick --continue")
        }
        InProgress::Revert { sequence: true } => format!("{commit} && git revert --continue"),
        _ if request.amend => amend,
        _ => commit,
    }
}

/// Whether the index matches HEAD (`git diff --cached --quiet`).
fn nothing_staged(work_dir: &Path) -> bool {
    std::process::Command::new("git")
        .args(["diff", "--cached", "--quiet"])
        .current_dir(work_dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
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

impl UseCase for LintRequest {
    const OPEN: Open = Open::NoRepository;
    type Outcome = LintOutcome;

    fn run(&self, session: &Session) -> Result<LintOutcome> {
        run(session.dir(), session.settings()?, self)
    }
}

impl UseCase for MessageRequest {
    const OPEN: Open = Open::Recovering;
    type Outcome = LintOutcome;

    /// One commit message, with the repository's settings.
    fn run(&self, session: &Session) -> Result<LintOutcome> {
        let config = session.settings()?.lint()?;
        let source = MessageSource::Text {
            name: self.name.clone(),
            text: self.text.clone(),
        };
        lint_message(&source, &config)
    }
}

/// A message read from stdin (`<stdin>` in reports).
pub struct StdinRequest {
    pub text: String,
}

impl UseCase for StdinRequest {
    const OPEN: Open = Open::NoRepository;
    type Outcome = LintOutcome;

    fn run(&self, session: &Session) -> Result<LintOutcome> {
        run_stdin(session.settings()?, &self.text)
    }
}

/// The commit-msg hook: the message file git passes, cleaned as this
/// commit will clean it.
pub struct CommitMsgHook {
    pub file: std::path::PathBuf,
}

impl UseCase for CommitMsgHook {
    const OPEN: Open = Open::NoRepository;
    type Outcome = CommitMsgOutcome;

    fn run(&self, session: &Session) -> Result<CommitMsgOutcome> {
        let dir = session.dir();
        let request = CommitMsgRequest::for_hook(dir, session.settings()?, &self.file)?;
        commit_msg(&request)
    }
}
