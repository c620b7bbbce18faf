//! Splitting a cleaned message into header, body and footers. The footers
//! (`Token: value`, `Token #value`, `BREAKING CHANGE:`) come from the
//! `git-conventional` parser, run on the part after the header only: it
//! hard-fails a body that does not follow a blank line, a case the rules
//! report as the `body-leading-blank` warning instead.

use super::clean::{Cleaned, Line};

/// A footer: its token, and the index (into `Parts::lines`) of its first line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Footer {
    pub token: String,
    pub breaking: bool,
    pub line: usize,
}

/// The cleaned message in sections; indices point into `lines`.
#[derive(Debug, Clone)]
pub struct Parts<'a> {
    pub lines: &'a [Line],
    /// Index of the first body line, if there is a body.
    pub body_start: Option<usize>,
    /// Index of the first footer line, if there are footers.
    pub footer_start: Option<usize>,
    pub footers: Vec<Footer>,
    /// Index of the first line of a block of footer-like lines (`Token:
    /// value`, `Closes #1`) that ends the body with no blank line before it:
    /// the parser reads it as body, a reader as misplaced footers.
    pub unseparated_footers: Option<usize>,
}

impl Parts<'_> {
    pub fn header(&self) -> &Line {
        &self.lines[0]
    }

    /// Whether line 2 (the one after the header) is blank.
    pub fn second_line_blank(&self) -> bool {
        self.lines.get(1).is_none_or(|l| l.text.is_empty())
    }

    pub fn breaking_footer(&self) -> Option<&Footer> {
        self.footers.iter().find(|f| f.breaking)
    }
}

/// Splits a non-empty cleaned message.
pub fn split(cleaned: &Cleaned) -> Parts<'_> {
    let lines = &cleaned.lines[..];
    let first_content = (1..lines.len()).find(|&i| !lines[i].text.is_empty());
    let Some(start) = first_content else {
        return Parts {
            lines,
            body_start: None,
            footer_start: None,
            footers: Vec::new(),
            unseparated_footers: None,
        };
    };
    // A fixed, valid header in front lets the parser judge only the rest.
    const PREFIX: &str = "x: x\n\n";
    let mut text = String::from(PREFIX);
    let mut line_at = Vec::new();
    for (i, l) in lines.iter().enumerate().skip(start) {
        line_at.push((text.len(), i));
        text.push_str(&l.text);
        text.push('\n');
    }
    let index_of = |offset: usize| {
        line_at
            .iter()
            .rev()
            .find(|(at, _)| *at <= offset)
            .map_or(start, |(_, i)| *i)
    };
    let footers: Vec<Footer> = match git_conventional::Commit::parse(&text) {
        Ok(commit) => commit
            .footers()
            .iter()
            .map(|f| {
                let token = f.token().as_str();
                Footer {
                    token: token.to_string(),
                    breaking: f.breaking(),
                    // The token is a slice of `text`; its offset gives the line.
                    line: (token.as_ptr() as usize)
                        .checked_sub(text.as_ptr() as usize)
                        .filter(|&o| o <= text.len())
                        .map_or(start, index_of),
                }
            })
            .collect(),
        // Not parseable as footers (e.g. a last `Token:` with no value): all body.
        Err(_) => Vec::new(),
    };
    // git_conventional takes any `word #…` or `word:…` line for a footer
    // token; commitlint starts the footer only at a real one. A first body
    // line such as `x #12 …` or `a::b …` is body (issue #16, item 21).
    let footers: Vec<Footer> = footers
        .into_iter()
        .skip_while(|f| !looks_like_footer(&lines[f.line].text))
        .collect();
    let footer_start = footers.first().map(|f| f.line);
    let body_start = (footer_start != Some(start)).then_some(start);
    let unseparated_footers = body_start.and_then(|b| {
        trailing_footer_block(&lines[b..footer_start.unwrap_or(lines.len())]).map(|i| b + i)
    });
    Parts {
        lines,
        body_start,
        footer_start,
        footers,
        unseparated_footers,
    }
}

