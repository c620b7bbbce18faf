//! Reading trees in bulk.

use crate::Context;
use crate::Oid;
use crate::on_object;
use git2::{ObjectType, Tree};

use crate::error::Result;
use crate::{RepoPath, types::mode};

/// A regular file in a tree (symlinks and submodules are left out: an edit
/// engine has no business rewriting them).
#[derive(Debug, Clone)]
pub struct BlobEntry {
    /// The repo-relative path; for a name that is not UTF-8, its lossy
    /// form (for display; scope globs match `raw`, as git's do).
    pub path: String,
    /// The exact bytes of the path when some component is not UTF-8 (then
    /// `path` is lossy); `None` when `path` is exact. Kept apart so the
    /// walk over a large tree allocates nothing more for ordinary names.
    pub raw: Option<Box<[u8]>>,
    pub oid: Oid,
    pub mode: i32,
}

impl BlobEntry {
    /// The exact path, as the landing names the file.
    pub fn repo_path(&self) -> RepoPath {
        match &self.raw {
            Some(raw) => RepoPath::from(&raw[..]),
            None => RepoPath::from(self.path.as_str()),
        }
    }

    /// `prefix/` put in front of the path (`prefix` is text).
    pub fn prefixed(mut self, prefix: &str) -> Self {
        self.path = format!("{prefix}/{}", self.path);
        if let Some(raw) = &self.raw {
            let mut bytes = Vec::with_capacity(prefix.len() + 1 + raw.len());
            bytes.extend_from_slice(prefix.as_bytes());
            bytes.push(b'/');
            bytes.extend_from_slice(raw);
            self.raw = Some(bytes.into_boxed_slice());
        }
        self
    }
}

/// Every regular file of `tree`, in tree order, with repo-relative paths.
/// Names are read as bytes: a directory or file whose name is not UTF-8
/// is listed (lossily in `path`, exactly in `raw`), never an error (#16
/// item 7).
pub fn list_blobs(
    repo: &crate::Repo,
    tree: &crate::objects::view::Tree<'_>,
) -> Result<Vec<BlobEntry>> {
    let tree = tree.raw();
    let mut out = Vec::new();
    walk(repo, tree, "", None, &mut out)?;
    Ok(out)
}

/// `raw_dir`: the directory's exact bytes once some component of it is
/// not UTF-8 (`None`: `dir` is exact).
fn walk(
    repo: &crate::Repo,
    tree: &Tree<'_>,
    dir: &str,
    raw_dir: Option<&[u8]>,
    out: &mut Vec<BlobEntry>,
) -> Result<()> {
    for entry in tree.iter() {
        let is_dir = entry.kind() == Some(ObjectType::Tree);
        let (path, raw) = entry_path(dir, raw_dir, entry.name_bytes(), is_dir);
        match entry.kind() {
            Some(ObjectType::Tree) => {
                let sub = repo
                    .raw()
                    .find_tree(entry.id())
                    .context(|| on_object("read tree", entry.id()))?;
                walk(repo, &sub, &path, raw.as_deref(), out)?;
            }
            Some(ObjectType::Blob) => {
                // Regular and executable files only; a symlink's blob is its target.
                let mode = entry.filemode();
                if mode::is_file(mode as u32) {
                    out.push(BlobEntry {
                        path,
                        raw: raw.map(Vec::into_boxed_slice),
                        oid: crate::Oid::from(entry.id()),
                        mode,
                    });
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// The path of the tree entry `name` under `dir` (`""` or text ending in
/// `/`; `raw_dir` its bytes when they differ), with a `/` after a
/// directory's: as text, lossy where not UTF-8, and as bytes where the
/// text is not exact. Not `format!`: this runs once per file of the
/// repository.
pub fn entry_path(
    dir: &str,
    raw_dir: Option<&[u8]>,
    name: &[u8],
    is_dir: bool,
) -> (String, Option<Vec<u8>>) {
    let (text, exact) = match std::str::from_utf8(name) {
        Ok(n) => (std::borrow::Cow::Borrowed(n), true),
        Err(_) => (String::from_utf8_lossy(name), false),
    };
    let mut path = String::with_capacity(dir.len() + text.len() + 1);
    path.push_str(dir);
    path.push_str(&text);
    let mut raw = (raw_dir.is_some() || !exact).then(|| {
        let mut raw = raw_dir.unwrap_or(dir.as_bytes()).to_vec();
        raw.extend_from_slice(name);
        raw
    });
    if is_dir {
        path.push('/');
        if let Some(r) = raw.as_mut() {
            r.push(b'/');
        }
    }
    (path, raw)
}

/// The mode git writes for a raw tree-entry mode (`0o100664` is a plain
/// file, `0o100644`).
pub fn normalized_mode(mode: i32) -> i32 {
    i32::from(file_mode(mode))
}

/// The libgit2 mode of a raw tree-entry mode.
pub fn file_mode(mode: i32) -> git2::FileMode {
    match mode as u32 {
        mode::EXECUTABLE => git2::FileMode::BlobExecutable,
        mode::SYMLINK => git2::FileMode::Link,
        mode::GITLINK => git2::FileMode::Commit,
        mode::TREE => git2::FileMode::Tree,
        _ => git2::FileMode::Blob,
    }
}
