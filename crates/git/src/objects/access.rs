//! What the layers above read and write through the handle, by name:
//! commits, trees and blobs by id, refs by name, ancestry. Each failure
//! says which object or ref it was about.

use crate::{on_object, on_path, on_ref};
use std::path::Path;

use crate::objects::view::{Commit, Tree};
use crate::{Context, Oid, Repo};
use evolv_core::error::Result;

impl Repo {
    /// The git dir (`.git`, or the repository itself when bare).
    pub fn git_dir(&self) -> &Path {
        self.raw().path()
    }

    /// The common git dir: the main repository's, shared by its worktrees.
    pub fn common_dir(&self) -> &Path {
        self.raw().commondir()
    }

    /// Whether the repository has no work tree.
    pub fn is_bare(&self) -> bool {
        self.raw().is_bare()
    }

    /// The top of the work tree, if there is one.
    pub fn workdir(&self) -> Option<&Path> {
        self.raw().workdir()
    }

    /// What another thread needs to open its own handle on this
    /// repository and work tree (a handle is not `Sync`).
    pub fn reopener(&self) -> Reopener {
        Reopener {
            git_dir: self.git_dir().to_path_buf(),
            workdir: self.workdir().map(Path::to_path_buf),
            learnt: self.memo().clone(),
        }
    }

    /// The commit HEAD points to, if it points to one.
    pub fn head_target(&self) -> Option<Oid> {
        self.raw().head().ok()?.target().map(Oid::from)
    }

    /// The ref HEAD is on (`refs/heads/main`), or `None` when HEAD is
    /// detached or unreadable.
    pub fn head_branch(&self) -> Option<String> {
        if self.raw().head_detached().unwrap_or(false) {
            return None;
        }
        self.raw().head().ok()?.name().map(str::to_string)
    }

    /// Whether HEAD is detached.
    pub fn head_detached(&self) -> bool {
        self.raw().head_detached().unwrap_or(false)
    }

    /// Whether `path` (from the top of the work tree) differs in the work
    /// tree or the index from HEAD: modified, new or deleted.
    pub fn has_uncommitted_changes(&self, path: &Path) -> bool {
        self.raw().status_file(path).is_ok_and(|status| {
            status.intersects(
                git2::Status::WT_MODIFIED
                    | git2::Status::WT_NEW
                    | git2::Status::WT_DELETED
                    | git2::Status::INDEX_MODIFIED
                    | git2::Status::INDEX_NEW
                    | git2::Status::INDEX_DELETED,
            )
        })
    }

