//! test --bisect: the first failing member of a rev range `A..B`, its
//! members oldest first, `A` taken as good (as `git bisect start B A`);
//! or of a stack of proposals named by its top proposal's id, its members
//! the pending proposals under it bottom first, then itself, the commit
//! the bottom one stands on taken as good.
//! The last member is run first: when it passes there is nothing to find
//! (one run). Otherwise a binary search between the last known good and
//! the first known bad, at most ⌈log2 N⌉ more runs when nothing is
//! skipped. A skipped member (125) is stepped over as `git bisect` does:
//! the next untested member towards the middle is tried instead; when
//! every member left between good and bad is skipped, the answer is the
//! set of candidates, as `git bisect` prints "could be any of". Stored
//! verdicts count as runs already made (they run nothing).

use serde::Serialize;

use super::run::{Target, TargetVerdict, verdict_for};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::git::{Order, Repo};
use crate::ops::validation::Validation;
use crate::store::pending::Deferred;
use crate::store::proposals;
use crate::store::verdicts::Status;

/// What a bisection found.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct BisectOutcome {
    /// How many members the range has.
    pub members: usize,
    /// The first failing member; none when the last one passes or when
    /// skips leave several candidates.
    pub first_failing: Option<TargetVerdict>,
    /// Commit ids that could be the first failing one when skipped
    /// members hide it (empty otherwise).
    pub candidates: Vec<String>,
    /// Every verdict taken, in the order taken.
    pub verdicts: Vec<TargetVerdict>,
}

/// Bisects `range` with `v`'s commands (each its own command, in order).
pub(super) fn bisect(
    repo: &Repo,
    range: &str,
    (v, ctx): (&Validation, &Context),
    warnings: &mut Vec<Deferred>,
) -> Result<BisectOutcome> {
    let members = members(repo, range)?;
    let mut out = BisectOutcome {
        members: members.len(),
        first_failing: None,
        candidates: Vec::new(),
        verdicts: Vec::new(),
    };
    let mut run = |i: usize, out: &mut BisectOutcome| -> Result<Status> {
        let taken = verdict_for(repo, &members[i], (v, ctx), warnings)?;
        let status = taken.status;
        out.verdicts.push(taken);
        if status == Status::Abort {
            let last = out.verdicts.last().expect("just pushed");
            return Err(Error::invalid(
                format!(
                    "the command aborted the bisection at {} (exit {})",
                    last.target,
                    last.exit_code.unwrap_or(-1)
                ),
                "exit 125 to skip a commit; 127 and 128 or more stop a bisection",
            ));
        }
        Ok(status)
    };
    let Some(last) = members.len().checked_sub(1) else {
        return Ok(out);
    };
    // `good` is the index of the last member known good (-1: A itself),
    // `bad` of the first known bad.
    let (mut good, mut bad) = (-1_isize, last as isize);
    match run(last, &mut out)? {
        Status::Pass => return Ok(out),
        // No known bad to search from: the skip is the answer.
        Status::Skip => return Ok(out),
        _ => {}
    }
    let mut skipped = std::collections::BTreeSet::new();
    while bad - good > 1 {
        let open: Vec<isize> = (good + 1..bad).filter(|i| !skipped.contains(i)).collect();
        let Some(&mid) = open.iter().min_by_key(|&&i| (i - (good + bad) / 2).abs()) else {
            out.candidates = (good + 1..=bad)
                .map(|i| members[i as usize].name.clone())
                .collect();
            return Ok(out);
        };
        match run(mid as usize, &mut out)? {
            Status::Pass => good = mid,
            Status::Skip => {
                skipped.insert(mid);
            }
            _ => bad = mid,
        }
    }
    let name = &members[bad as usize].name;
    out.first_failing = out.verdicts.iter().find(|v| &v.target == name).cloned();
    Ok(out)
}

/// The members of `spec`, oldest first: a stack of proposals when `spec`
/// is a proposal id (each member named by its id), else a range `A..B`.
fn members(repo: &Repo, spec: &str) -> Result<Vec<Target>> {
    if proposals::is_valid_id(spec)
        && let Ok(top) = proposals::load(repo, spec)
    {
        let mut stack = super::super::applying::stack::below(repo, &top)?;
        stack.push(top);
        return Ok(stack
            .into_iter()
            .map(|p| Target {
                name: p.id.to_string(),
                commit: p.commit,
            })
            .collect());
    }
    let r = repo.parse_range(spec).map_err(|why| {
        Error::invalid(
            format!("--bisect '{spec}' is not a range of commits nor a proposal id ({why:?})"),
            "give a range such as main..topic or HEAD~8..HEAD, or the id of the top proposal of a stack (`git evolv list`)",
        )
    })?;
    Ok(repo
        .walk(&[r.to], &[r.from], Order::OldestFirst)?
        .into_iter()
        .map(|commit| Target {
            name: commit.to_string(),
            commit,
        })
        .collect())
}
