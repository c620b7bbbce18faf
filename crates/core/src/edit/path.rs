//! Repository-relative paths in edit lists: no absolute path, no `..`, no
//! `.git`. Symlinks in the base tree are checked by `ops::proposing::edit`,
//! which has the tree.

/// Why `path` cannot name a file of the repository, if it cannot.
pub fn check_path(path: &str) -> Result<(), String> {
    if path.is_empty() {
        return Err("is empty".into());
    }
    if path.contains('\0') {
        return Err(format!("'{}' contains a NUL byte", path.escape_debug()));
    }
    if path.starts_with('/') || path.starts_with('\\') || has_drive(path) {
        return Err(format!(
            "'{path}' is absolute; give a path relative to the top of the repository"
        ));
    }
    for part in path.split('/') {
        match part {
            "" => {
                return Err(format!(
                    "'{path}' has an empty component (a doubled or trailing '/')"
                ));
            }
            "." | ".." => {
                return Err(format!(
                    "'{path}' contains '{part}'; give the path from the top of the repository without '.' or '..'"
                ));
            }
            p if p.eq_ignore_ascii_case(".git") => {
                return Err(format!(
                    "'{path}' is inside .git; git-evolv never edits git's own files"
                ));
            }
            _ => {}
        }
    }
    // Every other name git itself refuses (`.git ` with a trailing space,
    // `git~1`, `.git::$DATA`, …), named before libgit2 meets it.
    if let Some(why) = crate::git_names::refusal(path) {
        return Err(format!("'{path}': {why}, which git refuses"));
    }
    Ok(())
}

fn has_drive(path: &str) -> bool {
    let b = path.as_bytes();
    b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':'
}

#[cfg(test)]
mod tests {
    use super::check_path;

    #[test]
    fn repository_relative_paths_pass() {
        for ok in ["a", "src/a.rs", ".github/x.yml", "a..b/c", ".gitignore"] {
            check_path(ok).unwrap();
        }
    }

    #[test]
    fn escapes_and_git_dir_are_refused() {
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "a/../b",
            "./a",
            ".git/config",
            "a/.GIT/x",
            "a//b",
            "a/",
            "C:x",
            ".git /config",
            "a/.git.",
            "git~1/x",
            ".git::$INDEX_ALLOCATION/x",
        ] {
            assert!(check_path(bad).is_err(), "{bad}");
        }
    }
}
