//! Pathspecs as git takes them on a command line, checked the way git
//! checks them before it looks at any file: one that names a place outside
//! the work tree (`../x` from its top, an absolute path elsewhere) is
//! refused, by name (git says "'../x' is outside repository").

use std::path::{Component, Path, PathBuf};

/// The pathspecs of `specs` (given in `cwd`) that name a place outside the
/// work tree `workdir`, in order.
pub fn outside<'s>(workdir: &Path, cwd: &Path, specs: &'s [String]) -> Vec<&'s str> {
    let tops = [
        Some(workdir.to_path_buf()),
        std::fs::canonicalize(workdir).ok(),
    ];
    specs
        .iter()
        .filter(|spec| {
            let (from_top, body) = parse(spec);
            let base = if from_top { workdir } else { cwd };
            let named = named_place(base, body);
            !tops
                .iter()
                .flatten()
                .any(|top| named.as_ref().is_some_and(|n| n.starts_with(top)))
        })
        .map(String::as_str)
        .collect()
}

/// Whether `spec` counts from the top of the work tree (`:/`, `:(top)`),
/// and its path part once its magic is taken off.
fn parse(spec: &str) -> (bool, &str) {
    let Some(rest) = spec.strip_prefix(':') else {
        return (false, spec);
    };
    if let Some(long) = rest.strip_prefix('(') {
        let Some((magic, body)) = long.split_once(')') else {
            return (false, rest);
        };
        let top = magic.split(',').any(|word| word.trim() == "top");
        return (top, body);
    }
    // Short magic: `/` (top), `!` and `^` (exclude), ended by an optional `:`.
    let magic_len = rest
        .find(|c: char| !matches!(c, '/' | '!' | '^'))
        .unwrap_or(rest.len());
    let (magic, body) = rest.split_at(magic_len);
    let body = body.strip_prefix(':').unwrap_or(body);
    (magic.contains('/'), body)
}

/// The place `body` names from `base`, its `.` and `..` resolved as git
/// resolves them (by name, before any file is looked at); `None` above
/// the root. An absolute path that exists is followed through its links,
/// as git compares it with the work tree's real path.
fn named_place(base: &Path, body: &str) -> Option<PathBuf> {
    let joined = base.join(body);
    if Path::new(body).is_absolute()
        && let Ok(real) = std::fs::canonicalize(&joined)
    {
        return Some(real);
    }
    let mut out = PathBuf::new();
    for part in joined.components() {
        match part {
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_git_calls_outside_the_repository() {
        let top = Path::new("/no/such/repo");
        let sub = top.join("sub");
        let specs: Vec<String> = [
            "a.txt",
            "../x",
            "sub/../../x",
            ":(exclude)../x",
            ":!../x",
            ":/a.txt",
            ":/../x",
            ":(top,literal)../x",
            "/elsewhere/x",
            "/no/such/repo/a.txt",
            "*.txt",
            ":(glob)**/*.rs",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            outside(top, top, &specs),
            [
                "../x",
                "sub/../../x",
                ":(exclude)../x",
                ":!../x",
                ":/../x",
                ":(top,literal)../x",
                "/elsewhere/x"
            ]
        );
        // From a subdirectory, one `..` stays inside; `:/` counts from the top.
        let from_sub: Vec<String> = ["../a.txt", "../../x", ":/../x"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(outside(top, &sub, &from_sub), ["../../x", ":/../x"]);
    }
}
