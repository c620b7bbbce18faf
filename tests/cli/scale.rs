//! Many files at once (issue 14 items 1–2): a propose of hundreds of files
//! writes its new blobs and trees as one pack without deltas, which git reads and
//! verifies, and the apply lands them all as git would.

use crate::common::{TestRepo, assert_has_all, assert_statistics};

#[test]
fn a_propose_of_many_files_writes_one_undeltified_pack_that_git_verifies() {
    let file = |i: usize| {
        (
            format!("d{}/f{i}.txt", i % 7),
            format!("line one of {i}\ncall old_name() here\nline three\n"),
        )
    };
    let repo = TestRepo::with_many(300, file);
    repo.git(&["gc", "-q"]);
    let packs_before = pack_indexes(&repo);
    let id = repo.propose("old_name", "new_name", &[]);
    let new_packs: Vec<_> = pack_indexes(&repo)
        .into_iter()
        .filter(|p| !packs_before.contains(p))
        .collect();
    assert_eq!(new_packs.len(), 1, "{new_packs:?}");
    let verify = repo.git(&["verify-pack", "-v", &new_packs[0]]);
    // 300 blobs and the 8 trees above them (the root, d0..d6).
    assert!(verify.contains("non delta: 308 objects"), "{verify}");
    assert_eq!(verify.matches(" tree ").count(), 8, "{verify}");
    repo.assert_fsck();
    // `git show` reads the proposal through the new pack.
    let shown = repo.git(&["show", "--stat", &format!("refs/evolv/proposals/{id}")]);
    assert!(
        shown.contains("300 files changed, 300 insertions(+), 300 deletions(-)"),
        "{shown}"
    );
    repo.evolv(&["apply", &id]).ok();
    assert_eq!(repo.status(), "");
    for (path, content) in (0..300).map(file) {
        assert_eq!(repo.read(&path), content.replace("old_name", "new_name"));
    }
    repo.assert_fsck();
}

