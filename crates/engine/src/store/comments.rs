//! Review comments on proposals, stored in git under
//! `refs/evolv/comments/<patch-id>`: a chain of commits, one per comment,
//! each message the comment as JSON (the audit log's shape). Being refs
//! under `refs/evolv/`, they survive restarts and `gc`, and
//! `git push origin 'refs/evolv/*:refs/evolv/*'` shares them with the
//! proposals. This module stores and reads; `ops::reading::review` checks
//! requests.

use crate::git::objects::view::Signature;
use crate::git::{Oid, Repo};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::audit::AuditAction;
use super::transaction::Transaction;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::git;

/// Where each proposal's comment chain lives.
pub const COMMENTS_PREFIX: &str = "refs/evolv/comments/";

/// How many times an append retries when another process appended first.
const APPEND_ATTEMPTS: usize = 50;

/// Which side of a diff a locator points into.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// The base version (the `-` lines and their context).
    Old,
    /// The proposed version (the `+` lines and their context).
    New,
}

/// A passage of one side of one file: lines are 1-based; columns are
/// 1-based and count characters; `end_col` is the column just after the
/// last character selected (a whole line `abc` is `1..4`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Locator {
    pub path: String,
    pub side: Side,
    pub start_line: u32,
    pub start_col: u32,
    pub end_line: u32,
    pub end_col: u32,
}

/// A stored review comment.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, PartialEq, Eq)]
pub struct Comment {
    /// The id of the commit that stores it.
    #[serde(default)]
    pub id: String,
    pub patch_id: String,
    pub author: String,
    pub created_at: i64,
    pub body: String,
    pub locator: Locator,
    /// The text the locator selects, as the reviewer saw it.
    pub quote: String,
}

/// The ref holding the comments of `patch_id`.
pub fn comments_ref(patch_id: &str) -> String {
    format!("{COMMENTS_PREFIX}{patch_id}")
}

fn signature(repo: &Repo) -> Result<Signature> {
    // A reviewer without a configured identity can still comment.
    git::committer(repo).or_else(|_| git::signature_now("git-evolv", "git-evolv@localhost"))
}

/// Appends `comment` to its proposal's chain, one `comment` operation
/// (its transaction's compare-and-swap retried when another process
/// appended first); returns it with its id and author.
pub fn append(repo: &Repo, ctx: &Context, mut comment: Comment) -> Result<Comment> {
    let sig = signature(repo)?;
    comment.author = format!("{} <{}>", sig.name, sig.email);
    comment.id = String::new();
    let json = serde_json::to_string(&comment).expect("comment serialises");
    let refname = comments_ref(&comment.patch_id);
    let empty_tree = repo.empty_tree()?;
    for _ in 0..APPEND_ATTEMPTS {
        let tip = repo.ref_target(&refname);
        let parents: Vec<Oid> = tip.into_iter().collect();
        let oid = repo.write_record(&json, empty_tree, &parents, &sig)?;
        let mut tx = Transaction::new(repo, ctx, AuditAction::Comment, &comment.patch_id);
        tx.set_reflog("evolv: comment");
        tx.swap(&refname, tip, Some(oid));
        tx.record().commit = Some(oid.to_string());
        match tx.commit() {
            Ok(_) => {
                comment.id = oid.to_string();
                return Ok(comment);
            }
            Err(Error::ConcurrentUpdate { .. }) => continue,
            Err(e) => return Err(e),
        }
    }
    Err(Error::ConcurrentUpdate {
        what: refname,
        expected: "its tip".into(),
    })
}

/// The comments of `patch_id`, oldest first (none when it has no chain).
/// A commit whose message is not a comment (written by hand) is skipped.
pub fn list(repo: &Repo, patch_id: &str) -> Result<Vec<Comment>> {
    let mut out = Vec::new();
    let Some(mut oid) = repo.ref_target(&comments_ref(patch_id)) else {
        return Ok(out);
    };
    loop {
        let commit = repo.find_commit(oid)?;
        if let Ok(mut c) = serde_json::from_slice::<Comment>(commit.message_bytes()) {
            c.id = oid.to_string();
            out.push(c);
        }
        match commit.parent_id(0) {
            Ok(p) => oid = p,
            Err(_) => break,
        }
    }
    out.reverse();
    Ok(out)
}

/// The tip of `patch_id`'s chain, to tell whether comments changed.
pub fn tip(repo: &Repo, patch_id: &str) -> Option<Oid> {
    repo.ref_target(&comments_ref(patch_id))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::store::test_repo as repo;

    fn comment(body: &str) -> Comment {
        Comment {
            id: String::new(),
            patch_id: "patch_1_ab".into(),
            author: String::new(),
            created_at: 7,
            body: body.into(),
            locator: Locator {
                path: "a/b.rs".into(),
                side: Side::New,
                start_line: 3,
                start_col: 1,
                end_line: 4,
                end_col: 9,
            },
            quote: "<script>x</script>".into(),
        }
    }

    #[test]
    fn comments_come_back_in_order_with_ids_and_author() {
        let (_d, repo) = repo();
        assert!(list(&repo, "patch_1_ab").unwrap().is_empty());
        let ctx = Context::new("cli");
        let first = append(&repo, &ctx, comment("one")).unwrap();
        let second = append(&repo, &ctx, comment("two")).unwrap();
        let got = list(&repo, "patch_1_ab").unwrap();
        assert_eq!(got, vec![first.clone(), second]);
        assert_eq!(first.author, "R <r@x>");
        assert_eq!(got[0].locator.side, Side::New);
        assert_eq!(tip(&repo, "patch_1_ab").unwrap().to_string(), got[1].id);
    }

    #[test]
    fn the_locator_serialises_with_the_documented_keys() {
        let v = serde_json::to_value(comment("x").locator).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"path": "a/b.rs", "side": "new", "start_line": 3,
                "start_col": 1, "end_line": 4, "end_col": 9})
        );
    }
}
