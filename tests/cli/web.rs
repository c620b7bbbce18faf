//! `git evolv serve`: the server's security rules and its JSON API, over
//! plain TCP (no HTTP client crate), against the real binary and a real
//! repository checked with git afterwards. The browser suite is in
//! tests/e2e/web/.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::{TestRepo, assert_has, assert_has_all, assert_human, str_of};
use crate::web_client::{Server, get, request};

fn repo_with_proposal() -> (TestRepo, String) {
    let (repo, id) = TestRepo::scenario_proposed(&[]);
    (repo, id)
}

#[test]
fn it_listens_on_127_0_0_1_only_and_prints_a_url_with_a_token() {
    let (repo, _) = repo_with_proposal();
    let server = Server::start(&repo);
    assert!(server.token.len() >= 32, "token {:?}", server.token);
    // The kernel's table of listening sockets: ours is bound to 127.0.0.1.
    let tcp = std::fs::read_to_string("/proc/net/tcp").unwrap();
    let port_hex = format!(":{:04X}", server.port);
    let ours: Vec<&str> = tcp
        .lines()
        .filter(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            f.len() > 3 && f[1].ends_with(&port_hex) && f[3] == "0A"
        })
        .collect();
    assert_eq!(ours.len(), 1, "{tcp}");
    assert!(
        ours[0]
            .split_whitespace()
            .nth(1)
            .unwrap()
            .starts_with("0100007F:")
    );
    let tcp6 = std::fs::read_to_string("/proc/net/tcp6").unwrap_or_default();
    assert!(!tcp6.contains(&port_hex), "also listening on IPv6: {tcp6}");
    assert_eq!(server.interrupt(), 0);
}

#[test]
fn the_token_becomes_an_http_only_strict_cookie_and_leaves_the_url() {
    let (repo, _) = repo_with_proposal();
    let server = Server::start_unsigned(&repo);
    let r = get(server.port, &format!("/p/abc?token={}", server.token), &[]);
    assert_eq!(r.status, 303);
    assert_eq!(r.header("location"), Some("/p/abc"));
    let cookie = r.header("set-cookie").unwrap();
    assert!(cookie.contains("HttpOnly"), "{cookie}");
    assert!(cookie.contains("SameSite=Strict"), "{cookie}");
    assert!(
        !cookie.contains(&server.token),
        "the cookie is not the URL token"
    );
    let page = get(
        server.port,
        "/",
        &[("Cookie", cookie.split(';').next().unwrap())],
    );
    assert_eq!(page.status, 200);
    assert!(page.body.contains("/assets/app.js"));
}

#[test]
fn a_missing_or_wrong_token_is_401() {
    let (repo, _) = repo_with_proposal();
    let server = Server::start(&repo);
    for path in ["/", "/api/proposals", "/assets/app.js", "/?token=wrong"] {
        let r = get(server.port, path, &[]);
        assert_eq!(r.status, 401, "{path}: {r:?}");
    }
    let r = get(
        server.port,
        "/api/proposals",
        &[("Cookie", "evolv-session-1=nope")],
    );
    assert_eq!(r.status, 401);
}

#[test]
fn a_host_that_is_not_loopback_is_403_even_with_the_cookie() {
    let (repo, _) = repo_with_proposal();
    let server = Server::start(&repo);
    let port = server.port;
    for host in [
        format!("evil.example:{port}"),
        format!("127.0.0.1.nip.io:{port}"),
        "127.0.0.1:1".to_string(),
    ] {
        let r = get(
            port,
            "/api/proposals",
            &[("Host", &host), ("Cookie", &server.cookie)],
        );
        assert_eq!(r.status, 403, "{host}");
        let r = get(
            port,
            &format!("/?token={}", server.token),
            &[("Host", &host)],
        );
        assert_eq!(r.status, 403, "token exchange via {host}");
    }
    let ok = get(
        port,
        "/api/proposals",
        &[
            ("Host", &format!("localhost:{port}")),
            ("Cookie", &server.cookie),
        ],
    );
    assert_eq!(ok.status, 200);
}

