//! Reading the layers in order and following `include.path` and
//! `includeIf.<condition>.path` where they appear, as git's `config.c`
//! does (relative paths from the including file's folder, `~/` from HOME,
//! missing files skipped, at most 10 levels deep).

use std::path::{Path, PathBuf};

use globset::GlobBuilder;

use super::parse::{self, RawEntry};
use super::{Config, Entry, Env, Origin, Scope, parse_bool};
use crate::error::{Error, Result};

/// git's `MAX_INCLUDE_DEPTH`.
const MAX_DEPTH: usize = 10;

pub(super) struct Loader<'e> {
    git_dir: Option<PathBuf>,
    env: &'e Env,
    entries: Vec<Entry>,
    remote_urls: Option<Vec<String>>,
    saw_hasconfig: bool,
}

impl<'e> Loader<'e> {
    pub(super) fn new(git_dir: Option<&Path>, env: &'e Env) -> Self {
        Loader {
            git_dir: git_dir.map(|d| std::path::absolute(d).unwrap_or_else(|_| d.to_path_buf())),
            env,
            entries: Vec::new(),
            remote_urls: None,
            saw_hasconfig: false,
        }
    }

    pub(super) fn set_remote_urls(&mut self, urls: Vec<String>) {
        self.remote_urls = Some(urls);
    }

    pub(super) fn saw_hasconfig(&self) -> bool {
        self.saw_hasconfig
    }

    pub(super) fn load_all(&mut self) -> Result<Config> {
        if let Some(system) = self.env.system_file() {
            self.file(&system, Scope::System, 0)?;
        }
        for global in self.env.global_files() {
            self.file(&global, Scope::Global, 0)?;
        }
        if let Some(git_dir) = self.git_dir.clone() {
            let common = self.common_dir(&git_dir);
            let before = self.entries.len();
            self.file(&common.join("config"), Scope::Local, 0)?;
            // The repository format lives in the common config file.
            let worktree_config = self.entries[before..]
                .iter()
                .rev()
                .find(|e| e.key == "extensions.worktreeconfig")
                .is_some_and(|e| {
                    e.value
                        .as_deref()
                        .is_none_or(|v| parse_bool(v) == Some(true))
                });
            if worktree_config {
                self.file(&git_dir.join("config.worktree"), Scope::Worktree, 0)?;
            }
        }
        for (key, value) in self.env.command_line.clone() {
            let canonical = parse::canonical_key(&key).ok_or_else(|| Error::InvalidConfig {
                key: key.clone(),
                value: value.clone().unwrap_or_default(),
                expected: "a key of the form section.name (as `git -c section.name=value`)".into(),
            })?;
            let raw = RawEntry {
                key: canonical,
                value,
                line: 0,
            };
            self.push(raw, Scope::Command, &Origin::CommandLine, None, 0)?;
        }
        Ok(Config {
            entries: std::mem::take(&mut self.entries),
        })
    }

    /// `GIT_COMMON_DIR`, else the `commondir` file of a linked worktree's
    /// git dir, else the git dir itself.
    fn common_dir(&self, git_dir: &Path) -> PathBuf {
        if let Some(c) = &self.env.common_dir {
            return c.clone();
        }
        match std::fs::read_to_string(git_dir.join("commondir")) {
            Ok(text) => {
                let rel = PathBuf::from(text.trim_end_matches(['\n', '\r']));
                if rel.is_absolute() {
                    rel
                } else {
                    git_dir.join(rel)
                }
            }
            Err(_) => git_dir.to_path_buf(),
        }
    }

