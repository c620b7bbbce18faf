// Shared by every file of the suite: a scratch repository with git's
// environment sealed off, `git evolv mcp` on it driven by the official
// TypeScript SDK's Client over its StdioClientTransport, and the helpers
// that read a tool result the way a client built on that SDK reads it.
import { execFileSync, spawnSync } from "node:child_process";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";

const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, "../../..");
// run.mjs passes the binary from its argv as GIT_EVOLV_BIN.
export const BIN = path.resolve(process.env.GIT_EVOLV_BIN || path.join(root, "target/debug/git-evolv"));

/// A repository in a temp dir holding `files` (path -> content) in one
/// commit on `main`; `links` (path -> target) are committed as symlinks.
export function makeRepo(files, links = {}) {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "evolv-ts-")));
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "evolv-ts-home-"));
  const env = {
    PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: path.join(home, ".gitconfig"), TZ: "UTC", LC_ALL: "C", GIT_EDITOR: ":",
  };
  const git = (...args) => execFileSync("git", args, { cwd: dir, env, encoding: "utf8" }).trim();
  git("init", "-q", "-b", "main");
  git("config", "user.name", "E2E");
  git("config", "user.email", "e2e@example.com");
  const write = (p, content) => {
    fs.mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
    fs.writeFileSync(path.join(dir, p), content);
  };
  for (const [p, content] of Object.entries(files)) write(p, content);
  for (const [p, target] of Object.entries(links)) {
    fs.mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
    fs.symlinkSync(target, path.join(dir, p));
  }
  git("add", "-A");
  git("commit", "-qm", "initial");
  /// `git evolv ARGS --json`, parsed, whatever the exit code.
  const evolvJson = (...args) => {
    const r = spawnSync(BIN, [...args, "--json"], { cwd: dir, env, encoding: "utf8", maxBuffer: 1 << 28 });
    return { status: r.status, json: r.stdout.trim() ? JSON.parse(r.stdout) : null, stderr: r.stderr };
  };
  /// A proposal made through the CLI, so that a tool's test does not
  /// depend on another tool working.
  const propose = (pattern, replacement, ...more) => {
    const r = evolvJson("propose", "--pattern", pattern, "--replacement", replacement, ...more);
    assert.equal(r.status, 0, `CLI propose failed: ${r.stderr}`);
    return r.json.patch_id;
  };
  const read = (p) => fs.readFileSync(path.join(dir, p), "utf8");
  const cleanup = () => {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  };
  return { dir, home, env, git, evolvJson, propose, read, write, cleanup };
}

/// `git evolv mcp --repo <repo>` behind the SDK's Client, tools listed
/// first (that is when the SDK caches each tool's output-schema validator,
/// so every later callTool checks structuredContent as real clients do).
/// `handlers(client)` may set request handlers (elicitation) before connecting.
export async function connect(repo, capabilities = {}, handlers = null) {
  const transport = new StdioClientTransport({
    command: BIN,
    args: ["mcp", "--repo", repo.dir],
    env: repo.env,
    cwd: repo.dir,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d) => { stderr += d; });
  const client = new Client({ name: "git-evolv-ts-e2e", version: "1.0.0" }, { capabilities });
  if (handlers) handlers(client);
  await client.connect(transport);
  const { tools } = await client.listTools();
  const close = async () => { await client.close(); };
  return { client, tools, close, stderr: () => stderr };
}

/// Calls a tool exactly as the SDK's callTool does. A thrown error (the
/// SDK's -32602 "Structured content does not match the tool's output
/// schema", or a JSON-RPC error) fails the test with the SDK's own words.
/// The failure names what the server sent underneath (the same call
/// repeated without the SDK's check), so a report shows both.
export async function call(client, name, args) {
  try {
    return await client.callTool({ name, arguments: args });
  } catch (err) {
    let raw = "";
    try {
      const r = await client.request({ method: "tools/call", params: { name, arguments: args } }, CallToolResultSchema);
      raw = `; the server sent isError=${r.isError} ${r.content?.[0]?.text?.slice(0, 400)}`;
    } catch (again) {
      raw = `; the call again without the SDK's check threw too: ${again.message}`;
    }
    assert.fail(`callTool(${name}, ${JSON.stringify(args)}) threw: ${err.code ?? ""} ${err.message}${raw}`);
  }
}

/// The JSON of a result's first text block.
export function textJson(result) {
  assert.ok(result.content?.length > 0 && result.content[0].type === "text", "the result has a text block");
  return JSON.parse(result.content[0].text);
}

/// A successful result's JSON (its text; structuredContent must agree
/// where the server sends it).
export function ok(result, what) {
  const body = textJson(result);
  assert.notEqual(result.isError, true, `${what}: isError with ${result.content[0].text}`);
  if (result.structuredContent !== undefined) assert.deepEqual(result.structuredContent, body, "text equals structuredContent");
  return body;
}

/// A failed result's error object: isError true, the text JSON carries
/// error.code, error.message and error.hint.
export function toolError(result, code) {
  assert.equal(result.isError, true, `isError true (got ${result.content?.[0]?.text})`);
  const body = textJson(result);
  assert.equal(body.success, false, "success false");
  assert.equal(typeof body.error?.code, "string", "error.code");
  assert.equal(typeof body.error?.message, "string", "error.message");
  assert.ok("hint" in body.error, "error.hint");
  if (code) assert.equal(body.error.code, code, `error code (message: ${body.error.message})`);
  return body.error;
}

/// Runs `fn(repo, mcp)` with a fresh repository and server, and cleans up.
export async function withServer(files, fn, { links, capabilities, handlers, setup } = {}) {
  const repo = makeRepo(files, links);
  let mcp;
  try {
    if (setup) setup(repo);
    mcp = await connect(repo, capabilities, handlers);
    return await fn(repo, mcp);
  } finally {
    if (mcp) await mcp.close();
    repo.cleanup();
  }
}

/// The shape of a JSON value: its keys and the kinds of their values,
/// recursively (arrays by their first element), values left out.
export function shape(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return value.length ? [shape(value[0])] : [];
  if (typeof value === "object") {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, shape(value[k])]));
  }
  return typeof value;
}
