//! Precise edits (#13): edit lists through `propose --edits` and the
//! single-edit flags, against real repositories, checked with git.

use serde_json::{Value, json};

use crate::common::{
    BIN, Run, TestRepo, assert_has, assert_has_all, assert_human, error_code, run_with_stdin,
    sealed,
};

/// Proposes `list` (JSON) through stdin with `--json`.
fn propose_list(repo: &TestRepo, list: &Value, extra: &[&str]) -> crate::common::Run {
    let mut cmd = sealed(BIN, repo.home());
    cmd.args(["propose", "--json", "--edits", "-"])
        .args(extra)
        .current_dir(repo.path());
    run_with_stdin(cmd, list.to_string())
}

/// The proposal's version of `path`, through git.
fn at(repo: &TestRepo, id: &str, path: &str) -> Vec<u8> {
    let run = repo.git_run(&[
        "cat-file",
        "blob",
        &format!("refs/evolv/proposals/{id}:{path}"),
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout_bytes
}

/// Proposes the edit `list` and asserts the proposal's version of each
/// file (path, bytes); returns the patch id.
#[track_caller]
fn assert_list_proposes(repo: &TestRepo, list: &Value, files: &[(&str, &[u8])]) -> String {
    let id = patch_id(&propose_list(repo, list, &[]));
    for (path, want) in files {
        assert_eq!(at(repo, &id, path), *want, "{path}");
    }
    id
}

fn patch_id(run: &crate::common::Run) -> String {
    run.ok();
    run.json()["patch_id"].as_str().unwrap().to_string()
}

/// Nothing but the proposal ref may change: HEAD, index, working tree.
#[track_caller]
fn untouched(repo: &TestRepo, head: &str) {
    assert_eq!(repo.head(), head);
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
}

/// `propose --json --file FILE --old OLD --new NEW`: one exact edit.
fn exact(repo: &TestRepo, file: &str, old: &str, new: &str) -> Run {
    repo.evolv(&[
        "propose", "--json", "--file", file, "--old", old, "--new", new,
    ])
}

#[test]
fn exact_replace_stores_a_proposal_and_touches_nothing() {
    let repo = TestRepo::with_files(&[("src/a.rs", "fn a() {\n    old();\n}\n")]);
    let head = repo.head();
    let run = exact(&repo, "src/a.rs", "old()", "new()");
    let id = patch_id(&run);
    assert_eq!(at(&repo, &id, "src/a.rs"), b"fn a() {\n    new();\n}\n");
    untouched(&repo, &head);
    let v = run.json();
    let f = &v["files"][0];
    assert_eq!(f["operation_type"], "modify");
    assert_eq!(f["diff"]["format"], "unified");
    assert_eq!(f["diff"]["hunks"][0]["header"], "@@ -1,3 +1,3 @@");
    assert_eq!(f["locator"]["start_line"], 2);
    assert_eq!(f["dry_run"], false);
    assert!(
        f["new_content_excerpt"]
            .as_str()
            .unwrap()
            .contains("new();")
    );
    // The proposal's diff applies to the base with git.
    let diff = repo.git(&["show", "--format=", &format!("refs/evolv/proposals/{id}")]);
    assert!(diff.contains("+    new();"));
    repo.assert_fsck();
}

#[test]
fn ambiguous_match_lists_lines_and_replace_all_changes_all() {
    let repo = TestRepo::with_files(&[("a.txt", "x\ny\nx\n")]);
    let run = exact(&repo, "a.txt", "x", "z");
    run.fails_with(1, "ambiguous_match");
    assert_eq!(run.json()["error"]["failures"][0]["lines"], json!([1, 3]));
    let args = [
        "--file",
        "a.txt",
        "--old",
        "x",
        "--new",
        "z",
        "--replace-all",
    ];
    let id = propose_flags(&repo, &args);
    assert_eq!(at(&repo, &id, "a.txt"), b"z\ny\nz\n");
}

#[test]
fn no_match_reports_the_closest_region_and_blob() {
    let repo = TestRepo::with_files(&[("a.py", "def f():\n\treturn 1\n\ndef g():\n\treturn 2\n")]);
    let run = exact(&repo, "a.py", "def g():\n    return 2", "x");
    run.fails_with(1, "no_match");
    let f = &run.json()["error"]["failures"][0];
    assert_eq!(f["candidate"]["start_line"], 4);
    assert_eq!(f["candidate"]["first_diff_line"], 5);
    assert_eq!(f["candidate"]["found"], "\treturn 2");
    let blob = repo.git(&["rev-parse", "HEAD:a.py"]);
    assert_eq!(f["blob"], blob.trim());
    assert_eq!(f["index"], 0);
    assert_eq!(f["path"], "a.py");
}

#[test]
fn a_failure_on_a_dirty_file_says_the_base_is_head() {
    let repo = TestRepo::with_files(&[("a.txt", "one\n")]);
    repo.write("a.txt", "two\n");
    let run = exact(&repo, "a.txt", "two", "three");
    assert_eq!(error_code(&run), "no_match");
    let hint = run.json()["error"]["hint"].as_str().unwrap().to_string();
    assert!(
        hint.contains("against HEAD, not the working tree"),
        "{hint}"
    );
}

#[test]
fn already_applied_when_new_is_there() {
    let repo = TestRepo::with_files(&[("a.txt", "let y = 2;\n")]);
    let run = exact(&repo, "a.txt", "let x = 1;", "let y = 2;");
    run.fails_with(1, "already_applied");
}

#[test]
fn crlf_bom_no_final_newline_and_mode_are_kept() {
    let repo = TestRepo::empty();
    repo.write_bytes("w.txt", b"\xEF\xBB\xBFone\r\ntwo\r\nthree");
    repo.write("run.sh", "#!/bin/sh\necho hi\n");
    repo.git(&["add", "-A"]);
    repo.git(&["update-index", "--chmod=+x", "run.sh"]);
    repo.git(&["commit", "-qm", "init"]);
    let list = json!({"edits": [
        {"op": "replace", "path": "w.txt", "old": "one\ntwo", "new": "1\n2\n2b"},
        {"op": "replace", "path": "run.sh", "old": "hi", "new": "bye"}
    ]});
    let id = assert_list_proposes(
        &repo,
        &list,
        &[("w.txt", b"\xEF\xBB\xBF1\r\n2\r\n2b\r\nthree")],
    );
    let ls = repo.git(&["ls-tree", &format!("refs/evolv/proposals/{id}"), "run.sh"]);
    assert!(ls.starts_with("100755"), "{ls}");
}

#[test]
fn range_edits_use_base_coordinates_and_scalar_values() {
    let repo = TestRepo::with_files(&[("r.txt", "héllo\nwörld\nend\n")]);
    let list = json!({"edits": [
        {"op": "range", "path": "r.txt", "locator": {"start_line": 2, "start_col": 2, "end_line": 2, "end_col": 3}, "new": "o"},
        {"op": "range", "path": "r.txt", "locator": {"start_offset": 1, "end_offset": 2}, "new": "e"}
    ]});
    let id = patch_id(&propose_list(&repo, &list, &[]));
    assert_eq!(at(&repo, &id, "r.txt"), "hello\nworld\nend\n".as_bytes());
}

#[test]
fn range_errors_have_their_codes() {
    let repo = TestRepo::with_files(&[
        ("r.txt", "x\n".repeat(52).as_str()),
        ("c.txt", "ab\r\ncd\r\n"),
    ]);
    let lc = |l1: usize, c1: usize, l2: usize, c2: usize| json!({"start_line": l1, "start_col": c1, "end_line": l2, "end_col": c2});
    let one = |path: &str, loc: Value| json!({"edits": [{"op": "range", "path": path, "locator": loc, "new": "q"}]});
    let run = propose_list(&repo, &one("r.txt", lc(60, 1, 60, 1)), &[]);
    assert_eq!((run.code, error_code(&run)), (1, "out_of_bounds".into()));
    assert_has(
        &run.error_message(),
        "line 60 exceeds file length (52 lines)",
    );
    let run = propose_list(&repo, &one("c.txt", lc(1, 4, 1, 4)), &[]);
    assert_eq!((run.code, error_code(&run)), (1, "invalid_locator".into()));
    let run = propose_list(&repo, &one("nope.txt", lc(1, 1, 1, 1)), &[]);
    assert_eq!((run.code, error_code(&run)), (2, "invalid_input".into()));
    let both = json!({"edits": [
        {"op": "range", "path": "r.txt", "locator": {"start_offset": 0, "end_offset": 5}, "new": "a"},
        {"op": "range", "path": "r.txt", "locator": {"start_offset": 3, "end_offset": 8}, "new": "b"}
    ]});
    let run = propose_list(&repo, &both, &[]);
    assert_eq!(
        (run.code, error_code(&run)),
        (1, "overlapping_edits".into())
    );
    let msg = run.json()["error"]["message"].as_str().unwrap().to_string();
    assert!(msg.contains("edits[0] and edits[1]"), "{msg}");
}

#[test]
fn lines_flag_replaces_whole_lines_from_stdin() {
    let repo = TestRepo::with_files(&[("l.txt", "1\n2\n3\n4\n")]);
    let mut cmd = sealed(BIN, repo.home());
    cmd.args([
        "propose",
        "--json",
        "--file",
        "l.txt",
        "--lines",
        "2:3",
        "--new-from",
        "-",
    ])
    .current_dir(repo.path());
    let run = run_with_stdin(cmd, "two\nthree\n");
    let id = patch_id(&run);
    assert_eq!(at(&repo, &id, "l.txt"), b"1\ntwo\nthree\n4\n");
}

#[test]
fn write_delete_rename_and_their_errors() {
    let repo = TestRepo::with_files(&[("old.rs", "fn x() {}\n"), ("gone.rs", "g\n")]);
    let content = repo.home().join("content.txt");
    std::fs::write(&content, "new file\n").unwrap();
    let content = content.to_str().unwrap();
    let run = repo.evolv(&[
        "propose",
        "--json",
        "--file",
        "deep/dir/new.rs",
        "--write-from",
        content,
    ]);
    let id = patch_id(&run);
    assert_eq!(at(&repo, &id, "deep/dir/new.rs"), b"new file\n");
    assert_eq!(run.json()["files"][0]["operation_type"], "create");
    let run = repo.evolv(&["propose", "--json", "--delete", "gone.rs"]);
    assert_eq!(run.json()["files"][0]["operation_type"], "delete");
    let run = repo.evolv(&["propose", "--json", "--delete", "missing.rs"]);
    assert_eq!((run.code, error_code(&run)), (1, "not_found".into()));
    let run = repo.evolv(&["propose", "--json", "--rename", "old.rs", "new.rs"]);
    let id = patch_id(&run);
    assert_eq!(at(&repo, &id, "new.rs"), b"fn x() {}\n");
    assert_eq!(run.json()["files"][0]["operation_type"], "rename");
    assert_eq!(run.json()["files"][0]["from_path"], "old.rs");
    let tree = repo.git(&[
        "ls-tree",
        "--name-only",
        &format!("refs/evolv/proposals/{id}"),
    ]);
    assert!(!tree.contains("old.rs"), "{tree}");
}

#[test]
fn unsafe_paths_are_invalid_input() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    std::os::unix::fs::symlink("/tmp", repo.file("link")).unwrap();
    repo.commit_all("link");
    for path in ["/etc/passwd", "../x", "a/../a.txt", ".git/config", "link/x"] {
        let run = repo.evolv(&["propose", "--json", "--delete", path]);
        assert_eq!(
            (run.code, error_code(&run)),
            (2, "invalid_input".into()),
            "{path}: {}",
            run.stdout
        );
    }
}

#[test]
fn binary_files_are_refused() {
    let repo = TestRepo::new()
        .with_bytes("b.bin", b"ab\0cd")
        .committed("bin");
    let run = exact(&repo, "b.bin", "ab", "x");
    assert_eq!((run.code, error_code(&run)), (1, "binary_file".into()));
}

#[test]
fn all_or_nothing_lists_every_failure_and_keep_going_stores_the_rest() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("b.txt", "b\n")]);
    let list = json!({"edits": [
        {"op": "replace", "path": "a.txt", "old": "zzz", "new": "q"},
        {"op": "replace", "path": "b.txt", "old": "b", "new": "B"},
        {"op": "delete", "path": "nope"}
    ]});
    let refs_before = repo.git(&["for-each-ref", "refs/evolv/proposals"]);
    let run = propose_list(&repo, &list, &[]);
    assert_eq!((run.code, error_code(&run)), (1, "edits_failed".into()));
    let failures = run.json()["error"]["failures"].as_array().unwrap().clone();
    let got: Vec<(u64, &str)> = failures
        .iter()
        .map(|f| (f["index"].as_u64().unwrap(), f["code"].as_str().unwrap()))
        .collect();
    assert_eq!(got, vec![(0, "no_match"), (2, "not_found")]);
    assert_eq!(
        repo.git(&["for-each-ref", "refs/evolv/proposals"]),
        refs_before
    );
    let run = propose_list(&repo, &list, &["--keep-going"]);
    let id = patch_id(&run);
    assert_eq!(at(&repo, &id, "b.txt"), b"B\n");
    assert_eq!(run.json()["failures"].as_array().unwrap().len(), 2);
    // Every edit failing stores nothing, even with keep_going.
    let all_bad = json!({"keep_going": true, "edits": [{"op": "delete", "path": "nope"}]});
    let run = propose_list(&repo, &all_bad, &[]);
    assert_eq!((run.code, error_code(&run)), (1, "not_found".into()));
}

