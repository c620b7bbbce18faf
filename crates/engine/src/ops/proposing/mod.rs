//! Everything that makes a proposal: `propose` (a regex over HEAD's
//! files), `edit` (an edit list: exact, regex, ranges, whole files,
//! notebook cells, renames), `propose_patch` (a unified diff, a mailbox
//! series, an apply_patch envelope) and `capture` (what the work tree
//! holds). Each stores its result through `store::new_proposal` (edit
//! lists, patches and captures by way of `edit::store_changes`); nothing
//! here lands or reads back what others made.

pub mod capture;
pub mod edit;
mod edit_base;
mod edit_filtered;
mod edit_hunks;
mod edit_outcome;
mod edit_tree;
mod patch_sequence;
pub mod propose;
pub mod propose_patch;
