//! Hooks beside the hook managers, issue 25 items 16 and 17: uninstall
//! removes git-evolv's shims from every folder install wrote them into
//! (though core.hooksPath no longer names it), a refused install changes
//! nothing, and every piece of advice `hooks status` gives works when
//! followed. The managers' file moves are simulated here (lefthook's
//! `.old`, husky's stubs under core.hooksPath); `scripts/hook_managers.sh`
//! runs the real ones.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::common::{BIN, TestRepo, assert_has, error_code};
use crate::hooks_coexist::{commit, husky, log, write_exec};

const MARKER: &str = "git-evolv managed hook";

/// lefthook's hook: it holds `LEFTHOOK`, as lefthook's own test looks for.
const LEFTHOOK_HOOK: &str = "#!/bin/sh\nif [ \"$LEFTHOOK\" = \"0\" ]; then exit 0; fi\necho lefthook >> \"$(git rev-parse --git-dir)/tool.log\"\n";

/// `lefthook install [--force]` into the folder git runs hooks from: a hook
/// that is not lefthook's moves to `<hook>.old`, then lefthook writes its own.
fn lefthook_install(dir: &Path) {
    for name in ["commit-msg", "pre-push"] {
        let hook = dir.join(name);
        let theirs = fs::read(&hook).is_ok_and(|b| b.windows(8).any(|w| w == b"LEFTHOOK"));
        if fs::symlink_metadata(&hook).is_ok() && !theirs {
            fs::rename(&hook, dir.join(format!("{name}.old"))).unwrap();
        }
        write_exec(&hook, LEFTHOOK_HOOK);
    }
}

/// Every file of `dirs` (name, mode, bytes) and the repository's config.
fn snapshot(repo: &TestRepo, dirs: &[&str]) -> BTreeMap<String, (u32, Vec<u8>)> {
    let mut files = BTreeMap::new();
    for dir in dirs {
        for entry in fs::read_dir(repo.path().join(dir)).unwrap() {
            let p = entry.unwrap().path();
            let mode = fs::symlink_metadata(&p).unwrap().permissions().mode();
            files.insert(p.display().to_string(), (mode, fs::read(&p).unwrap()));
        }
    }
    let config = repo.path().join(".git/config");
    files.insert("config".into(), (0, fs::read(config).unwrap()));
    files
}

/// The files in `dir` that are git-evolv's (its marker, a copy of
/// git-evolv-hook) or that it chained.
fn ours_in(repo: &TestRepo, dir: &str) -> Vec<String> {
    let hook_binary = fs::read(Path::new(BIN).with_file_name("git-evolv-hook")).unwrap();
    let mut found = Vec::new();
    for entry in fs::read_dir(repo.path().join(dir)).unwrap() {
        let p = entry.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = fs::read(&p).unwrap_or_default();
        if name.ends_with(".evolv-chained")
            || String::from_utf8_lossy(&bytes).contains(MARKER)
            || bytes == hook_binary
        {
            found.push(name);
        }
    }
    found
}

/// Runs each command `hooks status` advises (the `git …` in backquotes of
/// every note) exactly as printed, then checks that git-evolv runs: status
/// says so and git itself refuses a bad commit message.
#[track_caller]
fn follow_the_advice(repo: &TestRepo) {
    let run = repo.evolv(&["hooks", "status", "--json"]);
    run.ok();
    let mut commands = Vec::new();
    for hook in run.json()["hooks"].as_array().unwrap() {
        for note in hook["notes"].as_array().into_iter().flatten() {
            let note = note.as_str().unwrap();
            for cmd in note.split('`').skip(1).step_by(2) {
                if cmd.starts_with("git ") && !commands.contains(&cmd.to_string()) {
                    commands.push(cmd.to_string());
                }
            }
        }
    }
    assert!(
        !commands.is_empty(),
        "status gave no advice: {}",
        run.stdout
    );
    for cmd in &commands {
        let words: Vec<&str> = cmd.split_whitespace().collect();
        let done = match words.as_slice() {
            ["git", "evolv", rest @ ..] => repo.evolv(rest),
            ["git", rest @ ..] => repo.git_run(rest),
            _ => unreachable!(),
        };
        assert_eq!(
            done.code, 0,
            "following `{cmd}`: {}{}",
            done.stdout, done.stderr
        );
    }
    for name in ["commit-msg", "pre-push"] {
        let st = repo.hook_status(name);
        assert_eq!(st["runs"], true, "after {commands:?}: {st}");
    }
    let bad = commit(repo, "not a conventional message");
    assert_eq!(bad.code, 1, "after {commands:?}: {}", bad.stderr);
    assert_has(&bad.stderr, "commit message rejected");
}

