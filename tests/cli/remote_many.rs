//! Many machines at once (issue 28 item 5): eight clones push ten
//! proposals each, concurrently, to `refs/for/main` on one server. Every
//! push is answered; every non-conflicting proposal lands exactly once, in
//! the order the server received it; the one that truly conflicts is
//! refused with its path; history is linear and `git fsck` clean.

use serde_json::Value;

use crate::common::{Error, TestRepo, assert_has, str_of};
use crate::remote_servers::Transport;
use crate::remote_site::Site;

const CLONES: usize = 8;
const EACH: usize = 10;

#[test]
fn eight_clones_pushing_ten_proposals_each_land_every_one_once_in_order() -> Result<(), Error> {
    many_machines(Transport::Daemon)
}

#[test]
#[ignore = "needs nginx and fcgiwrap (Debian packages): .ci/run installs them and runs it with --ignored"]
fn eight_clones_pushing_over_http_land_every_one_once_in_order() -> Result<(), Error> {
    many_machines(Transport::Http)
}

fn many_machines(transport: Transport) -> Result<(), Error> {
    let site = Site::start(transport, true)?;
    let clones: Vec<TestRepo> = (0..CLONES)
        .map(|_| site.clone_repo())
        .collect::<Result<_, _>>()?;
    let base = site.server_head().ok_or("main")?;
    // Each clone: ten new files of its own (never in conflict), and
    // clones 0 and 1 one more each, changing the same line of b.txt.
    let handles: Vec<_> = clones
        .into_iter()
        .enumerate()
        .map(|(i, repo)| {
            std::thread::spawn(move || one_machine(i, &repo).map_err(|e| e.to_string()))
        })
        .collect();
    let answers: Vec<Result<Vec<Value>, String>> = handles
        .into_iter()
        .map(|h| h.join().expect("a clone's thread"))
        .collect();
    let mut landed = 0;
    let mut refused = Vec::new();
    for answer in answers {
        for push in answer? {
            match str_of(&push["state"]) {
                "landed" => landed += 1,
                "refused" => refused.push(push),
                other => return Err(format!("an unexpected answer {other}: {push}").into()),
            }
        }
    }
    // One of the two b.txt changes lands; the other is refused, naming b.txt.
    assert_eq!(landed, CLONES * EACH + 1);
    assert_eq!(refused.len(), 1, "{refused:?}");
    assert_has(str_of(&refused[0]["reason"]), "b.txt");
    assert_each_landed_once_in_arrival_order(&site, &base)?;
    site.assert_sound();
    Ok(())
}

/// One machine: its proposals made first, then pushed one `git evolv
/// push` each, as an agent would after each change; every answer.
fn one_machine(i: usize, repo: &TestRepo) -> Result<Vec<Value>, Error> {
    let mut ids = Vec::new();
    for k in 0..EACH {
        repo.try_write(
            &format!("c{i}/p{k}.txt"),
            &format!("clone {i} change {k}\n"),
        )?;
        ids.push(propose_worktree(
            repo,
            &format!("feat: clone {i} change {k}"),
        )?);
    }
    if i < 2 {
        repo.try_write("b.txt", &format!("alpha from clone {i}\n"))?;
        ids.push(propose_worktree(repo, &format!("fix: b from clone {i}"))?);
    }
    let mut answers = Vec::new();
    for id in &ids {
        let run = repo.evolv(&["push", "--json", id]);
        let out = run.try_json()?;
        let push = out["pushes"][0].clone();
        let expected = if str_of(&push["state"]) == "refused" {
            1
        } else {
            0
        };
        if run.code != expected {
            return Err(
                format!("push {id}: exit {}: {}{}", run.code, run.stdout, run.stderr).into(),
            );
        }
        answers.push(push);
    }
    Ok(answers)
}

fn propose_worktree(repo: &TestRepo, message: &str) -> Result<String, Error> {
    let run = repo.evolv(&[
        "propose",
        "--json",
        "--from-worktree",
        "--include-untracked",
        "-m",
        message,
    ]);
    if run.code != 0 {
        return Err(format!("propose: {}{}", run.stdout, run.stderr).into());
    }
    Ok(str_of(&run.try_json()?["patch_id"]).to_string())
}

/// Every landed outcome record's commit is on main, and main's commits
/// after `base` are exactly those, each proposal once, in the order the
/// server stamped the records' arrival (`received_ns`): the global order,
/// across clones, not only each clone's own.
fn assert_each_landed_once_in_arrival_order(site: &Site, base: &str) -> Result<(), Error> {
    let listing = site.server_git(&[
        "for-each-ref",
        "--format=%(objectname)",
        "refs/evolv/outcomes/",
    ])?;
    let mut landed = Vec::new();
    for blob in listing.lines() {
        let record: Value = serde_json::from_str(&site.server_git(&["cat-file", "blob", blob])?)?;
        if record["state"] == "landed" {
            let stamp = record["received_ns"].as_u64().ok_or("received_ns")?;
            landed.push((stamp, str_of(&record["new"]).to_string()));
        }
    }
    landed.sort();
    let landed: Vec<String> = landed.into_iter().map(|(_, new)| new).collect();
    let range = format!("{base}..main");
    let history = site.server_git(&["rev-list", "--reverse", "--first-parent", &range])?;
    let history: Vec<String> = history.lines().map(str::to_string).collect();
    let subjects = site.server_git(&["log", "--reverse", "--format=%s", &range])?;
    let subjects: Vec<&str> = subjects.lines().collect();
    for i in 0..CLONES {
        let mut last = None;
        for k in 0..EACH {
            let subject = format!("feat: clone {i} change {k}");
            let at: Vec<usize> = (0..subjects.len())
                .filter(|&n| subjects[n] == subject)
                .collect();
            assert_eq!(at.len(), 1, "{subject} landed {} times", at.len());
            assert!(
                last < Some(at[0]),
                "clone {i}'s change {k} landed before its change {}",
                k - 1
            );
            last = Some(at[0]);
        }
    }
    assert_eq!(
        history, landed,
        "main's commits are not the landed proposals in arrival order"
    );
    Ok(())
}
