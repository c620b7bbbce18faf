//! Each family of adapter operations, made to fail on a real repository:
//! the error names what it was about (object id, ref or path) and keeps
//! its stable code (issue 24 item 2).

use std::path::Path;

use evolv_core::error::{Error, GitSubject};

use crate::{Oid, Repo};

use crate::objects::write::{FileUpdate, NewObject, updated_trees, write_objects};
use crate::test_git::git;

/// A repository whose HEAD holds `dir/a.txt`, and the ids of HEAD's tree
/// and of its `dir` subtree.
fn repo_with_a_subtree(d: &Path) -> (Repo, Oid, Oid) {
    git(d, &["init", "-q", "-b", "main"]);
    std::fs::create_dir(d.join("dir")).unwrap();
    std::fs::write(d.join("dir/a.txt"), "one\n").unwrap();
    git(d, &["add", "."]);
    git(d, &["commit", "-qm", "one"]);
    let tree = Oid::parse(&git(d, &["rev-parse", "HEAD^{tree}"])).unwrap();
    let sub = Oid::parse(&git(d, &["rev-parse", "HEAD:dir"])).unwrap();
    (crate::open(d).unwrap(), tree, sub)
}

/// `err` is a libgit2 failure while doing `operation` on `subject`, under
/// the stable code, its message naming both.
fn assert_doing(err: &Error, operation: &str, subject: GitSubject) {
    assert_eq!(err.code(), "git_error");
    let named = match &subject {
        GitSubject::Object(text) | GitSubject::Ref(text) => text.clone(),
        GitSubject::Path(path) => path.display().to_string(),
        GitSubject::None => String::new(),
    };
    let said = format!("{operation} {named}");
    assert!(err.to_string().contains(&said), "{err}");
    let Error::GitLibrary { doing, .. } = err else {
        panic!("not a libgit2 failure: {err:?}");
    };
    assert_eq!((doing.operation, &doing.subject), (operation, &subject));
}

/// The trees of `tree` with `dir/a.txt` set to `blob`.
fn with_new_a(repo: &Repo, tree: Oid, blob: Oid) -> crate::error::Result<(Oid, Vec<NewObject>)> {
    let base = repo.raw().find_tree(tree.raw()).unwrap();
    let update = FileUpdate {
        path: b"dir/a.txt",
        oid: blob,
        mode: 0o100644,
    };
    updated_trees(repo, &crate::objects::view::Tree::new(base), &[update])
}

/// Where git keeps the loose object `id`.
fn loose(d: &Path, id: Oid) -> std::path::PathBuf {
    let hex = id.to_string();
    d.join(".git/objects").join(&hex[..2]).join(&hex[2..])
}

#[test]
fn reading_a_missing_object_names_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (repo, tree, sub) = repo_with_a_subtree(d);
    std::fs::remove_file(loose(d, sub)).unwrap();
    let err = with_new_a(&repo, tree, Oid::zero()).unwrap_err();
    assert_doing(&err, "read tree", GitSubject::Object(sub.to_string()));
    assert!(err.hint().contains("exists"), "{}", err.hint());
}

#[test]
fn writing_a_tree_the_object_store_refuses_names_the_tree() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (repo, tree, _) = repo_with_a_subtree(d);
    let blob = Oid::from(repo.raw().blob(b"two\n").unwrap());
    let (root, new) = with_new_a(&repo, tree, blob).unwrap();
    // The new root tree's fan-out folder is a file: no write can go there
    // (a permission would not stop root, who runs CI).
    let fanout = loose(d, crate::Oid::from(root.raw()))
        .parent()
        .unwrap()
        .to_path_buf();
    let _ = std::fs::remove_dir_all(&fanout);
    std::fs::write(&fanout, "").unwrap();
    let objects: Vec<_> = new.iter().collect();
    let err = write_objects(&repo, &objects).unwrap_err();
    assert_doing(&err, "write tree", GitSubject::Object(root.to_string()));
}

#[test]
fn updating_a_ref_someone_moved_names_the_ref() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let (repo, tree, _) = repo_with_a_subtree(d);
    let head = Oid::parse(&git(d, &["rev-parse", "HEAD"])).unwrap();
    let other = Oid::parse(&git(d, &["commit-tree", &tree.to_string(), "-m", "x"])).unwrap();
    // Expected at `other`, but the branch is at `head`.
    let err =
        crate::compare_and_swap(&repo, "refs/heads/main", head, Some(other), "t").unwrap_err();
    assert_eq!(err.code(), "concurrent_update");
    assert!(err.to_string().contains("refs/heads/main"), "{err}");
    // A ref name git refuses: libgit2's failure, with the ref named.
    let err = crate::compare_and_swap(&repo, "refs/heads/a..b", head, None, "t").unwrap_err();
    let name = "refs/heads/a..b";
    assert_doing(&err, "update ref", GitSubject::Ref(name.into()));
}

#[test]
fn reading_a_corrupt_index_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    repo_with_a_subtree(d);
    std::fs::write(d.join(".git/index"), b"DIRC not an index at all").unwrap();
    let repo = crate::open(d).unwrap();
    let err = repo.with_index(|_| ()).unwrap_err();
    let index = d.join(".git/index");
    assert!(
        err.to_string().contains(&index.display().to_string()),
        "{err}"
    );
    assert_eq!(err.code(), "git_error");
}

#[test]
fn reading_a_bad_config_names_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    repo_with_a_subtree(d);
    let config = d.join(".git/config");
    let mut text = std::fs::read_to_string(&config).unwrap();
    text.push_str("[evolv\n\tvalidate = x\n");
    std::fs::write(&config, text).unwrap();
    let err = crate::config::Config::for_git_dir(&d.join(".git")).unwrap_err();
    assert!(
        err.to_string().contains(&config.display().to_string()),
        "{err}"
    );
    assert!(err.to_string().contains("line 6"), "{err}");
    assert_eq!(err.code(), "invalid_config");
}
