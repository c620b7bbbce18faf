//! `git evolv serve`: the review page. An axum server on 127.0.0.1 that
//! serves embedded assets, a JSON API over the same `ops` functions the CLI
//! calls, and a server-sent event feed driven by `refs/evolv/**`. It never
//! prints; the CLI prints the URL this returns. See `security` for the
//! rules every request passes.

mod actions;
mod api;
mod assets;
pub(crate) mod feed;
pub(crate) mod security;

use std::future::Future;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::routing::{get, post};

use crate::context::Context;
use crate::error::{Error, Result};

/// How `serve` listens.
#[derive(Debug, Clone, Default)]
pub struct ServeOptions {
    /// The port; `None` or 0 picks a free one.
    pub port: Option<u16>,
}

/// What every handler shares.
pub(crate) struct AppState {
    /// Where the repository was opened from (re-opened per request: a
    /// repository handle cannot be shared between threads).
    pub dir: PathBuf,
    pub port: u16,
    /// The one-time URL token, exchanged for the session cookie; `None`
    /// once it has been.
    pub token: std::sync::Mutex<Option<String>>,
    /// The URL, printed once (it holds the token).
    pub url_token: String,
    /// The cookie's value: persisted in the git dir, so a restarted server
    /// (same port) still recognises an open page, as Jupyter's cookie
    /// secret does. It never appears in a URL.
    pub cookie_secret: String,
    pub feed: feed::Feed,
    /// The hunks of the files last paged through (`api::file`).
    pub recent_files: crate::ops::reading::review::RecentFiles,
}

impl AppState {
    /// Whether `token` is the URL's token, still unused; it is used now.
    pub fn take_token(&self, token: &str) -> bool {
        let mut slot = self.token.lock().unwrap_or_else(|e| e.into_inner());
        match slot.as_deref() {
            Some(expected) if security::same(token, expected) => {
                *slot = None;
                true
            }
            _ => false,
        }
    }

    /// Opens a session for one request (it recovers an interrupted
    /// landing first and releases the index when dropped, as for the CLI).
    pub fn open<R: crate::ops::UseCase + ?Sized>(&self) -> Result<crate::ops::Session> {
        self.open_with::<R>(context())
    }

    /// [`AppState::open`], its use cases run with `context`.
    pub fn open_with<R: crate::ops::UseCase + ?Sized>(
        &self,
        context: Context,
    ) -> Result<crate::ops::Session> {
        crate::ops::Session::open_for::<R>(&self.dir, context)
    }
}

/// The context of what the review page does: the op log names `web`.
pub fn context() -> Context {
    Context::new("web")
}

/// A server bound to its port, not yet serving.
pub struct Bound {
    listener: tokio::net::TcpListener,
    state: Arc<AppState>,
    watcher: feed::Watcher,
}

impl Bound {
    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.state.port
    }

    /// The URL to open: it carries the one-time token.
    pub fn url(&self) -> String {
        format!(
            "http://127.0.0.1:{}/?token={}",
            self.state.port, self.state.url_token
        )
    }

    /// Serves until `shutdown` completes, then closes the event streams
    /// and waits (briefly) for requests in flight.
    pub async fn run(self, shutdown: impl Future<Output = ()> + Send + 'static) -> Result<()> {
        let Bound {
            listener,
            state,
            watcher,
        } = self;
        let app = router(state.clone());
        let feed_closer = state.feed.closer();
        let graceful = async move {
            shutdown.await;
            feed_closer.close();
        };
        let server = axum::serve(listener, app).with_graceful_shutdown(graceful);
        let result = server.await;
        watcher.stop();
        result.map_err(|e| Error::io("serve on", format!("127.0.0.1:{}", state.port), e))
    }
}

/// Binds 127.0.0.1 (never another address) for the repository at `dir`
/// and starts watching its refs.
pub async fn bind(dir: &Path, options: &ServeOptions) -> Result<Bound> {
    // Opening a session also finishes a landing a killed process left
    // behind, before the page shows anything.
    let git_dir = crate::ops::Session::open_for::<crate::ops::reading::review_page::ReviewList>(
        dir,
        context(),
    )?
    .git_dir()?
    .to_path_buf();
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, options.port.unwrap_or(0)));
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| bind_error(addr, e))?;
    let port = listener
        .local_addr()
        .map_err(|e| Error::io("read the address of", addr.to_string(), e))?
        .port();
    let feed = feed::Feed::new();
    let watcher = feed::Watcher::start(dir, feed.clone(), Duration::from_millis(100))?;
    let token = security::random_token()?;
    let state = Arc::new(AppState {
        dir: dir.to_path_buf(),
        port,
        token: std::sync::Mutex::new(Some(token.clone())),
        url_token: token,
        cookie_secret: security::cookie_secret(&git_dir)?,
        feed,
        recent_files: Default::default(),
    });
    Ok(Bound {
        listener,
        state,
        watcher,
    })
}

fn bind_error(addr: SocketAddr, e: std::io::Error) -> Error {
    if e.kind() == std::io::ErrorKind::AddrInUse {
        return Error::invalid(
            format!("port {} on 127.0.0.1 is in use", addr.port()),
            "pass another --port, or leave it out to use a free one",
        );
    }
    Error::io("listen on", addr.to_string(), e)
}

fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/", get(assets::page))
        .route("/p/{id}", get(assets::page))
        .route("/assets/{name}", get(assets::asset))
        .route("/api/proposals", get(api::list))
        .route("/api/proposals/{id}", get(api::show))
        .route("/api/proposals/{id}/file", get(api::file))
        .route("/api/proposals/{id}/comments", post(actions::comment))
        .route("/api/proposals/{id}/apply", post(actions::apply))
        .route("/api/proposals/{id}/drop", post(actions::drop))
        .route("/api/proposals/{id}/rollback", post(actions::rollback))
        .route("/api/ops", get(api::ops))
        .route("/api/ops/{id}/undo", post(actions::undo))
        .route("/api/events", get(feed::events_get).post(feed::events_post))
        .fallback(api::not_found)
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            security::guard,
        ))
        .with_state(state)
}
