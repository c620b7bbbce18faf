//! `git evolv mcp`: the MCP server over stdio (rmcp). Tools are thin
//! adapters over `ops`, one file each under `tools/`, listed in its
//! registry; this module owns the transport, the tool registry, argument
//! parsing, asking for confirmation and result rendering, nothing else.
//! What a client may do and what needs confirming is `ops::permissions`.
//!
//! stdout carries only JSON-RPC frames: the server moves the protocol's
//! stdin and stdout to private descriptors at start and points fds 0 and 1
//! at /dev/null and stderr, so no child process (git, a validation
//! command) can read a frame or write into the stream.

mod args;
mod call;
mod cap;
mod completion;
mod confirm;
pub mod http;
mod log_lines;
mod logging;
mod progress;
mod resources;
mod schema;
mod server;
mod subscribe;
mod tool;
mod tools;

use std::fs::File;
use std::path::Path;

use rmcp::ServiceExt;

pub use server::EvolvServer;

use crate::error::{Error, Result};
use crate::ops::Session;
use crate::ops::serve::ServeRequest;

/// Serves the repository at `dir` until the client closes stdin.
pub fn serve(dir: &Path) -> Result<()> {
    // Fail fast, on stderr, outside a repository or in a bare one; no
    // recovery here (each call's session does it, as the CLI's).
    let workdir = Session::open_for::<ServeRequest>(dir, crate::context::Context::new("mcp"))?
        .run(&ServeRequest)?;
    let (input, output) = take_stdio().map_err(|e| Error::io("set up", "stdio", e))?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Error::io("start", "the async runtime", e))?;
    runtime.block_on(async move {
        let transport = (
            tokio::fs::File::from_std(input),
            tokio::fs::File::from_std(output),
        );
        let service = EvolvServer::new(workdir)
            .serve(transport)
            .await
            .map_err(|e| Error::Internal {
                at: "the MCP session",
                message: format!("MCP session could not start: {e}"),
            })?;
        service.waiting().await.map_err(|e| Error::Internal {
            at: "the MCP session",
            message: format!("MCP session ended abnormally: {e}"),
        })?;
        Ok::<(), Error>(())
    })?;
    // A pending read on stdin must not keep the process alive.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    Ok(())
}

/// Duplicates stdin and stdout to close-on-exec descriptors for the
/// protocol, then points fd 0 at /dev/null and fd 1 at stderr.
fn take_stdio() -> std::io::Result<(File, File)> {
    use crate::sys::{StdStream, point_std_stream};
    use std::os::fd::AsFd;
    // fcntl(F_DUPFD_CLOEXEC, 3), as std duplicates a descriptor.
    let input = std::io::stdin().as_fd().try_clone_to_owned()?;
    let output = std::io::stdout().as_fd().try_clone_to_owned()?;
    let null = File::open("/dev/null")?;
    point_std_stream(StdStream::Input, &null)?;
    drop(null);
    point_std_stream(StdStream::Output, std::io::stderr())?;
    Ok((File::from(input), File::from(output)))
}
