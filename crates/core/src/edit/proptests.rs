//! Property: non-overlapping range edits applied together give the same
//! bytes as applied one by one from the bottom of the file up (#13).

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::engine::{self, BaseEntry};
use super::list::{Edit, EditList, Locator};

fn text() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof!["[a-z ]{0,12}", "[é✓ß]{1,3}", Just(String::new())],
        1..12,
    )
    .prop_map(|lines| lines.join("\n"))
}

/// Sorted, non-overlapping [start, end) character ranges within `len`.
fn ranges(len: usize) -> impl Strategy<Value = Vec<(usize, usize, String)>> {
    proptest::collection::vec((0..=len, 0..4usize, "[A-Z\n]{0,4}"), 0..6).prop_map(move |raw| {
        let mut points: Vec<(usize, usize, String)> = raw
            .into_iter()
            .map(|(s, w, t)| (s, (s + w).min(len), t))
            .collect();
        points.sort_by_key(|p| (p.0, p.1));
        let mut out: Vec<(usize, usize, String)> = Vec::new();
        for p in points {
            // Keep only ranges starting at or after the previous end, and
            // at most one zero-width insert per point (their order is list order).
            if out
                .last()
                .is_none_or(|l| p.0 >= l.1 && (p.0 > l.0 || l.0 != l.1))
                && !(out.last().is_some_and(|l| l.0 == p.0 && l.0 == l.1))
            {
                out.push(p);
            }
        }
        out
    })
}

fn run(content: &str, edits: Vec<Edit>) -> Vec<u8> {
    let base: BTreeMap<String, BaseEntry> =
        [("f".to_string(), BaseEntry::regular(content.as_bytes(), "b"))].into();
    let list = EditList {
        edits,
        ..Default::default()
    };
    let out = engine::run(&list, &base, &mut || "id".to_string());
    assert!(out.failures.is_empty(), "{:?}", out.failures);
    out.files
        .first()
        .and_then(|f| f.new.clone())
        .unwrap_or_else(|| content.as_bytes().to_vec())
}

fn edit(s: usize, e: usize, new: &str) -> Edit {
    Edit::Range {
        path: "f".into(),
        locator: Locator {
            start_offset: Some(s),
            end_offset: Some(e),
            ..Default::default()
        },
        new: new.into(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn together_equals_one_by_one_bottom_up(
        (content, rs) in text().prop_flat_map(|t| { let n = t.chars().count(); (Just(t), ranges(n)) })
    ) {
        let together = run(&content, rs.iter().map(|(s, e, n)| edit(*s, *e, n)).collect());
        let mut current = content.clone();
        for (s, e, n) in rs.iter().rev() {
            current = String::from_utf8(run(&current, vec![edit(*s, *e, n)])).unwrap();
        }
        prop_assert_eq!(String::from_utf8(together).unwrap(), current);
    }
}

/// The fuzz target's two modes (fuzz/fuzz_targets/edit_list.rs), run here
/// with proptest's inputs so every test run exercises them a little.
mod no_panic {
    use super::*;

    const NB: &str = "{\n \"cells\": [\n  {\n   \"cell_type\": \"code\",\n   \"execution_count\": 1,\n   \"id\": \"a1\",\n   \"metadata\": {},\n   \"outputs\": [],\n   \"source\": [\n    \"x\"\n   ]\n  }\n ],\n \"metadata\": {},\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}\n";

    proptest! {
        #[test]
        fn notebook_editor_never_panics(cut in 0..NB.len(), junk in "[\\[\\]{}\",: a-z0-9\n]{0,12}", which in 0..3usize) {
            let mut text = NB.as_bytes()[..cut].to_vec();
            text.extend_from_slice(junk.as_bytes());
            text.extend_from_slice(&NB.as_bytes()[cut..]);
            let base: BTreeMap<String, BaseEntry> = [("n.ipynb".to_string(), BaseEntry::regular(&text, "0"))].into();
            let json = [
                r#"{"edits": [{"op": "notebook", "path": "n.ipynb", "mode": "replace", "cell": 0, "source": "y\nz"}]}"#,
                r#"{"edits": [{"op": "notebook", "path": "n.ipynb", "mode": "insert", "cell": 0, "source": "y"}]}"#,
                r#"{"edits": [{"op": "notebook", "path": "n.ipynb", "mode": "delete", "cell": 0}]}"#,
            ][which];
            let list = EditList::from_json(json).unwrap();
            let out = engine::run(&list, &base, &mut || "b2".to_string());
            // Whatever the input, a success is valid JSON.
            if let Some(new) = out.files.first().and_then(|f| f.new.as_ref()) {
                prop_assert!(serde_json::from_slice::<serde_json::Value>(new).is_ok());
            }
        }

        #[test]
        fn edit_list_parser_never_panics(text in "\\PC{0,200}") {
            let _ = EditList::from_json(&text);
        }
    }
}
