//! git's own commits and pushes, not proposals: `lint` (and the commit-msg
//! hook), `check` (the state before a push), `pre_push` (the pre-push
//! hook's checks) and `hooks` (installing those hooks). None opens the
//! proposal store; each runs through git itself (`Open::NoRepository`).

pub mod check;
pub mod hooks;
pub mod lint;
pub mod pre_push;
