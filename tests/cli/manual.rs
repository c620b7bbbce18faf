//! Man pages, `--help` through git and man, `git evolv help`, and shell
//! completions (issue 15, items 1 and 5): the pages are installed the way
//! the README says, into a prefix whose `bin/` is on PATH, from a clean
//! HOME, and read back with the machine's real `git` and `man`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{BIN, Run, TestRepo, assert_has, assert_has_all, assert_human, sealed};

/// A fresh install: `<prefix>/bin/git-evolv` (a copy of the binary under
/// test), a clean HOME, PATH = `<prefix>/bin` then the system's.
struct Install {
    prefix: tempfile::TempDir,
    home: tempfile::TempDir,
}

impl Install {
    fn new() -> Self {
        let prefix = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(prefix.path().join("bin")).unwrap();
        // A hard link writes nothing (see `run` for a copy's race).
        let installed = prefix.path().join("bin/git-evolv");
        if std::fs::hard_link(BIN, &installed).is_err() {
            std::fs::copy(BIN, &installed).unwrap();
        }
        Install {
            prefix,
            home: tempfile::tempdir().unwrap(),
        }
    }

    fn bin(&self) -> PathBuf {
        self.prefix.path().join("bin")
    }

    /// `program args` as a user with this install would run it; MANPAGER
    /// prints the page instead of opening a pager.
    fn run(&self, program: &str, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut cmd = sealed(program, self.home.path());
        cmd.args(args)
            .current_dir(self.home.path())
            .env(
                "PATH",
                format!("{}:/usr/local/bin:/usr/bin:/bin", self.bin().display()),
            )
            .env("MANPAGER", "cat")
            .env("MANWIDTH", "100")
            .env_remove("MANPATH");
        for (k, v) in env {
            cmd.env(k, v);
        }
        // The binaries were copied into `bin` by this (multi-threaded) test
        // process: a child another test forks at that moment holds the
        // copy open for writing until it execs, and exec then fails with
        // "Text file busy" (ETXTBSY). That passes; try again.
        for _ in 0..100 {
            match cmd.output() {
                Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                out => return Run::from(out.unwrap()),
            }
        }
        Run::from(cmd.output().unwrap())
    }
}

