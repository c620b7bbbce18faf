//! Cleaning a message the way git does before it stores it, so the lint
//! judges what will be committed: comment lines (`core.commentChar`,
//! `auto` included), everything from the scissors line of `git commit -v`,
//! CR and trailing whitespace, runs of blank lines. Each kept line remembers
//! its line number in the original text, so findings point into the file.

/// The line `git commit -v` writes above the diff (after the comment char
/// and a space); git drops it and everything below.
pub const SCISSORS: &str = "------------------------ >8 ------------------------";

/// The characters git picks from for `core.commentChar=auto`, in order.
const AUTO_CANDIDATES: &str = "#;@!$%^&|:";

/// `core.commentChar` / `core.commentString`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommentChar {
    /// Lines starting with this string are comments.
    Prefix(String),
    /// git chose a character not used at the start of any message line.
    Auto,
}

impl Default for CommentChar {
    fn default() -> Self {
        CommentChar::Prefix("#".into())
    }
}

impl CommentChar {
    /// A `core.commentChar` value; empty falls back to `#` as git does.
    pub fn from_config(value: &str) -> CommentChar {
        match value {
            "auto" => CommentChar::Auto,
            "" => CommentChar::default(),
            other => CommentChar::Prefix(other.to_string()),
        }
    }
}

/// What the message is, which decides how it is cleaned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CleanMode {
    /// A message about to be committed through an editor, when nothing more
    /// is known (an argument, stdin, `--file`): comments and the scissors
    /// part are stripped, as `git commit -v` would.
    Edit,
    /// A message about to be committed, cleaned exactly as this commit's
    /// cleanup mode will clean it (`--cleanup`, `commit.cleanup`, `-m` vs
    /// editor): see [`GitCleanup::for_commit`].
    Git(GitCleanup),
    /// A message already in history, taken as stored: nothing is cleaned
    /// (a `#` line is content, trailing spaces are there), as
    /// `commitlint --from` reads it; only the newline(s) git log ends it
    /// with are dropped. See: issue #16, item 21.
    Stored,
}

/// What git's cleanup of a commit message does (sequencer.c
/// `cleanup_message`): cut at the scissors line, strip comment lines,
/// tidy whitespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GitCleanup {
    /// Drop comment lines (`strip`, git's default when an editor is used).
    pub strip_comments: bool,
    /// Drop everything from the scissors line (`-v`, or `scissors` mode).
    pub cut_at_scissors: bool,
    /// Trailing whitespace, leading/trailing/doubled blank lines (all but
    /// `verbatim`).
    pub whitespace: bool,
}

impl GitCleanup {
    /// The cleanup of `git commit`: `mode` is `--cleanup=<mode>` or else
    /// `commit.cleanup`; `editor` whether the message went through an
    /// editor (not `-m`, `-F`, `-C` without `-e`); `verbose` is `-v`.
    /// Unknown modes behave as `default`, as git would refuse them before
    /// any hook runs.
    pub fn for_commit(mode: Option<&str>, editor: bool, verbose: bool) -> GitCleanup {
        let (strip_comments, scissors, whitespace) = match mode.map(str::trim) {
            Some("verbatim") => (false, false, false),
            Some("whitespace") => (false, false, true),
            Some("strip") => (true, false, true),
            // Without an editor git downgrades scissors to whitespace.
            Some("scissors") => (false, editor, true),
            _ => (editor, false, true),
        };
        GitCleanup {
            strip_comments,
            cut_at_scissors: scissors || verbose,
            whitespace,
        }
    }
}

/// One kept line and where it was in the original text (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub number: usize,
    pub text: String,
}

/// A cleaned message: its lines, no leading, trailing or doubled blank lines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cleaned {
    pub lines: Vec<Line>,
}

impl Cleaned {
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// The cleaned message text, lines joined by `\n`.
    pub fn text(&self) -> String {
        let mut s = String::new();
        for (i, l) in self.lines.iter().enumerate() {
            if i > 0 {
                s.push('\n');
            }
            s.push_str(&l.text);
        }
        s
    }
}

/// Cleans `raw` as git would for `mode`.
pub fn clean(raw: &str, mode: CleanMode, comment: &CommentChar) -> Cleaned {
    let raw_lines: Vec<&str> = raw.split('\n').collect();
    let cleanup = match mode {
        CleanMode::Edit => GitCleanup {
            strip_comments: true,
            cut_at_scissors: true,
            whitespace: true,
        },
        CleanMode::Git(c) => c,
        CleanMode::Stored => GitCleanup {
            strip_comments: false,
            cut_at_scissors: false,
            whitespace: false,
        },
    };
    let prefix = if cleanup.strip_comments || cleanup.cut_at_scissors {
        match comment {
            CommentChar::Prefix(p) => Some(p.clone()),
            CommentChar::Auto => detect_auto(&raw_lines),
        }
    } else {
        None
    };
    let end = prefix
        .as_deref()
        .filter(|_| cleanup.cut_at_scissors)
        .and_then(|p| scissors_at(&raw_lines, p))
        .unwrap_or(raw_lines.len());
    let strip = prefix.filter(|_| cleanup.strip_comments);
    let mut lines: Vec<Line> = Vec::new();
    for (i, line) in raw_lines[..end].iter().enumerate() {
        if let Some(p) = &strip
            && line.starts_with(p.as_str())
        {
            continue;
        }
        let text = if cleanup.whitespace {
            let text = line.trim_end_matches(is_git_space);
            if text.is_empty() && lines.last().is_none_or(|l: &Line| l.text.is_empty()) {
                continue;
            }
            text
        } else {
            line
        };
        lines.push(Line {
            number: i + 1,
            text: text.to_string(),
        });
    }
    // git log ends a stored message with a newline; git's cleanup drops
    // trailing blank lines. Either way they are not part of the message.
    while lines
        .last()
        .is_some_and(|l| l.text.trim_end_matches(is_git_space).is_empty())
    {
        lines.pop();
    }
    Cleaned { lines }
}

