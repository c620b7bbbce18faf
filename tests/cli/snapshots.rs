//! Snapshot tests of the human output (issue 10, item 7): the clock and
//! the id source are fixed (`GIT_EVOLV_TEST_TIME`, read by debug builds
//! only), each command a minute after the previous one, and what still
//! varies between runs (temporary paths, hashes, durations) is redacted.
//! Snapshots live in `tests/cli/snapshots/`; after an intended change of
//! output, review the diff with `INSTA_UPDATE=always cargo test --locked`
//! and `git diff`.

use std::cell::Cell;

use crate::common::{Run, TestRepo};

/// A repository whose commands run on the test clock.
struct Session {
    repo: TestRepo,
    minute: Cell<i64>,
}

impl Session {
    fn new(repo: TestRepo) -> Self {
        Session {
            repo,
            minute: Cell::new(0),
        }
    }

    /// Runs `git evolv args` a minute after the previous command.
    fn run(&self, args: &[&str]) -> Run {
        self.minute.set(self.minute.get() + 1);
        let time = (1_700_000_000 + 60 * self.minute.get()).to_string();
        self.repo
            .evolv_env(args, &[("GIT_EVOLV_TEST_TIME", time.as_str())])
    }

    /// The command, its stdout, stderr and exit code, as one text.
    fn transcript(&self, args: &[&str]) -> String {
        let run = self.run(args);
        format!(
            "$ git evolv {}\n{}------- stderr -------\n{}------- exit {} -------\n",
            args.join(" "),
            run.stdout,
            run.stderr,
            run.code
        )
    }

    fn propose(&self, args: &[&str]) -> String {
        let mut all = vec!["propose", "--json"];
        all.extend_from_slice(args);
        let run = self.run(&all);
        run.ok();
        run.json()["patch_id"].as_str().unwrap().to_string()
    }
}

/// Redacts the temporary directories, hashes and durations.
fn settings(repo: &TestRepo) -> insta::Settings {
    let mut s = insta::Settings::clone_current();
    s.set_snapshot_path("snapshots");
    s.set_prepend_module_to_snapshot(false);
    let path = regex_escape(&repo.path().display().to_string());
    let home = regex_escape(&repo.home().display().to_string());
    s.add_filter(&path, "[REPO]");
    s.add_filter(&home, "[HOME]");
    s.add_filter(r"\b[0-9a-f]{40}\b", "[HASH]");
    s.add_filter(r"\b[0-9a-f]{7,12}\b", "[SHORT]");
    s.add_filter(r"patch_(\d+)_[0-9a-f]{8,40}", "patch_${1}_[ID]");
    s.add_filter(r"\b\d+ ms\b", "[N] ms");
    s
}

fn regex_escape(s: &str) -> String {
    s.chars()
        .map(|c| {
            if "\\.+*?()|[]{}^$".contains(c) {
                format!("\\{c}")
            } else {
                c.to_string()
            }
        })
        .collect()
}

#[test]
fn propose_human() {
    let s = Session::new(TestRepo::scenario());
    let out = s.transcript(&[
        "propose",
        "--pattern",
        "getUserData",
        "--replacement",
        "fetchUserData",
        "--scope",
        "backend/**",
    ]);
    settings(&s.repo).bind(|| insta::assert_snapshot!("propose", out));
}

#[test]
fn show_list_and_log_human() {
    let s = Session::new(TestRepo::scenario());
    let a = s.propose(&["-p", "getUserData", "-r", "fetchUserData"]);
    s.propose(&[
        "-p",
        "user",
        "-r",
        "account",
        "-m",
        "Rename user to account",
    ]);
    s.run(&["apply", &a]).ok();
    let show = s.transcript(&["show", &a]);
    let list = s.transcript(&["list"]);
    let log = s.transcript(&["log"]);
    let log1 = s.transcript(&["log", "-n", "1"]);
    settings(&s.repo).bind(|| {
        insta::assert_snapshot!("show", show);
        insta::assert_snapshot!("list", list);
        insta::assert_snapshot!("log", format!("{log}{log1}"));
    });
}

#[test]
fn empty_list_and_log_human() {
    let s = Session::new(TestRepo::scenario());
    let out = format!("{}{}", s.transcript(&["list"]), s.transcript(&["log"]));
    settings(&s.repo).bind(|| insta::assert_snapshot!("empty", out));
}

#[test]
fn apply_and_rollback_human() {
    let s = Session::new(TestRepo::scenario());
    let a = s.propose(&[
        "-p",
        "getUserData",
        "-r",
        "fetchUserData",
        "-s",
        "frontend/**",
    ]);
    let dry = s.transcript(&["apply", &a, "--dry-run", "--validate", "true"]);
    let apply = s.transcript(&["apply", &a, "--validate", "true"]);
    let rollback = s.transcript(&["rollback", &a]);
    settings(&s.repo).bind(|| {
        insta::assert_snapshot!("apply", format!("{dry}{apply}"));
        insta::assert_snapshot!("rollback", rollback);
    });
}

#[test]
fn lint_human() {
    let s = Session::new(TestRepo::scenario());
    let out = format!(
        "{}{}{}",
        s.transcript(&["lint", "feat(api): add the user endpoint"]),
        s.transcript(&["lint", "feet: Add stuff."]),
        s.transcript(&["lint", "--format", "github", "fix:missing space"]),
    );
    settings(&s.repo).bind(|| insta::assert_snapshot!("lint", out));
}

#[test]
fn error_rendering_human() {
    let s = Session::new(TestRepo::scenario());
    let a = s.propose(&[
        "-p",
        "getUserData",
        "-r",
        "fetchUserData",
        "-s",
        "frontend/**",
    ]);
    s.repo.write("frontend/api.ts", "dirty\n");
    let out = [
        s.transcript(&["show", "patch_1_nope"]),
        s.transcript(&["propose", "-p", "nothing-matches-this", "-r", "x"]),
        s.transcript(&["propose", "-p", "(", "-r", "x"]),
        s.transcript(&["apply", &a]),
        s.transcript(&["rollback", &a]),
        s.transcript(&["rollback", &a, "--strategy", "bogus"]),
    ]
    .concat();
    s.repo.git(&["checkout", "--", "frontend/api.ts"]);
    let failed = s.transcript(&[
        "apply",
        &a,
        "--validate",
        "echo checking; echo broken >&2; exit 3",
    ]);
    settings(&s.repo).bind(|| {
        insta::assert_snapshot!("errors", out);
        insta::assert_snapshot!("validation_failed", failed);
    });
}
