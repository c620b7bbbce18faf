//! Resources: proposals (summary, diff, stack, verdicts, comments), the op
//! log and the verdicts, under the one scheme `evolv://` (`uri.rs`), listed
//! with templates whose arguments complete (`completion.rs`). Subscribers
//! hear of changes through the review page's live feed (`subscribe.rs`).
//! On 2026-07-28 connections every list and read carries the cache hints:
//! `cacheScope: private` (a repository is its user's), `ttlMs` 0 for what a
//! landing or a comment changes, a minute for a diff page.

pub mod read;
pub mod uri;

use std::path::Path;

use rmcp::model::{
    CacheScope, ListResourceTemplatesResult, ListResourcesResult, ProtocolVersion,
    ReadResourceRequestParams, ReadResourceResult, Resource, ResourceContents, ResourceTemplate,
};
use rmcp::{ErrorData, RoleServer, service::RequestContext};
use serde_json::json;

use crate::context::Context;
use crate::error::Error;
use crate::ops::Session;
use crate::ops::reading::inspect::ListRequest;
use uri::{TEMPLATES, Uri};

/// Whether the request speaks 2026-07-28 (cache hints, per-request meta).
pub fn is_2026(context: &RequestContext<RoleServer>) -> bool {
    context
        .meta
        .protocol_version()
        .or_else(|| context.protocol_version())
        .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str())
}

/// How long a read of `uri` stays fresh, in milliseconds.
fn ttl_ms(uri: &Uri) -> u64 {
    match uri {
        Uri::Diff(..) => 60_000,
        _ => 0,
    }
}

fn resource(uri: &Uri, name: &str, title: &str, description: &str, mime: &str) -> Resource {
    let mut r = Resource::new(uri.text(), name);
    r.title = Some(title.into());
    r.description = Some(description.into());
    r.mime_type = Some(mime.into());
    r
}

/// `resources/list`: the three collections, then each proposal's summary
/// (so clients that only offer listed resources, by `@` mention, reach them).
pub async fn list(
    dir: &Path,
    context: &RequestContext<RoleServer>,
) -> Result<ListResourcesResult, ErrorData> {
    let mut resources = vec![
        resource(
            &Uri::Proposals,
            "proposals",
            "Proposals",
            "Every proposal with its status, as `git evolv list --json`.",
            "application/json",
        ),
        resource(
            &Uri::Ops,
            "op-log",
            "Op log",
            "The newest 100 operations of the op log, as `git evolv op log --json`.",
            "application/json",
        ),
        resource(
            &Uri::AllVerdicts,
            "verdicts",
            "Verdicts",
            "The cached verdict of evolv.validate on each proposal's tree, by proposal id.",
            "application/json",
        ),
    ];
    for (id, summary) in proposals(dir).await {
        resources.push(resource(
            &Uri::Proposal(id.clone()),
            &id,
            &format!("Proposal {id}"),
            &summary,
            "application/json",
        ));
    }
    let mut result = ListResourcesResult::with_all_items(resources);
    if is_2026(context) {
        result.ttl_ms = Some(0);
        result.cache_scope = Some(CacheScope::Private);
    }
    Ok(result)
}

/// Every proposal's id and summary, in `list` order; none when the
/// repository cannot be read (a listing is a convenience, never an error).
pub async fn proposals(dir: &Path) -> Vec<(String, String)> {
    let dir = dir.to_path_buf();
    tokio::task::spawn_blocking(move || {
        let session = Session::open_for::<ListRequest>(&dir, Context::new("mcp")).ok()?;
        let list = session.run(&ListRequest {}).ok()?;
        Some(
            list.proposals
                .into_iter()
                .map(|p| (p.patch_id, p.summary))
                .collect(),
        )
    })
    .await
    .ok()
    .flatten()
    .unwrap_or_default()
}

/// `resources/templates/list`.
pub fn templates(context: &RequestContext<RoleServer>) -> ListResourceTemplatesResult {
    let templates = TEMPLATES
        .iter()
        .map(|(template, name, title, description, mime)| {
            let mut t = ResourceTemplate::new(*template, *name);
            t.title = Some((*title).into());
            t.description = Some((*description).into());
            t.mime_type = Some((*mime).into());
            t
        })
        .collect();
    let mut result = ListResourceTemplatesResult::with_all_items(templates);
    if is_2026(context) {
        // The templates are the same for everyone and never change.
        result.ttl_ms = Some(3_600_000);
        result.cache_scope = Some(CacheScope::Public);
    }
    result
}

/// `resources/read`.
pub async fn read(
    dir: &Path,
    request: ReadResourceRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<ReadResourceResult, ErrorData> {
    let Some(uri) = Uri::parse(&request.uri) else {
        return Err(not_found(
            &request.uri,
            "git-evolv serves evolv://proposals, evolv://ops, evolv://verdicts and the templates of resources/templates/list",
        ));
    };
    let dir = dir.to_path_buf();
    let what = uri.clone();
    let contents = tokio::task::spawn_blocking(move || read::read(&dir, &what))
        .await
        .map_err(|e| {
            ErrorData::internal_error(format!("the read's thread ended abnormally: {e}"), None)
        })?
        .map_err(|e| engine_error(&request.uri, &e))?;
    let mut body = ResourceContents::text(contents.text, uri.text()).with_mime_type(contents.mime);
    if let Some(page) = contents.page {
        let mut meta = rmcp::model::MetaObject::new();
        meta.insert("evolv/page".into(), page);
        body = body.with_meta(meta);
    }
    let mut result = ReadResourceResult::new(vec![body]);
    if is_2026(context) {
        result.ttl_ms = Some(ttl_ms(&uri));
        result.cache_scope = Some(CacheScope::Private);
    }
    Ok(result)
}

fn not_found(uri: &str, hint: &str) -> ErrorData {
    ErrorData::resource_not_found(
        format!("resource not found: {uri}"),
        Some(json!({ "uri": uri, "hint": hint })),
    )
}

/// A missing proposal or operation is "resource not found"; anything else
/// is the engine's error, its body as data.
fn engine_error(uri: &str, e: &Error) -> ErrorData {
    let body = serde_json::to_value(e.to_body()).unwrap_or_default();
    if matches!(e.code(), "patch_not_found" | "op_not_found") {
        return ErrorData::resource_not_found(
            e.to_string(),
            Some(json!({ "uri": uri, "error": body })),
        );
    }
    ErrorData::invalid_params(e.to_string(), Some(json!({ "uri": uri, "error": body })))
}
