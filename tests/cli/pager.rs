//! The pager and colours as git decides them (issue 15, items 2 and 3):
//! a real terminal from a pty, fake pagers that write where they were
//! called, and git's colour keys checked one by one.

use std::path::Path;
use std::time::Duration;

use expectrl::process::unix::WaitStatus;
use expectrl::{Eof, Expect, Session};

use crate::common::{BIN, Run, TestRepo, assert_human, sealed};

/// Runs `git-evolv args` with stdout and stderr on a pseudo-terminal;
/// returns what the terminal showed and the exit code.
pub fn in_pty(repo: &TestRepo, args: &[&str], env: &[(&str, &str)]) -> (String, i32) {
    let mut cmd = sealed(BIN, repo.home());
    cmd.args(args).current_dir(repo.path()).env("TERM", "xterm");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut s = Session::spawn(cmd).unwrap();
    s.set_expect_timeout(Some(Duration::from_secs(60)));
    let seen = s.expect(Eof).unwrap();
    // Eof matches the whole buffer: the screen is the match, not before it.
    let text = String::from_utf8_lossy(seen.get(0).unwrap_or_default()).into_owned();
    let code = match s.get_process().wait().unwrap() {
        WaitStatus::Exited(_, code) => code,
        other => panic!("unexpected status {other:?}"),
    };
    (text, code)
}

/// A repository with one pending proposal; returns it and the id.
fn proposed() -> (TestRepo, String) {
    let (repo, id) = TestRepo::scenario_proposed(&[]);
    (repo, id)
}

/// A pager command writing its input to `name` in the repository.
fn pager_into(repo: &TestRepo, name: &str) -> String {
    format!("cat > '{}'", repo.file(name).display())
}

fn read(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

#[test]
fn show_on_a_terminal_goes_through_git_pager_with_less_settings() {
    let (repo, id) = proposed();
    let pager = format!(
        "env > '{}'; cat > '{}'",
        repo.file("env.txt").display(),
        repo.file("paged.txt").display()
    );
    let (screen, code) = in_pty(&repo, &["show", &id], &[("GIT_PAGER", &pager)]);
    assert_eq!(code, 0, "{screen}");
    let paged = read(&repo.file("paged.txt")).expect("the pager ran");
    assert!(paged.contains("fetchUserData()"), "{paged}");
    assert!(
        paged.contains("\x1b[32m"),
        "coloured for the pager, as git does: {paged}"
    );
    assert!(
        !screen.contains("fetchUserData"),
        "paged, not on the screen: {screen}"
    );
    let env = read(&repo.file("env.txt")).unwrap();
    for want in ["LESS=FRX", "LV=-c", "GIT_PAGER_IN_USE=true"] {
        assert!(env.lines().any(|l| l == want), "{want} missing:\n{env}");
    }
    // A LESS of the user's own is left alone, as git leaves it.
    in_pty(&repo, &["log"], &[("GIT_PAGER", &pager), ("LESS", "-S")]);
    let env = read(&repo.file("env.txt")).unwrap();
    assert!(env.lines().any(|l| l == "LESS=-S"), "{env}");
}

#[test]
fn no_pager_under_no_pager_flag_pager_in_use_json_or_a_pipe() {
    let (repo, id) = proposed();
    let pager = pager_into(&repo, "paged.txt");
    type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)]);
    let cases: [Case; 3] = [
        (&["show", "--no-pager", &id], &[]),
        (&["show", &id], &[("GIT_PAGER_IN_USE", "true")]),
        (&["show", "--json", &id], &[]),
    ];
    for (args, extra) in cases {
        let mut env = vec![("GIT_PAGER", pager.as_str())];
        env.extend_from_slice(extra);
        let (screen, code) = in_pty(&repo, args, &env);
        assert_eq!(code, 0, "{args:?}: code {code}: {screen}");
        assert!(screen.contains("fetchUserData"), "{args:?}: {screen}");
        assert!(!repo.file("paged.txt").exists(), "{args:?} paged");
    }
    // stdout a pipe: never paged.
    let run = repo.evolv_env(&["show", &id], &[("GIT_PAGER", &pager)]);
    run.ok();
    assert!(run.stdout.contains("fetchUserData"));
    assert!(!repo.file("paged.txt").exists(), "a pipe was paged");
}

