//! `git evolv propose`: seed scenarios 1 and 2 and every rule of the issue.

use crate::common::{
    TestRepo, TestResult, assert_has, assert_has_all, assert_human, error_code, run_with_stdin,
    sealed,
};

fn is_patch_id(id: &str) -> bool {
    let parts: Vec<&str> = id.splitn(3, '_').collect();
    parts.len() == 3
        && parts[0] == "patch"
        && !parts[1].is_empty()
        && parts[1].bytes().all(|b| b.is_ascii_digit())
        && !parts[2].is_empty()
        && parts[2].bytes().all(|b| b.is_ascii_hexdigit())
}

#[test]
fn scenario_1_single_file_diff_without_touching_anything() {
    let repo = TestRepo::with_files(&[(
        "src/user.go",
        "package main\nfunc getUserData() string { return \"user\" }\n",
    )]);
    let head = repo.head();
    let run = repo.propose_run("getUserData", "fetchUserData", &[]);
    let v = run.success().stdout_json();
    assert_eq!(v["success"], true);
    let id = v["patch_id"].as_str().unwrap();
    assert!(is_patch_id(id), "{id}");
    let diff = v["unified_diff"].as_str().unwrap();
    assert!(
        diff.contains("--- a/src/user.go\n+++ b/src/user.go\n"),
        "{diff}"
    );
    assert!(diff.contains("@@ -1,2 +1,2 @@\n package main\n-func getUserData() string { return \"user\" }\n+func fetchUserData() string { return \"user\" }\n"), "{diff}");
    assert_eq!(
        repo.read("src/user.go"),
        "package main\nfunc getUserData() string { return \"user\" }\n"
    );
    assert_eq!(repo.head(), head);
    assert_eq!(repo.status(), "");
    // Stored as a real commit whose parent is HEAD.
    let p = repo
        .rev(&format!("refs/evolv/proposals/{id}"))
        .expect("proposal ref");
    assert_eq!(repo.rev(&format!("{p}^")).unwrap(), head);
    assert_eq!(
        repo.git(&["show", &format!("{p}:src/user.go")]),
        "package main\nfunc fetchUserData() string { return \"user\" }\n"
    );
    repo.assert_fsck();
}

#[test]
fn scenario_2_scope_limits_the_scan_to_backend() {
    let repo = TestRepo::scenario();
    let v = repo
        .evolv(&[
            "propose",
            "--json",
            "-p",
            "getUserData",
            "-r",
            "fetchUserData",
            "--scope",
            "backend/**",
        ])
        .json();
    assert_eq!(v["statistics"]["files_scanned"], 2);
    assert_eq!(v["statistics"]["files_matched"], 2);
    assert_eq!(v["statistics"]["total_changes"], 2);
    assert_eq!(
        v["affected_files"],
        serde_json::json!(["backend/auth.go", "backend/user.go"])
    );
    let diff = v["unified_diff"].as_str().unwrap();
    assert!(diff.contains("backend/auth.go") && diff.contains("backend/user.go"));
    assert!(!diff.contains("frontend"), "{diff}");
}

#[test]
fn json_has_exactly_the_documented_keys_and_types() {
    let repo = TestRepo::scenario();
    let v = repo
        .evolv(&["propose", "--json", "-p", "getUserData", "-r", "x"])
        .json();
    assert_eq!(v["success"], true);
    assert!(v["patch_id"].is_string() && v["unified_diff"].is_string());
    assert!(v["affected_files"].is_array());
    for key in ["files_scanned", "files_matched", "total_changes"] {
        assert!(v["statistics"][key].is_u64(), "{key}: {v}");
    }
    assert_eq!(v["statistics"]["files_scanned"], 3);
    assert_eq!(v["statistics"]["total_changes"], 3);
}

