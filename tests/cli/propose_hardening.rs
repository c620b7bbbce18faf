//! Issue 38, items 19, 20 and 21: patches git applies are proposed as git
//! applies them (a chain of renames, a file turned into a directory and
//! back), a pathspec outside the repository is bad input naming it, and
//! the built-in checks refuse only what the edit made worse.

use serde_json::Value;

use crate::common::{TestRepo, assert_has, error_code};

/// Lines enough for git's rename and break detection (it skips files
/// under 400 bytes when it breaks a pair).
fn numbers(from: usize) -> String {
    (from..from + 300).map(|n| format!("{n}\n")).collect()
}

/// The patch `git diff <diff_args> base HEAD` prints for the commit
/// `change` makes on top of the repository's HEAD; the repository is then
/// back at its base, the work tree clean.
fn real_patch(repo: &TestRepo, diff_args: &[&str], change: impl Fn(&TestRepo)) -> Vec<u8> {
    let base = repo.head();
    change(repo);
    repo.git(&["commit", "-qm", "the change"]);
    let mut args = vec!["diff"];
    args.extend_from_slice(diff_args);
    args.extend_from_slice(&[&base, "HEAD"]);
    let patch = repo.git_run(&args).ok().stdout_bytes.clone();
    repo.git(&["reset", "-q", "--hard", &base]);
    patch
}

/// The tree `git apply --cached` makes of `patch` on HEAD (the index is
/// put back afterwards); `None` when git refuses the patch.
fn git_applied(repo: &TestRepo, patch: &std::path::Path) -> Option<String> {
    let applied = repo.git_run(&["apply", "--cached", patch.to_str().unwrap()]);
    let tree = (applied.code == 0).then(|| repo.git(&["write-tree"]).trim().to_string());
    repo.git(&["reset", "-q"]);
    tree
}

fn propose_patch(repo: &TestRepo, patch: &[u8]) -> (crate::common::Run, std::path::PathBuf) {
    let file = repo.home().join("change.patch");
    std::fs::write(&file, patch).unwrap();
    let run = repo.evolv(&["propose", "--json", "--patch", file.to_str().unwrap()]);
    (run, file)
}

fn proposal_tree(repo: &TestRepo, id: &str) -> String {
    let spec = format!("refs/evolv/proposals/{id}^{{tree}}");
    repo.git(&["rev-parse", &spec]).trim().to_string()
}

// Item 19: a chain of renames (b→c, a→b) and a file turned into a
// directory (f → f/g) or back failed inside libgit2's tree update as a
// `git_error` ("duplicate entries", "D/F conflict") or was refused; git
// applies them. Each is proposed now, its tree the one `git apply
// --cached` writes.
#[test]
fn patches_git_applies_give_the_tree_git_apply_gives() {
    type Change = fn(&TestRepo);
    let chain: Change = |repo| {
        repo.git(&["mv", "b", "c"]);
        repo.git(&["mv", "a", "b"]);
    };
    let into_directory: Change = |repo| {
        repo.git(&["rm", "-q", "f"]);
        repo.write("f/g", &numbers(2000));
        repo.git(&["add", "f/g"]);
    };
    let back_into_a_file: Change = |repo| {
        repo.git(&["rm", "-q", "-r", "d"]);
        repo.write("d", &numbers(3000));
        repo.git(&["add", "d"]);
    };
    let cases: [(&str, &[&str], Change); 5] = [
        ("a chain of renames", &["-B", "-M"], chain),
        ("f renamed to f/g", &["-M"], into_directory),
        ("f deleted, f/g added", &["--no-renames"], into_directory),
        ("d/e renamed to d", &["-M"], back_into_a_file),
        ("d/e deleted, d added", &["--no-renames"], back_into_a_file),
    ];
    for (case, diff_args, change) in cases {
        let repo = TestRepo::with_files(&[
            ("a", numbers(1)),
            ("b", numbers(1000)),
            ("f", numbers(2000)),
            ("d/e", numbers(3000)),
            ("keep.txt", "k\n".to_string()),
        ]);
        let patch = real_patch(&repo, diff_args, change);
        let (run, file) = propose_patch(&repo, &patch);
        let expected =
            git_applied(&repo, &file).unwrap_or_else(|| panic!("{case}: git applies it"));
        assert_eq!(run.code, 0, "{case}: {}", run.stdout);
        let id = run.json_str("/patch_id");
        assert_eq!(proposal_tree(&repo, &id), expected, "{case}");
        assert_eq!(repo.status(), "", "{case}: the work tree is untouched");
        repo.assert_fsck();
    }
}

