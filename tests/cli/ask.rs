//! `git evolv ask`: a question answered through a pseudo-terminal, or,
//! without one, refused or answered by its default.

use std::time::Duration;

use expectrl::session::OsSession;
use expectrl::{Expect, Regex, Session};

use crate::common::{BIN, TestRepo, assert_human, error_code, sealed};
use crate::hooks::{exit_code, no_tty};

/// `git evolv ask args` on a terminal of its own.
fn ask_session(repo: &TestRepo, args: &[&str]) -> OsSession {
    let mut cmd = sealed(BIN, repo.home());
    cmd.arg("ask")
        .args(args)
        .env("TERM", "xterm")
        .current_dir(repo.path());
    let mut session = Session::spawn(cmd).unwrap();
    session.set_expect_timeout(Some(Duration::from_secs(20)));
    session
}

const DOWN: &str = "\x1b[B";

/// One `ask` in a terminal: its arguments, what it shows before the keys
/// go in, the keys, the JSON answer it prints (a regex) and its exit code.
struct Asked {
    args: &'static [&'static str],
    shown: &'static str,
    keys: &'static [&'static str],
    answer: &'static str,
    code: i32,
}

const ASKED: &[Asked] = &[
    // Select: down to the second option.
    Asked {
        args: &[
            "Deploy where?",
            "--option",
            "staging: the test cluster",
            "--option",
            "prod: customers",
        ],
        shown: "staging — the test cluster",
        keys: &[DOWN, "\r"],
        answer: r#""selected": \[\s*"prod"\s*\]"#,
        code: 0,
    },
    // Multi-select: the default kept, the first two ticked.
    Asked {
        args: &[
            "Run which?",
            "--option",
            "lint: fast",
            "--option",
            "unit: medium",
            "--option",
            "e2e: slow",
            "--multi",
            "--default",
            "e2e",
        ],
        shown: "e2e — slow",
        keys: &[" ", DOWN, " ", "\r"],
        answer: r#""selected": \[\s*"lint",\s*"unit",\s*"e2e"\s*\]"#,
        code: 0,
    },
    cancelled_by(&["\x1b"]),
    cancelled_by(&["\x03"]),
];

/// Escape or Ctrl-C: the question cancelled, exit 130.
const fn cancelled_by(keys: &'static [&'static str]) -> Asked {
    Asked {
        args: &["Sure?", "--option", "yes", "--option", "no"],
        shown: "Sure?",
        keys,
        answer: r#""cancelled": true"#,
        code: 130,
    }
}

#[test]
fn ask_through_a_terminal_selects_or_cancels() {
    let repo = TestRepo::empty();
    for case in ASKED {
        let mut s = ask_session(&repo, &[case.args, &["--json"]].concat());
        s.expect(case.shown).unwrap();
        for key in case.keys {
            s.send(key).unwrap();
        }
        s.expect(Regex(case.answer)).unwrap();
        assert_eq!(exit_code(&s), case.code, "{:?}", case.keys);
    }
}

#[test]
fn ask_without_a_terminal_fails_or_takes_the_default() {
    let repo = TestRepo::empty();
    let args = [
        "ask",
        "Sure?",
        "--option",
        "yes: do it",
        "--option",
        "no: stop",
    ];
    let run = no_tty(&repo, repo.path(), BIN, &args, &[]).named("git evolv ask Sure? …");
    assert_human!(repo, "ask_without_a_terminal", run.transcript());
    let mut json = args.to_vec();
    json.push("--json");
    assert_eq!(
        error_code(&no_tty(&repo, repo.path(), BIN, &json, &[])),
        "no_terminal"
    );

    json.extend(["--default", "no"]);
    let run = no_tty(&repo, repo.path(), BIN, &json, &[]);
    run.ok();
    assert_eq!(
        run.json(),
        serde_json::json!({"cancelled": false, "selected": ["no"]})
    );
    let mut plain = args.to_vec();
    plain.extend(["--default", "yes"]);
    let run = no_tty(&repo, repo.path(), BIN, &plain, &[]);
    assert_eq!((run.code, run.stdout.as_str()), (0, "yes\n"));

    let bad = no_tty(
        &repo,
        repo.path(),
        BIN,
        &[&args[..], &["--default", "maybe"]].concat(),
        &[],
    );
    assert_eq!(bad.code, 2);
    assert_human!(repo, "ask_unknown_default", bad.transcript());
}
