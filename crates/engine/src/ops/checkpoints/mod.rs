//! Checkpoints (issue 40): the whole work tree recorded at each turn of an
//! agent and after each tool that can write, as commits on one ref per
//! session (`chain`); listed with what each changed (`list`); the work
//! tree rewound to one (`rewind`, files written by `files`), refusing to
//! overwrite what someone else changed; retention (`prune`).
//!
//! An agent's hook builds a `CheckpointRequest` and runs `record`; its
//! errors come back as values, which the hook reports through the agent's
//! protocol without failing the agent's turn.

pub mod chain;
mod files;
pub mod list;
pub mod meta;
pub mod propose;
pub mod prune;
pub mod record;
pub mod rewind;
pub mod undo;