#[test]
fn the_printed_diff_applies_with_git_apply_check() {
    let repo = TestRepo::scenario();
    let run = repo.evolv(&["propose", "-p", "getUserData", "-r", "fetchUserData"]);
    run.ok();
    assert!(
        run.stdout
            .starts_with("diff --git a/backend/auth.go b/backend/auth.go\nindex "),
        "{}",
        run.stdout
    );
    assert!(
        !run.stdout.contains('\x1b'),
        "no colour when stdout is not a terminal"
    );
    assert_human!(repo, "propose_summary_on_stderr", run.stderr.clone());
    let mut git = sealed("git", repo.home());
    git.args(["apply", "--check", "-"]).current_dir(repo.path());
    let check = run_with_stdin(git, &run.stdout_bytes);
    assert_eq!(
        check.code, 0,
        "git apply --check rejected the diff: {}",
        check.stderr
    );
}

#[test]
fn colour_follows_the_flag_and_no_color() {
    let repo = TestRepo::scenario();
    let always = repo.evolv(&[
        "propose",
        "--color",
        "always",
        "-p",
        "getUserData",
        "-r",
        "a",
    ]);
    assert_human!(repo, "propose_color_always", always.transcript());
    let never = repo.evolv(&[
        "propose",
        "--color",
        "never",
        "-p",
        "getUserData",
        "-r",
        "b",
    ]);
    assert!(!never.stdout.contains('\x1b'));
    // On a terminal (script(1) gives us one) auto colours unless NO_COLOR is set.
    let on_tty = |no_color: bool| {
        let mut cmd = sealed("script", repo.home());
        let line = format!("{} propose -p getUserData -r c", crate::common::BIN);
        // GIT_PAGER=cat: on a terminal propose pages, as git would (issue 15).
        cmd.args(["-qec", &line, "/dev/null"])
            .current_dir(repo.path())
            .env("GIT_PAGER", "cat");
        if no_color {
            cmd.env("NO_COLOR", "1");
        }
        String::from_utf8_lossy(&cmd.output().unwrap().stdout).into_owned()
    };
    assert!(
        on_tty(false).contains("\x1b[32m+"),
        "auto on a terminal colours"
    );
    assert!(!on_tty(true).contains("\x1b[3"), "NO_COLOR disables colour");
}

#[test]
fn capture_references_expand_and_literal_disables_them() {
    let repo = TestRepo::with_files(&[("a.txt", "user=alice\nuser=bob\nx.y\n")]);
    let id = repo.propose(r"user=(?P<name>\w+)", "${name}:$1", &[]);
    let p = repo.rev(&format!("refs/evolv/proposals/{id}")).unwrap();
    assert_eq!(
        repo.git(&["show", &format!("{p}:a.txt")]),
        "alice:alice\nbob:bob\nx.y\n"
    );
    let lit = repo.propose("x.y", "$1", &["--literal"]);
    let p = repo.rev(&format!("refs/evolv/proposals/{lit}")).unwrap();
    assert_eq!(
        repo.git(&["show", &format!("{p}:a.txt")]),
        "user=alice\nuser=bob\n$1\n"
    );
}

#[test]
fn anchors_are_multi_line_and_inline_flags_work() {
    let (repo, id) = TestRepo::proposed(
        &[("a.txt", "start\nTODO one\nTODO two\nend\n")],
        "^TODO",
        "DONE",
    );
    let p = repo.rev(&format!("refs/evolv/proposals/{id}")).unwrap();
    assert_eq!(
        repo.git(&["show", &format!("{p}:a.txt")]),
        "start\nDONE one\nDONE two\nend\n"
    );
    let id = repo.propose("(?s)start.*end", "all", &[]);
    let p = repo.rev(&format!("refs/evolv/proposals/{id}")).unwrap();
    assert_eq!(repo.git(&["show", &format!("{p}:a.txt")]), "all\n");
}

#[test]
fn non_utf8_bytes_are_preserved_and_binary_files_skipped_and_counted() {
    let repo = TestRepo::new()
        .with_bytes("latin1.txt", b"caf\xe9 old\n")
        .with_bytes("blob.bin", b"old\0old")
        .committed("files");
    let run = repo.evolv(&["propose", "--json", "-p", "old", "-r", "new"]);
    let v = run.json();
    assert_eq!(v["affected_files"], serde_json::json!(["latin1.txt"]));
    assert_eq!(v["statistics"]["files_scanned"], 2);
    assert_eq!(v["statistics"]["binary_skipped"], 1);
    let p = repo
        .rev(&format!(
            "refs/evolv/proposals/{}",
            v["patch_id"].as_str().unwrap()
        ))
        .unwrap();
    let out = sealed("git", repo.home())
        .args(["cat-file", "blob", &format!("{p}:latin1.txt")])
        .current_dir(repo.path())
        .output()
        .unwrap();
    assert_eq!(out.stdout, b"caf\xe9 new\n");
}

