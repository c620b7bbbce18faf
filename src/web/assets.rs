//! The page's files, embedded in the binary at build time: no Node build
//! step, no CDN. One HTML shell for every page URL (`/`, `/p/<id>`); the
//! script reads the URL.

use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

const INDEX_HTML: &str = include_str!("assets/index.html");
const APP_JS: &str = include_str!("assets/app.js");
const APP_CSS: &str = include_str!("assets/app.css");
const ICON_SVG: &str = include_str!("assets/icon.svg");

pub async fn page() -> Response {
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        INDEX_HTML,
    )
        .into_response()
}

pub async fn asset(Path(name): Path<String>) -> Response {
    let (body, kind) = match name.as_str() {
        "app.js" => (APP_JS, "text/javascript; charset=utf-8"),
        "app.css" => (APP_CSS, "text/css; charset=utf-8"),
        "icon.svg" => (ICON_SVG, "image/svg+xml"),
        _ => return super::api::not_found().await,
    };
    (StatusCode::OK, [(header::CONTENT_TYPE, kind)], body).into_response()
}