#[test]
fn a_cross_origin_or_non_json_post_changes_nothing() {
    let (repo, id) = repo_with_proposal();
    let server = Server::start(&repo);
    let path = format!("/api/proposals/{id}/drop");
    let origin = server.origin();
    // (with the session cookie, Origin, Content-Type, the status).
    let json = "application/json";
    let cases = [
        (true, Some("http://evil.example"), json, 403),
        (true, None, json, 403),
        (true, Some("http://localhost:1"), json, 403),
        (true, Some(origin.as_str()), "text/plain", 415),
        (
            true,
            Some(&origin),
            "application/x-www-form-urlencoded",
            415,
        ),
        (false, Some(&origin), json, 401),
    ];
    for (cookie, from, content_type, status) in cases {
        let mut headers = vec![("Content-Type", content_type)];
        if cookie {
            headers.push(("Cookie", &server.cookie));
        }
        if let Some(from) = from {
            headers.push(("Origin", from));
        }
        let r = request(server.port, "POST", &path, &headers, "{}");
        assert_eq!(r.status, status, "{headers:?}: {}", r.body);
    }
    assert!(repo.rev(&format!("refs/evolv/proposals/{id}")).is_some());
    // Changes are POSTs: another method is refused before any handler.
    let r = request(
        server.port,
        "DELETE",
        &path,
        &[
            ("Cookie", &server.cookie),
            ("Origin", &origin),
            ("Content-Type", "application/json"),
        ],
        "{}",
    );
    assert_eq!(r.status, 405);
    let r = server.post(&path, "{}");
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(repo.rev(&format!("refs/evolv/proposals/{id}")).is_none());
}

#[test]
fn no_response_carries_a_cors_header_and_every_one_a_strict_csp() {
    let (repo, id) = repo_with_proposal();
    let server = Server::start(&repo);
    let evil = [
        ("Origin", "http://evil.example"),
        ("Access-Control-Request-Method", "POST"),
        ("Access-Control-Request-Headers", "content-type"),
    ];
    let mut responses = vec![
        request(server.port, "OPTIONS", "/api/proposals", &evil, ""),
        request(server.port, "GET", "/", &evil, ""),
        server.get("/"),
        server.get("/assets/app.js"),
        server.get("/api/proposals"),
        server.get(&format!("/api/proposals/{id}")),
        server.get("/nope"),
    ];
    let mut with_cookie = evil.to_vec();
    with_cookie.push(("Cookie", &server.cookie));
    responses.push(request(
        server.port,
        "OPTIONS",
        "/api/proposals",
        &with_cookie,
        "",
    ));
    for r in &responses {
        assert!(
            !r.headers
                .iter()
                .any(|(k, _)| k.starts_with("access-control-")),
            "{r:?}"
        );
        let csp = r.header("content-security-policy").unwrap();
        assert!(csp.contains("script-src 'self'") && csp.contains("default-src 'none'"));
        assert!(!csp.contains("unsafe-inline"));
        assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
    }
    // The page itself has no inline script.
    let page = server.get("/");
    assert!(!page.body.contains("<script>"));
    assert!(!page.body.contains(" on"), "no inline handlers");
}

/// Reads an event stream until `want` has been seen (or 10 s pass).
fn read_events(stream: &mut TcpStream, want: impl Fn(&str) -> bool) -> String {
    stream
        .set_read_timeout(Some(Duration::from_millis(200)))
        .unwrap();
    let started = Instant::now();
    let mut text = String::new();
    let mut buf = [0u8; 4096];
    while started.elapsed() < Duration::from_secs(10) {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => text.push_str(&String::from_utf8_lossy(&buf[..n])),
            Err(_) => {}
        }
        if want(&text) {
            break;
        }
    }
    text
}

