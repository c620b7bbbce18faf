//! `list` reads each proposal's row from a cache keyed by the proposal
//! commit's id (issue 25 item 18). A damaged, truncated or stale cache, or
//! one written while proposals come and go, never changes what `list`
//! shows: only commits the cache holds are taken from it, and a cache that
//! does not check out is read as if absent and written again.

use std::path::PathBuf;

use serde_json::Value;

use crate::common::TestRepo;

fn cache(repo: &TestRepo) -> PathBuf {
    repo.path().join(".git/evolv/list-cache")
}

/// `list --json` with each row's age left out (every run is later).
fn listed(repo: &TestRepo) -> Value {
    let run = repo.evolv(&["list", "--json"]);
    run.ok();
    let mut v = run.json();
    for row in v["proposals"].as_array_mut().expect("proposals") {
        row.as_object_mut().expect("row").remove("age_seconds");
    }
    v
}

/// What `list` shows with no cache at all.
fn listed_without_cache(repo: &TestRepo) -> Value {
    let _ = std::fs::remove_file(cache(repo));
    listed(repo)
}

/// Whether the cache file holds commit `rev`'s raw id.
fn caches(repo: &TestRepo, rev: &str) -> bool {
    let hex = repo.git(&["rev-parse", rev]);
    let raw: Vec<u8> = (0..20)
        .map(|i| u8::from_str_radix(&hex.trim()[2 * i..2 * i + 2], 16).expect("hex"))
        .collect();
    let bytes = std::fs::read(cache(repo)).expect("the cache is written");
    bytes.windows(20).any(|w| w == raw)
}

/// The row of proposal `id` in a listing.
fn row_of<'v>(listing: &'v Value, id: &str) -> &'v Value {
    listing["proposals"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["patch_id"] == id)
        .unwrap_or_else(|| panic!("{id} is not listed: {listing}"))
}

/// Three proposals, one stacked, one applied, listed once (the cache
/// written), and what `list` shows.
fn proposed() -> (TestRepo, Vec<String>, Value) {
    let repo = TestRepo::scenario();
    let c = repo.propose("const data", "const info", &[]);
    repo.evolv(&["apply", &c]).ok();
    let a = repo.propose("getUserData", "fetchUserData", &[]);
    let stacked = repo.evolv(&[
        "propose",
        "--json",
        "--onto",
        &a,
        "--file",
        "backend/auth.go",
        "--old",
        "func auth()",
        "--new",
        "func login()",
    ]);
    stacked.ok();
    let b = stacked.json_str("/patch_id");
    let fresh = listed_without_cache(&repo);
    (repo, vec![a, b, c], fresh)
}

#[test]
fn the_cache_is_written_and_lists_what_the_commits_say() {
    let (repo, ids, fresh) = proposed();
    for id in &ids {
        assert!(caches(&repo, &format!("refs/evolv/proposals/{id}")), "{id}");
    }
    let statuses: Vec<&Value> = ids.iter().map(|id| &row_of(&fresh, id)["status"]).collect();
    assert_eq!(statuses, ["pending", "pending", "applied"], "{fresh}");
    let stacked = row_of(&fresh, &ids[1]);
    assert_eq!(stacked["onto"], ids[0].as_str(), "{fresh}");
    assert_eq!(listed(&repo), fresh, "read through the cache");
    let human = repo.evolv(&["list"]);
    human.ok();
    let _ = std::fs::remove_file(cache(&repo));
    assert_eq!(repo.evolv(&["list"]).stdout, human.stdout);
}

