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
