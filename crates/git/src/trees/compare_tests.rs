//! `changed_paths` against git's own `diff-tree -r --no-renames` on trees
//! with every kind of change: the same paths with the same statuses (the
//! libgit2 walk it replaced gave git's list too; this test ran on both).

use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use crate::test_git::{git, literal_tree, rev_parse};
use crate::{Change, ChangedPath, Oid, RepoPath};

fn write(d: &Path, path: &[u8], content: &str) {
    let full = d.join(std::ffi::OsStr::from_bytes(path));
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    std::fs::write(full, content).unwrap();
}

/// Stages the work tree; the id of its tree.
fn tree(d: &Path) -> Oid {
    git(d, &["add", "-A"]);
    Oid::parse(&git(d, &["write-tree"])).unwrap()
}

/// A new repository whose work tree holds only `path`, staged; the id of
/// its tree.
fn one_file(path: &[u8], content: &str) -> (tempfile::TempDir, Oid) {
    let dir = crate::test_git::new_repo();
    write(dir.path(), path, content);
    let tree = tree(dir.path());
    (dir, tree)
}

/// git's list of the paths that differ from `old` to `new`.
fn git_list(d: &Path, old: Oid, new: Oid) -> Vec<ChangedPath> {
    let out = std::process::Command::new("git")
        .args(["diff-tree", "-r", "--no-renames", "--name-status", "-z"])
        .args([old.to_string(), new.to_string()])
        .current_dir(d)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let fields: Vec<&[u8]> = out.stdout.split(|&b| b == 0).collect();
    let mut list: Vec<ChangedPath> = fields
        .chunks(2)
        .filter(|pair| pair.len() == 2)
        .map(|pair| ChangedPath {
            path: RepoPath::from(pair[1]),
            status: match pair[0] {
                b"A" => Change::Added,
                b"D" => Change::Deleted,
                _ => Change::Modified,
            },
        })
        .collect();
    list.sort_by(|a, b| a.path.cmp(&b.path));
    list
}

#[test]
fn changed_paths_are_gits_for_adds_deletes_modes_renames_and_subtrees() {
    let dir = crate::test_git::new_repo();
    let d = dir.path();
    for path in [
        &b"keep.txt"[..],
        b"mod.txt",
        b"del.txt",
        b"mode.sh",
        b"old-name.txt",
        b"sub/a.txt",
        b"sub/deep/b.txt",
        b"gone/x.txt",
        b"gone/y/z.txt",
        b"f2d",
        b"d2f/inner.txt",
        b"caf\xe9/menu.txt",
    ] {
        write(d, path, &format!("{}\n", String::from_utf8_lossy(path)));
    }
    std::os::unix::fs::symlink("keep.txt", d.join("link")).unwrap();
    let old = tree(d);

    write(d, b"mod.txt", "changed\n");
    std::fs::remove_file(d.join("del.txt")).unwrap();
    git(d, &["update-index", "--chmod=+x", "mode.sh"]);
    std::fs::remove_file(d.join("link")).unwrap();
    write(d, b"link", "a file now\n");
    std::fs::rename(d.join("old-name.txt"), d.join("new-name.txt")).unwrap();
    write(d, b"sub/deep/b.txt", "changed\n");
    write(d, b"sub/new.txt", "new\n");
    std::fs::remove_dir_all(d.join("gone")).unwrap();
    std::fs::remove_file(d.join("f2d")).unwrap();
    write(d, b"f2d/c.txt", "was a file\n");
    std::fs::remove_dir_all(d.join("d2f")).unwrap();
    write(d, b"d2f", "was a folder\n");
    write(d, b"newdir/n1/n2.txt", "deep new\n");
    write(d, b"caf\xe9/menu.txt", "changed\n");
    git(d, &["add", "-A"]);
    git(d, &["update-index", "--chmod=+x", "mode.sh"]);
    let new = Oid::parse(&git(d, &["write-tree"])).unwrap();

    let repo = crate::open(d).unwrap();
    let (old_tree, new_tree) = (repo.find_tree(old).unwrap(), repo.find_tree(new).unwrap());
    let expected = git_list(d, old, new);
    assert!(expected.len() >= 15, "{expected:?}");
    assert_eq!(
        crate::changed_paths(&repo, &old_tree, &new_tree).unwrap(),
        expected
    );
    let backwards = git_list(d, new, old);
    assert_eq!(
        crate::changed_paths(&repo, &new_tree, &old_tree).unwrap(),
        backwards
    );
    assert!(
        crate::changed_paths(&repo, &old_tree, &old_tree)
            .unwrap()
            .is_empty()
    );
}

#[test]
fn a_missing_subtree_is_named() {
    let (dir, old) = one_file(b"dir/a.txt", "one\n");
    let d = dir.path();
    write(d, b"dir/a.txt", "two\n");
    let new = tree(d);
    let sub = rev_parse(d, &format!("{new}:dir"));
    let hex = sub.to_string();
    std::fs::remove_file(d.join(".git/objects").join(&hex[..2]).join(&hex[2..])).unwrap();
    let repo = crate::open(d).unwrap();
    let (old_tree, new_tree) = (repo.find_tree(old).unwrap(), repo.find_tree(new).unwrap());
    let err = crate::changed_paths(&repo, &old_tree, &new_tree).unwrap_err();
    assert_eq!(err.code(), "git_error");
    assert_eq!(err.to_string(), format!("read tree {sub}"), "{err:?}");
}

/// Modes compare as libgit2 read them: `100664` and `100654` are a plain
/// file like `100644`; the owner's execute bit (`100744`) makes an
/// executable. (This test passed on the libgit2 walk too.)
#[test]
fn odd_modes_compare_as_libgit2_read_them() {
    let (dir, plain) = one_file(b"f", "f\n");
    let d = dir.path();
    let blob = rev_parse(d, &format!("{plain}:f"));
    let repo = crate::open(d).unwrap();
    let changed = |mode: &str| {
        let odd = repo
            .find_tree(literal_tree(d, &[(mode, "f", blob)]))
            .unwrap();
        crate::changed_paths(&repo, &repo.find_tree(plain).unwrap(), &odd).unwrap()
    };
    assert_eq!(changed("100664"), []);
    assert_eq!(changed("100654"), []);
    let modified = [ChangedPath {
        path: RepoPath::from("f"),
        status: Change::Modified,
    }];
    assert_eq!(changed("100744"), modified);
    assert_eq!(changed("100755"), modified);
}
