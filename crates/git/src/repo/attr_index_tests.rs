//! The scan of the raw index against the full parse, on indexes real git
//! writes: every version, long names, stages, split and sparse indexes,
//! and files cut short or carrying an unknown mandatory extension.

use std::collections::HashSet;
use std::path::Path;

use super::tracked_attribute_dirs;
use crate::formats::index::IndexFile;
use crate::repo::attr_sources::{Indexed, indexed_dirs};
use crate::test_git::{git, new_repo};

/// What the full parse says (the answer before this scan existed).
fn parsed_dirs(git_dir: &Path) -> HashSet<Vec<u8>> {
    let bytes = std::fs::read(git_dir.join("index")).unwrap();
    match indexed_dirs(&IndexFile::parse(&bytes).unwrap()) {
        Indexed::Dirs(d) => d,
        Indexed::Unknown => panic!("a plain index parses"),
    }
}

fn dirs(list: &[&str]) -> HashSet<Vec<u8>> {
    list.iter().map(|d| d.as_bytes().to_vec()).collect()
}

/// Stages `paths` as entries of one blob, without files in the work tree
/// (`update-index --index-info`: any name, any stage).
fn stage(dir: &Path, entries: &[(u32, &str)]) {
    let blob = git(dir, &["hash-object", "-w", "--stdin"]);
    let info: String = entries
        .iter()
        .map(|(stage, path)| format!("100644 {blob} {stage}\t{path}\n"))
        .collect();
    let mut child = std::process::Command::new("git")
        .args(["update-index", "--add", "--index-info"])
        .current_dir(dir)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(info.as_bytes())
        .unwrap();
    assert!(child.wait().unwrap().success());
}

/// Names that are and are not a `.gitattributes`, a name longer than the
/// 12 bits of an entry's length field, and a conflicted one.
fn varied_index(dir: &Path) {
    let long = format!("{}/.gitattributes", long_dir());
    stage(
        dir,
        &[
            (0, ".gitattributes"),
            (0, "a/b/.gitattributes"),
            (0, "a/b/c.txt"),
            (0, "x.gitattributes"),
            (0, "y/x.gitattributes"),
            (0, "z/.gitattributes/inner"),
            (0, ".gitattributes.bak"),
            (0, &long),
            (0, "zz/plain.rs"),
        ],
    );
    stage(dir, &[(1, "m/.gitattributes"), (2, "m/.gitattributes")]);
}

/// A directory whose `.gitattributes` has a name of more than 4,095 bytes.
fn long_dir() -> String {
    "d".repeat(250) + &"/e".repeat(2000)
}

fn expected() -> HashSet<Vec<u8>> {
    dirs(&["", "a/b", &long_dir(), "m"])
}

#[test]
fn no_index_file_tracks_nothing() {
    let dir = new_repo();
    assert_eq!(
        tracked_attribute_dirs(&dir.path().join(".git")),
        Some(HashSet::new())
    );
}

/// Versions 2 and 4 (git writes 3 only with extended flags: below).
#[test]
fn every_index_version_answers_as_the_full_parse() {
    for version in ["2", "4"] {
        let dir = new_repo();
        let d = dir.path();
        varied_index(d);
        git(d, &["update-index", "--index-version", version]);
        let git_dir = d.join(".git");
        let bytes = std::fs::read(git_dir.join("index")).unwrap();
        assert_eq!(bytes[7].to_string(), version);
        assert_eq!(
            tracked_attribute_dirs(&git_dir),
            Some(expected()),
            "v{version}"
        );
        assert_eq!(parsed_dirs(&git_dir), expected(), "v{version}");
    }
}

/// Intent-to-add entries carry extended flags (version 3, or 4, with a
/// 64-byte fixed part); a cache tree follows the entries (an optional
/// extension).
#[test]
fn extended_flags_and_a_cache_tree_are_read_past() {
    let dir = new_repo();
    let d = dir.path();
    std::fs::create_dir_all(d.join("s/t")).unwrap();
    std::fs::write(d.join("s/t/.gitattributes"), "*.bin binary\n").unwrap();
    std::fs::write(d.join("s/new.txt"), "n\n").unwrap();
    std::fs::write(d.join("top.txt"), "t\n").unwrap();
    git(d, &["add", "s/t/.gitattributes", "top.txt"]);
    git(d, &["commit", "-qm", "one"]);
    git(d, &["add", "-N", "s/new.txt"]);
    git(d, &["write-tree"]);
    let git_dir = d.join(".git");
    let bytes = std::fs::read(git_dir.join("index")).unwrap();
    assert_eq!(bytes[7], 3);
    assert_eq!(tracked_attribute_dirs(&git_dir), Some(dirs(&["s/t"])));
    assert_eq!(parsed_dirs(&git_dir), dirs(&["s/t"]));
    git(d, &["update-index", "--index-version", "4"]);
    assert_eq!(tracked_attribute_dirs(&git_dir), Some(dirs(&["s/t"])));
}