fn have(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The visible subcommands, from clap's own help.
fn subcommands() -> Vec<String> {
    let out = Command::new(BIN).arg("--help").output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    text.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect()
}

/// Fails the test when man (man-db) is not on the machine.
#[track_caller]
fn need_man() {
    assert!(
        have("man"),
        "man (man-db) is needed: apt-get install man-db"
    );
}

#[test]
fn every_subcommand_has_a_man_page_that_renders() {
    need_man();
    let install = Install::new();
    let run = install.run("git-evolv", &["install-man", "--json"], &[]);
    run.ok();
    let pages = run.json()["pages"].as_array().unwrap().len();
    let subs = subcommands();
    assert!(subs.len() >= 18, "{subs:?}");
    assert_eq!(
        pages,
        subs.len() + 1,
        "one page per subcommand plus git-evolv(1)"
    );
    let dir = install.prefix.path().join("share/man/man1");
    for name in std::iter::once("git-evolv".to_string())
        .chain(subs.iter().map(|s| format!("git-evolv-{s}")))
    {
        let page = dir.join(format!("{name}.1"));
        let run = install.run("man", &["--warnings", "-l", page.to_str().unwrap()], &[]);
        run.ok();
        let text = &run.stdout;
        for want in [
            "NAME",
            "SYNOPSIS",
            "EXAMPLES",
            "EXIT STATUS",
            "ERROR CODES",
            "patch_not_found",
            "validation_failed",
        ] {
            assert!(text.contains(want), "{name}: no {want}:\n{text}");
        }
        assert!(text.contains(&name.to_uppercase()), "{name}: title");
        assert!(!run.stderr.contains("warning"), "{name}: {}", run.stderr);
    }
}

#[test]
fn git_evolv_help_opens_the_manual_after_the_readme_install_from_a_clean_home() {
    need_man();
    let install = Install::new();
    // Before: exactly the complaint of the issue.
    let before = install.run("git", &["evolv", "--help"], &[]);
    assert_ne!(before.code, 0);
    assert_has(&before.stderr, "No manual entry for git-evolv");
    // The README's install step.
    install.run("git", &["evolv", "install-man"], &[]).ok();
    for args in [&["evolv", "--help"][..], &["help", "evolv"]] {
        let run = install.run("git", args, &[]);
        run.ok();
        assert!(
            run.stdout.contains("GIT-EVOLV"),
            "git {args:?}:\n{}",
            run.stdout
        );
    }
    // A subcommand's --help reaches git-evolv itself: text on a pipe…
    let run = install.run("git", &["evolv", "apply", "--help"], &[]);
    run.ok();
    assert_has(&run.stdout, "Usage: git evolv apply");
    let run = install.run("man", &["git-evolv"], &[]);
    run.ok();
    assert_has(&run.stdout, "ERROR CODES");
    let run = install.run("man", &["git-evolv-apply"], &[]);
    run.ok();
    assert_has(&run.stdout, "--validate");
    // With MANPATH set as install-man asks for it when one is set already.
    let manpath = install.prefix.path().join("share/man");
    let run = install.run(
        "git",
        &["evolv", "--help"],
        &[("MANPATH", &format!("{}:", manpath.display()))],
    );
    run.ok();
    assert_has(&run.stdout, "GIT-EVOLV");
    let run = install.run(
        "git",
        &["evolv", "install-man"],
        &[("MANPATH", "/usr/share/man")],
    );
    run.ok();
    assert_has(
        &run.stderr,
        &format!("export MANPATH=\"{}", manpath.display()),
    );
}

#[test]
fn git_evolv_help_subcommand_prints_the_manual_text() {
    let repo = TestRepo::scenario();
    let run = repo.evolv(&["help", "apply"]);
    run.ok();
    assert_human!(repo, "manual_apply", run.transcript());
    let run = repo.evolv(&["help"]);
    run.ok();
    assert_human!(repo, "manual_index", run.transcript());
    let run = repo.evolv(&["help", "nonsense"]);
    assert_eq!(run.code, 2);
    assert_human!(repo, "manual_unknown_command", run.transcript());
}

/// The subcommands a completion script offers at the top level.
fn offered(shell: &str, script: &str) -> Vec<String> {
    let words = |s: &str| -> Vec<String> {
        s.split_whitespace()
            .filter(|w| !w.starts_with('-'))
            .map(String::from)
            .collect()
    };
    let between = |start: &str, end: &str| -> String {
        let from = script
            .find(start)
            .unwrap_or_else(|| panic!("{shell}: {start}"));
        let rest = &script[from + start.len()..];
        rest[..rest.find(end).unwrap()].to_string()
    };
    let mut names = match shell {
        "bash" => {
            let mut v = words(&between("local subcommands=\"", "\""));
            let line = script
                .lines()
                .find(|l| l.trim().starts_with("opts=\"") && l.contains(" propose "))
                .unwrap();
            let clap = words(line.trim().trim_start_matches("opts=").trim_matches('"'));
            assert_eq!(v, clap, "_git_evolv and git-evolv offer the same");
            v.sort();
            v
        }
        "zsh" => between("_git-evolv_commands() {", "\n    )")
            .lines()
            .filter_map(|l| l.strip_prefix('\'')?.split(':').next().map(String::from))
            .collect(),
        "fish" => script
            .lines()
            .filter(|l| l.contains("__fish_git_evolv_needs_command\" -f -a \""))
            .map(|l| {
                l.split("-a \"")
                    .nth(1)
                    .unwrap()
                    .split('"')
                    .next()
                    .unwrap()
                    .to_string()
            })
            .collect(),
        "elvish" => between("&'git-evolv'= {", "}")
            .lines()
            .filter_map(|l| l.trim().strip_prefix("cand "))
            .map(|l| l.split_whitespace().next().unwrap().to_string())
            .filter(|w| !w.starts_with('-'))
            .collect(),
        "powershell" => between("'git-evolv' {", "break")
            .lines()
            .filter_map(|l| l.trim().strip_prefix("[CompletionResult]::new('"))
            .map(|l| l.split('\'').next().unwrap().to_string())
            .filter(|w| !w.starts_with('-'))
            .collect(),
        _ => unreachable!(),
    };
    names.sort();
    names
}

#[test]
fn completion_scripts_offer_every_subcommand() {
    let repo = TestRepo::scenario();
    let mut snapshot = String::new();
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let run = repo.evolv(&["completions", shell]);
        run.ok();
        let names = offered(shell, &run.stdout);
        snapshot.push_str(&format!("{shell}: {}\n", names.join(" ")));
    }
    insta::with_settings!({snapshot_path => "snapshots", prepend_module_to_snapshot => false}, {
        insta::assert_snapshot!("completion_subcommands", snapshot);
    });
}