#[test]
fn malformed_lists_exit_2_naming_index_and_field() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let run = propose_list(
        &repo,
        &json!({"edits": [{"op": "delete", "path": "a.txt"}, {"op": "replace", "path": "a.txt", "old": "a", "neu": "b"}]}),
        &[],
    );
    assert_eq!((run.code, error_code(&run)), (2, "invalid_input".into()));
    let msg = run.json()["error"]["message"].as_str().unwrap().to_string();
    assert_has_all(&msg, &["edits[1]", "neu"]);
}

#[test]
fn same_line_edits_warn() {
    let repo = TestRepo::with_files(&[("a.txt", "alpha beta\n")]);
    let list = json!({"edits": [
        {"op": "replace", "path": "a.txt", "old": "alpha", "new": "A"},
        {"op": "replace", "path": "a.txt", "old": "beta", "new": "B"}
    ]});
    let run = propose_list(&repo, &list, &[]);
    let id = patch_id(&run);
    assert_eq!(at(&repo, &id, "a.txt"), b"A B\n");
    let w = run.json()["warnings"][0].as_str().unwrap().to_string();
    assert!(w.contains("edits[0] and edits[1] both touch line 1"), "{w}");
}

#[test]
fn edits_schema_is_draft_2020_12() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let run = repo.evolv(&["propose", "--edits-schema"]);
    let v = run.success().stdout_json();
    assert_eq!(v["$schema"], "https://json-schema.org/draft/2020-12/schema");
    assert_eq!(v["title"], "EditList");
}

