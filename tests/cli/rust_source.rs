//! Reading the workspace's own Rust source, for the tests that check its
//! shape (sizes, layers, the unsafe fence): which files there are, and
//! each file's code with comments and literals blanked out, so that a
//! brace, a path or the word `unsafe` in prose or in a message does not
//! count. Each check's self-test builds a small tree with [`scratch_tree`]
//! and compares what it found with [`assert_reports`].

use std::path::{Path, PathBuf};

use tempfile::TempDir;

use crate::common::Error;

/// Every `.rs` file under `dir`, sorted, build output (`target`) and
/// hidden folders left out; none when `dir` does not exist.
pub fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    collect(dir, &mut out);
    out
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if path.is_dir() {
            if name != "target" && !name.starts_with('.') {
                collect(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

/// `path` relative to `root`, with `/` between its parts: the name the
/// checks report and their allow-lists use.
pub fn relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap()
        .to_string_lossy()
        .replace('\\', "/")
}

/// Whether the file `name` (`audit_tests.rs`, `tests.rs`) holds only tests.
pub fn is_test_file(name: &str) -> bool {
    name.strip_suffix(".rs")
        .is_some_and(|stem| stem.ends_with("tests") || stem.ends_with("_test"))
}

/// `text` with comments and the insides of string and character literals
/// replaced by spaces; line breaks are kept, so line numbers still match,
/// and so are the quotes, so a literal is still seen as an expression.
pub fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Lexed {
        chars: &chars,
        at: 0,
        out: String::with_capacity(text.len()),
    };
    while out.at < chars.len() {
        let c = chars[out.at];
        let next = chars.get(out.at + 1).copied();
        if c == '/' && next == Some('/') {
            out.blank_while(|c| c != '\n');
        } else if c == '/' && next == Some('*') {
            out.block_comment();
        } else if let Some(hashes) = raw_string_at(&chars, out.at) {
            out.keep(hashes + 2);
            out.literal_to('"', hashes, true);
        } else if c == '"' {
            out.keep(1);
            out.literal_to('"', 0, false);
        } else if c == '\'' && (next == Some('\\') || chars.get(out.at + 2) == Some(&'\'')) {
            // A character literal ('x', '\n', '\''); a lifetime is left as is.
            out.keep(1);
            out.literal_to('\'', 0, false);
        } else {
            out.keep(1);
        }
    }
    out.out
}

/// The text read so far, and where the reading is.
struct Lexed<'a> {
    chars: &'a [char],
    at: usize,
    out: String,
}

impl Lexed<'_> {
    fn keep(&mut self, n: usize) {
        for _ in 0..n.min(self.chars.len() - self.at) {
            self.out.push(self.chars[self.at]);
            self.at += 1;
        }
    }

    fn blank(&mut self) {
        let c = self.chars[self.at];
        self.out.push(if c == '\n' { '\n' } else { ' ' });
        self.at += 1;
    }

    fn blank_while(&mut self, go_on: impl Fn(char) -> bool) {
        while self.at < self.chars.len() && go_on(self.chars[self.at]) {
            self.blank();
        }
    }

    /// A `/* … */` comment, nested ones inside it.
    fn block_comment(&mut self) {
        let mut depth = 0;
        while self.at < self.chars.len() {
            let pair = (self.chars[self.at], self.chars.get(self.at + 1));
            match pair {
                ('/', Some('*')) => depth += 1,
                ('*', Some('/')) => depth -= 1,
                _ => {
                    self.blank();
                    continue;
                }
            }
            self.blank();
            self.blank();
            if depth == 0 {
                return;
            }
        }
    }

    /// The inside of a literal up to its closing `quote` and `hashes`
    /// `#`s, which are kept; escapes are honoured unless it is `raw`.
    fn literal_to(&mut self, quote: char, hashes: usize, raw: bool) {
        while self.at < self.chars.len() {
            let c = self.chars[self.at];
            let closes =
                c == quote && (1..=hashes).all(|k| self.chars.get(self.at + k) == Some(&'#'));
            if closes {
                self.keep(1 + hashes);
                return;
            }
            if c == '\\' && !raw && self.at + 1 < self.chars.len() {
                self.blank();
            }
            self.blank();
        }
    }
}

/// The number of `#`s of the raw string whose `r` is at `chars[i]`, if
/// one starts there: `r"`, `r#"`, `br##"` after a character not of a word.
fn raw_string_at(chars: &[char], i: usize) -> Option<usize> {
    let is_word = |c: &char| c.is_alphanumeric() || *c == '_';
    if chars[i] != 'r' {
        return None;
    }
    let before = match i.checked_sub(1).map(|j| chars[j]) {
        Some('b') => i.checked_sub(2).map(|j| chars[j]),
        other => other,
    };
    if before.as_ref().is_some_and(is_word) {
        return None;
    }
    let hashes = chars[i + 1..].iter().take_while(|c| **c == '#').count();
    (chars.get(i + 1 + hashes) == Some(&'"')).then_some(hashes)
}

/// The workspace's root folder, whose source the checks read.
pub fn workspace() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Asserts that a check over the workspace found no problem.
#[track_caller]
pub fn assert_clean(found: &[String]) {
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// A scratch folder holding `files` (path, content), for a check's
/// self-test.
pub fn scratch_tree(files: &[(&str, &str)]) -> Result<TempDir, Error> {
    let dir = tempfile::tempdir()?;
    for (path, content) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().ok_or("a path with a folder")?)?;
        std::fs::write(path, content)?;
    }
    Ok(dir)
}

/// Asserts that a check reported exactly one problem containing each of
/// `wanted`, and nothing else.
#[track_caller]
pub fn assert_reports(found: &[String], wanted: &[&str]) {
    for w in wanted {
        assert!(
            found.iter().any(|p| p.contains(w)),
            "no problem reading {w:?} in {found:#?}"
        );
    }
    assert_eq!(found.len(), wanted.len(), "{found:#?}");
}

#[test]
fn comments_and_literals_are_blanked_lines_and_lifetimes_kept() {
    let text = "a /* b /* c */ d */ e // f\n\
                \"g \\\" h\" r#\"i \" j\"# br\"k\\\" '\\'' 'l' &'m n\n\
                /* o\np */ q";
    let code = code_only(text);
    assert_eq!(code.lines().count(), text.lines().count());
    let words: Vec<&str> = code
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    assert_eq!(words, ["a", "e", "r", "br", "m", "n", "q"], "{code}");
}
