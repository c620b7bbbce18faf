// Issue 25, items 1 and 9: every tool error reaches a TypeScript SDK
// client as a result with isError true whose text is the CLI's JSON error
// ({success: false, error: {code, message, hint}}), not as the SDK's thrown
// -32602 "Structured content does not match the tool's output schema".
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { withServer, call, toolError } from "./harness.mjs";
import { FILES } from "./fixtures.mjs";

test("a missing argument is invalid_input naming it", () => withServer(FILES, async (repo, { client }) => {
  const e = toolError(await call(client, "propose_edit", { replacement: "fetchUserData" }), "invalid_input");
  assert.match(e.message, /pattern/);
}));

test("a wrong-typed argument is invalid_input naming it", () => withServer(FILES, async (repo, { client }) => {
  const e = toolError(await call(client, "read_file", { path: 42 }), "invalid_input");
  assert.match(e.message, /path/);
}));

test("an unknown id is patch_not_found with the CLI's message", () => withServer(FILES, async (repo, { client }) => {
  const e = toolError(await call(client, "apply_edit", { patch_id: "invalid_patch" }), "patch_not_found");
  assert.equal(e.message, "Patch 'invalid_patch' not found");
  const s = toolError(await call(client, "show_proposal", { patch_id: "invalid_patch" }), "patch_not_found");
  assert.equal(s.message, "Patch 'invalid_patch' not found");
}));

test("a pattern that matches nothing is no_match", () => withServer(FILES, async (repo, { client }) => {
  toolError(await call(client, "propose_edit", { pattern: "noSuchName", replacement: "x", scope: ["backend/**"] }), "no_match");
  assert.equal(repo.git("for-each-ref", "refs/evolv/proposals/"), "", "nothing stored");
}));

test("an edit whose old text is absent is no_match", () => withServer(FILES, async (repo, { client }) => {
  toolError(await call(client, "edit", { edits: [{ op: "replace", path: "a.txt", old: "four", new: "4" }] }), "no_match");
}));

test("a path with .. is refused", () => withServer(FILES, async (repo, { client }) => {
  const r = toolError(await call(client, "read_file", { path: "../x" }), "invalid_input");
  assert.match(r.message, /path/);
  toolError(await call(client, "glob", { pattern: "*", path: "../x" }), "invalid_input");
}));

test("a symlink to / given as glob path is refused as the CLI refuses it", () => withServer(FILES, async (repo, { client }) => {
  const cli = repo.evolvJson("glob", "*", "--path", "x");
  assert.notEqual(cli.status, 0, "the CLI refuses a path through a symlink");
  const e = toolError(await call(client, "glob", { pattern: "*", path: "x" }), cli.json.error.code);
  assert.match(e.message, /\bx\b/, "the message names the path");
}, { links: { x: "/" } }));

// main is a protected branch by default, so apply_edit asks first.
test("a declined confirmation is cancelled, and nothing lands", () => withServer(FILES, async (repo, { client }) => {
  const id = repo.propose("getUserData", "fetchUserData");
  const head = repo.git("rev-parse", "HEAD");
  toolError(await call(client, "apply_edit", { patch_id: id }), "cancelled");
  assert.equal(repo.git("rev-parse", "HEAD"), head);
  assert.match(fs.readFileSync(path.join(repo.dir, "backend/user.go"), "utf8"), /getUserData/);
}, {
  capabilities: { elicitation: {} },
  handlers: (client) => client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "decline" })),
}));

// Issue 25, item 9: every path-taking argument of every tool resolves as
// the CLI resolves it; `..` and a path through a symlink are refused. A
// glob or scope is matched over the tree, where a symlink is one file and
// nothing is reached through it, so only `..` is tried there.
const ESCAPES = [
  ["read_file", "path", (p) => ({ path: `${p}/etc/hostname` }), true],
  ["glob", "path", (p) => ({ pattern: "*", path: p }), true],
  ["glob", "pattern", (p) => ({ pattern: `${p}/*` }), false],
  ["propose_edit", "scope", (p) => ({ pattern: "root", replacement: "x", scope: [`${p}/**`] }), false],
  ["edit", "edits[0].path", (p) => ({ edits: [{ op: "write", path: `${p}/new.txt`, content: "x\n" }] }), true],
  ["notebook_edit", "path", (p) => ({ path: `${p}/nb.ipynb`, mode: "delete", cell: 0 }), true],
];
for (const [tool, field, args, throughLink] of ESCAPES) {
  for (const p of throughLink ? ["../x", "x"] : ["../x"]) {
    test(`${tool} ${field} ${p === "x" ? "through a symlink to /" : "with .."} is refused`, () => withServer(FILES, async (repo, { client }) => {
      const e = toolError(await call(client, tool, args(p)));
      assert.ok(["invalid_input", "unsafe_path"].includes(e.code), `refused as invalid_input or unsafe_path, not ${e.code}: ${e.message}`);
      assert.equal(repo.git("for-each-ref", "refs/evolv/proposals/"), "", "nothing stored");
    }, { links: { x: "/" } }));
  }
}
