//! The read side of the JSON API: the same `ops` outcomes the CLI renders,
//! plus the per-file views the page draws. Work runs on blocking threads
//! (libgit2 is synchronous).

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};

use super::AppState;
use super::view::{self, FileView, Hunk};
use crate::error::{Error, Result};
use crate::ops::inspect::{self, ProposalSummary, ShowOutcome};
use crate::store::proposals;

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

/// Runs `work` with the repository on a blocking thread and answers JSON.
pub async fn blocking<T, F>(state: Arc<AppState>, work: F) -> Response
where
    T: Serialize + Send + 'static,
    F: FnOnce(&git2::Repository) -> Result<T> + Send + 'static,
{
    let result = tokio::task::spawn_blocking(move || {
        let repo = state.open()?;
        let out = work(&repo);
        crate::ops::land::release_index(&repo);
        out
    })
    .await;
    match result {
        Ok(Ok(value)) => Json(value).into_response(),
        Ok(Err(e)) => error_response(&e),
        Err(_) => error_response(&Error::Git {
            message: "the request's worker thread failed".into(),
        }),
    }
}

/// A proposal in the list, with the proposal it is stacked on.
#[derive(Debug, Serialize)]
pub struct ListEntry {
    #[serde(flatten)]
    pub proposal: ProposalSummary,
    /// The proposal whose commit this one is based on.
    pub onto: Option<String>,
}

/// `GET /api/proposals`.
#[derive(Debug, Serialize)]
pub struct ListView {
    pub proposals: Vec<ListEntry>,
    pub branch: Option<String>,
    pub head: Option<String>,
}

/// A proposal stacked on another is based on that one's commit.
fn stacked(list: Vec<ProposalSummary>) -> Vec<ListEntry> {
    let by_commit: std::collections::HashMap<String, String> = list
        .iter()
        .map(|p| (p.commit.clone(), p.patch_id.clone()))
        .collect();
    list.into_iter()
        .map(|p| ListEntry {
            onto: by_commit.get(&p.base).cloned(),
            proposal: p,
        })
        .collect()
}

pub async fn list(State(state): State<Arc<AppState>>) -> Response {
    blocking(state, |repo| {
        let head = crate::git::head(repo).ok();
        Ok(ListView {
            proposals: stacked(inspect::list(repo)?.proposals),
            branch: head.as_ref().map(|h| h.display_name().to_string()),
            head: head.map(|h| h.commit.to_string()),
        })
    })
    .await
}

/// `GET /api/proposals/{id}`: `show`'s outcome, the file list, the stack.
#[derive(Debug, Serialize)]
pub struct ProposalView {
    #[serde(flatten)]
    pub show: ShowOutcome,
    pub operation: String,
    /// The stored metadata, whole: whatever the engine recorded (locators,
    /// warnings, validator results) is shown.
    pub metadata: serde_json::Value,
    pub files: Vec<FileView>,
    /// From the bottom of the stack up to this proposal (just itself
    /// when it is not stacked).
    pub stack: Vec<String>,
    /// Proposals stacked directly on this one.
    pub above: Vec<String>,
}

pub async fn show(State(state): State<Arc<AppState>>, Path(id): Path<String>) -> Response {
    blocking(state, move |repo| {
        let show = inspect::show(repo, &id)?;
        let p = proposals::load(repo, &id)?;
        let entries = stacked(inspect::list(repo)?.proposals);
        let mut stack = vec![id.clone()];
        let mut at = entries.iter().find(|e| e.proposal.patch_id == id);
        while let Some(below) = at.and_then(|e| e.onto.clone()) {
            if stack.contains(&below) {
                break;
            }
            stack.insert(0, below.clone());
            at = entries.iter().find(|e| e.proposal.patch_id == below);
        }
        let above = entries
            .iter()
            .filter(|e| e.onto.as_deref() == Some(&id))
            .map(|e| e.proposal.patch_id.clone())
            .collect();
        Ok(ProposalView {
            operation: p.meta.operation.clone(),
            metadata: serde_json::to_value(&p.meta).unwrap_or_default(),
            files: view::files(repo, &p)?,
            show,
            stack,
            above,
        })
    })
    .await
}

#[derive(Debug, Deserialize)]
pub struct FileQuery {
    path: String,
}

/// `GET /api/proposals/{id}/file?path=…`: one file's hunks.
#[derive(Debug, Serialize)]
pub struct FileHunks {
    pub path: String,
    pub hunks: Vec<Hunk>,
}

pub async fn file(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    Query(q): Query<FileQuery>,
) -> Response {
    blocking(state, move |repo| {
        let p = proposals::load(repo, &id)?;
        let hunks = view::hunks(repo, &p, &q.path)?.ok_or_else(|| {
            Error::invalid(
                format!("'{}' is not a file of {id}", q.path),
                "pick a path from the proposal's file list",
            )
        })?;
        Ok(FileHunks {
            path: q.path,
            hunks,
        })
    })
    .await
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
