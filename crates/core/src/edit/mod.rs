//! Pure edit engine: regex or literal replacement over a file's bytes.
//! No I/O and no git here; callers hand in bytes and get bytes back.

mod scope;

// Precise edits (#13): edit lists, exact replace, ranges, notebooks.
pub mod engine;
pub use crate::edit_failure as failure;
mod json_order;
mod json_splice;
pub mod list;
pub mod notebook;
pub mod path;
#[cfg(test)]
mod proptests;
pub mod range;
pub mod replace;
mod slot;
pub mod text;

pub use scope::Scope;
pub use text::Change;

use regex::bytes::{Regex, RegexBuilder};

use crate::error::{Error, Result};

/// How many leading bytes git inspects to decide that a blob is binary.
pub const BINARY_SNIFF_LEN: usize = 8000;

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
        // `crlf`: in a CRLF file `foo$` matches `foo\r\n` and `$` falls
        // before the `\r`, as a reader of the file expects (#16 item 9).
        let regex = RegexBuilder::new(&source)
            .multi_line(true)
            .crlf(true)
            .size_limit(64 << 20)
            .build()
            .map_err(|e| {
                Error::invalid_field(
                    "pattern",
                    format!("pattern '{pattern}' is not a valid regex:\n{e}"),
                    "fix the regex, or set literal to search for the text as written",
                )
            })?;
        if !literal {
            check_group_references(&regex, pattern, replacement)?;
        }
        Ok(Replacer {
            regex,
            replacement: replacement.as_bytes().to_vec(),
            literal,
        })
    }

    /// Applies the replacement to one file's bytes.
    pub fn edit(&self, content: &[u8]) -> FileEdit {
        self.edit_at_most(content, usize::MAX)
    }

    /// Like [`Replacer::edit`], replacing only the first `limit` matches
    /// (the same matches `edit` sees: one rule for anchors and empty
    /// matches, whoever asks).
    pub fn edit_at_most(&self, content: &[u8], limit: usize) -> FileEdit {
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
        // Checked once, and only when an empty match asks: for a valid
        // UTF-8 file an empty match inside a character is not a position.
        let mut utf8: Option<bool> = None;
        for caps in self.regex.captures_iter(content) {
            let Some(m) = caps.get(0) else { continue };
            if m.is_empty() && !is_line_position(content, m.start(), &mut utf8) {
                continue;
            }
            if matches == limit {
                break;
            }
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

/// Whether an empty match at `at` is a position sed or `git grep` would
/// see: not past the final newline (that is no line: `^` and `$` match
/// once per line, as sed applies them), and on a character boundary of a
/// valid UTF-8 file (a BOM or `é` is never split).
fn is_line_position(content: &[u8], at: usize, utf8: &mut Option<bool>) -> bool {
    if at == content.len() && at > 0 && content[at - 1] == b'\n' {
        return false;
    }
    if at == 0 || at == content.len() || content[at] & 0xC0 != 0x80 {
        return true;
    }
    !*utf8.get_or_insert_with(|| std::str::from_utf8(content).is_ok())
}

/// Refuses `$name` / `${name}` references to groups the pattern lacks:
/// the regex crate expands them to nothing, which silently deletes text.
/// `$1x` names a group `1x` (the longest run of letters, digits and `_`),
/// so the fix offered is `${1}x`.
fn check_group_references(regex: &Regex, pattern: &str, replacement: &str) -> Result<()> {
    let names: Vec<&str> = regex.capture_names().flatten().collect();
    let groups = regex.captures_len();
    for reference in references(replacement) {
        let exists = match reference.parse::<usize>() {
            Ok(n) => n < groups,
            Err(_) => names.contains(&reference.as_str()),
        };
        if exists {
            continue;
        }
        let digits: String = reference.chars().take_while(char::is_ascii_digit).collect();
        let hint = if !digits.is_empty() && digits.len() < reference.len() {
            format!(
                "`${reference}` is read as a group named '{reference}'; write `${{{digits}}}{}` for group {digits} followed by '{}', or `$$` for a literal `$`",
                &reference[digits.len()..],
                &reference[digits.len()..]
            )
        } else {
            let mut known: Vec<String> = (0..groups).map(|n| format!("${n}")).collect();
            known.extend(names.iter().map(|n| format!("${{{n}}}")));
            format!(
                "the pattern has the groups {}; write `$$` for a literal `$`, or set literal",
                known.join(", ")
            )
        };
        return Err(Error::invalid_field(
            "replacement",
            format!(
                "replacement refers to group '{reference}', which pattern '{pattern}' does not have"
            ),
            hint,
        ));
    }
    Ok(())
}

/// The group names a replacement refers to, as the regex crate's
/// `Captures::expand` reads them: `$$` is a literal `$`, `${name}` is
/// braced, `$name` takes the longest run of `[_0-9A-Za-z]`, and a `$`
/// followed by anything else is literal.
fn references(replacement: &str) -> Vec<String> {
    let bytes = replacement.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'$' {
            i += 1;
            continue;
        }
        match bytes.get(i + 1) {
            Some(b'$') => i += 2,
            Some(b'{') => match replacement[i + 2..].find('}') {
                Some(len) if len > 0 => {
                    out.push(replacement[i + 2..i + 2 + len].to_string());
                    i += len + 3;
                }
                _ => i += 1,
            },
            _ => {
                let len = bytes[i + 1..]
                    .iter()
                    .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                    .count();
                if len > 0 {
                    out.push(replacement[i + 1..i + 1 + len].to_string());
                }
                i += len + 1;
            }
        }
    }
    out
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

    // See: issue 16 item 9.
    #[test]
    fn empty_matches_fall_on_character_boundaries() {
        let r = Replacer::new("x*", "-", false).unwrap();
        let (out, _) = changed(&r, "café".as_bytes());
        assert_eq!(std::str::from_utf8(&out).unwrap(), "-c-a-f-é-");
        let (out, _) = changed(&r, "\u{feff}a".as_bytes());
        assert_eq!(std::str::from_utf8(&out).unwrap(), "-\u{feff}-a-");
        // Not UTF-8: bytes are positions, as before.
        let (out, _) = changed(&r, b"\xff");
        assert_eq!(out, b"-\xff-");
    }

    #[test]
    fn line_anchors_match_once_per_line_like_sed() {
        let r = Replacer::new("^", "// ", false).unwrap();
        assert_eq!(changed(&r, b"a\nb\n").0, b"// a\n// b\n");
        assert_eq!(changed(&r, b"a\nb").0, b"// a\n// b");
        let r = Replacer::new("$", ";", false).unwrap();
        assert_eq!(changed(&r, b"a\nb\n").0, b"a;\nb;\n");
        assert_eq!(changed(&r, b"a\n\nb").0, b"a;\n;\nb;");
    }

    #[test]
    fn line_anchors_understand_crlf() {
        let r = Replacer::new("foo$", "bar", false).unwrap();
        assert_eq!(changed(&r, b"foo\r\nfoo\r\n").0, b"bar\r\nbar\r\n");
        let r = Replacer::new("$", ";", false).unwrap();
        assert_eq!(changed(&r, b"a\r\nb\r\n").0, b"a;\r\nb;\r\n");
        let r = Replacer::new("^", "> ", false).unwrap();
        assert_eq!(changed(&r, b"a\r\nb\r\n").0, b"> a\r\n> b\r\n");
    }

    // See: issue 16 item 10.
    #[test]
    fn references_to_missing_groups_are_refused_with_the_braced_form() {
        let err = Replacer::new(r"foo(\d+)", "$1x", false).unwrap_err();
        assert_eq!(err.code(), "invalid_input");
        assert!(err.hint().contains("${1}x"), "{}", err.hint());
        for bad in ["$2", "${name}", "$name", "${1x}"] {
            assert!(Replacer::new(r"foo(\d+)", bad, false).is_err(), "{bad}");
        }
        for good in ["${1}x", "$1", "$0", "$$1x", "cost: $", "${n}", "$n", "$ 1"] {
            assert!(
                Replacer::new(r"foo(?P<n>\d+)", good, false).is_ok(),
                "{good}"
            );
        }
        let r = Replacer::new(r"foo(\d+)", "${1}x", false).unwrap();
        assert_eq!(changed(&r, b"foo123 bar").0, b"123x bar");
        // --literal has no groups to refer to: `$1x` is text.
        assert!(Replacer::new("foo", "$1x", true).is_ok());
    }

    #[test]
    fn a_limit_replaces_the_first_matches_only() {
        for (pattern, replacement, input, limit, content) in [
            ("a", "b", &b"aaa"[..], 2, &b"bba"[..]),
            ("$", ";", b"x\r\ny\r\n", 5, b"x;\r\ny;\r\n"),
        ] {
            let r = Replacer::new(pattern, replacement, false).unwrap();
            assert_eq!(
                r.edit_at_most(input, limit),
                FileEdit::Changed {
                    content: content.to_vec(),
                    replacements: 2
                },
                "{pattern}"
            );
        }
    }

    #[test]
    fn backslash_n_in_a_replacement_is_literal() {
        let r = Replacer::new("a", r"\n", false).unwrap();
        assert_eq!(changed(&r, b"a").0, b"\\n");
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
