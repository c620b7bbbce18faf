//! `git evolv lint`: a message (argument, `--file`, stdin) or the commits
//! of `--range`, rendered as text, JSON or GitHub annotations. Exit 0 when
//! clean (warnings allowed), 1 with error findings, 2 on bad input.

use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};

use super::Output;
use crate::error::{Error, Result};
use crate::lint::{Finding, Severity};
use crate::ops::commits::lint::{
    LintOutcome, LintRequest, MessageReport, MessageSource, StdinRequest,
};

#[derive(Debug, Args)]
pub struct LintArgs {
    /// The commit message to lint. Without MESSAGE, --file or --range, the
    /// message is read from stdin.
    #[arg(value_name = "MESSAGE")]
    pub message: Option<String>,
    /// Lint the message in FILE (`-` for stdin), cleaned as git would clean it.
    #[arg(long, short = 'F', value_name = "FILE", conflicts_with = "message")]
    pub file: Option<PathBuf>,
    /// Lint every commit in A..B (e.g. origin/main..HEAD), oldest first.
    #[arg(long, value_name = "A..B", conflicts_with_all = ["message", "file"])]
    pub range: Option<String>,
    /// With --range, lint merge commits too (skipped by default).
    #[arg(long, requires = "range")]
    pub include_merges: bool,
    /// Output format; `--json` is the same as `--format json`.
    #[arg(long, value_enum)]
    pub format: Option<LintFormat>,
}

/// `--format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LintFormat {
    /// Findings for people.
    Text,
    /// The outcome as JSON.
    Json,
    /// GitHub Actions `::error` / `::warning` annotations.
    Github,
}

/// The format to use: an explicit `--format` wins, then `--json`.
pub fn format(args: &LintArgs, out: &Output) -> LintFormat {
    args.format.unwrap_or(if out.json {
        LintFormat::Json
    } else {
        LintFormat::Text
    })
}

pub fn run(dir: &Path, args: &LintArgs, out: &Output) -> Result<u8> {
    let stdin = args.range.is_none()
        && (args.message.is_none() && args.file.as_deref().is_none_or(|f| f == Path::new("-")));
    let outcome = if stdin {
        let MessageSource::Text { text, .. } = stdin_source()? else {
            unreachable!("stdin is text")
        };
        super::session::<StdinRequest>(dir, out)?.run(&StdinRequest { text })?
    } else {
        super::session::<LintRequest>(dir, out)?.run(&LintRequest {
            message: args.message.clone(),
            file: args.file.clone(),
            range: args.range.clone(),
            include_merges: args.include_merges,
        })?
    };
    match format(args, out) {
        LintFormat::Json => out.json_value(&outcome),
        LintFormat::Github => out.data(github(&outcome).as_bytes()),
        LintFormat::Text => {
            out.data(text(&outcome, out.color).as_bytes());
            out.status(&summary(&outcome));
        }
    }
    Ok(outcome.exit_code())
}

fn stdin_source() -> Result<MessageSource> {
    let mut stdin = std::io::stdin();
    if stdin.is_terminal() {
        return Err(Error::invalid(
            "no commit message given",
            "pass it as an argument (`git evolv lint \"feat: add x\"`), with --file FILE, \
             on stdin, or lint commits with --range A..B",
        ));
    }
    let mut text = String::new();
    stdin
        .read_to_string(&mut text)
        .map_err(|e| Error::io("read commit message from", "stdin", e))?;
    Ok(MessageSource::Text {
        name: "<stdin>".into(),
        text,
    })
}

/// The findings for people, one block per message that has any.
pub fn text(outcome: &LintOutcome, color: bool) -> String {
    let mut s = String::new();
    for m in &outcome.messages {
        if m.report.findings.is_empty() {
            continue;
        }
        s.push_str(&title(m));
        s.push('\n');
        for f in &m.report.findings {
            s.push_str(&finding_text(f, color));
        }
        if let Some(h) = &m.report.suggested_header {
            s.push_str(&format!("  suggested header: {h}\n"));
        }
    }
    s
}

fn title(m: &MessageReport) -> String {
    match &m.summary {
        Some(summary) => format!("{} {summary}", m.source),
        None => m.source.clone(),
    }
}

fn finding_text(f: &Finding, color: bool) -> String {
    let (label, paint) = match f.severity {
        Severity::Error => ("error", "\x1b[31m"),
        _ => ("warning", "\x1b[33m"),
    };
    let label = if color {
        format!("{paint}{label}\x1b[0m")
    } else {
        label.to_string()
    };
    let mut s = format!(
        "  {}:{}: {label}[{}]: {}\n    expected: {}\n",
        f.line,
        f.column,
        f.rule.name(),
        f.message,
        f.expected
    );
    if let Some(sug) = &f.suggestion {
        s.push_str(&format!("    suggestion: {sug}\n"));
    }
    s
}

/// One line for stderr: how many messages, errors and warnings.
pub fn summary(outcome: &LintOutcome) -> String {
    let mut s = format!(
        "{} message(s) linted: {} error(s), {} warning(s)",
        outcome.linted, outcome.errors, outcome.warnings
    );
    if outcome.not_linted > 0 {
        s.push_str(&format!(
            "; {} not linted (merge, revert, fixup!, version, ignored author or empty)",
            outcome.not_linted
        ));
    }
    s
}

/// GitHub Actions workflow commands: one annotation per finding.
pub fn github(outcome: &LintOutcome) -> String {
    let mut s = String::new();
    for m in &outcome.messages {
        for f in &m.report.findings {
            let level = if f.severity == Severity::Error {
                "error"
            } else {
                "warning"
            };
            let mut props = Vec::new();
            if let Some(file) = &m.file {
                props.push(format!("file={}", escape_property(file)));
                props.push(format!("line={}", f.line));
                props.push(format!("col={}", f.column));
            }
            props.push(format!("title={}", escape_property(f.rule.name())));
            let mut text = match &m.commit {
                Some(_) => format!(
                    "commit {} \"{}\": ",
                    m.source,
                    m.summary.as_deref().unwrap_or("")
                ),
                None => format!("{} line {}: ", m.source, f.line),
            };
            text.push_str(&format!("{} (expected: {})", f.message, f.expected));
            if let Some(sug) = &f.suggestion {
                text.push_str(&format!("\nsuggestion: {sug}"));
            }
            s.push_str(&format!(
                "::{level} {}::{}\n",
                props.join(","),
                escape_data(&text)
            ));
        }
    }
    s
}

/// GitHub's escaping for a workflow command's message.
fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// GitHub's escaping for a workflow command's property value.
fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::{escape_data, escape_property};

    #[test]
    fn annotations_are_escaped_as_github_requires() {
        assert_eq!(escape_data("50% done\nnext"), "50%25 done%0Anext");
        assert_eq!(escape_property("a:b,c"), "a%3Ab%2Cc");
    }
}
