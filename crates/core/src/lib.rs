//! git-evolv's pure layer: the edit engine, diffs, execution plans,
//! commit-message lint, push policy, and the one error enum every layer
//! returns. Bytes in, bytes out: this crate reads no file, runs no
//! process and knows nothing of git's object store (the adapter crate,
//! `evolv-git`, does).

pub mod agents;
pub mod c_quote;
pub mod clock;
pub mod comma_list;
pub mod diff;
pub mod edit;
pub mod edit_failure;
pub mod error;
pub mod fs_path;
pub mod git_names;
pub mod globs;
pub mod lint;
pub mod patch;
pub mod plan;
pub mod policy;
pub mod push_report;
pub mod receive;
pub mod validation_report;

pub use error::{Error, Result};
