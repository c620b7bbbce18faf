//! One transaction per operation (issue 39 item 1): every ref under
//! `refs/evolv/` and `refs/heads/` is read before and after each mutating
//! use case, and the operation's one record must list exactly the refs
//! that changed (kept refs included, verdicts among its `facts`). Undo
//! then puts back exactly those, and leaves the verdicts.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::common::TestRepo;

/// The arguments of `git for-each-ref` that list every ref under
/// `refs/evolv/` and `refs/heads/`.
const REFS: [&str; 4] = [
    "for-each-ref",
    "--format=%(refname) %(objectname)",
    "refs/evolv/",
    "refs/heads/",
];

/// `git for-each-ref`'s `listing` as name → id, the log itself left out.
fn parse_refs(listing: &str) -> BTreeMap<String, String> {
    listing
        .lines()
        .filter_map(|l| l.split_once(' '))
        .filter(|(name, _)| *name != "refs/evolv/audit")
        .map(|(n, o)| (n.to_string(), o.to_string()))
        .collect()
}

/// Every ref under `refs/evolv/` and `refs/heads/` but the log itself.
fn refs(repo: &TestRepo) -> BTreeMap<String, String> {
    parse_refs(&repo.git(&REFS))
}

/// The newest operation.
fn newest(repo: &TestRepo) -> Value {
    let log = repo.evolv(&["op", "log", "-n", "1", "--json"]);
    log.ok().json()["operations"][0].clone()
}

/// What changed from `before` to `after`: name → (old, new).
type Changes = BTreeMap<String, (Option<String>, Option<String>)>;

fn changes(before: &BTreeMap<String, String>, after: &BTreeMap<String, String>) -> Changes {
    let mut out = Changes::new();
    for name in before.keys().chain(after.keys()) {
        let (old, new) = (before.get(name).cloned(), after.get(name).cloned());
        if old != new {
            out.insert(name.clone(), (old, new));
        }
    }
    out
}

/// The moves `op` lists under `field` (`refs` or `facts`).
fn listed(op: &Value, field: &str) -> Changes {
    op[field]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|m| {
            let id = |k: &str| m[k].as_str().map(str::to_string);
            (
                m["ref"].as_str().unwrap().to_string(),
                (id("old"), id("new")),
            )
        })
        .collect()
}

/// Runs `step`, then checks that the newest operation is of `kind` and
/// lists exactly what changed; returns it, with the refs before.
fn one_operation(
    repo: &TestRepo,
    kind: &str,
    step: impl FnOnce(),
) -> (Value, BTreeMap<String, String>) {
    let before = refs(repo);
    step();
    let after = refs(repo);
    let op = newest(repo);
    assert_eq!(op["kind"], kind, "{op:#}");
    let mut recorded = listed(&op, "refs");
    recorded.extend(listed(&op, "facts"));
    assert_eq!(changes(&before, &after), recorded, "{kind}: {op:#}");
    (op, before)
}

/// `undo` of `op` (the newest operation) puts back every ref it lists in `refs`
/// (verdicts in `facts` stay), and touches nothing else but the kept refs
/// it makes for a redo.
fn undo_restores(repo: &TestRepo, op: &Value, before: &BTreeMap<String, String>) {
    let after_op = refs(repo);
    // By its id: a plain `undo` undoes this actor's newest operation, and
    // a comment from the page is the page's.
    repo.evolv(&["undo", op["id"].as_str().unwrap()]).ok();
    let now = refs(repo);
    for (name, (old, _)) in listed(op, "refs") {
        assert_eq!(now.get(&name), old.as_ref(), "undo of {op:#} left {name}");
    }
    for (name, (_, new)) in listed(op, "facts") {
        assert_eq!(
            now.get(&name),
            new.as_ref(),
            "undo of {op:#} moved the verdict {name}"
        );
    }
    let undo = newest(repo);
    for (name, (old, new)) in changes(&after_op, &now) {
        let ours = listed(op, "refs").contains_key(&name);
        assert!(
            ours || name.starts_with("refs/evolv/kept/"),
            "undo moved {name} ({old:?} -> {new:?}), which {op:#} did not: {undo:#}"
        );
    }
    let _ = before;
    repo.assert_fsck();
}

