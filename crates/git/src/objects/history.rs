//! Walking history: the commits reachable from some and not from others,
//! in the orders the layers above need.

use crate::error::{GitDoing, Result};
use crate::{Context, Oid, Repo};

/// The order of a walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Children before parents, newest first among the rest (`git log`).
    NewestFirst,
    /// Parents before children, oldest first (`git log --reverse --topo-order`).
    OldestFirst,
}

impl Repo {
    /// The commits reachable from `from` and not from any of `hide`.
    pub fn walk(&self, from: &[Oid], hide: &[Oid], order: Order) -> Result<Vec<Oid>> {
        let describe = || {
            let ids = |v: &[Oid]| v.iter().map(Oid::to_string).collect::<Vec<_>>().join(" ");
            GitDoing::new("walk history").said(format!(
                "walk history from {} without {}",
                ids(from),
                ids(hide)
            ))
        };
        let mut walk = self.raw().revwalk().context(describe)?;
        let sorting = match order {
            Order::NewestFirst => git2::Sort::TOPOLOGICAL | git2::Sort::TIME,
            Order::OldestFirst => git2::Sort::TOPOLOGICAL | git2::Sort::REVERSE,
        };
        walk.set_sorting(sorting).context(describe)?;
        for id in from {
            walk.push(id.raw()).context(describe)?;
        }
        for id in hide {
            walk.hide(id.raw()).context(describe)?;
        }
        walk.map(|id| id.map(Oid::from).context(describe)).collect()
    }
}
