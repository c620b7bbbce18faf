// One successful call of every tool through the TypeScript SDK's callTool,
// which checks each result's structuredContent against the tool's
// outputSchema. What a tool needs first (a proposal, a landing, a task) is
// made with the CLI, so each test depends on its own tool only.
import { test } from "node:test";
import assert from "node:assert/strict";
import { withServer, call, ok } from "./harness.mjs";
import { FILES } from "./fixtures.mjs";

/// The landed commit of an apply_edit result, in the one-id shape the
/// README documents or in the several-ids shape the server answers today
/// (item 4 has its own test; this one checks that the call succeeds).
const landedCommit = (a) => a.commit ?? a.results?.[0]?.commit;

test("propose_edit proposes and touches nothing", () => withServer(FILES, async (repo, { client }) => {
  const head = repo.git("rev-parse", "HEAD");
  const p = ok(await call(client, "propose_edit", { pattern: "getUserData", replacement: "fetchUserData", scope: ["backend/**"] }), "propose_edit");
  assert.equal(p.success, true);
  assert.match(p.patch_id, /^patch_\d+_[0-9a-f]+$/);
  assert.deepEqual(p.affected_files, ["backend/auth.go", "backend/user.go"]);
  assert.equal(p.statistics.files_matched, 2);
  assert.equal(repo.git("rev-parse", "HEAD"), head);
  assert.match(repo.read("backend/user.go"), /getUserData/);
}));

test("show_proposal returns the stored diff", () => withServer(FILES, async (repo, { client }) => {
  const id = repo.propose("getUserData", "fetchUserData");
  const s = ok(await call(client, "show_proposal", { patch_id: id }), "show_proposal");
  assert.equal(s.patch_id, id);
  assert.match(s.unified_diff, /\+func fetchUserData\(\)/);
}));

test("apply_edit lands a proposal", () => withServer(FILES, async (repo, { client }) => {
  const id = repo.propose("getUserData", "fetchUserData");
  const a = ok(await call(client, "apply_edit", { patch_id: id }), "apply_edit");
  assert.equal(a.success, true);
  assert.equal(landedCommit(a), repo.git("rev-parse", "HEAD"));
  assert.match(repo.read("backend/user.go"), /fetchUserData/);
}));

test("edit proposes an edit list", () => withServer(FILES, async (repo, { client }) => {
  const e = ok(await call(client, "edit", {
    message: "docs",
    edits: [
      { op: "replace", path: "a.txt", old: "two", new: "2" },
      { op: "write", path: "NOTES.md", content: "notes\n" },
    ],
  }), "edit");
  assert.match(e.patch_id, /^patch_/);
  assert.equal(e.statistics.edits_applied, 2);
  assert.equal(repo.read("a.txt"), "one\ntwo\nthree\n", "nothing written before apply");
}));

test("glob lists files", () => withServer(FILES, async (repo, { client }) => {
  const g = ok(await call(client, "glob", { pattern: "**/*.go" }), "glob");
  assert.deepEqual(g.files.map((f) => f.path).sort(), ["backend/auth.go", "backend/user.go"]);
  assert.equal(g.truncated, false);
}));

test("read_file reads a file at HEAD", () => withServer(FILES, async (repo, { client }) => {
  const r = ok(await call(client, "read_file", { path: "a.txt" }), "read_file");
  assert.equal(r.content, "one\ntwo\nthree\n");
  assert.equal(r.truncated, false);
}));

test("list_proposals lists a proposal", () => withServer(FILES, async (repo, { client }) => {
  const id = repo.propose("getUserData", "fetchUserData");
  const l = ok(await call(client, "list_proposals", {}), "list_proposals");
  assert.deepEqual(l.proposals.map((p) => p.patch_id), [id]);
  assert.equal(l.proposals[0].status, "pending");
}));