fn pack_indexes(repo: &TestRepo) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(repo.path().join(".git/objects/pack"))
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "idx"))
                .map(|p| p.display().to_string())
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// The diff propose writes while it scans (each file's from its two
/// contents) is byte for byte the tree diff `show` prints: modes, CRLF, a
/// missing final newline, quoted names, bytes that are not UTF-8, hunk
/// headers, `core.abbrev`. With a `.gitattributes` in play propose lets
/// libgit2's tree diff (which reads it: `-diff` makes a binary patch)
/// print instead: the same again.
#[test]
fn the_diff_written_during_the_scan_is_the_tree_diff_byte_for_byte() {
    let mut long = String::from("fn main() {\n");
    for i in 0..60 {
        long.push_str(&format!(
            "    let x{i} = {};\n",
            if i % 25 == 3 { "old_name()" } else { "1" }
        ));
    }
    long.push_str("}\n");
    let repo = TestRepo::with_files(&[
        ("run.sh", "#!/bin/sh\nold_name\n"),
        ("crlf.txt", "a\r\nold_name\r\nb\r\n"),
        ("noeol.txt", "x\nold_name"),
        ("dir with space/\u{fc}.txt", "old_name\n"),
        ("q\"uote.txt", "old_name\n"),
        ("long.rs", &long),
        ("plain.txt", "nothing here\n"),
    ]);
    repo.write_bytes("latin1.txt", b"caf\xe9 old_name\n");
    repo.git(&["add", "latin1.txt"]);
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(repo.file("run.sh"), std::fs::Permissions::from_mode(0o755))
            .unwrap();
    }
    repo.commit_all("more");
    for abbrev in [None, Some("12")] {
        if let Some(n) = abbrev {
            repo.git(&["config", "core.abbrev", n]);
        }
        let proposed = repo.evolv(&["propose", "-p", "old_name", "-r", "new_name"]);
        proposed.ok();
        let id = repo.evolv(&["list", "--json"]).json()["proposals"][0]["patch_id"]
            .as_str()
            .unwrap()
            .to_string();
        let shown = shown_diff(&repo, &id);
        assert!(
            proposed.stdout_bytes.starts_with(b"diff --git"),
            "{}",
            proposed.stdout
        );
        let text = String::from_utf8_lossy(&shown);
        assert_has_all(&text, &[" 100755\n", "\\ No newline"]);
        assert_eq!(proposed.stdout_bytes, shown, "core.abbrev {abbrev:?}");
        repo.evolv(&["drop", &id]).ok();
    }
    // Attributes in one subdirectory: the files outside it get their diffs
    // from the scan, those under it from libgit2's tree diff (which reads
    // the attributes: `-diff` makes a binary patch, `diff=` a driver's hunk
    // headers), merged in git's path order. Every stage is `git diff` byte
    // for byte.
    repo.set_config("diff.fn.xfuncname", "^fn .*$");
    repo.write(
        "sub/.gitattributes",
        "*.txt -diff\n*.rs diff=fn\n*.bin binary\ncrlf.txt text eol=crlf\n",
    );
    repo.write("sub/a.txt", "old_name\n");
    repo.write("sub/f.rs", &long);
    repo.write("sub/crlf.txt", "a\r\nold_name\r\n");
    repo.write("sub/data.bin", "old_name\n");
    repo.write("sub/deeper/b.txt", "x\nold_name\n");
    repo.write("sub2/c.txt", "old_name\n");
    repo.write("zz.txt", "old_name\n");
    repo.commit_all("attributes");
    let diff = assert_diff_is_git_diff(&repo, "one subdirectory");
    assert!(diff.contains("GIT binary patch"), "{diff}");
    assert!(diff.contains("@@ fn main() {"), "{diff}");
    assert!(!diff.contains("data.bin"), "`binary` is skipped: {diff}");
    // Scan diffs and tree diffs interleaved in path order.
    let at = |path: &str| {
        diff.find(&format!("diff --git a/{path} "))
            .unwrap_or_else(|| panic!("{path} in {diff}"))
    };
    assert!(at("long.rs") < at("sub/a.txt"), "{diff}");
    assert!(at("sub/a.txt") < at("sub/deeper/b.txt"), "{diff}");
    assert!(at("sub/deeper/b.txt") < at("sub/f.rs"), "{diff}");
    assert!(at("sub/f.rs") < at("sub2/c.txt"), "{diff}");
    assert!(at("sub2/c.txt") < at("zz.txt"), "{diff}");

    // A macro defined in the top file, used in a subdirectory: the top
    // file reaches every path.
    repo.write(".gitattributes", "[attr]frozen -diff\n");
    repo.write("sub2/.gitattributes", "c.txt frozen\n");
    repo.commit_all("macro");
    let diff = assert_diff_is_git_diff(&repo, "a macro at the top");
    assert!(
        diff.contains("diff --git a/sub2/c.txt b/sub2/c.txt\nindex"),
        "{diff}"
    );

    // $GIT_DIR/info/attributes reaches every path too.
    repo.git(&["rm", "-q", ".gitattributes", "sub2/.gitattributes"]);
    repo.commit_all("no macro");
    std::fs::create_dir_all(repo.path().join(".git/info")).unwrap();
    repo.write(".git/info/attributes", "zz.txt -diff\n");
    let diff = assert_diff_is_git_diff(&repo, "info/attributes");
    let zz = &diff[diff.find("diff --git a/zz.txt").unwrap()..];
    assert!(zz.contains("GIT binary patch"), "{zz}");
}

/// `core.abbrev` given by `git -c` (issue 39 item 4: read as the rest of
/// git's config is, not through libgit2's own reading, which never sees
/// `git -c`): the diff written during the scan and the tree diff (for a
/// path an attribute reaches) both print ids of that length, as `git -c
/// core.abbrev=12 diff` does.
#[test]
fn core_abbrev_from_git_dash_c_sets_the_ids_of_every_diff() {
    let repo = TestRepo::with_files(&[
        ("a.txt", "old_name\n"),
        ("sub/.gitattributes", "b.txt diff\n"),
        ("sub/b.txt", "x\nold_name\n"),
    ]);
    let run = repo.git_evolv(
        &["core.abbrev=12"],
        &["propose", "-p", "old_name", "-r", "new_name"],
    );
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let index_lines = |diff: &str| -> Vec<String> {
        diff.lines()
            .filter(|l| l.starts_with("index "))
            .map(str::to_string)
            .collect()
    };
    let printed = index_lines(&run.stdout);
    assert_eq!(printed.len(), 2, "{}", run.stdout);
    for line in &printed {
        let ids = line["index ".len()..].split(' ').next().unwrap_or_default();
        let lengths: Vec<usize> = ids.split("..").map(str::len).collect();
        assert_eq!(lengths, [12, 12], "{line}");
    }
    let proposal = repo.git(&[
        "for-each-ref",
        "--format=%(objectname)",
        "refs/evolv/proposals/",
    ]);
    let git_diff = repo.git(&["-c", "core.abbrev=12", "diff", "HEAD", proposal.trim()]);
    assert_eq!(printed, index_lines(&git_diff));
}