#[test]
fn the_pager_command_follows_gits_order() {
    let (repo, _id) = proposed();
    let file = |n: &str| repo.file(n);
    let into = |n: &str| pager_into(&repo, n);
    let run = |env: &[(&str, &str)]| {
        for n in ["pager", "core", "cfg", "git"] {
            let _ = std::fs::remove_file(file(n));
        }
        let (screen, code) = in_pty(&repo, &["list"], env);
        assert_eq!(code, 0, "{screen}");
    };
    let pager_env = into("pager");
    run(&[("PAGER", &pager_env)]);
    assert!(file("pager").exists(), "PAGER");
    repo.git(&["config", "core.pager", &into("core")]);
    run(&[("PAGER", &pager_env)]);
    assert!(
        file("core").exists() && !file("pager").exists(),
        "core.pager beats PAGER"
    );
    repo.git(&["config", "pager.evolv.list", &into("cfg")]);
    run(&[("PAGER", &pager_env)]);
    assert!(
        file("cfg").exists() && !file("core").exists(),
        "pager.evolv.list beats core.pager"
    );
    let git_pager = into("git");
    run(&[("PAGER", &pager_env), ("GIT_PAGER", &git_pager)]);
    assert!(
        file("git").exists() && !file("cfg").exists(),
        "GIT_PAGER beats config"
    );
    // pager.evolv.<cmd> = false turns it off; `cat` means no pager.
    repo.set_config("pager.evolv.list", "false");
    run(&[("GIT_PAGER", &git_pager)]);
    assert!(!file("git").exists(), "pager.evolv.list=false");
    repo.set_config("--unset", "pager.evolv.list");
    repo.set_config("pager.evolv", "false");
    run(&[("GIT_PAGER", &git_pager)]);
    assert!(!file("git").exists(), "pager.evolv=false");
    // A command that does not page by default pages when told to.
    repo.set_config("pager.evolv", "true");
    let (_, code) = in_pty(&repo, &["check"], &[("GIT_PAGER", &git_pager)]);
    assert_eq!(code, 0);
    assert!(file("git").exists(), "pager.evolv=true pages check");
}

#[test]
fn a_pager_that_quits_early_shows_no_broken_pipe_error() {
    let (repo, id) = TestRepo::proposed(
        &[("big.txt", &"getUserData\n".repeat(20_000))],
        "getUserData",
        "fetchUserData",
    );
    // Reads one line and quits, like pressing q in less.
    let (screen, code) = in_pty(&repo, &["show", &id], &[("GIT_PAGER", "head -n 1")]);
    assert_eq!(code, 0, "{screen}");
    assert!(screen.contains("patch patch_"), "{screen}");
    assert!(
        !screen.contains("fetchUserData"),
        "the rest went nowhere: {screen}"
    );
    for bad in ["rror", "roken pipe", "panicked"] {
        assert!(!screen.contains(bad), "{bad}: {screen}");
    }
}

/// `show`'s diff, coloured or not, on a pipe.
fn show(repo: &TestRepo, id: &str, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut all = vec!["show", id];
    all.extend_from_slice(args);
    let run = repo.evolv_env(&all, env);
    run.ok();
    run
}

fn coloured(run: &Run) -> bool {
    run.stdout.contains('\x1b')
}

