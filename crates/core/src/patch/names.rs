//! File names as patches spell them: C-quoted (`"a/t\tab"`), followed by a
//! tab and a timestamp (`diff -u`), `/dev/null` for no file, and the
//! leading components git apply's `-p` strips.

/// The name a `---` / `+++` line (after the marker and a space) gives:
/// `None` for `/dev/null`. Unquoted names end at a tab (`diff -u` puts a
/// timestamp there; git puts a tab after a name with a space).
pub fn header_name(rest: &[u8]) -> Result<Option<String>, &'static str> {
    let rest = trim_eol(rest);
    let name = if rest.first() == Some(&b'"') {
        unquote(rest)?.0
    } else {
        let end = rest.iter().position(|&b| b == b'\t').unwrap_or(rest.len());
        let name = &rest[..end];
        // `diff -u` writes `--- name  2024-01-01 …` with spaces before
        // the date only when the name itself has none; git never does.
        utf8_name(name.trim_ascii_end())?
    };
    Ok((name != "/dev/null").then_some(name))
}

/// A C-quoted name at the start of `text` (git's `quote_c_style`): the
/// name and the bytes after its closing quote.
pub fn unquote(text: &[u8]) -> Result<(String, &[u8]), &'static str> {
    let (bytes, rest) = crate::c_quote::unquote(text).ok_or("a badly quoted name")?;
    let name = String::from_utf8(bytes).map_err(|_| NOT_UTF8)?;
    Ok((name, rest))
}

/// Why a name that is not UTF-8 is refused, and what to do instead.
pub const NOT_UTF8: &str = "a file name that is not UTF-8: a proposal carries UTF-8 names only (commit that file with git instead)";

/// An unquoted name's bytes as text, refused when they are not UTF-8: a
/// lossy copy would name another file.
pub fn utf8_name(bytes: &[u8]) -> Result<String, &'static str> {
    std::str::from_utf8(bytes)
        .map(str::to_string)
        .map_err(|_| NOT_UTF8)
}

/// `path` without its first `level` components; `None` when it has no
/// more than `level` (git apply: "fewer leading components").
pub fn strip_components(path: &str, level: usize) -> Option<String> {
    let mut rest = path;
    for _ in 0..level {
        let slash = rest.find('/')?;
        rest = rest[slash + 1..].trim_start_matches('/');
    }
    (!rest.is_empty()).then(|| rest.to_string())
}

pub fn trim_eol(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_read_as_git_and_diff_write_them() {
        assert_eq!(header_name(b"a/x.rs\n").unwrap().as_deref(), Some("a/x.rs"));
        assert_eq!(header_name(b"/dev/null\n").unwrap(), None);
        assert_eq!(
            header_name(b"x.rs\t2024-01-01 10:00:00.000 +0100\n")
                .unwrap()
                .as_deref(),
            Some("x.rs")
        );
        assert_eq!(
            header_name(b"a/with space.txt\t\n").unwrap().as_deref(),
            Some("a/with space.txt")
        );
        assert_eq!(
            header_name(b"\"a/t\\tab\\303\\251.txt\"\n")
                .unwrap()
                .as_deref(),
            Some("a/t\tab\u{e9}.txt")
        );
        assert!(header_name(b"\"a/open\n").is_err());
    }

    #[test]
    fn components_strip_as_git_apply_p_does() {
        assert_eq!(strip_components("a/b/c", 1).as_deref(), Some("b/c"));
        assert_eq!(strip_components("a//b", 1).as_deref(), Some("b"));
        assert_eq!(strip_components("c", 0).as_deref(), Some("c"));
        assert_eq!(strip_components("c", 1), None);
    }
}