/// git's `isspace`: space, tab, LF, VT, FF, CR.
fn is_git_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r')
}

/// The index of the scissors line for comment prefix `prefix`, if any.
fn scissors_at(lines: &[&str], prefix: &str) -> Option<usize> {
    lines.iter().position(|l| {
        l.trim_end_matches(is_git_space)
            .strip_prefix(prefix)
            .and_then(|rest| rest.strip_prefix(' '))
            == Some(SCISSORS)
    })
}

/// With `auto`, git picked the first candidate no message line started
/// with, then wrote its comments with it. The scissors line names it; else
/// the last non-blank line does (git's template ends in comments). With no
/// such line there are no comments to strip.
fn detect_auto(lines: &[&str]) -> Option<String> {
    for l in lines {
        let mut chars = l.chars();
        if let (Some(c), Some(' ')) = (chars.next(), chars.next())
            && AUTO_CANDIDATES.contains(c)
            && chars.as_str().trim_end_matches(is_git_space) == SCISSORS
        {
            return Some(c.to_string());
        }
    }
    let last = lines.iter().rev().find(|l| !l.trim().is_empty())?;
    let c = last.chars().next()?;
    AUTO_CANDIDATES.contains(c).then(|| c.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(raw: &str) -> Cleaned {
        clean(raw, CleanMode::Edit, &CommentChar::default())
    }

    fn stored(raw: &str) -> Cleaned {
        clean(raw, CleanMode::Stored, &CommentChar::default())
    }

    #[test]
    fn strips_comments_trailing_whitespace_cr_and_blank_runs() {
        let c = edit(
            "\n\nfeat: add x  \r\n\r\n\r\nbody line\t\n# Please enter the commit message\n#\n\n",
        );
        assert_eq!(c.text(), "feat: add x\n\nbody line");
        assert_eq!(
            c.lines.iter().map(|l| l.number).collect::<Vec<_>>(),
            [3, 4, 6]
        );
    }

    #[test]
    fn drops_everything_from_the_scissors_line() {
        let raw = "fix: y\n\n# Please enter...\n# ------------------------ >8 ------------------------\n# Do not modify or remove the line above.\ndiff --git a/x b/x\n+added line that is not a comment\n";
        assert_eq!(edit(raw).text(), "fix: y");
    }

    #[test]
    fn honours_a_custom_comment_char_and_keeps_hash_lines() {
        let c = clean(
            "fix: z\n\n#123 is the issue\n; a comment\n",
            CleanMode::Edit,
            &CommentChar::from_config(";"),
        );
        assert_eq!(c.text(), "fix: z\n\n#123 is the issue");
    }

    #[test]
    fn auto_comment_char_is_inferred_from_the_template() {
        // git picked ';' because a message line starts with '#'.
        let raw = "fix: z\n\n#123 closed\n; Please enter the commit message\n; Lines starting with ';' are ignored\n";
        let c = clean(raw, CleanMode::Edit, &CommentChar::Auto);
        assert_eq!(c.text(), "fix: z\n\n#123 closed");
        let raw = "fix: z\n@ ------------------------ >8 ------------------------\ndiff\n";
        let c = clean(raw, CleanMode::Edit, &CommentChar::Auto);
        assert_eq!(c.text(), "fix: z");
        // No comments at all: nothing is stripped.
        let c = clean("fix: z\n\nbody", CleanMode::Edit, &CommentChar::Auto);
        assert_eq!(c.text(), "fix: z\n\nbody");
    }

    #[test]
    fn each_git_cleanup_mode_keeps_what_git_keeps() {
        // See: issue #17, item 6: `-m "#42 fix login"` keeps its `#` line.
        let c = |mode, editor, verbose, raw| {
            clean(
                raw,
                CleanMode::Git(GitCleanup::for_commit(mode, editor, verbose)),
                &CommentChar::default(),
            )
            .text()
        };
        assert_eq!(c(None, false, false, "#42 fix login\n"), "#42 fix login");
        assert_eq!(c(None, true, false, "fix: a\n# comment\n"), "fix: a");
        assert_eq!(
            c(Some("whitespace"), true, false, "fix: a  \n\n\n# kept\n"),
            "fix: a\n\n# kept"
        );
        assert_eq!(
            c(Some("verbatim"), true, false, "fix: a  \n# kept\n"),
            "fix: a  \n# kept"
        );
        assert_eq!(
            c(
                Some("scissors"),
                true,
                false,
                "fix: a\n# kept\n# ------------------------ >8 ------------------------\ndiff\n"
            ),
            "fix: a\n# kept"
        );
        assert_eq!(
            c(
                None,
                true,
                true,
                "fix: a\n# c\n# ------------------------ >8 ------------------------\ndiff\n"
            ),
            "fix: a"
        );
    }

    /// Stored messages keep their `#` lines, and their whitespace but
    /// for the trailing blank lines (issue #16, item 21).
    #[test]
    fn stored_messages_are_taken_as_stored() {
        for (raw, text) in [
            (
                "fix: z\n\n# not a comment in history\n",
                "fix: z\n\n# not a comment in history",
            ),
            (
                "docs: fix gh-pages deploy \n\n\nbody  \n\n",
                "docs: fix gh-pages deploy \n\n\nbody  ",
            ),
        ] {
            assert_eq!(stored(raw).text(), text, "{raw:?}");
        }
    }

    #[test]
    fn an_all_comment_message_is_empty() {
        assert!(edit("# only\n# comments\n\n").is_empty());
        assert!(edit("").is_empty());
    }
}
