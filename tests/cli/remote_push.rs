//! Issue 28 end to end: `git evolv push`, plain `git push … refs/for/main`,
//! `git evolv fetch` and `status --remote`, against a bare repository with
//! git-evolv's server hooks, served by a real git daemon, nginx + git
//! http-backend, and sshd. One suite body, run over each transport.

use std::time::{Duration, Instant};

use crate::common::{Error, TestRepo, assert_has, str_of};
use crate::remote_servers::Transport;
use crate::remote_site::Site;

#[test]
fn the_landing_queue_works_over_the_git_daemon() -> Result<(), Error> {
    suite(Transport::Daemon)
}

#[test]
#[ignore = "needs nginx and fcgiwrap (Debian packages): .ci/run installs them and runs it with --ignored"]
fn the_landing_queue_works_over_http() -> Result<(), Error> {
    suite(Transport::Http)
}

#[test]
#[ignore = "needs sshd (Debian's openssh-server): .ci/run installs it and runs it with --ignored"]
fn the_landing_queue_works_over_ssh() -> Result<(), Error> {
    suite(Transport::Ssh)
}

fn suite(transport: Transport) -> Result<(), Error> {
    let mut site = Site::start(transport, true)?;
    let one = site.clone_repo()?;
    let id = propose(&one, "two", "2", "a.txt")?;
    let landed = pushes_and_lands(&site, &one, &id)?;
    fetch_and_status(&one, &id, &landed)?;
    site.server.restart()?;
    plain_git_push_lands(&site, &one)?;
    conflict_is_refused_with_its_paths(&site)?;
    queued_push_lands_later(&site, &one)?;
    site.assert_sound();
    Ok(())
}

