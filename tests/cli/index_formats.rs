//! Index formats and checkouts that are not plain: a split index, a sparse
//! checkout (skip-worktree entries), a sparse index.

use crate::common::{TestRepo, assert_has, error_code, str_of};

fn three_files() -> TestRepo {
    TestRepo::with_files(&[
        ("a/x.txt", "hello a\n"),
        ("b/y.txt", "hello b\n"),
        ("top.txt", "hello top\n"),
    ])
}

#[test]
fn a_split_index_is_made_plain_by_git_and_the_landing_goes_on() {
    let repo = three_files();
    repo.set_config("core.splitIndex", "true");
    repo.git(&["update-index", "--split-index"]);
    repo.write("staged.txt", "mine, staged\n");
    repo.git(&["add", "staged.txt"]);
    repo.write("top.txt", "hello top\nmy unstaged edit\n");
    let h = repo.head();
    let id = repo.propose("hello", "bye", &["--scope", "a/**", "--scope", "b/**"]);
    repo.evolv(&["apply", &id]).ok();
    assert_eq!(repo.rev("HEAD^").as_deref(), Some(h.as_str()));
    assert_eq!(repo.read("a/x.txt"), "bye a\n");
    assert_eq!(repo.read("b/y.txt"), "bye b\n");
    assert_eq!(
        repo.git(&["status", "--porcelain"]),
        "A  staged.txt\n M top.txt\n"
    );
    // git splits the index again on its next write; a second landing
    // copes the same way.
    repo.git(&["add", "staged.txt"]);
    let id = repo.propose("bye", "ciao", &["--scope", "a/**"]);
    repo.evolv(&["apply", &id]).ok();
    assert_eq!(repo.read("a/x.txt"), "ciao a\n");
    assert_eq!(
        repo.git(&["status", "--porcelain"]),
        "A  staged.txt\n M top.txt\n"
    );
    repo.assert_fsck();
    repo.git(&["commit", "-q", "-m", "the staged file"]);
}

#[test]
fn a_sparse_checkout_updates_entries_outside_it_without_writing_files() {
    let repo = three_files();
    repo.git(&["sparse-checkout", "set", "--cone", "--no-sparse-index", "a"]);
    assert!(!repo.file("b/y.txt").exists());
    let id = repo.propose("hello", "bye", &[]);
    repo.evolv(&["apply", &id]).ok();
    assert_eq!(repo.read("a/x.txt"), "bye a\n");
    assert_eq!(repo.read("top.txt"), "bye top\n");
    assert!(!repo.file("b/y.txt").exists(), "no file outside the cone");
    assert_eq!(repo.git(&["show", "HEAD:b/y.txt"]), "bye b\n");
    let tags = repo.git(&["ls-files", "-t", "b"]);
    assert_eq!(tags, "S b/y.txt\n", "still outside the sparse checkout");
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    // Rolled back the same way.
    repo.evolv(&["rollback", &id]).ok();
    assert_eq!(repo.read("a/x.txt"), "hello a\n");
    assert!(!repo.file("b/y.txt").exists());
    assert_eq!(repo.git(&["ls-files", "-t", "b"]), "S b/y.txt\n");
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    // Leaving the sparse checkout shows exactly the tip's content.
    repo.git(&["sparse-checkout", "disable"]);
    assert_eq!(repo.read("b/y.txt"), "hello b\n");
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    repo.assert_fsck();
}

#[test]
fn a_sparse_index_is_refused_with_the_way_out() {
    let repo = three_files();
    repo.git(&["sparse-checkout", "set", "--cone", "--sparse-index", "a"]);
    let h = repo.head();
    let id = repo.propose("hello", "bye", &[]);
    let run = repo.evolv(&["apply", "--json", &id]);
    assert_eq!(error_code(&run), "unsupported_repository", "{}", run.stdout);
    let error = &run.json()["error"];
    assert!(
        error["message"].as_str().unwrap().contains("sparse index"),
        "{error}"
    );
    assert_has(
        str_of(&error["hint"]),
        "git sparse-checkout reapply --no-sparse-index",
    );
    assert_eq!(repo.head(), h);
    assert_eq!(repo.read("a/x.txt"), "hello a\n");
    assert!(!repo.file(".git/evolv/journal").exists());
    assert!(!repo.file(".git/index.lock").exists());
    // The way out works.
    repo.git(&["sparse-checkout", "reapply", "--no-sparse-index"]);
    repo.evolv(&["apply", &id]).ok();
    assert_eq!(repo.read("a/x.txt"), "bye a\n");
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
    repo.assert_fsck();
}