fn open_events(server: &Server, origin: &str, last_id: Option<&str>) -> TcpStream {
    let mut s = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    let mut req = format!(
        "GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nCookie: {}\r\nOrigin: {origin}\r\n",
        server.port, server.cookie
    );
    if let Some(id) = last_id {
        req.push_str(&format!("Last-Event-ID: {id}\r\n"));
    }
    req.push_str("\r\n");
    s.write_all(req.as_bytes()).unwrap();
    s
}

fn event_ids(text: &str, kind: &str) -> Vec<String> {
    text.split("\n\n")
        .filter(|b| b.contains(&format!("event: {kind}")))
        .filter_map(|b| b.lines().find_map(|l| l.strip_prefix("id: ")))
        .map(str::to_string)
        .collect()
}

#[test]
fn the_event_stream_needs_our_origin_and_reports_cli_changes_with_sequence_numbers() {
    let (repo, _) = repo_with_proposal();
    let server = Server::start(&repo);
    let mut evil = open_events(&server, "http://evil.example", None);
    let refused = read_events(&mut evil, |t| t.contains("\r\n\r\n"));
    assert!(refused.starts_with("HTTP/1.1 403"), "{refused}");

    let mut s = open_events(&server, &server.origin(), None);
    let hello = read_events(&mut s, |t| t.contains("event: reset"));
    assert!(hello.starts_with("HTTP/1.1 200"), "{hello}");
    assert!(hello.contains("text/event-stream"));
    let reset_id = event_ids(&hello, "reset").pop().unwrap();

    // Another process proposes and drops: both show up, numbered in order.
    let id2 = repo.propose("auth", "authenticate", &[]);
    let text = read_events(&mut s, |t| t.contains(&id2));
    assert!(text.contains("\"kind\":\"proposal\""), "{text}");
    assert!(text.contains("\"change\":\"created\""), "{text}");
    repo.evolv(&["drop", &id2]).ok();
    let text2 = read_events(&mut s, |t| t.contains("\"change\":\"deleted\""));
    let all = format!("{text}{text2}");
    let ids = event_ids(&all, "change");
    let seqs: Vec<u64> = ids
        .iter()
        .map(|i| i.rsplit(':').next().unwrap().parse().unwrap())
        .collect();
    assert!(seqs.len() >= 2, "{all}");
    assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1), "{seqs:?}");

    // A reconnect with the id of the first change gets exactly the rest.
    let mut again = open_events(&server, &server.origin(), Some(&ids[0]));
    let replay = read_events(&mut again, |t| {
        event_ids(t, "change").len() >= ids.len() - 1
    });
    assert_eq!(event_ids(&replay, "change"), ids[1..].to_vec(), "{replay}");
    assert!(event_ids(&replay, "reset").is_empty());
    // An id from another server instance gets a reset instead.
    let mut other = open_events(&server, &server.origin(), Some("feedbeef:3"));
    let r = read_events(&mut other, |t| t.contains("event: reset"));
    assert!(r.contains("event: reset"), "{r}");
    assert_ne!(reset_id, "");

    // Ctrl-C with streams open still stops the server cleanly.
    assert_eq!(server.interrupt(), 0);
}

/// A comment's JSON body: its text, where it sits (path, side, and start
/// line and column, end line and column) and the text it quotes.
fn comment(text: &str, (path, side, span): (&str, &str, [u32; 4]), quote: &str) -> Value {
    let [start_line, start_col, end_line, end_col] = span;
    serde_json::json!({
        "body": text,
        "locator": {"path": path, "side": side, "start_line": start_line,
                    "start_col": start_col, "end_line": end_line, "end_col": end_col},
        "quote": quote
    })
}

