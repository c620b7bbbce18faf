//! Issue 16 (hardening): files that are not text to git, odd bytes in
//! paths, temp files, git-evolv's own commit messages and signatures,
//! messages that name the right operation.

use std::os::unix::ffi::OsStrExt;

use crate::common::{TestRepo, assert_has_all, assert_statistics, error_code, strings_of};

// See: issue 16 item 3.
#[test]
fn filtered_binary_and_non_text_files_are_skipped_counted_and_listed() {
    let repo = TestRepo::with_files(&[
        (
            ".gitattributes",
            "*.png filter=lfs diff=lfs merge=lfs -text\n*.bin binary\n*.dat -text\n",
        ),
        (
            "img.png",
            "version https://git-lfs.github.com/spec/v1\noid sha256:tok\nsize 3\n",
        ),
        ("a.bin", "tok\n"),
        ("a.dat", "tok\n"),
        ("a.txt", "tok\n"),
    ]);
    let run = repo.evolv(&["propose", "--json", "-p", "tok", "-r", "TOK"]);
    let v = run.success().stdout_json();
    assert_eq!(v["affected_files"], serde_json::json!(["a.txt"]));
    assert_eq!(v["statistics"]["filtered_skipped"], 3);
    let skipped = strings_of(&v["skipped"], "path");
    assert_eq!(skipped, ["a.bin", "a.dat", "img.png"]);
    assert!(!v["unified_diff"].as_str().unwrap().contains("Binary"));

    let run = repo.evolv(&[
        "propose",
        "--json",
        "-p",
        "tok",
        "-r",
        "TOK",
        "--include-filtered",
    ]);
    run.ok();
    assert_eq!(run.json()["statistics"]["files_matched"], 4);

    let only = repo.evolv(&[
        "propose", "--json", "-p", "tok", "-r", "X", "--scope", "*.png",
    ]);
    assert_eq!(error_code(&only), "no_match");
    let message = only.json()["error"]["message"]
        .as_str()
        .unwrap()
        .to_string();
    assert_has_all(&message, &["img.png", "filter"]);
}

/// A `.gitattributes` the index tracks but the work tree lacks (deleted,
/// or outside a sparse checkout) still applies, as libgit2 and `git
/// check-attr` read it from the index; in a large index too, which is
/// read by the raw scan of its entries (issue 25 item 20), and in
/// version 4 (prefix-compressed names).
#[test]
fn attributes_tracked_only_in_the_index_still_apply() {
    let mut files: Vec<(String, String)> = (0..3000)
        .map(|i| {
            (
                format!("pad/p{i:04}-a-longer-file-name.txt"),
                "x\n".to_string(),
            )
        })
        .collect();
    files.push(("sub/.gitattributes".into(), "*.bin binary\n".into()));
    files.push(("sub/a.bin".into(), "tok\n".into()));
    files.push(("sub/a.txt".into(), "tok\n".into()));
    let repo = TestRepo::with_files(&files);
    std::fs::remove_file(repo.file("sub/.gitattributes")).unwrap();
    for version in ["2", "4"] {
        repo.git(&["update-index", "--index-version", version]);
        let run = repo.evolv(&["propose", "--json", "-p", "tok", "-r", "TOK"]);
        let v = run.success().stdout_json();
        assert_eq!(
            v["affected_files"],
            serde_json::json!(["sub/a.txt"]),
            "v{version}"
        );
        assert_eq!(v["statistics"]["filtered_skipped"], 1, "v{version}");
        repo.evolv(&["drop", v["patch_id"].as_str().unwrap()]).ok();
    }
}

