//! A proposal ref this version cannot read (another version's metadata,
//! or no proposal at all, as a fetch can bring) blocks nothing: `list`
//! names it with a warning beside the others, and `drop` and `gc` remove
//! it (issue 25 item 13).

use serde_json::json;

use crate::common::{TestRepo, run_with_stdin, sealed};
use crate::mcp_client::Mcp;

/// Points proposal `id` at a commit of the same tree whose message has no
/// metadata this version reads, committed at `date`.
fn corrupt(repo: &TestRepo, id: &str, date: &str) {
    let proposal = format!("refs/evolv/proposals/{id}");
    let tree = repo.git(&["rev-parse", &format!("{proposal}^{{tree}}")]);
    let parent = repo.git(&["rev-parse", &format!("{proposal}^")]);
    let mut cmd = sealed("git", repo.home());
    cmd.args(["commit-tree", tree.trim(), "-p", parent.trim()])
        .env("GIT_COMMITTER_DATE", date)
        .current_dir(repo.path());
    let run = run_with_stdin(cmd, "from a future version\n\nEvolv-Meta-V9: {}\n");
    run.ok();
    repo.git(&["update-ref", &proposal, run.stdout.trim()]);
}

#[test]
fn list_warns_and_drop_removes_an_unreadable_proposal() {
    let repo = TestRepo::scenario();
    let good = repo.propose("getUserData", "fetchUserData", &[]);
    let bad = repo.propose("getUserData", "loadUserData", &[]);
    corrupt(&repo, &bad, "2026-01-01T00:00:00Z");

    let listed = repo.evolv(&["list", "--json"]);
    listed.ok();
    let v = listed.json();
    assert_eq!(v["proposals"].as_array().map(Vec::len), Some(1), "{v}");
    assert_eq!(v["proposals"][0]["patch_id"], good.as_str());
    assert_eq!(v["unreadable"][0]["patch_id"], bad.as_str(), "{v}");
    assert_eq!(
        v["unreadable"][0]["ref"],
        format!("refs/evolv/proposals/{bad}")
    );

    let human = repo.evolv(&["list"]);
    human.ok();
    assert!(human.stdout.contains(&good), "{}", human.stdout);
    assert!(
        human.stderr.contains("warning:") && human.stderr.contains(&bad),
        "{}",
        human.stderr
    );

    let mut mcp = Mcp::start(&repo);
    let listed = mcp.call_ok("list_proposals", json!({}));
    assert_eq!(
        listed["unreadable"][0]["patch_id"],
        bad.as_str(),
        "{listed}"
    );
    drop(mcp);

    let dropped = repo.evolv(&["drop", "--json", &bad]);
    dropped.ok();
    assert_eq!(repo.rev(&format!("refs/evolv/proposals/{bad}")), None);
    assert!(repo.rev(&format!("refs/evolv/proposals/{good}")).is_some());
    let v = repo.evolv(&["list", "--json"]).json();
    assert!(v.get("unreadable").is_none(), "{v}");
}

#[test]
fn gc_removes_an_old_unreadable_proposal() {
    let repo = TestRepo::scenario();
    let bad = repo.propose("getUserData", "loadUserData", &[]);
    corrupt(&repo, &bad, "2020-01-01T00:00:00Z");
    let run = repo.evolv(&["gc", "--json", "--older-than", "30"]);
    run.ok();
    assert_eq!(
        repo.rev(&format!("refs/evolv/proposals/{bad}")),
        None,
        "{}",
        run.stdout
    );
}