#[test]
fn propose_edit_comment_and_drop_each_list_exactly_what_moved_and_undo_puts_it_back() {
    let repo = TestRepo::scenario();
    let mut id = String::new();
    let (op, before) = one_operation(&repo, "propose", || {
        id = repo.propose("getUserData", "fetchUserData", &[]);
    });
    undo_restores(&repo, &op, &before);
    let id = repo.propose("getUserData", "fetchUserData", &[]);
    let list = repo.home_file(
        "edits.json",
        r#"{"edits":[{"op":"write","path":"n.txt","content":"n\n"}]}"#,
    );
    let (op, before) = one_operation(&repo, "edit", || {
        repo.evolv(&["propose", "--json", "--edits", &list]).ok();
    });
    undo_restores(&repo, &op, &before);
    let (op, before) = one_operation(&repo, "drop", || {
        repo.evolv(&["drop", &id]).ok();
    });
    undo_restores(&repo, &op, &before);
    repo.assert_fsck();
}

#[test]
fn apply_batch_and_rollback_are_one_record_each_listing_branch_and_markers() {
    let repo = TestRepo::with_files(&[("a.txt", "A\n"), ("b.txt", "B\n")]);
    let a = repo.propose("A", "X", &[]);
    let (op, before) = one_operation(&repo, "apply", || {
        repo.evolv(&["apply", &a]).ok();
    });
    undo_restores(&repo, &op, &before);
    let a = repo.propose("A", "X", &[]);
    let b = repo.propose("B", "Y", &[]);
    let (op, _) = one_operation(&repo, "apply", || {
        repo.evolv(&["apply", "--batch", &a, &b]).ok();
    });
    assert_eq!(op["patch_ids"].as_array().map(Vec::len), Some(2), "{op:#}");
    let (op, before) = one_operation(&repo, "rollback", || {
        repo.evolv(&["rollback", &b]).ok();
    });
    undo_restores(&repo, &op, &before);
}

#[test]
fn a_validating_apply_lists_its_verdict_as_a_fact_and_undo_leaves_it() {
    let repo = TestRepo::scenario();
    let id = repo.propose("getUserData", "fetchUserData", &[]);
    let (op, before) = one_operation(&repo, "apply", || {
        repo.evolv(&["apply", &id, "--validate", "true"]).ok();
    });
    let facts = listed(&op, "facts");
    assert_eq!(facts.len(), 1, "{op:#}");
    assert!(facts.keys().all(|k| k.starts_with("refs/evolv/verdicts/")));
    undo_restores(&repo, &op, &before);
}

#[test]
fn test_is_an_operation_of_its_own_whose_verdicts_undo_leaves() {
    let repo = TestRepo::scenario();
    let (op, _) = one_operation(&repo, "test", || {
        repo.evolv(&["test", "--command", "true"]).ok();
    });
    assert_eq!(listed(&op, "facts").len(), 1, "{op:#}");
    assert!(listed(&op, "refs").is_empty(), "{op:#}");
    // Nothing of it to undo: the verdict stays.
    let refused = repo.evolv(&["undo", "--json"]);
    let code = crate::common::error_code(&refused);
    assert!(
        code == "nothing_to_undo" || code == "not_undoable",
        "{code}"
    );
    for (name, (_, new)) in listed(&op, "facts") {
        assert_eq!(refs(&repo).get(&name), new.as_ref(), "{name}");
    }
}

#[test]
fn gc_is_one_operation_with_the_kept_refs_and_verdicts_it_prunes() {
    let repo = TestRepo::scenario();
    let old = repo.evolv_env(
        &["propose", "--json", "-p", "getUserData", "-r", "x"],
        &[("GIT_EVOLV_TEST_TIME", "1000000000")],
    );
    old.ok();
    let (op, before) = one_operation(&repo, "gc", || {
        repo.evolv(&["gc", "--older-than", "1"]).ok();
    });
    assert!(
        listed(&op, "refs")
            .keys()
            .any(|k| k.starts_with("refs/evolv/kept/")),
        "the kept refs are listed: {op:#}"
    );
    undo_restores(&repo, &op, &before);
}

/// Two files, and one proposal (an edit list) changing both.
fn two_files_proposed() -> (TestRepo, String) {
    let repo = TestRepo::with_files(&[("a.txt", "A\n"), ("b.txt", "B\n")]);
    let list = repo.home_file(
        "edits.json",
        r#"{"edits":[{"op":"write","path":"a.txt","content":"A2\n"},{"op":"write","path":"b.txt","content":"B2\n"}]}"#,
    );
    let id = repo
        .evolv(&["propose", "--json", "--edits", &list])
        .ok()
        .json_str("/patch_id");
    (repo, id)
}

