//! Putting paths of the work tree to what a checkpoint's tree holds, and
//! telling which paths someone other than a session changed.
//!
//! Each file is written by temp file and rename (`checkout::write_blob`,
//! through git's smudge filters, its mode and a symbolic link as one), so
//! a kill leaves every path either as it was or as the checkpoint has it;
//! the removals come first, so a file may take the place of a directory
//! and back.

use crate::error::Result;
use crate::git::worktree::checkout;
use crate::git::{Oid, Repo, RepoPath, TreeLookup};

use super::chain::Checkpoint;

/// What `tree` holds at `path`: its blob and mode (`None`: no file).
pub(super) struct Image<'r> {
    lookup: TreeLookup<'r>,
}

impl<'r> Image<'r> {
    pub(super) fn new(repo: &'r Repo, tree: &crate::git::objects::view::Tree<'r>) -> Self {
        Image {
            lookup: TreeLookup::new(repo, tree),
        }
    }

    pub(super) fn at(&mut self, path: &RepoPath) -> Option<(Oid, u32)> {
        self.lookup
            .get(path)
            .filter(|f| f.mode != crate::git::types::mode::TREE)
            .map(|f| (f.id, f.mode))
    }
}

/// Writes `paths` as `tree` has them: removed where it has no file.
/// A submodule's path is left as it is.
pub(super) fn write_paths(repo: &Repo, tree: Oid, paths: &[RepoPath]) -> Result<()> {
    let tree = repo.find_tree(tree)?;
    let mut image = Image::new(repo, &tree);
    let wanted: Vec<(&RepoPath, Option<(Oid, u32)>)> =
        paths.iter().map(|p| (p, image.at(p))).collect();
    for (path, _) in wanted.iter().filter(|(_, w)| w.is_none()) {
        if !checkout::has_no_file(repo, path) {
            checkout::remove(repo, path)?;
        }
    }
    let mut first = true;
    for (path, (id, mode)) in wanted.iter().filter_map(|(p, w)| w.map(|w| (p, w))) {
        if mode == crate::git::types::mode::GITLINK {
            continue;
        }
        checkout::write_blob(repo, path, id, mode)?;
        if first {
            crate::crashpoint!("rewind-first-file");
            first = false;
        }
    }
    Ok(())
}

/// The paths among `paths` that someone other than the session changed
/// after checkpoint `chain[target]` (`chain` newest first), as far as the
/// checkpoints tell: anything changed since the session's newest
/// checkpoint (`now`, the work tree's tree; where that checkpoint is a
/// rewind cut short, the state before it counts too), and anything
/// changed between two of its checkpoints where the later one is a turn's
/// start (between turns the agent does nothing) or the copy a rewind
/// saved of what it met.
pub(super) fn drifted(
    repo: &Repo,
    chain: &[Checkpoint],
    target: usize,
    now: Oid,
    paths: &[RepoPath],
) -> Result<Vec<RepoPath>> {
    let now_tree = repo.find_tree(now)?;
    let mut current = Image::new(repo, &now_tree);
    let newest_tree = repo.find_tree(chain[0].tree)?;
    let mut newest = Image::new(repo, &newest_tree);
    let before_rewind = match chain.get(1) {
        Some(prev) if chain[0].meta.event == "rewind" => Some(repo.find_tree(prev.tree)?),
        _ => None,
    };
    let mut before_rewind = before_rewind.as_ref().map(|t| Image::new(repo, t));
    let mut out = Vec::new();
    for path in paths {
        let here = current.at(path);
        let ours =
            here == newest.at(path) || before_rewind.as_mut().is_some_and(|b| b.at(path) == here);
        if !ours {
            out.push(path.clone());
        }
    }
    for i in 0..target.min(chain.len().saturating_sub(1)) {
        let (later, earlier) = (&chain[i], &chain[i + 1]);
        if later.meta.event != "turn-start" && later.meta.event != "save" {
            continue;
        }
        let (a, b) = (repo.find_tree(earlier.tree)?, repo.find_tree(later.tree)?);
        let (mut a, mut b) = (Image::new(repo, &a), Image::new(repo, &b));
        for path in paths {
            if a.at(path) != b.at(path) && !out.contains(path) {
                out.push(path.clone());
            }
        }
    }
    out.sort();
    Ok(out)
}