#[test]
fn colour_follows_each_git_config_key_then_the_flag_then_no_color() {
    let (repo, id) = proposed();
    assert!(
        !coloured(&show(&repo, &id, &[], &[])),
        "a pipe is not coloured"
    );
    let set = |k: &str, v: &str| repo.git(&["config", k, v]);
    let unset = |k: &str| {
        repo.git_run(&["config", "--unset", k]);
    };
    for key in ["color.ui", "color.diff", "color.evolv"] {
        set(key, "always");
        assert!(coloured(&show(&repo, &id, &[], &[])), "{key}=always");
        assert!(
            !coloured(&show(&repo, &id, &["--color", "never"], &[])),
            "--color beats {key}"
        );
        assert!(
            coloured(&show(&repo, &id, &[], &[("NO_COLOR", "1")])),
            "{key}=always is asked for explicitly: NO_COLOR does not undo it"
        );
        set(key, "true");
        assert!(
            !coloured(&show(&repo, &id, &[], &[])),
            "{key}=true is auto: not on a pipe"
        );
        unset(key);
    }
    // The most specific key wins: color.evolv over color.diff over color.ui.
    set("color.ui", "always");
    set("color.diff", "never");
    assert!(
        !coloured(&show(&repo, &id, &[], &[])),
        "color.diff beats color.ui"
    );
    set("color.evolv", "always");
    assert!(
        coloured(&show(&repo, &id, &[], &[])),
        "color.evolv beats color.diff"
    );
    unset("color.evolv");
    unset("color.diff");
    unset("color.ui");
    // `git -c` is seen too.
    let run = Run::from(
        sealed("git", repo.home())
            .args(["-c", "color.ui=always", "evolv", "show", &id])
            .env("PATH", path_with_bin())
            .current_dir(repo.path())
            .output()
            .unwrap(),
    );
    assert!(coloured(&run), "git -c color.ui=always: {}", run.stderr);
    assert!(coloured(&show(&repo, &id, &["--color", "always"], &[])));
    assert!(
        !coloured(&show(&repo, &id, &["--color", "always", "--json"], &[])),
        "JSON never"
    );
    // On a terminal: auto colours, NO_COLOR turns it off.
    let args = ["show", "--no-pager", id.as_str()];
    let (screen, _) = in_pty(&repo, &args, &[]);
    assert!(screen.contains("\x1b[32m"), "{screen}");
    let (screen, _) = in_pty(&repo, &args, &[("NO_COLOR", "1")]);
    assert!(!screen.contains("\x1b[32m"), "{screen}");
    let (screen, _) = in_pty(&repo, &args, &[("TERM", "dumb")]);
    assert!(!screen.contains("\x1b[32m"), "TERM=dumb: {screen}");
}

/// PATH with the test binary's directory first, so `git evolv` finds it.
pub fn path_with_bin() -> String {
    format!(
        "{}:{}",
        Path::new(BIN).parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

#[test]
fn show_is_coloured_byte_for_byte_like_git_with_every_diff_slot_configured() {
    let repo = TestRepo::with_files(&[(
        "m.c",
        "int main() {\n  a;\n  b;\n  c;\n  d;\n  e;\n}\n\tx\n",
    )]);
    let id = repo.propose("d;", "D;  ", &[]);
    let slots = [
        ("color.diff.old", "bold magenta"),
        ("color.diff.new", "#00ff00"),
        ("color.diff.frag", "yellow black ul"),
        ("color.diff.meta", "blue"),
        ("color.diff.func", "brightcyan"),
        ("color.diff.whitespace", "reverse"),
        ("color.diff.context", "dim"),
    ];
    let theirs_args = [
        "diff",
        "--color=always",
        &format!("refs/evolv/proposals/{id}~1"),
        &format!("refs/evolv/proposals/{id}"),
    ]
    .map(String::from);
    let diff_part = |s: &str| s[s.find("\x1b[").unwrap_or(0)..].to_string();
    // git's defaults first, then each slot set on its own.
    let mut configs: Vec<Vec<(&str, &str)>> = vec![vec![]];
    configs.extend(slots.iter().map(|s| vec![*s]));
    for config in configs {
        for (k, v) in &config {
            repo.git(&["config", k, v]);
        }
        let ours = show(&repo, &id, &["--color", "always"], &[]);
        let body = ours.stdout.split_once("\n\n    ").unwrap().1;
        let body = body.split_once("\n\n").unwrap().1;
        let theirs = repo.git(&theirs_args.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(diff_part(body), diff_part(&theirs), "{config:?}");
        for (k, v) in &config {
            if let Some(slot) = k.strip_prefix("color.diff.") {
                let seq = repo.git(&["config", "--get-color", k, "x"]);
                assert!(ours.stdout.contains(&seq), "{slot}={v} not used");
            }
        }
        for (k, _) in &config {
            repo.git(&["config", "--unset", k]);
        }
    }
    // An invalid colour is an invalid_config error naming key and value.
    repo.set_config("color.diff.old", "reddish");
    let run = repo.evolv(&["show", &id, "--color", "always"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert_human!(repo, "show_invalid_diff_colour", run.transcript());
}
