//! list, show, drop, log and demo.

use crate::common::{BIN, TestRepo, assert_has, assert_human, error_code, sealed};

#[test]
fn list_shows_id_age_summary_size_and_status() {
    let repo = TestRepo::scenario().on_test_clock();
    let id = repo.propose("getUserData", "fetchUserData", &["--scope", "backend/**"]);
    let v = repo.evolv(&["list", "--json"]).json();
    let p = &v["proposals"][0];
    assert_eq!(p["patch_id"], id.as_str());
    assert_eq!(p["status"], "pending");
    assert_eq!(p["files_changed"], 2);
    assert_eq!(p["lines_added"], 2);
    assert_eq!(p["lines_removed"], 2);
    assert!(p["age_seconds"].is_i64());
    let human = repo.evolv(&["list"]);
    human.ok();
    // The id listed is this proposal's, to the last digit.
    assert_human!(
        repo,
        "list_pending",
        human.transcript().replace(&id, "[PATCH]")
    );
    repo.evolv(&["apply", &id]).ok();
    assert_eq!(
        repo.evolv(&["list", "--json"]).json()["proposals"][0]["status"],
        "applied"
    );
}

#[test]
fn show_prints_the_stored_diff() {
    let (repo, id) = TestRepo::scenario_proposed(&["--scope", "frontend/**"]);
    let run = repo.evolv(&["show", &id]);
    run.ok();
    assert_human!(repo, "show_frontend", run.transcript());
    let v = repo.evolv(&["show", "--json", &id]).json();
    assert_eq!(v["patch_id"], id.as_str());
    assert!(
        v["unified_diff"]
            .as_str()
            .unwrap()
            .contains("+const data = fetchUserData()")
    );
    let run = repo.evolv(&["show", "--json", "patch_1_nope"]);
    assert_eq!(error_code(&run), "patch_not_found");
}

#[test]
fn drop_removes_proposals_and_checks_every_id_first() {
    let repo = TestRepo::scenario();
    let a = repo.propose("getUserData", "x", &[]);
    let b = repo.propose("getUserData", "y", &[]);
    let run = repo.evolv(&["drop", "--json", &a, "patch_1_missing"]);
    assert_eq!(error_code(&run), "patch_not_found");
    assert!(
        repo.rev(&format!("refs/evolv/proposals/{a}")).is_some(),
        "nothing dropped on error"
    );
    let v = repo.evolv(&["drop", "--json", &a]).json();
    assert_eq!(v["dropped"], serde_json::json!([a]));
    assert!(repo.rev(&format!("refs/evolv/proposals/{a}")).is_none());
    repo.evolv(&["drop", "--all"]).ok();
    assert!(repo.rev(&format!("refs/evolv/proposals/{b}")).is_none());
    assert_eq!(
        repo.evolv(&["list", "--json"]).json()["proposals"],
        serde_json::json!([])
    );
    repo.assert_fsck();
}

#[test]
fn log_lists_every_event_newest_first() {
    let repo = TestRepo::scenario().on_test_clock();
    let id = repo.propose("getUserData", "fetchUserData", &[]);
    let failed = repo.evolv(&["apply", &id, "--validate", "false"]);
    assert_eq!(failed.code, 1);
    repo.evolv(&["apply", &id]).ok();
    repo.evolv(&["rollback", &id]).ok();
    repo.evolv(&["drop", &id]).ok();
    let v = repo.evolv(&["log", "--json"]).json();
    let actions: Vec<(String, bool)> = v["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["action"].as_str().unwrap().to_string(),
                e["success"].as_bool().unwrap(),
            )
        })
        .collect();
    let expected = [
        ("drop", true),
        ("rollback", true),
        ("apply", true),
        ("apply", false),
        ("propose", true),
    ];
    assert_eq!(actions, expected.map(|(a, s)| (a.to_string(), s)));
    let first_id = v["entries"][0]["id"].as_str().unwrap();
    assert_eq!(
        repo.rev("refs/evolv/audit").unwrap(),
        first_id,
        "the audit id is the commit id"
    );
    assert_human!(repo, "log_every_event", repo.transcript(&["log"]));
    assert_eq!(
        repo.evolv(&["log", "--json", "-n", "2"]).json()["entries"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn demo_walks_through_and_leaves_nothing_behind() {
    let home = tempfile::tempdir().unwrap();
    let out = sealed(BIN, home.path())
        .arg("demo")
        .current_dir(home.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for step in [
        "git evolv propose",
        "git evolv show",
        "git evolv apply",
        "git evolv rollback",
        "git evolv log",
    ] {
        assert_has(&stdout, step);
    }
    assert_has(&stdout, "+func fetchUserData");
    let left: Vec<_> = std::fs::read_dir(home.path()).unwrap().collect();
    assert!(left.is_empty(), "demo left files behind: {left:?}");
    let json = sealed(BIN, home.path())
        .args(["demo", "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["apply"]["validation"][0]["exit_code"], 0);
    assert_eq!(v["rollback"]["success"], true);
}
