//! Proposals that travel to a server (issue 28): `receive`, the server's
//! side (its hooks and landing queue), and `remote`, a clone's (push,
//! fetch, status).

pub mod receive;
pub mod remote;
