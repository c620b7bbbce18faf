//! Making a repository from nothing (the demo's): init, local config, and
//! a first commit of everything in the work tree.

use crate::{on_object, on_path};
use std::path::Path;

use crate::error::Result;
use crate::view::Signature;
use crate::{Context, Oid, Repo};

/// Creates a repository in `dir` whose first branch is `branch`.
pub fn init(dir: &Path, branch: &str) -> Result<Repo> {
    let mut opts = git2::RepositoryInitOptions::new();
    opts.initial_head(branch);
    let repo =
        git2::Repository::init_opts(dir, &opts).context(|| on_path("create repository", dir))?;
    Repo::new(repo)
}

impl Repo {
    /// Sets `key` to `value` in the repository's own config file.
    pub fn set_local_config(&self, key: &str, value: &str) -> Result<()> {
        self.forget_config();
        self.raw()
            .config()
            .and_then(|mut c| c.set_str(key, value))
            .context(|| {
                let file = self.git_dir().join("config");
                on_path("set config", &file).said(format!("set {key} in {}", file.display()))
            })
    }

    /// Stages every file of the work tree and commits it on HEAD, by
    /// `who` (`git add -A && git commit`); the new commit's id.
    pub fn commit_all(&self, message: &str, who: &Signature) -> Result<Oid> {
        let raw = self.raw();
        let mut index = raw.index().context(|| "read the index")?;
        index
            .add_all(["*"], git2::IndexAddOption::DEFAULT, None)
            .context(|| "stage the work tree")?;
        index.write().context(|| "write the index")?;
        let tree_id = index.write_tree().context(|| "write the index as a tree")?;
        let tree = raw
            .find_tree(tree_id)
            .context(|| on_object("read tree", tree_id))?;
        let sig = who.raw()?;
        let parents = match raw.head().ok().and_then(|h| h.peel_to_commit().ok()) {
            Some(c) => vec![c],
            None => Vec::new(),
        };
        let parents: Vec<&git2::Commit<'_>> = parents.iter().collect();
        raw.commit(Some("HEAD"), &sig, &sig, message, &tree, &parents)
            .map(Oid::from)
            .context(|| {
                on_object("commit tree", tree_id).said(format!("commit tree {tree_id} on HEAD"))
            })
    }
}
