//! What each resource holds: read in a session opened as the CLI opens it,
//! on a blocking thread, through the same use cases as `list`, `show` and
//! `op log` (the JSON is theirs). A diff is served in pages.

use std::path::Path;

use serde_json::{Value, json};

use super::uri::Uri;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::mcp::cap::DEFAULT_MAX_DIFF_BYTES;
use crate::ops::Session;
use crate::ops::operations::op_log::{OpLogRequest, OpShowRequest};
use crate::ops::reading::inspect::{ListRequest, ShowRequest};

/// The op log resource lists this many newest operations.
const OPS_LISTED: usize = 100;

/// One resource's contents.
pub struct Contents {
    pub text: String,
    pub mime: &'static str,
    /// For a page of a diff: `{page, pages, total_bytes, next?}`.
    pub page: Option<Value>,
}

fn json_contents(value: Value) -> Contents {
    Contents {
        text: serde_json::to_string_pretty(&value).expect("JSON values serialise"),
        mime: "application/json",
        page: None,
    }
}

fn to_value(v: impl serde::Serialize) -> Value {
    serde_json::to_value(v).expect("outcomes serialise")
}

/// Reads `uri` in the repository at `dir`.
pub fn read(dir: &Path, uri: &Uri) -> Result<Contents> {
    let context = Context::new("mcp");
    let show = |patch_id: &str| {
        Session::open_for::<ShowRequest>(dir, context.clone())?.run(&ShowRequest {
            patch_id: patch_id.to_string(),
        })
    };
    Ok(match uri {
        Uri::Proposals => json_contents(to_value(
            Session::open_for::<ListRequest>(dir, context.clone())?.run(&ListRequest {})?,
        )),
        Uri::AllVerdicts => {
            let list =
                Session::open_for::<ListRequest>(dir, context.clone())?.run(&ListRequest {})?;
            let verdicts: serde_json::Map<String, Value> = list
                .proposals
                .into_iter()
                .map(|p| (p.patch_id, to_value(p.verdict)))
                .collect();
            json_contents(json!({ "verdicts": verdicts }))
        }
        Uri::Proposal(p) => {
            let mut value = to_value(show(p)?);
            if let Some(map) = value.as_object_mut() {
                map.remove("unified_diff");
                map.remove("word_diff");
                map.insert("diff".into(), Value::String(Uri::Diff(p.clone(), 1).text()));
            }
            json_contents(value)
        }
        Uri::Stack(p) => {
            let outcome = show(p)?;
            json_contents(json!({"stack": outcome.stack, "stacked_above": outcome.stacked_above}))
        }
        Uri::Verdicts(p) => {
            let outcome = show(p)?;
            json_contents(
                json!({"verdict": outcome.proposal.verdict, "validators": outcome.validators}),
            )
        }
        Uri::Comments(p) => json_contents(json!({"comments": show(p)?.comments})),
        Uri::Diff(p, page) => diff_page(p, &show(p)?.unified_diff, *page)?,
        Uri::Ops => json_contents(to_value(
            Session::open_for::<OpLogRequest>(dir, context.clone())?.run(&OpLogRequest {
                limit: Some(OPS_LISTED),
            })?,
        )),
        Uri::Op(op) => json_contents(to_value(
            Session::open_for::<OpShowRequest>(dir, context.clone())?
                .run(&OpShowRequest { op: op.clone() })?,
        )),
    })
}

/// Page `page` (from 1) of `diff`, pages cut at line ends.
fn diff_page(patch_id: &str, diff: &str, page: usize) -> Result<Contents> {
    let pages = pages(diff, DEFAULT_MAX_DIFF_BYTES);
    let Some(range) = pages.get(page - 1) else {
        return Err(Error::invalid(
            format!(
                "page {page} of proposal {patch_id}'s diff does not exist: it has {} page{}",
                pages.len(),
                if pages.len() == 1 { "" } else { "s" }
            ),
            format!(
                "read {} and follow `next`",
                Uri::Diff(patch_id.into(), 1).text()
            ),
        ));
    };
    let next = (page < pages.len()).then(|| Uri::Diff(patch_id.into(), page + 1).text());
    Ok(Contents {
        text: diff[range.clone()].to_string(),
        mime: "text/x-diff",
        page: Some(json!({
            "page": page,
            "pages": pages.len(),
            "total_bytes": diff.len(),
            "next": next,
        })),
    })
}

/// `text` in pieces of at most `max` bytes, each ending at a line end
/// (or a character boundary when one line is longer); at least one piece.
fn pages(text: &str, max: usize) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + max).min(text.len());
        if end < text.len() {
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            if let Some(nl) = text[start..end].rfind('\n') {
                end = start + nl + 1;
            }
            if end == start {
                end = (start + max).min(text.len());
                while !text.is_char_boundary(end) {
                    end += 1;
                }
            }
        }
        out.push(start..end);
        start = end;
    }
    if out.is_empty() {
        out.push(0..0);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::pages;

    #[test]
    fn pages_cut_at_line_ends_and_cover_everything() {
        let text = "aaaa\nbbbb\ncccc\n";
        let p = pages(text, 11);
        assert_eq!(p, vec![0..10, 10..15]);
        let joined: String = p.iter().map(|r| &text[r.clone()]).collect();
        assert_eq!(joined, text);
        assert_eq!(pages("", 10), vec![0..0]);
        // One line longer than a page is cut at a character boundary.
        assert_eq!(pages("éééé", 3), vec![0..2, 2..4, 4..6, 6..8]);
    }
}
