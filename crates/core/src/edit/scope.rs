//! Which repository paths an edit may look at: `--scope` globs over
//! repo-relative paths, as a user of `git ls-files` would expect them.

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use crate::error::{Error, Result};

/// A compiled set of scope globs; empty means every path.
#[derive(Debug, Clone)]
pub struct Scope {
    set: Option<GlobSet>,
}

impl Scope {
    /// Compiles the globs. `*` stays inside one path component and `**`
    /// crosses them; a glob that names a directory (a plain path such as
    /// `src` or `src/api`, or any glob ending in `/`) covers everything
    /// under it, as a git pathspec does; a leading `./` or `/` is ignored.
    /// `*` and `*.txt` match at the top level only (#16 item 18).
    pub fn new(globs: &[String]) -> Result<Self> {
        if globs.is_empty() {
            return Ok(Scope { set: None });
        }
        let mut builder = GlobSetBuilder::new();
        for raw in globs {
            let glob = normalise(raw);
            if glob.is_empty() {
                return Err(Error::invalid_field(
                    "scope",
                    format!("scope '{raw}' is empty"),
                    "pass a glob such as 'src/**' or '**/*.rs'",
                ));
            }
            let mut variants = vec![glob.clone()];
            if names_directory(raw, &glob) {
                variants.push(format!("{}/**", glob.trim_end_matches("/**")));
            }
            for variant in variants {
                let compiled = GlobBuilder::new(&variant)
                    .literal_separator(true)
                    .backslash_escape(true)
                    .build()
                    .map_err(|e| {
                        Error::invalid_field(
                            "scope",
                            format!("scope '{raw}' is not a valid glob: {}", e.kind()),
                            "globs use *, ?, [abc], {a,b} and ** for any depth, e.g. 'backend/**/*.go'",
                        )
                    })?;
                builder.add(compiled);
            }
        }
        let set = builder.build().map_err(|e| {
            Error::invalid_field(
                "scope",
                format!("the scope globs could not be compiled: {e}"),
                "simplify the globs",
            )
        })?;
        Ok(Scope { set: Some(set) })
    }

    /// Whether the repo-relative `path` is in scope.
    pub fn matches(&self, path: &str) -> bool {
        self.matches_bytes(path.as_bytes())
    }

    /// Whether the repo-relative path with these bytes is in scope. Globs
    /// match a name's bytes, as git's wildmatch does, so a name that is
    /// not UTF-8 is matched the same way by every glob, and as
    /// `git ls-files '<glob>'` matches it (`?` is one byte: `caf?.txt`
    /// matches `caf\xe9.txt`, not `café.txt`) (#16 item 7).
    pub fn matches_bytes(&self, path: &[u8]) -> bool {
        self.set
            .as_ref()
            .is_none_or(|s| s.is_match(crate::fs_path::fs_path(path)))
    }
}

/// Whether a scope glob names a directory, so that everything under it is
/// in scope: written with a trailing `/`, or a plain path with no glob
/// metacharacter (`src`, `backend/api`). `*`, `*.txt` or `src/*.rs` name
/// files and stay as written.
fn names_directory(raw: &str, glob: &str) -> bool {
    raw.trim().ends_with('/') || !glob.contains(['*', '?', '[', '{', '\\'])
}

fn normalise(glob: &str) -> String {
    let mut g = glob.trim();
    while let Some(rest) = g.strip_prefix("./") {
        g = rest;
    }
    // `.` (or `./`) is the top of the repository, as in a git pathspec.
    if g == "." || g.is_empty() && glob.trim().starts_with("./") {
        return "**".to_string();
    }
    g.trim_start_matches('/').trim_end_matches('/').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope(globs: &[&str]) -> Scope {
        Scope::new(&globs.iter().map(|g| g.to_string()).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn double_star_covers_everything_below() {
        let s = scope(&["backend/**"]);
        assert!(s.matches("backend/user.go"));
        assert!(s.matches("backend/a/b/c.go"));
        assert!(!s.matches("frontend/api.ts"));
        assert!(!s.matches("backendx/a.go"));
    }

    #[test]
    fn single_star_stays_in_one_component() {
        let s = scope(&["src/*.rs"]);
        assert!(s.matches("src/lib.rs"));
        assert!(!s.matches("src/a/lib.rs"));
    }

    #[test]
    fn directory_names_and_prefixes_cover_their_contents() {
        for g in ["backend", "backend/", "./backend"] {
            assert!(scope(&[g]).matches("backend/x/y.go"), "{g}");
        }
        for g in [".", "./"] {
            assert!(scope(&[g]).matches("any/where.rs"), "{g}");
        }
    }

    // See: issue 16 item 18.
    #[test]
    fn globs_match_names_that_are_not_utf8_by_their_bytes_as_git_does() {
        // See: issue 16 item 7; `git ls-files 'caf?.txt'` agrees.
        let s = scope(&["caf?.txt"]);
        assert!(s.matches_bytes(b"caf\xe9.txt"));
        assert!(!s.matches("café.txt"));
        let s = scope(&["d*/**"]);
        assert!(s.matches_bytes(b"d\xffir/x.txt"));
        let s = scope(&["*.txt"]);
        assert!(s.matches_bytes(b"caf\xe9.txt") && !s.matches_bytes(b"d\xffir/x.txt"));
    }

    #[test]
    fn star_globs_stay_at_the_top_level() {
        let s = scope(&["*"]);
        assert!(s.matches("README.md"));
        assert!(!s.matches("src/lib.rs"));
        let s = scope(&["*.txt"]);
        assert!(s.matches("a.txt") && !s.matches("d/a.txt"));
        let s = scope(&["src/*"]);
        assert!(s.matches("src/a.rs") && !s.matches("src/x/a.rs"));
        // A glob written with a trailing slash names directories.
        assert!(scope(&["sr?/"]).matches("src/x/y.rs"));
        assert!(scope(&["backend/api"]).matches("backend/api/v1/x.go"));
    }

    #[test]
    fn several_globs_are_a_union_and_none_means_all() {
        let s = scope(&["a/**", "**/*.md"]);
        assert!(s.matches("a/x") && s.matches("docs/r.md") && !s.matches("b/x"));
        assert!(scope(&[]).matches("anything/at/all"));
    }

    #[test]
    fn a_bad_glob_is_invalid_input_naming_it() {
        let err = Scope::new(&["src/[".to_string()]).unwrap_err();
        assert_eq!(err.code(), "invalid_input");
        assert!(err.to_string().contains("src/["), "{err}");
    }
}
