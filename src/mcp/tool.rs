//! What an MCP tool is: one type in one file under `tools/` that says its
//! name, title, description (saying exactly what the tool touches), what
//! it may do (the annotation hints), its argument and output types (whose
//! JSON Schemas are its `inputSchema` and `outputSchema`) and its handler.
//! The registry (`tools/mod.rs`) lists them; the server lists and calls
//! them through [`Entry`], never by a name of its own.

use std::future::Future;
use std::pin::Pin;

use rmcp::model::{CallToolResponse, CallToolResult, JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::call::Call;
use super::schema::{input, output, parse_args};
use crate::error::{Error, Result};

/// The default cap of a diff in a tool result: 64 KiB.
pub const DEFAULT_MAX_DIFF_BYTES: usize = 64 * 1024;

/// What a tool may do, as its annotation hints say.
#[derive(Clone, Copy)]
pub enum Effect {
    /// Reads, or adds objects and refs in git-evolv's own namespace only.
    ReadOnly { idempotent: bool },
    /// Changes the branch, the working tree or git-evolv's refs.
    Writes { destructive: bool, idempotent: bool },
}

/// Added to the description of every tool that writes only in git-evolv's
/// own namespace (read-only, not idempotent: the proposing tools).
const NAMESPACE_NOTE: &str = "It only adds git objects and refs under refs/evolv/ (git-evolv's own namespace): it never touches the working tree, the index, HEAD or any branch.";

/// What a handler answers.
pub enum Reply<T> {
    /// A success: the output as `structuredContent`, and the same JSON as
    /// text.
    Output(T),
    /// Any other answer the protocol allows: an input-required result (a
    /// confirmation), an error result that still carries data.
    Response(CallToolResponse),
}

/// One MCP tool.
pub trait McpTool: 'static {
    const NAME: &'static str;
    const TITLE: &'static str;
    const DESCRIPTION: &'static str;
    const EFFECT: Effect;
    /// The arguments; their schema is the tool's `inputSchema`.
    type Args: DeserializeOwned + JsonSchema + Send;
    /// The success's `structuredContent`; its schema is the `outputSchema`.
    type Output: Serialize + JsonSchema + Send;

    /// Parses the call's arguments; a bad one is `invalid_input` naming
    /// the field at fault.
    fn parse(arguments: Option<JsonObject>) -> Result<Self::Args> {
        parse_args(Self::NAME, arguments)
    }

    /// Checks what only a client is refused, calls the use case and shapes
    /// its outcome; an `Err` becomes the error result.
    fn run(
        call: &Call,
        args: Self::Args,
    ) -> impl Future<Output = Result<Reply<Self::Output>>> + Send;
}

type Handler =
    for<'a> fn(&'a Call) -> Pin<Box<dyn Future<Output = Result<CallToolResponse>> + Send + 'a>>;

/// A tool as the registry lists it.
pub struct Entry {
    pub name: &'static str,
    /// The tool as `tools/list` shows it.
    pub describe: fn() -> Tool,
    /// Parses the arguments, runs the handler, renders its reply.
    pub call: Handler,
}

/// The registry entry of `T`.
pub const fn entry<T: McpTool>() -> Entry {
    Entry {
        name: T::NAME,
        describe: describe::<T>,
        call: dispatch::<T>,
    }
}

fn describe<T: McpTool>() -> Tool {
    let description = match T::EFFECT {
        Effect::ReadOnly { idempotent: false } => format!("{} {NAMESPACE_NOTE}", T::DESCRIPTION),
        _ => T::DESCRIPTION.to_string(),
    };
    Tool::new(T::NAME, description, input::<T::Args>())
        .with_title(T::TITLE)
        .with_raw_output_schema(output::<T::Output>())
        .with_annotations(annotations(T::TITLE, T::EFFECT))
}

fn annotations(title: &str, effect: Effect) -> ToolAnnotations {
    let (read_only, destructive, idempotent) = match effect {
        Effect::ReadOnly { idempotent } => (true, false, idempotent),
        Effect::Writes {
            destructive,
            idempotent,
        } => (false, destructive, idempotent),
    };
    // All four hints explicitly: a missing destructiveHint counts as true.
    ToolAnnotations::with_title(title)
        .read_only(read_only)
        .destructive(destructive)
        .idempotent(idempotent)
        .open_world(false)
}

fn dispatch<T: McpTool>(
    call: &Call,
) -> Pin<Box<dyn Future<Output = Result<CallToolResponse>> + Send + '_>> {
    Box::pin(async move {
        let args = T::parse(call.arguments())?;
        Ok(match T::run(call, args).await? {
            Reply::Output(output) => success(output).into(),
            Reply::Response(response) => response,
        })
    })
}

/// A success: the outcome as `structuredContent`, and the same JSON as text.
fn success<T: Serialize>(outcome: T) -> CallToolResult {
    CallToolResult::structured(serde_json::to_value(outcome).expect("outcomes serialise"))
}

/// An engine error: `isError` with `{success: false, error: {code, message,
/// hint, ...}}`, the message exactly as the CLI prints it.
pub fn error_result(e: &Error) -> CallToolResult {
    CallToolResult::structured_error(serde_json::json!({
        "success": false,
        "error": e.to_body(),
    }))
}

/// Tools without arguments.
#[derive(Debug, serde::Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

/// Cuts `text` to at most `max` bytes at a line end (or a character
/// boundary when the first line is longer); returns whether it cut.
pub fn cap(text: &mut String, max: usize) -> bool {
    if text.len() <= max {
        return false;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    if let Some(nl) = text[..end].rfind('\n') {
        end = nl + 1;
    }
    text.truncate(end);
    true
}

#[cfg(test)]
mod tests {
    use super::cap;

    #[test]
    fn cap_cuts_at_a_line_end_and_keeps_short_text() {
        let mut t = "one\ntwo\nthree\n".to_string();
        assert!(cap(&mut t, 10));
        assert_eq!(t, "one\ntwo\n");
        let mut short = "a\n".to_string();
        assert!(!cap(&mut short, 10));
        assert_eq!(short, "a\n");
        let mut wide = "ééé".to_string();
        assert!(cap(&mut wide, 3));
        assert_eq!(wide, "é");
    }
}
