//! Which repository paths git-evolv may write in the working tree. A pure
//! check of the path's spelling (no `..`, no absolute or drive paths, no
//! `.git` under any alias, no empty components or NUL; a backslash only
//! where it separates directories, on Windows, as git decides) and an
//! I/O check that no leading component is a symlink. Everything that writes
//! the working tree asks here first; nothing here writes.

use std::cell::RefCell;
use std::collections::HashSet;
use std::fs;
use std::path::Path;

use crate::types::path::{RepoPath, fs_path};

/// The names git refuses, one rule for every layer (evolv-core).
pub use evolv_core::git_names::{refusal, refusal_as};

thread_local! {
    /// Directories (repository-relative) found to be real directories
    /// while a `KnownDirs` guard is alive: a landing checks each path's
    /// leading components several times (confinement, the dirty check,
    /// staging, placing), and a 3,000-file landing would otherwise stat the
    /// same directories tens of thousands of times (issue 14 item 1).
    static KNOWN_DIRS: RefCell<Option<HashSet<Vec<u8>>>> = const { RefCell::new(None) };
}

/// While alive, `blocked_prefix` remembers the directories it verified on
/// this thread (the landing holds git-evolv's lock and `index.lock`, and
/// removes directories only through `forget_known_dirs`). Dropped, it
/// forgets them: the next command stats afresh. A guard taken while
/// another is alive on the thread shares its directories and leaves them
/// to it.
pub struct KnownDirs {
    outermost: bool,
}

/// Starts remembering verified directories (see `KnownDirs`).
pub fn remember_dirs() -> KnownDirs {
    KNOWN_DIRS.with(|k| {
        let mut known = k.borrow_mut();
        let outermost = known.is_none();
        if outermost {
            *known = Some(HashSet::new());
        }
        KnownDirs { outermost }
    })
}

impl Drop for KnownDirs {
    fn drop(&mut self) {
        if self.outermost {
            KNOWN_DIRS.with(|k| *k.borrow_mut() = None);
        }
    }
}

/// Forgets the verified directories: one was removed (or may have been).
pub fn forget_known_dirs() {
    KNOWN_DIRS.with(|k| {
        if let Some(set) = k.borrow_mut().as_mut() {
            set.clear();
        }
    });
}

fn known(prefix: &[u8]) -> bool {
    KNOWN_DIRS.with(|k| k.borrow().as_ref().is_some_and(|s| s.contains(prefix)))
}

/// Whether `dir` (a working-tree path) is a directory this thread's
/// `remember_dirs` has already verified.
pub fn is_known_dir(dir: &[u8]) -> bool {
    known(dir)
}

/// The first leading component of `path` that is a symlink (or some other
/// non-directory) in `workdir`, which would make a write leave the tree or
/// land somewhere else. Missing components are fine: they get created.
pub fn blocked_prefix(workdir: &Path, path: impl AsRef<[u8]>) -> Option<RepoPath> {
    let path = path.as_ref();
    let parent = path
        .iter()
        .rposition(|&b| b == b'/')
        .map_or(&path[..0], |i| &path[..i]);
    if parent.is_empty() || known(parent) {
        return None;
    }
    let mut end = 0;
    while let Some(slash) = path[end..].iter().position(|&b| b == b'/') {
        end += slash;
        let prefix = &path[..end];
        if !known(prefix) {
            match fs::symlink_metadata(workdir.join(fs_path(prefix))) {
                Ok(meta) if meta.is_dir() => KNOWN_DIRS.with(|k| {
                    if let Some(set) = k.borrow_mut().as_mut() {
                        set.insert(prefix.to_vec());
                    }
                }),
                Ok(_) => return Some(RepoPath::from(prefix)),
                Err(_) => return None,
            }
        }
        end += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_paths_may_be_written() {
        for ok in [
            "a",
            "src/main.rs",
            ".gitignore",
            ".github/workflows/ci.yml",
            "a/.gitx/b",
            "git",
            "x.git",
            "dir/..foo",
            "...",
            // See: issue 16 item 8: one file name on Linux, as git sees it.
            "a\\b",
            "dir/win\\style.txt",
        ] {
            assert_eq!(refusal(ok), None, "{ok}");
        }
        // See: issue 16 item 7: bytes that are not UTF-8 are a name too.
        for ok in [&b"caf\xe9.txt"[..], b"d\xffir/x", b"\xff"] {
            assert_eq!(refusal(ok), None, "{ok:?}");
        }
    }

    #[test]
    fn escapes_and_git_aliases_are_refused() {
        for bad in [
            "",
            "/etc/passwd",
            "C:/x",
            "c:x",
            "../x",
            "a/../../x",
            "a/./b",
            "a//b",
            "a/",
            ".git",
            ".git/config",
            "a/.git/hooks/pre-commit",
            ".GIT/config",
            ".Git",
            ".git.",
            ".git ",
            ".git. .",
            "git~1/config",
            "GIT~1",
            "a\\.git\\config",
            "a\0b",
            ".git::$INDEX_ALLOCATION/x",
        ] {
            assert!(refusal(bad).is_some(), "{bad:?}");
        }
    }

    #[test]
    fn a_nested_guard_leaves_the_outer_guards_directories() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("real")).unwrap();
        let outer = remember_dirs();
        assert_eq!(blocked_prefix(dir.path(), "real/x"), None);
        assert!(known(b"real"));
        {
            let _inner = remember_dirs();
            assert!(known(b"real"), "shared with the inner guard");
        }
        assert!(known(b"real"), "the inner guard left them");
        drop(outer);
        assert!(!known(b"real"), "the outer guard forgets them");
    }

    #[test]
    fn symlinked_leading_components_are_found() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("real")).unwrap();
        std::os::unix::fs::symlink("/tmp", dir.path().join("link")).unwrap();
        fs::write(dir.path().join("file"), "x").unwrap();
        assert_eq!(blocked_prefix(dir.path(), "real/x"), None);
        assert_eq!(blocked_prefix(dir.path(), "missing/x/y"), None);
        assert_eq!(blocked_prefix(dir.path(), "link"), None, "the leaf itself");
        assert_eq!(blocked_prefix(dir.path(), "link/x"), Some("link".into()));
        assert_eq!(blocked_prefix(dir.path(), "file/x"), Some("file".into()));
        assert_eq!(blocked_prefix(dir.path(), "real/file/x"), None);
        std::os::unix::fs::symlink("/tmp", dir.path().join("real").join(fs_path(b"l\xff")))
            .unwrap();
        assert_eq!(
            blocked_prefix(dir.path(), b"real/l\xff/y"),
            Some(RepoPath::from_bytes(&b"real/l\xff"[..]))
        );
    }
}
