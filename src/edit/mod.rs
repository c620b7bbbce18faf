//! Pure edit engine: regex or literal replacement over a file's bytes.
//! No I/O and no git here; callers hand in bytes and get bytes back.

mod scope;

// Precise edits (#13): edit lists, exact replace, ranges, notebooks.
pub mod engine;
pub mod failure;
mod json_order;
pub mod list;
pub mod notebook;
pub mod path;
#[cfg(test)]
mod proptests;
pub mod range;
pub mod replace;
pub mod text;

pub use engine::Change;
pub use scope::Scope;

use regex::bytes::{Regex, RegexBuilder};

use crate::error::{Error, Result};

/// How many leading bytes git inspects to decide that a blob is binary.
const BINARY_SNIFF_LEN: usize = 8000;

/// A compiled replace operation, shared read-only between worker threads.
#[derive(Debug, Clone)]
pub struct Replacer {
    regex: Regex,
    replacement: Vec<u8>,
    literal: bool,
}

/// The outcome of running a [`Replacer`] over one file.
#[derive(Debug, PartialEq, Eq)]
pub enum FileEdit {
    /// A NUL byte in the first 8000 bytes: git treats the file as binary.
    Binary,
    /// The pattern did not match, or every replacement reproduced the text.
    Unchanged { matches: usize },
    /// The new content and the number of replacements made.
    Changed {
        content: Vec<u8>,
        replacements: usize,
    },
}

impl Replacer {
    /// Compiles `pattern`. With `literal`, both the pattern and the
    /// replacement are plain text; otherwise the pattern is a regex in
    /// multi-line mode (`^`/`$` match at line boundaries) and `$1`/`${name}`
    /// in the replacement expand to captures.
    pub fn new(pattern: &str, replacement: &str, literal: bool) -> Result<Self> {
        if pattern.is_empty() {
            return Err(Error::invalid_field(
                "pattern",
                "the pattern is empty",
                "give a non-empty pattern",
            ));
        }
        let source = if literal {
            regex::escape(pattern)
        } else {
            pattern.to_string()
        };
        let regex = RegexBuilder::new(&source)
            .multi_line(true)
            .size_limit(64 << 20)
            .build()
            .map_err(|e| {
                Error::invalid_field(
                    "pattern",
                    format!("pattern '{pattern}' is not a valid regex:\n{e}"),
                    "fix the regex, or set literal to search for the text as written",
                )
            })?;
        Ok(Replacer {
            regex,
            replacement: replacement.as_bytes().to_vec(),
            literal,
        })
    }

    /// Applies the replacement to one file's bytes.
    pub fn edit(&self, content: &[u8]) -> FileEdit {
        if is_binary(content) {
            return FileEdit::Binary;
        }
        if !self.regex.is_match(content) {
            return FileEdit::Unchanged { matches: 0 };
        }
        let mut replacements = 0usize;
        let mut matches = 0usize;
        let mut out = Vec::with_capacity(content.len() + 64);
        let mut last = 0usize;
        let mut expanded = Vec::new();
        for caps in self.regex.captures_iter(content) {
            let m = caps.get(0).expect("group 0 always participates");
            matches += 1;
            expanded.clear();
            if self.literal {
                expanded.extend_from_slice(&self.replacement);
            } else {
                caps.expand(&self.replacement, &mut expanded);
            }
            if expanded.as_slice() != m.as_bytes() {
                replacements += 1;
            }
            out.extend_from_slice(&content[last..m.start()]);
            out.extend_from_slice(&expanded);
            last = m.end();
        }
        out.extend_from_slice(&content[last..]);
        if replacements == 0 {
            FileEdit::Unchanged { matches }
        } else {
            FileEdit::Changed {
                content: out,
                replacements,
            }
        }
    }
}

/// Git's rule: a NUL byte among the first 8000 bytes makes a blob binary.
pub fn is_binary(content: &[u8]) -> bool {
    let head = &content[..content.len().min(BINARY_SNIFF_LEN)];
    head.contains(&0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn changed(r: &Replacer, input: &[u8]) -> (Vec<u8>, usize) {
        match r.edit(input) {
            FileEdit::Changed {
                content,
                replacements,
            } => (content, replacements),
            other => panic!("expected a change, got {other:?}"),
        }
    }

    #[test]
    fn replaces_every_occurrence_and_counts_them() {
        let r = Replacer::new("getUserData", "fetchUserData", false).unwrap();
        let (out, n) = changed(&r, b"a = getUserData()\nb = getUserData()\n");
        assert_eq!(out, b"a = fetchUserData()\nb = fetchUserData()\n");
        assert_eq!(n, 2);
    }

    #[test]
    fn capture_references_expand_unless_literal() {
        let r = Replacer::new(r"(\w+)@(?P<host>\w+)", "${host}:$1", false).unwrap();
        assert_eq!(changed(&r, b"me@box").0, b"box:me");
        let lit = Replacer::new("a.b", "$1", true).unwrap();
        assert_eq!(changed(&lit, b"a.b axb").0, b"$1 axb");
    }

    #[test]
    fn anchors_match_at_line_boundaries() {
        let r = Replacer::new("^x$", "y", false).unwrap();
        assert_eq!(changed(&r, b"x\nx\nxx\n").0, b"y\ny\nxx\n");
    }

    #[test]
    fn dot_all_flag_works_as_documented() {
        let r = Replacer::new("(?s)a.b", "c", false).unwrap();
        assert_eq!(changed(&r, b"a\nb").0, b"c");
    }

    #[test]
    fn non_utf8_bytes_survive_untouched() {
        let r = Replacer::new("old", "new", false).unwrap();
        let (out, _) = changed(&r, b"\xff\xfe old \xc3\x28\n");
        assert_eq!(out, b"\xff\xfe new \xc3\x28\n");
    }

    #[test]
    fn binary_files_are_recognised_like_git() {
        let r = Replacer::new("a", "b", false).unwrap();
        assert_eq!(r.edit(b"a\0a"), FileEdit::Binary);
        let mut late_nul = vec![b'a'; 8000];
        late_nul.push(0);
        assert!(matches!(r.edit(&late_nul), FileEdit::Changed { .. }));
    }

    #[test]
    fn identical_replacement_is_not_a_change() {
        let r = Replacer::new("same", "same", false).unwrap();
        assert_eq!(r.edit(b"same same"), FileEdit::Unchanged { matches: 2 });
    }

    #[test]
    fn invalid_regex_is_invalid_input_with_the_engines_explanation() {
        let err = Replacer::new("(unclosed", "x", false).unwrap_err();
        assert_eq!(err.code(), "invalid_input");
        assert!(err.to_string().contains("unclosed group"), "{err}");
    }

    #[test]
    fn edit_agrees_with_the_regex_crates_replace_all() {
        let r = Replacer::new(r"(\d+)", "<$1>", false).unwrap();
        let input = b"1 22 333";
        assert_eq!(
            changed(&r, input).0,
            r.regex.replace_all(input, &b"<$1>"[..]).into_owned()
        );
    }
}
