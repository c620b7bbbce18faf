//! Creating the commits git-evolv puts on a branch (a landing, a rollback,
//! the undo of a failed landing) as `git commit` would: signed when
//! `commit.gpgSign` asks for it, with the format and key git is configured
//! with (`gpg.format` openpgp, ssh or x509, `user.signingKey`). Signing is
//! done by git itself (`git commit-tree`), so it is never silently skipped
//! nor done differently; when it fails nothing is created and the error
//! says why (#16 item 17). And the demo's first commit of a whole work
//! tree, as `git add -A && git commit` makes it.

use crate::Context;
use crate::on_object;
use std::io::Write;
use std::process::{Command, Stdio};

use crate::Oid;
use crate::objects::view::Signature;

use crate::error::{Error, Result};

/// Writes a commit of `tree` with `parents` (no ref is moved) and returns
/// its id.
pub fn create(
    repo: &crate::Repo,
    author: &Signature,
    committer: &Signature,
    message: &str,
    tree: Oid,
    parents: &[Oid],
) -> Result<Oid> {
    let commit = NewCommit {
        author,
        committer,
        message,
        tree,
        parents,
    };
    if !wants_signature(repo)? {
        return unsigned(repo, &commit);
    }
    signed(repo, &commit)
}

/// What a new commit is made of.
pub(crate) struct NewCommit<'a> {
    pub author: &'a Signature,
    pub committer: &'a Signature,
    pub message: &'a str,
    pub tree: Oid,
    pub parents: &'a [Oid],
}

/// Writes a commit object through libgit2, never signed (the bookkeeping
/// commits of [`crate::Repo::write_record`], and landings git does not
/// sign).
pub(crate) fn unsigned(repo: &crate::Repo, commit: &NewCommit<'_>) -> Result<Oid> {
    let tree = commit.tree;
    let raw = repo.raw();
    let tree_obj = raw
        .find_tree(tree.raw())
        .context(|| on_object("read tree", tree))?;
    let parent_objs = commit
        .parents
        .iter()
        .map(|p| {
            raw.find_commit(p.raw())
                .context(|| on_object("read commit", *p))
        })
        .collect::<Result<Vec<_>>>()?;
    let parent_refs: Vec<&git2::Commit<'_>> = parent_objs.iter().collect();
    raw.commit(
        None,
        &commit.author.raw()?,
        &commit.committer.raw()?,
        commit.message,
        &tree_obj,
        &parent_refs,
    )
    .map(Oid::from)
    .context(|| on_object("write a commit of tree", tree))
}

/// `commit.gpgSign` as git reads it, through the config adapter (files,
/// includes and `git -c`, which libgit2 does not see), read once per
/// commit without running git. A value git would refuse is refused.
fn wants_signature(repo: &crate::Repo) -> Result<bool> {
    let config = repo.config()?;
    Ok(config.bool("commit.gpgsign")?.unwrap_or(false))
}

fn time_of(sig: &Signature) -> String {
    let offset = sig.offset_minutes;
    let sign = if offset < 0 { '-' } else { '+' };
    let offset = offset.unsigned_abs();
    format!("@{} {sign}{:02}{:02}", sig.time, offset / 60, offset % 60)
}

fn signed(repo: &crate::Repo, commit: &NewCommit<'_>) -> Result<Oid> {
    let (author, committer) = (commit.author, commit.committer);
    let dir = repo.raw().workdir().unwrap_or_else(|| repo.raw().path());
    let mut cmd = Command::new("git");
    cmd.current_dir(dir)
        .args(["commit-tree", "-S"])
        .arg(commit.tree.to_string());
    for parent in commit.parents {
        cmd.arg("-p").arg(parent.to_string());
    }
    cmd.env("GIT_AUTHOR_NAME", &author.name)
        .env("GIT_AUTHOR_EMAIL", &author.email)
        .env("GIT_AUTHOR_DATE", time_of(author))
        .env("GIT_COMMITTER_NAME", &committer.name)
        .env("GIT_COMMITTER_EMAIL", &committer.email)
        .env("GIT_COMMITTER_DATE", time_of(committer))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .map_err(|e| Error::io("run `git commit-tree -S` (is git on PATH?) in", dir, e))?;
    if let Some(mut stdin) = child.stdin.take() {
        // `commit-tree` keeps the message as given (no cleanup), like libgit2.
        let _ = stdin.write_all(commit.message.as_bytes());
    }
    let out = child
        .wait_with_output()
        .map_err(|e| Error::io("wait for `git commit-tree -S` in", dir, e))?;
    crate::process::cli::printed_id(&out).ok_or_else(|| Error::SigningFailed {
        detail: String::from_utf8_lossy(&out.stderr).trim().to_string(),
    })
}

impl crate::Repo {
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
