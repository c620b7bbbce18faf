//! glob: files of the working tree (or of HEAD, `tracked`) whose path
//! matches a pattern, newest-modified first. Honours .gitignore, lists
//! hidden files that are not ignored, never looks inside `.git`. Walks
//! with the `ignore` crate's parallel walker.

use std::path::Path;
use std::sync::Mutex;

use globset::{GlobBuilder, GlobMatcher};
use ignore::{WalkBuilder, WalkState};
use serde::Serialize;

use crate::error::{Error, Result};
use crate::git::Repo;
use crate::ops::session::Session;
use crate::ops::session::{Open, UseCase};

/// What to list.
#[derive(Debug, Clone, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GlobRequest {
    /// `*` stays in one path component, `**` crosses directories.
    pub pattern: String,
    /// A directory relative to the top of the repository; the pattern and
    /// the paths listed are relative to it.
    #[serde(default)]
    pub path: Option<String>,
    /// Files at HEAD instead of the working tree (sorted by path).
    #[serde(default)]
    pub tracked: bool,
}

/// One file found.
#[derive(Debug, Clone, Serialize, PartialEq, Eq, schemars::JsonSchema)]
pub struct GlobEntry {
    /// Relative to `path` when given, else to the top of the repository.
    pub path: String,
    /// Modification time (seconds since the epoch); null with `tracked`.
    pub modified: Option<i64>,
}

/// The files found, newest first.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct GlobOutcome {
    pub pattern: String,
    pub path: Option<String>,
    pub tracked: bool,
    pub files: Vec<GlobEntry>,
}

