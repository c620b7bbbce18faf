//! The adapter's ref writes are reachable only from the store (issue 39
//! item 1): outside `crates/engine/src/store/`, no engine or front-end
//! file calls `compare_and_swap`, `compare_and_swap_force`, `delete_ref`
//! or `delete_ref_if`. An operation's refs go through a
//! `store::Transaction`, so its record lists them.

use crate::rust_source::{assert_clean, code_only, relative, rust_files, workspace};

/// The adapter's ref writers, as a call names them.
const WRITERS: &[&str] = &[
    "compare_and_swap(",
    "compare_and_swap_force(",
    "delete_ref(",
    "delete_ref_if(",
];

#[test]
fn only_the_store_writes_refs() {
    let root = workspace();
    let mut found = Vec::new();
    for dir in ["crates/engine/src", "src"] {
        for file in rust_files(&root.join(dir)) {
            let rel = relative(root, &file);
            if rel.starts_with("crates/engine/src/store/") {
                continue;
            }
            let text = code_only(&std::fs::read_to_string(&file).unwrap());
            for w in WRITERS {
                if text.contains(&format!("git::{w}")) || text.contains(&format!("evolv_git::{w}"))
                {
                    found.push(format!("{rel} calls {w}…) outside the store"));
                }
            }
        }
    }
    assert_clean(&found);
}

/// What `Session` may offer besides running use cases: opening, the one
/// `run` (and the confirmation a use case asks for), and what every use
/// case reads (issue 39 item 5). A method per use case is a pass-through;
/// a new use case is a type implementing `ops::UseCase` instead.
const SESSION_METHODS: &[&str] = &[
    "open_for",
    "create_demo",
    "run",
    "confirmation",
    "context",
    "repo",
    "settings",
    "recovered",
    "work_tree",
    "dir",
    "git_dir",
];

#[test]
fn session_has_no_method_per_use_case() {
    let root = workspace();
    let mut found = Vec::new();
    for file in rust_files(&root.join("crates/engine/src")) {
        let rel = relative(root, &file);
        let text = code_only(&std::fs::read_to_string(&file).unwrap());
        let mut rest = text.as_str();
        while let Some(at) = rest.find("impl Session {") {
            let body = &rest[at..];
            let end = body.find("\n}\n").unwrap_or(body.len());
            for line in body[..end].lines() {
                let line = line.trim_start();
                let Some(sig) = ["pub fn ", "pub(crate) fn ", "pub(super) fn "]
                    .iter()
                    .find_map(|p| line.strip_prefix(p))
                else {
                    continue;
                };
                let name = sig.split(['(', '<']).next().unwrap_or("");
                if !SESSION_METHODS.contains(&name) {
                    found.push(format!(
                        "{rel}: Session::{name} is a method per use case; make it a type implementing ops::UseCase and run it with Session::run"
                    ));
                }
            }
            rest = &body[end.min(body.len())..];
            if end == body.len() {
                break;
            }
        }
    }
    assert_clean(&found);
}
