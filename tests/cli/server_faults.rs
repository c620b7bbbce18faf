//! Issue 28 item 6: the server's hook killed (SIGKILL) in the middle of a
//! landing, a drainer killed, a validation that hangs. The pusher gets an
//! error, never a false `ok`; the next push or `git evolv recover` in the
//! bare repository finishes the queue, landing nothing twice.

use crate::common::assert_has;
use crate::server_fixture::{Server, git_has_proc_receive};

fn server() -> Option<Server> {
    git_has_proc_receive().then(|| Server::new(&[("a.txt", "one\n")]))
}

#[test]
fn a_hook_killed_after_the_branch_moved_is_marked_landed_by_recover() {
    let Some(s) = server() else { return };
    let c = s.clone("c1");
    let pushed = s.commit(&c, "c.txt", "new\n", "feat: c");
    let kill = [("GIT_EVOLV_CRASHPOINT", "receive-after-swap")];
    let run = s.push(&c, "origin", &["HEAD:refs/for/main"], &kill);
    assert_ne!(run.code, 0, "a killed hook is no ok: {}", run.stderr);
    assert_eq!(s.ref_target("main").unwrap(), pushed);
    assert_eq!(s.only_outcome()["state"], "queued");
    let rec = s.evolv(&["recover"], &[]);
    assert_eq!(rec.code, 0, "{}{}", rec.stdout, rec.stderr);
    let o = s.only_outcome();
    assert_eq!(o["state"], "landed", "{o}");
    assert_eq!(o["new"], pushed.as_str());
    let id = o["id"].as_str().unwrap();
    assert_eq!(
        s.ref_target(&format!("refs/evolv/applied/{id}")).unwrap(),
        pushed
    );
    assert_eq!(s.git(&["rev-list", "--count", "main"]).trim(), "2");
    s.assert_fsck();
}

#[test]
fn a_hook_killed_before_the_branch_moved_is_landed_first_by_the_next_push() {
    let Some(s) = server() else { return };
    let (c1, c2) = (s.clone("c1"), s.clone("c2"));
    let main = s.ref_target("main").unwrap();
    s.commit(&c1, "one.txt", "1\n", "feat: one");
    let kill = [("GIT_EVOLV_CRASHPOINT", "receive-before-swap")];
    let run = s.push(&c1, "origin", &["HEAD:refs/for/main"], &kill);
    assert_ne!(run.code, 0, "{}", run.stderr);
    assert_eq!(s.ref_target("main").unwrap(), main);
    s.commit(&c2, "two.txt", "2\n", "feat: two");
    let next = s.push(&c2, "origin", &["HEAD:refs/for/main"], &[]);
    assert_eq!(next.code, 0, "{}", next.stderr);
    // In arrival order: the killed push's proposal first.
    let log = s.git(&["log", "--format=%s", "main"]);
    assert!(log.starts_with("feat: two\nfeat: one\n"), "{log}");
    assert!(s.outcomes().iter().all(|o| o["state"] == "landed"));
    s.assert_fsck();
}

