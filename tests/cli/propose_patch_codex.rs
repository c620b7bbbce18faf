//! `propose --patch` with apply_patch envelopes written in Codex's dialect
//! (issue 38): what Codex's own apply_patch accepts is proposed with the
//! bytes Codex would write, checked in the stored blobs; what it refuses
//! is refused and nothing is stored. The dialect's rules, row by row, are
//! in crates/core/src/patch/envelope/dialect_tests.rs; these run them
//! through the installed binary on real repositories.

use serde_json::json;

use crate::common::{TestRepo, error_code};
use crate::mcp_client::Mcp;

/// Writes `text` outside the work tree and proposes it.
fn propose(repo: &TestRepo, text: &str) -> crate::common::Run {
    let file = repo.home().join("codex.patch");
    std::fs::write(&file, text).expect("write the patch");
    repo.evolv(&[
        "propose",
        "--json",
        "--patch",
        file.to_str().expect("utf-8"),
    ])
}

/// The bytes of `path` in proposal `id`, as git stores them.
fn blob(repo: &TestRepo, id: &str, path: &str) -> Vec<u8> {
    let spec = format!("refs/evolv/proposals/{id}:{path}");
    repo.git_run(&["cat-file", "blob", &spec])
        .ok()
        .stdout_bytes
        .clone()
}

fn no_proposal(repo: &TestRepo) {
    let refs = repo.git(&["for-each-ref", "refs/evolv/proposals"]);
    assert_eq!(refs.trim(), "", "nothing stored");
}

/// A repository whose files have the line endings and punctuation of the
/// issue's cases, committed as bytes.
fn repo_with_awkward_files() -> TestRepo {
    let repo = TestRepo::with_files(&[("README", "r\n")]);
    repo.write_bytes("crlf.txt", b"one\r\ntwo\r\nthree\r\n");
    repo.write_bytes("cr.txt", b"a\rb\rc\r");
    repo.write_bytes("mixed.txt", b"x\ny\r\nz\rw");
    repo.write_bytes("tail.txt", b"first\nlast");
    repo.write_bytes(
        "dash.py",
        "import asyncio  # local import \u{2013} avoids top\u{2011}level dep\n".as_bytes(),
    );
    repo.write_bytes("order.txt", b"a\nb\nc\n");
    repo.commit_all("awkward files");
    repo
}

#[test]
fn an_envelope_in_codexs_dialect_stores_the_bytes_codex_writes() {
    let repo = repo_with_awkward_files();
    let head = repo.head();
    // Padded markers, a blank line before `*** End Patch`, and one file
    // for each of the issue's cases.
    let envelope = "  *** Begin Patch\n\
        \t*** Update File: crlf.txt\n@@\n one\n-two\n+TWO\n three\n\
        *** Update File: cr.txt  \n@@\n a\n-b\n+B\n\
         *** Update File: mixed.txt\n@@\n y\n-z\n+Z\n\
        *** Update File: tail.txt\n@@\n-first\n+FIRST\n\
        *** Update File: dash.py\n@@\n-import asyncio  # local import - avoids top-level dep\n+import asyncio  # HELLO\n\
        *** Update File: order.txt\n@@\n+tail\n@@\n-a\n+A\n\
        \n *** End Patch \n";
    let run = propose(&repo, envelope);
    run.ok();
    let id = run.json_str("/patch_id");
    let cases: [(&str, &[u8]); 6] = [
        ("crlf.txt", b"one\r\nTWO\r\nthree\r\n"),
        ("cr.txt", b"a\rB\rc\r"),
        // The context line keeps its CRLF, the new line takes the file's
        // first ending, and the last line gets one.
        ("mixed.txt", b"x\ny\r\nZ\nw\n"),
        ("tail.txt", b"FIRST\nlast\n"),
        ("dash.py", b"import asyncio  # HELLO\n"),
        ("order.txt", b"A\nb\nc\ntail\n"),
    ];
    for (path, want) in cases {
        assert_eq!(
            String::from_utf8_lossy(&blob(&repo, &id, path)),
            String::from_utf8_lossy(want),
            "{path}"
        );
    }
    assert_eq!(repo.head(), head, "proposing does not move the branch");
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    repo.git(&["fsck", "--no-progress"]);
}