#[test]
fn comments_are_stored_in_git_returned_by_show_and_survive_a_restart() {
    let (repo, id) = repo_with_proposal();
    let server = Server::start(&repo);
    let at = ("backend/user.go", "new", [2, 6, 2, 19]);
    let body = comment("Call it <b>fetchUser</b> instead", at, "fetchUserData");
    let r = server.post(&format!("/api/proposals/{id}/comments"), &body.to_string());
    assert_eq!(r.status, 201, "{}", r.body);
    let stored = r.json();
    assert_eq!(stored["author"], "Test User <test@example.com>");

    let bad = serde_json::json!({"body": "x", "locator": {"path": "nope.go", "side": "new",
        "start_line": 1, "start_col": 1, "end_line": 1, "end_col": 2}});
    let r = server.post(&format!("/api/proposals/{id}/comments"), &bad.to_string());
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], "invalid_input");
    let r = server.post("/api/proposals/patch_0_missing/comments", &body.to_string());
    assert_eq!(r.status, 404);

    // In git, under git-evolv's own namespace.
    assert!(repo.rev(&format!("refs/evolv/comments/{id}")).is_some());
    let show = repo.evolv(&["show", "--json", &id]);
    let comments = show.ok().json()["comments"].clone();
    assert_eq!(comments.as_array().unwrap().len(), 1, "{comments}");
    assert_eq!(comments[0]["locator"], body["locator"]);
    assert_eq!(comments[0]["quote"], "fetchUserData");
    assert_eq!(comments[0]["body"], "Call it <b>fetchUser</b> instead");
    // The MCP server's show_proposal returns the same comments.
    let mut mcp = crate::mcp_client::Mcp::start(&repo);
    let shown = mcp.call_ok("show_proposal", serde_json::json!({"patch_id": id}));
    assert_eq!(shown["comments"], comments, "{shown}");
    drop(mcp);
    let human = repo.evolv(&["show", &id]);
    human.ok();
    assert_human!(repo, "show_with_a_comment", human.transcript());

    // A new server (same port, so the page's cookie still works) sees it.
    let port = server.port;
    let cookie = server.cookie.clone();
    assert_eq!(server.interrupt(), 0);
    let again = Server::start_on(&repo, port);
    assert_eq!(
        again.cookie, cookie,
        "the session cookie survives a restart"
    );
    let view = again.get(&format!("/api/proposals/{id}")).json();
    assert_eq!(
        view["comments"][0]["body"],
        "Call it <b>fetchUser</b> instead"
    );
    repo.assert_fsck();
}

/// Issue 12 item 4: "`git push` of the namespace shares them". Pushed
/// to a bare remote and fetched into another clone, the proposal and its
/// comments read back there.
#[test]
fn comments_travel_with_a_push_of_the_namespace() {
    let (repo, id) = repo_with_proposal();
    let server = Server::start(&repo);
    let body = comment(
        "shared with the team",
        ("backend/auth.go", "old", [2, 1, 2, 5]),
        "func",
    );
    let r = server.post(&format!("/api/proposals/{id}/comments"), &body.to_string());
    assert_eq!(r.status, 201, "{}", r.body);
    let remote = tempfile::tempdir().unwrap();
    let url = remote.path().to_str().unwrap();
    repo.git(&["init", "-q", "--bare", url]);
    repo.git(&["push", "-q", url, "main", "refs/evolv/*:refs/evolv/*"]);

    let other = TestRepo::empty();
    other.git(&[
        "fetch",
        "-q",
        url,
        "refs/heads/main:refs/remotes/origin/main",
        "refs/evolv/*:refs/evolv/*",
    ]);
    other.git(&["checkout", "-q", "-B", "main", "origin/main"]);
    let shown = other.evolv(&["show", "--json", &id]);
    let v = shown.ok().json();
    assert_eq!(v["status"], "pending");
    assert_eq!(v["comments"][0]["body"], "shared with the team");
    assert_eq!(v["comments"][0]["locator"], body["locator"]);
    other.assert_fsck();
}

