//! `propose --patch` (issue 30 item 2): a patch as git writes it, proposed
//! onto its base, gives exactly the tree git made; a mailbox series gives a
//! stack; an apply_patch envelope applies as that tool documents; a hunk
//! that does not apply changes nothing and names the file and hunk.

use serde_json::json;

use crate::common::{TestRepo, error_code};
use crate::mcp_client::{Mcp, assert_matches_output_schema};

/// The proposal `id`'s tree.
fn tree_of(repo: &TestRepo, id: &str) -> String {
    let tree = repo.git(&["rev-parse", &format!("refs/evolv/proposals/{id}^{{tree}}")]);
    tree.trim().to_string()
}

/// Writes `text` outside the work tree and proposes it with `args`.
fn propose(repo: &TestRepo, text: &[u8], args: &[&str]) -> crate::common::Run {
    let file = repo.home().join("change.patch");
    std::fs::write(&file, text).expect("write the patch");
    let path = file.to_str().expect("utf-8 path");
    let mut all = vec!["propose", "--json", "--patch", path];
    all.extend_from_slice(args);
    repo.evolv(&all)
}

/// A commit with every kind of change git's diff writes: an edit, CRLF, no
/// final newline, a new file, a deletion, a rename with an edit, a mode
/// change, a symlink, a binary file changed and a binary file new.
fn every_kind_of_change() -> (TestRepo, String, String) {
    let repo = TestRepo::with_files(&[
        ("src/lib.rs", "fn a() {}\nfn b() {}\nfn c() {}\n"),
        ("crlf.txt", "one\r\ntwo\r\nthree\r\n"),
        ("tail.txt", "no newline"),
        ("gone.txt", "bye\n"),
        ("old name.txt", "1\n2\n3\n4\n5\n6\n7\n8\n"),
        ("run.sh", "echo hi\n"),
    ]);
    repo.write_bytes("blob.bin", &[0, 1, 2, 3, 255, 0, 7]);
    repo.commit_all("base with a binary");
    let base = repo.head();
    repo.write("src/lib.rs", "fn a() {}\nfn b() { todo!() }\nfn c() {}\n");
    repo.write("crlf.txt", "one\r\nTWO\r\nthree\r\n");
    repo.write("tail.txt", "no newline, still");
    std::fs::remove_file(repo.file("gone.txt")).unwrap();
    std::fs::remove_file(repo.file("old name.txt")).unwrap();
    repo.write("dir/new name.txt", "1\n2\n3\n4\n5\n6\n7\n8\n9\n");
    repo.git(&["update-index", "--chmod=+x", "run.sh"]);
    std::os::unix::fs::symlink("src/lib.rs", repo.file("link")).unwrap();
    repo.write_bytes("blob.bin", &[0, 1, 2, 3, 254, 0, 7, 9]);
    repo.write_bytes(
        "new.bin",
        &(0..=255u8).cycle().take(3000).collect::<Vec<u8>>(),
    );
    repo.write("added.md", "# new\n");
    repo.commit_all("every kind of change");
    let commit = repo.head();
    (repo, base, commit)
}

#[test]
fn a_git_diff_binary_proposed_onto_its_parent_gives_the_commits_tree() {
    let (repo, base, commit) = every_kind_of_change();
    let patch = repo
        .git_run(&["diff", "--binary", "-M", &base, &commit])
        .ok()
        .stdout_bytes
        .clone();
    repo.git(&["reset", "--hard", &base]);
    let run = propose(&repo, &patch, &[]);
    run.ok();
    let id = run.json_str("/patch_id");
    assert_eq!(
        tree_of(&repo, &id),
        repo.git(&["rev-parse", &format!("{commit}^{{tree}}")])
            .trim()
    );
    assert_eq!(repo.head(), base, "propose touches no branch");
    assert_eq!(
        repo.git(&["status", "--porcelain"]),
        "",
        "nor the work tree"
    );
    // The same without a/ and b/ prefixes: detected as git apply's -p0.
    let plain = repo
        .git_run(&["diff", "--binary", "--no-prefix", "-M", &base, &commit])
        .ok()
        .stdout_bytes
        .clone();
    let id = propose(&repo, &plain, &[]).ok().json_str("/patch_id");
    assert_eq!(
        tree_of(&repo, &id),
        repo.git(&["rev-parse", &format!("{commit}^{{tree}}")])
            .trim()
    );
    repo.assert_fsck();
}

