//! The work tree and the index that records it: which paths git-evolv may
//! write, the bytes git would put there (filters), bringing paths from
//! one image to another (checkout), the index written as git writes it,
//! what a landing would overwrite (status), capturing the work tree's
//! changes and putting them back, and git's linked worktrees. Everything
//! that touches files a user sees is here; nothing here decides what a
//! proposal is.

pub mod capture;
pub mod checkout;
pub mod confine;
pub mod filters;
pub mod index_write;
pub(crate) mod linked;
pub mod restore;
pub mod snapshot;
pub(crate) mod status;
