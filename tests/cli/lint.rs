//! `git evolv lint` and `git evolv hook commit-msg`, with real git: a
//! message from an argument, a file or stdin, commit ranges with merges and
//! bot authors, the three formats, exit codes, and `git commit` going
//! through a commit-msg hook (scissors and comment lines included).

use std::path::Path;

use serde_json::Value;

use crate::common::{BIN, Run, TestRepo, assert_has, assert_human, run_with_stdin, sealed};

/// Runs git in `dir` with extra environment variables.
fn git_in(repo: &TestRepo, dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut cmd = sealed("git", repo.home());
    cmd.args(args).current_dir(dir);
    for (k, v) in env {
        cmd.env(k, v);
    }
    run_with_stdin(cmd, "").named(format!("git {}", args.join(" ")))
}

/// Installs the commit-msg hook by hand, as `hooks install` will.
fn install_commit_msg_hook(repo: &TestRepo) {
    let hooks = repo.path().join(".git/hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    let hook = hooks.join("commit-msg");
    std::fs::write(
        &hook,
        format!("#!/bin/sh\nexec \"{BIN}\" hook commit-msg \"$@\"\n"),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn rules_of(message: &Value) -> Vec<String> {
    message["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap().to_string())
        .collect()
}

/// `git commit --allow-empty -m message`, hooks and all.
fn commit_empty(repo: &TestRepo, message: &str) -> Run {
    repo.git_run(&["commit", "--allow-empty", "-m", message])
}

/// Pins the human output of `lint MESSAGE` for each of `messages` as the
/// snapshot `name`.
fn assert_lints(name: &str, messages: &[&str]) {
    let repo = TestRepo::empty();
    let out = messages
        .iter()
        .map(|m| repo.transcript(&["lint", m]))
        .collect();
    assert_human!(repo, name, out);
}

#[test]
fn lint_a_message_argument_exit_codes() {
    // A clean message prints no findings and exits 0; errors exit 1 with
    // the rule, the did-you-mean and the suggested header; warnings only
    // are clean.
    assert_lints(
        "lint_message_argument",
        &[
            "feat(auth): add login support",
            "feet: Add login.",
            "add new feature",
            "feat: x\nbody right under the header",
        ],
    );
}

#[test]
fn lint_works_outside_a_repository_and_from_stdin() {
    let repo = TestRepo::empty();
    let outside = tempfile::tempdir().unwrap();
    let mut cmd = sealed(BIN, repo.home());
    cmd.args(["lint", "--format", "json"])
        .current_dir(outside.path());
    let run = run_with_stdin(cmd, "Fix:crash on start\n");
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let v = run.json();
    assert_eq!(v["success"], false);
    assert_eq!(v["messages"][0]["source"], "<stdin>");
    assert_eq!(rules_of(&v["messages"][0]), ["type-empty", "subject-empty"]);
    assert_eq!(
        v["messages"][0]["findings"][0]["suggestion"],
        "fix: crash on start"
    );

    let mut cmd = sealed(BIN, repo.home());
    cmd.args(["lint"]).current_dir(repo.path());
    let run = run_with_stdin(cmd, "fix: crash on start\n");
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
}

#[test]
fn lint_a_file_points_into_the_file_and_cleans_like_git() {
    let repo = TestRepo::empty();
    let long = "x".repeat(120);
    repo.write(
        "msg.txt",
        &format!(
            "# leading comment\nfeat: add parser\n\n# Please enter the commit message\nBody.\n{long}\n\
             # ------------------------ >8 ------------------------\n\
             # Do not modify or remove the line above.\ndiff --git a/x b/x\n+Not A Message Line {long}\n"
        ),
    );
    let run = repo.evolv(&["lint", "--file", "msg.txt", "--json"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let v = run.json();
    let m = &v["messages"][0];
    assert_eq!(m["file"], "msg.txt");
    assert_eq!(rules_of(m), ["body-max-line-length"], "{m}");
    assert_eq!(
        m["findings"][0]["line"], 6,
        "the line in the file, comments counted"
    );
    assert_eq!(m["findings"][0]["column"], 101);

    let gh = repo.evolv(&["lint", "-F", "msg.txt", "--format", "github"]);
    assert_eq!(gh.code, 1);
    assert!(
        gh.stdout.starts_with(
            "::error file=msg.txt,line=6,col=101,title=body-max-line-length::msg.txt line 6: "
        ),
        "{}",
        gh.stdout
    );
    assert_eq!(gh.stdout.lines().count(), 1, "{}", gh.stdout);

    // A custom comment char from git config.
    repo.set_config("core.commentChar", ";");
    repo.write("msg2.txt", "fix: y\n\n#123 is the issue\n; Please enter\n");
    let run = repo.evolv(&["lint", "--file", "msg2.txt"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
}

#[test]
fn bad_input_exits_2_with_a_clear_error() {
    let repo = TestRepo::with_files(&[("a", "1\n")]);
    let run = repo.evolv(&["lint", "--json", "--file", "nope.txt"]);
    run.fails_with(2, "invalid_input");
    assert_has(&run.error_message(), "nope.txt");

    let empty = repo.transcript(&["lint", "# only a comment"]);
    assert_human!(repo, "lint_empty_message", empty);

    let run = repo.evolv(&["lint", "--json", "--range", "nosuch..HEAD"]);
    run.fails_with(2, "invalid_input");
    assert_has(&run.error_message(), "nosuch");

    let run = repo.evolv(&["lint", "--json", "--range", "HEAD"]);
    run.fails_with(2, "invalid_input");

    repo.set_config("evolv.commit.rule.type-enum", "loud");
    let run = repo.evolv(&["lint", "--json", "feat: x"]);
    run.fails_with(2, "invalid_config");
    let msg = run.error_message();
    assert_has(&msg, "evolv.commit.rule.type-enum");
    assert_has(&msg, "loud");
    assert_has(&run.error_hint(), "git config");
}

#[test]
fn rules_and_values_come_from_git_config() {
    let repo = TestRepo::empty();
    assert_eq!(repo.evolv(&["lint", "wip: x"]).code, 1);
    repo.set_config("evolv.commit.types", "feat,fix,wip");
    assert_eq!(repo.evolv(&["lint", "wip: x"]).code, 0);
    assert_eq!(repo.evolv(&["lint", "docs: x"]).code, 1);

    repo.set_config("evolv.commit.rule.subject-case", "warn");
    let mut out = repo.transcript(&["lint", "feat: Add x"]);

    repo.set_config("evolv.commit.headerMaxLength", "10");
    out += &repo.transcript(&["lint", "feat: a longer header"]);

    repo.set_config("--unset", "evolv.commit.headerMaxLength");
    repo.set_config("evolv.commit.scopes", "api,cli");
    assert_eq!(repo.evolv(&["lint", "feat(web): x"]).code, 1);
    assert_eq!(repo.evolv(&["lint", "feat(cli): x"]).code, 0);

    repo.set_config("evolv.commit.rule.breaking-change-footer", "error");
    out += &repo.transcript(&["lint", "feat(cli)!: drop x"]);
    let both = "feat(cli)!: drop x\n\nBREAKING CHANGE: x is gone";
    assert_eq!(repo.evolv(&["lint", both]).code, 0);
    // A rule set to warn, a length and a rule turned on, from git config.
    assert_human!(repo, "lint_rules_from_git_config", out);
}

/// main: initial; topic: "feat: good", "Bad message", a bot commit; then a
/// merge of a side branch with a non-conventional message.
fn range_repo() -> (TestRepo, String) {
    let repo = TestRepo::with_files(&[("a", "1\n")]);
    let base = repo.head();
    repo.write("b", "1\n");
    repo.commit_all("feat: good one");
    repo.write("c", "1\n");
    repo.commit_all("Bad message");
    repo.write("d", "1\n");
    repo.git(&["add", "-A"]);
    let bot = "dependabot[bot] <49699333+dependabot[bot]@users.noreply.github.com>";
    repo.git(&["commit", "-q", "--author", bot, "-m", "Bump lodash"]);
    repo.git(&["checkout", "-q", "-b", "side", &base]);
    repo.write("e", "1\n");
    repo.commit_all("fix: on the side");
    repo.git(&["checkout", "-q", "main"]);
    repo.git(&[
        "merge",
        "-q",
        "--no-ff",
        "side",
        "-m",
        "merged the side branch",
    ]);
    (repo, base)
}

#[test]
fn range_lints_each_commit_skipping_merges_and_bots() {
    let (repo, base) = range_repo();
    let range = format!("{base}..HEAD");
    let run = repo.evolv(&["lint", "--range", &range, "--json"]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let v = run.json();
    let msgs = v["messages"].as_array().unwrap();
    let by_summary = |s: &str| {
        msgs.iter()
            .find(|m| m["summary"] == s)
            .unwrap_or_else(|| panic!("no {s} in {v}"))
    };
    assert_eq!(msgs.len(), 5, "{v}");
    assert_eq!(msgs[0]["summary"], "feat: good one", "oldest first");
    assert!(
        by_summary("feat: good one")["findings"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        rules_of(by_summary("Bad message")),
        ["type-empty", "subject-empty"]
    );
    // Without ignoreAuthors the bot's message is linted too.
    assert_eq!(
        by_summary("Bump lodash")["findings"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let merge = by_summary("merged the side branch");
    assert!(
        merge["skipped"].as_str().unwrap().contains("merge"),
        "{merge}"
    );
    assert!(merge["findings"].as_array().unwrap().is_empty());
    assert_eq!(v["errors"], 4);
    assert_eq!(v["linted"], 4);
    assert_eq!(v["not_linted"], 1);

    repo.git(&[
        "config",
        "--add",
        "evolv.commit.ignoreAuthors",
        "renovate[bot]",
    ]);
    repo.git(&[
        "config",
        "--add",
        "evolv.commit.ignoreAuthors",
        "dependabot[bot]",
    ]);
    let v = repo
        .evolv(&["lint", "--range", &range, "--json", "--include-merges"])
        .json();
    let msgs = v["messages"].as_array().unwrap();
    let bot = msgs.iter().find(|m| m["summary"] == "Bump lodash").unwrap();
    assert!(
        bot["skipped"].as_str().unwrap().contains("dependabot[bot]"),
        "{bot}"
    );
    let merge = msgs
        .iter()
        .find(|m| m["summary"] == "merged the side branch")
        .unwrap();
    assert_eq!(rules_of(merge), ["type-empty", "subject-empty"]);
    assert_eq!(v["errors"], 4, "Bad message + the merge");

    // Text and GitHub formats name the commit (a clean one is not shown).
    let out = repo.transcripts(&[
        &["lint", "--range", &range],
        &["lint", "--range", &range, "--format", "github"],
    ]);
    assert_human!(
        repo,
        "lint_range_text_and_github",
        out.replace(&base, "[BASE]")
    );

    // A clean range exits 0.
    let clean = repo.evolv(&["lint", "--range", &format!("{base}..HEAD^2")]);
    assert_eq!(clean.code, 0, "{}{}", clean.stdout, clean.stderr);
}

#[test]
fn global_json_flag_is_format_json() {
    let repo = TestRepo::empty();
    let a = repo.evolv(&["--json", "lint", "feat: Add x"]).json();
    let b = repo
        .evolv(&["lint", "--format", "json", "feat: Add x"])
        .json();
    assert_eq!(a, b);
    assert_eq!(a["messages"][0]["findings"][0]["rule"], "subject-case");
    assert_eq!(a["messages"][0]["suggested_header"], "feat: add x");
}

#[test]
fn commit_msg_hook_rejects_and_keeps_the_message() {
    let repo = TestRepo::with_files(&[("a", "1\n")]);
    install_commit_msg_hook(&repo);
    let before = repo.head();
    let run = commit_empty(&repo, "Added the login page.");
    assert_ne!(run.code, 0, "the hook must reject:\n{}", run.stderr);
    assert_eq!(repo.head(), before, "no commit was made");
    assert_human!(repo, "commit_msg_hook_rejected", run.transcript());
    let kept = repo.path().join(".git/COMMIT_EDITMSG");
    assert_eq!(
        std::fs::read_to_string(&kept).unwrap().trim(),
        "Added the login page."
    );
    // The retry commits the message as the commit would have stored it,
    // saved beside git's file (issue #17, item 5).
    let saved = kept
        .canonicalize()
        .unwrap()
        .with_file_name("EVOLV_REJECTED_MSG");
    let retry = format!("git commit -e -F {}", saved.display());
    assert_has(&run.stderr, &retry);
    assert_eq!(
        std::fs::read_to_string(&saved).unwrap(),
        "Added the login page.\n"
    );

    // The retry command works once the message is fixed.
    std::fs::write(&saved, "feat: add the login page\n").unwrap();
    repo.git(&[
        "commit",
        "-q",
        "--allow-empty",
        "-e",
        "-F",
        saved.to_str().unwrap(),
    ]);
    assert_eq!(
        repo.git(&["log", "-1", "--format=%s"]).trim(),
        "feat: add the login page"
    );

    // Warnings do not block; they are shown.
    let run = commit_empty(&repo, "fix: y\nbody without blank line");
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_human!(repo, "commit_msg_hook_warning", run.transcript());
}

#[test]
fn commit_msg_hook_with_editor_comments_and_verbose_scissors() {
    let repo = TestRepo::with_files(&[("a", "1\n")]);
    install_commit_msg_hook(&repo);
    // An editor that puts `$MSG` above git's template (comments, and with
    // -v the scissors line and the diff).
    let editor = repo.home().join("editor.sh");
    std::fs::write(
        &editor,
        "#!/bin/sh\n{ printf '%s\\n' \"$MSG\"; cat \"$1\"; } > \"$1.new\" && mv \"$1.new\" \"$1\"\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&editor, std::fs::Permissions::from_mode(0o755)).unwrap();
    let editor = editor.to_str().unwrap();
    // The diff below the scissors has lines that would fail every rule.
    repo.write(
        "a",
        &format!("Capital Letters Here.\n{}\n", "y".repeat(150)),
    );
    repo.git(&["add", "a"]);
    // `git commit -v`, the editor writing `message` above git's text.
    let commit_v = |message| {
        let env = [("GIT_EDITOR", editor), ("MSG", message)];
        git_in(&repo, repo.path(), &["commit", "-v"], &env)
    };
    let run = commit_v("feat: edit a");
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_eq!(repo.last_message(), "feat: edit a");

    repo.write("a", "2\n");
    repo.git(&["add", "a"]);
    let before = repo.head();
    let run = commit_v("Edit a");
    assert_ne!(run.code, 0, "{}", run.stderr);
    assert_eq!(repo.head(), before);
    assert_human!(repo, "commit_msg_hook_verbose_commit", run.transcript());

    // -e -F with --cleanup=scissors: git cuts the scissors part, and so
    // does the lint. (Without -e git keeps it: see docs/lint.md.)
    repo.write(
        "msg.txt",
        "fix: scissors\n# ------------------------ >8 ------------------------\nNot Linted.\n",
    );
    let run = repo.git_run(&["commit", "-q", "--cleanup=scissors", "-e", "-F", "msg.txt"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(repo.last_message(), "fix: scissors");

    // `git -c core.commentChar=;` reaches the hook through the environment.
    repo.write("a", "3\n");
    repo.git(&["add", "a"]);
    let run = git_in(
        &repo,
        repo.path(),
        &["-c", "core.commentChar=;", "commit"],
        &[
            ("GIT_EDITOR", editor),
            ("MSG", "fix: semicolons\n\n#42 stays"),
        ],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(repo.last_message(), "fix: semicolons\n\n#42 stays");
}

#[test]
fn commit_msg_hook_in_a_linked_worktree_and_for_merges() {
    let repo = TestRepo::with_files(&[("a", "1\n")]);
    install_commit_msg_hook(&repo);
    let wt = repo.home().join("wt");
    repo.git(&["worktree", "add", "-q", "-b", "topic", wt.to_str().unwrap()]);
    let run = git_in(&repo, &wt, &["commit", "--allow-empty", "-m", "bad"], &[]);
    assert_ne!(run.code, 0, "{}", run.stderr);
    // The linked worktree's own file.
    assert_human!(repo, "commit_msg_hook_linked_worktree", run.transcript());
    let run = git_in(
        &repo,
        &wt,
        &["commit", "--allow-empty", "-q", "-m", "feat: in wt"],
        &[],
    );
    assert_eq!(run.code, 0, "{}", run.stderr);

    // git merge runs commit-msg on .git/MERGE_MSG: git's own message passes,
    // a bad custom one is refused.
    let run = repo.git_run(&["merge", "--no-ff", "-q", "topic", "-m", "merging things"]);
    assert_ne!(run.code, 0, "{}", run.stderr);
    assert_human!(repo, "commit_msg_hook_merge", run.transcript());
    repo.git(&["merge", "--abort"]);
    let run = repo.git_run(&["merge", "--no-ff", "--no-edit", "-q", "topic"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        repo.git(&["log", "-1", "--format=%s"])
            .starts_with("Merge branch 'topic'"),
        "{}",
        repo.git(&["log", "-1", "--format=%s"])
    );
}

#[test]
fn hook_commit_msg_directly_and_empty_messages() {
    let repo = TestRepo::empty();
    repo.write("m", "# Please enter the commit message\n#\n");
    // Empty after cleaning: git aborts the commit itself, the hook stays out of the way.
    let run = repo.evolv(&["hook", "commit-msg", "m"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    repo.write("m", "docs: fine\n");
    assert_eq!(repo.evolv(&["hook", "commit-msg", "m"]).code, 0);
    repo.write("m", "Docs: not fine\n");
    let run = repo.evolv(&["hook", "commit-msg", "m", "--json"]);
    assert_eq!(run.code, 1);
    let v = run.json();
    assert_eq!(v["success"], false);
    assert_eq!(v["message_file"], "m");
    assert!(
        v["retry"]
            .as_str()
            .unwrap()
            .starts_with("git commit -e -F /"),
        "{v}"
    );
    let missing = repo.transcript(&["hook", "commit-msg", "missing-file"]);
    assert_human!(repo, "hook_commit_msg_missing_file", missing);
}

/// Did-you-mean only for near-miss types, never turning an ordinary first
/// word into a type. See: issue #17, item 9.
#[test]
fn lint_suggests_a_type_only_for_near_misses() {
    assert_lints(
        "lint_near_miss_types",
        &[
            "still broken on mac",
            "build fails on arm",
            "fxi login crash",
            "feet: add login",
            "stlye: format",
        ],
    );
}

/// History is linted as stored, as `commitlint --from` reads it.
/// See: issue #16, item 21.
#[test]
fn lint_range_takes_messages_as_stored() {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    repo.git(&[
        "commit",
        "-q",
        "--allow-empty",
        "--no-verify",
        "--cleanup=verbatim",
        "-m",
        "docs: fix gh-pages deploy ",
    ]);
    let mut out = repo.transcript(&["lint", "--range", "HEAD~1..HEAD"]);

    // A long first body line that looks like a footer is body, not footer.
    let long = "x".repeat(120);
    for first in [format!("x #12 {long}"), format!("a::b {long}")] {
        let msg = format!("fix: y\n\n{first}\n");
        repo.git(&["commit", "-q", "--allow-empty", "--no-verify", "-m", &msg]);
        out += &repo.transcript(&["lint", "--range", "HEAD~1..HEAD"]);
    }
    assert_human!(repo, "lint_range_as_stored", out);
}
