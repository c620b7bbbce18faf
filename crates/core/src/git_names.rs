//! The names git refuses in a tree, as its `verify_path` (checkout,
//! `read-tree -u`, `merge`) and `fsck` do: no `..`, no absolute or drive
//! paths, no `.git` under any alias a file system may read as `.git`, no
//! empty components or NUL, and no `.gitmodules` that is a symbolic link.
//! Pure: the path's bytes (and whether it is a symlink) in, a reason out.
//! The git adapter's confinement and the edit lists both ask here, so a
//! name is refused the same way wherever it comes from.

use std::borrow::Cow;

/// Why a path may not be written, or `None` when it may. Pure. Works on
/// the path's bytes: a name that is not UTF-8 is judged like any other.
pub fn refusal(path: impl AsRef<[u8]>) -> Option<&'static str> {
    let path = path.as_ref();
    if path.is_empty() {
        return Some("the path is empty");
    }
    if path.contains(&0) {
        return Some("the path contains NUL");
    }
    // git's verify_path: on Linux and macOS `a\b` is one file name, which
    // git checks out; only on Windows is `\` a directory separator (#16
    // item 8). Either way `.git` behind a backslash is refused below.
    if cfg!(windows) && path.contains(&b'\\') {
        return Some("the path contains a backslash, a directory separator on Windows");
    }
    if path[0] == b'/' {
        return Some("the path is absolute");
    }
    if path.len() >= 2 && path[0].is_ascii_alphabetic() && path[1] == b':' {
        return Some("the path starts with a drive letter");
    }
    if path.split(|&b| b == b'/' || b == b'\\').any(is_git_alias) {
        return Some("the path names a .git directory");
    }
    for component in path.split(|&b| b == b'/') {
        match component {
            b"" => return Some("the path has an empty component"),
            b"." => return Some("the path has a '.' component"),
            b".." => return Some("the path has a '..' component"),
            _ if is_git_alias(component) => return Some("the path names a .git directory"),
            // NTFS alternate data streams (`.git::$INDEX_ALLOCATION`).
            _ if component.contains(&b':')
                && is_git_alias(component.split(|&b| b == b':').next().unwrap_or_default()) =>
            {
                return Some("the path names a .git directory");
            }
            _ => {}
        }
    }
    None
}

/// `.git` as some file system may read it: any case, trailing dots or
/// spaces (Windows drops them), the 8.3 short name `git~1`, and with the
/// code points HFS+ ignores (`.g\u{200c}it`).
pub fn is_git_alias(component: &[u8]) -> bool {
    let name = without_hfs_ignorables(component);
    let trimmed = trim_ntfs(&name);
    trimmed.eq_ignore_ascii_case(b".git") || trimmed.eq_ignore_ascii_case(b"git~1")
}

/// `.gitmodules` as some file system may read it (as [`is_git_alias`]
/// reads `.git`; its short names are `gitmod~1` to `gitmod~4`), also with
/// an NTFS stream suffix (`.gitmodules::$DATA`).
pub fn is_gitmodules_alias(component: &[u8]) -> bool {
    is_dotfile_alias(component, b".gitmodules", b"gitmod~")
}

/// `.gitattributes` as some file system may read it (its short names are
/// `gitatt~1` to `gitatt~4`): git's fsck checks such a blob's size and
/// line lengths.
pub fn is_gitattributes_alias(component: &[u8]) -> bool {
    is_dotfile_alias(component, b".gitattributes", b"gitatt~")
}

/// `dotfile` under any spelling NTFS or HFS+ reads as it: any case,
/// trailing dots or spaces, a stream suffix, ignorable code points, or
/// the 8.3 short names `<short>1` to `<short>4`.
fn is_dotfile_alias(component: &[u8], dotfile: &[u8], short: &[u8]) -> bool {
    let name = without_hfs_ignorables(component);
    let stream = name.iter().position(|&b| b == b':').unwrap_or(name.len());
    let trimmed = trim_ntfs(&name[..stream]);
    trimmed.eq_ignore_ascii_case(dotfile)
        || (trimmed.len() == short.len() + 1
            && trimmed[..short.len()].eq_ignore_ascii_case(short)
            && (b'1'..=b'4').contains(&trimmed[short.len()]))
}

/// `name` without the trailing dots and spaces Windows drops.
fn trim_ntfs(name: &[u8]) -> &[u8] {
    let end = name
        .iter()
        .rposition(|&b| b != b'.' && b != b' ')
        .map_or(0, |i| i + 1);
    &name[..end]
}

/// `name` without the code points HFS+ ignores when it compares names
/// (git's `is_hfs_dotgit`); a name that is not UTF-8 is kept as it is.
/// Every one of them is outside ASCII, so an ASCII name — nearly all of
/// them — is kept without a copy: a landing checks every component of
/// each of its paths, and copying them character by character was a large
/// share of its time (BENCHMARKS.md, issue 25 item 20).
fn without_hfs_ignorables(name: &[u8]) -> Cow<'_, [u8]> {
    if name.is_ascii() {
        return Cow::Borrowed(name);
    }
    let Ok(text) = std::str::from_utf8(name) else {
        return Cow::Borrowed(name);
    };
    let ignorable = |c: &char| {
        matches!(*c as u32,
            0x200C..=0x200F | 0x202A..=0x202E | 0x206A..=0x206F | 0xFEFF)
    };
    Cow::Owned(
        text.chars()
            .filter(|c| !ignorable(c))
            .collect::<String>()
            .into_bytes(),
    )
}

/// Why `path` may not be written with `mode` (git's mode bits), or `None`:
/// [`refusal`], and a symbolic link named `.gitmodules` (any case, or a
/// spelling NTFS or HFS+ reads as it), which git's checkout refuses
/// ("invalid path '.gitmodules'") and `fsck` reports as
/// `gitmodulesSymlink`: git would read the link's target as the
/// submodules' configuration.
pub fn refusal_as(path: impl AsRef<[u8]>, mode: u32) -> Option<&'static str> {
    let path = path.as_ref();
    if let Some(why) = refusal(path) {
        return Some(why);
    }
    let name = path.rsplit(|&b| b == b'/').next().unwrap_or_default();
    (mode & 0o170000 == 0o120000 && is_gitmodules_alias(name))
        .then_some("'.gitmodules' is a symbolic link, which git refuses (invalid path)")
}

#[cfg(test)]
mod tests {
    use super::{refusal, refusal_as};

    const SYMLINK: u32 = 0o120000;
    const FILE: u32 = 0o100644;

    #[test]
    fn a_symlinked_gitmodules_is_refused_under_every_spelling() {
        for name in [
            ".gitmodules",
            "sub/.gitmodules",
            ".GitModules",
            ".gitmodules.",
            ".gitmodules ",
            "gitmod~1",
            "GITMOD~4",
            ".gitmodules::$DATA",
            ".git\u{200c}modules",
        ] {
            assert!(refusal_as(name, SYMLINK).is_some(), "{name:?}");
            assert_eq!(refusal_as(name, FILE), None, "{name:?} as a file");
        }
        for fine in [".gitmodulesx", "gitmodules", "gitmod~5", "a.gitmodules"] {
            assert_eq!(refusal_as(fine, SYMLINK), None, "{fine:?}");
        }
    }

    #[test]
    fn hfs_ignorable_code_points_do_not_hide_dot_git() {
        for bad in [".g\u{200c}it/config", "\u{feff}.git", ".GI\u{200d}T/x"] {
            assert!(refusal(bad).is_some(), "{bad:?}");
        }
        assert_eq!(refusal("\u{200c}git"), None);
    }
}
