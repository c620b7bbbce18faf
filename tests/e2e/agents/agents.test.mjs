// The real agent CLIs, each driven through two turns against the scripted
// model server, with git-evolv's hooks installed by `git evolv agent
// install`: the hooks must run at a turn's start, after the edit tool and
// the shell, and at a turn's end, with the payload read right; the turn
// must go on whatever the hook reports. With the checkpoint engine in the
// binary, each hook call records a checkpoint and the test rewinds to
// them and compares bytes; without it (until h/checkpoints lands) that
// part is skipped and says so.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";

import { hasEngine, makeRepo, run, script, startModelServer } from "./harness.mjs";

const INITIAL = { "a.txt": "one\ntwo\nthree\n", "b.txt": null, "c.txt": null };
const AFTER_ONE = { "a.txt": "one\nTWO\nthree\n", "b.txt": "made by shell\n", "c.txt": null };
const AFTER_TWO = { "a.txt": "one\nTWO\nTHREE\n", "b.txt": null, "c.txt": "second turn\n" };

function assertFiles(repo, want, when) {
  for (const [p, content] of Object.entries(want)) {
    assert.equal(repo.read(p), content, `${p} ${when}`);
  }
}

/// The hook calls that asked for a checkpoint, as [moment, tool].
function checkpointCalls(log, session) {
  return log
    .filter((l) => l.event && l.event.checkpoint && l.event.session === session)
    .map((l) => [l.event.checkpoint, l.event.tool ?? null, l]);
}

/// What every agent's test checks once its two turns ran.
async function checkTurns(t, repo, { session, editTool, shellTool, model }) {
  assertFiles(repo, AFTER_TWO, "after two turns");
  const calls = checkpointCalls(repo.hookLog(), session);
  const moments = calls.map(([m]) => m);
  assert.equal(moments.filter((m) => m === "turn-start").length, 2, JSON.stringify(calls));
  assert.equal(moments.filter((m) => m === "stop").length, 2, JSON.stringify(calls));
  const tools = calls.filter(([m]) => m === "after-tool").map(([, tool]) => tool);
  assert.equal(tools.filter((x) => x === editTool).length, 2, `edit tool calls: ${tools}`);
  assert.ok(tools.filter((x) => x === shellTool).length >= 2, `shell tool calls: ${tools}`);
  if (model !== undefined) {
    assert.ok(calls.every(([, , l]) => l.event.model === model), "the payload's model is read");
  }
  if (!hasEngine(repo)) {
    // Every call asked for a checkpoint the binary cannot take yet: each
    // failed, was reported, and the turns went on regardless.
    assert.ok(calls.every(([, , l]) => typeof l.error === "string"), JSON.stringify(calls));
    t.diagnostic("skipped: checkpoints and rewind need the checkpoint engine (h/checkpoints)");
    return;
  }
  const ids = calls.map(([m, , l]) => [m, l.recorded && l.recorded.id]);
  assert.ok(ids.every(([, id]) => typeof id === "string"), JSON.stringify(ids));
  const list = repo.evolv("checkpoints", "--session", session, "--json");
  assert.equal(list.status, 0, list.stderr);
  for (const [, id] of ids) assert.ok(list.stdout.includes(id), `${id} listed`);
  const firstStart = ids.find(([m]) => m === "turn-start")[1];
  const firstStop = ids.find(([m]) => m === "stop")[1];
  let r = repo.evolv("rewind", firstStart, "--json");
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assertFiles(repo, INITIAL, "rewound to the first turn's start");
  r = repo.evolv("rewind", firstStop, "--json");
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assertFiles(repo, AFTER_ONE, "rewound to the first turn's end");
}

function install(repo, agent) {
  const r = repo.evolv("agent", "install", agent, "--json");
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const outcome = JSON.parse(r.stdout);
  assert.ok(outcome.events.every((e) => e.wired), r.stdout);
  return outcome;
}

test("Claude Code: two turns, each checkpointed through its hooks", async (t) => {
  const repo = makeRepo();
  const srv = await startModelServer(script((p) => path.join(repo.dir, p)));
  try {
    install(repo, "claude-code");
    const env = {
      ...repo.env,
      ANTHROPIC_BASE_URL: srv.url,
      ANTHROPIC_API_KEY: "sk-scripted",
      IS_SANDBOX: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_ERROR_REPORTING: "1",
      DISABLE_BUG_COMMAND: "1",
    };
    const args = ["--output-format", "json", "--dangerously-skip-permissions"];
    const one = await run("claude", ["-p", "please do turn one", ...args], { cwd: repo.dir, env });
    assert.equal(one.code, 0, one.out + one.err);
    const session = JSON.parse(one.out).session_id;
    assertFiles(repo, AFTER_ONE, "after turn one");
    const two = await run("claude", ["-p", "please do turn two", "--resume", session, ...args], { cwd: repo.dir, env });
    assert.equal(two.code, 0, two.out + two.err);
    await checkTurns(t, repo, { session, editTool: "Edit", shellTool: "Bash" });
  } finally {
    await srv.close();
    repo.cleanup();
  }
});

