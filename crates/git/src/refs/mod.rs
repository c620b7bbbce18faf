//! Refs: compare-and-swap updates with git's patience for a ref's lock
//! (`update`), the refs under a prefix read as git's files backend stores
//! them (`scan`), and revision ranges and repository discovery as git
//! reads them (`revparse`).

pub(crate) mod revparse;
pub(crate) mod scan;
pub(crate) mod update;