fn propose_flags(repo: &TestRepo, args: &[&str]) -> String {
    let mut full = vec!["propose", "--json"];
    full.extend_from_slice(args);
    patch_id(&repo.evolv(&full))
}

#[test]
fn stacked_proposals_show_apply_as_one_batch_and_drop_with_all_above() {
    let repo = TestRepo::with_files(&[("a.txt", "one\ntwo\n")]);
    let head = repo.head();
    let p1 = propose_flags(&repo, &["--file", "a.txt", "--old", "one", "--new", "ONE"]);
    // The second edit sees the first one's result.
    let p2 = propose_flags(
        &repo,
        &[
            "--onto", &p1, "--file", "a.txt", "--old", "ONE\ntwo", "--new", "ONE\nTWO",
        ],
    );
    assert_eq!(at(&repo, &p2, "a.txt"), b"ONE\nTWO\n");
    assert_eq!(
        repo.rev(&format!("refs/evolv/proposals/{p2}^")).unwrap(),
        repo.rev(&format!("refs/evolv/proposals/{p1}")).unwrap()
    );
    let cat = repo.evolv(&["cat", &p1, "a.txt", "-n"]);
    assert_eq!(cat.ok().stdout, "     1\tONE\n     2\ttwo\n");
    let show = repo.evolv(&["show", "--json", &p2]);
    assert_eq!(show.ok().json()["stack"], json!([p1, p2]));
    let show = repo.evolv(&["show", "--json", &p1]);
    assert_eq!(show.json()["stacked_above"], json!([p2]));
    let list = repo.evolv(&["list"]);
    assert!(
        list.ok().stdout.contains(&format!("stacked on {p1}")),
        "{}",
        list.stdout
    );
    // Dropping the lower one alone is refused.
    let run = repo.evolv(&["drop", "--json", &p1]);
    assert_eq!((run.code, error_code(&run)), (2, "invalid_input".into()));
    assert!(repo.rev(&format!("refs/evolv/proposals/{p1}")).is_some());
    untouched(&repo, &head);
    // Applying the top lands the whole stack with one fast-forward.
    let run = repo.evolv(&["apply", "--json", &p2]);
    run.ok();
    assert_eq!(repo.read("a.txt"), "ONE\nTWO\n");
    assert_eq!(
        repo.git(&["rev-list", "--count", &format!("{head}..HEAD")])
            .trim(),
        "2"
    );
    assert!(repo.rev(&format!("refs/evolv/applied/{p1}")).is_some());
    assert!(repo.rev(&format!("refs/evolv/applied/{p2}")).is_some());
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    repo.assert_fsck();
}

