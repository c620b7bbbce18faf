//! Sizes (issue 24 item 6): no source file over 600 lines and no function
//! over 80, so each file holds one concept and each function one step.
//!
//! Read: every `.rs` file under `src/` and each crate's `src/`, with
//! comments and the insides of string and character literals blanked out.
//! Test code is left out: files named `*tests.rs` or `*_test.rs`, and each
//! `#[cfg(test)] mod … { … }` block. A function counts from the line of
//! its `fn` to the line of its closing brace.

use std::path::Path;

use crate::common::TestResult;
use crate::rust_source::{
    assert_clean, assert_reports, code_only, is_test_file, relative, rust_files, scratch_tree,
    workspace,
};

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

/// Folders whose files and functions may be any size: none. (The pack
/// reader was one while a swap to gix was weighed; BENCHMARKS.md says why
/// it stays, and it keeps the rule.)
const ALLOWED_FOLDERS: &[&str] = &[];

/// Functions over the limit not split yet, as `file: fn name`. Each is a
/// debt, not a licence: split it into named steps and take it off.
const ALLOWED_FUNCTIONS: &[&str] = &[
    // A table: one exhaustive arm per error variant (a new variant must
    // choose its hint); grouping the arms would lose the exhaustiveness.
    "crates/core/src/error/codes.rs: hint",
];

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
        for path in rust_files(&root.join(src)) {
            let rel = relative(root, &path);
            if is_test_file(&rel) || allowed_folders.iter().any(|f| rel.starts_with(f)) {
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
    assert_clean(&oversized(workspace(), ALLOWED_FOLDERS, ALLOWED_FUNCTIONS));
}

/// The check itself fails on a tree with a long file and a long function,
/// and leaves test code, comments, strings and the allow-lists alone.
#[test]
fn a_long_file_or_function_is_found() -> TestResult {
    let body = |n: usize| "    let x = 1;\n".repeat(n);
    // 81 lines from `fn` to `}`: too long. 80: fine.
    let long = format!("fn long() {{\n{}}}\n", body(79));
    let fine = format!("fn fine() {{\n{}}}\n", body(78));
    // A brace in a string or a comment does not end the function.
    let tricky = format!(
        "fn tricky() {{\n    let s = \"}}\";\n    // }}\n    let c = '}}';\n{}}}\n",
        body(76)
    );
    let code = |n: usize| "const A: u8 = 0;\n".repeat(n);
    // 601 lines of code, and 600 of it plus 300 of inline tests.
    let tests = format!("#[cfg(test)]\nmod tests {{\n{}}}\n", body(300));
    let tree = scratch_tree(&[
        (
            "crates/core/src/lib.rs",
            &format!("{long}\n{fine}\n{tricky}"),
        ),
        ("crates/core/src/big.rs", &code(601)),
        (
            "crates/core/src/tested.rs",
            &format!("{}{tests}", code(600)),
        ),
        ("crates/core/src/big_tests.rs", &code(900)),
        ("crates/core/src/old/mod.rs", &long.replace("long", "old")),
    ])?;
    let root = tree.path();
    let found = oversized(root, &["crates/core/src/old/"], &[]);
    assert_reports(
        &found,
        &[
            "crates/core/src/lib.rs:1: fn long has 81 lines",
            "fn tricky has 81",
            "crates/core/src/big.rs: 601 lines",
        ],
    );
    // An allowed function is not reported.
    let allowed = [
        "crates/core/src/lib.rs: long",
        "crates/core/src/lib.rs: tricky",
    ];
    let found = oversized(root, &["crates/core/src/old/"], &allowed);
    assert_reports(&found, &["crates/core/src/big.rs: 601 lines"]);
    Ok(())
}
