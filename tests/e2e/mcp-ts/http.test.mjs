// `git evolv mcp --http` (issue 43 item 5) with the TypeScript SDK's
// Streamable HTTP client: the token (printed once, kept 0600), the review
// page's Host and Origin rules, a 2025-11-25 session (Mcp-Session-Id) with
// tools, resources, completions, logging and a subscription told of a
// change the CLI makes; and a stateless 2026-07-28 request.
import { spawn } from "node:child_process";
import assert from "node:assert/strict";
import fs from "node:fs";
import test from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { BIN, makeRepo, ok } from "./harness.mjs";

/// Starts the server on a free port; resolves with its `--json` line.
function start(repo) {
  const child = spawn(BIN, ["mcp", "--http", "127.0.0.1:0", "--json"], {
    cwd: repo.dir, env: repo.env, stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stderr.on("data", (d) => { err += d; });
    child.stdout.on("data", (d) => {
      out += d;
      // The --json object is printed whole, over several lines.
      try {
        resolve({ child, info: JSON.parse(out) });
      } catch {
        // not all of it yet
      }
    });
    child.on("exit", (code) => reject(new Error(`mcp --http exited with ${code}: ${err}`)));
  });
}

function stop(child) {
  return new Promise((resolve) => {
    child.once("exit", resolve);
    child.kill("SIGTERM");
  });
}

const post = (url, headers, body) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(body),
  });

test("mcp --http: the token, Host and Origin, a session with resources and a subscription, stateless 2026-07-28", async () => {
  const repo = makeRepo({ "a.py": "x = 1\n" });
  let server;
  try {
    const id = repo.propose("x = 1", "x = 2");
    server = await start(repo);
    const { url, token_file: file, token } = server.info;
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    assert.match(token, /^[0-9a-f]{64}$/, "a first start shows the new token");
    assert.equal(file, `${repo.dir}/.git/evolv/mcp-http-token`);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.equal(fs.readFileSync(file, "utf8").trim(), token);

    // The guard: no token, a foreign Host, a foreign Origin.
    const init = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } };
    const noToken = await post(url, {}, init);
    assert.equal(noToken.status, 401);
    assert.match(noToken.headers.get("www-authenticate"), /^Bearer/);
    const wrong = await post(url, { authorization: "Bearer " + "0".repeat(64) }, init);
    assert.equal(wrong.status, 401);
    const port = new URL(url).port;
    const auth = { authorization: `Bearer ${token}` };
    // fetch will not forge Host; node:http does.
    const http = await import("node:http");
    const status = await new Promise((resolve, reject) => {
      const req = http.request({ host: "127.0.0.1", port, path: "/mcp", method: "POST", headers: { host: `evil.example:${port}`, ...auth, "content-type": "application/json", accept: "application/json, text/event-stream" } }, (res) => { res.resume(); resolve(res.statusCode); });
      req.on("error", reject);
      req.end(JSON.stringify(init));
    });
    assert.equal(status, 403, "a foreign Host is refused (DNS rebinding)");
    const foreign = await post(url, { ...auth, origin: "http://evil.example" }, init);
    assert.equal(foreign.status, 403, "a foreign Origin is refused");

    // A 2025-11-25 session through the SDK's HTTP client.
    const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: auth } });
    const client = new Client({ name: "git-evolv-http-e2e", version: "1.0.0" });
    await client.connect(transport);
    assert.match(transport.sessionId ?? "", /\S+/, "the server gives an Mcp-Session-Id");
    const caps = client.getServerCapabilities();
    assert.deepEqual(caps.resources, { subscribe: true, listChanged: true });
    assert.ok(caps.completions && caps.logging && caps.tools);
    const tools = (await client.listTools()).tools.map((t) => t.name);
    assert.ok(tools.includes("propose_edit") && tools.includes("apply_edit"));
    const listed = ok(await client.callTool({ name: "list_proposals", arguments: {} }), "list_proposals");
    assert.deepEqual(listed.proposals.map((p) => p.patch_id), [id]);

    const resources = (await client.listResources()).resources.map((r) => r.uri);
    assert.deepEqual(resources, ["evolv://proposals", "evolv://ops", "evolv://verdicts", `evolv://proposals/${id}`]);
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    assert.ok(templates.includes("evolv://proposals/{patch_id}/diff{?page}"));
    const diff = await client.readResource({ uri: `evolv://proposals/${id}/diff` });
    assert.equal(diff.contents[0].mimeType, "text/x-diff");
    assert.match(diff.contents[0].text, /^-x = 1\n\+x = 2$/m);
    assert.deepEqual(diff.contents[0]._meta["evolv/page"], { page: 1, pages: 1, total_bytes: diff.contents[0].text.length, next: null });
    const summary = JSON.parse((await client.readResource({ uri: `evolv://proposals/${id}` })).contents[0].text);
    assert.equal(summary.status, "pending");
    assert.equal(summary.patch_id, id);
    assert.equal(summary.unified_diff, undefined, "the summary leaves the diff to its own resource");
    assert.equal(summary.diff, `evolv://proposals/${id}/diff`);
    await assert.rejects(client.readResource({ uri: "evolv://proposals/patch_0_nope" }), /not found/);
    await assert.rejects(client.readResource({ uri: "file:///etc/passwd" }), /not found/);

    const done = await client.complete({ ref: { type: "ref/resource", uri: "evolv://proposals/{patch_id}" }, argument: { name: "patch_id", value: "patch_" } });
    assert.deepEqual(done.completion.values, [id]);
    const none = await client.complete({ ref: { type: "ref/resource", uri: "evolv://proposals/{patch_id}" }, argument: { name: "patch_id", value: "zzz" } });
    assert.deepEqual(none.completion.values, []);
    await client.setLoggingLevel("info");

    // A subscription hears of a change another process makes.
    const updated = new Promise((resolve) => {
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => resolve(n.params.uri));
    });
    await client.subscribeResource({ uri: `evolv://proposals/${id}` });
    const dropped = repo.evolvJson("drop", id);
    assert.equal(dropped.status, 0, dropped.stderr);
    const uri = await Promise.race([updated, new Promise((_, no) => setTimeout(() => no(new Error("no notifications/resources/updated within 10 s")), 10_000))]);
    assert.equal(uri, `evolv://proposals/${id}`);
    await client.close();

    // 2026-07-28: one stateless request, no session.
    const meta = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}, "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" } };
    const stateless = await post(url, { ...auth, "mcp-protocol-version": "2026-07-28", "mcp-method": "resources/templates/list" }, { jsonrpc: "2.0", id: 7, method: "resources/templates/list", params: { _meta: meta } });
    assert.equal(stateless.status, 200);
    assert.equal(stateless.headers.get("mcp-session-id"), null, "no session on 2026-07-28");
    const text = await stateless.text();
    const body = JSON.parse(text.startsWith("{") ? text : text.split("\n").filter((l) => l.startsWith("data: {")).pop().slice(6));
    assert.equal(body.result.cacheScope, "public");
    assert.equal(typeof body.result.ttlMs, "number");

    // A restart keeps the token and does not show it again.
    await stop(server.child);
    server = await start(repo);
    assert.equal(server.info.token, null);
    assert.equal(fs.readFileSync(file, "utf8").trim(), token);
  } finally {
    if (server) await stop(server.child);
    repo.cleanup();
  }
});