// See: issue 16 item 7.
#[test]
fn non_utf8_names_do_not_break_propose_and_are_counted() {
    let repo = TestRepo::with_files(&[("a.txt", "tok\n")]);
    let dir = repo.path().join(std::ffi::OsStr::from_bytes(b"d\xffir"));
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("x.txt"), "tok\n").unwrap();
    std::fs::write(
        repo.path()
            .join(std::ffi::OsStr::from_bytes(b"caf\xe9.txt")),
        "tok\n",
    )
    .unwrap();
    repo.commit_all("odd names");
    let run = repo.evolv(&[
        "propose", "--json", "-p", "tok", "-r", "TOK", "--scope", "a.txt",
    ]);
    run.ok();
    assert_eq!(run.json()["affected_files"], serde_json::json!(["a.txt"]));
    // Globs match the name's bytes, as `git ls-files 'caf?.txt'` does.
    let run = repo.evolv(&[
        "propose", "--json", "-p", "tok", "-r", "TOK", "--scope", "caf?.txt",
    ]);
    run.ok();
    assert_eq!(run.json()["affected_files_bytes"][0], "636166e92e747874");
    let run = repo.evolv(&["propose", "--json", "-p", "tok", "-r", "TOK"]);
    let v = run.success().stdout_json();
    assert_statistics(&v, "files_scanned=3 files_matched=3 path_skipped=0");
    let id = v["patch_id"].as_str().unwrap().to_string();
    repo.evolv(&["apply", &id]).ok();
    assert_eq!(repo.read("a.txt"), "TOK\n");
    assert_eq!(std::fs::read(dir.join("x.txt")).unwrap(), b"TOK\n");
    repo.assert_clean();
}

// See: issue 16 item 8.
#[test]
fn a_backslash_in_a_file_name_lands_on_linux() {
    let (repo, id) = TestRepo::proposed(&[("a\\b.txt", "tok\n"), ("c.txt", "tok\n")], "tok", "TOK");
    repo.evolv(&["apply", &id]).ok();
    repo.assert_clean_with(&[("a\\b.txt", "TOK\n"), ("c.txt", "TOK\n")]);
}

// See: issue 16 item 19.
#[test]
fn an_untracked_file_named_like_a_temp_file_survives_apply() {
    let repo = TestRepo::with_files(&[("f", "tok\n")]);
    repo.write(".f.evolv-tmp", "mine\n");
    repo.write(".gitignore", ".f.evolv-tmp\n.gitignore\n");
    let id = repo.propose("tok", "TOK", &[]);
    repo.evolv(&["apply", &id]).ok();
    assert_eq!(repo.read(".f.evolv-tmp"), "mine\n");
    let id = repo.propose("TOK", "tok", &[]);
    repo.evolv(&["apply", &id]).ok();
    assert_eq!(repo.read(".f.evolv-tmp"), "mine\n");
    repo.assert_fsck();
}

// See: issue 16 item 17.
#[test]
fn own_commits_are_conventional_and_pass_evolv_lint() {
    let repo = TestRepo::with_files(&[("src/f", "a\n"), ("g", "x\n")]);
    let start = repo.head();
    let id = repo.propose("a", "b", &["--scope", "src/**"]);
    repo.evolv(&["apply", &id]).ok();
    assert_eq!(
        repo.git(&["log", "-1", "--format=%s"]).trim(),
        "refactor: replace 'a' with 'b' in src/**"
    );
    let id2 = repo.propose("x", "y", &[]);
    repo.apply_with_file_backup(&id2);
    repo.evolv(&["rollback", &id2]).ok();
    repo.evolv(&["rollback", &id]).ok();
    let range = format!("{start}..HEAD");
    let lint = repo.evolv(&["lint", "--range", &range]);
    assert_eq!(lint.code, 0, "{}{}", lint.stdout, lint.stderr);

    repo.set_config(
        "evolv.summaryTemplate",
        "chore(edit): {pattern} -> {replacement}",
    );
    let id3 = repo.propose("x", "z", &[]);
    repo.evolv(&["apply", &id3]).ok();
    assert_eq!(
        repo.git(&["log", "-1", "--format=%s"]).trim(),
        "chore(edit): x -> z"
    );
}