/// In the last paragraph of `body`, the index of a trailing block of
/// footer-like lines that directly follows text.
fn trailing_footer_block(body: &[Line]) -> Option<usize> {
    let para_start = body
        .iter()
        .rposition(|l| l.text.is_empty())
        .map_or(0, |i| i + 1);
    let mut first = body.len();
    while first > para_start && looks_like_footer(&body[first - 1].text) {
        first -= 1;
    }
    (first < body.len() && first > para_start).then_some(first)
}

/// The words that make `Word #value` a footer (commitlint's reference
/// actions, plus `Refs`/`See` from the Conventional Commits examples).
const REFERENCE_WORDS: [&str; 13] = [
    "close", "closes", "closed", "fix", "fixes", "fixed", "resolve", "resolves", "resolved", "ref",
    "refs", "see", "part-of",
];

/// `Token: value` (token of letters, digits and `-`), `Closes #12` (a
/// reference word before ` #`) or a `BREAKING CHANGE:` line.
fn looks_like_footer(line: &str) -> bool {
    if line.starts_with("BREAKING CHANGE:") || line.starts_with("BREAKING-CHANGE:") {
        return true;
    }
    let end = line
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .unwrap_or(line.len());
    let token = &line[..end];
    end > 0
        && line.starts_with(|c: char| c.is_ascii_alphabetic())
        && (line[end..].starts_with(": ")
            || (line[end..].starts_with(" #")
                && REFERENCE_WORDS.contains(&token.to_ascii_lowercase().as_str())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lint::clean::{CleanMode, CommentChar, clean};

    fn cleaned(raw: &str) -> Cleaned {
        clean(raw, CleanMode::Stored, &CommentChar::default())
    }

    #[test]
    fn a_first_body_line_that_only_resembles_a_footer_is_body() {
        // See: issue #16, item 21.
        for body in ["x #12 is the issue this fixes", "a::b is renamed to a::c"] {
            let c = cleaned(&format!("fix: y\n\n{body}\n"));
            let p = split(&c);
            assert_eq!((p.body_start, p.footer_start), (Some(2), None), "{body}");
        }
        let c = cleaned("fix: y\n\nbody\n\nCloses #12\n");
        let p = split(&c);
        assert_eq!(p.footer_start, Some(4));
    }

    #[test]
    fn finds_body_and_footers_with_their_lines() {
        let c = cleaned(
            "feat: x\n\nBody one.\nBody two.\n\nRefs #12\nBREAKING CHANGE: gone\nSigned-off-by: A <a@b>",
        );
        let p = split(&c);
        assert_eq!(p.body_start, Some(2));
        assert_eq!(p.footer_start, Some(5));
        let tokens: Vec<_> = p
            .footers
            .iter()
            .map(|f| (f.token.as_str(), f.line))
            .collect();
        assert_eq!(
            tokens,
            [("Refs", 5), ("BREAKING CHANGE", 6), ("Signed-off-by", 7)]
        );
        assert!(p.breaking_footer().is_some());
    }

    #[test]
    fn footers_only_and_body_without_blank_line() {
        let c = cleaned("fix: y\n\nBREAKING-CHANGE: api");
        let p = split(&c);
        assert_eq!(p.body_start, None);
        assert_eq!(p.footer_start, Some(2));
        assert!(p.breaking_footer().is_some());
        let c = cleaned("fix: y\nno blank line before me");
        let p = split(&c);
        assert!(!p.second_line_blank());
        assert_eq!(p.body_start, Some(1));
        assert!(p.footers.is_empty());
        let p = cleaned("fix: y");
        assert_eq!(split(&p).body_start, None);
        let c = cleaned("fix: y\n\nbody text\nCloses #12\nSigned-off-by: A <a@b>");
        assert_eq!(split(&c).unseparated_footers, Some(3));
        let c = cleaned("fix: y\n\nCloses #12");
        assert_eq!(split(&c).unseparated_footers, None);
        let c = cleaned("fix: y\n\nsee: the docs\nand more text");
        assert_eq!(split(&c).unseparated_footers, None);
    }
}
