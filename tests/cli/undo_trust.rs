//! Issue 38 item 2: the op log travels with `refs/evolv/*`, so undo and
//! redo act only on records marked by this clone. A collaborator's forged
//! records (fetched into the victim) are listed apart and refused, naming
//! why; a branch moves back only to a state its reflog shows it held.

use std::path::PathBuf;

use serde_json::{Value, json};

use crate::common::{TestRepo, error_code};
use crate::mcp_client::Mcp;

/// A collaborator's repository: an orphan commit E ("evil") that was never
/// on the victim's `main`, kept under a `refs/evolv/` ref so that it
/// travels with the forged log. Returns its folder and E.
fn collaborator(victim: &TestRepo) -> (String, String) {
    let dir: PathBuf = victim.home().join("collaborator");
    let dir = dir.to_str().unwrap().to_string();
    victim.git(&["init", "-q", "-b", "main", &dir]);
    std::fs::write(format!("{dir}/evil.txt"), "owned\n").unwrap();
    victim.git(&["-C", &dir, "add", "evil.txt"]);
    victim.git(&[
        "-C",
        &dir,
        "-c",
        "user.name=Mallory",
        "-c",
        "user.email=m@example.com",
        "commit",
        "-qm",
        "evil",
    ]);
    let e = victim
        .git(&["-C", &dir, "rev-parse", "HEAD"])
        .trim()
        .to_string();
    victim.git(&[
        "-C",
        &dir,
        "update-ref",
        "refs/evolv/proposals/patch_evil",
        &e,
    ]);
    (dir, e)
}

/// The bare repository both share, `origin` of the victim.
fn shared(victim: &TestRepo) -> String {
    let shared = victim.home().join("shared.git");
    let shared = shared.to_str().unwrap().to_string();
    victim.git(&["init", "-q", "--bare", &shared]);
    victim.git(&["remote", "add", "origin", &shared]);
    shared
}

/// Appends `message` to `dir`'s `refs/evolv/audit` as git-evolv appends a
/// record (a commit on the empty tree); returns its id.
fn append(victim: &TestRepo, dir: &str, message: &str) -> String {
    let tree = victim.git(&["hash-object", "-t", "tree", "/dev/null"]);
    let tip = victim
        .try_git(&["-C", dir, "rev-parse", "-q", "--verify", "refs/evolv/audit"])
        .ok()
        .map(|t| t.trim().to_string());
    let mut args = vec![
        "-C",
        dir,
        "-c",
        "user.name=Mallory",
        "-c",
        "user.email=m@example.com",
        "commit-tree",
        tree.trim(),
        "-m",
        message,
    ];
    if let Some(tip) = &tip {
        args.extend(["-p", tip.as_str()]);
    }
    let id = victim.git(&args).trim().to_string();
    victim.git(&["-C", dir, "update-ref", "refs/evolv/audit", &id]);
    id
}

fn record(action: &str, refs: Value) -> String {
    json!({"action": action, "patch_id": "patch_1_feed", "success": true,
           "timestamp": 1_800_000_000, "actor": "cli", "refs": refs})
    .to_string()
}

/// Pushes the collaborator's `refs/evolv/*` and fetches them into the
/// victim, as the docs describe sharing them.
fn share(victim: &TestRepo, dir: &str, shared: &str) {
    victim.git(&[
        "-C",
        dir,
        "push",
        "-q",
        "-f",
        shared,
        "refs/evolv/*:refs/evolv/*",
    ]);
    victim.git(&["fetch", "-q", "origin", "+refs/evolv/*:refs/evolv/*"]);
}

/// Everything an undo of a forged record could change: every ref, HEAD,
/// the work tree.
fn state(repo: &TestRepo) -> (String, String, String) {
    let refs = repo
        .git(&["for-each-ref", "--format=%(refname) %(objectname)"])
        .lines()
        .filter(|l| !l.starts_with("refs/evolv/audit ") && !l.starts_with("refs/evolv/kept/"))
        .collect::<Vec<_>>()
        .join("\n");
    (refs, repo.head(), repo.status())
}

const VERDICT: &str = "refs/evolv/remotes/origin/verdicts/0123456789abcdef";

/// The victim, with a collaborator's forged `drop` (it "deleted" a trusted
/// remote's verdict) and forged `apply` (its "before" is E) fetched in
/// after a harmless first record. Returns the victim, E, and the ids of
/// the first record, the drop and the apply.
fn forged() -> (TestRepo, String, [String; 3]) {
    let victim = TestRepo::scenario();
    let shared = shared(&victim);
    let (dir, e) = collaborator(&victim);
    let h = victim.head();
    let first = append(&victim, &dir, &record("comment", json!([])));
    let drop = append(
        &victim,
        &dir,
        &record("drop", json!([{"ref": VERDICT, "old": e, "new": null}])),
    );
    let apply = append(
        &victim,
        &dir,
        &record(
            "apply",
            json!([{"ref": "refs/heads/main", "old": e, "new": h}]),
        ),
    );
    share(&victim, &dir, &shared);
    (victim, e, [first, drop, apply])
}