// See: issue 16 item 17.
#[test]
fn commit_gpgsign_signs_as_git_does_or_refuses_with_nothing_changed() {
    let repo = TestRepo::with_files(&[("f", "a\n")]);
    let key = repo.home().join("key");
    let keygen = std::process::Command::new("ssh-keygen")
        .args(["-q", "-t", "ed25519", "-N", "", "-C", "t", "-f"])
        .arg(&key)
        .status();
    if !keygen.is_ok_and(|s| s.success()) {
        panic!("ssh-keygen is needed for this test");
    }
    repo.set_config("gpg.format", "ssh");
    repo.git(&["config", "user.signingKey", key.to_str().unwrap()]);
    repo.set_config("commit.gpgSign", "true");
    let id = repo.propose("a", "b", &[]);
    repo.evolv(&["apply", &id]).ok();
    let raw = repo.git(&["cat-file", "commit", "HEAD"]);
    assert!(
        raw.contains("gpgsig -----BEGIN SSH SIGNATURE-----"),
        "{raw}"
    );
    repo.evolv(&["rollback", &id]).ok();
    assert!(repo.git(&["cat-file", "commit", "HEAD"]).contains("gpgsig"));

    let id2 = repo.propose("a", "c", &[]);
    let stored = repo.git(&["cat-file", "commit", &format!("refs/evolv/proposals/{id2}")]);
    assert!(stored.contains("gpgsig"), "proposals are signed too");
    repo.set_config("user.signingKey", "/nonexistent/key");
    let head = repo.head();
    let refused = repo.evolv(&["propose", "--json", "-p", "a", "-r", "d"]);
    assert_eq!(error_code(&refused), "signing_failed");
    let run = repo.evolv(&["apply", "--json", &id2]);
    assert_eq!(error_code(&run), "signing_failed");
    assert_eq!(repo.head(), head);
    repo.assert_clean_with(&[("f", "a\n")]);
}

// See: issue 16 item 15.
#[test]
fn messages_name_the_operation_that_failed() {
    let (repo, id) = TestRepo::proposed(&[("f", "a\n")], "a", "b");
    repo.evolv(&["apply", &id]).ok();
    repo.write("f", "c\n");
    repo.commit_all("change f");
    let run = repo.evolv(&["rollback", "--json", &id]);
    assert_eq!(error_code(&run), "conflict");
    let hint = run.json()["error"]["hint"].as_str().unwrap().to_string();
    assert!(!hint.contains("propose the edit again"), "{hint}");
    assert!(hint.contains("git revert"), "{hint}");

    let id2 = repo.propose("c", "d", &[]);
    let plan = repo.home_file(
        "plan.json",
        r#"{"dry_run": false, "rollback": {"strategy": "git_revert"}, "limits": {"timeout_seconds": 1}}"#,
    );
    let run = repo.evolv(&[
        "apply",
        "--json",
        &id2,
        "--plan",
        &plan,
        "--validate",
        "sleep 3",
    ]);
    assert_eq!(error_code(&run), "timeout");
    let hint = run.json()["error"]["hint"].as_str().unwrap().to_string();
    assert!(hint.contains("timeout_seconds"), "{hint}");
}