test("rollback reverts a landed proposal", () => withServer(FILES, async (repo, { client }) => {
  const id = repo.propose("getUserData", "fetchUserData");
  const applied = repo.evolvJson("apply", id);
  assert.equal(applied.status, 0, applied.stderr);
  const r = ok(await call(client, "rollback", { patch_id: id, strategy: "git_revert" }), "rollback");
  assert.equal(r.success, true);
  assert.equal(r.reverted, applied.json.commit);
  assert.match(repo.read("backend/user.go"), /getUserData/);
}));

test("task_output follows a background apply to its end", () => withServer(FILES, async (repo, { client }) => {
  const id = repo.propose("getUserData", "fetchUserData");
  const bg = repo.evolvJson("apply", id, "--background");
  assert.equal(bg.status, 0, bg.stderr);
  const t = ok(await call(client, "task_output", { task_id: bg.json.task_id, block: true, timeout_seconds: 120 }), "task_output");
  assert.equal(t.status, "succeeded", JSON.stringify(t));
  assert.match(repo.read("backend/user.go"), /fetchUserData/);
}));

test("check_repo reports the branch", () => withServer(FILES, async (repo, { client }) => {
  const c = ok(await call(client, "check_repo", {}), "check_repo");
  assert.equal(c.branch, "main");
  assert.deepEqual(c.uncommitted, []);
}));

test("lint_commit passes a Conventional Commit", () => withServer(FILES, async (repo, { client }) => {
  const l = ok(await call(client, "lint_commit", { message: "feat(api): add login" }), "lint_commit");
  assert.equal(l.success, true);
  assert.equal(l.errors, 0);
}));

test("audit_log lists an apply", () => withServer(FILES, async (repo, { client }) => {
  const id = repo.propose("getUserData", "fetchUserData");
  assert.equal(repo.evolvJson("apply", id).status, 0);
  const l = ok(await call(client, "audit_log", { limit: 20 }), "audit_log");
  assert.ok(l.entries.some((e) => e.action === "apply" && e.patch_id === id), JSON.stringify(l.entries));
}));

test("drop_proposal drops a proposal", () => withServer(FILES, async (repo, { client }) => {
  const id = repo.propose("getUserData", "fetchUserData");
  const d = ok(await call(client, "drop_proposal", { patch_id: id }), "drop_proposal");
  assert.deepEqual(d.dropped, [id]);
  assert.equal(repo.git("for-each-ref", "refs/evolv/proposals/"), "");
}));

test("notebook_edit proposes a cell edit", () => withServer(FILES, async (repo, { client }) => {
  const n = ok(await call(client, "notebook_edit", { path: "nb.ipynb", mode: "replace", cell_id: "c1", source: "print(2)" }), "notebook_edit");
  assert.match(n.patch_id, /^patch_/);
  assert.match(n.unified_diff, /print\(2\)/);
}));

test("propose_patch proposes a unified diff and an apply_patch envelope", () => withServer(FILES, async (repo, { client }) => {
  const diff = "--- a/backend/user.go\n+++ b/backend/user.go\n@@ -1,2 +1,2 @@\n-package main\n+package main // patched\n func getUserData() string { return \"user\" }\n";
  const p = ok(await call(client, "propose_patch", { patch: diff }), "propose_patch");
  assert.match(p.patch_id, /^patch_/);
  assert.match(p.unified_diff, /patched/);
  const envelope = "*** Begin Patch\n*** Add File: notes.txt\n+hello\n*** End Patch\n";
  const e = ok(await call(client, "propose_patch", { patch: envelope }), "propose_patch");
  assert.deepEqual(e.affected_files, ["notes.txt"]);
}));

test("task_list lists a background task", () => withServer(FILES, async (repo, { client }) => {
  const id = repo.propose("getUserData", "fetchUserData");
  const bg = repo.evolvJson("apply", id, "--background");
  assert.equal(bg.status, 0, bg.stderr);
  const l = ok(await call(client, "task_list", {}), "task_list");
  assert.ok(l.tasks.some((t) => t.task_id === bg.json.task_id), JSON.stringify(l));
  repo.evolvJson("task", bg.json.task_id, "--wait", "--timeout", "120");
}));
