//! git's own command line, for what libgit2 cannot do (`cli`: SHA-256
//! repositories, hooks, filters, signing) and for every transport, its
//! credentials and hooks (`transport`: push and fetch). Each run names
//! the command in its error.

pub mod cli;
pub mod transport;
