//! The op log (issue 26): every operation read back from its one record
//! (`op_log`: `op log`, `op show`), and `undo` (and redo), which reverses
//! one by what its record says it moved, whatever its kind: a landing, a
//! proposal, a comment, a drop.

pub mod op_log;
pub mod undo;
