//! git-evolv's git adapter, and the only crate that knows libgit2 and
//! zlib: opening repositories, identities, objects, trees, the index,
//! config, attributes and filters, compare-and-swap ref updates, durable
//! flushes and, in `cli`, the git command line. Knows nothing of
//! proposals.

mod access;
mod attr_index;
mod attr_sources;
pub mod checkout;
pub mod cli;
pub mod commit;
pub mod config;
pub mod confine;
pub mod crash;
mod diff;
pub mod durable;
mod fail;
mod file_diff;
pub mod filters;
mod gitmodules_check;
mod gix_fail;
mod handle;
mod history;
mod identity;
mod index_cache;
pub mod index_file;
pub mod index_write;
mod learnt;
pub mod lock_file;
pub mod maintenance;
mod merge;
pub mod mode;
pub mod object_read;
mod objects;
mod odb_find;
mod oid;
mod pack_windows;
pub mod pack_write;
pub mod path;
pub mod pathspec;
mod promisor;
mod ref_scan;
mod refs;
mod repo;
mod revparse;
mod status;
mod sys;
pub mod transport;
mod tree;
mod tree_check;
mod tree_compare;
mod tree_edit;
mod tree_lookup;
mod tree_scan;
pub mod view;
pub mod worktree_capture;
pub mod worktree_restore;
mod worktrees;
mod writeback;
mod zlib;

// The pure layer, under the names this crate's modules use.
pub(crate) use evolv_core::error;

pub use access::Reopener;
pub(crate) use diff::conflict_paths;
pub use diff::{FilePatcher, file_hunks, line_stats, patch_text, write_patch};
pub(crate) use fail::library as library_error;
pub(crate) use fail::{Context, on_object, on_path, on_ref};
pub use file_diff::{FileDiff, FileStatus};
pub use handle::Repo;
pub use history::Order;
pub use identity::{author, committer, signature_now};
pub use merge::Merged;
pub use objects::{
    FileUpdate, NewObject, PACK_THRESHOLD, PackedObject, hash_blob_file, updated_trees,
    write_objects,
};
pub use oid::Oid;
pub use pack_windows::bound_mapped_packs;
pub use path::RepoPath;
pub use refs::{
    compare_and_swap, compare_and_swap_force, delete_ref, delete_ref_if, ref_exists, ref_lock_path,
    reflog_held,
};
pub use repo::{Head, head, in_memory_writes, init, open, open_any, workdir};
pub use revparse::{RangeProblem, RevRange, discover};
pub use status::{dirty_paths, ensure_no_operation_in_progress};
pub use tree::entry_path;
#[cfg(test)]
pub(crate) use tree::file_mode;
pub use tree::normalized_mode;
pub use tree::{BlobEntry, list_blobs};
pub use tree_compare::{Change, ChangedPath, changed_paths};
pub use tree_edit::TreeEdit;
pub use tree_lookup::{Found, TreeLookup};
pub use tree_scan::list_files;

/// Test helpers the layers above share (run git in a folder).
#[doc(hidden)]
pub mod test_git;
