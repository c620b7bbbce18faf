//! Property (#13): any edit list either fails cleanly or yields a proposal
//! whose diff `git apply --check` accepts on the base.

use proptest::prelude::*;
use serde_json::{Value, json};

use crate::common::{BIN, TestRepo, run_with_stdin, sealed};

const FILES: &[(&str, &[u8])] = &[
    ("a.txt", b"alpha\nbeta\ngamma\n"),
    ("crlf.txt", b"one\r\ntwo\r\nthree\r\n"),
    ("tail.txt", b"no\nnewline"),
    ("dir/b.rs", b"fn b() {\n    1\n}\n"),
];

/// One of `items`, each as likely.
fn one_of(items: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop::sample::select(items).prop_map(str::to_string)
}

fn path() -> impl Strategy<Value = String> {
    one_of(&["a.txt", "crlf.txt", "tail.txt", "dir/b.rs", "new/c.txt"])
}

/// A word of the files, or (one time in five) any short text.
fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => one_of(&["alpha", "two\n", "newline", "1"]),
        1 => "[a-z\n]{1,6}",
    ]
}

fn edit() -> impl Strategy<Value = Value> {
    prop_oneof![
        (path(), word(), word(), any::<bool>()).prop_map(|(p, o, n, all)| json!({"op": "replace", "path": p, "old": o, "new": n, "replace_all": all})),
        (path(), 0..25usize, 0..6usize, word()).prop_map(|(p, s, w, n)| json!({"op": "range", "path": p, "locator": {"start_offset": s, "end_offset": s + w}, "new": n})),
        (path(), 1..5usize, 1..4usize, 1..3usize, word()).prop_map(|(p, l, c, h, n)| json!({"op": "range", "path": p, "locator": {"start_line": l, "start_col": c, "end_line": l + h, "end_col": 1}, "new": n})),
        (path(), word()).prop_map(|(p, c)| json!({"op": "write", "path": p, "content": c})),
        path().prop_map(|p| json!({"op": "delete", "path": p})),
        (path(), path()).prop_map(|(p, t)| json!({"op": "rename", "path": p, "to": t})),
        (path(), "[a-z]{1,3}").prop_map(|(p, r)| json!({"op": "regex", "path": p, "pattern": "[aeiou]", "replacement": r, "max_count": 1})),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn any_edit_list_fails_or_gives_a_diff_git_applies(
        edits in proptest::collection::vec(edit(), 1..5),
        keep_going in any::<bool>(),
    ) {
        let repo = TestRepo::empty();
        for (p, c) in FILES {
            repo.write_bytes(p, c);
        }
        let base = repo.commit_all("base");
        let list = json!({"keep_going": keep_going, "edits": edits});
        let mut cmd = sealed(BIN, repo.home());
        cmd.args(["propose", "--json", "--edits", "-"]).current_dir(repo.path());
        let run = run_with_stdin(cmd, list.to_string());
        let v = run.json();
        if run.code != 0 {
            prop_assert!(run.code == 1 || run.code == 2, "{}", run.stdout);
            prop_assert_eq!(&v["success"], &json!(false));
            prop_assert!(v["error"]["code"].is_string());
            prop_assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
            return Ok(());
        }
        let id = v["patch_id"].as_str().unwrap();
        let diff = repo.git_run(&["show", "--format=", "--binary", &format!("refs/evolv/proposals/{id}")]).stdout_bytes;
        let file = repo.home().join("p.diff");
        std::fs::write(&file, diff).unwrap();
        prop_assert_eq!(repo.head(), base);
        let check = repo.git_run(&["apply", "--check", file.to_str().unwrap()]);
        prop_assert_eq!(check.code, 0, "{}\n{}", check.stderr, list);
        repo.assert_fsck();
    }
}
