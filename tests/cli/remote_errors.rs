//! `push`, `fetch` and `status` given bad input, or a server that cannot
//! land: a clear error naming the argument and the fix (exit 2), or a
//! refusal (exit 1); never a false success.

use crate::common::{Error, TestRepo, assert_has, error_code, str_of};
use crate::remote_servers::git;

/// A clone of a bare repository (file://) with no server hooks, and one
/// pending proposal.
fn clone_without_hooks() -> Result<(tempfile::TempDir, TestRepo, String), Error> {
    let server = tempfile::tempdir()?;
    git(
        server.path(),
        &["init", "-q", "--bare", "-b", "main", "srv.git"],
    )?;
    let repo = TestRepo::with_files(&[("a.txt", "one\n")]);
    let url = format!("file://{}/srv.git", server.path().display());
    repo.try_git(&["remote", "add", "origin", &url])?;
    repo.try_git(&["push", "-q", "-u", "origin", "main"])?;
    let id = repo.propose("one", "two", &["--literal"]);
    Ok((server, repo, id))
}

#[test]
fn a_server_without_the_landing_hook_is_a_refusal_not_a_landing() -> TestResult {
    let (server, repo, id) = clone_without_hooks()?;
    let run = repo.evolv(&["push", "--json", &id]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let push = &run.try_json()?["pushes"][0];
    assert_eq!(str_of(&push["state"]), "refused");
    assert_has(str_of(&push["reason"]), "no landing hook");
    let bare = server.path().join("srv.git");
    // git stored the ref as it is; main did not move.
    assert_eq!(
        git(&bare, &["rev-parse", "refs/for/main"])?.trim(),
        repo.rev(&format!("refs/evolv/proposals/{id}"))
            .unwrap_or_default()
    );
    assert_eq!(git(&bare, &["rev-parse", "main"])?.trim(), repo.head());
    Ok(())
}

#[test]
fn an_unknown_remote_or_a_bad_branch_is_named_with_the_fix() -> TestResult {
    let (_server, repo, id) = clone_without_hooks()?;
    let run = repo.evolv(&["push", "--json", "--remote", "nowhere", &id]);
    assert_eq!((run.code, error_code(&run).as_str()), (2, "invalid_input"));
    assert_has(
        &run.stdout,
        "`nowhere` is not a configured remote (the configured ones are origin)",
    );
    assert_has(&run.stdout, "git remote add");
    let dash = repo.evolv(&["push", "--remote=--upload-pack=touch x", &id]);
    assert_eq!(dash.code, 2, "{}", dash.stderr);
    assert!(!repo.file("x").exists());
    for bad in ["a..b", "-f", "x y", "main.lock"] {
        let run = repo.evolv(&["push", "--json", &format!("--to={bad}"), &id]);
        assert_eq!(
            (run.code, error_code(&run).as_str()),
            (2, "invalid_input"),
            "{bad}"
        );
        assert_has(&run.stdout, "is not a branch name git accepts");
    }
    let missing = repo.evolv(&["push", "--json", "patch_1_nothere"]);
    assert_eq!(
        (missing.code, error_code(&missing).as_str()),
        (2, "patch_not_found")
    );
    Ok(())
}

#[test]
fn nothing_to_push_and_no_such_proposal_on_status_are_errors() -> TestResult {
    let (_server, repo, id) = clone_without_hooks()?;
    assert_eq!(repo.evolv(&["drop", &id]).code, 0);
    let run = repo.evolv(&["push", "--json"]);
    assert_eq!((run.code, error_code(&run).as_str()), (2, "invalid_input"));
    assert_has(&run.stdout, "there is no pending proposal to push");
    let status = repo.evolv(&["status", "--json", "patch_1_nothere"]);
    assert_eq!(
        (status.code, error_code(&status).as_str()),
        (2, "invalid_input")
    );
    assert_has(&status.stdout, "no proposal `patch_1_nothere`");
    Ok(())
}

#[test]
fn a_server_that_cannot_be_reached_is_gits_own_error_exit_2() -> TestResult {
    let (_server, repo, id) = clone_without_hooks()?;
    let port = std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port();
    repo.try_git(&[
        "remote",
        "set-url",
        "origin",
        &format!("git://127.0.0.1:{port}/srv.git"),
    ])?;
    let push = repo.evolv(&["push", "--json", &id]);
    assert_eq!(
        (push.code, error_code(&push).as_str()),
        (2, "git_error"),
        "{}",
        push.stdout
    );
    assert_has(
        &push.stdout,
        "`git push` to origin (refs/for/main) failed: fatal:",
    );
    let fetch = repo.evolv(&["fetch", "--json"]);
    assert_eq!((fetch.code, error_code(&fetch).as_str()), (2, "git_error"));
    assert_has(&fetch.stdout, "`git fetch` from origin failed");
    Ok(())
}

type TestResult = Result<(), Error>;
