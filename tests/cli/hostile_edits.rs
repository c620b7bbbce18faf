//! Edit lists as a hostile or careless client writes them (issue 25,
//! items 10-12): the proposal's tree, read back with git, must hold
//! exactly what the list says, and nothing git itself would refuse.

use crate::common::TestRepo;

/// Proposes the edit list `json` (written to a file outside the work
/// tree) and returns the proposal's id.
fn propose_list(repo: &TestRepo, json: &str) -> String {
    let list = repo.home().join("edits.json");
    std::fs::write(&list, json).expect("write the edit list");
    let run = repo.evolv(&[
        "propose",
        "--json",
        "--edits",
        list.to_str().expect("utf-8"),
    ]);
    run.ok();
    run.json_str("/patch_id")
}

/// The paths of the proposal's tree.
fn files_at(repo: &TestRepo, id: &str) -> Vec<String> {
    repo.git(&[
        "ls-tree",
        "-r",
        "--name-only",
        &format!("refs/evolv/proposals/{id}"),
    ])
    .lines()
    .map(str::to_string)
    .collect()
}

/// A rename takes its source away, as `git mv` does, even into a path an
/// earlier edit of the same list freed.
#[test]
fn a_rename_into_a_freed_path_is_a_move_not_a_copy() {
    let cases = [
        (
            r#"{"edits": [{"op": "delete", "path": "a.txt"}, {"op": "rename", "path": "b.txt", "to": "a.txt"}]}"#,
            vec!["a.txt"],
            "B\n",
        ),
        (
            r#"{"edits": [{"op": "rename", "path": "a.txt", "to": "c.txt"}, {"op": "rename", "path": "b.txt", "to": "a.txt"}]}"#,
            vec!["a.txt", "c.txt"],
            "B\n",
        ),
    ];
    for (json, want, a_txt) in cases {
        let repo = TestRepo::with_files(&[("a.txt", "A\n"), ("b.txt", "B\n")]);
        let id = propose_list(&repo, json);
        assert_eq!(files_at(&repo, &id), want, "{json}");
        let a = repo.git(&[
            "cat-file",
            "blob",
            &format!("refs/evolv/proposals/{id}:a.txt"),
        ]);
        assert_eq!(a, a_txt, "{json}");
        let shown = repo.evolv(&["show", "--json", &id]);
        shown.ok();
        let diff = shown.json_str("/unified_diff");
        assert!(diff.contains("b.txt"), "the diff says b.txt goes: {diff}");
        repo.assert_fsck();
    }
}
