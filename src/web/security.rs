//! The rules every request of the review page passes, in this order
//! (local dev servers keep shipping CVEs for each one: webpack-dev-server,
//! Vite, esbuild):
//! 1. the Host header names a loopback address on our port (DNS rebinding) → else 403;
//! 2. the one-time URL token is exchanged, on its first use only, for an
//!    HttpOnly, SameSite=Strict cookie and a redirect that drops it from
//!    the URL (as Jupyter does); without the cookie → 401;
//! 3. mutations and the event stream carry an Origin equal to our own → else 403;
//! 4. mutations are POST with a JSON body → else 415;
//!
//! and every response gets a strict Content-Security-Policy (no inline
//! script) and never an `Access-Control-*` header.

use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::AppState;
use crate::error::{Error, Result};

/// The page may load its own script, style and data, and nothing else.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// Random bytes, as hex, from the kernel.
pub(crate) fn random_hex(bytes: usize) -> Result<String> {
    let mut buf = vec![0u8; bytes];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut buf))
        .map_err(|e| Error::io("read", "/dev/urandom", e))?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

/// A fresh one-time token for the URL.
pub fn random_token() -> Result<String> {
    random_hex(24)
}

/// The session cookie's value, kept in `<git-dir>/evolv/web-cookie-secret`
/// (mode 0600) so a restarted server accepts an open page's cookie.
pub fn cookie_secret(git_dir: &Path) -> Result<String> {
    let dir = git_dir.join("evolv");
    let path = dir.join("web-cookie-secret");
    if let Ok(text) = std::fs::read_to_string(&path) {
        let text = text.trim();
        if text.len() >= 32 && text.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Ok(text.to_string());
        }
    }
    let secret = random_hex(32)?;
    write_private(&path, secret.as_bytes())?;
    Ok(secret)
}

/// Writes `contents` to `path` readable by its owner only (mode 0600): a
/// temporary file beside it, renamed into place, so no reader sees a
/// partial secret. Creates the directory.
pub(crate) fn write_private(path: &Path, contents: &[u8]) -> Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let Some(dir) = path.parent() else {
        return Err(Error::invalid(
            format!("{} has no directory", path.display()),
            "give a path inside the git directory",
        ));
    };
    std::fs::create_dir_all(dir).map_err(|e| Error::io("create", dir, e))?;
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    let tmp = dir.join(format!("{name}.{}", std::process::id()));
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&tmp)
        .map_err(|e| Error::io("create", &tmp, e))?;
    file.write_all(contents)
        .map_err(|e| Error::io("write", &tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| Error::io("rename", path, e))
}

/// The cookie's name carries the port: cookies are shared between the
/// ports of one host, so two servers must not overwrite each other's.
pub fn cookie_name(port: u16) -> String {
    format!("evolv-session-{port}")
}

/// Compares without stopping at the first difference.
pub(crate) fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// The Host header if it names a loopback address on `port`.
pub(crate) fn loopback_host(headers: &HeaderMap, port: u16) -> Option<String> {
    let host = headers.get(header::HOST)?.to_str().ok()?;
    let (name, host_port) = host.rsplit_once(':')?;
    let loopback = matches!(name, "127.0.0.1" | "localhost" | "[::1]");
    (loopback && host_port == port.to_string()).then(|| host.to_string())
}

fn has_cookie(headers: &HeaderMap, name: &str, secret: &str) -> bool {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .any(|(k, v)| k == name && same(v, secret))
}

fn query_token(query: Option<&str>) -> Option<&str> {
    query?.split('&').find_map(|kv| kv.strip_prefix("token="))
}

/// A plain-text refusal; the page's script reads the status.
fn refuse(status: StatusCode, text: &str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        text.to_string(),
    )
        .into_response()
}

fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
}