#[test]
fn a_diff_u_patch_applies_with_its_strip_level_detected() {
    let repo = TestRepo::with_files(&[("notes.txt", "alpha\nbeta\ngamma\n")]);
    let old = repo.home().join("notes.orig");
    let new = repo.home().join("notes.new");
    std::fs::write(&old, "alpha\nbeta\ngamma\n").unwrap();
    std::fs::write(&new, "alpha\nBETA\ngamma\n").unwrap();
    let out = std::process::Command::new("diff")
        .args(["-u", "notes.orig", "notes.new"])
        .current_dir(repo.home())
        .output()
        .expect("diff runs");
    // `--- notes.orig` names no file of the repository: say which with -p.
    let text = String::from_utf8_lossy(&out.stdout)
        .replace("notes.orig", "notes.txt")
        .replace("notes.new", "notes.txt");
    let id = propose(&repo, text.as_bytes(), &[])
        .ok()
        .json_str("/patch_id");
    let shown = repo.git(&["show", &format!("refs/evolv/proposals/{id}:notes.txt")]);
    assert_eq!(shown, "alpha\nBETA\ngamma\n");
}

#[test]
fn a_format_patch_series_becomes_a_stack_with_its_messages() {
    let repo = TestRepo::with_files(&[("a.txt", "1\n")]);
    let base = repo.head();
    repo.write("a.txt", "1\n2\n");
    repo.commit_all("feat: two\n\nThe second line.");
    repo.write("b.txt", "b\n");
    repo.commit_all("feat: b");
    let trees: Vec<String> = ["HEAD~1", "HEAD"]
        .iter()
        .map(|r| {
            repo.git(&["rev-parse", &format!("{r}^{{tree}}")])
                .trim()
                .to_string()
        })
        .collect();
    let mbox = repo
        .git_run(&["format-patch", "--stdout", &format!("{base}..HEAD")])
        .ok()
        .stdout_bytes
        .clone();
    repo.git(&["reset", "--hard", &base]);
    let run = propose(&repo, &mbox, &[]);
    run.ok();
    let json = run.json();
    let proposals = json["proposals"]
        .as_array()
        .expect("a series answers with proposals");
    assert_eq!(proposals.len(), 2);
    for (p, tree) in proposals.iter().zip(&trees) {
        let id = p["patch_id"].as_str().unwrap();
        assert_eq!(&tree_of(&repo, id), tree);
    }
    let first = proposals[0]["patch_id"].as_str().unwrap();
    let second = proposals[1]["patch_id"].as_str().unwrap();
    assert_eq!(proposals[0]["summary"], "feat: two");
    assert_eq!(
        repo.git(&["rev-parse", &format!("refs/evolv/proposals/{second}^")]),
        repo.git(&["rev-parse", &format!("refs/evolv/proposals/{first}")]),
        "the second is stacked on the first"
    );
}

#[test]
fn an_apply_patch_envelope_adds_updates_moves_and_deletes() {
    let repo = TestRepo::with_files(&[
        (
            "src/app.py",
            "import x\n\ndef greet():\n    print(\"Hi\")\n",
        ),
        ("obsolete.txt", "old\n"),
    ]);
    let envelope = "*** Begin Patch\n*** Add File: hello.txt\n+Hello world\n*** Update File: src/app.py\n*** Move to: src/main.py\n@@ def greet():\n-    print(\"Hi\")\n+    print(\"Hello, world!\")\n*** Delete File: obsolete.txt\n*** End Patch\n";
    let id = propose(&repo, envelope.as_bytes(), &[])
        .ok()
        .json_str("/patch_id");
    let files = repo.git(&[
        "ls-tree",
        "-r",
        "--name-only",
        &format!("refs/evolv/proposals/{id}"),
    ]);
    assert_eq!(
        files.lines().collect::<Vec<_>>(),
        ["hello.txt", "src/main.py"]
    );
    let main = repo.git(&["show", &format!("refs/evolv/proposals/{id}:src/main.py")]);
    assert!(main.contains("print(\"Hello, world!\")"), "{main}");
}