#[test]
fn a_partial_apply_is_one_record_moving_the_part_and_the_rest_together() {
    let (repo, id) = two_files_proposed();
    let (op, before) = one_operation(&repo, "apply", || {
        repo.evolv(&["apply", &id, "--paths", "a.txt"]).ok();
    });
    let moved = listed(&op, "refs");
    assert!(
        moved.contains_key(&format!("refs/evolv/proposals/{id}")),
        "{op:#}"
    );
    undo_restores(&repo, &op, &before);
    assert_eq!(repo.read("a.txt"), "A\n");
}

/// The proposal refs (`id` → commit).
fn proposals(repo: &TestRepo) -> BTreeMap<String, String> {
    refs(repo)
        .into_iter()
        .filter_map(|(n, o)| Some((n.strip_prefix("refs/evolv/proposals/")?.to_string(), o)))
        .collect()
}

/// Partial apply inside the journal (issue 39 item 2): killed at every
/// crash point, the next command finishes the landing or undoes it, and
/// no proposal ref is lost or duplicated.
#[test]
fn a_partial_apply_killed_anywhere_is_finished_or_undone_whole() {
    for point in crate::crash_scenario::POINTS {
        let (repo, id) = two_files_proposed();
        let whole = repo.git(&["rev-parse", &format!("refs/evolv/proposals/{id}")]);
        let whole_tree = repo.git(&["rev-parse", &format!("{}^{{tree}}", whole.trim())]);
        let h = repo.head();
        repo.evolv_env(
            &["apply", &id, "--paths", "a.txt"],
            &[("GIT_EVOLV_CRASHPOINT", point)],
        );
        repo.evolv(&["recover"]).ok();
        let now = proposals(&repo);
        let landed = repo.head() != h;
        if landed {
            assert_eq!(now.len(), 2, "{point}: {now:?}");
            let (part, _) = now.iter().find(|(p, _)| **p != id).unwrap();
            let applied = repo.rev(&format!("refs/evolv/applied/{part}"));
            assert_eq!(applied, Some(repo.head()), "{point}");
            let rest = &now[&id];
            let rest_tree = repo.git(&["rev-parse", &format!("{rest}^{{tree}}")]);
            assert_eq!(
                rest_tree, whole_tree,
                "{point}: the rest holds the whole tree"
            );
            assert_eq!(repo.read("a.txt"), "A2\n", "{point}");
            assert_eq!(repo.read("b.txt"), "B\n", "{point}");
        } else {
            assert_eq!(now.len(), 1, "{point}: {now:?}");
            assert_eq!(now[&id], whole.trim(), "{point}");
            assert_eq!(repo.read("a.txt"), "A\n", "{point}");
        }
        assert_eq!(repo.status(), "", "{point}");
        repo.assert_fsck();
    }
}

/// A transaction killed after its journal or after its ref moved: the next
/// command finishes it, so the proposal and its record are both there.
#[test]
fn a_propose_killed_inside_its_transaction_is_finished_by_the_next_command() {
    for point in ["transaction-journalled", "transaction-refs-moved"] {
        let repo = TestRepo::scenario();
        let run = repo.evolv_env(
            &["propose", "--json", "-p", "getUserData", "-r", "x"],
            &[("GIT_EVOLV_CRASHPOINT", point)],
        );
        assert_eq!(run.code, -1, "{point}: killed");
        repo.evolv(&["list"]).ok();
        let now = proposals(&repo);
        assert_eq!(now.len(), 1, "{point}: {now:?}");
        let op = newest(&repo);
        assert_eq!(op["kind"], "propose", "{point}: {op:#}");
        let created = listed(&op, "refs");
        let (id, commit) = now.iter().next().unwrap();
        assert_eq!(
            created.get(&format!("refs/evolv/proposals/{id}")),
            Some(&(None, Some(commit.clone()))),
            "{point}: {op:#}"
        );
    }
}

/// Every ref under `refs/evolv/` and `refs/heads/` of the server but the
/// log itself.
fn server_refs(s: &crate::server_fixture::Server) -> BTreeMap<String, String> {
    parse_refs(&s.git(&REFS))
}

