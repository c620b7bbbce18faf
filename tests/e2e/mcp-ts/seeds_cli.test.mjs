// The seeds' examples that git-evolv serves through its CLI rather than an
// MCP tool: seed 001's ExecutionPlan (`git evolv plan`), seed 002's push
// protection (the pre-push hook) and repository checks (`git evolv check`).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { makeRepo, BIN } from "./harness.mjs";

/// `git evolv plan check -` of `plan` (an object), as JSON.
function planCheck(plan) {
  const r = spawnSync(BIN, ["plan", "check", "-", "--json"], { input: JSON.stringify(plan), encoding: "utf8" });
  return { status: r.status, json: JSON.parse(r.stdout), stderr: r.stderr };
}

// --- seed 001: ExecutionPlan --------------------------------------------

test("001 ExecutionPlan(rollback=RollbackStrategy(strategy=\"git_revert\")) is valid, with the seed's defaults", () => {
  const r = planCheck({ rollback: { strategy: "git_revert" } });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.json.valid, true);
  assert.deepEqual(r.json.plan, {
    dry_run: true,
    validation: { pre_conditions: [], expected_outcomes: [] },
    rollback: { strategy: "git_revert", commands: [] },
    limits: { max_files: 10, max_changes: 50, timeout_seconds: 30 },
    batch: false,
  });
});

test("001 rollback is required", () => {
  const r = planCheck({ dry_run: true });
  assert.equal(r.status, 2);
  assert.equal(r.json.error.code, "invalid_plan");
  assert.ok(r.json.error.issues.some((i) => i.path === "rollback"), JSON.stringify(r.json.error.issues));
});

test("001 limits are checked (max_files 1..100, max_changes 1..1000, timeout_seconds 1..300), every problem at once", () => {
  const r = planCheck({ rollback: { strategy: "git_revert" }, limits: { max_files: 101, max_changes: 0, timeout_seconds: 301 } });
  assert.equal(r.status, 2);
  assert.equal(r.json.error.code, "invalid_plan");
  assert.deepEqual(r.json.error.issues.map((i) => i.path).sort(), ["limits.max_changes", "limits.max_files", "limits.timeout_seconds"]);
});

test("001 the rollback strategy is git_revert, file_backup or manual", () => {
  const r = planCheck({ rollback: { strategy: "GIT_REVERT" } });
  assert.equal(r.status, 2);
  assert.equal(r.json.error.code, "invalid_plan");
  assert.match(JSON.stringify(r.json.error.issues), /git_revert/);
});

test("001 model_json_schema(): `git evolv plan schema` exports every field with a description", () => {
  const r = spawnSync(BIN, ["plan", "schema"], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  const schema = JSON.parse(r.stdout);
  assert.match(schema.$schema, /2020-12/);
  assert.deepEqual(Object.keys(schema.properties).sort(), ["batch", "dry_run", "limits", "rollback", "validation"]);
  assert.deepEqual(schema.required, ["rollback"]);
  for (const [name, prop] of Object.entries(schema.properties)) assert.ok(prop.description, `${name} has a description`);
});

// --- seed 002: git push protection, repository checks -------------------

/// A repository with a bare remote, main pushed, and git-evolv's hooks.
function pushRepo() {
  const repo = makeRepo({ "a.txt": "a\n" });
  const remote = fs.mkdtempSync(path.join(os.tmpdir(), "evolv-ts-remote-"));
  repo.git("init", "-q", "--bare", remote);
  repo.git("remote", "add", "origin", remote);
  repo.git("push", "-q", "-u", "origin", "main");
  const installed = repo.evolvJson("hooks", "install");
  assert.equal(installed.status, 0, installed.stderr);
  const push = (env, ...args) => spawnSync("git", ["push", ...args], {
    cwd: repo.dir, env: { ...repo.env, ...env }, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"],
  });
  const cleanup = () => { repo.cleanup(); fs.rmSync(remote, { recursive: true, force: true }); };
  return { repo, remote, push, cleanup };
}

test("002 a push to main without a terminal to confirm on is refused", () => {
  const { repo, push, cleanup } = pushRepo();
  try {
    repo.write("a.txt", "b\n");
    repo.git("commit", "-qam", "feat: b");
    const r = push({}, "origin", "main");
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /protected branch main/);
  } finally { cleanup(); }
});

test("002 git push --force to main is refused and suggests --force-with-lease", () => {
  const { repo, push, cleanup } = pushRepo();
  try {
    repo.write("a.txt", "b\n");
    repo.git("commit", "-qam", "feat: b");
    assert.equal(push({ GIT_EVOLV_ALLOW_PUSH: "1" }, "origin", "main").status, 0, "an allowed plain push");
    repo.git("commit", "-q", "--amend", "-m", "feat: c");
    const r = push({ GIT_EVOLV_ALLOW_PUSH: "1" }, "--force", "origin", "main");
    assert.notEqual(r.status, 0, "refused even where plain pushes are allowed");
    assert.match(r.stderr, /force push to the protected branch main/);
    assert.match(r.stderr, /--force-with-lease/);
  } finally { cleanup(); }
});

test("002 uncommitted changes and the remote's state are shown (`git evolv check`)", () => {
  const { repo, cleanup } = pushRepo();
  try {
    repo.write("a.txt", "b\n");
    repo.git("commit", "-qam", "feat: b");
    repo.write("new.txt", "x\n");
    const r = repo.evolvJson("check");
    assert.deepEqual(r.json.uncommitted, ["new.txt"]);
    assert.deepEqual(r.json.upstream, { name: "origin/main", ahead: 1, behind: 0 });
  } finally { cleanup(); }
});