#[test]
fn applying_the_lower_proposal_leaves_the_upper_pending_and_drop_all_above() {
    let repo = TestRepo::with_files(&[("a.txt", "one\ntwo\n"), ("b.txt", "b\n")]);
    let p1 = propose_flags(&repo, &["--file", "a.txt", "--old", "one", "--new", "ONE"]);
    let p2 = propose_flags(
        &repo,
        &["--onto", &p1, "--file", "b.txt", "--old", "b", "--new", "B"],
    );
    repo.evolv(&["apply", &p1]).ok();
    assert_eq!(repo.read("a.txt"), "ONE\ntwo\n");
    assert_eq!(repo.read("b.txt"), "b\n");
    assert!(repo.rev(&format!("refs/evolv/applied/{p2}")).is_none());
    repo.evolv(&["apply", &p2]).ok();
    assert_eq!(repo.read("b.txt"), "B\n");
    // A fresh stack dropped from the bottom with --all-above.
    let q1 = propose_flags(&repo, &["--file", "b.txt", "--old", "B", "--new", "bb"]);
    let q2 = propose_flags(
        &repo,
        &[
            "--onto", &q1, "--file", "b.txt", "--old", "bb", "--new", "bbb",
        ],
    );
    repo.evolv(&["drop", &q1, "--all-above"]).ok();
    assert!(repo.rev(&format!("refs/evolv/proposals/{q1}")).is_none());
    assert!(repo.rev(&format!("refs/evolv/proposals/{q2}")).is_none());
}

