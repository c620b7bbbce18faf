// A scripted model server on 127.0.0.1 for driving the real agent CLIs
// through real turns with no network: it speaks the three wire protocols
// the agents use,
//   - Anthropic Messages (POST /v1/messages, streamed as SSE) for Claude Code,
//   - OpenAI Responses (POST /v1/responses, streamed as SSE) for Codex,
//   - Gemini generateContent / streamGenerateContent (?alt=sse) for Gemini CLI,
// and plays a script: each user prompt names a turn, and each turn is a
// list of steps (tool calls, then a final text). Which step to play is read
// from the conversation itself (how many model replies follow the turn's
// prompt), so the server keeps no state between requests and a CLI that
// retries a request gets the same answer.
//
// A step is { tool: "<kind>", args: {...} } or { text: "..." }. The kinds
// are abstract ("read", "edit", "write", "shell") and each protocol maps
// them onto the tool names the agent offered in that request, so a script
// says "edit this file" once for all three agents.
import http from "node:http";

/// Starts the server; resolves to { url, port, requests, close }.
/// `script(prompt)` returns the steps of the turn a prompt starts.
export function startModelServer(script, { log } = {}) {
  const requests = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let body = null;
      try {
        body = raw ? JSON.parse(raw) : null;
      } catch {
        body = null;
      }
      const entry = { method: req.method, url: req.url, body };
      requests.push(entry);
      if (log) log(`${req.method} ${req.url} ${raw.length}B`);
      try {
        route(req, res, body, script, entry);
      } catch (e) {
        entry.error = String(e && e.stack || e);
        if (log) log(`error: ${entry.error}`);
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: String(e) } }));
      }
    });
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolve({
        port,
        url: `http://127.0.0.1:${port}`,
        requests,
        close: () => new Promise((r) => { server.closeAllConnections?.(); server.close(() => r()); }),
      });
    });
  });
}

function route(req, res, body, script, entry) {
  const url = new URL(req.url, "http://x");
  const p = url.pathname;
  if (req.method === "POST" && p.endsWith("/messages/count_tokens")) {
    return json(res, { input_tokens: 100 });
  }
  if (req.method === "POST" && p.endsWith("/messages")) {
    return anthropic(res, body, script, entry);
  }
  if (req.method === "POST" && p.endsWith("/responses")) {
    return responses(res, body, script, entry);
  }
  if (req.method === "POST" && p.includes(":streamGenerateContent")) {
    return gemini(res, body, script, entry, true);
  }
  if (req.method === "POST" && p.includes(":generateContent")) {
    return gemini(res, body, script, entry, false);
  }
  if (req.method === "POST" && p.includes(":countTokens")) {
    return json(res, { totalTokens: 100 });
  }
  if (req.method === "GET" && p.endsWith("/models")) {
    return json(res, { data: [], models: [] });
  }
  entry.unhandled = true;
  res.writeHead(404, { "content-type": "application/json" });
  res.end(JSON.stringify({ error: { message: `scripted server: no route for ${req.method} ${p}` } }));
}

function json(res, value) {
  res.writeHead(200, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
}

function sse(res) {
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    connection: "keep-alive",
  });
  return {
    event: (name, data) => res.write(`event: ${name}\ndata: ${JSON.stringify(data)}\n\n`),
    data: (data) => res.write(`data: ${JSON.stringify(data)}\n\n`),
    end: () => res.end(),
  };
}

/// The step to play: the turn of the newest prompt, and how many model
/// replies already follow it.
function pick(script, prompt, replies) {
  const steps = script(prompt) || [{ text: "ok" }];
  return steps[Math.min(replies, steps.length - 1)];
}

// ---- Anthropic Messages --------------------------------------------------

function anthropicText(content) {
  if (typeof content === "string") return content;
  return (content || []).filter((b) => b.type === "text").map((b) => b.text).join("\n");
}