fn matcher(pattern: &str) -> Result<GlobMatcher> {
    let pattern = pattern.strip_prefix("./").unwrap_or(pattern);
    Ok(GlobBuilder::new(pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .build()
        .map_err(|e| {
            Error::invalid(
                format!("'{pattern}' is not a valid glob: {e}"),
                "use * within a path component, ** across directories, e.g. 'src/**/*.rs'",
            )
        })?
        .compile_matcher())
}

/// `dir` (relative to `cwd`) as a path from the top of the repository:
/// a glob's `path` given on a command line.
pub fn path_from_top(repo: &Repo, cwd: &Path, dir: &str) -> Result<String> {
    let root = repo.workdir().ok_or_else(|| Error::BareRepository {
        path: repo.git_dir().to_path_buf(),
    })?;
    inside(root, &cwd.join(dir), dir)
}

/// `abs` with every symlink resolved, as a path from the top of the
/// working tree `root`; refused when it resolves outside (a cloned
/// repository can ship `x -> /`). Every front end's `path` comes here.
fn inside(root: &Path, abs: &Path, dir: &str) -> Result<String> {
    let canon = abs.canonicalize().map_err(|e| Error::io("open", abs, e))?;
    let root = root
        .canonicalize()
        .map_err(|e| Error::io("open", root, e))?;
    let rel = canon.strip_prefix(&root).map_err(|_| {
        Error::invalid(
            format!("--path {dir} is outside the repository"),
            "give a directory inside the working tree",
        )
    })?;
    Ok(rel.to_string_lossy().replace('\\', "/"))
}

/// Lists the matching files.
pub fn glob(repo: &Repo, req: &GlobRequest) -> Result<GlobOutcome> {
    let m = matcher(&req.pattern)?;
    let dir = match req.path.as_deref().map(|p| p.trim_end_matches('/')) {
        None | Some("") | Some(".") => None,
        Some(p) => {
            crate::edit::path::check_path(p).map_err(|why| {
                Error::invalid_field(
                    "path",
                    format!("path {why}"),
                    "give a directory inside the repository",
                )
            })?;
            Some(p.to_string())
        }
    };
    let mut files = if req.tracked {
        tracked(repo, dir.as_deref(), &m)?
    } else {
        let root = repo.workdir().ok_or_else(|| Error::BareRepository {
            path: repo.git_dir().to_path_buf(),
        })?;
        let base = match &dir {
            // A symlink is followed only to where it stays inside.
            Some(d) if root.join(d).is_dir() => root.join(inside(root, &root.join(d), d)?),
            Some(d) => root.join(d),
            None => root.to_path_buf(),
        };
        if !base.is_dir() {
            return Err(Error::invalid_field(
                "path",
                format!(
                    "path {} is not a directory of the working tree",
                    dir.unwrap_or_default()
                ),
                "give a directory relative to the top of the repository",
            ));
        }
        walk(&base, &m)
    };
    if req.tracked {
        files.sort_by(|a, b| a.path.cmp(&b.path));
    } else {
        files.sort_by(|a, b| {
            b.modified
                .cmp(&a.modified)
                .then_with(|| a.path.cmp(&b.path))
        });
    }
    Ok(GlobOutcome {
        pattern: req.pattern.clone(),
        path: dir,
        tracked: req.tracked,
        files,
    })
}

fn walk(base: &Path, m: &GlobMatcher) -> Vec<GlobEntry> {
    let found = Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .min(8);
    let prefix = base.as_os_str().len();
    WalkBuilder::new(base)
        .hidden(false)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(true)
        .parents(true)
        .require_git(false)
        .threads(threads)
        .filter_entry(|e| e.file_name() != ".git")
        .build_parallel()
        .run(|| {
            let found = &found;
            // Per walker thread: a walker thread lists one directory's
            // entries together, so the last directory opened is almost
            // always the one wanted.
            let mut dir = mtime::Dir::default();
            Box::new(move |entry| {
                let Ok(entry) = entry else {
                    return WalkState::Continue;
                };
                if entry.file_type().is_none_or(|t| t.is_dir()) {
                    return WalkState::Continue;
                }
                let Some(rel) = relative(entry.path(), prefix) else {
                    return WalkState::Continue;
                };
                if m.is_match(&rel) {
                    let modified = dir.mtime(entry.path());
                    if let Ok(mut v) = found.lock() {
                        v.push(GlobEntry {
                            path: rel,
                            modified,
                        });
                    }
                }
                WalkState::Continue
            })
        });
    found.into_inner().unwrap_or_default()
}

/// `path` below the walk's base (`prefix` bytes long), `/`-separated.
fn relative(path: &Path, prefix: usize) -> Option<String> {
    let bytes = path.as_os_str().as_encoded_bytes();
    let rest = bytes.get(prefix..)?;
    let rest = rest.strip_prefix(b"/").unwrap_or(rest);
    let text = String::from_utf8_lossy(rest);
    Some(if std::path::MAIN_SEPARATOR == '\\' {
        text.replace('\\', "/")
    } else {
        text.into_owned()
    })
}

/// Modification times read relative to an open directory (`fstatat`):
/// a stat by full path walks every component of the path again, which was
/// a fifth of `glob`'s time on 100,000 files (perf: `path_lookupat`).
mod mtime {
    use std::ffi::CString;
    use std::fs::File;
    use std::os::unix::ffi::OsStrExt;
    use std::path::{Path, PathBuf};

    #[derive(Default)]
    pub struct Dir {
        open: Option<(PathBuf, File)>,
    }

    impl Dir {
        /// Seconds since the epoch of `path` (not following a symlink).
        pub fn mtime(&mut self, path: &Path) -> Option<i64> {
            let (parent, name) = (path.parent()?, path.file_name()?);
            if self.open.as_ref().is_none_or(|(p, _)| p != parent) {
                let dir = File::open(parent).ok()?;
                self.open = Some((parent.to_path_buf(), dir));
            }
            let (_, dir) = self.open.as_ref()?;
            let name = CString::new(name.as_bytes()).ok()?;
            crate::sys::mtime_at(dir, &name)
        }
    }
}

fn tracked(repo: &Repo, dir: Option<&str>, m: &GlobMatcher) -> Result<Vec<GlobEntry>> {
    let head = crate::git::head(repo)?;
    let tree = repo.commit_tree(head.commit)?;
    let tree = match dir {
        Some(d) => match tree.get_path(Path::new(d)) {
            Some(e) if e.kind == crate::git::objects::view::Kind::Tree => repo.find_tree(e.id)?,
            _ => return Ok(Vec::new()),
        },
        None => tree,
    };
    Ok(tree
        .blobs()?
        .into_iter()
        .filter(|(path, _)| m.is_match(path))
        .map(|(path, _)| GlobEntry {
            path,
            modified: None,
        })
        .collect())
}

impl UseCase for GlobRequest {
    const OPEN: Open = Open::AsIs;
    type Outcome = GlobOutcome;

    fn run(&self, session: &Session) -> Result<GlobOutcome> {
        glob(session.repo()?, self)
    }
}

/// `dir`, relative to `cwd`, as a path from the top of the work tree (a
/// glob's `path` given on a command line).
pub struct GlobPath {
    pub cwd: std::path::PathBuf,
    pub dir: String,
}

impl UseCase for GlobPath {
    const OPEN: Open = Open::AsIs;
    type Outcome = String;

    fn run(&self, session: &Session) -> Result<String> {
        path_from_top(session.repo()?, &self.cwd, &self.dir)
    }
}