#[test]
fn a_hunk_that_does_not_apply_names_the_file_hunk_and_line_and_stores_nothing() {
    let repo = TestRepo::with_files(&[("f.txt", "a\nbee\nc\n")]);
    let patch =
        "diff --git a/f.txt b/f.txt\n--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n";
    let run = propose(&repo, patch.as_bytes(), &[]);
    assert_eq!(error_code(&run), "no_match", "{}", run.stdout);
    let message = run.json_str("/error/message");
    for part in ["f.txt", "hunk #1", "line 2 differs", "bee"] {
        assert!(message.contains(part), "{part}: {message}");
    }
    assert_eq!(repo.git(&["for-each-ref", "refs/evolv/proposals"]), "");
    let run = propose(&repo, b"not a patch at all\n", &[]);
    assert_eq!(error_code(&run), "invalid_input", "{}", run.stdout);
}

/// The MCP tool takes the same text and answers in the CLI's shapes, each
/// matching its outputSchema: one proposal, a mailbox series as
/// `proposals`, and a hunk that does not apply as `no_match`.
#[test]
fn the_mcp_tool_takes_the_same_text_and_answers_in_the_clis_shapes() {
    let repo = TestRepo::with_files(&[("a.txt", "1\n")]);
    let base = repo.head();
    repo.write("a.txt", "1\n2\n");
    repo.commit_all("feat: two");
    repo.write("b.txt", "b\n");
    repo.commit_all("feat: b");
    let diff = repo.git(&["diff", &base, "HEAD"]);
    let mbox = repo.git(&["format-patch", "--stdout", &format!("{base}..HEAD")]);
    let tree = repo.git(&["rev-parse", "HEAD^{tree}"]);
    repo.git(&["reset", "--hard", &base]);
    let mut mcp = Mcp::start(&repo);
    let tools = mcp.tools();
    let one = mcp.call_ok("propose_patch", json!({ "patch": diff }));
    assert_matches_output_schema(&tools, "propose_patch", &one);
    assert_eq!(
        tree_of(&repo, one["patch_id"].as_str().unwrap()),
        tree.trim()
    );
    let series = mcp.call_ok("propose_patch", json!({ "patch": mbox }));
    assert_matches_output_schema(&tools, "propose_patch", &series);
    let stack = series["proposals"].as_array().expect("a stack");
    assert_eq!(stack.len(), 2);
    assert_eq!(
        tree_of(&repo, stack[1]["patch_id"].as_str().unwrap()),
        tree.trim()
    );
    let bad = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-nope\n+x\n";
    let error = mcp.call_err("propose_patch", json!({ "patch": bad }));
    assert_eq!(error["code"], "no_match", "{error}");
    mcp.finish();
}

/// git's copy headers (`git diff -C --find-copies-harder`): the copy is
/// made, its source stays.
#[test]
fn a_copy_keeps_its_source() {
    let body: String = (1..=30).map(|n| format!("line {n}\n")).collect();
    let repo = TestRepo::with_files(&[("orig.txt", body.as_str())]);
    let base = repo.head();
    repo.write("copy.txt", &body.replace("line 30\n", "line thirty\n"));
    repo.commit_all("copy");
    let commit = repo.head();
    let patch = repo
        .git_run(&[
            "diff",
            "--binary",
            "-C",
            "--find-copies-harder",
            &base,
            &commit,
        ])
        .ok()
        .stdout_bytes
        .clone();
    assert!(String::from_utf8_lossy(&patch).contains("copy from orig.txt"));
    repo.git(&["reset", "--hard", &base]);
    let id = propose(&repo, &patch, &[]).ok().json_str("/patch_id");
    let tree = repo.git(&["rev-parse", &format!("{commit}^{{tree}}")]);
    assert_eq!(tree_of(&repo, &id), tree.trim());
}

