//! The files a propose scans: every regular file of a tree, listed from
//! the raw tree objects (`mode name\0id` entries) rather than through
//! libgit2's parsed trees, whose per-entry objects and lookups cost more
//! than git's whole tree walk in `git grep`. Same entries, same order and same modes (normalised as
//! libgit2 normalises them) as `git::list_blobs`, which the test checks.

use crate::on_object;
use git2::ObjectType;

use crate::error::{Error, Result};
use crate::{BlobEntry, Context, Oid, Repo, types::mode};

/// Every regular file under the tree `tree`, in tree order, with paths
/// prefixed by `dir` (`""` or text ending in `/`), but those under a
/// directory `keep_dir` refuses (its path's bytes, no trailing `/`): the
/// scope cannot reach them, so their trees are never read, as git's own
/// walk skips what a pathspec cannot reach.
pub fn list_files(
    repo: &Repo,
    tree: Oid,
    dir: &str,
    keep_dir: &dyn Fn(&[u8]) -> bool,
) -> Result<Vec<BlobEntry>> {
    let odb = repo.raw().odb().context(|| "open the object database")?;
    let mut out = Vec::new();
    let walk = Walk {
        odb: &odb,
        keep_dir,
    };
    walk.tree(tree, dir, None, &mut out)?;
    Ok(out)
}

/// One walk's object database and directory test.
struct Walk<'a> {
    odb: &'a git2::Odb<'a>,
    keep_dir: &'a dyn Fn(&[u8]) -> bool,
}

/// libgit2's `normalize_filemode`.
fn normalize(mode: u32) -> u32 {
    match mode & 0o170000 {
        0o040000 => 0o040000,
        _ if mode & 0o100 != 0 => 0o100755,
        0o160000 => 0o160000,
        0o120000 => 0o120000,
        _ => 0o100644,
    }
}

fn corrupt(id: Oid) -> Error {
    Error::Corrupt {
        what: format!("tree {id}"),
        message: format!("tree {id} is corrupt (`git fsck` names what is wrong)"),
    }
}

impl Walk<'_> {
    fn tree(
        &self,
        tree: Oid,
        dir: &str,
        raw_dir: Option<&[u8]>,
        out: &mut Vec<BlobEntry>,
    ) -> Result<()> {
        let object = self
            .odb
            .read(tree.raw())
            .context(|| on_object("read tree", tree))?;
        if object.kind() != ObjectType::Tree {
            return Err(corrupt(tree));
        }
        let mut rest = object.data();
        while !rest.is_empty() {
            let space = rest
                .iter()
                .position(|&b| b == b' ')
                .ok_or_else(|| corrupt(tree))?;
            let mut attr = 0u32;
            for &d in &rest[..space] {
                if !(b'0'..=b'7').contains(&d) {
                    return Err(corrupt(tree));
                }
                attr = (attr << 3) | u32::from(d - b'0');
            }
            let after = &rest[space + 1..];
            let nul = after
                .iter()
                .position(|&b| b == 0)
                .ok_or_else(|| corrupt(tree))?;
            let name = &after[..nul];
            let id_bytes = after.get(nul + 1..nul + 21).ok_or_else(|| corrupt(tree))?;
            rest = &after[nul + 21..];
            let id = Oid::from_bytes(id_bytes)?;
            let mode = normalize(attr);
            let is_tree = mode == 0o040000;
            if !is_tree && !mode::is_file(mode) {
                continue;
            }
            let (path, raw) = crate::entry_path(dir, raw_dir, name, is_tree);
            if is_tree {
                let bytes = raw.as_deref().unwrap_or(path.as_bytes());
                if (self.keep_dir)(&bytes[..bytes.len() - 1]) {
                    self.tree(id, &path, raw.as_deref(), out)?;
                }
            } else {
                out.push(BlobEntry {
                    path,
                    raw: raw.map(Vec::into_boxed_slice),
                    oid: id,
                    mode: mode as i32,
                });
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same files, paths, ids and modes as `git::list_blobs`: nested
    /// directories, an executable, a symlink and a submodule (both left
    /// out), a name that is not UTF-8, a group-writable mode git once
    /// wrote (`100664`, read as `100644`).
    #[test]
    fn lists_what_git_list_blobs_lists() {
        let dir = tempfile::tempdir().unwrap();
        let handle = Repo::new_any(git2::Repository::init(dir.path()).unwrap());
        let repo = handle.raw();
        let blob = repo.blob(b"x\n").unwrap();
        let mut inner = repo.treebuilder(None).unwrap();
        inner.insert("run.sh", blob, 0o100755).unwrap();
        inner.insert(b"caf\xe9".as_slice(), blob, 0o100644).unwrap();
        inner.insert("link", blob, 0o120000).unwrap();
        let inner = inner.write().unwrap();
        let mut weird = repo.treebuilder(None).unwrap();
        weird.insert("f", blob, 0o100644).unwrap();
        let weird = weird.write().unwrap();
        let mut root = repo.treebuilder(None).unwrap();
        root.insert("a.txt", blob, 0o100644).unwrap();
        root.insert("a", inner, 0o040000).unwrap();
        root.insert(b"d\xffir".as_slice(), weird, 0o040000).unwrap();
        root.insert("sub", blob, 0o160000).unwrap();
        root.insert("z", blob, 0o100644).unwrap();
        let root = root.write().unwrap();
        // A tree as an old git wrote it: mode 100664.
        let raw = {
            let mut t = Vec::new();
            t.extend_from_slice(b"100664 g\0");
            t.extend_from_slice(blob.as_bytes());
            t
        };
        let old = repo.odb().unwrap().write(ObjectType::Tree, &raw).unwrap();
        let mut top = repo
            .treebuilder(Some(&repo.find_tree(root).unwrap()))
            .unwrap();
        top.insert("old", old, 0o040000).unwrap();
        let top = top.write().unwrap();

        let key = |e: &BlobEntry| (e.path.clone(), e.raw.clone(), e.oid, e.mode);
        let ours: Vec<_> = list_files(&handle, top.into(), "", &|_| true)
            .unwrap()
            .iter()
            .map(key)
            .collect();
        let tree = repo.find_tree(top).unwrap();
        let theirs: Vec<_> =
            crate::list_blobs(&handle, &crate::objects::view::Tree::new(tree.clone()))
                .unwrap()
                .iter()
                .map(key)
                .collect();
        assert_eq!(ours, theirs);
        assert_eq!(ours.len(), 6, "{ours:?}");
        let sub = tree.get_name("a").unwrap().id();
        let prefixed: Vec<_> = list_files(&handle, sub.into(), "a/", &|_| true)
            .unwrap()
            .iter()
            .map(key)
            .collect();
        assert_eq!(prefixed, theirs[1..3].to_vec());
    }
}
