//! The write side: comment, apply (with its validation output streamed
//! line by line), drop, rollback and undo. Each calls the same `ops` function as
//! the CLI; the page asks for confirmation before it calls any of them.

use std::convert::Infallible;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

use super::api::{Action, blocking};
use crate::ops::applying::apply::ApplyRequest;
use crate::ops::applying::rollback::RollbackRequest;
use crate::ops::drop::DropRequest;
use crate::ops::operations::undo::UndoRequest;
use crate::ops::reading::review::CommentRequest;
use crate::progress::{Event, Progress, ProgressSink, Task};
use crate::store::comments::Locator;

/// `POST /api/proposals/{id}/comments` body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommentBody {
    body: String,
    locator: Locator,
    #[serde(default)]
    quote: String,
}

pub async fn comment(Action { state, id, body: b }: Action<CommentBody>) -> Response {
    let req = CommentRequest {
        patch_id: id,
        body: b.body,
        locator: b.locator,
        quote: b.quote,
    };
    let mut r = blocking(state, req).await;
    if r.status() == StatusCode::OK {
        *r.status_mut() = StatusCode::CREATED;
    }
    r
}

/// An empty JSON object: actions take no options but must be JSON.
#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct NoOptions {}

/// `POST /api/proposals/{id}/drop` body.
#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct DropBody {
    /// Also drop the pending proposals stacked on it (else refused).
    #[serde(default)]
    all_above: bool,
}

pub async fn drop(Action { state, id, body: b }: Action<DropBody>) -> Response {
    let req = DropRequest {
        patch_ids: vec![id],
        all_above: b.all_above,
        ..DropRequest::default()
    };
    blocking(state, req).await
}

pub async fn rollback(Action { state, id, .. }: Action<NoOptions>) -> Response {
    let req = RollbackRequest {
        patch_id: id,
        strategy: None,
        // A file_backup over later commits is refused (#16 item 14).
        force: false,
    };
    blocking(state, req).await
}

/// `POST /api/ops/{op}/undo`: undoes the operation named (never "the
/// newest": the page shows which one it undoes, and another process may
/// have logged a newer one since). `dry_run` previews without changing
/// anything; the page asks for confirmation before the real one.
#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct UndoBody {
    #[serde(default)]
    dry_run: bool,
}

pub async fn undo(Action { state, id, body: b }: Action<UndoBody>) -> Response {
    let req = UndoRequest {
        op: Some(id),
        dry_run: b.dry_run,
        ..UndoRequest::default()
    };
    blocking(state, req).await
}

fn ndjson(value: &serde_json::Value) -> Result<Bytes, Infallible> {
    let mut line = value.to_string();
    line.push('\n');
    Ok(Bytes::from(line))
}

type Lines = mpsc::Sender<Result<Bytes, Infallible>>;

fn send(tx: &Lines, v: serde_json::Value) {
    // A page that went away stops reading; the apply goes on regardless.
    let _ = tx.blocking_send(ndjson(&v));
}

/// The library's progress sink for one apply from the page: each line of
/// validation output, as the command writes it, becomes a `line` message
/// (the same `Event::Line` the MCP server turns into notifications), and
/// each validation command's start a `command` message.
struct PageSink(Lines);

impl ProgressSink for PageSink {
    fn event(&self, event: &Event) {
        match event {
            Event::Start {
                task: Task::Validate,
                label,
                ..
            } => send(
                &self.0,
                serde_json::json!({"type": "command", "command": label}),
            ),
            Event::Line {
                task: Task::Validate,
                label,
                line,
            } => send(
                &self.0,
                serde_json::json!({"type": "line", "command": label, "text": line}),
            ),
            _ => {}
        }
    }
}

/// Streams newline-delimited JSON: `{"type":"start"}`, then for each
/// validation command `{"type":"command"}` and a `{"type":"line", …}` per
/// line of its output as it is written, then `{"type":"result", "report"}`
/// or `{"type":"error", "error": {code, message, hint, …}}`.
pub async fn apply(Action { state, id, .. }: Action<NoOptions>) -> Response {
    let (tx, rx) = mpsc::channel::<Result<Bytes, Infallible>>(256);
    tokio::task::spawn_blocking(move || {
        let sink = Progress::to(Arc::new(PageSink(tx.clone())));
        let context = super::context().with_progress(sink);
        let outcome = state
            .open_with::<ApplyRequest>(context)
            .and_then(|session| {
                // A stacked proposal brings the pending ones below it
                // (ops::applying::apply decides, as for the CLI).
                send(&tx, serde_json::json!({"type": "start", "patch_ids": [id]}));
                let req = ApplyRequest {
                    patch_ids: vec![id],
                    ..ApplyRequest::default()
                };
                session.run(&req)
            });
        let last = match outcome {
            // Some proposals may have landed before one failed: the page
            // shows what landed and the error that stopped the rest.
            Ok(report) => match &report.error {
                None => serde_json::json!({"type": "result", "report": report}),
                Some(e) => {
                    serde_json::json!({"type": "error", "error": e.to_body(), "report": report})
                }
            },
            Err(e) => serde_json::json!({"type": "error", "error": e.to_body()}),
        };
        send(&tx, last);
    });
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/x-ndjson")],
        Body::from_stream(ReceiverStream::new(rx)),
    )
        .into_response()
}
