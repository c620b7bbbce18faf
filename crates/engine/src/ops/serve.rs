//! A front end starting to serve a repository (the MCP server): it fails
//! fast outside one or in a bare one, and recovers nothing (each call's
//! own session does).

use std::path::PathBuf;

use crate::error::Result;
use crate::ops::session::Session;
use crate::ops::session::{Open, UseCase};

/// Serving the repository around a directory.
pub struct ServeRequest;

impl UseCase for ServeRequest {
    const OPEN: Open = Open::AsIs;
    /// The top of its work tree, where every call's session opens.
    type Outcome = PathBuf;

    fn run(&self, session: &Session) -> Result<PathBuf> {
        Ok(session.work_tree()?.to_path_buf())
    }
}