/// A patch that adds both `f` and `f/g` after deleting `f` is one git
/// refuses too: it is bad input naming the path, never a `git_error`.
#[test]
fn a_patch_adding_f_and_f_slash_g_after_deleting_f_is_bad_input_not_a_git_error() {
    let repo = TestRepo::with_files(&[("f", "x\n"), ("keep.txt", "k\n")]);
    let patch = b"diff --git a/f b/f\ndeleted file mode 100644\n--- a/f\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\ndiff --git a/f b/f\nnew file mode 100644\n--- /dev/null\n+++ b/f\n@@ -0,0 +1 @@\n+y\ndiff --git a/f/g b/f/g\nnew file mode 100644\n--- /dev/null\n+++ b/f/g\n@@ -0,0 +1 @@\n+z\n";
    let (run, file) = propose_patch(&repo, patch);
    assert_eq!(git_applied(&repo, &file), None, "git refuses it");
    run.fails_with(2, "invalid_input");
    assert_has(&run.error_message(), "'f'");
    let proposals = repo.git(&["for-each-ref", "refs/evolv/proposals"]);
    assert_eq!(proposals, "", "nothing stored");
}

// Item 20: a pathspec outside the repository was a `git_error` (git
// status's "is outside repository"); it is `invalid_input` naming the
// path, from the CLI and from the MCP tool, and nothing is stored.
#[test]
fn a_pathspec_outside_the_repository_is_invalid_input_naming_it() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n"), ("sub/b.txt", "b\n")]);
    repo.write("a.txt", "changed\n");
    let outside = repo.home().join("elsewhere.txt");
    let outside = outside.to_str().unwrap();
    for spec in ["../x", outside, ":(exclude)../x", "sub/../../x"] {
        let run = repo.evolv(&["propose", "--json", "--from-worktree", "--", spec]);
        run.fails_with(2, "invalid_input");
        assert_has(&run.error_message(), spec);
        assert_has(&run.error_message(), "outside the repository");
    }
    // Pathspecs git itself refuses are bad input too, in git's words.
    for spec in ["", ":(nosuchmagic)a.txt"] {
        let run = repo.evolv(&["propose", "--json", "--from-worktree", "--", spec]);
        run.fails_with(2, "invalid_input");
        assert_has(&run.error_message(), "pathspec");
    }
    // From a subdirectory, `../a.txt` is inside: captured.
    let mut cmd = repo.evolv_cmd(&[
        "propose",
        "--json",
        "--from-worktree",
        "--keep",
        "--",
        "../a.txt",
    ]);
    cmd.current_dir(repo.file("sub"));
    let inside = crate::common::Run::of(cmd);
    assert_eq!(inside.code, 0, "{}", inside.stdout);
    assert_eq!(
        inside.json()["affected_files"],
        serde_json::json!(["a.txt"])
    );
    // An absolute path inside the repository is taken, as git takes it.
    let absolute = repo.file("a.txt");
    let run = repo.evolv(&[
        "propose",
        "--json",
        "--from-worktree",
        "--keep",
        "--",
        absolute.to_str().unwrap(),
    ]);
    assert_eq!(run.code, 0, "{}", run.stdout);

    use crate::mcp_client::Mcp;
    let mut mcp = Mcp::start(&repo);
    for spec in ["../x", outside] {
        let error = mcp.call_err("propose_worktree", serde_json::json!({ "paths": spec }));
        assert_eq!(error["code"], "invalid_input", "{error}");
        assert_has(error["message"].as_str().unwrap(), spec);
    }
    mcp.finish();
    assert_eq!(repo.read("a.txt"), "changed\n");
}

