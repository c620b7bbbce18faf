//! The branch a push to `refs/for/<branch>` names, checked as
//! `git check-ref-format` checks a ref, with a length bound: it arrives from
//! the network, becomes a ref name and a line in the pusher's output.

use crate::error::{Error, Result};

/// The longest branch name a push may name, in bytes.
pub const MAX_BRANCH_LEN: usize = 200;

/// The branch of `refname` (`refs/for/main` → `main`, `refs/for/a/b` →
/// `a/b`); an error naming the rule it breaks otherwise.
pub fn branch_of(refname: &str, prefix: &str) -> Result<String> {
    let branch = refname.strip_prefix(prefix).unwrap_or("");
    check_branch(branch).map_err(|why| {
        Error::invalid(
            format!("refusing {}: {why}", shown(refname)),
            format!("push to {prefix}<branch>, where refs/heads/<branch> is a valid branch name (`git check-ref-format --branch <branch>` says)"),
        )
    })?;
    Ok(branch.to_string())
}

/// The ref name as it may be shown: bounded, control characters escaped.
pub fn shown(name: &str) -> String {
    let mut s: String = name
        .chars()
        .take(120)
        .flat_map(char::escape_debug)
        .collect();
    if name.chars().count() > 120 {
        s.push('…');
    }
    s
}

/// Whether `b` is a branch name `git check-ref-format --branch` takes,
/// within [`MAX_BRANCH_LEN`]: `Err` says which rule it breaks. The one
/// rule for a branch named by a push and by `git evolv push --to`.
pub fn check_branch(b: &str) -> std::result::Result<(), String> {
    if b.is_empty() {
        return Err("no branch after the prefix".into());
    }
    if b.len() > MAX_BRANCH_LEN {
        return Err(format!(
            "a branch name of {} bytes (at most {MAX_BRANCH_LEN})",
            b.len()
        ));
    }
    if let Some(c) = b
        .chars()
        .find(|c| c.is_control() || matches!(c, ' ' | '~' | '^' | ':' | '?' | '*' | '[' | '\\'))
    {
        return Err(format!(
            "the character {:?} is not allowed in a ref name",
            c
        ));
    }
    for (bad, why) in [("..", "'..'"), ("@{", "'@{'"), ("//", "an empty component")] {
        if b.contains(bad) {
            return Err(format!("{why} is not allowed in a ref name"));
        }
    }
    if b == "@" || b == "HEAD" {
        return Err(format!("'{b}' is not a branch name"));
    }
    if b.starts_with('-') {
        return Err("a branch name cannot start with '-'".into());
    }
    if b.starts_with('/') || b.ends_with('/') || b.ends_with('.') {
        return Err("a ref name cannot start or end with '/', or end with '.'".into());
    }
    for comp in b.split('/') {
        if comp.starts_with('.') || comp.ends_with(".lock") {
            return Err(format!(
                "the component '{comp}' starts with '.' or ends with '.lock'"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_valid_branches() {
        for b in ["main", "release/1.2", "feat/a-b_c", "x@y"] {
            assert_eq!(branch_of(&format!("refs/for/{b}"), "refs/for/").unwrap(), b);
        }
    }

    #[test]
    fn refuses_what_check_ref_format_refuses() {
        let long = "a".repeat(MAX_BRANCH_LEN + 1);
        for b in [
            "",
            "a..b",
            "a b",
            "a~1",
            "a^",
            "a:b",
            "a?",
            "a*",
            "a[",
            "a\\b",
            "a\nb",
            "a\u{7f}",
            "@",
            "a@{1}",
            "/a",
            "a/",
            "a//b",
            "a.",
            ".a",
            "a/.b",
            "a.lock",
            "a/b.lock/c",
            "-rf",
            "HEAD",
            &long,
        ] {
            let e = branch_of(&format!("refs/for/{b}"), "refs/for/").unwrap_err();
            assert_eq!(e.code(), "invalid_input", "{b:?}");
        }
        assert!(shown("a\nb").contains("\\n"));
    }
}