#[test]
fn cat_prints_lines_and_refuses_out_of_range() {
    let repo = TestRepo::with_files(&[("a.txt", "1\n2\n3\n4\n")]);
    let run = repo.evolv(&["cat", "HEAD", "a.txt", "--lines", "2:3"]);
    assert_eq!(run.ok().stdout, "2\n3\n");
    let run = repo.evolv(&["cat", "HEAD", "a.txt", "--lines", "9:10", "--json"]);
    assert_eq!((run.code, error_code(&run)), (2, "invalid_input".into()));
    let run = repo.evolv(&["cat", "patch_1_deadbeef", "a.txt", "--json"]);
    assert_eq!(error_code(&run), "patch_not_found");
}

#[test]
fn show_word_diff_uses_gits_format() {
    let repo = TestRepo::with_files(&[("a.txt", "keep\nsay hello world\n")]);
    let id = propose_flags(
        &repo,
        &["--file", "a.txt", "--old", "hello", "--new", "goodbye"],
    );
    let run = repo.evolv(&["show", &id, "--word-diff"]);
    run.ok();
    assert_human!(repo, "show_word_diff", run.transcript());
    let v = repo.evolv(&["show", &id, "--word-diff", "--json"]).json();
    assert!(v["word_diff"].as_str().unwrap().contains("{+goodbye+}"));
}