#[test]
fn hooks_uninstall_removes_the_shims_from_a_folder_core_hooks_path_no_longer_names() {
    // See: issue 25, item 16 (husky's documented removal before uninstall).
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    husky(&repo);
    let stub = fs::read(repo.path().join(".husky/_/commit-msg")).unwrap();
    repo.evolv(&["hooks", "install", "--hooks-path"]).ok();
    repo.git(&["config", "--unset", "core.hooksPath"]);
    repo.evolv(&["hooks", "uninstall"]).ok();
    assert_eq!(ours_in(&repo, ".husky/_"), Vec::<String>::new());
    assert_eq!(ours_in(&repo, ".git/hooks"), Vec::<String>::new());
    assert_eq!(
        fs::read(repo.path().join(".husky/_/commit-msg")).unwrap(),
        stub
    );
    // The team turns core.hooksPath back on: the uninstalled git-evolv
    // refuses nothing, and husky's hooks run as before.
    repo.set_config("core.hooksPath", ".husky/_");
    repo.write(".husky/commit-msg", "echo husky >> .git/tool.log\n");
    commit(&repo, "not a conventional message").ok();
    assert!(log(&repo).contains("husky"));
    assert_eq!(repo.hook_status("commit-msg")["state"], "foreign");
}

/// lefthook → evolv → husky → `install --hooks-path` → `lefthook install --force`.
fn lefthook_evolv_husky_evolv_lefthook() -> TestRepo {
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    lefthook_install(&repo.path().join(".git/hooks"));
    repo.evolv(&["hooks", "install"]).ok();
    husky(&repo);
    repo.evolv(&["hooks", "install", "--hooks-path"]).ok();
    lefthook_install(&repo.path().join(".husky/_"));
    repo
}

#[test]
fn hooks_status_advice_after_lefthook_forced_over_husky_works_when_followed() {
    // See: issue 25, item 17.
    let repo = lefthook_evolv_husky_evolv_lefthook();
    let st = repo.hook_status("commit-msg");
    assert_eq!(
        (st["state"].as_str(), st["runs"].as_bool()),
        (Some("not_running"), Some(false))
    );
    assert!(
        st["notes"]
            .to_string()
            .contains("`git evolv hooks install --hooks-path`"),
        "{st}"
    );
    // Plain install is refused, and changes nothing.
    let before = snapshot(&repo, &[".git/hooks", ".husky/_"]);
    let run = repo.evolv(&["--json", "hooks", "install"]);
    assert_eq!(error_code(&run), "hooks_path_set");
    assert!(before == snapshot(&repo, &[".git/hooks", ".husky/_"]));

    let before_log = log(&repo).len();
    follow_the_advice(&repo);
    assert!(log(&repo).len() > before_log, "lefthook's hook runs too");
    // Uninstall leaves what lefthook --force left: its hook in place, and
    // the hook it found kept at `.old`.
    repo.evolv(&["hooks", "uninstall"]).ok();
    assert_eq!(ours_in(&repo, ".husky/_"), Vec::<String>::new());
    assert!(repo.read(".husky/_/commit-msg").contains("LEFTHOOK"));
    assert!(repo.read(".husky/_/commit-msg.old").contains("/h\""));
}

#[test]
fn hooks_a_refused_install_changes_nothing() {
    // See: issue 25, item 17: the refused install deleted git-evolv's
    // shim set aside before refusing, and wrote commit-msg before
    // refusing pre-push.
    let repo = lefthook_evolv_husky_evolv_lefthook();
    let d = repo.path().join(".husky/_");
    // pre-push: lefthook's hook over a different chained one (husky's),
    // our shim where pre-commit keeps its legacy hook: install must refuse
    // (commit-msg alone it would chain).
    fs::rename(d.join("pre-push.old"), d.join("pre-push.legacy")).unwrap();
    let dirs = [".git/hooks", ".husky/_"];
    let before = snapshot(&repo, &dirs);
    let run = repo.evolv(&["--json", "hooks", "install", "--hooks-path"]);
    assert_eq!(error_code(&run), "hook_conflict", "{}", run.stdout);
    assert!(
        before == snapshot(&repo, &dirs),
        "the refused install changed files"
    );
    // status says what install would refuse, not to run it.
    let st = repo.hook_status("pre-push");
    assert!(st["notes"].to_string().contains("by hand"), "{st}");
}

#[test]
fn hooks_every_piece_of_status_advice_works_when_followed() {
    // See: issue 25, item 17: each state status advises a command in.
    // lefthook moved ours to `.old` in the default folder.
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    repo.evolv(&["hooks", "install"]).ok();
    lefthook_install(&repo.path().join(".git/hooks"));
    follow_the_advice(&repo);

    // husky set core.hooksPath after git-evolv: ours are bypassed.
    let repo = TestRepo::with_files(&[("a.txt", "a\n")]);
    repo.evolv(&["hooks", "install"]).ok();
    husky(&repo);
    follow_the_advice(&repo);
    // husky rewrote its stubs over ours.
    husky(&repo);
    follow_the_advice(&repo);
    // lefthook forced into husky's folder over ours.
    lefthook_install(&repo.path().join(".husky/_"));
    follow_the_advice(&repo);
}
