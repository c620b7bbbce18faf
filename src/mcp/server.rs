//! The MCP server: `tools/list` from the registry, `tools/call` dispatched
//! to the registry's entry of that name (which parses the arguments, runs
//! the tool's handler and renders its outcome or error).

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CustomRequest, CustomResult, ErrorCode,
    ListToolsResult, PaginatedRequestParams, ProtocolVersion, ResultType, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, tool_handler};

use super::call::{Call, PendingMap};
use super::tool::{Entry, error_result};
use super::tools::REGISTRY;

/// The server of one repository, fixed at start.
#[derive(Clone)]
pub struct EvolvServer {
    dir: Arc<PathBuf>,
    /// Confirmations asked through an input-required result (2026-07-28),
    /// keyed by the request state handed out: the retried call is checked
    /// against what is recorded here, never against the client's word.
    pending: PendingMap,
}

impl EvolvServer {
    pub fn new(dir: PathBuf) -> Self {
        EvolvServer {
            dir: Arc::new(dir),
            pending: Arc::default(),
        }
    }
}

#[tool_handler(
    name = "git-evolv",
    instructions = "git-evolv: propose edits as git commits (propose_edit), review them (show_proposal), apply them with validation (apply_edit) and undo them (rollback). Proposing and reading never touch the working tree or any branch."
)]
impl ServerHandler for EvolvServer {
    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListToolsResult, ErrorData> {
        let cache_hints = context
            .protocol_version()
            .is_some_and(|v| v >= ProtocolVersion::V_2026_07_28);
        Ok(ListToolsResult {
            result_type: Some(ResultType::COMPLETE),
            tools: all().to_vec(),
            meta: None,
            next_cursor: None,
            ttl_ms: cache_hints.then_some(0),
            cache_scope: cache_hints.then_some(CacheScope::Public),
        })
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        all().iter().find(|t| t.name == name).cloned()
    }

    /// A request for a method we serve whose params did not parse (a
    /// `tools/call` without `name`, `arguments` that are not an object)
    /// reaches here as a custom request: it is malformed, -32602.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<CustomResult, ErrorData> {
        let method = request.method;
        if method.starts_with("tools/") || method == "initialize" || method == "ping" {
            return Err(ErrorData::invalid_params(
                format!(
                    "malformed {method} request: {}",
                    if method == "tools/call" {
                        "params must be an object with `name` (a string) and optional `arguments` (an object)"
                    } else {
                        "its params do not match the MCP schema"
                    }
                ),
                None,
            ));
        }
        Err(ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("unknown method '{method}'"),
            None,
        ))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<CallToolResponse, ErrorData> {
        let Some(entry) = find(&request.name) else {
            let names: Vec<&str> = REGISTRY.iter().map(|e| e.name).collect();
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool '{}'; tools/list names the tools of git-evolv: {}",
                    request.name,
                    names.join(", ")
                ),
                None,
            ));
        };
        let call = Call::new(self.dir.clone(), self.pending.clone(), request, context);
        match (entry.call)(&call).await {
            Ok(response) => Ok(response),
            Err(e) => Ok(error_result(&e).into()),
        }
    }
}

/// The registry's entry named `name`.
fn find(name: &str) -> Option<&'static Entry> {
    REGISTRY.iter().find(|e| e.name == name)
}

/// Every tool, as `tools/list` returns it (schemas generated once).
fn all() -> &'static [Tool] {
    static TOOLS: OnceLock<Vec<Tool>> = OnceLock::new();
    TOOLS.get_or_init(|| REGISTRY.iter().map(|e| (e.describe)()).collect())
}
