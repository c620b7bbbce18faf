//! What an MCP tool is: one type in one file under `tools/` that says its
//! name, title, description (saying exactly what the tool touches), what
//! it may do (the annotation hints), its argument and output types (whose
//! JSON Schemas are its `inputSchema` and `outputSchema`) and its handler.
//! Most tools are one use case ([`SessionTool`]: the tool names the use
//! case's type, builds its request from the arguments and shapes its
//! outcome); the few that need more of the call (a confirmation, a
//! background start) write their own handler ([`McpTool`]). The registry (`tools/mod.rs`)
//! lists them; the server lists and calls them through [`Entry`], never by
//! a name of its own.

use std::future::Future;
use std::pin::Pin;

use rmcp::model::{CallToolResponse, CallToolResult, JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::call::Call;
use super::schema::{input, output, parse_args};
use crate::error::{Error, Result};
use crate::ops::UseCase;

/// What a tool says of itself in `tools/list`.
pub struct Meta {
    pub name: &'static str,
    pub title: &'static str,
    /// Says exactly what the tool touches.
    pub description: &'static str,
    pub effect: Effect,
}

/// What a tool may do: each is one set of the annotation hints.
#[derive(Clone, Copy)]
pub enum Effect {
    /// Reads only; the same call answers the same.
    Reads,
    /// Adds objects and refs in git-evolv's own namespace only (a
    /// proposal): read-only to the client, but each call adds one more.
    Proposes,
    /// Moves the current branch and updates the working tree and index.
    Lands,
    /// Deletes refs in git-evolv's own namespace; dropping twice drops once.
    Drops,
    /// Proposes, then puts paths of the working tree and index back to HEAD
    /// (no branch moves).
    Stashes,
    /// Runs the configured validation command in git-evolv's own
    /// worktrees and stores its verdict under refs/evolv/ (no branch moves).
    Runs,
}

impl Effect {
    /// `(readOnlyHint, destructiveHint, idempotentHint)`.
    const fn hints(self) -> (bool, bool, bool) {
        match self {
            Effect::Reads => (true, false, true),
            Effect::Proposes => (true, false, false),
            Effect::Lands => (false, true, false),
            Effect::Drops => (false, true, true),
            Effect::Stashes => (false, true, false),
            Effect::Runs => (false, false, false),
        }
    }
}

/// Added to the description of every tool that proposes: what "read-only"
/// means for it.
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

/// One MCP tool. Most are a [`SessionTool`]; this trait is for the
/// handlers that need more of the call (a confirmation, no session).
pub trait McpTool: 'static {
    const META: Meta;
    /// The arguments; their schema is the tool's `inputSchema`.
    type Args: DeserializeOwned + JsonSchema + Send;
    /// The success's `structuredContent`; its schema is the `outputSchema`.
    type Output: Serialize + JsonSchema + Send;

    /// Parses the call's arguments; a bad one is `invalid_input` naming
    /// the field at fault.
    fn parse(arguments: Option<JsonObject>) -> Result<Self::Args> {
        parse_args(Self::META.name, arguments)
    }

    /// Checks what only a client is refused, calls the use case and shapes
    /// its outcome; an `Err` becomes the error result.
    fn run(
        call: &Call,
        args: Self::Args,
    ) -> impl Future<Output = Result<Reply<Self::Output>>> + Send;
}

/// A tool that is one use case: its arguments are checked, the use case's
/// request is built from them and run in a session opened as the use case
/// says (on a blocking thread, with the call's progress sink and
/// cancellation flag), and its outcome is shaped into the output.
pub trait SessionTool: 'static {
    const META: Meta;
    /// The arguments; their schema is the tool's `inputSchema`.
    type Args: DeserializeOwned + JsonSchema + Send + 'static;
    /// The output; its schema is the `outputSchema`.
    type Output: Serialize + JsonSchema + Send + 'static;
    /// The use case the tool runs.
    type UseCase: UseCase<Outcome: Send + 'static> + Send + 'static;

    /// As [`McpTool::parse`].
    fn parse(arguments: Option<JsonObject>) -> Result<Self::Args> {
        parse_args(Self::META.name, arguments)
    }

    /// What only a client is refused, before the repository is opened.
    fn check(_args: &Self::Args) -> Result<()> {
        Ok(())
    }

    /// The use case's request, from the arguments.
    fn use_case(args: &Self::Args) -> Self::UseCase;

    /// The use case's outcome as the tool's output (some tools cap a
    /// diff, or count what they cut).
    fn output(args: Self::Args, outcome: Outcome<Self>) -> Result<Self::Output>;
}

/// The outcome of the use case tool `T` runs.
pub type Outcome<T> = <<T as SessionTool>::UseCase as UseCase>::Outcome;

impl<T: SessionTool> McpTool for T {
    const META: Meta = <T as SessionTool>::META;
    type Args = <T as SessionTool>::Args;
    type Output = <T as SessionTool>::Output;

    fn parse(arguments: Option<JsonObject>) -> Result<Self::Args> {
        <T as SessionTool>::parse(arguments)
    }

    async fn run(call: &Call, args: Self::Args) -> Result<Reply<Self::Output>> {
        T::check(&args)?;
        // Every call may report progress and be cancelled: a scan or a
        // wait stops at the client's word, a quick read has nothing to say.
        let outcome = call.run(true, T::use_case(&args)).await?;
        T::output(args, outcome).map(Reply::Output)
    }
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
        name: T::META.name,
        describe: describe::<T>,
        call: dispatch::<T>,
    }
}

fn describe<T: McpTool>() -> Tool {
    let Meta {
        name,
        title,
        description,
        effect,
    } = T::META;
    let description = match effect {
        Effect::Proposes => format!("{description} {NAMESPACE_NOTE}"),
        _ => description.to_string(),
    };
    Tool::new(name, description, input::<T::Args>())
        .with_title(title)
        .with_raw_output_schema(output::<T::Output>())
        .with_annotations(annotations(title, effect))
}

fn annotations(title: &str, effect: Effect) -> ToolAnnotations {
    let (read_only, destructive, idempotent) = effect.hints();
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
    failure(serde_json::json!({
        "success": false,
        "error": e.to_body(),
    }))
}

/// An error result: `isError`, its JSON as text only. No
/// `structuredContent`: clients check that against the tool's
/// `outputSchema`, which describes a success, and the TypeScript SDK then
/// throws instead of showing the error (issue 25).
pub fn failure(body: serde_json::Value) -> CallToolResult {
    CallToolResult::error(vec![rmcp::model::ContentBlock::text(body.to_string())])
}
