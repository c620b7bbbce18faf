//! Thin adapter over libgit2 (opening repositories, identities, trees,
//! diffs, compare-and-swap ref updates) and, in `cli`, the git command line.
//! Knows nothing of proposals.

pub mod checkout;
pub mod cli;
pub mod commit;
pub mod config;
pub mod confine;
mod diff;
pub mod durable;
pub mod filters;
mod identity;
mod index_cache;
pub mod index_file;
mod index_format;
pub mod index_write;
pub mod mode;
mod objects;
mod refs;
mod repo;
mod status;
mod tree;
mod tree_compare;

pub use diff::{ChangedPath, conflict_paths, line_stats, patch_text};
pub use identity::{author, committer};
pub use objects::write_blobs;
pub use refs::{compare_and_swap, compare_and_swap_force, delete_ref, ref_exists, ref_lock_path};
pub use repo::{Head, head, open, open_any};
pub use status::{dirty_paths, ensure_no_operation_in_progress};
pub use tree::{BlobEntry, file_mode, list_blobs};
pub use tree_compare::changed_paths;
