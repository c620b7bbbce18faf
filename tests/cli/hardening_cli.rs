//! Issue 16 (hardening), items outside the landing: regex edge cases,
//! group references, scope globs, numeric input, `-C`, usage errors and
//! the small things a user notices. Each test fails before its fix.

use proptest::prelude::*;

use crate::common::{TestRepo, assert_human, error_code};

/// The bytes of `rel` at the proposal commit of `id`.
fn proposed(repo: &TestRepo, id: &str, rel: &str) -> Vec<u8> {
    let spec = format!("refs/evolv/proposals/{id}:{rel}");
    let run = repo.git_run(&["cat-file", "blob", &spec]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.stdout_bytes
}

// See: issue 16 item 9.
#[test]
fn empty_matches_never_split_characters_and_anchors_work_per_line() {
    let repo = TestRepo::with_files(&[
        ("cafe.txt", "café\n"),
        ("bom.txt", "\u{feff}x\n"),
        ("lines.txt", "a\nb\n"),
        ("crlf.txt", "foo\r\nbar\r\n"),
    ]);
    let id = repo.propose("x*", "-", &["--scope", "cafe.txt", "--scope", "bom.txt"]);
    let cafe = proposed(&repo, &id, "cafe.txt");
    assert_eq!(String::from_utf8(cafe).unwrap(), "-c-a-f-é-\n");
    let bom = proposed(&repo, &id, "bom.txt");
    assert_eq!(String::from_utf8(bom).unwrap(), "-\u{feff}-\n");

    let id = repo.propose("^", "// ", &["--scope", "lines.txt"]);
    assert_eq!(proposed(&repo, &id, "lines.txt"), b"// a\n// b\n");
    let id = repo.propose("$", ";", &["--scope", "lines.txt"]);
    assert_eq!(proposed(&repo, &id, "lines.txt"), b"a;\nb;\n");

    let id = repo.propose("foo$", "baz", &["--scope", "crlf.txt"]);
    assert_eq!(proposed(&repo, &id, "crlf.txt"), b"baz\r\nbar\r\n");
    let id = repo.propose("$", ";", &["--scope", "crlf.txt"]);
    assert_eq!(proposed(&repo, &id, "crlf.txt"), b"foo;\r\nbar;\r\n");
    repo.assert_fsck();
}

// See: issue 16 item 10.
#[test]
fn a_reference_to_a_missing_group_is_refused_with_the_braced_form() {
    let repo = TestRepo::with_files(&[("a.txt", "foo123 bar\n")]);
    let run = repo.evolv(&["propose", "--json", "-p", r"foo(\d+)", "-r", "$1x"]);
    assert_eq!(run.code, 2);
    assert_eq!(error_code(&run), "invalid_input");
    let hint = run.json()["error"]["hint"].as_str().unwrap().to_string();
    assert!(hint.contains("${1}x"), "{hint}");
    assert_eq!(repo.git(&["for-each-ref", "refs/evolv/proposals"]), "");
    let id = repo.propose(r"foo(\d+)", "${1}x", &[]);
    assert_eq!(proposed(&repo, &id, "a.txt"), b"123x bar\n");
}

// See: issue 16 item 18.
#[test]
fn star_scopes_stay_at_the_top_level_and_directory_names_cover_their_tree() {
    let repo = TestRepo::with_files(&[("a.txt", "x\n"), ("d/b.txt", "x\n"), ("d/e/c.txt", "x\n")]);
    let run = repo.evolv(&[
        "propose", "--json", "-p", "x", "-r", "y", "--scope", "*.txt",
    ]);
    assert_eq!(run.json()["affected_files"], serde_json::json!(["a.txt"]));
    let run = repo.evolv(&["propose", "--json", "-p", "x", "-r", "y", "--scope", "*"]);
    assert_eq!(run.json()["affected_files"], serde_json::json!(["a.txt"]));
    let run = repo.evolv(&["propose", "--json", "-p", "x", "-r", "y", "--scope", "d"]);
    assert_eq!(
        run.json()["affected_files"],
        serde_json::json!(["d/b.txt", "d/e/c.txt"])
    );
}

// See: issue 16 item 16.
#[test]
fn huge_timeouts_and_ages_are_no_panic() {
    let (repo, id) = TestRepo::proposed(&[("a.txt", "x\n")], "x", "y");
    let run = repo.evolv(&[
        "apply",
        &id,
        "--validate",
        "true",
        "--timeout",
        "9223372036854775807",
    ]);
    run.ok();
    assert_eq!(repo.read("a.txt"), "y\n");
    let id = repo.propose("y", "z", &[]);
    repo.set_config("evolv.timeout", "9999999999999999999");
    repo.evolv(&["apply", &id, "--validate", "true"]).ok();
    repo.set_config("evolv.timeout", "99999999999999999999");
    let id = repo.propose("z", "w", &[]);
    let run = repo.apply_validating(&id, "true");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_eq!(error_code(&run), "invalid_config");
    repo.evolv(&["gc", "--older-than", "18446744073709551615"])
        .ok();
    repo.assert_fsck();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, failure_persistence: None, ..ProptestConfig::default() })]
    /// Every numeric input of the CLI, at any value clap accepts or not,
    /// gives exit 0, 1 or 2 and never a panic (101).
    // See: issue 16 item 16.
    #[test]
    fn numeric_inputs_never_panic(n in prop_oneof![
        Just(u64::MAX), Just(i64::MAX as u64), Just(0u64), Just(1u64),
        any::<u64>(), (0u64..100_000)
    ]) {
        let (repo, id) = TestRepo::proposed(&[("a.txt", "x\n")], "x", "y");
        let n = n.to_string();
        let runs = [
            repo.evolv(&["apply", "--dry-run", &id, "--timeout", &n]),
            repo.evolv(&["log", "-n", &n]),
            repo.evolv(&["gc", "--older-than", &n]),
            repo.evolv(&["lint", "--json", "feat: x"]),
        ];
        for run in &runs {
            prop_assert!([0, 1, 2].contains(&run.code), "{} {}", run.code, run.stderr);
        }
        repo.git(&["config", "evolv.timeout", &n]);
        let run = repo.evolv(&["apply", "--dry-run", &id, "--validate", "true"]);
        prop_assert!([0, 1, 2].contains(&run.code), "{} {}", run.code, run.stderr);
    }
}