/// A server landing (the push received and landed) is one operation: a
/// stack of two landed, or a push refused, each lists exactly what it
/// changed on the server.
#[test]
fn a_server_landing_is_one_record_listing_what_the_push_changed() {
    if !crate::server_fixture::git_has_proc_receive() {
        return;
    }
    let s = crate::server_fixture::Server::new(&[("a.txt", "one\n")]);
    s.git(&["config", "evolv.validate", "test ! -e bad.txt"]);
    let c = s.clone("c1");
    for (files, kind) in [(&["f1.txt", "f2.txt"][..], true), (&["bad.txt"][..], false)] {
        for f in files {
            s.commit(&c, f, "x\n", &format!("feat: {f}"));
        }
        let before = server_refs(&s);
        let run = s.push(&c, "origin", &["HEAD:refs/for/main"], &[]);
        assert_eq!(run.code == 0, kind, "{}", run.stderr);
        let after = server_refs(&s);
        let log = s.evolv(&["op", "log", "-n", "1", "--json"], &[]);
        let op = log.ok().json()["operations"][0].clone();
        assert_eq!(op["kind"], "apply", "{op:#}");
        let mut recorded = listed(&op, "refs");
        recorded.extend(listed(&op, "facts"));
        assert_eq!(changes(&before, &after), recorded, "{op:#}");
        if kind {
            assert_eq!(op["patch_ids"].as_array().map(Vec::len), Some(2), "{op:#}");
        }
        // The refused push is not kept on the branch: reset the clone.
        if !kind {
            s.git_in(&c, &["reset", "-q", "--hard", "HEAD~1"], &[]);
        }
    }
    s.assert_fsck();
}

/// Undo, redo and undo again of a propose, within one second: the last
/// undo both keeps the proposal's commit and puts back the kept ref the
/// first undo made, one ref planned twice in one transaction.
#[test]
fn undo_redo_undo_in_one_second_plans_the_kept_ref_once() {
    let repo = TestRepo::scenario();
    let id = repo.propose("getUserData", "fetchUserData", &[]);
    let proposal = format!("refs/evolv/proposals/{id}");
    let clock = [("GIT_EVOLV_TEST_TIME", "1800000000")];
    for present in [false, true, false] {
        repo.evolv_env(&["undo"], &clock).ok();
        assert_eq!(repo.rev(&proposal).is_some(), present, "{present}");
    }
    repo.assert_fsck();
}

/// The rest of the issue's list of use cases: a comment (from the review
/// page), a proposal from a patch and one from the work tree, and undo
/// and redo themselves, each one record listing exactly what it moved.
#[test]
fn comments_patches_captures_undo_and_redo_list_exactly_what_moved() {
    let (repo, id) = TestRepo::scenario_proposed(&[]);
    let server = crate::web_client::Server::start(&repo);
    let body = serde_json::json!({
        "body": "rename it", "quote": "fetchUserData",
        "locator": {"path": "backend/user.go", "side": "new",
                    "start_line": 2, "start_col": 6, "end_line": 2, "end_col": 19}});
    let (op, before) = one_operation(&repo, "comment", || {
        let r = server.post(&format!("/api/proposals/{id}/comments"), &body.to_string());
        assert_eq!(r.status, 201, "{}", r.body);
    });
    drop(server);
    undo_restores(&repo, &op, &before);
    let patch = repo.home().join("change.patch");
    std::fs::write(
        &patch,
        "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+new\n",
    )
    .unwrap();
    // A patch and a capture are stored as edit lists are.
    one_operation(&repo, "edit", || {
        repo.evolv(&["propose", "--json", "--patch", patch.to_str().unwrap()])
            .ok();
    });
    repo.write("backend/user.go", "edited in the work tree\n");
    let (op, _) = one_operation(&repo, "edit", || {
        repo.evolv(&[
            "propose",
            "--json",
            "--from-worktree",
            "--",
            "backend/user.go",
        ])
        .ok();
    });
    assert_eq!(repo.status(), "", "the capture put the work tree back");
    let (undo, _) = one_operation(&repo, "undo", || {
        repo.evolv(&["undo"]).ok();
    });
    assert_eq!(undo["undoes"], op["id"], "{undo:#}");
    let (redo, _) = one_operation(&repo, "redo", || {
        repo.evolv(&["redo"]).ok();
    });
    assert_eq!(redo["undoes"], undo["id"], "{redo:#}");
    repo.assert_fsck();
}