test("Codex: two turns, its trusted project hooks checkpoint each", async (t) => {
  const repo = makeRepo();
  const srv = await startModelServer(script((p) => p));
  try {
    const codexHome = path.join(repo.home, ".codex");
    fs.mkdirSync(codexHome);
    fs.writeFileSync(path.join(codexHome, "config.toml"), [
      'model = "gpt-5.5"',
      'model_provider = "scripted"',
      "",
      "[model_providers.scripted]",
      'name = "scripted"',
      `base_url = "${srv.url}/v1"`,
      'wire_api = "responses"',
      "",
      "[analytics]",
      "enabled = false",
      "",
      `[projects."${repo.dir}"]`,
      'trust_level = "trusted"',
      "",
    ].join("\n"));
    const configBefore = fs.readFileSync(path.join(codexHome, "config.toml"), "utf8");
    // git-evolv finds Codex's config.toml (for the trust) as Codex does.
    Object.assign(repo.env, { CODEX_HOME: codexHome });
    const env = repo.env;
    const installed = install(repo, "codex");
    assert.ok(installed.events.every((e) => e.trust === "trusted"), JSON.stringify(installed));
    // No --dangerously-bypass-hook-trust: the hooks run because install trusted them.
    // Not workspace-write: with a system bubblewrap, Codex's sandbox runs
    // a codex-linux-sandbox helper it links into CODEX_HOME, and it refuses
    // to under a temp dir, so every tool call would fail. The hooks run
    // outside the sandbox either way.
    const args = ["exec", "--disable", "plugins", "--sandbox", "danger-full-access", "--skip-git-repo-check"];
    const one = await run("codex", [...args, "please do turn one"], { cwd: repo.dir, env });
    assert.equal(one.code, 0, one.out + one.err);
    assert.equal(repo.read("a.txt"), AFTER_ONE["a.txt"], `turn one:\n${one.out}\n${one.err.slice(-4000)}`);
    assertFiles(repo, AFTER_ONE, "after turn one");
    const session = repo.hookLog().find((l) => l.event)?.event.session;
    assert.ok(session, "a hook ran in turn one: " + one.err.slice(-2000));
    const two = await run("codex", [...args, "resume", session, "please do turn two"], { cwd: repo.dir, env });
    assert.equal(two.code, 0, two.out + two.err);
    await checkTurns(t, repo, { session, editTool: "apply_patch", shellTool: "Bash", model: "gpt-5.5" });
    // Editing a hook untrusts it in Codex, silently: status says so, and
    // install trusts it again.
    const hooksFile = path.join(repo.dir, ".codex", "hooks.json");
    fs.writeFileSync(hooksFile, fs.readFileSync(hooksFile, "utf8").replace('"timeout": 30', '"timeout": 31'));
    const status = JSON.parse(repo.evolv("agent", "status", "codex", "--json").stdout);
    assert.ok(status.events.some((e) => e.trust === "modified"), JSON.stringify(status));
    assert.ok(status.notes.some((n) => n.includes("modified")), JSON.stringify(status.notes));
    assert.ok(install(repo, "codex").events.every((e) => e.trust === "trusted"));
    // Uninstall: hooks.json (install made it) goes, config.toml is back.
    const r = repo.evolv("agent", "uninstall", "codex", "--json");
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.equal(fs.existsSync(hooksFile), false);
    assert.equal(fs.readFileSync(path.join(codexHome, "config.toml"), "utf8"), configBefore);
  } finally {
    await srv.close();
    repo.cleanup();
  }
});

test("Gemini CLI: two turns, each checkpointed through its hooks", async (t) => {
  const repo = makeRepo();
  const srv = await startModelServer(script((p) => path.join(repo.dir, p)));
  try {
    fs.mkdirSync(path.join(repo.home, ".gemini"));
    fs.writeFileSync(path.join(repo.home, ".gemini", "settings.json"), JSON.stringify({
      security: { auth: { selectedType: "gemini-api-key" } },
      privacy: { usageStatisticsEnabled: false },
    }, null, 2));
    install(repo, "gemini");
    const env = {
      ...repo.env,
      GEMINI_API_KEY: "scripted",
      GOOGLE_GEMINI_BASE_URL: srv.url,
      GEMINI_CLI_TRUST_WORKSPACE: "true",
    };
    const args = ["--yolo", "-m", "gemini-2.5-flash", "--output-format", "json"];
    const one = await run("gemini", ["-p", "please do turn one", ...args], { cwd: repo.dir, env });
    assert.equal(one.code, 0, one.out + one.err);
    assertFiles(repo, AFTER_ONE, "after turn one");
    const session = repo.hookLog().find((l) => l.event)?.event.session;
    assert.ok(session, "a hook ran in turn one: " + one.err.slice(-2000));
    const two = await run("gemini", ["-p", "please do turn two", "--resume", "latest", ...args], { cwd: repo.dir, env });
    assert.equal(two.code, 0, two.out + two.err);
    await checkTurns(t, repo, { session, editTool: "replace", shellTool: "run_shell_command" });
  } finally {
    await srv.close();
    repo.cleanup();
  }
});
