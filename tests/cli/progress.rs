//! Progress on stderr (issue 15, item 4): drawn on a terminal during a
//! slow validation (elapsed time and the command's last line), never on a
//! pipe, under --quiet or --json, and nothing for quick work.

use crate::common::TestRepo;
use crate::pager::in_pty;

const SLOW: &str = "echo first-step; sleep 1; echo second-step; sleep 1";

#[test]
fn a_slow_validation_shows_a_progress_line_on_a_terminal() {
    let (repo, id) = TestRepo::scenario_proposed(&["-s", "frontend/**"]);
    let (screen, code) = in_pty(&repo, &["apply", &id, "--validate", SLOW], &[]);
    assert_eq!(code, 0, "{screen}");
    assert!(screen.contains(&format!("Running `{SLOW}`")), "{screen}");
    assert!(
        screen.contains("first-step"),
        "the last output line: {screen}"
    );
    assert!(screen.contains("Applied "), "{screen}");
}

#[test]
fn no_progress_on_a_pipe_or_under_quiet_or_json() {
    let repo = TestRepo::scenario();
    let a = repo.propose("getUserData", "fetchUserData", &["-s", "frontend/**"]);
    let run = repo.evolv(&["apply", &a, "--validate", SLOW]);
    run.ok();
    assert!(!run.stderr.contains("Running"), "a pipe: {}", run.stderr);
    repo.evolv(&["rollback", &a]).ok();
    let b = repo.propose("getUserData", "fetchUserData", &["-s", "backend/**"]);
    let (screen, code) = in_pty(&repo, &["apply", "-q", &b, "--validate", SLOW], &[]);
    assert_eq!(code, 0, "{screen}");
    assert!(!screen.contains("Running"), "--quiet: {screen}");
    let c = repo.propose("user", "account", &["-s", "backend/**"]);
    let (screen, code) = in_pty(&repo, &["apply", "--json", &c, "--validate", SLOW], &[]);
    assert_eq!(code, 0, "{screen}");
    assert!(!screen.contains("Running"), "--json: {screen}");
}

#[test]
fn quick_work_draws_nothing() {
    let (repo, id) = TestRepo::scenario_proposed(&["-s", "frontend/**"]);
    let (screen, code) = in_pty(&repo, &["apply", &id, "--validate", "true"], &[]);
    assert_eq!(code, 0, "{screen}");
    assert!(!screen.contains("Running"), "{screen}");
    let (screen, _) = in_pty(
        &repo,
        &["propose", "-p", "package", "-r", "pkg"],
        &[("GIT_PAGER", "cat")],
    );
    assert!(!screen.contains("Scanning"), "{screen}");
}
