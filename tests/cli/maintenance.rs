//! After writing objects git-evolv does what git's porcelain does: `git
//! maintenance run --auto` when `gc --auto` would find work, as
//! `maintenance.auto`, `gc.auto` and `gc.autoPackLimit` say (issue 25
//! item 19).

use crate::common::TestRepo;

/// `git count-objects -v`'s `count`: the loose objects.
fn loose(repo: &TestRepo) -> usize {
    repo.git(&["count-objects", "-v"])
        .lines()
        .find_map(|l| l.strip_prefix("count: "))
        .and_then(|n| n.trim().parse().ok())
        .expect("count-objects says count")
}

/// A repository whose one commit left 3,000 loose blobs (git's own `gc
/// --auto` at commit time stays under its default 6,700), then `config`.
/// The contents are fixed, so the objects and git's estimate are too.
fn loose_repo(config: &[(&str, &str)]) -> TestRepo {
    let files: Vec<(String, String)> = (0..3000)
        .map(|i| (format!("f/{i}.txt"), format!("file {i}\n")))
        .collect();
    let repo = TestRepo::with_files(&files);
    for (key, value) in config {
        repo.git(&["config", key, value]);
    }
    assert!(loose(&repo) >= 3000, "the commit's blobs are loose");
    repo
}

fn propose(repo: &TestRepo) {
    repo.evolv(&[
        "propose", "--json", "--file", "f/1.txt", "--old", "file", "--new", "line",
    ])
    .ok();
}

#[test]
fn a_proposal_past_gc_auto_packs_the_loose_objects_as_git_would() {
    let repo = loose_repo(&[("gc.auto", "256"), ("gc.autoDetach", "false")]);
    propose(&repo);
    assert!(loose(&repo) < 256, "{} loose objects left", loose(&repo));
    assert_eq!(
        repo.evolv(&["list", "--json"]).json()["proposals"]
            .as_array()
            .map(Vec::len),
        Some(1)
    );
    repo.assert_fsck();
}

#[test]
fn maintenance_auto_false_and_gc_auto_zero_turn_it_off() {
    for off in [("maintenance.auto", "false"), ("gc.auto", "0")] {
        let repo = loose_repo(&[("gc.autoDetach", "false"), off]);
        if off.0 == "maintenance.auto" {
            repo.git(&["config", "gc.auto", "256"]);
        }
        propose(&repo);
        assert!(loose(&repo) >= 3000, "{off:?}: {} loose", loose(&repo));
    }
}
