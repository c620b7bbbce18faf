//! Diffs between trees, in git's own patch format.

use git2::{Delta, Diff, DiffFormat, DiffOptions, Repository, Tree};

use super::RepoPath;
use crate::error::Result;

/// A path whose entry differs between two trees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangedPath {
    pub path: RepoPath,
    pub status: Delta,
}

fn tree_diff<'r>(
    repo: &'r Repository,
    old: &Tree<'_>,
    new: &Tree<'_>,
    only: Option<&[impl AsRef<[u8]>]>,
) -> Result<Diff<'r>> {
    let mut opts = DiffOptions::new();
    opts.context_lines(3).show_binary(true);
    if let Some(paths) = only {
        // Exact paths: libgit2 then skips the rest of a large tree.
        opts.disable_pathspec_match(true);
        for p in paths {
            opts.pathspec(p.as_ref());
        }
    }
    Ok(repo.diff_tree_to_tree(Some(old), Some(new), Some(&mut opts))?)
}

/// The unified diff `old → new` exactly as `git diff` prints it
/// (`diff --git`, `index`, `---`/`+++`, hunks with 3 lines of context),
/// limited to `only` when the caller knows which paths differ (exact
/// paths, as bytes: names that are not UTF-8 included).
pub fn patch_text(
    repo: &Repository,
    old: &Tree<'_>,
    new: &Tree<'_>,
    only: Option<&[impl AsRef<[u8]>]>,
) -> Result<Vec<u8>> {
    let handle = without_index(repo)?;
    let (old, new) = (handle.find_tree(old.id())?, handle.find_tree(new.id())?);
    let diff = tree_diff(&handle, &old, &new, only)?;
    let mut out = Vec::new();
    diff.print(DiffFormat::Patch, |_, _, line| {
        match line.origin() {
            '+' | '-' | ' ' => out.push(line.origin() as u8),
            _ => {}
        }
        out.extend_from_slice(line.content());
        true
    })?;
    Ok(out)
}

/// A second handle on `repo` whose index is empty and in memory. libgit2
/// looks up each file's diff driver in `.gitattributes`, which loads and
/// checksums the whole on-disk index: 28% of the instructions of a propose
/// on 100k files, for a diff of a few paths. Attributes still come from the
/// working tree's `.gitattributes` files.
fn without_index(repo: &Repository) -> Result<Repository> {
    let handle = Repository::open(repo.path())?;
    handle.set_index(&mut git2::Index::new()?)?;
    Ok(handle)
}

/// Lines added and removed between two trees, counted from the patch of
/// `paths`, the paths that differ (a whole-tree diff walks every entry).
pub fn line_stats(
    repo: &super::Repo,
    old: &Tree<'_>,
    new: &Tree<'_>,
    paths: &[RepoPath],
) -> Result<(usize, usize)> {
    let mut rest = Vec::new();
    let (mut added, mut removed) = (0, 0);
    for path in paths {
        match blob_line_stats(repo, old, new, path)? {
            Some((a, r)) => {
                added += a;
                removed += r;
            }
            None => rest.push(path.clone()),
        }
    }
    if !rest.is_empty() {
        let (a, r) = crate::diff::line_counts(&patch_text(repo, old, new, Some(&rest))?);
        added += a;
        removed += r;
    }
    Ok((added, removed))
}

/// The lines added and removed at `path`, diffed blob to blob, for a path
/// no attribute can reach (so its diff driver is the default one) whose
/// entries are blobs of the same kind on both sides: libgit2's tree diff
/// looks up each file's diff driver in the attribute files of every
/// parent directory, twice per path (14 `readlink`s and 20 stats per file
/// of a codemod; issue 14 item 1). `None`: ask the tree diff.
fn blob_line_stats(
    repo: &super::Repo,
    old: &Tree<'_>,
    new: &Tree<'_>,
    path: &RepoPath,
) -> Result<Option<(usize, usize)>> {
    if !repo.surely_unattributed(path) {
        return Ok(None);
    }
    let entry = |t: &Tree<'_>| t.get_path(path.fs()).ok();
    let (a, b) = (entry(old), entry(new));
    let is_link = |e: &git2::TreeEntry<'_>| e.filemode() == super::mode::SYMLINK as i32;
    let blobs = [&a, &b].iter().all(|e| {
        e.as_ref()
            .is_none_or(|e| e.kind() == Some(git2::ObjectType::Blob))
    });
    let kinds_differ = matches!((&a, &b), (Some(x), Some(y)) if is_link(x) != is_link(y));
    if !blobs || kinds_differ {
        return Ok(None);
    }
    let content = |e: &Option<git2::TreeEntry<'_>>| -> Result<Option<git2::Blob<'_>>> {
        Ok(match e {
            Some(e) => Some(repo.find_blob(e.id())?),
            None => None,
        })
    };
    let (old_blob, new_blob) = (content(&a)?, content(&b)?);
    let old_bytes: &[u8] = old_blob.as_ref().map_or(&[], git2::Blob::content);
    let new_bytes: &[u8] = new_blob.as_ref().map_or(&[], git2::Blob::content);
    let patch = git2::Patch::from_buffers(old_bytes, None, new_bytes, None, None)?;
    let (_, added, removed) = patch.line_stats()?;
    Ok(Some((added, removed)))
}

/// The paths of an index's conflicts, sorted.
pub fn conflict_paths(index: &git2::Index) -> Result<Vec<String>> {
    let mut paths: Vec<String> = index
        .conflicts()?
        .flatten()
        .filter_map(|c| c.our.or(c.their).or(c.ancestor))
        // Named as git names them (quoted when not plain UTF-8).
        .map(|e| RepoPath::from(&e.path[..]).to_string())
        .collect();
    paths.sort();
    paths.dedup();
    Ok(paths)
}
