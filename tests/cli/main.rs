//! Integration tests: the real `git-evolv` binary against real repositories,
//! checked afterwards with git itself.

mod apply;
mod common;
mod inspect;
mod lint;
mod propose;
mod rollback;
mod validation;