    /// Commit `id`.
    pub fn find_commit(&self, id: Oid) -> Result<Commit<'_>> {
        self.raw()
            .find_commit(id.raw())
            .map(Commit::new)
            .context(|| on_object("read commit", id))
    }

    /// Tree `id`.
    pub fn find_tree(&self, id: Oid) -> Result<Tree<'_>> {
        self.raw()
            .find_tree(id.raw())
            .map(Tree::new)
            .context(|| on_object("read tree", id))
    }

    /// The tree of commit `id`.
    pub fn commit_tree(&self, id: Oid) -> Result<Tree<'_>> {
        self.find_commit(id)?.tree()
    }

    /// The content of blob `id`. In a partial clone, a blob that is not
    /// here is fetched from the promisor remote first, as git's lazy fetch
    /// does when something reads it (a file outside the sparse checkout).
    pub fn blob(&self, id: Oid) -> Result<Vec<u8>> {
        let read = || self.raw().find_blob(id.raw()).map(|b| b.content().to_vec());
        match read() {
            Err(e) if e.code() == git2::ErrorCode::NotFound && self.promisor_remote().is_some() => {
                self.fetch_missing([id])?;
                read().context(|| on_object("read blob", id))
            }
            other => other.context(|| on_object("read blob", id)),
        }
    }

    /// Writes `content` as a blob. Through the object database's own
    /// write, which hashes first and only freshens a blob already stored
    /// (`Repository::blob` streams every one to a temporary file, deleted
    /// again when the blob was there).
    pub fn write_blob(&self, content: &[u8]) -> Result<Oid> {
        self.raw()
            .odb()
            .and_then(|odb| odb.write(git2::ObjectType::Blob, content))
            .map(Oid::from)
            .context(|| "write a blob")
    }

    /// The id ref `name` points to (through symbolic refs), if it exists.
    pub fn ref_target(&self, name: &str) -> Option<Oid> {
        self.raw().refname_to_id(name).ok().map(Oid::from)
    }

    /// Every ref whose name matches `glob` (`refs/evolv/proposals/*`),
    /// with the id it points to (through symbolic refs). A ref that cannot
    /// be read is an error naming it.
    pub fn refs_matching(&self, glob: &str) -> Result<Vec<(String, Oid)>> {
        let listing = || on_ref("list the refs", glob);
        let mut out = Vec::new();
        for reference in self.raw().references_glob(glob).context(listing)? {
            let reference = reference.context(listing)?;
            let Some(name) = reference.name().map(str::to_string) else {
                continue;
            };
            // A direct ref has its id at hand; only a symbolic one is
            // resolved (libgit2's resolve reads a direct ref again).
            let id = reference
                .target()
                .or_else(|| reference.resolve().ok().and_then(|r| r.target()))
                .ok_or_else(|| {
                    crate::library_error(
                        on_ref("read ref", &name).said(format!("read {name}")),
                        git2::Error::from_str("it points to no object"),
                    )
                })?;
            out.push((name, Oid::from(id)));
        }
        Ok(out)
    }

    /// Every ref under `prefix` (ending in `/`), sorted by name: read
    /// straight from `packed-refs` and the loose files where they are
    /// plain, else by libgit2 (as [`Repo::refs_matching`] with `prefix*`).
    pub fn refs_under(&self, prefix: &str) -> Result<Vec<(String, Oid)>> {
        match crate::refs::scan::under(self.common_dir(), prefix) {
            Some(refs) => Ok(refs),
            None => self.refs_matching(&format!("{prefix}*")),
        }
    }

    /// [`Repo::refs_under`], leaving out the refs that cannot be read.
    pub fn readable_refs_under(&self, prefix: &str) -> Vec<(String, Oid)> {
        crate::refs::scan::under(self.common_dir(), prefix)
            .unwrap_or_else(|| self.readable_refs_matching(&format!("{prefix}*")))
    }

    /// [`Repo::refs_matching`], leaving out the refs that cannot be read
    /// (a watcher that polls must not stop at one).
    pub fn readable_refs_matching(&self, glob: &str) -> Vec<(String, Oid)> {
        let Ok(refs) = self.raw().references_glob(glob) else {
            return Vec::new();
        };
        refs.flatten()
            .filter_map(|r| Some((r.name()?.to_string(), Oid::from(r.target()?))))
            .collect()
    }

    /// Whether `commit` descends from `ancestor` (a commit is not its own
    /// descendant).
    pub fn is_descendant_of(&self, commit: Oid, ancestor: Oid) -> Result<bool> {
        self.raw()
            .graph_descendant_of(commit.raw(), ancestor.raw())
            .context(|| {
                on_object("compare histories", commit)
                    .said(format!("compare the histories of {commit} and {ancestor}"))
            })
    }

    /// The best common ancestor of `a` and `b`, if they have one.
    pub fn merge_base(&self, a: Oid, b: Oid) -> Option<Oid> {
        self.raw().merge_base(a.raw(), b.raw()).ok().map(Oid::from)
    }

    /// Writes a bookkeeping commit (an audit record, a comment): `message`
    /// on `tree` after `parents`, by `who`, never signed, no ref moved.
    /// Commits that land on a branch go through [`crate::objects::commit::create`].
    pub fn write_record(
        &self,
        message: &str,
        tree: Oid,
        parents: &[Oid],
        who: &crate::objects::view::Signature,
    ) -> Result<Oid> {
        let commit = crate::objects::commit::NewCommit {
            author: who,
            committer: who,
            message,
            tree,
            parents,
        };
        crate::objects::commit::unsigned(self, &commit)
    }

    /// The empty tree, written.
    pub fn empty_tree(&self) -> Result<Oid> {
        self.raw()
            .treebuilder(None)
            .and_then(|b| b.write())
            .map(Oid::from)
            .context(|| "write the empty tree")
    }
}

/// Opens handles on one repository and work tree, from any thread.
#[derive(Debug, Clone)]
pub struct Reopener {
    git_dir: std::path::PathBuf,
    workdir: Option<std::path::PathBuf>,
    /// What the first handle learnt once (`learnt`), shared.
    learnt: crate::repo::learnt::Memo,
}

impl Reopener {
    /// A new handle on the repository and work tree, sharing what the
    /// handle it came from learnt.
    pub fn open(&self) -> Result<Repo> {
        let dir = &self.git_dir;
        let own = git2::Repository::open(dir).context(|| on_path("open repository", dir))?;
        // The same working tree, however the first handle found it.
        if let Some(w) = &self.workdir {
            own.set_workdir(w, false)
                .context(|| on_path("set the work tree", w))?;
        }
        Ok(Repo::new(own)?.sharing(self.learnt.clone()))
    }
}