/// A split index keeps its entries in a shared file; a sparse index folds
/// directories: both are left to the full parse.
#[test]
fn split_and_sparse_indexes_are_left_to_the_parse() {
    let dir = new_repo();
    let d = dir.path();
    varied_index(d);
    git(d, &["update-index", "--split-index"]);
    assert_eq!(tracked_attribute_dirs(&d.join(".git")), None);

    let dir = new_repo();
    let d = dir.path();
    for f in ["in/a.txt", "out/b.txt", "out/.gitattributes"] {
        std::fs::create_dir_all(d.join(f).parent().unwrap()).unwrap();
        std::fs::write(d.join(f), "x\n").unwrap();
    }
    git(d, &["add", "."]);
    git(d, &["commit", "-qm", "one"]);
    git(
        d,
        &["sparse-checkout", "set", "--cone", "--sparse-index", "in"],
    );
    let bytes = std::fs::read(d.join(".git/index")).unwrap();
    assert!(bytes.windows(4).any(|w| w == b"sdir"), "a sparse index");
    assert_eq!(tracked_attribute_dirs(&d.join(".git")), None);
}

/// A file cut anywhere, one with an unknown mandatory extension, and one
/// that is not an index are left to the parse; an unknown optional
/// extension is read past.
#[test]
fn damaged_or_unknown_indexes_are_left_to_the_parse() {
    let dir = new_repo();
    let d = dir.path();
    varied_index(d);
    let index = d.join(".git/index");
    let whole = std::fs::read(&index).unwrap();
    for cut in [
        0,
        5,
        12,
        40,
        100,
        whole.len() / 2,
        whole.len() - 21,
        whole.len() - 1,
    ] {
        std::fs::write(&index, &whole[..cut]).unwrap();
        assert_eq!(
            tracked_attribute_dirs(&d.join(".git")),
            None,
            "cut at {cut}"
        );
    }
    let body = &whole[..whole.len() - 20];
    for (signature, answer) in [(b"abcd", None), (b"ABCD", Some(expected()))] {
        let mut bytes = body.to_vec();
        bytes.extend_from_slice(signature);
        bytes.extend_from_slice(&3u32.to_be_bytes());
        bytes.extend_from_slice(b"xyz");
        bytes.extend_from_slice(&[0; 20]);
        std::fs::write(&index, &bytes).unwrap();
        assert_eq!(tracked_attribute_dirs(&d.join(".git")), answer);
    }
    std::fs::write(&index, b"not an index file at all, but long enough").unwrap();
    assert_eq!(tracked_attribute_dirs(&d.join(".git")), None);
}

/// Many entries across many read blocks, in versions 2 and 4.
#[test]
fn a_large_index_is_read_across_blocks() {
    let dir = new_repo();
    let d = dir.path();
    let names: Vec<String> = (0..6000)
        .map(|i| match i % 1000 {
            0 => format!("p{:04}/q/.gitattributes", i / 1000),
            _ => format!("p{:04}/q/file-with-a-longish-name-{i:05}.txt", i / 1000),
        })
        .collect();
    let entries: Vec<(u32, &str)> = names.iter().map(|n| (0, n.as_str())).collect();
    stage(d, &entries);
    let want: HashSet<Vec<u8>> = (0..6).map(|k| format!("p{k:04}/q").into_bytes()).collect();
    for version in ["2", "4"] {
        git(d, &["update-index", "--index-version", version]);
        assert!(
            std::fs::metadata(d.join(".git/index")).unwrap().len() > 2 * super::BLOCK as u64
                || version == "4"
        );
        assert_eq!(
            tracked_attribute_dirs(&d.join(".git")),
            Some(want.clone()),
            "v{version}"
        );
        assert_eq!(parsed_dirs(&d.join(".git")), want);
    }
}