#[test]
fn ids_are_unique_within_one_second() {
    let repo = TestRepo::scenario();
    let ids: Vec<String> = (0..5)
        .map(|_| repo.propose("getUserData", "x", &[]))
        .collect();
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 5, "{ids:?}");
    for id in &ids {
        assert!(repo.rev(&format!("refs/evolv/proposals/{id}")).is_some());
    }
}

#[test]
fn no_match_is_an_error_naming_pattern_scope_and_count_and_stores_nothing() {
    let repo = TestRepo::scenario();
    let run = repo.propose_run("doesNotExist", "x", &["--scope", "backend/**"]);
    assert_eq!(run.code, 1);
    assert_eq!(error_code(&run), "no_match");
    let msg = run.json()["error"]["message"].as_str().unwrap().to_string();
    assert_has_all(&msg, &["doesNotExist", "backend/**", "2 file(s)"]);
    assert_eq!(repo.git(&["for-each-ref", "refs/evolv/proposals"]), "");
    let human = repo.transcript(&["propose", "-p", "doesNotExist", "-r", "x"]);
    assert_human!(repo, "propose_no_match", human);
}

#[test]
fn invalid_regex_is_invalid_input_with_the_engines_explanation() {
    let repo = TestRepo::scenario();
    let run = repo.evolv(&["propose", "--json", "-p", "get(User", "-r", "x"]);
    assert_eq!(run.code, 2);
    assert_eq!(error_code(&run), "invalid_input");
    assert_has(&run.error_message(), "unclosed group");
}

#[test]
fn missing_identity_names_the_config_keys() {
    let repo = TestRepo::scenario();
    repo.set_config("--unset", "user.name");
    repo.set_config("--unset", "user.email");
    let run = repo.evolv(&["propose", "--json", "-p", "getUserData", "-r", "x"]);
    assert_eq!(run.code, 2);
    assert_eq!(error_code(&run), "missing_identity");
    let v = run.json();
    let text = format!("{} {}", v["error"]["message"], v["error"]["hint"]);
    assert_has_all(&text, &["user.name", "user.email"]);
    assert_eq!(repo.git(&["for-each-ref", "refs/evolv"]), "");
}

#[test]
fn bare_and_empty_repositories_and_non_repositories_get_clear_errors() -> TestResult {
    let repo = TestRepo::scenario();
    let propose_in =
        |dir: &str| repo.evolv(&["-C", dir, "propose", "--json", "-p", "a", "-r", "b"]);
    let bare = repo.home().join("bare.git");
    let bare = bare.to_str().ok_or("a UTF-8 path")?;
    repo.try_git(&["clone", "-q", "--bare", ".", bare])?;
    propose_in(bare).fails_with(2, "bare_repository");

    let empty = TestRepo::try_empty()?;
    let run = empty.evolv(&["propose", "--json", "-p", "a", "-r", "b"]);
    run.fails_with(2, "empty_repository");

    let nowhere = tempfile::tempdir()?;
    propose_in(nowhere.path().to_str().ok_or("a UTF-8 path")?).fails_with(2, "not_a_repository");
    Ok(())
}

#[test]
fn propose_never_touches_working_tree_index_or_head() {
    let repo = TestRepo::scenario();
    repo.write(
        "backend/user.go",
        "package main\nfunc getUserData() string { return \"edited\" }\n",
    );
    repo.write("frontend/api.ts", "const data = getUserData() // staged\n");
    repo.git(&["add", "frontend/api.ts"]);
    repo.write("untracked.txt", "getUserData\n");
    let before = (
        repo.status(),
        repo.git(&["diff"]),
        repo.git(&["diff", "--cached"]),
        repo.head(),
    );
    repo.propose("getUserData", "fetchUserData", &[]);
    let after = (
        repo.status(),
        repo.git(&["diff"]),
        repo.git(&["diff", "--cached"]),
        repo.head(),
    );
    assert_eq!(before, after);
}

