//! Integration tests: the real `git-evolv` binary against real repositories,
//! checked afterwards with git itself.

mod apply;
mod audit;
mod common;
mod concurrency;
mod config;
mod crash;
mod edits;
mod edits_props;
mod filters;
mod hardening_bytes;
mod hardening_cli;
mod hardening_land;
mod hardening_paths;
mod hook_commit_msg;
mod hooks;
mod hooks_coexist;
mod index_formats;
mod inspect;
mod invariants;
mod lint;
mod manual;
mod mcp;
mod mcp_client;
mod mcp_confirm;
mod mcp_tasks;
mod pager;
mod plan;
mod progress;
mod propose;
mod rollback;
mod scale;
mod snapshots;
mod typing;
mod validation;
mod web;
