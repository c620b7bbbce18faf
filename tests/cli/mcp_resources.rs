//! Resources, completions, subscriptions and logging of `git evolv mcp`
//! (issue 43 items 1, 2 and 4) over stdio, and what `mcp --http` refuses
//! at start. The HTTP transport itself is tested with the TypeScript SDK
//! (tests/e2e/mcp-ts/http.test.mjs) and the conformance suite.

use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::common::{TestRepo, assert_has};
use super::mcp_client::Mcp;

/// A repository whose one proposal has a diff of several 64 KiB pages.
fn big_proposal() -> (TestRepo, String) {
    let text: String = (0..6000).map(|i| format!("old line {i:05}\n")).collect();
    let repo = TestRepo::with_files(&[("big.txt", text.as_str())]);
    let out = repo
        .evolv(&["propose", "-p", "old", "-r", "new", "--json"])
        .success()
        .json();
    let id = out["patch_id"].as_str().unwrap().to_string();
    (repo, id)
}

fn read(mcp: &mut Mcp, uri: &str) -> Value {
    mcp.request("resources/read", json!({"uri": uri}))
}

#[test]
fn resources_list_read_and_page_a_large_diff_as_show_has_it() {
    let (repo, id) = big_proposal();
    let mut mcp = Mcp::start(&repo);
    let listed = mcp.request("resources/list", json!({}));
    let uris: Vec<&str> = listed["result"]["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["uri"].as_str().unwrap())
        .collect();
    let summary_uri = format!("evolv://proposals/{id}");
    assert_eq!(
        uris,
        [
            "evolv://proposals",
            "evolv://ops",
            "evolv://verdicts",
            summary_uri.as_str()
        ]
    );
    let templates = mcp.request("resources/templates/list", json!({}));
    assert_has(
        &templates.to_string(),
        "evolv://proposals/{patch_id}/diff{?page}",
    );
    // A 2025-11-25 connection gets no cache hints.
    assert!(listed["result"].get("ttlMs").is_none(), "{listed}");

    // The pages, followed by `next`, add up to show's whole diff.
    let whole = repo.evolv(&["show", &id, "--json"]).success().json()["unified_diff"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(whole.len() > 2 * 64 * 1024, "the diff spans pages");
    let mut uri = format!("evolv://proposals/{id}/diff");
    let mut joined = String::new();
    let mut pages = 0;
    loop {
        let r = read(&mut mcp, &uri);
        let contents = &r["result"]["contents"][0];
        assert_eq!(contents["mimeType"], "text/x-diff", "{r}");
        let text = contents["text"].as_str().unwrap();
        assert!(
            text.len() <= 64 * 1024 && text.ends_with('\n'),
            "a page ends at a line end"
        );
        joined.push_str(text);
        pages += 1;
        let page = &contents["_meta"]["evolv/page"];
        assert_eq!(page["page"], pages);
        assert_eq!(page["total_bytes"], whole.len());
        match page["next"].as_str() {
            Some(next) => uri = next.to_string(),
            None => {
                assert_eq!(page["pages"], pages);
                break;
            }
        }
    }
    assert!(pages >= 3);
    assert_eq!(joined, whole);
    let past = read(
        &mut mcp,
        &format!("evolv://proposals/{id}/diff?page={}", pages + 1),
    );
    assert_has(
        past["error"]["message"].as_str().unwrap_or_default(),
        "does not exist",
    );

    let summary = read(&mut mcp, &summary_uri);
    let body: Value =
        serde_json::from_str(summary["result"]["contents"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(body["patch_id"], id.as_str());
    assert_eq!(body["status"], "pending");
    assert!(body.get("unified_diff").is_none());
    for missing in [
        "evolv://proposals/patch_0_none",
        "evolv://nothing",
        "file:///etc/passwd",
    ] {
        let r = read(&mut mcp, missing);
        assert_eq!(
            r["error"]["code"], -32002,
            "2025-11-25: resource not found: {r}"
        );
        assert_eq!(r["error"]["data"]["uri"], missing);
    }
    mcp.finish();
}

#[test]
fn template_arguments_complete_by_prefix_and_prompts_are_refused() {
    let (repo, id) = big_proposal();
    let mut mcp = Mcp::start(&repo);
    let complete = |mcp: &mut Mcp, value: &str| {
        mcp.request(
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": "evolv://proposals/{patch_id}/stack"},
                   "argument": {"name": "patch_id", "value": value}}),
        )
    };
    let all = complete(&mut mcp, &id[..8]);
    assert_eq!(all["result"]["completion"]["values"], json!([id]), "{all}");
    assert_eq!(all["result"]["completion"]["total"], 1);
    let none = complete(&mut mcp, "patch_0");
    assert_eq!(none["result"]["completion"]["values"], json!([]));
    let op = repo.evolv(&["op", "log", "--json"]).success().json()["operations"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    let ops = mcp.request(
        "completion/complete",
        json!({"ref": {"type": "ref/resource", "uri": "evolv://ops/{op}"},
               "argument": {"name": "op", "value": &op[..4]}}),
    );
    assert_eq!(
        ops["result"]["completion"]["values"][0],
        op.as_str(),
        "{ops}"
    );
    let prompt = mcp.request(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "x"}, "argument": {"name": "a", "value": ""}}),
    );
    assert_eq!(prompt["error"]["code"], -32602, "{prompt}");
    mcp.finish();
}

