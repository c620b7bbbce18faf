//! Issue 25 item 8: a big proposal opens as fast as a small one. The
//! review page's open response carries the file list and no line of any
//! file (no full diff); each file's hunks come a bounded page at a time,
//! from a diff of that file alone, and only for the proposal's own files.

use serde_json::Value;

use crate::common::{TestRepo, str_of};
use crate::web_client::{Server, get};

/// `files` files of `lines` lines, every line changed by one proposal.
fn every_line_changed(files: usize, lines: usize) -> (TestRepo, String) {
    let text: String = (0..lines)
        .map(|i| format!("let value_{i} = compute(alpha, {i}); // line {i}\n"))
        .collect();
    let repo = TestRepo::with_many(files, |f| (format!("src/file_{f:03}.rs"), text.clone()))
        .with("src/untouched.txt", "not in the proposal\n")
        .committed("more");
    let id = repo.propose("alpha", "beta", &["--scope", "src/*.rs"]);
    (repo, id)
}

fn page(server: &Server, id: &str, path: &str, from: usize) -> Value {
    let r = server.get(&format!("/api/proposals/{id}/file?path={path}&from={from}"));
    assert_eq!(r.status, 200, "{}", r.body);
    r.json()
}

fn diff_lines(page: &Value) -> Vec<&Value> {
    page["hunks"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|h| h["lines"].as_array().unwrap())
        .collect()
}

#[test]
fn opening_a_20000_line_proposal_sends_the_file_list_without_any_line() {
    let (repo, id) = every_line_changed(20, 1000);
    let server = Server::start(&repo);
    let open = server.get(&format!("/api/proposals/{id}"));
    assert_eq!(open.status, 200, "{}", open.body);
    // Before: 2 MB, the whole patch text in `unified_diff`.
    assert!(open.body.len() < 32 * 1024, "{} bytes", open.body.len());
    assert!(!open.body.contains("compute(beta"), "no line of any file");
    let view = open.json();
    assert!(view.get("unified_diff").is_none());
    let files = view["diff_files"].as_array().unwrap();
    assert_eq!(files.len(), 20);
    assert_eq!(files[19]["path"], "src/file_019.rs");
    assert_eq!(files[19]["lines_added"], 1000);
    assert_eq!(view["lines_added"], 20_000);
    // The CLI's show still gives the whole patch.
    let show = repo.evolv(&["show", "--json", &id]).json();
    assert!(str_of(&show["unified_diff"]).contains("compute(beta, 999)"));
}

#[test]
fn a_file_far_down_the_list_comes_a_bounded_page_at_a_time() {
    let (repo, id) = every_line_changed(20, 1000);
    let server = Server::start(&repo);
    let first = server.get(&format!("/api/proposals/{id}/file?path=src%2Ffile_019.rs"));
    assert!(first.body.len() < 128 * 1024, "{} bytes", first.body.len());
    let mut lines: Vec<Value> = Vec::new();
    let mut at = Some(0);
    let mut pages = 0;
    while let Some(from) = at {
        let p = page(&server, &id, "src%2Ffile_019.rs", from);
        assert_eq!(p["from"], from);
        assert_eq!(p["total_lines"], 2000);
        let got = diff_lines(&p);
        assert!(!got.is_empty() && got.len() <= 500, "{} lines", got.len());
        assert_eq!(p["hunks"][0]["cont"].as_bool().unwrap_or(false), from > 0);
        lines.extend(got.into_iter().cloned());
        at = p["next"].as_u64().map(|n| n as usize);
        pages += 1;
    }
    assert_eq!(pages, 4);
    // Every line once, in order, numbered as git numbers them, with the
    // word marks of each pair across the page edges.
    let removed: Vec<&Value> = lines.iter().filter(|l| l["k"] == "-").collect();
    let added: Vec<&Value> = lines.iter().filter(|l| l["k"] == "+").collect();
    assert_eq!((removed.len(), added.len()), (1000, 1000));
    for (i, (r, a)) in removed.iter().zip(&added).enumerate() {
        assert_eq!(r["o"], i + 1);
        assert_eq!(a["n"], i + 1);
        assert_eq!(
            str_of(&a["t"]),
            format!("let value_{i} = compute(beta, {i}); // line {i}")
        );
        assert!(r["w"].is_array() && a["w"].is_array(), "line {i} marked");
    }
    let proposed = repo.git(&[
        "show",
        &format!("refs/evolv/proposals/{id}:src/file_019.rs"),
    ]);
    assert!(proposed.contains("compute(beta, 999)"));
}

#[test]
fn a_path_outside_the_proposal_is_404_and_a_rename_diffs_against_its_old_path() {
    let (repo, id) = every_line_changed(2, 10);
    let server = Server::start(&repo);
    for path in [
        "nope",
        "src%2Funtouched.txt",
        "src",
        "src%2F",
        "..%2F..%2Fetc%2Fpasswd",
        "%2Fetc%2Fpasswd",
        "src%2F..%2Fsrc%2Ffile_000.rs",
        "src%2Ffile_000.rs%00",
    ] {
        let r = server.get(&format!("/api/proposals/{id}/file?path={path}"));
        assert_eq!(r.status, 404, "{path}: {}", r.body);
        let e = &r.json()["error"];
        assert_eq!(e["code"], "invalid_input", "{path}");
        assert!(str_of(&e["message"]).contains(&id), "{e}");
        assert!(!str_of(&e["hint"]).is_empty());
    }
    // Signed out: refused before anything is read.
    let r = get(
        server.port,
        &format!("/api/proposals/{id}/file?path=src%2Ffile_000.rs"),
        &[],
    );
    assert_eq!(r.status, 401);

    // A renamed file is diffed against its old path (renames found), not
    // shown as a file of added lines; its old path is no file of the page.
    let run = repo.evolv(&[
        "propose",
        "--json",
        "--rename",
        "src/file_000.rs",
        "src/moved.rs",
    ]);
    let id = str_of(&run.json()["patch_id"]).to_string();
    let view = server.get(&format!("/api/proposals/{id}")).json();
    assert_eq!(view["diff_files"][0]["operation_type"], "rename");
    let p = page(&server, &id, "src%2Fmoved.rs", 0);
    assert_eq!(p["hunks"], serde_json::json!([]), "same content: no line");
    assert_eq!(p["next"], Value::Null);
    let r = server.get(&format!("/api/proposals/{id}/file?path=src%2Ffile_000.rs"));
    assert_eq!(r.status, 404, "{}", r.body);
}
