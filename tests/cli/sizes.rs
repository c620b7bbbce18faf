//! Sizes (issue 24 item 6): no source file over 600 lines and no function
//! over 80, so each file holds one concept and each function one step.
//!
//! Read: every `.rs` file under `src/` and each crate's `src/`, with
//! comments and the insides of string and character literals blanked out.
//! Test code is left out: files named `*tests.rs` or `*_test.rs`, and each
//! `#[cfg(test)] mod … { … }` block. A function counts from the line of
//! its `fn` to the line of its closing brace.

use std::path::{Path, PathBuf};

/// The most lines a source file may have, test code left out.
const MAX_FILE_LINES: usize = 600;
/// The most lines a function may have, from `fn` to its closing brace.
const MAX_FN_LINES: usize = 80;

/// The source folders read, relative to the workspace root.
const SOURCES: &[&str] = &[
    "src",
    "crates/core/src",
    "crates/git/src",
    "crates/engine/src",
];

/// Folders whose files and functions may be any size for now.
const ALLOWED_FOLDERS: &[&str] = &[
    // The pack reader, being replaced by gix: it goes whole.
    "crates/git/src/object_read/",
];

/// Functions over the limit not split yet, as `file: fn name`. Each is a
/// debt, not a licence: split it into named steps and take it off.
const ALLOWED_FUNCTIONS: &[&str] = &[
    // A table: one exhaustive arm per error variant (a new variant must
    // choose its hint); grouping the arms would lose the exhaustiveness.
    "crates/core/src/error/codes.rs: hint",
];

/// Every `.rs` file under `dir` that is not a test file.
fn source_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if path.is_dir() {
            source_files(&path, out);
            continue;
        }
        let Some(stem) = name.strip_suffix(".rs") else {
            continue;
        };
        if !(stem.ends_with("tests") || stem.ends_with("_test")) {
            out.push(path);
        }
    }
}

/// `text` with comments and the insides of string and character literals
/// replaced by spaces (line breaks kept, so lines still count).
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        let after_word = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_');
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                out.push(' ');
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(chars[i]));
                    i += 1;
                }
            }
        } else if (c == 'r' || c == 'b') && !after_word && raw_string_at(&chars, i).is_some() {
            let end = raw_string_at(&chars, i).unwrap();
            out.extend(chars[i..end].iter().map(|&c| blank(c)));
            i = end;
        } else if c == '"' {
            let mut j = i + 1;
            while j < chars.len() && chars[j] != '"' {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(chars.len());
            out.extend(chars[i..end].iter().map(|&c| blank(c)));
            i = end;
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{1F600}'), not a lifetime.
            let end = match (next, chars.get(i + 2)) {
                (Some('\\'), _) => chars[i + 3..]
                    .iter()
                    .position(|&c| c == '\'')
                    .map(|p| i + 3 + p + 1),
                (Some(_), Some('\'')) => Some(i + 3),
                _ => None,
            };
            match end {
                Some(end) => {
                    out.extend(chars[i..end].iter().map(|&c| blank(c)));
                    i = end;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The end of a raw string literal (`r"…"`, `r#"…"#`, `br"…"`) at `i`.
fn raw_string_at(chars: &[char], i: usize) -> Option<usize> {
    let mut j = i;
    if chars[j] == 'b' {
        j += 1;
    }
    if chars.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let hashes = chars[j..].iter().take_while(|&&c| c == '#').count();
    j += hashes;
    if chars.get(j) != Some(&'"') {
        return None;
    }
    j += 1;
    while j < chars.len() {
        if chars[j] == '"'
            && chars[j + 1..]
                .iter()
                .take(hashes)
                .filter(|&&c| c == '#')
                .count()
                == hashes
        {
            return Some(j + 1 + hashes);
        }
        j += 1;
    }
    Some(chars.len())
}

/// The byte offset of the brace closing the one at `open`.
fn closing_brace(code: &[u8], open: usize) -> usize {
    let mut depth = 0usize;
    for (k, &b) in code.iter().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return k;
                }
            }
            _ => {}
        }
    }
    code.len().saturating_sub(1)
}

fn line_of(code: &[u8], at: usize) -> usize {
    code[..at].iter().filter(|&&b| b == b'\n').count() + 1
}