// See: issue 16 item 13 and item 20 (`-C /nonexistent`).
#[test]
fn dash_c_resolves_relative_file_arguments_and_names_a_missing_directory() {
    let (repo, id) = TestRepo::proposed(&[("a.txt", "x\n")], "x", "y");
    std::fs::write(
        repo.file("plan.json"),
        r#"{"dry_run": true, "rollback": {"strategy": "git_revert"}}"#,
    )
    .unwrap();
    let outside = tempfile::tempdir().unwrap();
    let dir = repo.path().to_str().unwrap();
    let mut cmd = crate::common::sealed(crate::common::BIN, repo.home());
    cmd.current_dir(outside.path()).args([
        "-C",
        dir,
        "apply",
        "--json",
        &id,
        "--plan",
        "plan.json",
    ]);
    let run = crate::common::Run::of(cmd);
    run.ok();
    assert_eq!(run.json()["dry_run"], true);

    // The directory is named, not "not inside a git repository".
    let run = repo.transcript(&["-C", "/nonexistent/dir", "list"]);
    assert_human!(repo, "dash_c_missing_directory", run);
}

// See: issue 16 item 20.
#[test]
fn usage_errors_under_json_are_the_error_object_and_dash_values_get_a_tip() {
    let repo = TestRepo::with_files(&[("a.txt", "--old-flag\n")]);
    let run = repo.evolv(&["propose", "--json", "-p", "x"]);
    assert_eq!(run.code, 2);
    assert_eq!(error_code(&run), "invalid_input");
    let run = repo.transcript(&["propose", "-p", "--old-flag", "-r", "--new-flag"]);
    assert_human!(repo, "dash_value_tip", run);
    let run = repo.evolv(&["propose", "--pattern=--old-flag", "-r", "--new-flag"]);
    run.ok();
    let help = repo.evolv(&["--help"]);
    assert_eq!(help.code, 0);
}

// See: issue 16 item 20.
#[test]
fn log_n_0_prints_nothing_and_drop_removes_the_applied_marker() {
    let (repo, id) = TestRepo::proposed(&[("a.txt", "x\n")], "x", "y");
    repo.evolv(&["apply", &id]).ok();
    let run = repo.transcript(&["log", "-n", "0"]);
    assert_human!(repo, "log_n_0", run);
    assert!(repo.rev(&format!("refs/evolv/applied/{id}")).is_some());
    repo.evolv(&["drop", &id]).ok();
    let left = repo.git(&["for-each-ref", "--format=%(refname)", "refs/evolv/"]);
    // Besides the log, only what `undo` of the drop needs, kept 14 days
    // under refs/evolv/kept/ (issue 26).
    let left: Vec<&str> = left
        .lines()
        .filter(|r| !r.starts_with("refs/evolv/kept/"))
        .collect();
    assert_eq!(left, ["refs/evolv/audit"], "only the audit log stays");
}

// See: issue 16 item 20.
#[test]
fn list_show_and_log_work_in_a_bare_repository() {
    let (repo, id) = TestRepo::proposed(&[("a.txt", "x\n")], "x", "y");
    let bare = tempfile::tempdir().unwrap();
    let bare_path = bare.path().join("server.git");
    let bare_dir = bare_path.to_str().unwrap();
    repo.git(&["clone", "-q", "--bare", ".", bare_dir]);
    repo.git(&["push", "-q", bare_dir, "refs/evolv/*:refs/evolv/*"]);
    let list = repo.evolv(&["-C", bare_dir, "list", "--json"]);
    list.ok();
    assert_eq!(list.json()["proposals"][0]["patch_id"], id.as_str());
    repo.evolv(&["-C", bare_dir, "show", &id]).ok();
    repo.evolv(&["-C", bare_dir, "log"]).ok();
    let apply = repo.evolv(&["-C", bare_dir, "apply", "--json", &id]);
    assert_eq!(error_code(&apply), "bare_repository");
}

// See: issue 16 item 15.
#[test]
fn a_dry_run_is_not_logged_like_a_landing() {
    let (repo, id) = TestRepo::proposed(&[("a.txt", "x\n")], "x", "y");
    repo.evolv(&["apply", "--dry-run", &id]).ok();
    let log = repo.evolv(&["log"]);
    log.ok();
    let line = log.stdout.lines().find(|l| l.contains("apply")).unwrap();
    assert!(line.contains("dry run"), "{line}");
}