/// Proposes `old_name` → `new_name`, checks that the diff printed is what
/// `show` prints, byte for byte, and what `git diff --binary` prints
/// between the base and the proposal, byte for byte but for two things
/// libgit2 (which `show` and the attribute-aware path use) has always
/// printed its own way: no tab after a `---`/`+++` name with a space, and
/// binary patches deflated at another level (their payload lines); those
/// patches must still apply, to the proposal's tree. Drops the proposal
/// and returns the diff.
#[track_caller]
fn assert_diff_is_git_diff(repo: &TestRepo, stage: &str) -> String {
    let proposed = repo.evolv(&["propose", "-p", "old_name", "-r", "new_name"]);
    proposed.ok();
    let list = repo.evolv(&["list", "--json"]).json();
    let id = list["proposals"][0]["patch_id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        proposed.stdout_bytes,
        shown_diff(repo, &id),
        "{stage}: show"
    );
    let proposal = repo.git(&["rev-parse", &format!("refs/evolv/proposals/{id}")]);
    let git_diff = repo.git(&["diff", "--binary", "HEAD", proposal.trim()]);
    assert_eq!(
        comparable(&proposed.stdout),
        comparable(&git_diff),
        "{stage}: git diff"
    );
    // The whole diff, binary patches included, applies to the proposal.
    let patch = repo.path().join(".git/proposed.patch");
    std::fs::write(&patch, &proposed.stdout_bytes).unwrap();
    repo.git(&["apply", "--cached", "--binary", patch.to_str().unwrap()]);
    let applied = repo.git(&["write-tree"]);
    let wanted = repo.git(&["rev-parse", &format!("{}^{{tree}}", proposal.trim())]);
    assert_eq!(applied, wanted, "{stage}: the diff applied");
    repo.git(&["reset", "-q"]);
    repo.evolv(&["drop", &id]).ok();
    proposed.stdout
}

