//! Proposals that travel to a server (issue 28): `receive`, the server's
//! side (its hooks and landing queue), and `remote`, a clone's (push,
//! fetch, status); and `recover` on demand, for a clone or a server.

pub mod receive;
mod recover;
pub mod remote;
