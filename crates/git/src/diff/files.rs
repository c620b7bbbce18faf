//! The files two trees differ in, as the review page lists them: each
//! file's paths (renames found), kind of change, whether it is binary, its
//! blobs and, when asked, its line counts or its hunks.

use evolv_core::diff::hunks::Hunk;

use crate::error::Result;
use crate::{Context, Oid, Repo, RepoPath};
use crate::{on_object, on_path};

/// How a file changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileStatus {
    Added,
    Deleted,
    Renamed,
    Modified,
}

/// One file of a tree diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileDiff {
    /// Paths as text (lossily UTF-8); `None` on the side it is missing.
    pub old_path: Option<String>,
    pub new_path: Option<String>,
    pub status: FileStatus,
    pub binary: bool,
    pub old_id: Oid,
    pub new_id: Oid,
    /// Lines added and removed, and lines of the patch (hunk headers
    /// included); zero unless counted.
    pub lines_added: usize,
    pub lines_removed: usize,
    pub diff_lines: usize,
    /// The patch's hunks, as `git diff` finds them; only for the file
    /// `only` names, or the first file when `only` is `None` (empty
    /// otherwise, and for a binary file).
    pub hunks: Vec<Hunk>,
}

impl Repo {
    /// The files of `paths` (exact, as bytes) that differ from tree `old`
    /// to tree `new`, renames found, in diff order. Each file's patch is
    /// computed (line counts, and binary as the patch finds it), and the
    /// first file's hunks kept: the review page opens on that file, whose
    /// first page then needs no second diff of it. When `only` names one
    /// file, only that file's patch is computed, its hunks given instead of
    /// line counts (the review page draws them: no second diff of it).
    pub fn file_diffs(
        &self,
        old: Oid,
        new: Oid,
        paths: &[RepoPath],
        only: Option<&str>,
    ) -> Result<Vec<FileDiff>> {
        let raw = self.raw();
        let doing =
            || on_object("compare trees", old).said(format!("compare tree {old} with tree {new}"));
        let tree = |id: Oid| {
            raw.find_tree(id.raw())
                .context(|| on_object("read tree", id))
        };
        let mut opts = crate::diff::patch::options();
        opts.disable_pathspec_match(true);
        for p in paths {
            opts.pathspec(p.as_bytes());
        }
        let mut diff = raw
            .diff_tree_to_tree(Some(&tree(old)?), Some(&tree(new)?), Some(&mut opts))
            .context(doing)?;
        let mut find = git2::DiffFindOptions::new();
        find.renames(true);
        diff.find_similar(Some(&mut find)).context(doing)?;
        let mut out = Vec::new();
        for (i, delta) in diff.deltas().enumerate() {
            let text = |f: git2::DiffFile<'_>| f.path().map(|p| p.to_string_lossy().into_owned());
            let status = match delta.status() {
                git2::Delta::Added => FileStatus::Added,
                git2::Delta::Deleted => FileStatus::Deleted,
                git2::Delta::Renamed => FileStatus::Renamed,
                _ => FileStatus::Modified,
            };
            let mut file = FileDiff {
                old_path: text(delta.old_file()),
                new_path: text(delta.new_file()),
                status,
                binary: delta.flags().is_binary(),
                old_id: delta.old_file().id().into(),
                new_id: delta.new_file().id().into(),
                lines_added: 0,
                lines_removed: 0,
                diff_lines: 0,
                hunks: Vec::new(),
            };
            let shown = file.new_path.as_deref().or(file.old_path.as_deref());
            if only.is_some_and(|o| shown != Some(o)) {
                out.push(file);
                continue;
            }
            // The patch also tells a binary file libgit2 only found binary
            // while diffing it.
            if let Some(patch) = git2::Patch::from_diff(&diff, i)
                .context(|| on_path("diff", file.new_path.as_deref().unwrap_or_default()))?
            {
                file.binary |= patch.delta().flags().is_binary();
                if only.is_some() || i == 0 {
                    file.hunks = crate::diff::patch::hunks_of(&patch).context(doing)?;
                }
                if only.is_none() {
                    let (_, a, r) = patch.line_stats().context(doing)?;
                    (file.lines_added, file.lines_removed) = (a, r);
                    file.diff_lines = (0..patch.num_hunks())
                        .map(|h| patch.num_lines_in_hunk(h).unwrap_or(0) + 1)
                        .sum();
                }
            }
            out.push(file);
        }
        Ok(out)
    }

    /// The value of attribute `name` for `path`, from the index's
    /// attribute files only (`git check-attr --cached`); `None` when unset
    /// or unspecified there.
    pub fn index_attribute(&self, path: &str, name: &str) -> Option<String> {
        self.raw()
            .get_attr(
                std::path::Path::new(path),
                name,
                git2::AttrCheckFlags::INDEX_ONLY,
            )
            .ok()
            .flatten()
            .map(str::to_string)
    }
}
