//! Calls below std: the system calls std does not wrap (`calls`), zlib's
//! C interface (`zlib`), writing a file's data back (`writeback`), the
//! files git-evolv `flock`s (`lock_file`) and the crash tests' kill
//! points (`crash`). `calls` and `zlib` are the only modules of this
//! crate allowed `unsafe` (`tests/cli/unsafe_fence.rs`).

pub(crate) mod calls;
pub mod crash;
pub mod lock_file;
pub(crate) mod writeback;
pub mod zlib;
