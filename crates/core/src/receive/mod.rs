//! What a server reads and writes when git's `receive-pack` hands it a
//! push: pkt-lines (`pkt_line`) and the proc-receive protocol on top of them
//! (`proc_receive`). Everything here arrives from the network: every length
//! and count is bounded, and a malformed input is an error, never a panic.

pub mod pkt_line;
pub mod proc_receive;
pub mod ref_name;
