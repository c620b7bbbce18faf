//! The adapter against git itself: whatever `git config --list` shows for
//! a layered, including repository, the adapter reads too.

use std::path::Path;
use std::process::Command;

use super::{Config, Env, Scope};

fn git(dir: &Path, home: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn env(home: &Path) -> Env {
    Env {
        home: Some(home.to_path_buf()),
        no_system: true,
        ..Env::default()
    }
}

/// `key=value` lines in git's order, as `git config --list` prints them.
fn listing(config: &Config) -> Vec<String> {
    config
        .entries()
        .iter()
        .map(|e| match &e.value {
            Some(v) => format!("{}={v}", e.key),
            None => e.key.clone(),
        })
        .collect()
}

/// A home folder and, beside it, a new repository on branch `main`.
fn home_and_repo() -> (tempfile::TempDir, tempfile::TempDir) {
    let home = tempfile::tempdir().unwrap();
    let repo = tempfile::tempdir().unwrap();
    git(repo.path(), home.path(), &["init", "-q", "-b", "main"]);
    (home, repo)
}

#[test]
fn every_layer_and_include_git_reads_is_read_in_gits_order() {
    let (home, repo) = home_and_repo();
    let (h, r) = (home.path(), repo.path());
    std::fs::create_dir_all(h.join(".config/git")).unwrap();
    std::fs::write(h.join(".config/git/config"), "[evolv]\n\tvalidate = xdg\n").unwrap();
    std::fs::write(
        h.join(".gitconfig"),
        "[evolv]\n\tvalidate = global\n[include]\n\tpath = ~/inc.conf\n\
         [includeIf \"gitdir:~/nowhere/\"]\n\tpath = ~/never.conf\n",
    )
    .unwrap();
    std::fs::write(h.join("inc.conf"), "[evolv]\n\ttimeout = 7\n").unwrap();
    std::fs::write(h.join("never.conf"), "[evolv]\n\ttimeout = 99\n").unwrap();
    std::fs::write(r.join("onmain.conf"), "[evolv \"x\"]\n\tWorktree = fresh\n").unwrap();
    std::fs::write(r.join("here.conf"), "[Evolv]\n\tPlan = \"a ; b\" # c\n").unwrap();
    let local = format!(
        "[includeIf \"onbranch:main\"]\n\tpath = {}\n[includeIf \"gitdir/i:{}/\"]\n\tpath = ../here.conf\n\
         [core]\n\tbare\n[extensions]\n\tworktreeConfig = true\n",
        r.join("onmain.conf").display(),
        r.display().to_string().to_uppercase(),
    );
    std::fs::OpenOptions::new()
        .append(true)
        .open(r.join(".git/config"))
        .and_then(|mut f| std::io::Write::write_all(&mut f, local.as_bytes()))
        .unwrap();
    std::fs::write(r.join(".git/config.worktree"), "[evolv]\n\ttimeout = 3\n").unwrap();

    let config = loaded_as_git_lists_it(r, h);
    assert_eq!(config.string("evolv.timeout"), Some("3"));
    assert_eq!(config.get("evolv.timeout").unwrap().scope, Scope::Worktree);
    assert_eq!(config.string("evolv.plan"), Some("a ; b"));
    assert_eq!(config.all("evolv.validate"), ["xdg", "global"]);
}

#[test]
fn command_line_settings_come_last_and_win() {
    let (home, repo) = home_and_repo();
    git(repo.path(), home.path(), &["config", "evolv.timeout", "5"]);
    let mut e = env(home.path());
    e.command_line = vec![
        ("Evolv.Timeout".into(), Some("9".into())),
        ("evolv.validate".into(), None),
    ];
    let config = Config::load(Some(&repo.path().join(".git")), &e).unwrap();
    assert_eq!(config.timeout_secs().unwrap(), Some(9));
    assert_eq!(config.get("evolv.timeout").unwrap().scope, Scope::Command);
    assert_eq!(config.all("evolv.validate"), ["true"]);
}

#[test]
fn git_config_global_replaces_xdg_and_home_files() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join(".gitconfig"), "[a]\n\tb = home\n").unwrap();
    let other = home.path().join("other");
    std::fs::write(&other, "[a]\n\tb = other\n").unwrap();
    let mut e = env(home.path());
    e.config_global = Some(other);
    let config = Config::load(None, &e).unwrap();
    assert_eq!(config.all("a.b"), ["other"]);
}