#[test]
fn apply_streams_its_validation_then_lands_as_the_cli_does() {
    let (repo, id) = repo_with_proposal();
    repo.set_config("evolv.validate", "echo checking one; echo checking two");
    let server = Server::start(&repo);
    let before = repo.head();
    let r = server.post(&format!("/api/proposals/{id}/apply"), "{}");
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.header("content-type"), Some("application/x-ndjson"));
    let msgs: Vec<Value> = r
        .body
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(msgs[0]["type"], "start");
    // The command, then its lines, through the library's progress sink.
    assert_eq!(msgs[1]["type"], "command", "{}", r.body);
    assert_eq!(msgs[1]["command"], "echo checking one; echo checking two");
    let lines: Vec<&str> = msgs
        .iter()
        .filter(|m| m["type"] == "line")
        .map(|m| m["text"].as_str().unwrap())
        .collect();
    assert_eq!(lines, ["checking one", "checking two"]);
    let last = msgs.last().unwrap();
    assert_eq!(last["type"], "result", "{last}");
    let landed = last["report"]["results"][0]["commit"].as_str().unwrap();
    assert_eq!(repo.head(), landed);
    assert_eq!(repo.rev("HEAD~1").unwrap(), before);
    assert!(repo.read("backend/user.go").contains("fetchUserData"));
    assert_eq!(repo.status(), "");

    // Applying again is the CLI's error, with code, message and hint.
    let again = server.post(&format!("/api/proposals/{id}/apply"), "{}");
    let last: Value = serde_json::from_str(again.body.lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "error");
    assert_eq!(last["error"]["code"], "already_applied");
    assert!(last["error"]["hint"].is_string());

    let r = server.post(&format!("/api/proposals/{id}/rollback"), "{}");
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(repo.read("backend/user.go").contains("getUserData"));
    assert_eq!(repo.rev("HEAD~1").unwrap(), landed);
    repo.assert_fsck();
}

#[test]
fn the_proposal_view_gives_files_and_hunks_with_both_line_numbers() {
    let (repo, id) = repo_with_proposal();
    let server = Server::start(&repo);
    let view = server.get(&format!("/api/proposals/{id}")).json();
    let files = view["diff_files"].as_array().unwrap();
    let paths: Vec<&str> = files.iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(
        paths,
        ["backend/auth.go", "backend/user.go", "frontend/api.ts"]
    );
    assert_eq!(view["operation"], "replace");
    assert_eq!(view["stack"], serde_json::json!([id]));
    let f = server
        .get(&format!("/api/proposals/{id}/file?path=backend%2Fuser.go"))
        .json();
    let lines = &f["hunks"][0]["lines"];
    assert_eq!(lines[1]["k"], "-");
    assert_eq!(lines[1]["o"], 2);
    assert_eq!(lines[1]["n"], Value::Null);
    assert_eq!(lines[2]["k"], "+");
    assert_eq!(lines[2]["n"], 2);
    assert!(lines[2]["t"].as_str().unwrap().contains("fetchUserData"));
    let r = server.get(&format!("/api/proposals/{id}/file?path=nope"));
    assert_eq!(r.status, 404);
    let r = server.get("/api/proposals/patch_0_missing");
    assert_eq!(r.status, 404);
    assert_eq!(r.json()["error"]["code"], "patch_not_found");
}