// See: issue 16 item 3, for edit lists (a sibling found in the
// adversarial pass): a text edit of an LFS pointer (or a `binary` /
// `-text` file) named in `propose --edits` was stored, rewriting the
// pointer. It is refused (`binary_file`), as plain propose skips it;
// `write` of the whole file stays allowed.
#[test]
fn edit_lists_do_not_edit_files_git_does_not_treat_as_text() {
    let repo = TestRepo::with_files(&[
        (
            ".gitattributes",
            "*.png filter=lfs diff=lfs merge=lfs -text\nb.dat binary\n",
        ),
        (
            "p.png",
            "version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 3\n",
        ),
        ("b.dat", "abc\n"),
        ("a.txt", "abc\n"),
    ]);
    let list = repo.home().join("edits.json");
    let run_list = |json: &str| {
        std::fs::write(&list, json).unwrap();
        repo.evolv(&["propose", "--json", "--edits", list.to_str().unwrap()])
    };
    for path in ["p.png", "b.dat"] {
        let run = run_list(&format!(
            r#"{{"edits": [{{"op": "regex", "path": "{path}", "pattern": "abc", "replacement": "xyz"}},
                          {{"op": "replace", "path": "a.txt", "old": "abc", "new": "xyz"}}]}}"#
        ));
        assert_eq!(run.code, 1, "{path}: {}", run.stdout);
        let v = run.json();
        assert_eq!(v["error"]["failures"][0]["code"], "binary_file", "{path}");
        assert_eq!(v["error"]["failures"][0]["index"], 0, "{path}");
    }
    assert_eq!(repo.git(&["for-each-ref", "refs/evolv/proposals"]), "");
    // keep_going stores the rest and reports the refused edit.
    let run = run_list(
        r#"{"keep_going": true, "edits": [
            {"op": "replace", "path": "p.png", "old": "abc", "new": "xyz"},
            {"op": "replace", "path": "a.txt", "old": "abc", "new": "xyz"}]}"#,
    );
    run.ok();
    assert_eq!(run.json()["affected_files"], serde_json::json!(["a.txt"]));
    // A whole-file write is the user's explicit content.
    let run = run_list(r#"{"edits": [{"op": "write", "path": "b.dat", "content": "new\n"}]}"#);
    run.ok();
}

// See: issue 16 (`git -c`), found in the adversarial pass: the landing
// read `core.autocrlf` through libgit2, which does not see `git -c`, so
// `git -c core.autocrlf=true evolv apply` wrote LF where
// `git -c core.autocrlf=true checkout` writes CRLF.
#[test]
fn git_dash_c_core_autocrlf_lands_what_git_checkout_writes() {
    let (repo, id) = TestRepo::proposed(&[("a.txt", "tok\nx\n")], "tok", "TOK");
    repo.git_evolv(&["core.autocrlf=true"], &["apply", &id])
        .ok();
    let landed = std::fs::read(repo.file("a.txt")).unwrap();
    std::fs::remove_file(repo.file("a.txt")).unwrap();
    repo.git(&["-c", "core.autocrlf=true", "checkout", "--", "a.txt"]);
    assert_eq!(landed, std::fs::read(repo.file("a.txt")).unwrap());
    assert_eq!(landed, b"TOK\r\nx\r\n");
    assert_eq!(
        repo.git(&["-c", "core.autocrlf=true", "status", "--short"]),
        ""
    );
    // An attributes file given with `git -c`, which libgit2's attribute
    // lookup does not see either.
    let attrs = repo.home().join("attributes");
    std::fs::write(&attrs, "*.txt text eol=crlf\n").unwrap();
    let setting = format!("core.attributesFile={}", attrs.display());
    let id = repo.propose("TOK", "tok", &[]);
    repo.git_evolv(&[&setting], &["apply", &id]).ok();
    assert_eq!(std::fs::read(repo.file("a.txt")).unwrap(), b"tok\r\nx\r\n");
    assert_eq!(repo.git(&["-c", &setting, "status", "--short"]), "");
}