/// COMPREPLY for `line` under git's own bash completion with ours sourced.
fn complete(repo: &TestRepo, git_completion: &Path, line: &str) -> Vec<String> {
    let ours = repo.evolv(&["completions", "bash"]);
    ours.ok();
    let script_path = repo.home().join("git-evolv.bash");
    std::fs::write(&script_path, &ours.stdout).unwrap();
    let script = format!(
        r#"source '{git}'
source '{ours}'
COMP_LINE='{line}'
COMP_POINT=${{#COMP_LINE}}
read -ra COMP_WORDS <<< "$COMP_LINE"
[[ "$COMP_LINE" == *' ' ]] && COMP_WORDS+=('')
COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 ))
__git_wrap__git_main
printf '%s\n' "${{COMPREPLY[@]}}"
"#,
        git = git_completion.display(),
        ours = script_path.display(),
    );
    let mut cmd = sealed("bash", repo.home());
    cmd.args(["--norc", "-c", &script])
        .current_dir(repo.path())
        .env("PATH", crate::pager::path_with_bin());
    let run = Run::from(cmd.output().unwrap());
    assert_eq!(run.code, 0, "{}", run.stderr);
    let mut v: Vec<String> = run
        .stdout
        .lines()
        .map(|l| l.trim().to_string())
        .filter(|l| !l.is_empty())
        .collect();
    v.sort();
    v
}

#[test]
fn git_evolv_tab_completes_subcommands_and_pending_ids_under_gits_bash_completion() {
    let git_completion = Path::new("/usr/share/bash-completion/completions/git");
    assert!(
        git_completion.exists(),
        "git's bash completion is needed (Debian's git package installs it)"
    );
    let repo = TestRepo::scenario();
    let subs = complete(&repo, git_completion, "git evolv ");
    for want in ["propose", "apply", "show", "rollback", "completions"] {
        assert!(subs.contains(&want.to_string()), "{want}: {subs:?}");
    }
    assert_eq!(
        complete(&repo, git_completion, "git evolv pro"),
        vec!["propose"]
    );
    let applied = repo.propose("getUserData", "fetchUserData", &["-s", "frontend/**"]);
    repo.evolv(&["apply", &applied]).ok();
    let pending = repo.propose("user", "account", &["-s", "backend/**"]);
    assert_eq!(
        complete(&repo, git_completion, "git evolv apply "),
        vec![pending.clone()]
    );
    assert_eq!(
        complete(&repo, git_completion, "git evolv rollback "),
        vec![applied.clone()]
    );
    let mut both = vec![applied, pending];
    both.sort();
    assert_eq!(complete(&repo, git_completion, "git evolv show "), both);
    let flags = complete(&repo, git_completion, "git evolv apply --va");
    assert_eq!(flags, vec!["--validate="]);
}

#[test]
fn help_on_a_terminal_opens_the_manual_in_man() {
    need_man();
    let repo = TestRepo::scenario();
    for args in [&["apply", "--help"][..], &["help", "apply"]] {
        let (screen, code) = crate::pager::in_pty(&repo, args, &[("MANPAGER", "cat")]);
        assert_eq!(code, 0, "{screen}");
        // man emboldens on a terminal by overstriking: `E\bE`.
        let screen = strip_overstrike(&screen);
        assert!(screen.contains("GIT-EVOLV-APPLY(1)"), "{args:?}: {screen}");
        assert!(screen.contains("EXIT STATUS"), "{args:?}: {screen}");
    }
    // -h stays clap's short help, as `git commit -h` is git's.
    let (screen, _) = crate::pager::in_pty(&repo, &["apply", "-h"], &[("MANPAGER", "cat")]);
    assert_has_all(&screen, &["Usage:", "git evolv apply"]);
    assert!(!screen.contains("EXIT STATUS"), "{screen}");
}

fn strip_overstrike(s: &str) -> String {
    let mut out: Vec<char> = Vec::new();
    for c in s.chars() {
        if c == '\u{8}' {
            out.pop();
        } else {
            out.push(c);
        }
    }
    out.into_iter().collect()
}

/// Issue 26 item 8: the manual of undo says what each undo does, what it
/// refuses and how it differs from rollback and `git reset`.
#[test]
fn the_manual_of_undo_says_what_it_does_refuses_and_how_it_differs() {
    let repo = TestRepo::scenario();
    for command in ["undo", "redo"] {
        let run = repo.evolv(&["help", command]);
        run.ok();
        assert_has_all(
            &run.stdout,
            &[
                "drop, gc",
                "refs/remotes/*",
                "dirty_worktree",
                "undo_conflict",
                "git reset --keep",
            ],
        );
    }
}
