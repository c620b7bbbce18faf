//! A minimal MCP client for the protocol tests: spawns the real
//! `git-evolv mcp` in a test repository and speaks JSON-RPC over its stdio,
//! one frame per line. Every stdout line must be a JSON-RPC frame.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

use super::common::{BIN, TestRepo, sealed};

pub struct Mcp {
    child: Child,
    stdin: Option<ChildStdin>,
    rx: Receiver<Value>,
    next_id: i64,
    /// Notifications received so far (progress, ...).
    pub notifications: Vec<Value>,
    /// Requests the server sent us (elicitation), in order.
    pub server_requests: Vec<Value>,
    /// The result we answer an `elicitation/create` with.
    pub elicit_answer: Value,
    /// Responses to requests nobody waited for (a cancelled call).
    pub stray: Vec<Value>,
}

impl Mcp {
    /// Starts the server in `repo` (not yet initialised).
    pub fn spawn(repo: &TestRepo) -> Self {
        Self::spawn_args(repo, &["mcp"])
    }

    pub fn spawn_args(repo: &TestRepo, args: &[&str]) -> Self {
        Self::spawn_env(repo, args, &[])
    }

    /// Starts the server with extra environment (`git -c` reaches an
    /// external command as GIT_CONFIG_COUNT/KEY/VALUE or PARAMETERS).
    pub fn spawn_env(repo: &TestRepo, args: &[&str], env: &[(&str, &str)]) -> Self {
        let mut child = sealed(BIN, repo.home())
            .args(args)
            .envs(env.iter().copied())
            .current_dir(repo.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn git-evolv mcp");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                let frame: Value = serde_json::from_str(&line)
                    .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"));
                assert_eq!(frame["jsonrpc"], "2.0", "not a JSON-RPC frame: {line}");
                if tx.send(frame).is_err() {
                    return;
                }
            }
        });
        Mcp {
            stdin: child.stdin.take(),
            child,
            rx,
            next_id: 0,
            notifications: Vec::new(),
            server_requests: Vec::new(),
            elicit_answer: json!({"action": "accept", "content": {"confirm": true}}),
            stray: Vec::new(),
        }
    }

    /// Starts and initialises a 2025-11-25 session with `capabilities`.
    pub fn start_with(repo: &TestRepo, capabilities: Value) -> Self {
        Self::initialize(Self::spawn(repo), capabilities)
    }

    /// Initialises a 2025-11-25 session on a spawned server.
    pub fn initialize(mut mcp: Self, capabilities: Value) -> Self {
        let init = mcp.request(
            "initialize",
            json!({
                "protocolVersion": "2025-11-25",
                "capabilities": capabilities,
                "clientInfo": {"name": "evolv-tests", "version": "1"}
            }),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "git-evolv", "{init}");
        mcp.notify("notifications/initialized", json!({}));
        mcp
    }

    /// A client that declares no capabilities (cannot be asked).
    pub fn start(repo: &TestRepo) -> Self {
        Self::start_with(repo, json!({}))
    }

    pub fn send(&mut self, frame: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{frame}").unwrap();
        stdin.flush().unwrap();
    }

    pub fn send_raw(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request; returns its id.
    pub fn send_request(&mut self, method: &str, params: Value) -> i64 {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        id
    }

    /// The next frame, answering server requests on the way.
    pub fn next_frame(&mut self) -> Value {
        loop {
            let frame = self
                .rx
                .recv_timeout(Duration::from_secs(120))
                .expect("the server answered within 120 s");
            if frame.get("method").is_some() && frame.get("id").is_some() {
                let answer =
                    json!({"jsonrpc": "2.0", "id": frame["id"], "result": self.elicit_answer});
                self.server_requests.push(frame);
                self.send(&answer);
                continue;
            }
            return frame;
        }
    }

    /// Waits for the response to request `id`.
    pub fn response(&mut self, id: i64) -> Value {
        loop {
            let frame = self.next_frame();
            if frame.get("id") == Some(&json!(id)) {
                return frame;
            }
            if frame.get("method").is_some() {
                self.notifications.push(frame);
            } else {
                // A late answer to an earlier (cancelled) request.
                self.stray.push(frame);
            }
        }
    }

    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send_request(method, params);
        self.response(id)
    }

    /// `tools/call`; returns the result (panics on a JSON-RPC error).
    pub fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let response = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        assert!(
            response.get("error").is_none(),
            "JSON-RPC error: {response}"
        );
        response["result"].clone()
    }

    /// A successful call's structuredContent, checked against the text copy.
    #[track_caller]
    pub fn call_ok(&mut self, tool: &str, arguments: Value) -> Value {
        let result = self.call(tool, arguments);
        assert_eq!(result["isError"], false, "{tool}: isError: {result}");
        check_text_copy(&result);
        result["structuredContent"].clone()
    }

    /// A failed call's `error` object.
    #[track_caller]
    pub fn call_err(&mut self, tool: &str, arguments: Value) -> Value {
        let result = self.call(tool, arguments);
        let body = error_body(&result);
        assert_eq!(body["success"], false, "{result}");
        body["error"].clone()
    }

    pub fn tools(&mut self) -> Vec<Value> {
        let r = self.request("tools/list", json!({}));
        r["result"]["tools"].as_array().unwrap().clone()
    }

    /// Closes stdin; the server must exit 0.
    pub fn finish(mut self) {
        self.stdin.take();
        let status = self.child.wait().unwrap();
        assert!(status.success(), "server exit: {status}");
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An error result's JSON: `isError`, the JSON as text only, and no
/// `structuredContent` (a client checks that against the outputSchema of
/// a success and, in the TypeScript SDK, throws instead: issue 25).
#[track_caller]
pub fn error_body(result: &Value) -> Value {
    assert_eq!(result["isError"], true, "should fail: {result}");
    assert!(result.get("structuredContent").is_none(), "{result}");
    let text = result["content"][0]["text"].as_str().expect("a text copy");
    serde_json::from_str(text).expect("the error text is JSON")
}

/// The text content is the same JSON as structuredContent.
#[track_caller]
pub fn check_text_copy(result: &Value) {
    let text = result["content"][0]["text"].as_str().expect("a text copy");
    let parsed: Value = serde_json::from_str(text).expect("the text copy is JSON");
    assert_eq!(parsed, result["structuredContent"]);
    assert!(result["structuredContent"].is_object());
}

/// `schema` with `additionalProperties: false` on every object that lists
/// properties, so a payload with a field the schema does not declare fails.
pub fn strict(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => {
            let mut out = serde_json::Map::new();
            for (k, v) in map {
                let v = match k.as_str() {
                    "properties" => Value::Object(
                        v.as_object()
                            .unwrap()
                            .iter()
                            .map(|(p, s)| (p.clone(), strict(s)))
                            .collect(),
                    ),
                    "enum" | "const" | "default" | "required" => v.clone(),
                    _ => strict(v),
                };
                out.insert(k.clone(), v);
            }
            if map.contains_key("properties") && !map.contains_key("additionalProperties") {
                out.insert("additionalProperties".into(), Value::Bool(false));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(strict).collect()),
        other => other.clone(),
    }
}

/// Validates a success payload against the tool's output schema, strictly.
#[track_caller]
pub fn assert_matches_output_schema(tools: &[Value], tool: &str, payload: &Value) {
    let schema = tools
        .iter()
        .find(|t| t["name"] == tool)
        .unwrap_or_else(|| panic!("no tool {tool}"))["outputSchema"]
        .clone();
    let validator =
        jsonschema::validator_for(&strict(&schema)).expect("the output schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(payload)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect();
    assert!(
        errors.is_empty(),
        "{tool} payload does not match its output schema: {errors:?}\n{payload}"
    );
}
