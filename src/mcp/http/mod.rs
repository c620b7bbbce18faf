//! `git evolv mcp --http ADDR`: the same server over the spec's Streamable
//! HTTP transport at `/mcp`, for hosts that cannot spawn a process. rmcp's
//! `StreamableHttpService` speaks the transport: `Mcp-Session-Id` sessions
//! for clients of 2025-11-25 and before, stateless requests for 2026-07-28.
//! In front of it, every request passes the review page's rules (its own
//! functions, `web::security`), in this order:
//! 1. the Host header names a loopback address on our port (DNS rebinding) → else 403;
//! 2. `Authorization: Bearer <token>` carries the token of `token.rs` → else 401;
//! 3. an `Origin`, when a browser sends one, is `http://<that Host>` → else 403.
//!
//! It binds loopback addresses only: anything else is refused at start.

mod token;

use std::future::Future;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};

use super::EvolvServer;
use crate::error::{Error, Result};
use crate::ops::Session;
use crate::ops::serve::ServeRequest;
use crate::web::security::{loopback_host, same};

/// The path the endpoint serves.
pub const PATH: &str = "/mcp";

/// A server bound to its address, not yet serving.
pub struct Bound {
    listener: tokio::net::TcpListener,
    workdir: PathBuf,
    addr: SocketAddr,
    token: String,
    /// The token when this start made it: shown once, then only its file.
    pub new_token: Option<String>,
    pub token_file: PathBuf,
}

struct Guard {
    port: u16,
    token: String,
}

/// Binds `addr` (a loopback address) for the repository at `dir` and
/// reads or makes the bearer token.
pub async fn bind(dir: &Path, addr: SocketAddr) -> Result<Bound> {
    if !addr.ip().is_loopback() {
        return Err(Error::invalid(
            format!("--http {addr}: the MCP endpoint listens on a loopback address only"),
            "use 127.0.0.1:PORT or [::1]:PORT; to reach it from elsewhere, put an authenticating TLS proxy in front",
        ));
    }
    // Fail fast outside a repository or in a bare one; no recovery here
    // (each call's session does it, as the CLI's).
    let session = Session::open_for::<ServeRequest>(dir, crate::context::Context::new("mcp"))?;
    let workdir = session.work_tree()?.to_path_buf();
    let git_dir = session.git_dir()?.to_path_buf();
    drop(session);
    let (token, created) = token::load_or_create(&git_dir)?;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| bind_error(addr, e))?;
    let addr = listener
        .local_addr()
        .map_err(|e| Error::io("read the address of", addr.to_string(), e))?;
    Ok(Bound {
        listener,
        workdir,
        addr,
        new_token: created.then(|| token.clone()),
        token,
        token_file: token::path(&git_dir),
    })
}

impl Bound {
    /// The endpoint's URL.
    pub fn url(&self) -> String {
        format!("http://{}{PATH}", self.addr)
    }

    /// Serves until `shutdown` completes; open sessions and streams end then.
    pub async fn run(self, shutdown: impl Future<Output = ()> + Send + 'static) -> Result<()> {
        let Bound {
            listener,
            workdir,
            addr,
            token,
            ..
        } = self;
        let workdir = Arc::new(workdir);
        // Our guard checks Host with the port; rmcp's list is the same
        // loopback names, a second check of the same rule.
        let config = StreamableHttpServerConfig::default().with_allowed_hosts([
            "127.0.0.1",
            "localhost",
            "::1",
            "[::1]",
        ]);
        // Cancelling it ends every session and open stream.
        let stop = config.cancellation_token.clone();
        let mcp = StreamableHttpService::new(
            move || Ok(EvolvServer::new(workdir.as_ref().clone())),
            Arc::new(LocalSessionManager::default()),
            config,
        );
        let guard = Arc::new(Guard {
            port: addr.port(),
            token,
        });
        let app = Router::new()
            .route_service(PATH, mcp)
            .fallback(not_found)
            .layer(axum::middleware::from_fn_with_state(guard, check));
        let graceful = async move {
            shutdown.await;
            stop.cancel();
        };
        axum::serve(listener, app)
            .with_graceful_shutdown(graceful)
            .await
            .map_err(|e| Error::io("serve on", addr.to_string(), e))
    }
}

async fn not_found() -> Response {
    refuse(StatusCode::NOT_FOUND, "404: the MCP endpoint is /mcp.\n")
}

async fn check(State(guard): State<Arc<Guard>>, req: Request, next: Next) -> Response {
    let Some(host) = loopback_host(req.headers(), guard.port) else {
        return refuse(
            StatusCode::FORBIDDEN,
            "403: the Host header must name 127.0.0.1, localhost or [::1] on this server's port.\n",
        );
    };
    if !has_token(req.headers(), &guard.token) {
        let mut response = refuse(
            StatusCode::UNAUTHORIZED,
            "401: send `Authorization: Bearer <token>`; the token is in <git-dir>/evolv/mcp-http-token.\n",
        );
        response.headers_mut().insert(
            header::WWW_AUTHENTICATE,
            HeaderValue::from_static("Bearer realm=\"git-evolv\""),
        );
        return response;
    }
    if let Some(origin) = req.headers().get(header::ORIGIN)
        && origin.to_str().ok() != Some(format!("http://{host}").as_str())
    {
        return refuse(
            StatusCode::FORBIDDEN,
            "403: cross-origin request refused (an Origin must be this server's own).\n",
        );
    }
    next.run(req).await
}

fn has_token(headers: &HeaderMap, token: &str) -> bool {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            let (scheme, value) = v.split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| value.trim())
        })
        .is_some_and(|given| same(given, token))
}

fn refuse(status: StatusCode, text: &str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        text.to_string(),
    )
        .into_response()
}

fn bind_error(addr: SocketAddr, e: std::io::Error) -> Error {
    if e.kind() == std::io::ErrorKind::AddrInUse {
        return Error::invalid(
            format!("{addr} is in use"),
            "pass another port to --http, or port 0 for a free one",
        );
    }
    Error::io("listen on", addr.to_string(), e)
}
