//! The read side of the JSON API: the same `ops` outcomes the CLI renders,
//! plus the per-file views the page draws (`ops::reading::review`). Each
//! request runs in a fresh `ops::Session` (recovery on open, the index
//! released on drop) on a blocking thread (the git layer is synchronous).

use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Path, Query, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::AppState;
use crate::error::Error;
use crate::ops::UseCase;
use crate::ops::operations::op_log::OpLogRequest;
use crate::ops::reading::review_page;

/// The HTTP status of an error: the caller's mistake, a missing proposal,
/// a "no" from the repository, or our failure.
pub fn status(e: &Error) -> StatusCode {
    match e.code() {
        "patch_not_found" => StatusCode::NOT_FOUND,
        "invalid_input" | "invalid_plan" => StatusCode::BAD_REQUEST,
        _ if e.exit_code() == 1 => StatusCode::CONFLICT,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// `{"success": false, "error": {code, message, hint, …}}`, as `--json` prints.
pub fn error_response(e: &Error) -> Response {
    (
        status(e),
        Json(serde_json::json!({ "success": false, "error": e.to_body() })),
    )
        .into_response()
}

/// An action's JSON body. Every action takes its body through this
/// extractor, so every one parses it the same way and answers one that
/// does not parse alike: 400 with the API's error shape.
pub struct JsonBody<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for JsonBody<T> {
    type Rejection = Response;

    async fn from_request(req: Request, state: &S) -> std::result::Result<Self, Response> {
        // The body itself (its size limit, a broken stream): axum's answer.
        let bytes = Bytes::from_request(req, state)
            .await
            .map_err(IntoResponse::into_response)?;
        serde_json::from_slice(&bytes).map(JsonBody).map_err(|e| {
            error_response(&Error::invalid(
                format!("the request body is not valid: {e}"),
                "send the JSON object the page sends",
            ))
        })
    }
}

/// What every action on one proposal receives: the page's state, the
/// proposal's id from the path, and its JSON body, parsed by [`JsonBody`].
pub struct Action<T> {
    pub state: Arc<AppState>,
    pub id: String,
    pub body: T,
}

impl<T: DeserializeOwned> FromRequest<Arc<AppState>> for Action<T> {
    type Rejection = Response;

    async fn from_request(
        req: Request,
        state: &Arc<AppState>,
    ) -> std::result::Result<Self, Response> {
        let (mut parts, body) = req.into_parts();
        // The path first, as axum extracts a handler's arguments in order.
        let Path(id) = Path::<String>::from_request_parts(&mut parts, state)
            .await
            .map_err(IntoResponse::into_response)?;
        let JsonBody(body) =
            JsonBody::from_request(Request::from_parts(parts, body), state).await?;
        Ok(Action {
            state: state.clone(),
            id,
            body,
        })
    }
}

/// Runs `use_case` in a fresh session on a blocking thread and answers
/// its outcome as JSON.
pub async fn blocking<U>(state: Arc<AppState>, use_case: U) -> Response
where
    U: UseCase + Send + 'static,
    U::Outcome: Serialize + Send + 'static,
{
    match run(state, use_case).await {
        Ok(value) => Json(value).into_response(),
        Err(e) => e,
    }
}

/// [`blocking`]'s run, its error already answered.
async fn run<U>(state: Arc<AppState>, use_case: U) -> std::result::Result<U::Outcome, Response>
where
    U: UseCase + Send + 'static,
    U::Outcome: Send + 'static,
{
    let result = tokio::task::spawn_blocking(move || state.open::<U>()?.run(&use_case)).await;
    match result {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(e)) => Err(error_response(&e)),
        Err(_) => Err(error_response(&Error::Internal {
            at: "the review page's worker thread",
            message: "the request's worker thread failed".into(),
        })),
    }
}

/// `GET /api/proposals`: `list`'s outcome and where HEAD is.
pub async fn list(State(state): State<Arc<AppState>>) -> Response {
    blocking(state, review_page::ReviewList).await
}

/// `GET /api/proposals/{id}`: `show`'s outcome without the patch text,
/// the operation, metadata and changed files (`review_page::ProposalView`); the
/// page asks for the lines a page at a time (`file`).
pub async fn show(State(state): State<Arc<AppState>>, Path(id): Path<String>) -> Response {
    // The first file's hunks are kept for the page the view asks for next.
    let recent = state.recent_files.clone();
    let view = review_page::ReviewProposal {
        patch_id: id,
        recent,
    };
    blocking(state, view).await
}

#[derive(Debug, Deserialize)]
pub struct OpsQuery {
    /// How many operations, newest first (default 20).
    #[serde(default)]
    n: Option<usize>,
}

/// `GET /api/ops?n=…`: the op log, `op log --json`'s outcome.
pub async fn ops(State(state): State<Arc<AppState>>, Query(q): Query<OpsQuery>) -> Response {
    let limit = Some(q.n.unwrap_or(20).max(1));
    blocking(state, OpLogRequest { limit }).await
}

#[derive(Debug, Deserialize)]
pub struct FileQuery {
    path: String,
    /// The first line of the page (0: the file's first page).
    #[serde(default)]
    from: usize,
}

/// `GET /api/proposals/{id}/file?path=…&from=…`: a page of one file's
/// hunks (`review::FilePage`). The path is matched exactly against the
/// proposal's files as the page lists them; any other is 404.
pub async fn file(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    Query(q): Query<FileQuery>,
) -> Response {
    let missing = Error::invalid(
        format!("'{}' is not a file of {id}", q.path),
        "pick a path from the proposal's file list",
    );
    let page = review_page::ReviewFilePage {
        patch_id: id,
        path: q.path,
        from: q.from,
        recent: state.recent_files.clone(),
    };
    let page = run(state, page);
    match page.await {
        Ok(Some(page)) => Json(page).into_response(),
        // Not one of its files: no such resource, as for an unknown id.
        Ok(None) => (
            StatusCode::NOT_FOUND,
            Json(serde_json::json!({ "success": false, "error": missing.to_body() })),
        )
            .into_response(),
        Err(answered) => answered,
    }
}

pub async fn not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        [(
            axum::http::header::CONTENT_TYPE,
            "text/plain; charset=utf-8",
        )],
        "404: no such page\n",
    )
        .into_response()
}