/// Issue 12 item 2: "validator results per file". An edit list stored
/// with `--check warn` keeps what each validator said about each file;
/// `show --json` (CLI and the page's API alike) gives it back per file.
#[test]
fn validator_results_are_stored_per_file_and_shown_by_the_page_and_show() {
    let repo = TestRepo::with_files(&[
        ("c.json", "{\"a\": 1}\n"),
        ("x.py", "x = 1\n"),
        ("notes.txt", "keep\n"),
    ]);
    repo.set_config("evolv.validator.py.glob", "*.py");
    // Output with markup: it must reach the page as text (the browser
    // suite checks the rendering).
    repo.set_config(
        "evolv.validator.py.command",
        "echo '<b>py</b> says no to' {files}; exit 3",
    );
    let edits = r#"{"edits": [
        {"op": "replace", "path": "c.json", "old": "1}", "new": "1"},
        {"op": "replace", "path": "x.py", "old": "1", "new": "2"},
        {"op": "replace", "path": "notes.txt", "old": "keep", "new": "kept"}
    ]}"#;
    repo.write("edits.json", edits);
    let run = repo.evolv(&[
        "propose",
        "--json",
        "--check",
        "warn",
        "--edits",
        "edits.json",
    ]);
    run.ok();
    let id = run.json()["patch_id"].as_str().unwrap().to_string();
    let proposed = run.json()["files"].clone();

    let show = repo.evolv(&["show", "--json", &id]);
    let shown = show.success().stdout_json();
    let server = Server::start(&repo);
    let view = server.get(&format!("/api/proposals/{id}")).json();
    for v in [&shown, &view] {
        let files = v["files"].as_array().unwrap();
        let by_path = |p: &str| files.iter().find(|f| f["path"] == p).unwrap().clone();
        let json = by_path("c.json");
        assert_eq!(json["operation_type"], "modify");
        assert_eq!(json["validators"][0]["name"], "json");
        assert_eq!(json["validators"][0]["passed"], false);
        let py = by_path("x.py");
        assert_eq!(py["validators"][0]["name"], "py");
        assert_eq!(py["validators"][0]["exit_code"], 3);
        assert_has(
            str_of(&py["validators"][0]["output"]),
            "<b>py</b> says no to x.py",
        );
        assert_eq!(by_path("notes.txt")["validators"], serde_json::json!([]));
        // What propose reported is what was stored: same locators.
        for f in proposed.as_array().unwrap() {
            let stored = by_path(f["path"].as_str().unwrap());
            assert_eq!(stored["locator"], f["locator"], "{}", f["path"]);
            assert_eq!(stored["validators"], f["validators"], "{}", f["path"]);
        }
        assert_eq!(v["validators"].as_array().unwrap().len(), 2);
    }
    assert_eq!(view["diff_files"].as_array().unwrap().len(), 3);
    // People see it too, under the diff.
    let human = repo.evolv(&["show", &id]);
    human.ok();
    assert_human!(repo, "show_with_failed_validators", human.transcript());
    // A replace records none: the field is there, empty.
    let other = repo.propose("keep", "held", &[]);
    let shown = repo.evolv(&["show", "--json", &other]).json();
    assert_eq!(shown["files"], serde_json::json!([]));
}

/// Issue 10 for the web front end: every request opens an `ops::Session`,
/// so a landing a killed CLI left half done is finished before the page
/// is answered, as the next CLI command would.
#[test]
fn the_page_finishes_a_landing_a_killed_command_left_behind() {
    let (repo, id) = repo_with_proposal();
    let server = Server::start(&repo);
    let run = repo.evolv_env(&["apply", &id], &[("GIT_EVOLV_CRASHPOINT", "after-cas")]);
    assert_eq!(run.code, -1, "apply was not killed: {}", run.stderr);
    let journal = repo.path().join(".git/evolv/journal");
    assert!(journal.exists(), "the killed landing left its journal");
    let list = server.get("/api/proposals");
    assert!(!journal.exists(), "the request finished the landing");
    assert_eq!(list.status, 200);
    let p = &list.json()["proposals"][0];
    assert_eq!(
        (p["patch_id"].as_str(), p["status"].as_str()),
        (Some(id.as_str()), Some("applied"))
    );
    assert_eq!(
        repo.git(&["rev-parse", "HEAD"]),
        repo.git(&["rev-parse", &format!("refs/evolv/applied/{id}")])
    );
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    let again = repo.evolv(&["recover", "--json"]);
    assert_eq!(again.json()["action"], "nothing", "{}", again.stdout);
    repo.assert_fsck();
}

