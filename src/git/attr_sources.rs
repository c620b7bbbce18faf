//! What a repository handle learns about attribute sources, so a path in
//! a repository without attributes costs no libgit2 attribute lookup
//! (issue 14 item 1: about 12 per changed file, each re-stat'ing
//! `.gitattributes` in every parent directory): whether any source outside
//! the working tree exists, whether the index tracks any `.gitattributes`,
//! and which working-tree directories hold one. Owned by `git::Repo`;
//! `filters` asks it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use git2::Repository;

use super::RepoPath;
use super::index_file::IndexFile;
use super::path::fs_path;

/// See the module.
pub struct Sources {
    none_outside: bool,
    none_indexed: bool,
    dirs: HashMap<Vec<u8>, bool>,
}

fn exists(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok()
}

/// Whether `index` tracks no `.gitattributes` file.
pub fn none_indexed(index: &IndexFile) -> bool {
    !index
        .entries
        .iter()
        .any(|e| e.path == b".gitattributes" || e.path.ends_with(b"/.gitattributes"))
}

impl Sources {
    /// Looks for the sources outside the working tree; `none_indexed`
    /// says whether the index tracks any `.gitattributes`.
    pub fn new(repo: &Repository, none_indexed: bool) -> Self {
        let mut outside = vec![
            repo.commondir().join("info/attributes"),
            repo.path().join("info/attributes"),
        ];
        if std::env::var_os("GIT_ATTR_NOSYSTEM").is_none() {
            outside.push("/etc/gitattributes".into());
        }
        // Through the config adapter: `git -c core.attributesFile=…` too.
        let configured = super::config::Config::for_git_dir(repo.path())
            .ok()
            .and_then(|c| c.path("core.attributesFile"));
        match configured {
            Some(p) => outside.push(p),
            None => {
                let xdg = std::env::var_os("XDG_CONFIG_HOME")
                    .map(PathBuf::from)
                    .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".config")));
                if let Some(x) = xdg {
                    outside.push(x.join("git/attributes"));
                }
            }
        }
        Sources {
            none_outside: !outside.iter().any(|p| exists(p)),
            none_indexed,
            dirs: HashMap::new(),
        }
    }

    /// Whether no attribute can apply to `path` (relative to `workdir`): no
    /// source outside the working tree, none tracked, and no
    /// `.gitattributes` in any of its directories. `false` only means "ask
    /// libgit2".
    pub fn surely_unattributed(&mut self, workdir: &Path, path: &RepoPath) -> bool {
        if !self.none_outside || !self.none_indexed {
            return false;
        }
        let mut dir: Vec<u8> = Vec::new();
        let mut parts = path.as_bytes().split(|&b| b == b'/').peekable();
        while let Some(part) = parts.next() {
            let has = *self
                .dirs
                .entry(dir.clone())
                .or_insert_with(|| exists(&workdir.join(fs_path(&dir)).join(".gitattributes")));
            if has {
                return false;
            }
            if parts.peek().is_none() {
                break;
            }
            if !dir.is_empty() {
                dir.push(b'/');
            }
            dir.extend_from_slice(part);
        }
        true
    }
}