#[test]
fn a_damaged_cache_is_ignored_and_written_again() {
    let (repo, ids, fresh) = proposed();
    let good = std::fs::read(cache(&repo)).expect("cache");
    // A byte in every row's summary changed: the checksum no longer holds.
    let mut bad = good.clone();
    for i in 0..bad.len() - 8 {
        if bad[i..].starts_with(b"refactor") {
            bad[i] = b'X';
        }
    }
    assert_ne!(bad, good);
    std::fs::write(cache(&repo), &bad).expect("write");
    assert_eq!(listed(&repo), fresh);
    assert_eq!(
        std::fs::read(cache(&repo)).expect("cache"),
        good,
        "rewritten"
    );
    assert!(caches(&repo, &format!("refs/evolv/proposals/{}", ids[0])));

    std::fs::write(cache(&repo), b"\x00garbage\xff").expect("write");
    assert_eq!(listed(&repo), fresh);
    assert_eq!(std::fs::read(cache(&repo)).expect("cache"), good);
}

#[test]
fn a_truncated_cache_is_ignored_at_every_length() {
    let (repo, _, fresh) = proposed();
    let good = std::fs::read(cache(&repo)).expect("cache");
    for len in [0, 1, 8, good.len() / 3, good.len() / 2, good.len() - 1] {
        std::fs::write(cache(&repo), &good[..len]).expect("write");
        assert_eq!(listed(&repo), fresh, "truncated to {len}");
        assert_eq!(std::fs::read(cache(&repo)).expect("cache"), good);
    }
}

#[test]
fn a_cached_commit_no_ref_names_is_not_listed_and_leaves_the_cache() {
    let (repo, ids, _) = proposed();
    let dropped = format!("refs/evolv/proposals/{}", ids[2]);
    let commit = repo.git(&["rev-parse", &dropped]).trim().to_string();
    // Behind git-evolv's back, as a fetch with --prune would.
    repo.git(&["update-ref", "-d", &dropped]);
    let v = listed(&repo);
    let mut shown: Vec<&str> = v["proposals"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| r["patch_id"].as_str().expect("id"))
        .collect();
    shown.sort_unstable();
    let mut kept = [ids[0].as_str(), ids[1].as_str()];
    kept.sort_unstable();
    assert_eq!(shown, kept, "{v}");
    assert!(!caches(&repo, &commit), "the stale row is pruned");
    assert_eq!(v, listed_without_cache(&repo));

    // A ref moved to another commit is read from that commit.
    let moved = format!("refs/evolv/proposals/{}", ids[0]);
    repo.git(&["update-ref", &moved, &commit]);
    let v = listed(&repo);
    assert_eq!(v, listed_without_cache(&repo));
    assert_eq!(row_of(&v, &ids[0])["commit"], commit.as_str(), "{v}");
}

#[test]
fn a_cache_from_another_repository_changes_nothing() {
    let (repo, _, fresh) = proposed();
    let (other, _, _) = proposed();
    std::fs::copy(cache(&other), cache(&repo)).expect("copy");
    assert_eq!(listed(&repo), fresh);
}

#[test]
fn lists_while_proposing_show_only_true_rows() {
    let repo = TestRepo::scenario();
    repo.propose("getUserData", "fetchUserData", &[]);
    // Each list starts as a propose does, so that they overlap.
    let mut lists = Vec::new();
    for i in 0..6 {
        lists.push(repo.spawn_evolv(&["list", "--json"]));
        repo.propose("getUserData", &format!("name{i}"), &[]);
    }
    let seen: Vec<Value> = lists
        .into_iter()
        .map(|child| {
            let out = child.wait_with_output().expect("list ran");
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            serde_json::from_slice(&out.stdout).expect("json")
        })
        .chain((0..3).map(|_| listed(&repo)))
        .collect();
    let truth = listed_without_cache(&repo);
    let rows = truth["proposals"].as_array().expect("rows");
    assert_eq!(rows.len(), 7, "{truth}");
    for v in seen {
        for row in v["proposals"].as_array().expect("rows") {
            let mut row = row.clone();
            row.as_object_mut().expect("row").remove("age_seconds");
            assert!(rows.contains(&row), "{row} is no row of {truth}");
        }
    }
    assert_eq!(listed(&repo), truth);
}