/// Nothing the forged records name happened: main, the work tree, no ref.
fn assert_untouched(victim: &TestRepo, before: &(String, String, String)) {
    assert_eq!(&state(victim), before);
    assert!(!victim.path().join("evil.txt").exists());
    assert!(victim.rev(VERDICT).is_none(), "no verdict ref was created");
    victim.assert_fsck();
}

#[test]
fn plain_undo_never_acts_on_a_forged_apply_or_drop_and_says_why() {
    let (victim, _e, [_, drop, apply]) = forged();
    let before = state(&victim);
    let run = victim.evolv(&["undo", "--json"]);
    assert_eq!(
        (run.code, error_code(&run).as_str()),
        (1, "nothing_to_undo")
    );
    assert!(
        run.error_message().contains("not marked by this clone"),
        "{}",
        run.stdout
    );
    assert!(run.error_message().contains(&apply[..12]), "{}", run.stdout);
    assert_untouched(&victim, &before);
    // Each named one is refused too, naming why.
    for op in [&apply, &drop] {
        let run = victim.evolv(&["undo", op, "--json"]);
        assert_eq!((run.code, error_code(&run).as_str()), (1, "not_undoable"));
        assert!(
            run.error_message().contains("not marked by this clone"),
            "{}",
            run.stdout
        );
        assert!(
            run.error_hint().contains("git reset --keep"),
            "{}",
            run.stdout
        );
    }
    assert_untouched(&victim, &before);
}

#[test]
fn undo_to_and_dry_run_refuse_forged_records_and_change_nothing() {
    let (victim, _e, [first, _, _]) = forged();
    let before = state(&victim);
    for args in [
        &["undo", "--to", &first, "--json"][..],
        &["undo", "--to", &first, "--dry-run", "--json"],
    ] {
        let run = victim.evolv(args);
        assert_eq!(
            (run.code, error_code(&run).as_str()),
            (1, "nothing_to_undo"),
            "{args:?}: {}",
            run.stdout
        );
        assert!(
            run.error_message().contains("not marked by this clone"),
            "{}",
            run.stdout
        );
    }
    assert_untouched(&victim, &before);
}

#[test]
fn redo_never_acts_on_a_forged_undo() {
    let victim = TestRepo::scenario();
    let shared = shared(&victim);
    let (dir, e) = collaborator(&victim);
    let h = victim.head();
    // An "undo" that moved main from E to H: its redo would move it to E.
    append(
        &victim,
        &dir,
        &record(
            "undo",
            json!([{"ref": "refs/heads/main", "old": e, "new": h}]),
        ),
    );
    share(&victim, &dir, &shared);
    let before = state(&victim);
    let run = victim.evolv(&["redo", "--json"]);
    assert_eq!(
        (run.code, error_code(&run).as_str()),
        (1, "nothing_to_undo")
    );
    assert!(
        run.error_message().contains("not marked by this clone"),
        "{}",
        run.stdout
    );
    assert_untouched(&victim, &before);
}

#[test]
fn the_mcp_undo_tool_refuses_a_forged_record() {
    let (victim, _e, [_, drop, apply]) = forged();
    let before = state(&victim);
    let mut mcp = Mcp::start(&victim);
    for op in [&apply, &drop] {
        let err = mcp.call_err("undo", json!({"op": op}));
        assert_eq!(err["code"], "not_undoable", "{err}");
        assert!(
            err.to_string().contains("not marked by this clone"),
            "{err}"
        );
    }
    mcp.finish();
    assert_untouched(&victim, &before);
}

