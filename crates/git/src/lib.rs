//! git-evolv's git adapter, and the only crate that knows libgit2 and
//! zlib: opening repositories, identities, objects, trees, the index,
//! config, attributes and filters, compare-and-swap ref updates, durable
//! flushes and the git command line. Knows nothing of proposals.
//!
//! Its rooms, from the top layer down (a room imports only those below
//! it; `tests/cli/layers.rs` keeps it so): `worktree` (the work tree and
//! the index that records it), `diff` (patches and merges), `trees`,
//! `objects` (reading and writing them, commits, the object store),
//! `refs`, `repo` (the handle, what it learns once, durable flushes),
//! `process` (git's own command line), `config`, `formats` (the index
//! file and pack codecs, bytes in and out), `types` (ids, paths, modes,
//! errors) and `sys` (system calls and zlib, the only `unsafe`).

pub mod config;
pub mod diff;
pub mod formats;
pub mod objects;
pub mod process;
pub mod refs;
pub mod repo;
pub mod sys;
pub mod trees;
pub mod types;
pub mod worktree;

// The pure layer, under the names this crate's modules use.
pub(crate) use evolv_core::error;

// What the layers above use most, by name at the root: the handle, ids
// and paths, and the one-call operations on them.
pub use diff::files::{FileDiff, FileStatus};
pub use diff::merge::Merged;
pub use diff::patch::{FilePatcher, file_hunks, line_stats, patch_text, write_patch};
pub use formats::pack::PackedObject;
pub use objects::access::Reopener;
pub use objects::history::Order;
pub use objects::identity::{author, committer, signature_now};
pub use objects::pack_windows::bound_mapped_packs;
pub use objects::write::{
    FileUpdate, NewObject, PACK_THRESHOLD, hash_blob_file, updated_trees, write_objects,
};
pub use refs::revparse::{RangeProblem, RevRange, discover};
pub use refs::update::{
    compare_and_swap, compare_and_swap_force, delete_ref, delete_ref_if, ref_exists, ref_lock_path,
    reflog_held,
};
pub use repo::handle::Repo;
pub use repo::open::{Head, head, in_memory_writes, init, open, open_any, workdir};
pub use trees::compare::{Change, ChangedPath, changed_paths};
pub use trees::edit::TreeEdit;
pub use trees::lookup::{Found, TreeLookup};
pub use trees::read::{BlobEntry, entry_path, list_blobs, normalized_mode};
pub use trees::scan::list_files;
pub use types::oid::Oid;
pub use types::path::RepoPath;
pub use worktree::status::{dirty_paths, ensure_no_operation_in_progress};

// Crate-wide shorthands of the adapter's error helpers.
pub(crate) use diff::patch::conflict_paths;
#[cfg(test)]
pub(crate) use trees::read::file_mode;
pub(crate) use types::fail::library as library_error;
pub(crate) use types::fail::{Context, on_object, on_path, on_ref};

/// Test helpers the layers above share (run git in a folder).
#[doc(hidden)]
pub mod test_git;
