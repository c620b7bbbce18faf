//! Integration tests: the real `git-evolv` binary against real repositories,
//! checked afterwards with git itself.

mod apply;
mod common;
mod concurrency;
mod config;
mod crash;
mod filters;
mod hooks;
mod hooks_coexist;
mod index_formats;
mod inspect;
mod lint;
mod plan;
mod propose;
mod rollback;
mod snapshots;
mod validation;