/// `git evolv push` lands the proposal: the branch moved from the old id
/// to the new one, both named in the verdict; exit 0.
fn pushes_and_lands(site: &Site, one: &TestRepo, id: &str) -> Result<String, Error> {
    let before = site.server_head().ok_or("the server has main")?;
    let run = one.evolv(&["push", "--json", id]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let out = run.try_json()?;
    let push = &out["pushes"][0];
    assert_eq!(str_of(&push["state"]), "landed", "{out}");
    assert_eq!(str_of(&push["old"]), before);
    let after = site.server_head().ok_or("the server has main")?;
    assert_eq!(str_of(&push["new"]), after);
    assert_eq!(site.server_git(&["show", "main:a.txt"])?, "one\n2\nthree\n");
    assert_eq!(site.server_git(&["rev-parse", "main^"])?.trim(), before);
    // Text: one line naming the branch and the landed commit.
    let id2 = propose(one, "alpha", "ALPHA", "b.txt")?;
    let text = one.evolv(&["push", &id2]);
    assert_eq!(text.code, 0, "{}{}", text.stdout, text.stderr);
    assert_has(&text.stdout, &format!("{id2}: landed on origin/main as "));
    Ok(after)
}

/// `git evolv fetch` brings the server's refs/evolv/* under
/// refs/evolv/remotes/origin/ without touching remote.origin.fetch;
/// `status --remote` reads the landing from there.
fn fetch_and_status(one: &TestRepo, id: &str, landed: &str) -> Result<(), Error> {
    let fetch_config_before = one.try_git(&["config", "--get-all", "remote.origin.fetch"])?;
    let run = one.evolv(&["fetch", "--json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    // The server keeps the pushed commit as its own proposal.
    let pushed = one
        .rev(&format!("refs/evolv/proposals/{id}"))
        .ok_or("proposal")?;
    let remote_proposals = one.try_git(&[
        "for-each-ref",
        "--format=%(objectname)",
        "refs/evolv/remotes/origin/proposals/",
    ])?;
    assert!(
        remote_proposals.lines().any(|l| l == pushed),
        "{remote_proposals}"
    );
    assert_eq!(
        one.try_git(&["config", "--get-all", "remote.origin.fetch"])?,
        fetch_config_before
    );
    let status = one.evolv(&["status", "--json", "--remote", "origin", id]);
    assert_eq!(status.code, 0, "{}", status.stderr);
    let out = status.try_json()?;
    assert_eq!(str_of(&out["remotes"][0]["state"]), "landed", "{out}");
    assert_eq!(str_of(&out["remotes"][0]["new"]), landed);
    assert_eq!(str_of(&out["local"]["state"]), "pending");
    // Plain status reads what was fetched (no fetch of its own).
    let plain = one.evolv(&["status", id]);
    assert_eq!(plain.code, 0, "{}", plain.stderr);
    assert_has(&plain.stdout, &format!("{id}: landed on origin"));
    Ok(())
}

/// An ordinary `git push origin HEAD:refs/for/main` of a commit lands it.
fn plain_git_push_lands(site: &Site, one: &TestRepo) -> Result<(), Error> {
    sync(one)?;
    one.try_write("c.txt", "new file\n")?;
    let commit = one.try_commit_all("feat: add c")?;
    let run = one.git_run(&["push", "origin", "HEAD:refs/for/main"]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert_has(&run.stderr, "HEAD -> main");
    // Landed as the commit's tree on top of the branch it was made on.
    let tree = |rev: &str| site.server_git(&["rev-parse", &format!("{rev}^{{tree}}")]);
    assert_eq!(tree("main")?, one.try_git(&["rev-parse", "HEAD^{tree}"])?);
    assert_eq!(
        site.server_git(&["rev-parse", "main^"])?,
        one.try_git(&["rev-parse", &format!("{commit}^")])?
    );
    Ok(())
}

/// A clone that is behind proposes a change to the line that landed:
/// refused with the path; the server's main does not move; exit 1.
fn conflict_is_refused_with_its_paths(site: &Site) -> Result<(), Error> {
    let stale = site.clone_repo()?;
    stale.try_git(&["reset", "-q", "--hard", "HEAD~3"])?;
    let id = propose(&stale, "two", "TWO", "a.txt")?;
    let before = site.server_head();
    let run = stale.evolv(&["push", "--json", &id]);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let out = run.try_json()?;
    let push = &out["pushes"][0];
    assert_eq!(str_of(&push["state"]), "refused", "{out}");
    assert_has(str_of(&push["reason"]), "a.txt");
    assert_eq!(site.server_head(), before);
    let text = stale.evolv(&["push", &id]);
    assert_eq!(text.code, 1);
    assert_has(&text.stdout, &format!("{id}: refused by origin: "));
    Ok(())
}

/// `push --no-wait` answers at once with the server's id; the queue lands
/// it afterwards, and `status --remote` says so.
fn queued_push_lands_later(site: &Site, one: &TestRepo) -> Result<(), Error> {
    sync(one)?;
    let id = propose(one, "three", "3", "a.txt")?;
    let run = one.evolv(&["push", "--json", "--no-wait", &id]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let out = run.try_json()?;
    let push = &out["pushes"][0];
    assert_eq!(str_of(&push["state"]), "queued", "{out}");
    let server_id = str_of(&push["server_id"]).to_string();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let status = one.evolv(&["status", "--json", "--remote", "origin", &server_id]);
        let state = status.try_json()?["remotes"][0]["state"].clone();
        if state == "landed" {
            break;
        }
        assert!(Instant::now() < deadline, "never landed: {}", status.stdout);
        std::thread::sleep(Duration::from_millis(200));
    }
    assert_eq!(site.server_git(&["show", "main:a.txt"])?, "one\n2\n3\n");
    Ok(())
}

/// `repo` at the server's main (the server may have re-committed what a
/// plain push sent, so a pull would diverge).
fn sync(repo: &TestRepo) -> Result<(), Error> {
    repo.try_git(&["fetch", "-q", "origin"])?;
    repo.try_git(&["reset", "-q", "--hard", "origin/main"])?;
    Ok(())
}

/// A proposal in `repo`; its id.
fn propose(
    repo: &TestRepo,
    pattern: &str,
    replacement: &str,
    scope: &str,
) -> Result<String, Error> {
    let run = repo.evolv(&[
        "propose",
        "--json",
        "--literal",
        "-p",
        pattern,
        "-r",
        replacement,
        "-s",
        scope,
    ]);
    if run.code != 0 {
        return Err(format!("propose: {}{}", run.stdout, run.stderr).into());
    }
    Ok(str_of(&run.try_json()?["patch_id"]).to_string())
}

/// A stack (a proposal made `--onto` another) goes as one push of its top
/// commit, and lands bottom first: two commits on the server's main.
#[test]
fn a_stack_is_pushed_as_its_top_and_lands_bottom_first() -> Result<(), Error> {
    let site = Site::start(Transport::Daemon, true)?;
    let one = site.clone_repo()?;
    let before = site.server_head().ok_or("main")?;
    let lower = propose(&one, "two", "2", "a.txt")?;
    let run = one.evolv(&[
        "propose", "--json", "--file", "a.txt", "--old", "three", "--new", "3", "--onto", &lower,
    ]);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let upper = str_of(&run.try_json()?["patch_id"]).to_string();
    let push = one.evolv(&["push", "--json", &lower, &upper]);
    assert_eq!(push.code, 0, "{}{}", push.stdout, push.stderr);
    let out = push.try_json()?;
    assert_eq!(out["pushes"].as_array().map(Vec::len), Some(1), "{out}");
    assert_eq!(
        out["pushes"][0]["patch_ids"],
        serde_json::json!([lower, upper])
    );
    assert_eq!(str_of(&out["pushes"][0]["state"]), "landed");
    assert_eq!(site.server_git(&["rev-parse", "main~2"])?.trim(), before);
    assert_eq!(
        site.server_git(&["show", "main~1:a.txt"])?,
        "one\n2\nthree\n"
    );
    assert_eq!(site.server_git(&["show", "main:a.txt"])?, "one\n2\n3\n");
    site.assert_sound();
    Ok(())
}
