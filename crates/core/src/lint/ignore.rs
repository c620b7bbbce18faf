//! Messages the lint does not judge, as commitlint's default ignores:
//! merges git and forges write, reverts, reapplies, `fixup!`/`squash!`/
//! `amend!` (autosquash rewrites them), and bare release versions.

/// Why `message` is ignored, or `None` when it is linted.
pub fn reason(message: &str) -> Option<&'static str> {
    // These four are multiline regexes in commitlint: any line counts.
    for line in message.lines() {
        if line.starts_with("Merge pull request")
            || line.starts_with("Merge branch ")
            || line.starts_with("Merge tag ")
            || line
                .strip_prefix("Merge ")
                .is_some_and(|rest| rest.contains(" into "))
        {
            return Some("merge message");
        }
    }
    let first = message.lines().next().unwrap_or("");
    if let Some(rest) = first.strip_prefix("Merged ") {
        // `Merged (.*?)(in|into) (.*)` or `Merged PR (.*): (.*)`.
        if rest.contains("in ") || (rest.starts_with("PR ") && rest[3..].contains(": ")) {
            return Some("merge message");
        }
    }
    if first.starts_with("Merge remote-tracking branch") || first.starts_with("Automatic merge") {
        return Some("merge message");
    }
    if first
        .strip_prefix("Auto-merged ")
        .is_some_and(|rest| rest.contains(" into "))
    {
        return Some("merge message");
    }
    if first.starts_with("Revert ") || first.starts_with("revert ") {
        return Some("revert message");
    }
    if first.starts_with("Reapply ") || first.starts_with("reapply ") {
        return Some("reapply message");
    }
    if ["fixup!", "squash!", "amend!"]
        .iter()
        .any(|p| first.starts_with(p))
    {
        return Some("fixup!/squash!/amend! commit (autosquash rewrites it)");
    }
    if is_release_version(first) {
        return Some("release version");
    }
    None
}

/// commitlint's `isSemver`: the first line, less a `chore(scope):` prefix
/// and a `[skip ci]`, is a semantic version (`v` allowed).
fn is_release_version(first: &str) -> bool {
    let mut s = first;
    if let Some(rest) = s.strip_prefix("chore") {
        let rest = match rest.strip_prefix('(') {
            Some(r) => r.find(')').filter(|&i| i > 0).map(|i| &r[i + 1..]),
            None => Some(rest),
        };
        if let Some(r) = rest.and_then(|r| r.strip_prefix(':')) {
            s = r;
        }
    }
    let stripped = strip_skip_ci(s);
    let v = stripped.trim();
    is_semver(v.strip_prefix('v').unwrap_or(v))
}

/// Removes the first `[skip ci]`, `[ci skip]`, `(skip-ci)`… marker.
fn strip_skip_ci(s: &str) -> String {
    let lower = s.to_ascii_lowercase();
    for (open, close) in [('[', ']'), ('(', ')')] {
        for a in ["skip", "ci"] {
            for sep in [" ", "-"] {
                let b = if a == "skip" { "ci" } else { "skip" };
                let marker = format!("{open}{a}{sep}{b}{close}");
                if let Some(at) = lower.find(&marker) {
                    return format!("{}{}", &s[..at], &s[at + marker.len()..]);
                }
            }
        }
    }
    s.to_string()
}

/// SemVer 2.0.0: `MAJOR.MINOR.PATCH[-pre][+build]`, no leading zeros.
fn is_semver(v: &str) -> bool {
    let (v, build) = match v.split_once('+') {
        Some((v, b)) => (v, Some(b)),
        None => (v, None),
    };
    let (core, pre) = match v.split_once('-') {
        Some((c, p)) => (c, Some(p)),
        None => (v, None),
    };
    let numeric = |s: &str| {
        !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && (s == "0" || !s.starts_with('0'))
    };
    let ident =
        |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    let parts: Vec<&str> = core.split('.').collect();
    parts.len() == 3
        && parts.iter().all(|p| numeric(p))
        && pre.is_none_or(|p| {
            p.split('.')
                .all(|id| ident(id) && (numeric(id) || !id.bytes().all(|b| b.is_ascii_digit())))
        })
        && build.is_none_or(|b| b.split('.').all(ident))
}

#[cfg(test)]
mod tests {
    use super::reason;

    #[test]
    fn merges_reverts_and_autosquash_commits_are_ignored() {
        for m in [
            "Merge branch 'main' into feature",
            "Merge pull request #12 from a/b\n\nAdd things",
            "Merge remote-tracking branch 'origin/main'",
            "Merge tag 'v1.0'",
            "Merge feature-x into main",
            "Merged in feature/x (pull request #4)",
            "Merged PR 123: Add x",
            "Automatic merge from release",
            "Auto-merged a into b",
            "Revert \"feat: x\"\n\nThis reverts commit abc.",
            "revert stuff",
            "Reapply \"feat: x\"",
            "fixup! feat: x",
            "squash! feat: x",
            "amend! feat: x",
            "feat: squash\n\n* wip\nMerge branch 'main' into squash",
        ] {
            assert!(reason(m).is_some(), "{m}");
        }
    }

    #[test]
    fn bare_versions_are_ignored() {
        for m in [
            "1.2.3",
            "v1.2.3",
            "v2.0.0-rc.1",
            "1.0.0+build.5",
            "chore(release): 1.4.0",
            "chore: v1.4.0 [skip ci]",
        ] {
            assert_eq!(reason(m), Some("release version"), "{m}");
        }
        for m in ["v1.2", "1.02.3", "release 1.2.3", "chore(release): bump"] {
            assert_eq!(reason(m), None, "{m}");
        }
    }

    #[test]
    fn ordinary_messages_are_linted() {
        for m in [
            "feat: merge configs",
            "Merge",
            "revert: feat: x",
            "Merged",
            "fix: handle fixup! prefixes",
            "Add merge support",
        ] {
            assert_eq!(reason(m), None, "{m}");
        }
    }
}
