//! One diff (issue 39 item 7): the hunks a user sees of one proposal are
//! git's own, wherever they are shown: the results of `propose --edits
//! --json` and of MCP `edit`, `show` and `show --json`, MCP
//! `show_proposal`, the review page's API, `apply -i`, and `git show` /
//! `git diff` of the proposal commit itself. The proposal moves blocks and
//! changes whitespace only, where two line diffs disagree most.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::common::{BIN, Run, TestRepo, run_with_stdin, sealed};
use crate::mcp_client::Mcp;
use crate::web_client::Server;

/// Functions, one of them moved, an `if` inserted where a blank line and a
/// closing brace make the insertion ambiguous (git's indent heuristic
/// decides it), and a function re-indented with tabs.
const LIB_OLD: &str = "fn f0() {
    y();
    if c {
        x();
    }
}

fn f1() {
    if c {
        x();
    }
}

fn f2() {
    y();
}

fn f3() {
    y();
    y();
}

fn f4() {
    if c {
        x();
    }

    y();
}

fn f5() {
    let a = 1;
    let b = 2;
    let c = 3;
}
";

const LIB_NEW: &str = "fn f0() {
    y();
    if c {
        x();
    if c {
        x();
    }

    }
}

fn f1() {
    if c {
        x();
    }
}

fn f3() {
    y();
    y();
}

fn f2() {
    y();
}

fn f4() {
    if c {
        x();
    }

    y();
}

fn f5() {
\tlet a = 1;
\tlet b = 2; 
\tlet c = 3;
}
";

/// Two blocks of eight lines swapped (which of them moved is a choice
/// git and other line diffs make differently), and whitespace changed
/// only: a trailing blank, a tab, an indentation.
fn notes(swapped: bool) -> String {
    let lines =
        |name: &str, n: usize| -> String { (1..=n).map(|i| format!("{name} {i}\n")).collect() };
    let (head, tail) = (lines("line", 15), lines("end", 6));
    let (block, other) = (lines("  item", 8), lines("other", 8));
    if swapped {
        let head = head
            .replace("line 3\n", "line 3 \n")
            .replace("line 4\n", "\tline 4\n");
        let tail = tail.replace("end 5", "    end 5");
        format!("{head}\n{other}\n{block}\n{tail}")
    } else {
        format!("{head}\n{block}\n{other}\n{tail}")
    }
}

/// Hunk ranges per file: `(old_start, old_lines, new_start, new_lines)`.
type Ranges = BTreeMap<String, Vec<[u64; 4]>>;

/// The ranges of a hunk header (`@@ -12,9 +12 @@ fn x`): git leaves out a
/// count of 1.
fn ranges_of(header: &str) -> [u64; 4] {
    let inner = header
        .strip_prefix("@@ -")
        .and_then(|h| h.split(" @@").next())
        .unwrap_or_else(|| panic!("not a hunk header: {header}"));
    let (old, new) = inner.split_once(" +").unwrap();
    let side = |s: &str| -> [u64; 2] {
        match s.split_once(',') {
            Some((start, n)) => [start.parse().unwrap(), n.parse().unwrap()],
            None => [s.parse().unwrap(), 1],
        }
    };
    let ([a, b], [c, d]) = (side(old), side(new));
    [a, b, c, d]
}

/// The hunk ranges of each file of a unified diff (as `git diff`,
/// `show` or `apply -i` print it), by the file's new path.
fn ranges_of_text(text: &str) -> Ranges {
    let mut out = Ranges::new();
    let mut file = None;
    for line in text.lines() {
        if let Some(names) = line.strip_prefix("diff --git a/") {
            let (_, new) = names.split_once(" b/").unwrap();
            file = Some(new.to_string());
        } else if line.starts_with("@@ -") {
            let file = file.clone().expect("a hunk before any file");
            out.entry(file).or_default().push(ranges_of(line));
        }
    }
    out
}