#[test]
fn invalid_values_name_the_key_the_value_and_what_is_expected() {
    let e = Env {
        command_line: vec![
            ("evolv.timeout".into(), Some("soon".into())),
            ("evolv.worktree".into(), Some("tepid".into())),
            ("a.flag".into(), Some("maybe".into())),
        ],
        ..Env::default()
    };
    let config = Config::load(None, &e).unwrap();
    let err = config.timeout_secs().unwrap_err();
    assert_eq!(err.code(), "invalid_config");
    let text = err.to_string();
    assert!(
        text.contains("evolv.timeout") && text.contains("soon") && text.contains("positive"),
        "{text}"
    );
    let text = config.worktree_mode().unwrap_err().to_string();
    assert!(
        text.contains("tepid") && text.contains("warm or fresh"),
        "{text}"
    );
    assert!(
        config
            .bool("a.flag")
            .unwrap_err()
            .to_string()
            .contains("boolean")
    );
}

#[test]
fn a_bad_line_is_an_error_naming_the_file_and_line() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join(".gitconfig"), "[a]\n\tb = c\n\t= oops\n").unwrap();
    let err = Config::load(None, &env(home.path())).unwrap_err();
    assert_eq!(err.code(), "invalid_config");
    let text = err.to_string();
    assert!(
        text.contains("line 3") && text.contains(".gitconfig"),
        "{text}"
    );
}

#[test]
fn include_loops_stop_with_an_error_instead_of_recursing_forever() {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        home.path().join(".gitconfig"),
        "[include]\n\tpath = ~/.gitconfig\n",
    )
    .unwrap();
    let err = Config::load(None, &env(home.path())).unwrap_err();
    assert_eq!(err.code(), "invalid_config");
}

#[test]
fn hasconfig_remote_url_includes_follow_the_remotes() {
    let (home, repo) = home_and_repo();
    let (h, r) = (home.path(), repo.path());
    git(
        r,
        h,
        &["remote", "add", "origin", "https://example.com/team/x.git"],
    );
    std::fs::write(
        h.join(".gitconfig"),
        "[includeIf \"hasconfig:remote.*.url:https://example.com/team/**\"]\n\tpath = ~/team.conf\n",
    )
    .unwrap();
    std::fs::write(h.join("team.conf"), "[evolv]\n\tvalidate = make check\n").unwrap();
    let config = loaded_as_git_lists_it(r, h);
    assert_eq!(config.validate_commands(), ["make check"]);
}

#[test]
fn a_linked_worktree_reads_the_common_config() {
    let (home, repo) = home_and_repo();
    let (h, r) = (home.path(), repo.path());
    git(
        r,
        h,
        &[
            "-c",
            "user.name=a",
            "-c",
            "user.email=a@b",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "x",
        ],
    );
    git(r, h, &["config", "evolv.timeout", "4"]);
    let wt = r.join("wt");
    git(r, h, &["worktree", "add", "-q", wt.to_str().unwrap()]);
    let config = Config::load(Some(&r.join(".git/worktrees/wt")), &env(h)).unwrap();
    assert_eq!(config.timeout_secs().unwrap(), Some(4));
    assert_eq!(
        super::discover_git_dir(&wt).unwrap(),
        r.join(".git/worktrees/wt")
    );
}

#[test]
fn the_config_is_shareable_between_threads() {
    fn is<T: Send + Sync>() {}
    is::<Config>();
}

/// As git's `git_parse_signed` (`git -c checkout.workers=…` then reads the
/// same number git does, or refuses what git refuses).
#[test]
fn integers_are_read_as_git_reads_them() {
    use super::parse_int;
    for (text, want) in [
        ("4", Some(4)),
        ("-2", Some(-2)),
        ("+3", Some(3)),
        ("0", Some(0)),
        ("1k", Some(1024)),
        ("2M", Some(2 << 20)),
        ("1g", Some(1 << 30)),
        ("0x10", Some(16)),
        ("010", Some(8)),
        ("  7", Some(7)),
        ("", None),
        ("many", None),
        ("4 files", None),
        ("08", None),
        ("0x", None),
        ("1t", None),
        ("99999999999g", None),
    ] {
        assert_eq!(parse_int(text), want, "{text:?}");
    }
}

/// The config of the repository `r` (home `h`), loaded; its listing is
/// `git config --list`'s.
fn loaded_as_git_lists_it(r: &Path, h: &Path) -> Config {
    let expected: Vec<String> = git(r, h, &["config", "--list"])
        .lines()
        .map(str::to_string)
        .collect();
    let config = Config::load(Some(&r.join(".git")), &env(h)).unwrap();
    assert_eq!(listing(&config), expected);
    config
}
