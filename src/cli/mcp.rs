//! `git evolv mcp`: serve the repository to an AI assistant over stdio.

use std::path::{Path, PathBuf};

use clap::Args;

use crate::error::Result;

#[derive(Debug, Args)]
pub struct McpArgs {
    /// The repository to serve (default: the current directory, or -C).
    #[arg(long, value_name = "DIR")]
    pub repo: Option<PathBuf>,
}

/// Serves until the client closes the connection.
pub fn run(dir: &Path, args: &McpArgs) -> Result<()> {
    let dir = match &args.repo {
        Some(repo) => dir.join(repo),
        None => dir.to_path_buf(),
    };
    crate::mcp::serve(&dir)
}