#[test]
fn an_envelope_in_a_heredoc_is_unwrapped_as_codex_unwraps_it() {
    let repo = TestRepo::with_files(&[("f.txt", "old\n")]);
    for (n, opener) in ["<<'EOF'", "<<EOF", "<<\"EOF\""].into_iter().enumerate() {
        let text = format!(
            "{opener}\n*** Begin Patch\n*** Update File: f.txt\n@@\n-old\n+new {n}\n*** End Patch\nEOF\n"
        );
        let run = propose(&repo, &text);
        run.ok();
        let id = run.json_str("/patch_id");
        assert_eq!(blob(&repo, &id, "f.txt"), format!("new {n}\n").as_bytes());
    }
}

#[test]
fn what_codex_refuses_is_refused_naming_the_line_and_nothing_is_stored() {
    let repo = TestRepo::with_files(&[("f.txt", "a\nb\n")]);
    let refused = [
        (
            "*** Begin Patch\n*** Update File: f.txt\n@@\n-a\n+A\n*** End Patch\nmore words\n",
            "line 7",
        ),
        (
            "*** Begin Patch\n*** Update File: f.txt\n*** Move to: g.txt\n*** End Patch\n",
            "no chunk",
        ),
        (
            "*** Begin Patch\n*** Add File: n.txt\n+x\n\n*** End Patch\n",
            "line 4",
        ),
        (
            "*** Begin Patch\n*** Update File: f.txt\n@@\n-a\n+A\nb\n*** End Patch\n",
            "line 6",
        ),
        (
            "<<'EOF'\n*** Begin Patch\n*** Update File: f.txt\n@@\n-a\n+A\n*** End Patch\nPATCH\n",
            "does not end with `EOF`",
        ),
    ];
    for (text, part) in refused {
        let run = propose(&repo, text);
        run.fails_with(2, "invalid_input");
        crate::common::assert_has_all(&run.stdout, &[part]);
        no_proposal(&repo);
    }
    // Codex's scenarios: a file that is not there cannot be updated or
    // deleted, a directory is not a file, an envelope must change a file.
    let repo = TestRepo::with_files(&[("f.txt", "a\nb\n"), ("dir/inner.txt", "i\n")]);
    for text in [
        "*** Begin Patch\n*** Update File: missing.txt\n@@\n-a\n+b\n*** End Patch\n",
        "*** Begin Patch\n*** Delete File: missing.txt\n*** End Patch\n",
        "*** Begin Patch\n*** Delete File: dir\n*** End Patch\n",
        "*** Begin Patch\n*** End Patch\n",
    ] {
        let run = propose(&repo, text);
        assert_eq!(run.json()["success"], false, "{text}: {}", run.stdout);
        no_proposal(&repo);
    }
    let run = propose(
        &repo,
        "*** Begin Patch\n*** Update File: f.txt\n@@\n-zzz\n+A\n*** End Patch\n",
    );
    assert_eq!(error_code(&run), "no_match", "{}", run.stdout);
    no_proposal(&repo);
}

/// Forgiving whitespace around a header forgives none of the path checks:
/// each path is refused for what it is.
#[test]
fn padded_headers_still_refuse_paths_outside_the_repository() {
    let repo = TestRepo::with_files(&[("f.txt", "a\n")]);
    for (text, why) in [
        (
            "*** Begin Patch\n  *** Add File: ../escape.txt\n+x\n*** End Patch\n",
            "contains '..'",
        ),
        (
            "*** Begin Patch\n\t*** Add File: /tmp/evolv-codex-escape\n+x\n*** End Patch\n",
            "is absolute",
        ),
        (
            " *** Begin Patch\n *** Update File: f.txt \n*** Move to: .git/hooks/pre-commit\n@@\n-a\n+b\n *** End Patch\n",
            "inside .git",
        ),
        (
            "<<EOF\n*** Begin Patch\n*** Delete File: sub/../../f.txt\n*** End Patch\nEOF\n",
            "contains '..'",
        ),
    ] {
        let run = propose(&repo, text);
        run.fails_with(2, "invalid_input");
        crate::common::assert_has_all(&run.stdout, &[why]);
        no_proposal(&repo);
    }
    assert!(!repo.path().join("../escape.txt").exists());
    assert!(!std::path::Path::new("/tmp/evolv-codex-escape").exists());
}