#[test]
fn detached_head_works_like_a_branch() {
    let repo = TestRepo::scenario();
    repo.git(&["checkout", "-q", "--detach"]);
    let head = repo.head();
    let id = repo.propose("getUserData", "fetchUserData", &[]);
    let run = repo.evolv(&["apply", "--json", &id]);
    run.ok();
    let new = repo.head();
    assert_ne!(new, head);
    assert_eq!(repo.rev(&format!("{new}^")).unwrap(), head);
    assert!(
        repo.git_run(&["symbolic-ref", "-q", "HEAD"]).code != 0,
        "HEAD stays detached"
    );
    assert_eq!(repo.rev("main").unwrap(), head, "main did not move");
    assert!(repo.read("frontend/api.ts").contains("fetchUserData"));
    assert_eq!(repo.status(), "");
}

#[test]
fn reftable_and_sha256_repositories_are_refused_with_the_way_out() {
    let home = TestRepo::empty();
    for (flag, names) in [
        ("--ref-format=reftable", "extensions.refStorage"),
        ("--object-format=sha256", "extensions.objectFormat"),
    ] {
        let dir = home.home().join(flag.trim_start_matches("--"));
        let init = home.git_run(&["init", "-q", flag, dir.to_str().unwrap()]);
        if init.code != 0 {
            // A git too old for the format: nothing to refuse.
            continue;
        }
        let run = home.evolv(&["-C", dir.to_str().unwrap(), "list", "--json"]);
        assert_eq!(run.code, 2, "{flag}: {}", run.stdout);
        assert_eq!(error_code(&run), "unsupported_repository", "{flag}");
        let error = &run.json()["error"];
        assert!(
            error["message"].as_str().unwrap().contains(names),
            "{error}"
        );
        assert!(error["hint"].as_str().unwrap().len() > 20, "{error}");
    }
}

/// The scope's globs leave whole directories out of the tree walk (issue
/// 25 item 20, as git's walk prunes by pathspec) and the files proposed are
/// still exactly those `git ls-files ':(glob)…'` lists, for globs with
/// classes, `?`, `*`, `**`, alternatives and directory names.
#[test]
fn a_pruned_scope_proposes_exactly_what_git_ls_files_lists() {
    let repo = TestRepo::with_many(96, |i| {
        (
            format!(
                "src/d00{}/e{}/f{i:02}.{}",
                i % 6,
                i % 4,
                ["go", "rs"][i % 2]
            ),
            "tok\n".to_string(),
        )
    });
    repo.write("src/top.rs", "tok\n");
    repo.write("lib/x/src/deep.rs", "tok\n");
    repo.commit_all("more");
    // Each glob with the pathspecs git lists the same files by (git's
    // globs have no `{a,b}`).
    for (glob, specs) in [
        ("src/d00[0-2]/**", &["src/d00[0-2]/**"][..]),
        ("src/d000/e[02]/**", &["src/d000/e[02]/**"]),
        ("src/d00?/e2/*.go", &["src/d00?/e2/*.go"]),
        ("src/*.rs", &["src/*.rs"]),
        ("**/src/*.rs", &["**/src/*.rs"]),
        ("{src/d001,lib/x}/**", &["src/d001/**", "lib/x/**"]),
        ("src/d004", &["src/d004/**"]),
        ("src/d00[!0-4]/**/*.rs", &["src/d00[!0-4]/**/*.rs"]),
    ] {
        let run = repo.evolv(&[
            "propose", "--json", "-p", "tok", "-r", "TOK", "--scope", glob,
        ]);
        let v = run.success().stdout_json();
        let mut args = vec!["ls-files".to_string(), "--".to_string()];
        args.extend(specs.iter().map(|s| format!(":(glob){s}")));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let listed = repo.git(&args);
        let want: Vec<&str> = listed.lines().collect();
        assert!(!want.is_empty(), "{glob}");
        assert_eq!(v["affected_files"], serde_json::json!(want), "{glob}");
        repo.evolv(&["drop", v["patch_id"].as_str().unwrap()]).ok();
    }
}
