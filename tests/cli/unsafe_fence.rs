//! `unsafe` stays fenced (issue 24 item 7): it appears only in the fence
//! modules listed below, each of which opens with a module comment saying
//! why and `#![allow(unsafe_code)]`; every `unsafe { … }` block has a
//! `// SAFETY:` comment right above it; and nowhere else is `unsafe_code`
//! allowed (the workspace denies it in its `[workspace.lints]`).
//!
//! Every `.rs` file of the workspace is read (crates, front ends, tests,
//! benchmarks, fuzz targets, build script), with comments and string and
//! character literals blanked out, so `unsafe` in prose or in a message
//! does not count.

use std::path::Path;

use crate::common::TestResult;
use crate::rust_source::{assert_clean, code_only, relative, rust_files, scratch_tree, workspace};

/// The modules allowed `unsafe`, one per crate that needs system calls,
/// one for the zlib FFI, and the hook binary's C entry point.
const FENCES: &[&str] = &[
    "src/sys.rs",
    "src/bin/git-evolv-hook.rs",
    "crates/engine/src/sys.rs",
    "crates/git/src/sys/calls.rs",
    "crates/git/src/sys/zlib.rs",
    "tests/cli/sys.rs",
];

/// Folders left out of the fence: none. (The pack reader was, while a
/// swap to gix was weighed; it stays, its mappings in `sys` and its
/// inflate in `zlib`.)
const UNFENCED: &[&str] = &[];

/// Each identifier-like word of `code` with its line (0-based) and the
/// byte offset just after it.
fn words(code: &str) -> Vec<(&str, usize, usize)> {
    let mut out = Vec::new();
    let mut line = 0;
    let mut start = None;
    for (at, c) in code.char_indices().chain([(code.len(), ' ')]) {
        if c.is_alphanumeric() || c == '_' {
            start.get_or_insert(at);
            continue;
        }
        if let Some(s) = start.take() {
            out.push((&code[s..at], line, at));
        }
        if c == '\n' {
            line += 1;
        }
    }
    out
}

/// Whether the comment lines right above line `at` (attributes skipped)
/// hold a `SAFETY:` note.
fn has_safety_note(lines: &[&str], at: usize) -> bool {
    let mut i = at;
    while i > 0 && lines[i - 1].trim_start().starts_with("#[") {
        i -= 1;
    }
    let mut found = false;
    while i > 0 && lines[i - 1].trim_start().starts_with("//") {
        found |= lines[i - 1].contains("SAFETY:");
        i -= 1;
    }
    found
}

/// Whether `code` (a file's code only) opens with `#![allow(unsafe_code)]`
/// among its inner attributes.
fn allows_unsafe_at_top(code: &str) -> bool {
    code.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take_while(|l| l.starts_with("#!["))
        .any(|l| l.replace(' ', "") == "#![allow(unsafe_code)]")
}

/// Every breach of the fence under `root`.
fn problems(root: &Path, fences: &[&str], unfenced: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for fence in fences {
        if !root.join(fence).is_file() {
            out.push(format!(
                "{fence}: a listed fence module that does not exist"
            ));
        }
    }
    for path in rust_files(root) {
        let name = relative(root, &path);
        if unfenced.iter().any(|u| name.starts_with(u)) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let code = code_only(&text);
        let lines: Vec<&str> = text.lines().collect();
        let fence = fences.contains(&name.as_str());
        if fence {
            if !text.trim_start().starts_with("//!") {
                out.push(format!(
                    "{name}: a fence module opens with a comment saying why it needs `unsafe`"
                ));
            }
            if !allows_unsafe_at_top(&code) {
                out.push(format!(
                    "{name}: a fence module opens with `#![allow(unsafe_code)]`"
                ));
            }
        }
        let mut top_allow_seen = false;
        for (word, line, end) in words(&code) {
            let at = format!("{name}:{}", line + 1);
            match word {
                "unsafe" => {
                    if !fence {
                        out.push(format!("{at}: `unsafe` outside the fence modules"));
                    }
                    if code[end..].trim_start().starts_with('{') && !has_safety_note(&lines, line) {
                        out.push(format!(
                            "{at}: an `unsafe` block without a `// SAFETY:` comment above it"
                        ));
                    }
                }
                "unsafe_code" => {
                    // The lint level: the word before the `(` of its list.
                    let before = &code[..end - word.len()];
                    let before = &before[..before.rfind('(').unwrap_or(0)];
                    let level = before
                        .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .next()
                        .unwrap_or_default();
                    if matches!(level, "deny" | "forbid") {
                        continue;
                    }
                    let top = fence && !top_allow_seen && before.ends_with("#![allow");
                    if top {
                        top_allow_seen = true;
                    } else if fence {
                        out.push(format!("{at}: a second `allow(unsafe_code)` in a fence module (its own covers it)"));
                    } else {
                        out.push(format!(
                            "{at}: `unsafe_code` allowed outside the fence modules"
                        ));
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// The check itself fails when `unsafe` leaks out of the fence, a fence
/// loses its opening allow, or a block loses its note; prose and strings
/// naming `unsafe` do not count.
#[test]
fn an_unsafe_outside_the_fence_or_without_a_note_is_found() -> TestResult {
    let sys = "//! Why: libc.\n\n#![allow(unsafe_code)]\n\n\
         pub fn a() {\n    // SAFETY: sound.\n    unsafe { f() }\n}\n\n\
         pub fn b() {\n    #[cfg(unix)]\n    // it is fine\n    unsafe {\n        f()\n    }\n}\n\n\
         #[allow(unsafe_code)]\npub fn c() {}\n";
    let zlib = "//! Why: zlib.\n\npub fn d() {\n    // SAFETY: sound.\n    unsafe { f() }\n}\n";
    let lib = "#![deny(unsafe_code)]\n\
         /* unsafe { /* nested */ unsafe */ // unsafe {\n\
         const S: &str = \"unsafe { x }\";\n\
         const R: &str = r#\"unsafe \"quoted\" {\"#;\n\
         const Q: char = '\"';\n\
         fn unsafe_name<'a>(x: &'a str) -> &'a str { x }\n\n\
         #[allow(clippy::all, unsafe_code)]\n\
         fn e() {\n    // SAFETY: not enough outside a fence.\n    unsafe { f() }\n}\n";
    let unchecked = "fn g() { unsafe { f() } }\n";
    let tree = scratch_tree(&[
        ("src/sys.rs", sys),
        ("src/zlib.rs", zlib),
        ("src/lib.rs", lib),
        ("src/old/mod.rs", unchecked),
        ("target/debug/out.rs", unchecked),
    ])?;
    let found = problems(
        tree.path(),
        &["src/sys.rs", "src/zlib.rs", "src/gone.rs"],
        &["src/old/"],
    );
    let expected = [
        "src/gone.rs: a listed fence module that does not exist",
        "src/lib.rs:8: `unsafe_code` allowed outside the fence modules",
        "src/lib.rs:11: `unsafe` outside the fence modules",
        "src/sys.rs:13: an `unsafe` block without a `// SAFETY:` comment above it",
        "src/sys.rs:18: a second `allow(unsafe_code)` in a fence module (its own covers it)",
        "src/zlib.rs: a fence module opens with `#![allow(unsafe_code)]`",
    ];
    assert_eq!(found, expected, "{found:#?}");
    Ok(())
}

#[test]
fn unsafe_lives_only_in_the_fence_modules_each_block_with_a_safety_note() {
    assert_clean(&problems(workspace(), FENCES, UNFENCED));
}
