//! `git evolv mcp`: serve the repository to an AI assistant over stdio, or
//! with `--http ADDR` over the Streamable HTTP transport at `/mcp`.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use clap::Args;

use super::Output;
use crate::error::{Error, Result};

#[derive(Debug, Args)]
pub struct McpArgs {
    /// The repository to serve (default: the current directory, or -C).
    #[arg(long, value_name = "DIR")]
    pub repo: Option<PathBuf>,
    /// Serve over HTTP at http://ADDR/mcp instead of stdio (a loopback
    /// address such as 127.0.0.1:8765; port 0 picks a free one). A bearer
    /// token is required: made on first start, printed once, kept in
    /// <git-dir>/evolv/mcp-http-token (mode 0600).
    #[arg(long, value_name = "ADDR")]
    pub http: Option<SocketAddr>,
}

/// Serves until the client closes the connection (stdio) or until Ctrl-C
/// or SIGTERM (HTTP).
pub fn run(dir: &Path, args: &McpArgs, out: &Output) -> Result<()> {
    let dir = match &args.repo {
        Some(repo) => dir.join(repo),
        None => dir.to_path_buf(),
    };
    let Some(addr) = args.http else {
        return crate::mcp::serve(&dir);
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Error::io("start", "the server runtime", e))?;
    runtime.block_on(async {
        let bound = crate::mcp::http::bind(&dir, addr).await?;
        let url = bound.url();
        let file = bound.token_file.display().to_string();
        if out.json {
            out.json_value(&serde_json::json!({
                "url": url,
                "token_file": file,
                "token": bound.new_token,
            }));
        } else {
            out.line(&url);
            match &bound.new_token {
                Some(token) => out.line(&format!(
                    "Bearer token (shown this once; kept in {file}, mode 0600): {token}"
                )),
                None => out.line(&format!("Bearer token: in {file}")),
            }
            out.status("git-evolv: serving MCP over HTTP; press Ctrl-C to stop.");
        }
        bound.run(super::serve::shutdown_signal()).await
    })?;
    out.status("git-evolv: MCP server stopped.");
    Ok(())
}
