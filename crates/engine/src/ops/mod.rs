//! One type per use case ([`UseCase`]): a request in (`Deserialize` +
//! `JsonSchema`, so the MCP server and the review page take them as JSON),
//! an outcome (plain data, `Serialize`) or an `Error` out, with the
//! session's [`Settings`] when it reads git config. Front ends open a
//! [`Session`] for the use case and call [`Session::run`]; they render the
//! outcomes (the `success` envelope is theirs) and add their own hints; no
//! rule or default lives anywhere else.

// The rooms, one concept each (issue 39 item 6).
pub mod agents;
pub mod applying;
pub mod checkpoints;
pub mod commits;
pub mod operations;
pub mod proposing;
pub mod reading;
pub mod server;

// What the rooms share or what fits none: the session and its settings,
// the one `validation` pipeline (apply, `test` and the server's landing),
// the rules for clients (`permissions`, over applying and undo), the
// verdicts of `test` (on commits as well as proposals), `drop` and `gc`
// (tidying), `demo`, and the success envelope.
pub mod demo;
pub mod drop;
pub mod permissions;
pub mod serve;
pub mod session;
pub mod settings;
pub mod succeeded;
pub mod test;
pub mod validation;

pub use session::Session;
pub use session::{Open, UseCase};
pub use settings::Settings;
