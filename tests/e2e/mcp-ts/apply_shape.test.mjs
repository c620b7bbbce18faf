// Issue 25, item 4: apply_edit with one id answers in the one-id shape of
// `git evolv apply <id> --json` (docs/json.md), not in the
// several-ids shape (`results: […]`). Two twin repositories: the same
// proposal applied by MCP in one and by the CLI in the other.
import { test } from "node:test";
import assert from "node:assert/strict";
import { makeRepo, connect, call, ok, shape } from "./harness.mjs";
import { FILES } from "./fixtures.mjs";

test("apply_edit with one id has the shape of the CLI's apply --json", async () => {
  const mcpRepo = makeRepo(FILES);
  const cliRepo = makeRepo(FILES);
  const mcp = await connect(mcpRepo);
  try {
    const viaMcp = ok(await call(mcp.client, "apply_edit", { patch_id: mcpRepo.propose("getUserData", "fetchUserData") }), "apply_edit");
    const cli = cliRepo.evolvJson("apply", cliRepo.propose("getUserData", "fetchUserData"));
    assert.equal(cli.status, 0, cli.stderr);
    // Recorded for the report: what each answered.
    console.log(`# MCP apply_edit keys: ${Object.keys(viaMcp).sort().join(", ")}`);
    console.log(`# CLI apply --json keys: ${Object.keys(cli.json).sort().join(", ")}`);
    assert.equal(viaMcp.commit, mcpRepo.git("rev-parse", "HEAD"), "commit at the top level");
    assert.deepEqual(shape(viaMcp), shape(cli.json));
  } finally {
    await mcp.close();
    mcpRepo.cleanup();
    cliRepo.cleanup();
  }
});
