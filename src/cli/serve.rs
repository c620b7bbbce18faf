//! `git evolv serve`: starts the review page for this repository and
//! prints its URL (with the one-time token) until Ctrl-C.

use std::path::Path;

use clap::Args;

use super::Output;
use crate::error::{Error, Result};
use crate::web::{self, ServeOptions};

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Port on 127.0.0.1 (default: a free one).
    #[arg(long, value_name = "N")]
    pub port: Option<u16>,
    /// Open the page in the default browser.
    #[arg(long, overrides_with = "no_open")]
    pub open: bool,
    /// Do not open a browser (the default).
    #[arg(long, overrides_with = "open")]
    pub no_open: bool,
}

/// Serves until Ctrl-C (SIGINT) or SIGTERM, then stops cleanly: open event
/// streams are closed, requests in flight finish.
pub fn run(dir: &Path, args: &ServeArgs, out: &Output) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Error::io("start", "the server runtime", e))?;
    runtime.block_on(async {
        let bound = web::bind(dir, &ServeOptions { port: args.port }).await?;
        let url = bound.url();
        if out.json {
            out.json_value(&serde_json::json!({"url": url, "port": bound.port()}));
        } else {
            out.line(&url);
            out.status(&format!(
                "git-evolv: serving the review page on 127.0.0.1:{}; press Ctrl-C to stop.",
                bound.port()
            ));
        }
        if args.open && !args.no_open {
            open_browser(&url, out);
        }
        bound.run(shutdown_signal()).await
    })?;
    out.status("git-evolv: server stopped.");
    Ok(())
}

pub(super) async fn shutdown_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = match signal(SignalKind::terminate()) {
        Ok(s) => s,
        Err(_) => {
            let _ = tokio::signal::ctrl_c().await;
            return;
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
}

/// `xdg-open` (or `open` on macOS); failing to start one is only a note.
fn open_browser(url: &str, out: &Output) {
    let opener = if cfg!(target_os = "macos") {
        "open"
    } else {
        "xdg-open"
    };
    let started = std::process::Command::new(opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    if started.is_err() {
        out.status(&format!(
            "git-evolv: could not start `{opener}`; open the URL above yourself."
        ));
    }
}
