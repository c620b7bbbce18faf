//! `edit_tree` against libgit2's tree updater, which it replaced: the
//! same trees for the same edits, and the same refusals in the same words.

use super::TreeEdit;
use tempfile::TempDir;

use crate::test_git::{git, literal_tree, new_repo, rev_parse};
use crate::{Oid, Repo, on_object};

/// What `edit_tree` did before gix's editor: libgit2's updater.
fn by_libgit2(repo: &Repo, base: Oid, edits: &[TreeEdit]) -> crate::error::Result<Oid> {
    let raw = repo.raw();
    let tree = raw.find_tree(base.raw()).unwrap();
    let mut update = git2::build::TreeUpdateBuilder::new();
    for edit in edits {
        match edit {
            TreeEdit::Put { path, id, mode } => {
                update.upsert(path.as_slice(), id.raw(), crate::file_mode(*mode));
            }
            TreeEdit::Remove { path } => {
                update.remove(path.as_slice());
            }
        }
    }
    update
        .create_updated(raw, &tree)
        .map(Oid::from)
        .map_err(|e| {
            let doing = on_object("write tree", base).said(format!(
                "write tree {base} with {} paths changed",
                edits.len()
            ));
            crate::library_error(doing, e)
        })
}

/// A new repository whose index holds a few nested files; the tree of
/// that index.
fn base() -> (TempDir, Repo, Oid) {
    let dir = new_repo();
    let d = dir.path();
    for (path, content) in [
        ("top.txt", "top\n"),
        ("a/x.txt", "x\n"),
        ("a/b/y.txt", "y\n"),
        ("a/b/c/z.txt", "z\n"),
        ("lonely/only.txt", "only\n"),
        ("gone/one.txt", "1\n"),
        ("gone/two/three.txt", "3\n"),
    ] {
        let full = d.join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, content).unwrap();
    }
    git(d, &["add", "-A"]);
    let tree = Oid::parse(&git(d, &["write-tree"])).unwrap();
    let repo = crate::open(d).unwrap();
    (dir, repo, tree)
}

fn put(path: &str, id: Oid, mode: i32) -> TreeEdit {
    TreeEdit::Put {
        path: path.as_bytes().to_vec(),
        id,
        mode,
    }
}

fn remove(path: &str) -> TreeEdit {
    TreeEdit::Remove {
        path: path.as_bytes().to_vec(),
    }
}

#[test]
fn edits_make_the_trees_libgit2s_updater_made() {
    let (dir, repo, tree) = base();
    let d = dir.path();
    let blob = |s: &str| repo.write_blob(s.as_bytes()).unwrap();
    let cases: Vec<Vec<TreeEdit>> = vec![
        vec![put("a/b/c/z.txt", blob("new z\n"), 0o100644)],
        vec![put("top.txt", blob("top\n"), 0o100755)],
        vec![put("new/deep/er/file.txt", blob("deep\n"), 0o100644)],
        vec![put("link", blob("top.txt"), 0o120000)],
        vec![remove("lonely/only.txt")],
        vec![remove("gone")],
        vec![
            remove("a/x.txt"),
            put("a/renamed.txt", blob("x\n"), 0o100644),
            put("a/b/y.txt", blob("why\n"), 0o100755),
            remove("gone/two/three.txt"),
            put("z-last.txt", blob("last\n"), 0o100644),
        ],
        vec![
            remove("top.txt"),
            remove("a"),
            remove("lonely"),
            remove("gone"),
        ],
    ];
    for edits in cases {
        let expected = by_libgit2(&repo, tree, &edits).unwrap();
        let got = repo.edit_tree(tree, &edits).unwrap();
        assert_eq!(got, expected, "{edits:?}");
        // Every tree written is there, and git reads it the same.
        git(d, &["ls-tree", "-r", &got.to_string()]);
    }
    assert_eq!(git(d, &["fsck", "--no-dangling"]), "");
}