function anthropic(res, body, script, entry) {
  const messages = body.messages || [];
  const tools = (body.tools || []).map((t) => t.name);
  // A side request (a title, a quota probe) offers no tools: a short text.
  let step = { text: "ok" };
  if (tools.length > 0) {
    let start = -1;
    for (let i = messages.length - 1; i >= 0; i--) {
      const m = messages[i];
      const blocks = Array.isArray(m.content) ? m.content : [{ type: "text", text: m.content }];
      if (m.role === "user" && !blocks.some((b) => b.type === "tool_result")) {
        start = i;
        break;
      }
    }
    const prompt = start >= 0 ? anthropicText(messages[start].content) : "";
    const replies = messages.slice(start + 1).filter((m) => m.role === "assistant").length;
    step = pick(script, prompt, replies);
    entry.prompt = prompt;
  }
  entry.step = step;
  const model = body.model || "claude-sonnet-4-5";
  const id = `msg_${Math.random().toString(16).slice(2)}`;
  const usage = { input_tokens: 10, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const message = { id, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage };
  let block;
  let stop = "end_turn";
  if (step.tool) {
    const { name, input } = claudeTool(step, tools);
    block = { type: "tool_use", id: `toolu_${Math.random().toString(16).slice(2)}`, name, input };
    stop = "tool_use";
  } else {
    block = { type: "text", text: step.text };
  }
  if (!body.stream) {
    return json(res, { ...message, content: [block], stop_reason: stop });
  }
  const s = sse(res);
  s.event("message_start", { type: "message_start", message });
  if (block.type === "text") {
    s.event("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
    s.event("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: block.text } });
  } else {
    s.event("content_block_start", { type: "content_block_start", index: 0, content_block: { ...block, input: {} } });
    s.event("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: JSON.stringify(block.input) } });
  }
  s.event("content_block_stop", { type: "content_block_stop", index: 0 });
  s.event("message_delta", { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 10 } });
  s.event("message_stop", { type: "message_stop" });
  s.end();
}

/// Claude Code's tools: Read, Edit, Write, Bash.
function claudeTool(step, tools) {
  const a = step.args;
  const need = (name) => {
    if (!tools.includes(name)) throw new Error(`Claude Code offered no ${name} tool (offered: ${tools.join(", ")})`);
    return name;
  };
  switch (step.tool) {
    case "read": return { name: need("Read"), input: { file_path: a.path } };
    case "edit": return { name: need("Edit"), input: { file_path: a.path, old_string: a.old, new_string: a.new } };
    case "write": return { name: need("Write"), input: { file_path: a.path, content: a.content } };
    case "shell": return { name: need("Bash"), input: { command: a.command, description: "scripted shell step" } };
    default: throw new Error(`unknown step ${step.tool}`);
  }
}

// ---- OpenAI Responses (Codex) --------------------------------------------

function responsesText(content) {
  if (typeof content === "string") return content;
  return (content || []).filter((c) => c.type === "input_text" || c.type === "output_text" || c.type === "text").map((c) => c.text).join("\n");
}

function responses(res, body, script, entry) {
  const input = body.input || [];
  const tools = (body.tools || []).map((t) => t.name || t.type);
  let start = -1;
  for (let i = input.length - 1; i >= 0; i--) {
    const it = input[i];
    // Codex sends its own context (AGENTS.md, environment) as user
    // messages too; the prompt is the newest user message that is not one.
    if (it.type === "message" && it.role === "user") {
      const text = responsesText(it.content);
      if (!/^<(environment_context|user_instructions|INSTRUCTIONS)/.test(text.trim()) && !text.includes("# AGENTS.md")) {
        start = i;
        break;
      }
    }
  }
  const prompt = start >= 0 ? responsesText(input[start].content) : "";
  const replies = input.slice(start + 1).filter((it) =>
    it.type === "function_call" || it.type === "custom_tool_call" || it.type === "local_shell_call" ||
    (it.type === "message" && it.role === "assistant")).length;
  const step = tools.length > 0 ? pick(script, prompt, replies) : { text: "ok" };
  entry.prompt = prompt;
  entry.step = step;
  const id = `resp_${Math.random().toString(16).slice(2)}`;
  let item;
  if (step.tool) {
    item = codexTool(step, body.tools || []);
  } else {
    item = { type: "message", role: "assistant", id: `msg_${id}`, status: "completed", content: [{ type: "output_text", text: step.text, annotations: [] }] };
  }
  const s = sse(res);
  const response = { id, object: "response", created_at: Math.floor(Date.now() / 1000), status: "in_progress", model: body.model, output: [] };
  s.event("response.created", { type: "response.created", sequence_number: 0, response });
  s.event("response.output_item.added", { type: "response.output_item.added", sequence_number: 1, output_index: 0, item });
  s.event("response.output_item.done", { type: "response.output_item.done", sequence_number: 2, output_index: 0, item });
  s.event("response.completed", {
    type: "response.completed",
    sequence_number: 3,
    response: { ...response, status: "completed", output: [item], usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 10, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 20 } },
  });
  s.end();
}

/// Codex's tools: apply_patch (a freeform custom tool or a function), and
/// its shell (exec_command, shell_command or shell, whichever it offers).
function codexTool(step, tools) {
  const a = step.args;
  const byName = Object.fromEntries(tools.map((t) => [t.name || t.type, t]));
  const callId = `call_${Math.random().toString(16).slice(2)}`;
  const fn = (name, args) => ({ type: "function_call", id: `fc_${callId}`, call_id: callId, name, arguments: JSON.stringify(args), status: "completed" });
  const patch = (text) => {
    const t = byName.apply_patch;
    if (!t) throw new Error(`Codex offered no apply_patch tool (offered: ${Object.keys(byName).join(", ")})`);
    if (t.type === "custom") return { type: "custom_tool_call", id: `ctc_${callId}`, call_id: callId, name: "apply_patch", input: text, status: "completed" };
    return fn("apply_patch", { input: text });
  };
  const shell = (command) => {
    if (byName.exec_command) return fn("exec_command", { cmd: command });
    if (byName.shell_command) return fn("shell_command", { command });
    if (byName.shell) return fn("shell", { command: ["bash", "-lc", command] });
    throw new Error(`Codex offered no shell tool (offered: ${Object.keys(byName).join(", ")})`);
  };
  switch (step.tool) {
    case "read": return shell(`cat ${a.path}`);
    case "edit": {
      const minus = a.old.split("\n").map((l) => `-${l}`).join("\n");
      const plus = a.new.split("\n").map((l) => `+${l}`).join("\n");
      return patch(`*** Begin Patch\n*** Update File: ${a.path}\n@@\n${minus}\n${plus}\n*** End Patch`);
    }
    case "write": {
      const plus = a.content.replace(/\n$/, "").split("\n").map((l) => `+${l}`).join("\n");
      return patch(`*** Begin Patch\n*** Add File: ${a.path}\n${plus}\n*** End Patch`);
    }
    case "shell": return shell(a.command);
    default: throw new Error(`unknown step ${step.tool}`);
  }
}

// ---- Gemini generateContent ----------------------------------------------

function gemini(res, body, script, entry, stream) {
  const contents = body.contents || [];
  const decls = (body.tools || []).flatMap((t) => t.functionDeclarations || []).map((d) => d.name);
  let start = -1;
  for (let i = contents.length - 1; i >= 0; i--) {
    const c = contents[i];
    if (c.role === "user" && (c.parts || []).some((p) => typeof p.text === "string") &&
        !(c.parts || []).some((p) => p.functionResponse)) {
      start = i;
      break;
    }
  }
  const prompt = start >= 0 ? contents[start].parts.filter((p) => typeof p.text === "string").map((p) => p.text).join("\n") : "";
  const replies = contents.slice(start + 1).filter((c) => c.role === "model").length;
  // A side request (the model router, a summary) offers no tools.
  const step = decls.length > 0 ? pick(script, prompt, replies) : { text: "ok" };
  entry.prompt = prompt;
  entry.step = step;
  let part;
  if (step.tool) {
    const { name, args } = geminiTool(step, decls);
    part = { functionCall: { name, args } };
  } else {
    part = { text: step.text };
  }
  const chunk = {
    candidates: [{ content: { role: "model", parts: [part] }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 10, totalTokenCount: 20 },
    modelVersion: "gemini-2.5-flash",
  };
  if (!stream) return json(res, chunk);
  const s = sse(res);
  s.data(chunk);
  s.end();
}

/// Gemini CLI's tools: read_file, replace, write_file, run_shell_command.
function geminiTool(step, decls) {
  const a = step.args;
  const need = (name) => {
    if (!decls.includes(name)) throw new Error(`Gemini CLI offered no ${name} tool (offered: ${decls.join(", ")})`);
    return name;
  };
  switch (step.tool) {
    case "read": return { name: need("read_file"), args: { file_path: a.path } };
    case "edit": return { name: need("replace"), args: { file_path: a.path, old_string: a.old, new_string: a.new, instruction: "scripted edit" } };
    case "write": return { name: need("write_file"), args: { file_path: a.path, content: a.content } };
    case "shell": return { name: need("run_shell_command"), args: { command: a.command, description: "scripted shell step" } };
    default: throw new Error(`unknown step ${step.tool}`);
  }
}

// `node model_server.mjs`: a server that logs every request, for trying a
// CLI by hand (its port on stdout).
if (import.meta.url === `file://${process.argv[1]}`) {
  const srv = await startModelServer(() => [{ text: "hello from the scripted server" }], {
    log: (l) => console.error(l),
  });
  console.log(srv.port);
}
