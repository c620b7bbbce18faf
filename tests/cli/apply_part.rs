//! Applying part of a proposal (issue 30 item 4): `apply <id> --paths`
//! lands the chosen paths' changes, validated on the tree that lands; the
//! rest stays pending under the same id, stacked on what landed; a part
//! that fails leaves the proposal as it was.

use serde_json::json;

use crate::common::{TestRepo, error_code};
use crate::mcp_client::Mcp;

/// A proposal changing a.txt, b.txt and src/c.rs, and its id and tree.
fn three_files() -> (TestRepo, String, String) {
    let repo = TestRepo::with_files(&[("a.txt", "A\n"), ("b.txt", "B\n"), ("src/c.rs", "C\n")]);
    let list = repo.home().join("edits.json");
    std::fs::write(
        &list,
        r#"{"edits": [
            {"op": "write", "path": "a.txt", "content": "A2\n"},
            {"op": "write", "path": "b.txt", "content": "B2\n"},
            {"op": "write", "path": "src/c.rs", "content": "C2\n"}]}"#,
    )
    .unwrap();
    let run = repo.evolv(&["propose", "--json", "--edits", list.to_str().unwrap()]);
    run.ok();
    let id = run.json_str("/patch_id");
    let tree = repo.git(&["rev-parse", &format!("refs/evolv/proposals/{id}^{{tree}}")]);
    (repo, id, tree.trim().to_string())
}

fn changed_by_head(repo: &TestRepo) -> String {
    repo.git(&["diff", "--name-only", "HEAD~1", "HEAD"])
}

#[test]
fn paths_land_alone_and_the_rest_stays_pending_under_the_same_id() {
    let (repo, id, whole) = three_files();
    // Validation sees the tree that lands: a.txt still as it was.
    repo.set_config("evolv.validate", "grep -qx A a.txt && grep -qx C2 src/c.rs");
    let run = repo.evolv(&["apply", "--json", &id, "--paths", "src/**"]);
    run.ok();
    assert_eq!(run.json_str("/remaining_patch_id"), id);
    assert_eq!(changed_by_head(&repo), "src/c.rs\n");
    assert_eq!(repo.read("src/c.rs"), "C2\n");
    assert_eq!(repo.read("a.txt"), "A\n");
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    let list = repo.evolv(&["list", "--json"]);
    list.ok();
    let listed = list.json();
    let pending: Vec<&serde_json::Value> = listed["proposals"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["status"] == "pending")
        .collect();
    assert_eq!(pending.len(), 1, "{listed}");
    assert_eq!(pending[0]["patch_id"], id.as_str());
    // The rest lands as the proposal, and the whole is what was proposed.
    repo.set_config("evolv.validate", "true");
    repo.evolv(&["apply", "--json", &id]).ok();
    assert_eq!(repo.git(&["rev-parse", "HEAD^{tree}"]).trim(), whole);
    assert_eq!(changed_by_head(&repo), "a.txt\nb.txt\n");
    repo.assert_fsck();
}

#[test]
fn a_part_that_fails_validation_leaves_the_proposal_as_it_was() {
    let (repo, id, _) = three_files();
    let before = repo.git(&["for-each-ref", "refs/evolv/proposals"]);
    let head = repo.head();
    repo.set_config("evolv.validate", "false");
    let run = repo.evolv(&["apply", "--json", &id, "--paths", "a.txt"]);
    assert_ne!(run.code, 0, "{}", run.stdout);
    assert_eq!(repo.head(), head);
    assert_eq!(repo.git(&["for-each-ref", "refs/evolv/proposals"]), before);
    let none = repo.evolv(&["apply", "--json", &id, "--paths", "nothing/**"]);
    assert_eq!(error_code(&none), "invalid_input", "{}", none.stdout);
    assert_eq!(repo.git(&["for-each-ref", "refs/evolv/proposals"]), before);
}

#[test]
fn mcp_apply_edit_takes_paths() {
    let (repo, id, _) = three_files();
    let mut mcp = Mcp::start(&repo);
    let out = mcp.call_ok("apply_edit", json!({ "patch_id": id, "paths": "b.txt" }));
    assert_eq!(out["remaining_patch_id"], id.as_str());
    assert_eq!(changed_by_head(&repo), "b.txt\n");
    mcp.finish();
}

/// `apply -i` through a real pseudo-terminal, with `git add -p`'s keys:
/// `?` prints the help, `y`/`n` per hunk, `s` splits a hunk, `d` skips the
/// rest of a file. What was chosen lands; the rest stays pending.
#[test]
fn interactive_apply_asks_hunk_by_hunk_in_a_pseudo_terminal() {
    let numbered = |two: &str, fifteen: &str| -> String {
        (1..=20)
            .map(|n| match n {
                2 => format!("{two}\n"),
                15 => format!("{fifteen}\n"),
                n => format!("{n}\n"),
            })
            .collect()
    };
    let lines = numbered("2", "15");
    let repo = TestRepo::with_files(&[
        ("f.txt", lines.as_str()),
        ("g.txt", "g\n"),
        ("h.txt", "a\nb\nc\nd\ne\n"),
    ]);
    let list = repo.home().join("edits.json");
    let f_new = numbered("two", "fifteen");
    let edits = json!({"edits": [
        {"op": "write", "path": "f.txt", "content": f_new},
        {"op": "write", "path": "g.txt", "content": "G\n"},
        {"op": "write", "path": "h.txt", "content": "a\nB\nc\nD\ne\n"},
    ]});
    std::fs::write(&list, edits.to_string()).unwrap();
    let run = repo.evolv(&["propose", "--json", "--edits", list.to_str().unwrap()]);
    run.ok();
    let id = run.json_str("/patch_id");
    let whole = repo.git(&["rev-parse", &format!("refs/evolv/proposals/{id}^{{tree}}")]);
    repo.set_config("evolv.validate", "true");
    let driver = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cli/pty_driver.py");
    let mut cmd = crate::common::sealed("python3", repo.home());
    // f.txt: ? (help), y, n; g.txt: d; h.txt: s, y, n.
    cmd.arg(&driver)
        .args(["?,y,n,d,s,y,n", crate::common::BIN, "apply", &id, "-i"])
        .current_dir(repo.path());
    let run = crate::common::Run::of(cmd);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("s - split the current hunk"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("Split into 2 hunks."), "{}", run.stdout);
    assert_eq!(repo.read("f.txt"), numbered("two", "15"));
    assert_eq!(repo.read("g.txt"), "g\n");
    assert_eq!(repo.read("h.txt"), "a\nB\nc\nd\ne\n");
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    // The rest is the same proposal, pending; applied, the whole lands.
    repo.evolv(&["apply", "--json", &id]).ok();
    assert_eq!(repo.git(&["rev-parse", "HEAD^{tree}"]), whole);
    repo.assert_fsck();
}