    /// Reads one file; a missing file is no settings, as for git.
    fn file(&mut self, path: &Path, scope: Scope, depth: usize) -> Result<()> {
        let bytes = match std::fs::read(path) {
            Ok(b) => b,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
                ) =>
            {
                return Ok(());
            }
            Err(e) => return Err(Error::io("read the git config file", path, e)),
        };
        let text = String::from_utf8_lossy(&bytes);
        let raw = parse::parse_file(&text).map_err(|e| Error::ConfigSyntax {
            path: path.to_path_buf(),
            line: e.line,
            cause: e.cause,
        })?;
        let origin = Origin::File(path.to_path_buf());
        for entry in raw {
            self.push(entry, scope, &origin, Some(path), depth)?;
        }
        Ok(())
    }

    /// Records one setting and follows it when it is an include.
    fn push(
        &mut self,
        raw: RawEntry,
        scope: Scope,
        origin: &Origin,
        file: Option<&Path>,
        depth: usize,
    ) -> Result<()> {
        let target = match (&raw.value, include_condition(&raw.key)) {
            (Some(path), Some(condition)) => match condition {
                None => Some(path.clone()),
                Some(cond) => self.matches(&cond, file).then(|| path.clone()),
            },
            _ => None,
        };
        self.entries.push(Entry {
            key: raw.key,
            value: raw.value,
            scope,
            origin: origin.clone(),
        });
        let Some(target) = target else {
            return Ok(());
        };
        if depth >= MAX_DEPTH {
            return Err(Error::InvalidConfig {
                key: "include.path".into(),
                value: target,
                expected: format!("at most {MAX_DEPTH} levels of nested includes"),
            });
        }
        let Some(path) = resolve(&target, file, self.env.home.as_deref()) else {
            // A relative include from the command line: git refuses it;
            // there is nothing to read.
            return Ok(());
        };
        self.file(&path, scope, depth + 1)
    }

    fn matches(&mut self, cond: &str, file: Option<&Path>) -> bool {
        if let Some(p) = cond.strip_prefix("gitdir:") {
            self.gitdir_matches(p, file, false)
        } else if let Some(p) = cond.strip_prefix("gitdir/i:") {
            self.gitdir_matches(p, file, true)
        } else if let Some(p) = cond.strip_prefix("onbranch:") {
            self.branch_matches(p)
        } else if let Some(p) = cond.strip_prefix("hasconfig:remote.*.url:") {
            self.saw_hasconfig = true;
            self.remote_urls
                .as_ref()
                .is_some_and(|urls| urls.iter().any(|u| wildmatch(p, u, false)))
        } else {
            // Unknown conditions are false, as in git.
            false
        }
    }

    fn gitdir_matches(&self, pattern: &str, file: Option<&Path>, icase: bool) -> bool {
        let Some(git_dir) = &self.git_dir else {
            return false;
        };
        let mut pat = if let Some(rest) = pattern.strip_prefix("~/") {
            match &self.env.home {
                Some(h) => format!("{}/{rest}", globset_escape(&h.to_string_lossy())),
                None => return false,
            }
        } else if let Some(rest) = pattern.strip_prefix("./") {
            match file.and_then(Path::parent) {
                Some(dir) => format!("{}/{rest}", globset_escape(&dir.to_string_lossy())),
                None => return false,
            }
        } else if pattern.starts_with('/') {
            pattern.to_string()
        } else {
            format!("**/{pattern}")
        };
        if pat.ends_with('/') {
            pat.push_str("**");
        }
        let real = std::fs::canonicalize(git_dir).unwrap_or_else(|_| git_dir.clone());
        [real, git_dir.clone()]
            .iter()
            .any(|d| wildmatch(&pat, &d.to_string_lossy(), icase))
    }

    fn branch_matches(&self, pattern: &str) -> bool {
        let Some(git_dir) = &self.git_dir else {
            return false;
        };
        let Ok(head) = std::fs::read_to_string(git_dir.join("HEAD")) else {
            return false;
        };
        let Some(branch) = head.trim_end().strip_prefix("ref: refs/heads/") else {
            return false;
        };
        let mut pat = pattern.to_string();
        if pat.ends_with('/') {
            pat.push_str("**");
        }
        wildmatch(&pat, branch, false)
    }
}

/// `Some(None)` for `include.path`, `Some(Some(condition))` for
/// `includeif.<condition>.path`, `None` for any other key.
fn include_condition(key: &str) -> Option<Option<String>> {
    if key == "include.path" {
        return Some(None);
    }
    let cond = key.strip_prefix("includeif.")?.strip_suffix(".path")?;
    Some(Some(cond.to_string()))
}

/// An include target: `~/` from HOME, relative to the including file.
fn resolve(target: &str, file: Option<&Path>, home: Option<&Path>) -> Option<PathBuf> {
    if let Some(rest) = target.strip_prefix("~/") {
        return home.map(|h| h.join(rest));
    }
    let path = PathBuf::from(target);
    if path.is_absolute() {
        return Some(path);
    }
    Some(file?.parent()?.join(path))
}

/// git's `wildmatch(pattern, text, WM_PATHNAME)`: `*` stops at `/`, `**`
/// crosses folders.
fn wildmatch(pattern: &str, text: &str, icase: bool) -> bool {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .backslash_escape(true)
        .case_insensitive(icase)
        .build()
        .is_ok_and(|g| g.compile_matcher().is_match(text))
}

fn globset_escape(s: &str) -> String {
    globset::escape(s)
}