#[test]
fn a_subscriber_hears_of_a_drop_made_by_the_cli_and_set_level_is_accepted() {
    let (repo, id) = big_proposal();
    let mut mcp = Mcp::start(&repo);
    let level = mcp.request("logging/setLevel", json!({"level": "info"}));
    assert!(level.get("error").is_none(), "{level}");
    let uri = format!("evolv://proposals/{id}/stack");
    let sub = mcp.request("resources/subscribe", json!({"uri": uri}));
    assert!(sub.get("error").is_none(), "{sub}");
    repo.evolv(&["drop", &id]).success();
    let deadline = Instant::now() + Duration::from_secs(20);
    // A ping lets the reader collect notifications that arrived meanwhile.
    while !mcp.notifications.iter().any(|n| {
        n["method"] == "notifications/resources/updated" && n["params"]["uri"] == uri.as_str()
    }) {
        assert!(
            Instant::now() < deadline,
            "no update: {:?}",
            mcp.notifications
        );
        std::thread::sleep(Duration::from_millis(200));
        mcp.request("ping", json!({}));
    }
    mcp.finish();
}

#[test]
fn a_2026_read_carries_cache_hints_and_a_missing_resource_is_invalid_params() {
    let (repo, id) = big_proposal();
    let mut mcp = Mcp::spawn(&repo);
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    let r = mcp.request(
        "resources/read",
        json!({"_meta": meta, "uri": format!("evolv://proposals/{id}/diff")}),
    );
    assert_eq!(r["result"]["cacheScope"], "private", "{r}");
    assert_eq!(r["result"]["ttlMs"], 60000);
    let ops = mcp.request(
        "resources/read",
        json!({"_meta": meta, "uri": "evolv://ops"}),
    );
    assert_eq!(ops["result"]["ttlMs"], 0, "{ops}");
    let missing = mcp.request(
        "resources/read",
        json!({"_meta": meta, "uri": "evolv://proposals/patch_0_none"}),
    );
    assert_eq!(missing["error"]["code"], -32602, "{missing}");
    assert_eq!(
        missing["error"]["data"]["uri"],
        "evolv://proposals/patch_0_none"
    );
}

#[test]
fn mcp_http_refuses_a_non_loopback_address_and_a_token_others_can_read() {
    let repo = TestRepo::scenario();
    let out = repo.evolv(&["mcp", "--http", "0.0.0.0:0"]);
    assert_ne!(out.code, 0);
    assert_has(&out.stderr, "loopback address only");
    let token = repo.path().join(".git/evolv/mcp-http-token");
    std::fs::create_dir_all(token.parent().unwrap()).unwrap();
    std::fs::write(&token, format!("{}\n", "a".repeat(64))).unwrap();
    std::fs::set_permissions(&token, std::fs::Permissions::from_mode(0o644)).unwrap();
    let out = repo.evolv(&["mcp", "--http", "127.0.0.1:0"]);
    assert_ne!(out.code, 0);
    assert_has(&out.stderr, "readable by other users");
    assert_has(&out.stderr, "chmod 600");
}