// See: issue 14 item 1, found measuring `git -c` runs: any `git -c`
// setting made the landing ask git to convert every file (a `git cat-file
// --filters` per file: 0.9 s instead of 0.2 s for 300 files). Only a
// setting that moves the attribute files needs git's view, and then one
// `git check-attr` answers for every file.
#[test]
fn git_dash_c_settings_cost_no_git_run_per_landed_file() {
    let repo = TestRepo::with_many(40, |i| (format!("d/f{i:02}.txt"), "tok\nx\n".to_string()));
    // A `git` ahead of the real one on PATH that logs each run.
    let shim = repo.home().join("shim");
    std::fs::create_dir_all(&shim).unwrap();
    let real = repo.git(&["--exec-path"]);
    let log = repo.home().join("git-runs.log");
    let script = format!(
        "#!/bin/sh\necho \"$*\" >> '{}'\nexec '{}/git' \"$@\"\n",
        log.display(),
        real.trim()
    );
    std::fs::write(shim.join("git"), script).unwrap();
    std::fs::set_permissions(
        shim.join("git"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    // git puts its exec path first for its commands' children, so
    // git-evolv runs as `git -c … evolv` runs it, with the shim first.
    let path = format!("{}:{}", shim.display(), std::env::var("PATH").unwrap());
    let runs = |config: &[&str], id: &str| {
        let _ = std::fs::remove_file(&log);
        let quoted: Vec<String> = config.iter().map(|c| format!("'{c}'")).collect();
        let mut cmd = crate::common::sealed(crate::common::BIN, repo.home());
        cmd.env("PATH", &path)
            .env("GIT_CONFIG_PARAMETERS", quoted.join(" "))
            .args(["apply", id])
            .current_dir(repo.path());
        crate::common::Run::from(cmd.output().unwrap()).ok();
        std::fs::read_to_string(&log).unwrap_or_default()
    };

    let id = repo.propose("tok", "TOK", &[]);
    let log_text = runs(&["checkout.workers=1", "user.name=Someone"], &id);
    let per_file: Vec<&str> = log_text
        .lines()
        .filter(|l| l.contains("cat-file"))
        .collect();
    assert!(per_file.is_empty(), "no git run per file: {log_text}");
    assert_eq!(std::fs::read(repo.file("d/f07.txt")).unwrap(), b"TOK\nx\n");
    assert_eq!(repo.git(&["status", "--short"]), "");

    // An attributes file given only with `git -c`: git's view, in one run
    // for all the files, and every file converted as git converts it.
    let attrs = repo.home().join("attributes");
    std::fs::write(&attrs, "*.txt text eol=crlf\n").unwrap();
    let setting = format!("core.attributesFile={}", attrs.display());
    let id = repo.propose("TOK", "tik", &[]);
    let log_text = runs(&[&setting], &id);
    let check_attr = log_text
        .lines()
        .filter(|l| l.contains("check-attr"))
        .count();
    assert_eq!(check_attr, 1, "one attribute run: {log_text}");
    for i in [0, 17, 39] {
        assert_eq!(
            std::fs::read(repo.file(&format!("d/f{i:02}.txt"))).unwrap(),
            b"tik\r\nx\r\n"
        );
    }
    assert_eq!(repo.git(&["-c", &setting, "status", "--short"]), "");
}

// See: issue 16 (`git -c`), found in the adversarial pass, siblings of
// #10's `git -c evolv.validate=false`: a validator or a summary template
// set with `git -c` was read through libgit2, which does not see it, so
// the validator was silently skipped and the template ignored.
#[test]
fn git_dash_c_validators_and_summary_templates_are_honoured() {
    let repo = TestRepo::with_files(&[("a.txt", "tok\n")]);
    let list = repo.home_file(
        "edits.json",
        r#"{"edits": [{"op": "replace", "path": "a.txt", "old": "tok", "new": "TOK"}]}"#,
    );
    let run = repo.git_evolv(
        &["evolv.validator.never.command=false"],
        &["propose", "--json", "--edits", &list],
    );
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    assert_eq!(repo.git(&["for-each-ref", "refs/evolv/proposals"]), "");
    let run = repo.git_evolv(
        &["evolv.summaryTemplate=fix: {pattern} to {replacement}"],
        &["propose", "--json", "-p", "tok", "-r", "TOK"],
    );
    run.ok();
    assert_eq!(run.json()["summary"], "fix: tok to TOK");
}
