//! Stacked proposals (#13 `onto`): a proposal whose parent is another
//! pending proposal. Applying the top applies the pending ones below it
//! first, as one batch; dropping one with others on top needs
//! `--all-above`.

use crate::error::{Error, Result};
use crate::git::{Oid, Repo};
use crate::store::proposals::{self, Proposal};
use crate::store::rows::Listed;

/// What walking a stack needs of a proposal: a [`Proposal`], or a row of
/// `list` (which reads no commit it has cached).
pub trait Stacked {
    fn id(&self) -> &str;
    /// The proposal commit.
    fn commit(&self) -> Oid;
    /// Its parent.
    fn base(&self) -> Oid;
    /// The proposal it was stacked on.
    fn onto(&self) -> Option<&str>;
}

impl Stacked for Proposal {
    fn id(&self) -> &str {
        &self.id
    }
    fn commit(&self) -> Oid {
        self.commit
    }
    fn base(&self) -> Oid {
        self.base
    }
    fn onto(&self) -> Option<&str> {
        self.meta.onto.as_deref()
    }
}

impl Stacked for Listed {
    fn id(&self) -> &str {
        &self.id
    }
    fn commit(&self) -> Oid {
        self.row.commit
    }
    fn base(&self) -> Oid {
        self.row.base
    }
    fn onto(&self) -> Option<&str> {
        self.row.onto.as_deref()
    }
}

impl<S: Stacked> Stacked for &S {
    fn id(&self) -> &str {
        (*self).id()
    }
    fn commit(&self) -> Oid {
        (*self).commit()
    }
    fn base(&self) -> Oid {
        (*self).base()
    }
    fn onto(&self) -> Option<&str> {
        (*self).onto()
    }
}

/// The pending proposals `p` stands on, bottom first, `p` excluded. The
/// chain stops at an applied or dropped proposal: its changes are on the
/// branch already (or were given up), and apply replays the rest three-way.
pub fn below(repo: &Repo, p: &Proposal) -> Result<Vec<Proposal>> {
    below_by(
        p,
        |id| proposals::applied_commit(repo, id).is_some(),
        |id| proposals::load(repo, id).ok(),
    )
}

/// [`below`], asking `applied` whether a proposal is applied and `load`
/// for a readable proposal by id.
pub fn below_by<T: Stacked>(
    p: &impl Stacked,
    applied: impl Fn(&str) -> bool,
    load: impl Fn(&str) -> Option<T>,
) -> Result<Vec<T>> {
    let mut chain: Vec<T> = Vec::new();
    let mut next = p.onto().map(str::to_string);
    while let Some(id) = next {
        if chain.len() > 10_000 || chain.iter().any(|q| q.id() == id) {
            return Err(Error::invalid(
                format!("the stack under '{}' loops at '{id}'", p.id()),
                "drop the proposals of the loop",
            ));
        }
        if applied(&id) {
            break;
        }
        let Some(q) = load(&id) else {
            break;
        };
        // Only a proposal that is still the parent counts.
        if q.commit() != p.base() && chain.last().is_none_or(|l| l.base() != q.commit()) {
            break;
        }
        next = q.onto().map(str::to_string);
        chain.push(q);
    }
    chain.reverse();
    Ok(chain)
}

/// The ids of the pending proposals stacked on `id`, directly or not.
pub fn above(all: &[Proposal], repo: &Repo, id: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut frontier = vec![id.to_string()];
    while let Some(cur) = frontier.pop() {
        for p in all {
            if p.meta.onto.as_deref() == Some(cur.as_str())
                && !out.contains(&p.id.to_string())
                && proposals::applied_commit(repo, &p.id).is_none()
            {
                out.push(p.id.to_string());
                frontier.push(p.id.to_string());
            }
        }
    }
    out
}

/// `ids` with the pending proposals below each put before it; the flag
/// says whether any were added (the apply then runs as one batch).
pub fn expand(repo: &Repo, ids: &[String]) -> Result<(Vec<String>, bool)> {
    let mut out: Vec<String> = Vec::new();
    let mut added = false;
    for id in ids {
        let p = proposals::load(repo, id)?;
        for q in below(repo, &p)? {
            let qid = q.id.to_string();
            if !out.contains(&qid) && !ids.contains(&qid) {
                out.push(qid);
                added = true;
            }
        }
        out.push(id.clone());
    }
    Ok((out, added))
}

/// The ids to drop for `ids`: refused when pending proposals stand on one
/// of them and are not named, unless `all_above` adds them.
pub fn drop_set(repo: &Repo, ids: &[String], all_above: bool) -> Result<Vec<String>> {
    let all = proposals::list(repo)?;
    let mut out = ids.to_vec();
    for id in ids {
        let missing: Vec<String> = above(&all, repo, id)
            .into_iter()
            .filter(|a| !ids.contains(a))
            .collect();
        if missing.is_empty() {
            continue;
        }
        if !all_above {
            return Err(Error::invalid_field(
                "all_above",
                format!(
                    "proposal '{id}' has {} proposal(s) stacked on it: {}",
                    missing.len(),
                    missing.join(", ")
                ),
                "drop them too with all_above, or drop only the top of the stack",
            ));
        }
        for m in missing {
            if !out.contains(&m) {
                out.push(m);
            }
        }
    }
    Ok(out)
}
