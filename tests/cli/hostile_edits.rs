//! Edit lists as a hostile or careless client writes them (issue 25,
//! items 10-12): the proposal's tree, read back with git, must hold
//! exactly what the list says, and nothing git itself would refuse.

use crate::common::{TestRepo, error_code, run_with_stdin, sealed};

/// Runs git in `repo` with `input` on its stdin; its stdout, trimmed.
fn git_stdin(repo: &TestRepo, args: &[&str], input: &str) -> String {
    let mut cmd = sealed("git", repo.home());
    cmd.args(args).current_dir(repo.path());
    let run = run_with_stdin(cmd, input);
    run.ok();
    run.stdout.trim().to_string()
}

/// Proposes the edit list `json` (written to a file outside the work
/// tree) and returns the proposal's id.
fn propose_list(repo: &TestRepo, json: &str) -> String {
    let list = repo.home().join("edits.json");
    std::fs::write(&list, json).expect("write the edit list");
    let run = repo.evolv(&[
        "propose",
        "--json",
        "--edits",
        list.to_str().expect("utf-8"),
    ]);
    run.ok();
    run.json_str("/patch_id")
}

/// The paths of the proposal's tree.
fn files_at(repo: &TestRepo, id: &str) -> Vec<String> {
    repo.git(&[
        "ls-tree",
        "-r",
        "--name-only",
        &format!("refs/evolv/proposals/{id}"),
    ])
    .lines()
    .map(str::to_string)
    .collect()
}

/// A rename takes its source away, as `git mv` does, even into a path an
/// earlier edit of the same list freed.
#[test]
fn a_rename_into_a_freed_path_is_a_move_not_a_copy() {
    let cases = [
        (
            r#"{"edits": [{"op": "delete", "path": "a.txt"}, {"op": "rename", "path": "b.txt", "to": "a.txt"}]}"#,
            vec!["a.txt"],
            "B\n",
        ),
        (
            r#"{"edits": [{"op": "rename", "path": "a.txt", "to": "c.txt"}, {"op": "rename", "path": "b.txt", "to": "a.txt"}]}"#,
            vec!["a.txt", "c.txt"],
            "B\n",
        ),
    ];
    for (json, want, a_txt) in cases {
        let repo = TestRepo::with_files(&[("a.txt", "A\n"), ("b.txt", "B\n")]);
        let id = propose_list(&repo, json);
        assert_eq!(files_at(&repo, &id), want, "{json}");
        let a = repo.git(&[
            "cat-file",
            "blob",
            &format!("refs/evolv/proposals/{id}:a.txt"),
        ]);
        assert_eq!(a, a_txt, "{json}");
        let shown = repo.evolv(&["show", "--json", &id]);
        shown.ok();
        let diff = shown.json_str("/unified_diff");
        assert!(diff.contains("b.txt"), "the diff says b.txt goes: {diff}");
        repo.assert_fsck();
    }
}

/// A name git refuses is `invalid_input` naming the edit's field, before
/// libgit2 sees it (it used to fail there as `git_error`).
#[test]
fn names_git_refuses_are_invalid_input_naming_the_edit() {
    let repo = TestRepo::with_files(&[("a.txt", "A\n")]);
    for name in [
        ".git /config",
        "x/.git./hooks/pre-commit",
        "git~1/config",
        ".git::$INDEX_ALLOCATION/x",
    ] {
        let list = serde_json::json!({"edits": [{"op": "write", "path": name, "content": "x\n"}]});
        let file = repo.home().join("edits.json");
        std::fs::write(&file, list.to_string()).expect("write the edit list");
        let run = repo.evolv(&[
            "propose",
            "--json",
            "--edits",
            file.to_str().expect("utf-8"),
        ]);
        assert_eq!(error_code(&run), "invalid_input", "{name}");
        let message = run.json_str("/error/message");
        assert!(message.contains("edits[0].path"), "{name}: {message}");
    }
    assert_eq!(repo.git(&["for-each-ref", "refs/evolv/proposals"]), "");
}