/// A diff without the two ways libgit2 prints differently from git (see
/// `assert_diff_is_git_diff`).
fn comparable(diff: &str) -> String {
    let mut out = String::new();
    let mut in_binary = false;
    for line in diff.lines() {
        if line.starts_with("diff --git ") {
            in_binary = false;
        }
        if line == "GIT binary patch" {
            in_binary = true;
        }
        let payload = in_binary
            && !line.is_empty()
            && !line.starts_with("literal ")
            && !line.starts_with("delta ")
            && line != "GIT binary patch";
        if payload {
            out.push_str("<payload>\n");
            continue;
        }
        let line = match line.strip_prefix("--- ").or(line.strip_prefix("+++ ")) {
            Some(_) => line.trim_end_matches('\t'),
            None => line,
        };
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The diff `git evolv show ID` prints after its header (libgit2's tree
/// diff of the stored proposal).
fn shown_diff(repo: &TestRepo, id: &str) -> Vec<u8> {
    let shown = repo.evolv(&["show", id]);
    shown.ok();
    let bytes = shown.stdout_bytes;
    let start = bytes
        .windows(11)
        .position(|w| w == b"diff --git ")
        .expect("show prints the diff");
    bytes[start..].to_vec()
}

/// A diff over `--json`'s 1 MiB: `unified_diff` is its start, cut at a line
/// end, `diff_truncated` says so and `diff_total_bytes` gives the size; the
/// statistics count all of it; the text output and `show` print all of it.
#[test]
fn a_diff_over_a_mebibyte_is_truncated_in_json_only_and_counted_whole() {
    let line = "x".repeat(700);
    let repo = TestRepo::with_many(1600, |i| {
        (
            format!("d{}/f{i}.txt", i % 9),
            format!("{line} old_name {i}\n"),
        )
    });
    let run = repo.evolv(&["propose", "--json", "-p", "old_name", "-r", "new_name"]);
    let v = run.success().stdout_json();
    let diff = v["unified_diff"].as_str().unwrap();
    assert_eq!(v["diff_truncated"], true);
    assert!(
        diff.len() <= 1 << 20 && diff.len() > (1 << 20) - 2000,
        "{}",
        diff.len()
    );
    assert!(diff.ends_with('\n'));
    assert_eq!(v["statistics"]["files_matched"], 1600);
    assert_eq!(v["statistics"]["lines_added"], 1600);
    assert_eq!(v["statistics"]["lines_removed"], 1600);
    let id = v["patch_id"].as_str().unwrap();
    let shown = shown_diff(&repo, id);
    assert_eq!(v["diff_total_bytes"], shown.len());
    assert!(shown.starts_with(diff.as_bytes()));
    repo.evolv(&["drop", id]).ok();
    let text = repo.evolv(&["propose", "-p", "old_name", "-r", "new_name"]);
    text.ok();
    assert_eq!(text.stdout_bytes, shown);
}

/// The scan on several threads over a packed repository (deltas between
/// versions, a large binary stored as a delta): chunks come back in path
/// order, so the diff is git's byte for byte; binaries are skipped and
/// counted; every text file holds exactly the replacement.
#[test]
fn the_scan_on_every_core_over_packed_deltas_is_what_git_would_make() {
    let body = |i: usize, round: usize| -> String {
        let mut s = String::new();
        for l in 0..40 {
            if l == 20 && i.is_multiple_of(3) {
                s.push_str(&format!("    call old_name({i})\n"));
            } else {
                s.push_str(&format!(
                    "line {l} of file {i}, round {}\n",
                    if l == 5 { round } else { 0 }
                ));
            }
        }
        s
    };
    let path = |i: usize| format!("d{:02}/e{}/f{i:04}.txt", i % 23, i % 4);
    let repo = TestRepo::with_many(900, |i| (path(i), body(i, 0)));
    // A second version of every file, then one pack with deltas between
    // the two: the scan reads through delta chains.
    for (i, path) in (0..900).map(path).enumerate() {
        repo.write(&path, &body(i, 1));
    }
    let mut binary = vec![b'b'; 300_000];
    binary[7] = 0;
    binary.extend_from_slice(b" old_name ");
    repo.write_bytes("d00/big.bin", &binary);
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "-m", "round 1"]);
    binary[200_000..200_010].copy_from_slice(b"0123456789");
    repo.write_bytes("d00/big.bin", &binary);
    repo.git(&["commit", "-q", "-am", "binary again"]);
    repo.git(&[
        "repack",
        "-a",
        "-d",
        "-q",
        "-f",
        "--depth=50",
        "--window=20",
    ]);
    repo.git(&["prune-packed"]);
    let stats = repo.git(&["count-objects", "-v"]);
    assert!(stats.contains("count: 0"), "all packed: {stats}");

    let run = repo.evolv(&["propose", "--json", "-p", "old_name", "-r", "new_name"]);
    let v = run.success().stdout_json();
    assert_statistics(&v, "files_scanned=901 files_matched=300 binary_skipped=1");
    let id = v["patch_id"].as_str().unwrap().to_string();
    let proposal = repo.git(&["rev-parse", &format!("refs/evolv/proposals/{id}")]);
    let proposal = proposal.trim();
    // The affected files are listed in path order, as git lists them.
    let listed: Vec<&str> = v["affected_files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    let git_listed = repo.git(&["diff", "--name-only", "HEAD", proposal]);
    assert_eq!(listed, git_listed.lines().collect::<Vec<_>>());
    repo.evolv(&["drop", &id]).ok();
    assert_diff_is_git_diff(&repo, "packed");
    // Every file of the proposal is the old one with the replacement.
    let id = repo.propose("old_name", "new_name", &[]);
    for (i, path) in (0..900).map(path).enumerate() {
        let shown = repo.git(&["show", &format!("refs/evolv/proposals/{id}:{path}")]);
        assert_eq!(
            shown.trim_end(),
            body(i, 1).replace("old_name", "new_name").trim_end(),
            "{path}"
        );
    }
    repo.assert_fsck();
}
