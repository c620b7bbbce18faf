//! Which repository paths an edit may look at: `--scope` globs over
//! repo-relative paths, as a user of `git ls-files` would expect them.

use globset::{GlobBuilder, GlobMatcher, GlobSet, GlobSetBuilder};

use crate::error::{Error, Result};

/// A compiled set of scope globs; empty means every path.
#[derive(Debug, Clone)]
pub struct Scope {
    set: Option<GlobSet>,
    /// Per glob, what a directory must look like to hold a match.
    dirs: Vec<DirTest>,
}

/// A glob's leading components, each of which a directory's component at
/// the same depth must match for a path under it to match the glob
/// (`*`, `?` and `[…]` stay inside a component); `open` when the glob
/// goes on past them (`**`, or a component this test does not read:
/// `{…}` may hold a `/`, `\` escapes), so deeper paths may match too.
#[derive(Debug, Clone)]
struct DirTest {
    parts: Vec<GlobMatcher>,
    open: bool,
}

impl DirTest {
    fn new(glob: &str) -> Self {
        let mut parts = Vec::new();
        for part in glob.split('/') {
            if part.contains("**") || part.contains(['{', '\\']) {
                return DirTest { parts, open: true };
            }
            match GlobBuilder::new(part).literal_separator(true).build() {
                Ok(g) => parts.push(g.compile_matcher()),
                Err(_) => return DirTest { parts, open: true },
            }
        }
        DirTest { parts, open: false }
    }

    /// Whether a path under `dir` (its components) may match.
    fn may_hold(&self, dir: &[&[u8]]) -> bool {
        let depth = dir.len();
        if !self.open && depth >= self.parts.len() {
            return false;
        }
        dir.iter()
            .zip(&self.parts)
            .all(|(c, g)| g.is_match(crate::fs_path::fs_path(c)))
    }
}

impl Scope {
    /// Compiles the globs. `*` stays inside one path component and `**`
    /// crosses them; a glob that names a directory (a plain path such as
    /// `src` or `src/api`, or any glob ending in `/`) covers everything
    /// under it, as a git pathspec does; a leading `./` or `/` is ignored.
    /// `*` and `*.txt` match at the top level only (#16 item 18).
    pub fn new(globs: &[String]) -> Result<Self> {
        if globs.is_empty() {
            return Ok(Scope {
                set: None,
                dirs: Vec::new(),
            });
        }
        let mut builder = GlobSetBuilder::new();
        let mut dirs = Vec::new();
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
                dirs.push(DirTest::new(&variant));
            }
        }
        let set = builder.build().map_err(|e| {
            Error::invalid_field(
                "scope",
                format!("the scope globs could not be compiled: {e}"),
                "simplify the globs",
            )
        })?;
        Ok(Scope {
            set: Some(set),
            dirs,
        })
    }

    /// Whether any path under the directory `dir` (repo-relative, no
    /// trailing `/`) may be in scope: `false` only when none can, so a
    /// tree walk may leave the directory out, as git's own walk leaves out
    /// what its pathspec cannot reach.
    pub fn may_hold_dir(&self, dir: &[u8]) -> bool {
        if self.set.is_none() {
            return true;
        }
        let parts: Vec<&[u8]> = dir.split(|&b| b == b'/').collect();
        self.dirs.iter().any(|d| d.may_hold(&parts))
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

    /// A directory is left out only when no path under it can match:
    /// every ancestor of every matching path is kept, and the directories
    /// a glob's leading components rule out are not.
    #[test]
    fn a_directory_is_left_out_only_when_nothing_under_it_can_match() {
        let paths = [
            "src/d000/e01/f.go",
            "src/d005/e01/f.go",
            "src/d001/x/y/z.rs",
            "src/lib.rs",
            "src/a/lib.rs",
            "lib/x/src/lib.rs",
            "backend/api/v1/u.go",
            "caf\u{e9}/x.txt",
            "a/b.txt",
        ];
        let globs = [
            "src/d00[0-2]/**",
            "src/d000/e0[0-2]/**",
            "src/*.rs",
            "**/*.rs",
            "backend/api",
            "backend/",
            "{src,lib/x}/**",
            "src/d0?1/**/z.rs",
            "*/x.txt",
            "a\\/b.txt",
            ".",
        ];
        for g in globs {
            let s = scope(&[g]);
            for p in paths {
                if !s.matches(p) {
                    continue;
                }
                let mut at = 0;
                while let Some(k) = p[at..].find('/') {
                    at += k;
                    assert!(
                        s.may_hold_dir(&p.as_bytes()[..at]),
                        "{g}: {p} under {}",
                        &p[..at]
                    );
                    at += 1;
                }
            }
        }
        let s = scope(&["src/d00[0-2]/**"]);
        assert!(s.may_hold_dir(b"src"));
        assert!(s.may_hold_dir(b"src/d001"));
        assert!(!s.may_hold_dir(b"src/d005"));
        assert!(!s.may_hold_dir(b"lib"));
        let s = scope(&["src/*.rs"]);
        assert!(s.may_hold_dir(b"src"));
        assert!(!s.may_hold_dir(b"src/a"), "`*` stays in one component");
        let s = scope(&["backend/api"]);
        assert!(
            s.may_hold_dir(b"backend/api/v1"),
            "a directory covers its contents"
        );
        assert!(!s.may_hold_dir(b"backend/web"));
        assert!(scope(&["{src,lib/x}/**"]).may_hold_dir(b"lib/x/src"));
        assert!(scope(&[]).may_hold_dir(b"any/where"));
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
