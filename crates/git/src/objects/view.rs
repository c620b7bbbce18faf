//! Read views of commits and trees for the layers above: what they ask of
//! an object (its id, tree, parents, message, author; a tree's entries),
//! answered without handing out libgit2's types. A view borrows the
//! repository handle it was read from; every failure says which object it
//! was about.

use crate::on_object;
use std::path::Path;

use crate::Context;
use crate::Oid;
use evolv_core::error::Result;

/// What a tree entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Blob,
    Tree,
    /// A submodule's commit (a gitlink).
    Commit,
    Other,
}

impl Kind {
    pub(crate) fn of(kind: Option<git2::ObjectType>) -> Kind {
        match kind {
            Some(git2::ObjectType::Blob) => Kind::Blob,
            Some(git2::ObjectType::Tree) => Kind::Tree,
            Some(git2::ObjectType::Commit) => Kind::Commit,
            _ => Kind::Other,
        }
    }
}

/// One entry of a tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub id: Oid,
    pub kind: Kind,
    /// The mode as git writes it (`0o100644`, `0o40000`, …).
    pub mode: i32,
    /// The entry's own name (a name need not be UTF-8).
    pub name: Vec<u8>,
}

impl Entry {
    fn of(e: &git2::TreeEntry<'_>) -> Entry {
        Entry {
            id: e.id().into(),
            kind: Kind::of(e.kind()),
            mode: e.filemode(),
            name: e.name_bytes().to_vec(),
        }
    }
}

/// A person and a moment, as a commit records them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signature {
    pub name: String,
    pub email: String,
    /// Seconds since the epoch.
    pub time: i64,
    /// The time zone's offset from UTC, in minutes.
    pub offset_minutes: i32,
}

impl Signature {
    pub(crate) fn of(s: &git2::Signature<'_>) -> Signature {
        Signature {
            name: String::from_utf8_lossy(s.name_bytes()).into_owned(),
            email: String::from_utf8_lossy(s.email_bytes()).into_owned(),
            time: s.when().seconds(),
            offset_minutes: s.when().offset_minutes(),
        }
    }

    pub(crate) fn raw(&self) -> Result<git2::Signature<'static>> {
        let when = git2::Time::new(self.time, self.offset_minutes);
        git2::Signature::new(&self.name, &self.email, &when)
            .context(|| signature_doing(&self.name, &self.email))
    }
}

/// A commit, read.
pub struct Commit<'r>(git2::Commit<'r>);

impl<'r> Commit<'r> {
    pub(crate) fn new(c: git2::Commit<'r>) -> Self {
        Commit(c)
    }

    pub fn id(&self) -> Oid {
        self.0.id().into()
    }

    pub fn tree_id(&self) -> Oid {
        self.0.tree_id().into()
    }

    /// Its tree.
    pub fn tree(&self) -> Result<Tree<'r>> {
        self.0
            .tree()
            .map(Tree)
            .context(|| on_object("read the tree of commit", self.0.id()))
    }

    pub fn parent_count(&self) -> usize {
        self.0.parent_count()
    }

    /// The id of parent `i`.
    pub fn parent_id(&self, i: usize) -> Result<Oid> {
        self.0.parent_id(i).map(Oid::from).context(|| {
            on_object("read parent", self.0.id())
                .said(format!("read parent {i} of commit {}", self.0.id()))
        })
    }

    /// Every parent's id, first parent first.
    pub fn parent_ids(&self) -> Vec<Oid> {
        self.0.parent_ids().map(Oid::from).collect()
    }

    /// Parent `i`, read.
    pub fn parent(&self, i: usize) -> Result<Commit<'r>> {
        self.0.parent(i).map(Commit).context(|| {
            on_object("read parent", self.0.id())
                .said(format!("read parent {i} of commit {}", self.0.id()))
        })
    }

    /// The first line of the message (lossily UTF-8).
    pub fn summary(&self) -> String {
        self.0
            .summary_bytes()
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_default()
    }

    /// The whole message, as its bytes.
    pub fn message_bytes(&self) -> &[u8] {
        self.0.message_bytes()
    }

    pub fn author(&self) -> Signature {
        Signature::of(&self.0.author())
    }

    pub fn committer(&self) -> Signature {
        Signature::of(&self.0.committer())
    }
}

/// A tree, read.
pub struct Tree<'r>(git2::Tree<'r>);

impl<'r> Tree<'r> {
    pub(crate) fn new(t: git2::Tree<'r>) -> Self {
        Tree(t)
    }

    pub(crate) fn raw(&self) -> &git2::Tree<'r> {
        &self.0
    }

    pub fn id(&self) -> Oid {
        self.0.id().into()
    }

    /// The entry at `path` (`a/b/c`), if there is one.
    pub fn get_path(&self, path: &Path) -> Option<Entry> {
        self.0.get_path(path).ok().map(|e| Entry::of(&e))
    }

    /// The entries directly in this tree, in git's order.
    pub fn entries(&self) -> Vec<Entry> {
        self.0.iter().map(|e| Entry::of(&e)).collect()
    }

    /// Every blob below this tree whose name is UTF-8, with its path from
    /// here (`dir/file`), in git's order.
    pub fn blobs(&self) -> Result<Vec<(String, Entry)>> {
        let mut out = Vec::new();
        self.0
            .walk(git2::TreeWalkMode::PreOrder, |parent, entry| {
                if entry.kind() == Some(git2::ObjectType::Blob)
                    && let Some(name) = entry.name()
                {
                    out.push((format!("{parent}{name}"), Entry::of(entry)));
                }
                git2::TreeWalkResult::Ok
            })
            .context(|| on_object("walk tree", self.0.id()))?;
        Ok(out)
    }
}

/// What making the signature `name <email>` is, should libgit2 refuse it.
pub(crate) fn signature_doing(name: &str, email: &str) -> evolv_core::error::GitDoing {
    evolv_core::error::GitDoing::new("make a signature")
        .said(format!("make the signature {name} <{email}>"))
}
