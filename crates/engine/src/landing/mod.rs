//! The crash-safe landing, apart from the use cases that call it: the
//! protocol (locks, compare-and-swap of the branch, the working-tree and
//! index update, roll forward and back, the retry policy) in `land` and the
//! modules it names (`turn`, `checks`, `protocol`, `place`, `finish`), the
//! journal that lets the next command finish or undo a killed landing in
//! `journal`, the staging of a landing's files in `stage`, and which files
//! each flush must wait for in `flush`. `ops`
//! (apply, rollback, recover) calls it; it knows nothing of requests or
//! front ends; `replay` is the one replay of a change onto a branch, local
//! or bare. See RELIABILITY.md for the guarantees.

pub mod bare;
mod by_directory;
mod checks;
mod finish;
mod flush;
pub(crate) use flush::{PathChange, proposal_files};
pub mod journal;
pub mod land;
mod place;
mod protocol;
pub mod recover;
pub mod replay;
pub mod stage;
mod turn;
