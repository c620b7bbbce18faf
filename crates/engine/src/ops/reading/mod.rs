//! What reads proposals and the work tree: `inspect` (list, show, the
//! audit log; their use cases in `listing`), `cat` (a file of a proposal), `glob` (files of the work
//! tree), `proposal_verdicts` (the trusted verdicts `list` and `show`
//! report), `review` (what the review page draws, and the one writer it
//! has: a comment on a proposal) and `review_page` (the page's use cases,
//! over `inspect` and `review`). The op log is `operations`'.

pub mod cat;
pub mod glob;
pub mod inspect;
mod listing;
pub mod proposal_verdicts;
pub mod review;
pub mod review_page;