/// The hunk ranges of an edit's `files[].diff.hunks`.
fn ranges_of_results(files: &Value) -> Ranges {
    let mut out = Ranges::new();
    for f in files.as_array().unwrap() {
        let hunks = f["diff"]["hunks"].as_array().unwrap();
        let ranges = hunks
            .iter()
            .map(|h| {
                let numbers = ["old_start", "old_lines", "new_start", "new_lines"]
                    .map(|k| h[k].as_u64().unwrap());
                assert_eq!(ranges_of(h["header"].as_str().unwrap()), numbers, "{h}");
                numbers
            })
            .collect();
        out.insert(f["path"].as_str().unwrap().to_string(), ranges);
    }
    out
}

/// The hunk ranges of the review page's files, each asked for by path.
fn ranges_of_page(repo: &TestRepo, id: &str, paths: &[&str]) -> Ranges {
    let server = Server::start(repo);
    let view = server.get(&format!("/api/proposals/{id}")).json();
    let listed: Vec<&str> = view["diff_files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(listed, paths);
    let mut out = Ranges::new();
    for path in paths {
        let page = server.get(&format!(
            "/api/proposals/{id}/file?path={}",
            path.replace('/', "%2F")
        ));
        assert_eq!(page.status, 200, "{}", page.body);
        let ranges = page.json()["hunks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| ranges_of(h["header"].as_str().unwrap()))
            .collect();
        out.insert(path.to_string(), ranges);
    }
    out
}

/// What `apply -i` asks about, every hunk declined: nothing lands.
fn ranges_of_apply_interactive(repo: &TestRepo, id: &str, hunks: usize) -> Ranges {
    let mut cmd = sealed(BIN, repo.home());
    cmd.args(["apply", id, "-i"]).current_dir(repo.path());
    let run = run_with_stdin(cmd, "n\n".repeat(hunks));
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    // No terminal echoes the answers: what follows a prompt starts on its line.
    ranges_of_text(&run.stdout.replace("]? ", "]?\n"))
}

/// `propose --json --edits -` of `list`: its output, and the proposal's id.
fn propose(repo: &TestRepo, list: &Value) -> (Run, String) {
    let mut cmd = sealed(BIN, repo.home());
    cmd.args(["propose", "--json", "--edits", "-"])
        .current_dir(repo.path());
    let proposed = run_with_stdin(cmd, list.to_string());
    proposed.ok();
    let id = proposed.json_str("/patch_id");
    (proposed, id)
}

/// Each place a user sees the proposal's hunks, and what it shows; `list`
/// is the edit list that made proposal `id`.
fn every_view(
    repo: &TestRepo,
    id: &str,
    list: &Value,
    proposed: &Value,
) -> Vec<(&'static str, Ranges)> {
    let text = |v: &Value| ranges_of_text(v["unified_diff"].as_str().unwrap());
    let mut seen = vec![
        (
            "propose --edits --json: files",
            ranges_of_results(&proposed["files"]),
        ),
        ("propose --edits --json: unified_diff", text(proposed)),
    ];
    let show = repo.evolv(&["show", "--json", id]);
    show.ok();
    seen.push(("show --json", text(&show.json())));
    let show = repo.evolv(&["show", id]);
    show.ok();
    seen.push(("show", ranges_of_text(&show.stdout)));

    let mut mcp = Mcp::start(repo);
    let shown = mcp.call_ok("show_proposal", json!({"patch_id": id}));
    seen.push(("MCP show_proposal", text(&shown)));
    let mut checked = list.clone();
    checked["check"] = json!("only");
    let edited = mcp.call_ok("edit", checked);
    seen.push(("MCP edit: files", ranges_of_results(&edited["files"])));
    seen.push(("MCP edit: unified_diff", text(&edited)));
    mcp.finish();

    seen.push((
        "the review page",
        ranges_of_page(repo, id, &["notes.txt", "src/lib.rs"]),
    ));
    let hunks = seen[0].1.values().map(Vec::len).sum::<usize>() + 1;
    seen.push(("apply -i", ranges_of_apply_interactive(repo, id, hunks)));
    seen
}

#[test]
fn a_proposal_with_moved_blocks_and_whitespace_changes_has_gits_hunks_everywhere() {
    let repo = TestRepo::with_files(&[("src/lib.rs", LIB_OLD), ("notes.txt", &notes(false))]);
    let head = repo.head();
    let list = json!({"message": "move blocks", "edits": [
        {"op": "write", "path": "src/lib.rs", "content": LIB_NEW},
        {"op": "write", "path": "notes.txt", "content": notes(true)},
    ]});
    let (proposed, id) = propose(&repo, &list);
    let commit = format!("refs/evolv/proposals/{id}");

    // git's own hunks, with its default diff settings.
    let git = ranges_of_text(&repo.git(&["show", "--format=", &commit]));
    assert_eq!(git.len(), 2, "{git:?}");
    assert!(git.values().all(|r| r.len() >= 2), "{git:?}");
    let git_diff = ranges_of_text(&repo.git(&["diff", &head, &commit]));
    assert_eq!(git_diff, git, "git diff");

    let differ: Vec<String> = every_view(&repo, &id, &list, &proposed.json())
        .into_iter()
        .filter(|(_, ranges)| *ranges != git)
        .map(|(view, ranges)| format!("{view}: {ranges:?}"))
        .collect();
    assert!(
        differ.is_empty(),
        "git show: {git:?}\nbut\n{}",
        differ.join("\n")
    );
    assert_eq!(
        repo.head(),
        head,
        "apply -i, every hunk declined: nothing landed"
    );
}

/// An edit list that also creates, deletes and renames files: its diff is
/// written by the tree diff rather than file by file, and each file's
/// results still have git's hunks. A rename's are those of `git show`
/// (renames found, as the review page finds them); `show` and the
/// outcome's `unified_diff` give it as a delete and a create, as `git show
/// --no-renames` does.
#[test]
fn files_created_deleted_and_renamed_by_an_edit_have_gits_hunks_too() {
    let body: String = (1..=30).map(|n| format!("row {n}\n")).collect();
    let repo = TestRepo::with_files(&[
        ("notes.txt", notes(false).as_str()),
        ("old.txt", body.as_str()),
        ("gone.txt", "a\nb\n"),
    ]);
    let renamed = body.replace("row 20\n", "row twenty\n");
    let list = json!({"edits": [
        {"op": "write", "path": "notes.txt", "content": notes(true)},
        {"op": "rename", "path": "old.txt", "to": "new.txt"},
        {"op": "write", "path": "new.txt", "content": renamed},
        {"op": "delete", "path": "gone.txt"},
        {"op": "write", "path": "made.txt", "content": "x\ny\n"},
    ]});
    let (proposed, id) = propose(&repo, &list);
    let commit = format!("refs/evolv/proposals/{id}");
    let git = ranges_of_text(&repo.git(&["show", "--format=", &commit]));
    assert_eq!(git["new.txt"], [[17, 7, 17, 7]], "{git:?}");
    let proposed = proposed.json();
    assert_eq!(ranges_of_results(&proposed["files"]), git, "files[].diff");
    let paths = ["gone.txt", "made.txt", "new.txt", "notes.txt"];
    assert_eq!(ranges_of_page(&repo, &id, &paths), git, "the review page");

    let no_renames = ranges_of_text(&repo.git(&["show", "--no-renames", "--format=", &commit]));
    let text = |v: &Value| ranges_of_text(v["unified_diff"].as_str().unwrap());
    assert_eq!(text(&proposed), no_renames, "unified_diff");
    let show = repo.evolv(&["show", "--json", &id]);
    show.ok();
    assert_eq!(text(&show.json()), no_renames, "show --json");
}
