// Issue 25, item 3, as the MCP Inspector CLI shows it: the Inspector maps
// `--tool-arg start_line=1` to a number only where the input schema's type
// is "integer"; for a type it cannot map (["integer", "null"]) it sends the
// string "1". Either way the call must succeed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { makeRepo, BIN } from "./harness.mjs";
import { FILES } from "./fixtures.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));

test("the MCP Inspector CLI reads a file from line 1", () => {
  const repo = makeRepo(FILES);
  try {
    const r = spawnSync("npx", [
      "--no-install", "mcp-inspector", "--cli", BIN, "mcp", "--repo", repo.dir,
      "--method", "tools/call", "--tool-name", "read_file",
      "--tool-arg", "path=a.txt", "--tool-arg", "start_line=1",
    ], { cwd: here, env: { ...repo.env, npm_config_update_notifier: "false" }, encoding: "utf8", timeout: 120000 });
    assert.equal(r.status, 0, `mcp-inspector exited ${r.status}: ${r.stderr}${r.stdout}`);
    const result = JSON.parse(r.stdout);
    assert.notEqual(result.isError, true, `refused: ${result.content?.[0]?.text}`);
    const body = JSON.parse(result.content[0].text);
    assert.equal(body.content, "one\ntwo\nthree\n");
  } finally {
    repo.cleanup();
  }
});
