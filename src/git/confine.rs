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

/// Why a path may not be written, or `None` when it may. Pure.
pub fn refusal(path: &str) -> Option<&'static str> {
    if path.is_empty() {
        return Some("the path is empty");
    }
    if path.contains('\0') {
        return Some("the path contains NUL");
    }
    // git's verify_path: on Linux and macOS `a\b` is one file name, which
    // git checks out; only on Windows is `\` a directory separator (#16
    // item 8). Either way `.git` behind a backslash is refused below.
    if cfg!(windows) && path.contains('\\') {
        return Some("the path contains a backslash, a directory separator on Windows");
    }
    if path.starts_with('/') {
        return Some("the path is absolute");
    }
    let bytes = path.as_bytes();
    if bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' {
        return Some("the path starts with a drive letter");
    }
    if path.split(['/', '\\']).any(is_git_alias) {
        return Some("the path names a .git directory");
    }
    for component in path.split('/') {
        match component {
            "" => return Some("the path has an empty component"),
            "." => return Some("the path has a '.' component"),
            ".." => return Some("the path has a '..' component"),
            _ if is_git_alias(component) => return Some("the path names a .git directory"),
            // NTFS alternate data streams (`.git::$INDEX_ALLOCATION`).
            _ if component.contains(':')
                && is_git_alias(component.split(':').next().unwrap_or_default()) =>
            {
                return Some("the path names a .git directory");
            }
            _ => {}
        }
    }
    None
}

/// `.git` as some file system may read it: any case, trailing dots or
/// spaces (Windows drops them), and the 8.3 short name `git~1`.
fn is_git_alias(component: &str) -> bool {
    let trimmed = component.trim_end_matches(['.', ' ']);
    trimmed.eq_ignore_ascii_case(".git") || trimmed.eq_ignore_ascii_case("git~1")
}

thread_local! {
    /// Directories (repository-relative) found to be real directories
    /// while a `KnownDirs` guard is alive, with every directory above
    /// them: a landing checks each path's leading components several
    /// times (confinement, the dirty check, staging, placing), and a
    /// 3,000-file landing would otherwise stat the same directories tens of
    /// thousands of times (issue 14 item 1).
    static KNOWN_DIRS: RefCell<Option<HashSet<String>>> = const { RefCell::new(None) };
}

/// While alive, `blocked_prefix` remembers the directories it verified on
/// this thread (the landing holds git-evolv's lock and `index.lock`, and
/// removes directories only through `forget_known_dirs`). Dropped, it
/// forgets them: the next command stats afresh.
pub struct KnownDirs(());

/// Starts remembering verified directories (see `KnownDirs`).
pub fn remember_dirs() -> KnownDirs {
    KNOWN_DIRS.with(|k| *k.borrow_mut() = Some(HashSet::new()));
    KnownDirs(())
}

impl Drop for KnownDirs {
    fn drop(&mut self) {
        KNOWN_DIRS.with(|k| *k.borrow_mut() = None);
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

/// The first leading component of `path` that is a symlink (or some other
/// non-directory) in `workdir`, which would make a write leave the tree or
/// land somewhere else. Missing components are fine: they get created.
pub fn blocked_prefix(workdir: &Path, path: &str) -> Option<String> {
    let parent = path.rfind('/').map_or("", |i| &path[..i]);
    if parent.is_empty()
        || KNOWN_DIRS.with(|k| k.borrow().as_ref().is_some_and(|s| s.contains(parent)))
    {
        return None;
    }
    let mut end = 0;
    while end < parent.len() {
        end = parent[end + 1..]
            .find('/')
            .map_or(parent.len(), |i| end + 1 + i);
        let prefix = &parent[..end];
        if KNOWN_DIRS.with(|k| k.borrow().as_ref().is_some_and(|s| s.contains(prefix))) {
            continue;
        }
        match fs::symlink_metadata(workdir.join(prefix)) {
            Ok(meta) if meta.is_dir() => {
                KNOWN_DIRS.with(|k| {
                    if let Some(set) = k.borrow_mut().as_mut() {
                        set.insert(prefix.to_string());
                    }
                });
            }
            Ok(_) => return Some(prefix.to_string()),
            Err(_) => return None,
        }
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
        fs::create_dir_all(dir.path().join("real/deep/er")).unwrap();
        let known = remember_dirs();
        assert_eq!(blocked_prefix(dir.path(), "real/deep/er/x"), None);
        assert_eq!(blocked_prefix(dir.path(), "real/deep/er/y"), None);
        assert_eq!(blocked_prefix(dir.path(), "real/file"), None);
        assert_eq!(blocked_prefix(dir.path(), "file/y"), Some("file".into()));
        // Replaced behind its back: only a forgotten cache sees it.
        fs::remove_dir_all(dir.path().join("real/deep")).unwrap();
        std::os::unix::fs::symlink("/tmp", dir.path().join("real/deep")).unwrap();
        forget_known_dirs();
        assert_eq!(
            blocked_prefix(dir.path(), "real/deep/er/x"),
            Some("real/deep".into())
        );
        drop(known);
        assert_eq!(blocked_prefix(dir.path(), "link/x"), Some("link".into()));
    }
}