/// A proposal of `b.txt` whose commit is remade with the tree `tree_of`
/// builds from the proposal's own `ls-tree` (as a fetch from a hostile
/// clone can bring it), and a validation that leaves a marker if it runs.
fn hostile_proposal(
    repo: &TestRepo,
    tree_of: impl FnOnce(&TestRepo, String) -> String,
) -> (String, std::path::PathBuf) {
    let write_b = r#"{"edits": [{"op": "write", "path": "b.txt", "content": "B\n"}]}"#;
    let id = propose_list(repo, write_b);
    let proposal = format!("refs/evolv/proposals/{id}");
    let tree = tree_of(repo, repo.git(&["ls-tree", &proposal]));
    let message = repo.git(&["log", "-1", "--format=%B", &proposal]);
    let parent = repo.git(&["rev-parse", &format!("{proposal}^")]);
    let args = ["commit-tree", tree.as_str(), "-p", parent.trim()];
    let commit = git_stdin(repo, &args, &message);
    repo.git(&["update-ref", &proposal, &commit]);
    let marker = repo.home().join("validated");
    let validate = format!("touch {}", marker.display());
    repo.git(&["config", "evolv.validate", &validate]);
    (id, marker)
}

/// `apply` of the hostile proposal `id` is `unsafe_path` naming `named`,
/// before validation runs, with nothing changed. (Not `git fsck`: the
/// hostile tree is in the object store, and fsck reports it as git would
/// for any such fetch.)
fn refused(repo: &TestRepo, id: &str, marker: &std::path::Path, named: &str) {
    let head = repo.head();
    let run = repo.evolv(&["apply", "--json", id]);
    assert_eq!(error_code(&run), "unsafe_path", "{}", run.stdout);
    let message = run.json_str("/error/message");
    assert!(message.contains(named), "{message}");
    assert!(!marker.exists(), "validation never ran");
    assert_eq!(repo.head(), head);
    assert_eq!(repo.git(&["status", "--porcelain"]), "");
}

/// A proposal whose tree holds a symbolic link named `.gitmodules` (as a
/// fetch from a hostile clone can bring) is refused as git's own checkout
/// refuses it, before validation runs and with nothing changed.
#[test]
fn a_symlinked_gitmodules_in_a_proposal_is_refused() {
    let repo = TestRepo::with_files(&[("a.txt", "A\n")]);
    let (id, marker) = hostile_proposal(&repo, |repo, mut entries| {
        let link = git_stdin(repo, &["hash-object", "-w", "--stdin"], ".git/config");
        entries.push_str(&format!("120000 blob {link}\t.gitmodules\n"));
        git_stdin(repo, &["mktree"], &entries)
    });
    refused(&repo, &id, &marker, ".gitmodules");
    assert!(std::fs::symlink_metadata(repo.file(".gitmodules")).is_err());
}

/// A proposal whose tree `git fsck` refuses (an entry named twice, which
/// libgit2 reads without complaint) is refused too.
#[test]
fn a_tree_fsck_refuses_is_refused() {
    let repo = TestRepo::with_files(&[("a.txt", "A\n")]);
    let (id, marker) = hostile_proposal(&repo, |repo, entries| {
        // The tree's raw bytes, `b.txt` written twice.
        let mut raw = Vec::new();
        for line in entries
            .lines()
            .chain(entries.lines().filter(|l| l.ends_with("b.txt")))
        {
            let (meta, name) = line.split_once('\t').expect("ls-tree line");
            let fields: Vec<&str> = meta.split(' ').collect();
            let id = (0..20)
                .map(|i| u8::from_str_radix(&fields[2][2 * i..2 * i + 2], 16).expect("hex"))
                .collect::<Vec<u8>>();
            raw.extend_from_slice(
                format!("{} {name}\0", fields[0].trim_start_matches('0')).as_bytes(),
            );
            raw.extend_from_slice(&id);
        }
        let file = repo.home().join("tree.raw");
        std::fs::write(&file, raw).expect("write the tree");
        let path = file.to_str().expect("utf-8");
        repo.git(&["hash-object", "-t", "tree", "--literally", "-w", path])
            .trim()
            .to_string()
    });
    refused(&repo, &id, &marker, "twice");
}