#[test]
fn glob_lists_newest_first_honours_gitignore_and_hidden() {
    let repo = TestRepo::with_files(&[
        (".gitignore", "target/\n"),
        ("src/a.rs", "a"),
        ("src/deep/b.rs", "b"),
        (".hidden.rs", "h"),
    ]);
    repo.write("target/x.rs", "x");
    repo.write("src/new.rs", "n");
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    for p in ["src/a.rs", "src/deep/b.rs", ".hidden.rs"] {
        std::fs::File::options()
            .write(true)
            .open(repo.file(p))
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
    let run = repo.evolv(&["glob", "**/*.rs"]);
    let lines: Vec<&str> = run.ok().stdout.lines().collect();
    assert_eq!(lines[0], "src/new.rs");
    let mut rest = lines[1..].to_vec();
    rest.sort();
    assert_eq!(rest, vec![".hidden.rs", "src/a.rs", "src/deep/b.rs"]);
    let run = repo.evolv(&["glob", "*.rs", "--path", "src"]);
    let mut got: Vec<&str> = run.ok().stdout.lines().collect();
    got.sort();
    assert_eq!(got, vec!["a.rs", "new.rs"], "* stays in one component");
    let run = repo.evolv(&["glob", "*.nothing", "--json"]);
    assert_eq!(run.ok().json()["files"], json!([]));
    let run = repo.evolv(&["glob", "**/*.rs", "--tracked", "--json"]);
    let files: Vec<String> = run.ok().json()["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(files, vec![".hidden.rs", "src/a.rs", "src/deep/b.rs"]);
}

const NOTEBOOK: &str = include_str!("../../fixtures/edits/analysis.ipynb");

#[test]
fn notebook_cell_edits_touch_only_that_cell() {
    let repo = TestRepo::with_files(&[("nb/analysis.ipynb", NOTEBOOK)]);
    let list = json!({"edits": [{"op": "notebook", "path": "nb/analysis.ipynb", "mode": "replace", "cell": 1, "source": "print(40 + 2)"}]});
    let id = patch_id(&propose_list(&repo, &list, &[]));
    let new: Value = serde_json::from_slice(&at(&repo, &id, "nb/analysis.ipynb")).unwrap();
    let old: Value = serde_json::from_str(NOTEBOOK).unwrap();
    assert_eq!(new["cells"][1]["outputs"], json!([]));
    assert!(new["cells"][1]["execution_count"].is_null());
    assert_eq!(
        new["cells"][2], old["cells"][2],
        "other cells keep their outputs"
    );
    assert_eq!(new["metadata"], old["metadata"]);
    let diff = repo.git(&[
        "diff",
        "--stat",
        "HEAD",
        &format!("refs/evolv/proposals/{id}"),
    ]);
    assert!(diff.contains("1 file changed"), "{diff}");
    // Only lines of cell 1 changed.
    let patch = repo.git(&["diff", "-U0", "HEAD", &format!("refs/evolv/proposals/{id}")]);
    assert!(
        !patch.contains("kernelspec") && !patch.contains("\"id\""),
        "{patch}"
    );
    // Missing notebook, missing cell, cell id.
    let missing =
        json!({"edits": [{"op": "notebook", "path": "nope.ipynb", "mode": "delete", "cell": 0}]});
    let run = propose_list(&repo, &missing, &[]);
    assert_eq!((run.code, error_code(&run)), (1, "not_found".into()));
    let far = json!({"edits": [{"op": "notebook", "path": "nb/analysis.ipynb", "mode": "delete", "cell": 99}]});
    let run = propose_list(&repo, &far, &[]);
    assert_eq!((run.code, error_code(&run)), (1, "out_of_bounds".into()));
    let insert = json!({"edits": [{"op": "notebook", "path": "nb/analysis.ipynb", "mode": "insert", "cell": -1, "cell_type": "markdown", "source": "# Top"}]});
    let id = patch_id(&propose_list(&repo, &insert, &[]));
    let new: Value = serde_json::from_slice(&at(&repo, &id, "nb/analysis.ipynb")).unwrap();
    assert_eq!(new["cells"][0]["source"], json!(["# Top"]));
    assert_eq!(new["cells"][0]["id"].as_str().unwrap().len(), 8);
}

#[test]
fn invalid_notebook_json_is_invalid_input_naming_the_position() {
    let repo = TestRepo::with_files(&[("bad.ipynb", "{\n \"cells\": [\n}")]);
    let list =
        json!({"edits": [{"op": "notebook", "path": "bad.ipynb", "mode": "delete", "cell": 0}]});
    let run = propose_list(&repo, &list, &[]);
    assert_eq!((run.code, error_code(&run)), (2, "invalid_input".into()));
    assert_has(&run.error_message(), "line 3");
}

#[test]
fn validators_strict_warn_and_only() {
    let repo = TestRepo::with_files(&[("c.json", "{\"a\": 1}\n"), ("x.py", "x = 1\n")]);
    let broken = ["--file", "c.json", "--old", "1}", "--new", "1"];
    let before = repo.git(&["for-each-ref", "refs/evolv/proposals"]);
    let run = repo.evolv(&[&["propose", "--json"][..], &broken].concat());
    assert_eq!(
        (run.code, error_code(&run)),
        (1, "validation_failed".into())
    );
    assert_eq!(repo.git(&["for-each-ref", "refs/evolv/proposals"]), before);
    let run = repo.evolv(&[&["propose", "--json", "--check", "warn"][..], &broken].concat());
    let v = run.success().stdout_json();
    assert!(v["patch_id"].is_string());
    assert_eq!(v["validators"][0]["passed"], false);
    assert_eq!(v["files"][0]["validators"][0]["name"], "json");
    let run = repo.evolv(&[&["propose", "--json", "--check", "only"][..], &broken].concat());
    assert_eq!(run.code, 1);
    assert!(run.json()["patch_id"].is_null());
    assert_eq!(run.json()["dry_run"], true);
    let run = repo.evolv(&[
        "propose", "--json", "--check", "only", "--file", "c.json", "--old", "1", "--new", "2",
    ]);
    assert_eq!(run.code, 0);
    assert!(run.json()["patch_id"].is_null());
    // A configured validator runs in a temp dir with the repo paths.
    repo.set_config("evolv.validator.py.glob", "*.py");
    repo.set_config(
        "evolv.validator.py.command",
        "pwd > /dev/null; test -f x.py && grep -q 'x = 2' {files} && echo checked {files}",
    );
    let run = exact(&repo, "x.py", "1", "2");
    run.ok();
    let r = &run.json()["validators"][0];
    assert_eq!(
        (r["name"].as_str(), r["passed"].as_bool()),
        (Some("py"), Some(true))
    );
    assert!(r["output"].as_str().unwrap().contains("checked x.py"));
    let run = exact(&repo, "x.py", "1", "3");
    assert_eq!(
        (run.code, error_code(&run)),
        (1, "validation_failed".into())
    );
}

#[test]
fn fixture_files_keep_their_bytes() {
    let fx = |name: &str| {
        std::fs::read(format!(
            "{}/fixtures/edits/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    };
    let repo = TestRepo::empty();
    for name in ["crlf.txt", "bom.txt", "no_final_newline.txt", "latin1.txt"] {
        repo.write_bytes(name, &fx(name));
    }
    repo.commit_all("fixtures");
    let list = json!({"edits": [
        {"op": "replace", "path": "crlf.txt", "old": "second line\nthird", "new": "2nd\nline\nthird"},
        {"op": "range", "path": "bom.txt", "locator": {"start_offset": 0, "end_offset": 5}, "new": "HELLO"},
        {"op": "replace", "path": "no_final_newline.txt", "old": "gamma", "new": "GAMMA"},
        {"op": "replace", "path": "latin1.txt", "old": "na", "new": "NA"}
    ]});
    let id = assert_list_proposes(
        &repo,
        &list,
        &[
            ("crlf.txt", b"first line\r\n2nd\r\nline\r\nthird line\r\n"),
            ("bom.txt", b"\xef\xbb\xbfHELLO bom\nsecond\n"),
            ("no_final_newline.txt", b"alpha\nbeta\nGAMMA"),
            ("latin1.txt", b"caf\xe9 cr\xe8me\nNA\xefve\n"),
        ],
    );
    let range = json!({"edits": [{"op": "range", "path": "latin1.txt", "locator": {"start_offset": 0, "end_offset": 1}, "new": "C"}]});
    let run = propose_list(&repo, &range, &[]);
    assert_eq!((run.code, error_code(&run)), (2, "invalid_input".into()));
    // git itself accepts the stored diff on the base.
    let diff = repo
        .git_run(&["diff", "HEAD", &format!("refs/evolv/proposals/{id}")])
        .stdout_bytes;
    let patch = repo.home().join("p.diff");
    std::fs::write(&patch, diff).unwrap();
    repo.git(&["apply", "--check", patch.to_str().unwrap()]);
}