#[test]
fn a_killed_drainer_leaves_the_queue_to_recover() {
    let Some(s) = server() else { return };
    let c = s.clone("c1");
    let main = s.ref_target("main").unwrap();
    let pushed = s.commit(&c, "c.txt", "new\n", "feat: c");
    // The drainer inherits the hook's environment: it dies before the swap.
    let kill = [("GIT_EVOLV_CRASHPOINT", "receive-before-swap")];
    let run = s.push(
        &c,
        "origin",
        &["-o", "evolv.wait=false", "HEAD:refs/for/main"],
        &kill,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert_eq!(s.ref_target("main").unwrap(), main);
    assert_eq!(s.only_outcome()["state"], "queued");
    let rec = s.evolv(&["recover"], &[]);
    assert_eq!(rec.code, 0, "{}{}", rec.stdout, rec.stderr);
    assert_eq!(s.only_outcome()["state"], "landed");
    assert_eq!(s.ref_target("main").unwrap(), pushed);
    s.assert_fsck();
}

#[test]
fn a_validation_that_hangs_is_stopped_at_evolv_timeout() {
    let Some(s) = server() else { return };
    s.git(&["config", "evolv.validate", "sleep 60"]);
    s.git(&["config", "evolv.timeout", "2"]);
    let c = s.clone("c1");
    let main = s.ref_target("main").unwrap();
    s.commit(&c, "c.txt", "new\n", "feat: c");
    let run = s.push(&c, "origin", &["HEAD:refs/for/main"], &[]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_has(&run.stderr, "[remote rejected]");
    assert_eq!(s.only_outcome()["reason"]["code"], "timeout");
    assert_eq!(s.ref_target("main").unwrap(), main);
}

/// A push reads the queue's index, not every record: an index entry a
/// kill left behind a decided record (here, one that still reads queued)
/// is dropped by the next drain, never landed or refused again.
#[test]
fn a_queue_entry_left_behind_a_decided_record_is_dropped_not_landed_again() {
    let Some(s) = server() else { return };
    let c = s.clone("c1");
    let pushed = s.commit(&c, "c.txt", "new\n", "feat: c");
    let run = s.push(&c, "origin", &["HEAD:refs/for/main"], &[]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let landed = s.only_outcome();
    let id = landed["id"].as_str().unwrap();
    assert!(s.refs("refs/evolv/queue/").is_empty());
    assert_eq!(
        s.ref_target(&format!("refs/evolv/landed/{pushed}/main")),
        s.ref_target(&format!("refs/evolv/outcomes/{id}"))
    );
    // The record as it read when queued, under the queue's index.
    let mut queued = landed.clone();
    queued["state"] = "queued".into();
    for k in ["old", "new", "decided_at"] {
        queued.as_object_mut().unwrap().remove(k);
    }
    let file = s.home().join("queued.json");
    std::fs::write(&file, queued.to_string()).unwrap();
    let blob = s.git(&["hash-object", "-w", file.to_str().unwrap()]);
    s.git(&["update-ref", &format!("refs/evolv/queue/{id}"), blob.trim()]);
    let rec = s.evolv(&["recover"], &[]);
    assert_eq!(rec.code, 0, "{}{}", rec.stdout, rec.stderr);
    assert_eq!(s.only_outcome(), landed);
    assert!(s.refs("refs/evolv/queue/").is_empty());
    assert_eq!(s.git(&["rev-list", "--count", "main"]).trim(), "2");
    s.assert_fsck();
}

/// A queued record with no queue entry (written before the index) is
/// indexed and landed by `git evolv recover`.
#[test]
fn recover_indexes_a_queued_record_the_queue_lacks_and_lands_it() {
    let Some(s) = server() else { return };
    let c = s.clone("c1");
    let pushed = s.commit(&c, "c.txt", "new\n", "feat: c");
    let kill = [("GIT_EVOLV_CRASHPOINT", "receive-before-swap")];
    let run = s.push(&c, "origin", &["HEAD:refs/for/main"], &kill);
    assert_ne!(run.code, 0, "{}", run.stderr);
    let id = s.only_outcome()["id"].as_str().unwrap().to_string();
    s.git(&["update-ref", "-d", &format!("refs/evolv/queue/{id}")]);
    let rec = s.evolv(&["recover"], &[]);
    assert_eq!(rec.code, 0, "{}{}", rec.stdout, rec.stderr);
    assert_eq!(s.only_outcome()["state"], "landed");
    assert_eq!(s.ref_target("main").unwrap(), pushed);
    assert!(s.refs("refs/evolv/queue/").is_empty());
    assert!(
        s.ref_target(&format!("refs/evolv/landed/{pushed}/main"))
            .is_some()
    );
    s.assert_fsck();
}
