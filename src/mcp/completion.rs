//! `completion/complete`: the arguments of the resource templates complete
//! by prefix, as the CLI's shell completion does (`patch_id` from the
//! proposals under `refs/evolv/proposals/`, `op` from the op log). There
//! are no prompts, so a prompt reference is an invalid parameter.

use std::path::Path;

use rmcp::ErrorData;
use rmcp::model::{CompleteRequestParams, CompleteResult, CompletionInfo, Reference};

use super::resources::proposals;
use super::resources::uri::TEMPLATES;
use crate::context::Context;
use crate::ops::Session;
use crate::ops::operations::op_log::OpLogRequest;

/// The ids of the newest operations.
async fn operations(dir: &Path) -> Vec<String> {
    let dir = dir.to_path_buf();
    tokio::task::spawn_blocking(move || {
        let session = Session::open_for::<OpLogRequest>(&dir, Context::new("mcp")).ok()?;
        let log = session.run(&OpLogRequest { limit: Some(1000) }).ok()?;
        Some(log.operations.into_iter().map(|o| o.id).collect())
    })
    .await
    .ok()
    .flatten()
    .unwrap_or_default()
}

/// `completion/complete`.
pub async fn complete(
    dir: &Path,
    request: CompleteRequestParams,
) -> Result<CompleteResult, ErrorData> {
    let template = match &request.r#ref {
        Reference::Resource(r) => r.uri.as_str(),
        Reference::Prompt(p) => {
            return Err(ErrorData::invalid_params(
                format!(
                    "git-evolv has no prompts (asked to complete prompt '{}')",
                    p.name
                ),
                None,
            ));
        }
        _ => return Err(ErrorData::invalid_params("unknown reference type", None)),
    };
    if !TEMPLATES.iter().any(|t| t.0 == template) {
        return Err(ErrorData::invalid_params(
            format!(
                "'{template}' is not a resource template of git-evolv; resources/templates/list names them"
            ),
            None,
        ));
    }
    let prefix = request.argument.value.as_str();
    let candidates = match request.argument.name.as_str() {
        "patch_id" if template.contains("{patch_id}") => {
            proposals(dir).await.into_iter().map(|(id, _)| id).collect()
        }
        "op" if template.contains("{op}") => operations(dir).await,
        "page" if template.contains("{?page}") => Vec::new(),
        other => {
            return Err(ErrorData::invalid_params(
                format!("the template '{template}' has no argument '{other}'"),
                None,
            ));
        }
    };
    Ok(CompleteResult::new(by_prefix(candidates, prefix)))
}

/// The candidates that start with `prefix`, at most the protocol's 100,
/// with the total and whether more were left out.
fn by_prefix(candidates: Vec<String>, prefix: &str) -> CompletionInfo {
    let matching: Vec<String> = candidates
        .into_iter()
        .filter(|c| c.starts_with(prefix))
        .collect();
    let total = matching.len();
    let shown: Vec<String> = matching
        .into_iter()
        .take(CompletionInfo::MAX_VALUES)
        .collect();
    let more = total > shown.len();
    CompletionInfo::with_pagination(shown, Some(total as u32), more)
        .expect("at most MAX_VALUES values")
}

#[cfg(test)]
mod tests {
    use super::by_prefix;

    #[test]
    fn completes_by_prefix_and_caps_at_100() {
        let ids: Vec<String> = (0..150).map(|i| format!("patch_{i}_a")).collect();
        let info = by_prefix(ids.clone(), "patch_1");
        assert_eq!(info.total, Some(61)); // 1, 10..19, 100..149
        assert_eq!(info.has_more, Some(false));
        let all = by_prefix(ids, "");
        assert_eq!(all.values.len(), 100);
        assert_eq!((all.total, all.has_more), (Some(150), Some(true)));
    }
}