/// The middleware: checks, then the handler, then the headers.
pub async fn guard(State(state): State<Arc<AppState>>, req: Request, next: Next) -> Response {
    let mut response = check(&state, req, next).await;
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(
        "cross-origin-opener-policy",
        HeaderValue::from_static("same-origin"),
    );
    h.insert(
        "cross-origin-resource-policy",
        HeaderValue::from_static("same-origin"),
    );
    if !h.contains_key(header::CACHE_CONTROL) {
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    // Nothing may ever grant another origin access.
    let cors: Vec<_> = h
        .keys()
        .filter(|k| k.as_str().starts_with("access-control-"))
        .cloned()
        .collect();
    for k in cors {
        h.remove(k);
    }
    response
}

async fn check(state: &AppState, req: Request, next: Next) -> Response {
    let Some(host) = loopback_host(req.headers(), state.port) else {
        return refuse(
            StatusCode::FORBIDDEN,
            "403: the Host header must name 127.0.0.1, localhost or [::1] on this server's port.\n",
        );
    };
    let cookie = cookie_name(state.port);
    if let Some(token) = query_token(req.uri().query()) {
        // The token opens one session, once: a second use of the URL
        // (from scrollback, a log, a pasted link) mints nothing.
        if req.method() != Method::GET || !state.take_token(token) {
            return refuse(
                StatusCode::UNAUTHORIZED,
                "401: this token is not valid: it was used already or is wrong; run `git evolv serve` again for a new URL.\n",
            );
        }
        // Exchange the token for the cookie, and take it out of the URL.
        let path = req.uri().path().to_string();
        let set_cookie = format!(
            "{cookie}={}; HttpOnly; SameSite=Strict; Path=/",
            state.cookie_secret
        );
        return Response::builder()
            .status(StatusCode::SEE_OTHER)
            .header(header::LOCATION, path)
            .header(header::SET_COOKIE, set_cookie)
            .body(Body::empty())
            .expect("a redirect builds");
    }
    if !has_cookie(req.headers(), &cookie, &state.cookie_secret) {
        return refuse(
            StatusCode::UNAUTHORIZED,
            "401: not signed in; open the URL (with its token) that `git evolv serve` printed.\n",
        );
    }
    let mutation = req.method() != Method::GET && req.method() != Method::HEAD;
    let stream = req.uri().path() == "/api/events";
    if mutation || stream {
        let origin = req
            .headers()
            .get(header::ORIGIN)
            .and_then(|v| v.to_str().ok());
        let expected = format!("http://{host}");
        let ok = origin == Some(expected.as_str());
        if !ok {
            return refuse(
                StatusCode::FORBIDDEN,
                "403: cross-origin request refused (the Origin must be this page's own).\n",
            );
        }
    }
    if mutation {
        if req.method() != Method::POST {
            return refuse(
                StatusCode::METHOD_NOT_ALLOWED,
                "405: changes are POST requests.\n",
            );
        }
        if !is_json(req.headers()) {
            return refuse(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "415: changes take a JSON body (Content-Type: application/json).\n",
            );
        }
    }
    next.run(req).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn only_loopback_names_on_our_port_pass() {
        for ok in ["127.0.0.1:8080", "localhost:8080", "[::1]:8080"] {
            assert!(
                loopback_host(&headers(&[("host", ok)]), 8080).is_some(),
                "{ok}"
            );
        }
        for bad in [
            "evil.example:8080",
            "127.0.0.1:8081",
            "127.0.0.1",
            "localhost.evil.example:8080",
            "127.0.0.2:8080",
            "",
        ] {
            assert!(
                loopback_host(&headers(&[("host", bad)]), 8080).is_none(),
                "{bad}"
            );
        }
    }

    #[test]
    fn the_cookie_must_match_exactly() {
        let h = headers(&[("cookie", "a=b; evolv-session-1=secret")]);
        assert!(has_cookie(&h, "evolv-session-1", "secret"));
        assert!(!has_cookie(&h, "evolv-session-1", "secre"));
        assert!(!has_cookie(&h, "evolv-session-2", "secret"));
    }

    #[test]
    fn json_content_types_are_recognised() {
        assert!(is_json(&headers(&[(
            "content-type",
            "application/json; charset=utf-8"
        )])));
        assert!(!is_json(&headers(&[("content-type", "text/plain")])));
        assert!(!is_json(&HeaderMap::new()));
    }

    #[test]
    fn the_cookie_secret_persists_with_private_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let a = cookie_secret(dir.path()).unwrap();
        assert_eq!(a, cookie_secret(dir.path()).unwrap());
        let mode = std::fs::metadata(dir.path().join("evolv/web-cookie-secret"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_ne!(random_token().unwrap(), random_token().unwrap());
    }
}