/// The built-in check's report in a propose's JSON.
fn builtin_report(run: &crate::common::Run, name: &str) -> Value {
    let v = run.json();
    let reports = v["validators"].as_array().cloned().unwrap_or_default();
    reports
        .into_iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("no {name} report: {}", run.stdout))
}

// Item 21: ruff's commit that only changes the mode of a deliberately
// invalid notebook fixture was refused by the notebook check. A check
// refuses only what the edit made worse: a file already invalid at the
// base, a mode-only change or a pure rename passes, and the report says
// it was not checked.
#[test]
fn built_in_checks_refuse_only_what_the_edit_made_worse() {
    let notebook = "{\n  \"cells\": [],\n  \"metadata\": {},\n  \"nbformat\": 4\n";
    let repo = TestRepo::with_files(&[
        ("fixtures/jupyter/invalid_extension.ipynb", notebook),
        ("fixtures/broken.json", "{\"a\": }\n"),
        ("config/good.json", "{\"a\": 1}\n"),
    ]);
    let fixture = "fixtures/jupyter/invalid_extension.ipynb";
    std::fs::set_permissions(
        repo.file(fixture),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    repo.commit_all("an executable fixture");

    // The mode-only commit, as `git diff` writes it.
    let mode_only = real_patch(&repo, &[], |repo| {
        repo.git(&["update-index", "--chmod=-x", fixture]);
    });
    let (run, _) = propose_patch(&repo, &mode_only);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let report = builtin_report(&run, "notebook");
    assert_eq!(report["passed"], true, "{report}");
    assert_eq!(report["checked"], false, "{report}");
    assert_has(report["output"].as_str().unwrap(), "not checked");
    assert_has(report["output"].as_str().unwrap(), "mode");

    // People read the same.
    let file = repo.home().join("change.patch");
    let text = repo.evolv(&[
        "propose",
        "--check",
        "only",
        "--patch",
        file.to_str().unwrap(),
    ]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert_has(
        &text.stderr,
        "validator notebook: fixtures/jupyter/invalid_extension.ipynb: not checked: only its mode changed",
    );

    // A pure rename of an invalid file.
    let rename = real_patch(&repo, &["-M"], |repo| {
        repo.git(&["mv", "fixtures/broken.json", "fixtures/moved.json"]);
    });
    let (run, _) = propose_patch(&repo, &rename);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let report = builtin_report(&run, "json");
    assert_eq!(
        (&report["passed"], &report["checked"]),
        (&Value::Bool(true), &Value::Bool(false)),
        "{report}"
    );
    assert_has(report["output"].as_str().unwrap(), "renamed");
    let shown = repo.evolv(&["show", &run.json_str("/patch_id")]);
    assert_has(
        &shown.ok().stdout,
        "validator json: fixtures/moved.json: not checked: renamed",
    );

    // An edit of a file already invalid at the base.
    let run = repo.evolv(&[
        "propose",
        "--json",
        "--file",
        "fixtures/broken.json",
        "--old",
        "\"a\"",
        "--new",
        "\"b\"",
    ]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let report = builtin_report(&run, "json");
    assert_eq!(
        (&report["passed"], &report["checked"]),
        (&Value::Bool(true), &Value::Bool(false)),
        "{report}"
    );
    assert_has(
        report["output"].as_str().unwrap(),
        "already invalid at the base",
    );

    // What the edit breaks is still refused, and a valid result is checked.
    let broken = ["--file", "config/good.json", "--old", "1}", "--new", "1"];
    let run = repo.evolv(&[&["propose", "--json"][..], &broken].concat());
    assert_eq!(
        (run.code, error_code(&run)),
        (1, "validation_failed".into())
    );
    let run = repo.evolv(&[
        "propose",
        "--json",
        "--file",
        "config/good.json",
        "--old",
        "1",
        "--new",
        "2",
    ]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let report = builtin_report(&run, "json");
    assert_eq!(
        (&report["passed"], &report["checked"]),
        (&Value::Bool(true), &Value::Bool(true)),
        "{report}"
    );
}