#[test]
fn a_port_in_use_is_a_clear_error() {
    let repo = TestRepo::scenario();
    let first = Server::start(&repo);
    let run = repo.evolv(&["serve", "--port", &first.port.to_string()]);
    assert_eq!(run.code, 2);
    assert_has(&run.stderr, "is in use");
}

#[test]
fn validation_output_reaches_the_page_while_the_command_still_runs() {
    let (repo, id) = repo_with_proposal();
    // The command prints, then waits until the test has seen that line:
    // without streaming, the line would arrive only after the timeout.
    let go = repo.home().join("go");
    repo.set_config(
        "evolv.validate",
        &format!(
            "echo first; while [ ! -e '{}' ]; do sleep 0.05; done; echo second",
            go.display()
        ),
    );
    let server = Server::start(&repo);
    let mut s = TcpStream::connect(("127.0.0.1", server.port)).unwrap();
    let body = "{}";
    write!(
        s,
        "POST /api/proposals/{id}/apply HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nCookie: {}\r\nOrigin: {}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        server.cookie,
        server.origin(),
        body.len(),
        port = server.port
    )
    .unwrap();
    let first = read_events(&mut s, |t| t.contains("\"text\":\"first\""));
    assert!(first.contains("\"text\":\"first\""), "{first}");
    assert!(!first.contains("\"type\":\"result\""), "{first}");
    std::fs::write(&go, "").unwrap();
    let rest = read_events(&mut s, |t| {
        t.contains("\"type\":\"result\"") || t.contains("\"type\":\"error\"")
    });
    assert!(rest.contains("\"text\":\"second\""), "{rest}");
    assert!(rest.contains("\"type\":\"result\""), "{rest}");
    assert!(repo.read("backend/user.go").contains("fetchUserData"));
}

#[test]
fn a_stack_is_shown_as_such_and_applied_as_one_batch() {
    let (repo, below) = repo_with_proposal();
    let run = repo.evolv(&[
        "propose",
        "--json",
        "--onto",
        &below,
        "--file",
        "backend/auth.go",
        "--old",
        "func auth()",
        "--new",
        "func authenticate()",
    ]);
    let top = run.ok().json()["patch_id"].as_str().unwrap().to_string();
    let server = Server::start(&repo);
    let list = server.get("/api/proposals").json();
    let entry = |id: &str| crate::common::listed(&list, id).clone();
    assert_eq!(entry(&top)["onto"], below.as_str());
    assert_eq!(entry(&below)["onto"], Value::Null);
    let view = server.get(&format!("/api/proposals/{top}")).json();
    assert_eq!(view["stack"], serde_json::json!([below, top]));
    let under = server.get(&format!("/api/proposals/{below}")).json();
    assert_eq!(under["stacked_above"], serde_json::json!([top]));

    let before = repo.head();
    let r = server.post(&format!("/api/proposals/{top}/apply"), "{}");
    let last: Value = serde_json::from_str(r.body.lines().last().unwrap()).unwrap();
    assert_eq!(last["type"], "result", "{}", r.body);
    assert_eq!(last["report"]["batch"], true);
    assert_eq!(repo.rev("HEAD~2").unwrap(), before);
    let auth = repo.read("backend/auth.go");
    assert_has_all(&auth, &["authenticate(", "fetchUserData"]);
    assert_eq!(repo.status(), "");
}

/// The URL's token opens one session, once (issue 25 item 7): a second
/// use of the printed URL is 401 and sets no cookie, on any path.
#[test]
fn the_url_token_works_once() {
    let repo = TestRepo::scenario();
    let server = Server::start(&repo);
    for path in ["/", "/p/abc", "/api/proposals"] {
        let again = get(server.port, &format!("{path}?token={}", server.token), &[]);
        assert_eq!(again.status, 401, "{path}");
        assert!(again.header("set-cookie").is_none(), "{path}");
    }
    let ok = get(server.port, "/api/proposals", &[("Cookie", &server.cookie)]);
    assert_eq!(ok.status, 200, "the first session still works");
}