/// Names a patch may not write (out of the repository, into `.git`, or
/// absolute) are refused, naming the path, and nothing is stored.
#[test]
fn a_patch_naming_paths_outside_the_work_tree_is_refused() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    let hostile = [
        "--- /dev/null\n+++ b/../escape.txt\n@@ -0,0 +1 @@\n+x\n".to_string(),
        "--- /dev/null\n+++ b/.git/hooks/pre-commit\n@@ -0,0 +1 @@\n+x\n".to_string(),
        "*** Begin Patch\n*** Add File: /tmp/evolv-escape\n+x\n*** End Patch\n".to_string(),
        "*** Begin Patch\n*** Add File: sub/../../escape\n+x\n*** End Patch\n".to_string(),
    ];
    for patch in hostile {
        let run = propose(&repo, patch.as_bytes(), &[]);
        assert_eq!(error_code(&run), "invalid_input", "{patch}: {}", run.stdout);
    }
    assert_eq!(repo.git(&["for-each-ref", "refs/evolv/proposals"]), "");
    assert!(!repo.path().join("../escape.txt").exists());
}

// Found by the adversarial pass: a name that is not UTF-8 was refused only
// when git quoted it; unquoted (`core.quotePath=false`) it was copied
// lossily, so a new file would have been proposed under another name, and
// an apply_patch envelope took any bytes lossily. Each is now refused with
// the patch's line, and nothing is stored.
#[test]
fn a_name_or_envelope_that_is_not_utf8_is_refused_with_its_line_not_renamed() {
    let repo = TestRepo::with_files(&[("keep.txt", "k\n")]);
    let quoted: &[u8] =
        b"diff --git \"a/caf\\351.txt\" \"b/caf\\351.txt\"\nnew file mode 100644\n--- /dev/null\n+++ \"b/caf\\351.txt\"\n@@ -0,0 +1 @@\n+n\n";
    let raw: &[u8] = b"diff --git a/caf\xe9.txt b/caf\xe9.txt\nnew file mode 100644\n--- /dev/null\n+++ b/caf\xe9.txt\n@@ -0,0 +1 @@\n+n\n";
    let envelope: &[u8] = b"*** Begin Patch\n*** Add File: a.txt\n+caf\xe9\n*** End Patch\n";
    for (text, line) in [(quoted, "line 4"), (raw, "line 4"), (envelope, "line 3")] {
        let run = propose(&repo, text, &[]);
        run.fails_with(2, "invalid_input");
        crate::common::assert_has_all(&run.stdout, &["not UTF-8", line]);
        let proposals = repo.git(&["for-each-ref", "refs/evolv/proposals"]);
        assert_eq!(proposals.trim(), "", "nothing stored: {}", run.stdout);
    }
}

// Found by the adversarial pass: git writes a file that became a symlink
// as the path's deletion and then its creation, which was refused as
// "duplicate entries given for update"; a file that became a directory (or
// back) failed the same way, as a git error. git applies both, and since
// issue 38 item 19 so does propose, with git's tree.
#[test]
fn a_type_change_and_a_directory_turned_file_land_as_git_wrote_them() {
    let repo = TestRepo::with_files(&[("f", "a\n"), ("g", "b\n"), ("d/y", "c\n")]);
    let base = repo.head();
    std::fs::remove_file(repo.file("f")).unwrap();
    std::os::unix::fs::symlink("g", repo.file("f")).unwrap();
    repo.commit_all("f becomes a link");
    let linked = repo.head();
    let text = repo
        .git_run(&["diff", "--binary", &base, &linked])
        .ok()
        .stdout_bytes
        .clone();
    repo.git(&["reset", "-q", "--hard", &base]);
    let run = propose(&repo, &text, &[]);
    run.ok();
    let id = run.json()["patch_id"].as_str().unwrap().to_string();
    let want = repo.git(&["rev-parse", &format!("{linked}^{{tree}}")]);
    assert_eq!(tree_of(&repo, &id), want.trim(), "git's tree");

    std::fs::remove_dir_all(repo.file("d")).unwrap();
    repo.write("d", "now a file\n");
    repo.commit_all("d becomes a file");
    let filed = repo.head();
    let text = repo
        .git_run(&["diff", "--binary", &base, &filed])
        .ok()
        .stdout_bytes
        .clone();
    repo.git(&["reset", "-q", "--hard", &base]);
    let run = propose(&repo, &text, &[]);
    run.ok();
    let id = run.json_str("/patch_id");
    let want = repo.git(&["rev-parse", &format!("{filed}^{{tree}}")]);
    assert_eq!(tree_of(&repo, &id), want.trim(), "git's tree");
    repo.assert_fsck();
}
