//! The MCP server: `tools/list` from the registry, `tools/call` dispatched
//! to the registry's entry of that name (which parses the arguments, runs
//! the tool's handler and renders its outcome or error); resources,
//! completions, subscriptions and logging each delegate to their module.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use rmcp::model::{
    CacheScope, CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult,
    CustomRequest, CustomResult, ErrorCode, Implementation, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ProtocolVersion,
    ReadResourceRequestParams, ReadResourceResponse, ResultType, ServerCapabilities, ServerConfig,
    SubscribeRequestParams, SubscriptionFilter, Tool, UnsubscribeRequestParams,
};
use rmcp::service::{RequestContext, SubscriptionContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};

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
    /// This connection's `resources/subscribe` subscriptions.
    subscriptions: Arc<super::subscribe::Subscriptions>,
    /// The level `logging/setLevel` asked for on this connection.
    pub(super) log_level: super::logging::LogLevel,
}

impl EvolvServer {
    pub fn new(dir: PathBuf) -> Self {
        EvolvServer {
            dir: Arc::new(dir),
            pending: Arc::default(),
            subscriptions: Arc::default(),
            log_level: Default::default(),
        }
    }
}

const INSTRUCTIONS: &str = "git-evolv: propose edits as git commits (propose_edit), review them (show_proposal), apply them with validation (apply_edit) and undo them (rollback). Proposing and reading never touch the working tree or any branch. Resources under evolv:// hold the proposals, their diffs (paged), stacks, verdicts and comments, and the op log.";

// The SDK marks logging deprecated (SEP-2577); 2025-11-25 clients use it.
#[allow(deprecated)]
impl ServerHandler for EvolvServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_resources_subscribe()
            .enable_resources_list_changed()
            .enable_completions()
            .enable_logging()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("git-evolv", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS.to_string())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListResourcesResult, ErrorData> {
        super::resources::list(&self.dir, &context).await
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListResourceTemplatesResult, ErrorData> {
        Ok(super::resources::templates(&context))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<ReadResourceResponse, ErrorData> {
        super::resources::read(&self.dir, request, &context)
            .await
            .map(Into::into)
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<(), ErrorData> {
        self.subscriptions
            .subscribe(&self.dir, &request.uri, &context.peer)
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<(), ErrorData> {
        self.subscriptions.unsubscribe(&request.uri);
        Ok(())
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(super::subscribe::accepted(requested))
    }

    async fn listen(&self, context: SubscriptionContext) -> std::result::Result<(), ErrorData> {
        super::subscribe::listen(&self.dir, context).await
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<CompleteResult, ErrorData> {
        super::completion::complete(&self.dir, request).await
    }

    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<(), ErrorData> {
        self.log_level.set(&request);
        Ok(())
    }

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
        context: RequestContext<RoleServer>,
    ) -> std::result::Result<CustomResult, ErrorData> {
        let method = request.method;
        // 2026-07-28 removed the handshake and ping: unknown there (-32601).
        let removed =
            matches!(method.as_str(), "initialize" | "ping") && super::resources::is_2026(&context);
        if !removed && (method.starts_with("tools/") || method == "initialize" || method == "ping")
        {
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
        let level = self.log_level.for_request(&context);
        let peer = context.peer.clone();
        let call = Call::new(self.dir.clone(), self.pending.clone(), request, context)
            .with_log_level(level);
        let response = match (entry.call)(&call).await {
            Ok(response) => response,
            Err(e) => error_result(&e).into(),
        };
        super::logging::warnings(level, &peer, &response).await;
        Ok(response)
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
