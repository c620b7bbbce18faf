//! Everything that lands proposals on a branch, and takes a landing back:
//! `apply` (whole, partial, batch; its execution `plan` and its JSON
//! answer), `stack` (the pending proposals an apply of the top brings
//! along), `task` (an apply in a process of its own, polled by id),
//! `rollback` (a revert of what landed) and `recover` (finishing a landing
//! a killed process left). Named for the use cases, not `landing`:
//! the crate's `landing` module is the journal and compare-and-swap these
//! run on. Undo, which reverses any operation, is `operations`'.

pub mod apply;
pub mod apply_answer;
pub mod plan;
pub mod recover;
pub mod rollback;
pub mod stack;
pub mod task;
mod task_log;
pub mod task_use_cases;