#[test]
fn op_log_lists_forged_records_apart_naming_why() {
    let (victim, _e, [first, drop, apply]) = forged();
    victim.propose("getUserData", "fetchUserData", &[]);
    let log = victim.evolv(&["op", "log", "--json"]).ok().json();
    let ids = |list: &Value| -> Vec<String> {
        list.as_array()
            .unwrap()
            .iter()
            .map(|o| o["id"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(ids(&log["operations"]).len(), 1, "{log}");
    assert_eq!(ids(&log["foreign"]), [apply, drop, first.clone()], "{log}");
    let why = log["foreign"][0]["foreign"].as_str().unwrap();
    assert!(why.contains("not marked by this clone"), "{why}");
    let text = victim.evolv(&["op", "log"]).ok().stdout.clone();
    assert!(text.contains("not marked by this clone"), "{text}");
    let show = victim.evolv(&["op", "show", &first, "--json"]).ok().json();
    assert!(show["foreign"].as_str().is_some(), "{show}");
    let audit = victim.evolv(&["log"]).ok().stdout.clone();
    let marked: Vec<&str> = audit
        .lines()
        .filter(|l| l.contains("[not marked by this clone]"))
        .collect();
    assert_eq!(marked.len(), 3, "{audit}");
    let json = victim.evolv(&["log", "--json"]).ok().json();
    assert!(json.to_string().contains("\"foreign\":true"), "{json}");
}

/// A record copied from the victim's own (marked) log, its "before"
/// changed, or copied whole onto another place of the chain, fails the
/// mark check: the mark covers the record's bytes and its place.
#[test]
fn a_copied_marked_record_with_another_before_or_place_is_refused() {
    let (victim, id) = TestRepo::scenario_proposed(&[]);
    let h = victim.head();
    victim.evolv(&["apply", &id]).ok();
    let n = victim.head();
    let shared = shared(&victim);
    victim.git(&["push", "-q", "origin", "refs/evolv/*:refs/evolv/*"]);
    let (dir, e) = collaborator(&victim);
    victim.git(&[
        "-C",
        &dir,
        "fetch",
        "-q",
        &shared,
        "+refs/evolv/audit:refs/evolv/audit",
    ]);
    let real = victim.git(&["-C", &dir, "log", "-1", "--format=%B", "refs/evolv/audit"]);
    let real = real.trim();
    assert!(real.contains("\"apply\"") && real.contains(&h), "{real}");
    let replayed = append(&victim, &dir, real);
    let changed = append(&victim, &dir, &real.replace(&h, &e));
    share(&victim, &dir, &shared);
    let before = state(&victim);
    for op in [&changed, &replayed] {
        let run = victim.evolv(&["undo", op, "--json"]);
        assert_eq!((run.code, error_code(&run).as_str()), (1, "not_undoable"));
        assert!(
            run.error_message().contains("not marked by this clone"),
            "{}",
            run.stdout
        );
    }
    assert_eq!(state(&victim), before);
    assert_eq!(victim.head(), n);
    // The victim's own apply, still marked in place, is undone as before.
    let text = victim.evolv(&["undo", "--dry-run"]).ok().stdout.clone();
    assert!(text.contains("Skipped apply"), "{text}");
    assert!(text.contains("not marked by this clone"), "{text}");
    let undo = victim.evolv(&["undo", "--json"]).ok().json();
    assert_eq!(undo["undone"][0]["method"], "move_back");
    assert_eq!(victim.head(), h);
    // The newer records it passed over are listed apart, saying why.
    let skipped: Vec<&str> = undo["skipped"]
        .as_array()
        .unwrap_or_else(|| panic!("{undo}"))
        .iter()
        .map(|s| s["op"].as_str().unwrap())
        .collect();
    assert_eq!(skipped, [changed.as_str(), replayed.as_str()], "{undo}");
}

#[test]
fn a_branch_moves_back_only_to_a_state_its_reflog_shows_it_held() {
    let (repo, id) = TestRepo::scenario_proposed(&[]);
    let h = repo.head();
    repo.evolv(&["apply", &id]).ok();
    let n = repo.head();
    repo.git(&["reflog", "expire", "--expire=now", "--all"]);
    for args in [&["undo", "--json"][..], &["undo", "--dry-run", "--json"]] {
        let run = repo.evolv(args);
        assert_eq!(
            (run.code, error_code(&run).as_str()),
            (1, "not_undoable"),
            "{}",
            run.stdout
        );
        assert!(run.error_message().contains("reflog"), "{}", run.stdout);
        assert!(
            run.error_hint().contains(&format!("git reset --keep {h}")),
            "{}",
            run.stdout
        );
    }
    assert_eq!(repo.head(), n, "never moved silently");
    repo.assert_clean();
}

/// `undo --to` over this clone's operations and a collaborator's: only
/// this clone's are undone; the other is listed apart, saying why.
#[test]
fn undo_to_passes_over_a_forged_record_among_this_clones_and_lists_it() {
    let (victim, id) = TestRepo::scenario_proposed(&[]);
    let proposed = crate::undo::newest(&victim);
    victim.evolv(&["apply", &id]).ok();
    let shared = shared(&victim);
    victim.git(&["push", "-q", "origin", "refs/evolv/*:refs/evolv/*"]);
    let (dir, e) = collaborator(&victim);
    victim.git(&[
        "-C",
        &dir,
        "fetch",
        "-q",
        &shared,
        "+refs/evolv/audit:refs/evolv/audit",
    ]);
    let forged = append(
        &victim,
        &dir,
        &record("drop", json!([{"ref": VERDICT, "old": e, "new": null}])),
    );
    share(&victim, &dir, &shared);
    let h = victim.rev(&format!("{}^", victim.head())).unwrap();
    let undo = victim
        .evolv(&["undo", "--to", &proposed, "--json"])
        .ok()
        .json();
    assert_eq!(undo["undone"][0]["op_kind"], "apply", "{undo}");
    assert_eq!(undo["skipped"][0]["op"], forged.as_str(), "{undo}");
    assert!(
        undo["skipped"][0]["reason"]
            .as_str()
            .unwrap()
            .contains("not marked by this clone")
    );
    assert_eq!(victim.head(), h);
    assert!(victim.rev(VERDICT).is_none());
    let text = victim.evolv(&["redo"]).ok().stdout.clone();
    assert!(text.contains("moving the branch forward"), "{text}");
}