/// A proposal adding the file `name` holding `content` (as a fetch from
/// a hostile clone can bring it).
fn dotfile_proposal(repo: &TestRepo, name: &str, content: &str) -> (String, std::path::PathBuf) {
    hostile_proposal(repo, |repo, mut entries| {
        let blob = git_stdin(repo, &["hash-object", "-w", "--stdin"], content);
        entries.push_str(&format!("100644 blob {}\t{name}\n", blob.trim()));
        git_stdin(repo, &["mktree"], &entries)
    })
}

/// A `.gitmodules` whose content git's fsck refuses (a url or path read
/// as an option, a name climbing out of `.git/modules`, a command as the
/// update) is refused before validation, naming fsck's message id; git's
/// own fsck refuses the same tree. An ordinary one lands.
#[test]
fn a_gitmodules_fsck_refuses_is_refused_and_an_ordinary_one_lands() {
    let cases = [
        (
            "[submodule \"x\"]\n\tpath = x\n\turl = --upload-pack=touch pwned\n",
            "gitmodulesUrl",
        ),
        (
            "[submodule \"x\"]\n\tpath = -x\n\turl = ../x.git\n",
            "gitmodulesPath",
        ),
        (
            "[submodule \"../../hooks\"]\n\tpath = x\n\turl = ../x.git\n",
            "gitmodulesName",
        ),
        (
            "[submodule \"x\"]\n\tpath = x\n\tupdate = !sh -c pwned\n",
            "gitmodulesUpdate",
        ),
    ];
    for (content, id) in cases {
        let repo = TestRepo::with_files(&[("a.txt", "A\n")]);
        let (proposal, marker) = dotfile_proposal(&repo, ".gitmodules", content);
        let fsck = repo.git_run(&["fsck", "--no-dangling"]);
        assert!(
            fsck.stderr.contains(id),
            "git fsck agrees on {id}: {}",
            fsck.stderr
        );
        refused(&repo, &proposal, &marker, id);
        assert!(!repo.file(".gitmodules").exists());
    }
    let repo = TestRepo::with_files(&[("a.txt", "A\n")]);
    let fine = "[submodule \"lib\"]\n\tpath = lib\n\turl = https://example.com/lib.git\n";
    let (proposal, marker) = dotfile_proposal(&repo, ".gitmodules", fine);
    repo.evolv(&["apply", "--json", &proposal]).success();
    assert!(marker.exists(), "validation ran");
    assert_eq!(
        std::fs::read_to_string(repo.file(".gitmodules")).unwrap(),
        fine
    );
    repo.assert_fsck();
}

/// A directory named `.gitmodules` (fsck's `gitmodulesBlob`) is refused.
#[test]
fn a_gitmodules_that_is_not_a_file_is_refused() {
    let repo = TestRepo::with_files(&[("a.txt", "A\n")]);
    let (id, marker) = hostile_proposal(&repo, |repo, mut entries| {
        let blob = git_stdin(repo, &["hash-object", "-w", "--stdin"], "x\n");
        let inner = git_stdin(
            repo,
            &["mktree"],
            &format!("100644 blob {}\tx\n", blob.trim()),
        );
        entries.push_str(&format!("040000 tree {}\t.gitmodules\n", inner.trim()));
        git_stdin(repo, &["mktree"], &entries)
    });
    refused(&repo, &id, &marker, "gitmodulesBlob");
    assert!(!repo.file(".gitmodules").exists());
}

/// A `.gitattributes` with a line git ignores (2048 bytes or more: fsck's
/// `gitattributesLineLength`) is refused; git's fsck refuses it too.
#[test]
fn a_gitattributes_fsck_refuses_is_refused() {
    let repo = TestRepo::with_files(&[("a.txt", "A\n")]);
    let long = format!("*.txt text\n{} diff\n", "x".repeat(2100));
    let (id, marker) = dotfile_proposal(&repo, ".gitattributes", &long);
    let fsck = repo.git_run(&["fsck", "--no-dangling"]);
    assert!(
        fsck.stderr.contains("gitattributesLineLength"),
        "{}",
        fsck.stderr
    );
    refused(&repo, &id, &marker, "gitattributesLineLength");
    assert!(!repo.file(".gitattributes").exists());
}
