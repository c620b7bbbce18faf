//! Many files at once (issue 14 items 1–2): a propose of hundreds of files
//! writes its new blobs and trees as one pack without deltas, which git reads and
//! verifies, and the apply lands them all as git would.

use crate::common::TestRepo;

#[test]
fn a_propose_of_many_files_writes_one_undeltified_pack_that_git_verifies() {
    let files: Vec<(String, String)> = (0..300)
        .map(|i| {
            (
                format!("d{}/f{i}.txt", i % 7),
                format!("line one of {i}\ncall old_name() here\nline three\n"),
            )
        })
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    let repo = TestRepo::with_files(&refs);
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
    for (path, content) in &files {
        assert_eq!(repo.read(path), content.replace("old_name", "new_name"));
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
        assert!(
            text.contains(" 100755\n") && text.contains("\\ No newline"),
            "{text}"
        );
        assert_eq!(proposed.stdout_bytes, shown, "core.abbrev {abbrev:?}");
        repo.evolv(&["drop", &id]).ok();
    }
    // An attribute: propose hands the diff to libgit2's tree diff.
    repo.write("sub/.gitattributes", "*.txt -diff\n");
    repo.write("sub/a.txt", "old_name\n");
    repo.commit_all("attributes");
    let proposed = repo.evolv(&["propose", "-p", "old_name", "-r", "new_name"]);
    proposed.ok();
    assert!(
        proposed.stdout.contains("GIT binary patch"),
        "{}",
        proposed.stdout
    );
    let list = repo.evolv(&["list", "--json"]).json();
    let id = list["proposals"][0]["patch_id"].as_str().unwrap();
    assert_eq!(proposed.stdout_bytes, shown_diff(&repo, id));
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
    let files: Vec<(String, String)> = (0..1600)
        .map(|i| {
            (
                format!("d{}/f{i}.txt", i % 9),
                format!("{line} old_name {i}\n"),
            )
        })
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    let repo = TestRepo::with_files(&refs);
    let run = repo.evolv(&["propose", "--json", "-p", "old_name", "-r", "new_name"]);
    run.ok();
    let v = run.json();
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
