//! git's linked worktrees, through libgit2: add one (empty, detached),
//! check one, list, locate and prune them. What a validation worktree is
//! for, and its locks, are the engine's.

use crate::{on_object, on_path, on_ref};
use std::fs;
use std::path::{Path, PathBuf};

use git2::{BranchType, WorktreeAddOptions, WorktreePruneOptions};

use crate::error::{Error, Result};
use crate::objects::view::Signature;
use crate::{Context, Repo};

impl Repo {
    /// The names of this repository's linked worktrees.
    pub fn worktree_names(&self) -> Result<Vec<String>> {
        let names = self.raw().worktrees().context(|| "list worktrees")?;
        Ok(names.iter().flatten().map(str::to_string).collect())
    }

    /// Where worktree `name` is checked out, if git knows it.
    pub fn worktree_path(&self, name: &str) -> Option<PathBuf> {
        let wt = self.raw().find_worktree(name).ok()?;
        Some(wt.path().to_path_buf())
    }

    /// Whether worktree `name` exists and git finds it valid.
    pub fn worktree_is_valid(&self, name: &str) -> bool {
        self.raw()
            .find_worktree(name)
            .is_ok_and(|wt| wt.validate().is_ok())
    }

    /// Forgets worktree `name` (its administrative files), locked or not;
    /// its folder too when `working_tree`. Best effort.
    pub fn prune_worktree(&self, name: &str) {
        if let Ok(wt) = self.raw().find_worktree(name) {
            let mut opts = WorktreePruneOptions::new();
            opts.valid(true).locked(true).working_tree(true);
            let _ = wt.prune(Some(&mut opts));
        }
    }

    /// Adds worktree `name` at `path`, empty, its HEAD detached at a
    /// parentless empty-tree commit (always the same object): libgit2
    /// insists on checking out a branch, so a temporary branch
    /// `<branch_prefix><name>-<pid>` is made there and deleted once the
    /// worktree's HEAD is detached. On failure nothing of it is left.
    pub fn add_empty_worktree(&self, name: &str, path: &Path, branch_prefix: &str) -> Result<()> {
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(|e| Error::io("create", parent, e))?;
        }
        // libgit2 makes `<common dir>/worktrees` only when it finds it
        // missing, and fails when another process made it in between ("directory
        // exists": two first `test`s at once); made here first, it is found.
        let admin = self.common_dir().join("worktrees");
        fs::create_dir_all(&admin).map_err(|e| Error::io("create", &admin, e))?;
        let empty_tree = self.empty_tree()?;
        let sig = Signature {
            name: "git-evolv".into(),
            email: "git-evolv@localhost".into(),
            time: 0,
            offset_minutes: 0,
        };
        let empty = self.write_record("git-evolv: empty worktree base\n", empty_tree, &[], &sig)?;
        let raw = self.raw();
        let empty_commit = raw
            .find_commit(empty.raw())
            .context(|| on_object("read commit", empty))?;
        let branch_name = format!("{branch_prefix}{name}-{}", std::process::id());
        let mut branch = raw
            .branch(&branch_name, &empty_commit, true)
            .context(|| on_ref("create branch", &branch_name))?;
        let result = (|| -> Result<()> {
            let mut opts = WorktreeAddOptions::new();
            opts.reference(Some(branch.get()));
            raw.worktree(name, path, Some(&opts)).context(|| {
                on_path("add worktree", path)
                    .said(format!("add worktree {name} at {}", path.display()))
            })?;
            git2::Repository::open(path)
                .context(|| on_path("open repository", path))?
                .set_head_detached(empty.raw())
                .context(|| {
                    on_path("detach HEAD", path)
                        .said(format!("detach HEAD of {} at {empty}", path.display()))
                })?;
            Ok(())
        })();
        branch
            .delete()
            .context(|| on_ref("delete branch", &branch_name))?;
        if result.is_err() {
            self.prune_worktree(name);
            let _ = fs::remove_dir_all(path);
        }
        result
    }

    /// Deletes the local branches whose name starts with `prefix` (left by
    /// a run killed mid-[`Repo::add_empty_worktree`]). Best effort.
    pub fn delete_branches_with_prefix(&self, prefix: &str) {
        if let Ok(branches) = self.raw().branches(Some(BranchType::Local)) {
            for (mut b, _) in branches.flatten() {
                if b.name()
                    .ok()
                    .flatten()
                    .is_some_and(|n| n.starts_with(prefix))
                {
                    let _ = b.delete();
                }
            }
        }
    }
}
