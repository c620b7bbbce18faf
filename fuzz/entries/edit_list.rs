//! The fuzz entry of the edit-list parser and the edit engine (notebook
//! editor included): no input may panic. The first byte picks the mode:
//! even parses the rest as an edit list and runs it over a small base
//! (CRLF text, a notebook, a binary file); odd runs each kind of notebook
//! cell edit over the rest as notebook bytes.
//!
//! Shared by the cargo-fuzz target (`fuzz_targets/edit_list.rs`) and the
//! stable test that replays `fuzz/seeds/edit_list` through it
//! (`tests/cli/fuzz_seeds.rs`), so CI exercises the same code the fuzzer
//! does.

use std::collections::BTreeMap;

use git_evolv::edit::engine::{self, BaseEntry};
use git_evolv::edit::list::EditList;

const NOTEBOOK: &str = "{\n \"cells\": [\n  {\n   \"cell_type\": \"code\",\n   \"execution_count\": 1,\n   \"id\": \"a1\",\n   \"metadata\": {},\n   \"outputs\": [],\n   \"source\": [\n    \"x\"\n   ]\n  }\n ],\n \"metadata\": {},\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}\n";

fn file(content: &[u8]) -> BaseEntry {
    BaseEntry::regular(content, "0")
}

/// One fuzz input: never panics, whatever `data` is. Returns whether it
/// reached the edit engine (so the seed replay can tell a corpus that only
/// exercises the JSON parser's refusals).
pub fn run(data: &[u8]) -> bool {
    let Some((&mode, rest)) = data.split_first() else {
        return false;
    };
    let mut ids = 0u32;
    let mut new_id = || {
        ids += 1;
        format!("{ids:08x}")
    };
    if mode % 2 == 0 {
        let Ok(text) = std::str::from_utf8(rest) else {
            return false;
        };
        let Ok(list) = EditList::from_json(text) else {
            return false;
        };
        let mut base = BTreeMap::new();
        base.insert("a.txt".to_string(), file(b"alpha\r\nbeta\ngamma"));
        base.insert("n.ipynb".to_string(), file(NOTEBOOK.as_bytes()));
        base.insert("bin".to_string(), file(b"\0\x01"));
        let _ = engine::run(&list, &base, &mut new_id);
    } else {
        // Arbitrary notebook bytes under each kind of cell edit.
        let mut base = BTreeMap::new();
        base.insert("n.ipynb".to_string(), file(rest));
        for json in [
            r#"{"edits": [{"op": "notebook", "path": "n.ipynb", "mode": "replace", "cell": 0, "source": "y\nz"}]}"#,
            r#"{"edits": [{"op": "notebook", "path": "n.ipynb", "mode": "insert", "cell": -1, "source": "y"}]}"#,
            r#"{"edits": [{"op": "notebook", "path": "n.ipynb", "mode": "delete", "cell": 0}]}"#,
        ] {
            let list = EditList::from_json(json).expect("fixed lists parse");
            let _ = engine::run(&list, &base, &mut new_id);
        }
    }
    true
}
