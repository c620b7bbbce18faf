//! Objects and the object store: what the layers above read and write
//! through the handle (`access`), read views of commits and trees
//! (`view`), new commits (`commit`) and identities (`identity`), history
//! walks, new blobs and trees written loose or as one pack (`write`),
//! blobs read on many threads (`read`), libgit2's store as gitoxide's
//! finder (`odb_find`), partial clones (`promisor`), and the upkeep git
//! does after writing objects (`maintenance`, `pack_windows`).

pub(crate) mod access;
pub mod commit;
pub(crate) mod history;
pub(crate) mod identity;
pub mod maintenance;
pub(crate) mod odb_find;
pub(crate) mod pack_windows;
pub(crate) mod promisor;
pub mod read;
pub mod view;
pub(crate) mod write;
