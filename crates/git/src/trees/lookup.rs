//! Looking entries up by path in one tree, many times. libgit2's
//! `Tree::get_path` opens (inflates and parses) every tree from the root
//! down on each call; a landing asks for each of thousands of paths, in
//! both trees, mostly neighbours (a 2,627-file codemod of real code: 31,000
//! tree reads, a sixth of its check for uncommitted work). `TreeLookup`
//! keeps every subtree it opens.

use std::collections::HashMap;

use crate::Oid;
use git2::{Repository, Tree};

use crate::objects::view::Kind;

use crate::RepoPath;

/// An entry found by path: what the callers use of libgit2's `TreeEntry`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    pub id: Oid,
    /// git's file mode (`0o100644`, `0o040000`, …).
    pub mode: u32,
    pub kind: Kind,
}

/// Entries of `root` by path, each subtree opened once (see the module).
pub struct TreeLookup<'r> {
    repo: &'r Repository,
    root: Tree<'r>,
    /// Directory path → the tree there (`None`: no directory there).
    dirs: HashMap<Vec<u8>, Option<Tree<'r>>>,
}

impl<'r> TreeLookup<'r> {
    pub fn new(repo: &'r crate::Repo, root: &crate::objects::view::Tree<'r>) -> Self {
        TreeLookup::from_raw(repo.raw(), root.raw())
    }

    /// [`TreeLookup::new`] on libgit2's own handles, inside the adapter.
    pub(crate) fn from_raw(repo: &'r Repository, root: &Tree<'r>) -> Self {
        TreeLookup {
            repo,
            root: root.clone(),
            dirs: HashMap::new(),
        }
    }

    /// The entry at `path`, as `root.get_path(path)` finds it.
    pub fn get(&mut self, path: &RepoPath) -> Option<Found> {
        let bytes = path.as_bytes();
        let (dir, name) = match bytes.iter().rposition(|b| *b == b'/') {
            Some(slash) => (&bytes[..slash], &bytes[slash + 1..]),
            None => (&bytes[..0], bytes),
        };
        let tree = self.dir(dir)?;
        let entry = tree.get_name_bytes(name)?;
        Some(Found {
            id: crate::Oid::from(entry.id()),
            mode: entry.filemode() as u32,
            kind: Kind::of(entry.kind()),
        })
    }

    /// The tree at directory `dir` (the root when empty), opened through
    /// its parent, which is kept too.
    fn dir(&mut self, dir: &[u8]) -> Option<&Tree<'r>> {
        if dir.is_empty() {
            return Some(&self.root);
        }
        if !self.dirs.contains_key(dir) {
            let (parent, name) = match dir.iter().rposition(|b| *b == b'/') {
                Some(slash) => (&dir[..slash], &dir[slash + 1..]),
                None => (&dir[..0], dir),
            };
            let repo = self.repo;
            let sub = self.dir(parent).and_then(|tree| {
                let entry = tree.get_name_bytes(name)?;
                if entry.kind() != Some(git2::ObjectType::Tree) {
                    return None;
                }
                repo.find_tree(entry.id()).ok()
            });
            self.dirs.insert(dir.to_vec(), sub);
        }
        self.dirs.get(dir).and_then(Option::as_ref)
    }
}

#[cfg(test)]
mod tests {
    use super::{Found, TreeLookup};
    use crate::RepoPath;
    use crate::test_git::git;

    /// Every path, present or not, is found as `Tree::get_path` finds it:
    /// files, symlinks and directories at any depth, a name that is not
    /// UTF-8, a path through a file, a missing directory.
    #[test]
    fn every_lookup_agrees_with_libgit2s_get_path() {
        let dir = crate::test_git::new_repo();
        let d = dir.path();
        for f in [
            "top.txt",
            "a/x.txt",
            "a/b/c/deep.txt",
            "a/b/y.txt",
            "z/w.txt",
        ] {
            let p = d.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, f).unwrap();
        }
        let odd = <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(b"a/caf\xe9.txt");
        std::fs::write(d.join(odd), "latin-1").unwrap();
        std::os::unix::fs::symlink("x.txt", d.join("a/link")).unwrap();
        git(d, &["add", "-A"]);
        git(d, &["commit", "-q", "-m", "tree"]);
        let repo = git2::Repository::open(d).unwrap();
        let tree = repo.head().unwrap().peel_to_tree().unwrap();
        let mut lookup = TreeLookup::from_raw(&repo, &tree);
        let paths: Vec<RepoPath> = [
            &b"top.txt"[..],
            b"a",
            b"a/b",
            b"a/b/c/deep.txt",
            b"a/b/y.txt",
            b"a/x.txt",
            b"a/link",
            b"a/caf\xe9.txt",
            b"z/w.txt",
            b"a/x.txt/below",
            b"a/missing/f",
            b"missing.txt",
            b"a/b/c",
            b"z",
        ]
        .iter()
        .map(|p| RepoPath::from(*p))
        .collect();
        // Twice: the second round answers from the kept subtrees.
        for _ in 0..2 {
            for path in &paths {
                let want = tree.get_path(path.fs()).ok().map(|e| Found {
                    id: crate::Oid::from(e.id()),
                    mode: e.filemode() as u32,
                    kind: crate::objects::view::Kind::of(e.kind()),
                });
                assert_eq!(lookup.get(path), want, "{path}");
            }
        }
        assert!(lookup.get(&RepoPath::from("a/b/c/deep.txt")).is_some());
        assert!(lookup.get(&RepoPath::from("a/x.txt/below")).is_none());
    }
}