/// As in Codex's scenarios, an added file replaces one that is there and a
/// move replaces its destination.
#[test]
fn an_add_or_a_move_onto_an_existing_file_replaces_it() {
    let repo = TestRepo::with_files(&[
        ("old/name.txt", "from\n"),
        ("renamed/dir/name.txt", "was here\n"),
        ("dup.txt", "before\n"),
    ]);
    let run = propose(
        &repo,
        "*** Begin Patch\n*** Update File: old/name.txt\n*** Move to: renamed/dir/name.txt\n@@\n-from\n+new\n*** Add File: dup.txt\n+after\n*** End Patch\n",
    );
    run.ok();
    let id = run.json_str("/patch_id");
    assert_eq!(blob(&repo, &id, "renamed/dir/name.txt"), b"new\n");
    assert_eq!(blob(&repo, &id, "dup.txt"), b"after\n");
    let files = repo.git(&[
        "ls-tree",
        "-r",
        "--name-only",
        &format!("refs/evolv/proposals/{id}"),
    ]);
    assert_eq!(
        files.lines().collect::<Vec<_>>(),
        ["dup.txt", "renamed/dir/name.txt"]
    );
}

#[test]
fn the_mcp_tool_applies_the_same_dialect() {
    let repo = TestRepo::with_files(&[("f.txt", "keep\n")]);
    repo.write_bytes("w.txt", b"a\r\nb\r\nc");
    repo.commit_all("crlf without a final newline");
    let mut mcp = Mcp::start(&repo);
    let envelope = " *** Begin Patch\n  *** Update File: w.txt\n@@\n a\n-b\n+B\n\n*** End Patch ";
    let answer = mcp.call_ok("propose_patch", json!({ "patch": envelope }));
    let id = answer["patch_id"].as_str().expect("an id").to_string();
    mcp.finish();
    assert_eq!(blob(&repo, &id, "w.txt"), b"a\r\nB\r\nc\r\n");
}

/// Codex applies an envelope's parts one after another, each on what the
/// parts before it left: a file updated twice, added then updated, or
/// deleted then added again, is one change of the path.
#[test]
fn parts_touching_one_path_apply_in_order_as_codex_applies_them() {
    let repo = TestRepo::with_files(&[("a.txt", "one\ntwo\nthree\n"), ("gone.txt", "old\n")]);
    let envelope = "*** Begin Patch\n\
        *** Update File: a.txt\n@@\n-one\n+ONE\n\
        *** Update File: a.txt\n@@\n ONE\n-two\n+TWO\n\
        *** Add File: new.txt\n+first\n\
        *** Update File: new.txt\n@@\n-first\n+FIRST\n\
        *** Delete File: gone.txt\n\
        *** Add File: gone.txt\n+again\n\
        *** End Patch\n";
    let run = propose(&repo, envelope);
    run.ok();
    let id = run.json_str("/patch_id");
    assert_eq!(blob(&repo, &id, "a.txt"), b"ONE\nTWO\nthree\n");
    assert_eq!(blob(&repo, &id, "new.txt"), b"FIRST\n");
    assert_eq!(blob(&repo, &id, "gone.txt"), b"again\n");
    // An update of what an earlier part deleted is refused, nothing stored.
    let repo = TestRepo::with_files(&[("a.txt", "one\n")]);
    let envelope = "*** Begin Patch\n*** Delete File: a.txt\n\
        *** Update File: a.txt\n@@\n-one\n+ONE\n*** End Patch\n";
    let run = propose(&repo, envelope);
    assert_ne!(run.code, 0, "{}", run.stdout);
    assert!(
        run.stdout.contains("a part before this one removed it"),
        "{}",
        run.stdout
    );
    no_proposal(&repo);
}