/// Whether `code[at..]` starts the word `word`.
fn word_at(code: &[u8], at: usize, word: &str) -> bool {
    let before_ok = at == 0 || !(code[at - 1].is_ascii_alphanumeric() || code[at - 1] == b'_');
    let end = at + word.len();
    before_ok
        && code[at..].starts_with(word.as_bytes())
        && code
            .get(end)
            .is_none_or(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
}

/// The byte spans of the `#[cfg(test)] mod … { … }` blocks of `code`.
fn test_modules(code: &[u8]) -> Vec<(usize, usize)> {
    let text = String::from_utf8_lossy(code);
    let mut out = Vec::new();
    for (at, _) in text.match_indices("#[cfg(test)]") {
        let rest = &text[at + "#[cfg(test)]".len()..];
        // Attributes and visibility between it and the `mod`.
        let mut k = 0;
        let bytes = rest.as_bytes();
        loop {
            while k < bytes.len() && bytes[k].is_ascii_whitespace() {
                k += 1;
            }
            if rest[k..].starts_with("#[") {
                k += rest[k..].find(']').map_or(rest.len() - k, |p| p + 1);
            } else if rest[k..].starts_with("pub") {
                k += 3;
                if rest[k..].starts_with('(') {
                    k += rest[k..].find(')').map_or(rest.len() - k, |p| p + 1);
                }
            } else {
                break;
            }
        }
        if !word_at(bytes, k, "mod") {
            continue;
        }
        let Some(brace) = rest[k..].find(['{', ';']) else {
            continue;
        };
        let start = at + "#[cfg(test)]".len() + k + brace;
        if code[start] == b';' {
            out.push((at, start));
        } else {
            out.push((at, closing_brace(code, start)));
        }
    }
    out
}

/// One file's size and its functions: (non-test lines, [(name, first
/// line, lines)]).
fn measure(text: &str) -> (usize, Vec<(String, usize, usize)>) {
    let code = code_only(text);
    let code = code.as_bytes();
    let tests = test_modules(code);
    let total = text.lines().count();
    let test_lines: usize = tests
        .iter()
        .map(|&(s, e)| line_of(code, e) - line_of(code, s) + 1)
        .sum();
    let mut functions = Vec::new();
    let mut at = 0;
    while at + 2 < code.len() {
        if !word_at(code, at, "fn") || tests.iter().any(|&(s, e)| (s..=e).contains(&at)) {
            at += 1;
            continue;
        }
        let name_start = at
            + 2
            + code[at + 2..]
                .iter()
                .take_while(|b| b.is_ascii_whitespace())
                .count();
        let name_len = code[name_start..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
            .count();
        if name_len == 0 {
            // `fn(…)`, a function pointer type.
            at += 2;
            continue;
        }
        let name = String::from_utf8_lossy(&code[name_start..name_start + name_len]).to_string();
        // The body's `{`, unless a `;` ends a declaration first (outside
        // the parentheses and brackets of the signature).
        let mut depth = 0i32;
        let mut k = name_start + name_len;
        let mut body = None;
        while k < code.len() {
            match code[k] {
                b'(' | b'[' => depth += 1,
                b')' | b']' => depth -= 1,
                b';' if depth == 0 => break,
                b'{' if depth == 0 => {
                    body = Some(k);
                    break;
                }
                _ => {}
            }
            k += 1;
        }
        if let Some(open) = body {
            let close = closing_brace(code, open);
            let lines = line_of(code, close) - line_of(code, at) + 1;
            functions.push((name, line_of(code, at), lines));
        }
        at = name_start + name_len;
    }
    (total - test_lines, functions)
}

/// Every file and function over the limits under `root`, but those the
/// allow-lists name.
fn oversized(root: &Path, allowed_folders: &[&str], allowed_functions: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for src in SOURCES {
        let mut files = Vec::new();
        source_files(&root.join(src), &mut files);
        for path in files {
            let rel = path
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if allowed_folders.iter().any(|f| rel.starts_with(f)) {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let (lines, functions) = measure(&text);
            if lines > MAX_FILE_LINES {
                out.push(format!(
                    "{rel}: {lines} lines of non-test code (at most {MAX_FILE_LINES}): split it by concept"
                ));
            }
            for (name, line, n) in functions {
                if n > MAX_FN_LINES
                    && !allowed_functions.contains(&format!("{rel}: {name}").as_str())
                {
                    out.push(format!(
                        "{rel}:{line}: fn {name} has {n} lines (at most {MAX_FN_LINES}): split it into named steps"
                    ));
                }
            }
        }
    }
    out
}

#[test]
fn no_source_file_or_function_is_too_long() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let found = oversized(root, ALLOWED_FOLDERS, ALLOWED_FUNCTIONS);
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The check itself fails on a tree with a long file and a long function,
/// and leaves test code, comments, strings and the allow-lists alone.
#[test]
fn a_long_file_or_function_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let src = root.join("crates/core/src");
    std::fs::create_dir_all(src.join("old")).unwrap();
    let body = |n: usize| "    let x = 1;\n".repeat(n);
    // 81 lines from `fn` to `}`: too long. 80: fine.
    let long = format!("fn long() {{\n{}}}\n", body(79));
    let fine = format!("fn fine() {{\n{}}}\n", body(78));
    // A brace in a string or a comment does not end the function.
    let tricky = format!(
        "fn tricky() {{\n    let s = \"}}\";\n    // }}\n    let c = '}}';\n{}}}\n",
        body(76)
    );
    std::fs::write(src.join("lib.rs"), format!("{long}\n{fine}\n{tricky}")).unwrap();
    // 601 lines of code, and 601 of it plus 300 of inline tests.
    std::fs::write(src.join("big.rs"), "const A: u8 = 0;\n".repeat(601)).unwrap();
    let tests = format!("#[cfg(test)]\nmod tests {{\n{}}}\n", body(300));
    let with_tests = format!("{}{tests}", "const A: u8 = 0;\n".repeat(600));
    std::fs::write(src.join("tested.rs"), with_tests).unwrap();
    std::fs::write(src.join("big_tests.rs"), "const A: u8 = 0;\n".repeat(900)).unwrap();
    std::fs::write(src.join("old/mod.rs"), long.replace("long", "old")).unwrap();
    let found = oversized(root, &["crates/core/src/old/"], &[]);
    assert!(
        found
            .iter()
            .any(|p| p.starts_with("crates/core/src/lib.rs:1: fn long has 81 lines")),
        "{found:#?}"
    );
    assert!(
        found
            .iter()
            .any(|p| p.starts_with("crates/core/src/lib.rs:") && p.contains("fn tricky has 81")),
        "{found:#?}"
    );
    assert!(
        found
            .iter()
            .any(|p| p.starts_with("crates/core/src/big.rs: 601 lines")),
        "{found:#?}"
    );
    assert_eq!(found.len(), 3, "{found:#?}");
    // An allowed function is not reported.
    let found = oversized(
        root,
        &["crates/core/src/old/"],
        &[
            "crates/core/src/lib.rs: long",
            "crates/core/src/lib.rs: tricky",
        ],
    );
    assert_eq!(found.len(), 1, "{found:#?}");
}
