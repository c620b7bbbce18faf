//! The adapter's own vocabulary, below everything else: object ids
//! (`oid`), repository paths as git stores them (`path`), file modes
//! (`mode`), pathspecs (`pathspec`), and how libgit2's and gitoxide's
//! failures become the project's errors (`fail`, `gix_fail`). No I/O.

pub(crate) mod fail;
pub(crate) mod gix_fail;
pub mod mode;
pub(crate) mod oid;
pub mod path;
pub mod pathspec;
