//! What reads proposals and the work tree: `inspect` (list, show, the
//! audit log), `cat` (a file of a proposal), `glob` (files of the work
//! tree) and `review` (the review page's views, and the one writer it
//! has: a comment on a proposal). The op log is `operations`'.

pub mod cat;
pub mod glob;
pub mod inspect;
pub mod review;