#[test]
fn what_libgit2_refused_is_refused_in_its_words() {
    let (dir, repo, tree) = base();
    let d = dir.path();
    let blob = repo.write_blob(b"b\n").unwrap();
    let tree_id = rev_parse(d, &format!("{tree}:a"));
    let missing = Oid::parse("0123456789012345678901234567890123456789").unwrap();
    let cases: Vec<Vec<TreeEdit>> = vec![
        vec![
            put("top.txt", blob, 0o100644),
            put("top.txt", blob, 0o100755),
        ],
        vec![remove("top.txt"), remove("top.txt")],
        vec![put("top.txt/inside", blob, 0o100644)],
        vec![put("a", blob, 0o100644)],
        vec![put("top.txt", tree_id, 0o040000)],
        vec![put("new.txt", Oid::zero(), 0o100644)],
        vec![put("new.txt", missing, 0o100644)],
        vec![put("new.txt", tree_id, 0o100644)],
        vec![remove("not/there.txt")],
        vec![remove("a/not-there.txt")],
        vec![put("b.txt", blob, 0o100644), put("b.txt/c", blob, 0o100644)],
    ];
    for edits in cases {
        let expected = by_libgit2(&repo, tree, &edits).unwrap_err();
        let got = repo.edit_tree(tree, &edits).unwrap_err();
        assert_eq!(got.to_string(), expected.to_string(), "{edits:?}");
        assert_eq!(got.full_message(), expected.full_message(), "{edits:?}");
        assert_eq!(got.code(), expected.code());
    }
}

/// The tree git's index writes for `edits` on `tree`: every removal made
/// (`rm --cached`), then every put (`--cacheinfo`), as
/// `git apply --cached` deletes before it creates.
fn by_git_index(d: &std::path::Path, tree: Oid, edits: &[TreeEdit]) -> String {
    git(d, &["read-tree", &tree.to_string()]);
    for edit in edits {
        if let TreeEdit::Remove { path } = edit {
            let path = String::from_utf8_lossy(path);
            git(d, &["rm", "-r", "-q", "--cached", "--", &path]);
        }
    }
    for edit in edits {
        if let TreeEdit::Put { path, id, mode } = edit {
            let info = format!("{mode:o},{id},{}", String::from_utf8_lossy(path));
            git(d, &["update-index", "--add", "--cacheinfo", &info]);
        }
    }
    git(d, &["write-tree"]).trim().to_string()
}

// Issue 38 item 19: libgit2's updater refused what a patch git applies
// does (a chain of renames removes and puts one path; a file removed
// becomes a folder, and a folder emptied becomes a file). Removals now
// come first, and the trees are the ones git's index writes.
#[test]
fn removals_come_before_puts_as_a_patch_applies_them() {
    let (dir, repo, tree) = base();
    let d = dir.path();
    let blob = |s: &str| repo.write_blob(s.as_bytes()).unwrap();
    let x = rev_parse(d, &format!("{tree}:a/x.txt"));
    let top = rev_parse(d, &format!("{tree}:top.txt"));
    let cases: Vec<Vec<TreeEdit>> = vec![
        // b→c, a→b: top.txt → moved.txt, a/x.txt → top.txt.
        vec![
            remove("top.txt"),
            put("moved.txt", top, 0o100644),
            remove("a/x.txt"),
            put("top.txt", x, 0o100644),
        ],
        // A file becomes a folder.
        vec![
            remove("top.txt"),
            put("top.txt/inside", blob("in\n"), 0o100644),
        ],
        // A folder emptied becomes a file (its files listed one by one).
        vec![
            remove("gone/one.txt"),
            remove("gone/two/three.txt"),
            put("gone", blob("file now\n"), 0o100644),
        ],
        vec![put("lonely", blob("f\n"), 0o100644), remove("lonely")],
    ];
    for edits in cases {
        let got = repo.edit_tree(tree, &edits).unwrap();
        assert_eq!(got.to_string(), by_git_index(d, tree, &edits), "{edits:?}");
    }
    // A folder that keeps a file is still not replaced by one.
    let kept = [remove("gone/one.txt"), put("gone", blob("f\n"), 0o100644)];
    let refused = repo.edit_tree(tree, &kept).unwrap_err();
    let said = refused.full_message();
    assert!(
        said.contains("cannot replace 'tree' with 'blob' at 'gone'"),
        "{said}"
    );
    assert_eq!(git(d, &["fsck", "--no-dangling"]), "");
}

/// An entry the edits do not touch keeps its raw mode, even one git never
/// writes (`100664`), as libgit2's updater kept it.
#[test]
fn untouched_entries_keep_their_raw_mode() {
    let (dir, repo, _) = base();
    let d = dir.path();
    let blob = repo.write_blob(b"kept\n").unwrap();
    let tree = literal_tree(d, &[("100664", "a", blob), ("100644", "b", blob)]);
    let edits = [put("b", repo.write_blob(b"new\n").unwrap(), 0o100644)];
    let expected = by_libgit2(&repo, tree, &edits).unwrap();
    assert_eq!(repo.edit_tree(tree, &edits).unwrap(), expected);
    let odb = repo.raw().odb().unwrap();
    let written = odb.read(expected.raw()).unwrap();
    assert!(written.data().starts_with(b"100664 a\0"));
}
