//! For unit tests: runs real git in a directory, sealed off from the
//! machine's config, with a fixed identity.

use std::path::Path;

/// `git args` in `dir`; panics on failure; its stdout, trimmed.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

/// A new temporary folder holding an empty repository on branch `main`.
pub fn new_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q", "-b", "main"]);
    dir
}

/// The object `spec` names (`git rev-parse spec`).
pub fn rev_parse(dir: &Path, spec: &str) -> crate::Oid {
    crate::Oid::parse(&git(dir, &["rev-parse", spec])).unwrap()
}

/// Writes the tree of `entries` (raw mode, name, object) exactly as they
/// stand, modes git itself never writes included; its id.
pub fn literal_tree(dir: &Path, entries: &[(&str, &str, crate::Oid)]) -> crate::Oid {
    let mut raw = Vec::new();
    for (mode, name, id) in entries {
        raw.extend_from_slice(format!("{mode} {name}\0").as_bytes());
        raw.extend_from_slice(id.as_bytes());
    }
    std::fs::write(dir.join("raw-tree"), raw).unwrap();
    let args = ["hash-object", "-t", "tree", "--literally", "-w", "raw-tree"];
    crate::Oid::parse(&git(dir, &args)).unwrap()
}
