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
    /// A message about to be committed (the hook's file, an argument,
    /// stdin): strip comments and the scissors part too.
    Edit,
    /// A message already in history: git cleaned it when committing, and a
    /// `#` line in it is content, not a comment.
    Stored,
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
    let (prefix, end) = match mode {
        CleanMode::Stored => (None, raw_lines.len()),
        CleanMode::Edit => {
            let prefix = match comment {
                CommentChar::Prefix(p) => Some(p.clone()),
                CommentChar::Auto => detect_auto(&raw_lines),
            };
            let end = prefix
                .as_deref()
                .and_then(|p| scissors_at(&raw_lines, p))
                .unwrap_or(raw_lines.len());
            (prefix, end)
        }
    };
    let mut lines: Vec<Line> = Vec::new();
    for (i, line) in raw_lines[..end].iter().enumerate() {
        if let Some(p) = &prefix
            && line.starts_with(p.as_str())
        {
            continue;
        }
        let text = line.trim_end_matches(is_git_space);
        if text.is_empty() && lines.last().is_none_or(|l: &Line| l.text.is_empty()) {
            continue;
        }
        lines.push(Line {
            number: i + 1,
            text: text.to_string(),
        });
    }
    while lines.last().is_some_and(|l| l.text.is_empty()) {
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
    fn stored_messages_keep_hash_lines() {
        let c = clean(
            "fix: z\n\n# not a comment in history\n",
            CleanMode::Stored,
            &CommentChar::default(),
        );
        assert_eq!(c.text(), "fix: z\n\n# not a comment in history");
    }

    #[test]
    fn an_all_comment_message_is_empty() {
        assert!(edit("# only\n# comments\n\n").is_empty());
        assert!(edit("").is_empty());
    }
}
