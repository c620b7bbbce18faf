//! The proposals replayed onto the branch head (the same tree when the
//! head is their base, else a three-way merge), each a commit, checked
//! against the plan's limits.

use crate::git::Oid;
use crate::git::objects::view::{Commit, Tree};

use super::settings::RunSettings;
use crate::error::{Error, Result};
use crate::git::Repo;
use crate::git::{self, ChangedPath, Head, RepoPath};
use crate::landing::land;
use crate::landing::replay::{self, Change};
use crate::plan::ExecutionPlan;
use crate::store::proposals::Proposal;
use crate::store::trailers;

/// One step of a replay chain: a proposal and the commit it became.
pub(super) struct Step<'p> {
    pub(super) proposal: &'p Proposal,
    pub(super) commit: Oid,
    /// The commit's parent: the head, or the step before it in a batch.
    pub(super) parent: Oid,
    pub(super) changed: Vec<ChangedPath>,
    /// This commit's own lines added and removed (#16 item 11).
    pub(super) lines: (usize, usize),
}

impl Step<'_> {
    pub(super) fn paths(&self) -> Vec<RepoPath> {
        self.changed.iter().map(|c| c.path.clone()).collect()
    }
}

/// The proposals replayed in order onto one head: the commits to land.
pub(super) struct Built<'p, 'r> {
    pub(super) head: Head,
    pub(super) head_tree: Tree<'r>,
    pub(super) steps: Vec<Step<'p>>,
    pub(super) new: Oid,
    pub(super) new_tree: Tree<'r>,
    pub(super) changed: Vec<ChangedPath>,
}

/// The paths `built` changes hold no uncommitted work (see
/// `land::check_clean`).
pub(super) fn check_clean(repo: &Repo, built: &Built<'_, '_>) -> Result<()> {
    land::check_clean(
        repo,
        None,
        &built.head,
        &built.head_tree,
        &built.new_tree,
        &built.changed,
    )
}

/// Whether two trees hold the same entry at every path the proposals
/// change (the validated tree and a replay of the same proposals).
pub(super) fn same_in_touched_files(
    repo: &Repo,
    proposals: &[Proposal],
    a: &Tree<'_>,
    b: &Tree<'_>,
) -> bool {
    let (mut a, mut b) = (git::TreeLookup::new(repo, a), git::TreeLookup::new(repo, b));
    // Exact paths: a lossy name would be absent from both trees, and so
    // compare equal whatever they hold (#16 item 7).
    proposals
        .iter()
        .flat_map(|p| p.meta.affected_paths())
        .all(|path| a.get(&path) == b.get(&path))
}

/// Replays `proposals` onto the branch head as it is now and checks the
/// result against the plan's limits.
pub(super) fn build<'p, 'r>(
    repo: &'r Repo,
    proposals: &'p [Proposal],
    s: &RunSettings,
    committer: &crate::git::objects::view::Signature,
) -> Result<Built<'p, 'r>> {
    let head = git::head(repo)?;
    // Before anything loads the index (attribute lookups do), so one parse serves all.
    land::prepare_index(repo)?;
    let head_commit = repo.find_commit(head.commit)?;
    let head_tree = head_commit.tree()?;
    crate::crashpoint!("before-objects");
    let (steps, tip) = replay_all(repo, proposals, s, committer, head_commit)?;
    crate::crashpoint!("after-objects");
    let new = tip.id();
    let new_tree = tip.tree()?;
    // One step's changes are the whole landing's: no second tree walk.
    let (changed, (added, removed)) = match &steps[..] {
        [only] => (only.changed.clone(), only.lines),
        _ => {
            let changed = git::changed_paths(repo, &head_tree, &new_tree)?;
            let paths: Vec<RepoPath> = changed.iter().map(|c| c.path.clone()).collect();
            let lines = git::line_stats(repo, &head_tree, &new_tree, &paths)?;
            (changed, lines)
        }
    };
    s.validation.check_limits(changed.len(), added + removed)?;
    Ok(Built {
        head,
        head_tree,
        steps,
        new,
        new_tree,
        changed,
    })
}

/// Replays `proposals` one after another onto `tip`, each one's commit the
/// next one's parent; returns the steps and the last commit.
pub(super) fn replay_all<'p, 'r>(
    repo: &'r Repo,
    proposals: &'p [Proposal],
    s: &RunSettings,
    committer: &crate::git::objects::view::Signature,
    mut tip: Commit<'r>,
) -> Result<(Vec<Step<'p>>, Commit<'r>)> {
    let mut steps: Vec<Step<'_>> = Vec::new();
    for p in proposals {
        let tip_tree = tip.tree()?;
        let against = match steps.last() {
            None => "the current HEAD".to_string(),
            Some(prev) => format!(
                "the current HEAD plus patch '{}' before it in the batch",
                prev.proposal.id
            ),
        };
        let tree = replay(repo, p, &tip, &tip_tree, against)?;
        if tree.id() == tip_tree.id() {
            return Err(Error::NothingToApply {
                patch_id: p.id.to_string(),
            });
        }
        let changed = git::changed_paths(repo, &tip_tree, &tree)?;
        // A partial clone fetches what the diff and the landing read.
        repo.fetch_changed(&tip_tree, &tree, &changed)?;
        let paths: Vec<RepoPath> = changed.iter().map(|c| c.path.clone()).collect();
        let proposed = repo.find_commit(p.commit)?;
        // The replay is the proposal itself (the usual case: the branch has
        // not moved since propose): its line counts are the ones propose
        // took from the very same two trees, no second diff.
        let exact = proposed.tree_id() == tree.id()
            && proposed.parent_count() == 1
            && proposed.parent(0)?.tree_id() == tip_tree.id();
        let lines = if exact {
            (p.meta.lines_added, p.meta.lines_removed)
        } else {
            git::line_stats(repo, &tip_tree, &tree, &paths)?
        };
        let author = proposed.author();
        let message = message(p, s.plan.as_ref());
        let oid = git::objects::commit::create(
            repo,
            &author,
            committer,
            &message,
            tree.id(),
            &[tip.id()],
        )?;
        let parent = tip.id();
        tip = repo.find_commit(oid)?;
        steps.push(Step {
            proposal: p,
            commit: oid,
            parent,
            changed,
            lines,
        });
    }
    Ok((steps, tip))
}

/// A landed commit's message: the proposal's summary and trailers naming
/// the proposal and the plan (which `rollback` reads back).
pub(super) fn message(p: &Proposal, plan: Option<&ExecutionPlan>) -> String {
    let plan = plan.map(|plan| serde_json::to_string(plan).expect("plans serialise"));
    trailers::landed_message(
        &p.summary,
        &p.id,
        plan.as_deref(),
        p.meta.assisted_by.as_deref(),
    )
}

/// The tree a proposal gets on `tip`: P's tree when `tip` is P's base, else
/// a three-way merge of base → tip and base → P (`landing::replay`, the
/// replay a server's landing uses too).
pub(super) fn replay<'r>(
    repo: &'r Repo,
    proposal: &Proposal,
    tip: &Commit<'_>,
    tip_tree: &Tree<'_>,
    against: String,
) -> Result<Tree<'r>> {
    let change = Change {
        id: &proposal.id,
        commit: proposal.commit,
        base: proposal.base,
    };
    let tree = replay::tree_onto(repo, change, (tip.id(), tip_tree.id()), || against)?;
    repo.find_tree(tree)
}
