// The seeds' literal MCP examples (shared/seeds/*.txt), word for word,
// through the TypeScript SDK, each with the repository its scenario
// describes, checking the fields the seed expects as far as git-evolv's
// documented JSON (docs/json.md and docs/propose.md) carries them.
// Test names start with the seed file and scenario they come from.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { withServer, call, ok, toolError } from "./harness.mjs";
import { NOTEBOOK } from "./fixtures.mjs";

const USER_GO = 'package main\nfunc getUserData() string { return "user" }\n';
/// Seed 000 scenario 2's table, with content that compiles to the same
/// matches ("func getUserData() {...}", "user := getUserData()", …).
const SCENARIO_2 = {
  "backend/user.go": "package main\nfunc getUserData() {}\n",
  "backend/auth.go": "package main\nfunc auth() { user := getUserData(); _ = user }\n",
  "frontend/api.ts": "const data = getUserData()\n",
};
const worktrees = (repo) => repo.git("worktree", "list", "--porcelain").split("\n").filter((l) => l.startsWith("worktree ")).length;
const landed = (a) => a.commit ?? a.results?.[0]?.commit;

// --- seed 000: the patch-first story ------------------------------------

test("000 scenario 1: propose_edit previews a single-file edit", () => withServer({ "src/user.go": USER_GO }, async (repo, { client }) => {
  const p = ok(await call(client, "propose_edit", { pattern: "getUserData", replacement: "fetchUserData" }), "propose_edit");
  assert.equal(p.success, true);
  assert.match(p.patch_id, /^patch_\d+_[0-9a-f]+$/, "patch_<timestamp>_<hash>");
  // The seed's hunk header reads "@@ -1,1 +1,1 @@"; git-evolv prints git's
  // own diff, whose header for this two-line file counts the context line.
  assert.ok(p.unified_diff.includes("--- a/src/user.go\n+++ b/src/user.go\n@@ -1,2 +1,2 @@\n"), p.unified_diff);
  assert.ok(p.unified_diff.includes('-func getUserData() string { return "user" }\n+func fetchUserData() string { return "user" }\n'), p.unified_diff);
  assert.equal(repo.read("src/user.go"), USER_GO, "the file is not modified");
  assert.match(repo.git("show-ref"), new RegExp(`refs/evolv/proposals/${p.patch_id}`), "the patch is stored");
}));

test("000 scenario 2: propose_edit with scope \"backend/**\" scans only backend", () => withServer(SCENARIO_2, async (repo, { client }) => {
  const p = ok(await call(client, "propose_edit", { pattern: "getUserData", replacement: "fetchUserData", scope: "backend/**" }), "propose_edit");
  assert.equal(p.statistics.files_scanned, 2, "two files scanned (backend only)");
  assert.deepEqual([...p.affected_files].sort(), ["backend/auth.go", "backend/user.go"]);
  assert.match(p.unified_diff, /\+\+\+ b\/backend\/user\.go/);
  assert.match(p.unified_diff, /\+\+\+ b\/backend\/auth\.go/);
  assert.doesNotMatch(p.unified_diff, /frontend/);
}));

test("000 scenario 3: apply_edit(patch_id) lands and cleans up", () => withServer(SCENARIO_2, async (repo, { client }) => {
  const id = repo.propose("getUserData", "fetchUserData", "--scope", "backend/**");
  const a = ok(await call(client, "apply_edit", { patch_id: id }), "apply_edit");
  assert.equal(a.success, true);
  assert.equal(landed(a), repo.git("rev-parse", "HEAD"));
  assert.match(repo.read("backend/user.go"), /fetchUserData/);
  assert.equal(repo.git("status", "--porcelain"), "");
  assert.equal(worktrees(repo), 1, "no worktree left (no validation configured)");
}));

test("000 scenario 4: apply_edit(patch_id=\"invalid_patch\") is Patch 'invalid_patch' not found", () => withServer(SCENARIO_2, async (repo, { client }) => {
  const head = repo.git("rev-parse", "HEAD");
  const e = toolError(await call(client, "apply_edit", { patch_id: "invalid_patch" }), "patch_not_found");
  assert.equal(e.message, "Patch 'invalid_patch' not found");
  assert.equal(worktrees(repo), 1, "no worktree created");
  assert.equal(repo.git("rev-parse", "HEAD"), head);
  assert.equal(repo.git("status", "--porcelain"), "", "no file modified");
}));

test("000 scenario 5: apply_edit of a patch that no longer replays is a conflict; nothing touched", () => withServer(SCENARIO_2, async (repo, { client }) => {
  const id = repo.propose("getUserData", "fetchUserData", "--scope", "backend/**");
  repo.write("backend/user.go", "package main\nfunc loadUserData() {}\n");
  repo.git("commit", "-qam", "rename elsewhere");
  const head = repo.git("rev-parse", "HEAD");
  const e = toolError(await call(client, "apply_edit", { patch_id: id }), "conflict");
  assert.ok(e.paths.includes("backend/user.go"), JSON.stringify(e));
  assert.equal(repo.git("rev-parse", "HEAD"), head);
  assert.equal(repo.read("backend/user.go"), "package main\nfunc loadUserData() {}\n");
}));

test("000 scenario 6: apply_edit validates in a worktree before landing", () => withServer(SCENARIO_2, async (repo, { client }) => {
  repo.git("config", "evolv.validate", "grep -q fetchUserData backend/user.go");
  const id = repo.propose("getUserData", "fetchUserData", "--scope", "backend/**");
  const a = ok(await call(client, "apply_edit", { patch_id: id }), "apply_edit");
  const one = a.validation ? a : a.results[0];
  assert.equal(one.validation.length, 1);
  assert.equal(one.validation[0].exit_code, 0);
  assert.equal(landed(a), repo.git("rev-parse", "HEAD"));
  assert.doesNotMatch(repo.git("worktree", "list", "--porcelain"), /locked/, "the validation worktree is released");
}));

test("000 scenario 7: apply_edit obeys execution_plan max_changes 50 / timeout 30 / git_revert", () => {
  const lines = Array.from({ length: 30 }, (_, i) => `getUserData(${i})\n`).join("");
  return withServer({ ...SCENARIO_2, "backend/many.go": lines }, async (repo, { client }) => {
    const plan = { dry_run: false, rollback: { strategy: "git_revert" }, limits: { max_changes: 50, timeout_seconds: 30 } };
    const big = repo.propose("getUserData", "fetchUserData", "--scope", "backend/many.go");
    const head = repo.git("rev-parse", "HEAD");
    toolError(await call(client, "apply_edit", { patch_id: big, execution_plan: plan }), "constraint_violation");
    assert.equal(repo.git("rev-parse", "HEAD"), head, "60 changed lines > 50: nothing lands");
    const small = repo.propose("getUserData", "fetchUserData", "--scope", "backend/user.go");
    const a = ok(await call(client, "apply_edit", { patch_id: small, execution_plan: plan }), "apply_edit");
    assert.equal(landed(a), repo.git("rev-parse", "HEAD"));
  });
});

test("000 scenario 8: propose_edit with scope \"backend/**/*.go\", word for word", () => {
  // Ten .go files under backend/ (files_scanned 10), two of them calling
  // getUserData three times in all (files_matched 2, total_changes 3).
  const files = {
    "backend/user.go": "package main\nfunc getUserData() {}\n",
    "backend/auth.go": "package main\nfunc auth() { _ = getUserData() }\nfunc again() { _ = getUserData() }\n",
    "frontend/api.ts": "const data = getUserData()\n",
    ...Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`backend/pkg/f${i}.go`, `package pkg\nconst N${i} = ${i}\n`])),
  };
  return withServer(files, async (repo, { client }) => {
    const request = JSON.parse(`{
      "tool": "propose_edit",
      "arguments": {
        "pattern": "getUserData",
        "replacement": "fetchUserData",
        "scope": "backend/**/*.go"
      }
    }`);
    const p = ok(await call(client, request.tool, request.arguments), "propose_edit");
    assert.equal(p.success, true);
    assert.match(p.patch_id, /^patch_\d+_[0-9a-f]+$/);
    assert.deepEqual([...p.affected_files].sort(), ["backend/auth.go", "backend/user.go"]);
    assert.equal(typeof p.unified_diff, "string");
    assert.match(p.unified_diff, /\+func fetchUserData\(\)/);
    assert.equal(p.statistics.files_scanned, 10);
    assert.equal(p.statistics.files_matched, 2);
    assert.equal(p.statistics.total_changes, 3);
  });
});

// --- seed 002: Glob, MultiEdit, NotebookEdit, commit lint, Task/TaskOutput

const RUST = {
  "src/main.rs": "fn main() {}\n",
  "src/lib.rs": "pub fn f() {}\n",
  "src/nested/deep_test.rs": "#[test] fn t() {}\n",
  "tests/foo_test.rs": "#[test] fn t() {}\n",
  "README.md": "# x\n",
};
/// Gives each file a distinct modification time, oldest first.
const ageFiles = (repo, order) => order.forEach((p, i) => {
  const t = new Date(Date.UTC(2024, 0, 1 + i));
  fs.utimesSync(path.join(repo.dir, p), t, t);
});

test("002 Glob: pattern \"**/*.rs\" lists every Rust file, newest first", () => withServer(RUST, async (repo, { client }) => {
  ageFiles(repo, ["tests/foo_test.rs", "src/lib.rs", "src/nested/deep_test.rs", "src/main.rs"]);
  const g = ok(await call(client, "glob", { pattern: "**/*.rs" }), "glob");
  assert.deepEqual(g.files.map((f) => f.path), ["src/main.rs", "src/nested/deep_test.rs", "src/lib.rs", "tests/foo_test.rs"]);
}));

test("002 Glob: pattern \"*.rs\", path \"src/\" searches src/ only, relative paths", () => withServer(RUST, async (repo, { client }) => {
  const g = ok(await call(client, "glob", { pattern: "*.rs", path: "src/" }), "glob");
  assert.deepEqual(g.files.map((f) => f.path).sort(), ["lib.rs", "main.rs"]);
}));

test("002 Glob: pattern \"**/*test*.rs\" finds nested test files", () => withServer(RUST, async (repo, { client }) => {
  const g = ok(await call(client, "glob", { pattern: "**/*test*.rs" }), "glob");
  assert.deepEqual(g.files.map((f) => f.path).sort(), ["src/nested/deep_test.rs", "tests/foo_test.rs"]);
}));

test("002 Glob: no match is an empty list, not an error", () => withServer(RUST, async (repo, { client }) => {
  const g = ok(await call(client, "glob", { pattern: "**/*.zig" }), "glob");
  assert.deepEqual(g.files, []);
}));

const TEXT = { "a.txt": "one\ntwo\nthree\n", "b.txt": "alpha\nbeta\n" };

test("002 MultiEdit: several edits of one file apply in order, in one update", () => withServer(TEXT, async (repo, { client }) => {
  const e = ok(await call(client, "edit", { edits: [
    { op: "replace", path: "a.txt", old: "one", new: "1" },
    { op: "replace", path: "a.txt", old: "three", new: "3" },
  ] }), "edit");
  assert.deepEqual(e.affected_files, ["a.txt"]);
  const r = ok(await call(client, "read_file", { path: "a.txt", patch_id: e.patch_id }), "read_file");
  assert.equal(r.content, "1\ntwo\n3\n");
}));

test("002 MultiEdit: edits of different files each change their file", () => withServer(TEXT, async (repo, { client }) => {
  const e = ok(await call(client, "edit", { edits: [
    { op: "replace", path: "a.txt", old: "two", new: "2" },
    { op: "replace", path: "b.txt", old: "beta", new: "b" },
  ] }), "edit");
  assert.deepEqual(e.files.map((f) => f.path).sort(), ["a.txt", "b.txt"]);
}));

test("002 MultiEdit: two edits of one line: the second sees the first, with a warning", () => withServer(TEXT, async (repo, { client }) => {
  const e = ok(await call(client, "edit", { edits: [
    { op: "replace", path: "a.txt", old: "two", new: "zwei" },
    { op: "replace", path: "a.txt", old: "zwei", new: "deux" },
  ] }), "edit");
  const r = ok(await call(client, "read_file", { path: "a.txt", patch_id: e.patch_id }), "read_file");
  assert.equal(r.content, "one\ndeux\nthree\n");
  const warnings = [...(e.warnings || []), ...e.files.flatMap((f) => f.warnings || [])];
  assert.ok(warnings.length > 0, `a warning (${JSON.stringify(e)})`);
}));

test("002 MultiEdit: with keep_going a failed edit is reported and the others kept", () => withServer(TEXT, async (repo, { client }) => {
  const e = ok(await call(client, "edit", { keep_going: true, edits: [
    { op: "replace", path: "a.txt", old: "two", new: "2" },
    { op: "replace", path: "a.txt", old: "four", new: "4" },
    { op: "replace", path: "b.txt", old: "beta", new: "b" },
  ] }), "edit");
  assert.deepEqual(e.failures.map((f) => [f.index, f.code]), [[1, "no_match"]]);
  assert.deepEqual(e.affected_files.sort(), ["a.txt", "b.txt"]);
}));

const NB = { "nb.ipynb": NOTEBOOK };
const cellsOf = async (client, id) => JSON.parse(ok(await call(client, "read_file", { path: "nb.ipynb", patch_id: id }), "read_file").content).cells;

test("002 NotebookEdit: edit_mode \"replace\" replaces a cell", () => withServer(NB, async (repo, { client }) => {
  const n = ok(await call(client, "notebook_edit", { path: "nb.ipynb", mode: "replace", cell: 0, source: "print(2)" }), "notebook_edit");
  const cells = await cellsOf(client, n.patch_id);
  assert.equal(cells.length, 2);
  assert.equal([cells[0].source].flat().join(""), "print(2)");
}));

test("002 NotebookEdit: edit_mode \"insert\" adds a cell", () => withServer(NB, async (repo, { client }) => {
  const n = ok(await call(client, "notebook_edit", { path: "nb.ipynb", mode: "insert", cell: 0, source: "x = 1" }), "notebook_edit");
  const cells = await cellsOf(client, n.patch_id);
  assert.deepEqual(cells.map((c) => [c.source].flat().join("")), ["print(1)", "x = 1", "# Title"]);
}));

test("002 NotebookEdit: edit_mode \"delete\" removes a cell", () => withServer(NB, async (repo, { client }) => {
  const n = ok(await call(client, "notebook_edit", { path: "nb.ipynb", mode: "delete", cell: 1 }), "notebook_edit");
  assert.equal((await cellsOf(client, n.patch_id)).length, 1);
}));

test("002 NotebookEdit: a missing notebook is not_found, no file created", () => withServer(NB, async (repo, { client }) => {
  toolError(await call(client, "notebook_edit", { path: "missing.ipynb", mode: "replace", cell: 0, source: "x" }), "not_found");
  assert.equal(repo.git("for-each-ref", "refs/evolv/proposals/"), "");
  assert.equal(fs.existsSync(path.join(repo.dir, "missing.ipynb")), false);
}));

for (const [message, valid] of [
  ["feat: add user authentication", true],
  ["add new feature", false],
  ["feat(auth): add login support", true],
  ["feat(auth): add login support\n\nThe login form posts to /session and keeps the\nsession in a cookie.\n", true],
]) {
  test(`002 commit lint: ${JSON.stringify(message.split("\n")[0])}${message.includes("\n") ? " (with a body)" : ""} is ${valid ? "valid" : "invalid"}`, () => withServer(TEXT, async (repo, { client }) => {
    const l = ok(await call(client, "lint_commit", { message }), "lint_commit");
    assert.equal(l.success, valid, JSON.stringify(l));
    if (!valid) {
      const f = l.messages[0].findings[0];
      assert.ok(f.expected && f.suggestion, "says the format and suggests one");
    }
  }));
}

/// A repository whose validation takes a while and prints as it goes.
const slowValidation = (repo) => repo.git("config", "evolv.validate", "echo started; sleep 6; echo finished");

test("002 Task: run_in_background true returns a task id at once; TaskOutput block false answers at once", () => withServer(TEXT, async (repo, { client }) => {
  const id = repo.propose("two", "2");
  const started = Date.now();
  const bg = ok(await call(client, "apply_edit", { patch_id: id, run_in_background: true }), "apply_edit");
  assert.equal(bg.status, "running");
  assert.match(bg.task_id, /^task_/);
  const t = ok(await call(client, "task_output", { task_id: bg.task_id, block: false }), "task_output");
  assert.equal(t.status, "running");
  assert.ok(Date.now() - started < 2500, "both answered before the validation ended");
  assert.ok(ok(await call(client, "task_list", {}), "task_list").tasks.some((x) => x.task_id === bg.task_id), "tracked by task_list");
  ok(await call(client, "task_output", { task_id: bg.task_id, block: true, timeout_seconds: 60 }), "task_output");
}, { setup: slowValidation }));

test("002 TaskOutput: a timeout answers with the output so far, still running", () => withServer(TEXT, async (repo, { client }) => {
  const id = repo.propose("two", "2");
  const bg = ok(await call(client, "apply_edit", { patch_id: id, run_in_background: true }), "apply_edit");
  // Waits for the task even when an assertion fails, so it never writes
  // into a repository already removed.
  try {
    await timedOut(client, bg);
  } finally {
    repo.evolvJson("task", bg.task_id, "--wait", "--timeout", "60");
  }
}, { setup: slowValidation }));

async function timedOut(client, bg) {
  const t = ok(await call(client, "task_output", { task_id: bg.task_id, block: true, timeout_seconds: 3 }), "task_output");
  // The seed says "marks the task as timed out"; git-evolv documents that
  // the task goes on and task_output says `running` with the output so far
  // (issue 25 item 5: each line readable within a second of being written).
  assert.equal(t.status, "running");
  // Whole lines: the log also shows the command line (`$ echo started; …`).
  assert.match(t.output, /^started$/m, "the partial output (the validation's first line)");
  assert.doesNotMatch(t.output, /^finished$/m);
  const done = ok(await call(client, "task_output", { task_id: bg.task_id, block: true, timeout_seconds: 60 }), "task_output");
  assert.equal(done.status, "succeeded");
  assert.match(done.output, /^finished$/m, "the whole output once it ended");
}

test("002 Task: run_in_background false waits for the result", () => withServer(TEXT, async (repo, { client }) => {
  const id = repo.propose("two", "2");
  const a = ok(await call(client, "apply_edit", { patch_id: id, run_in_background: false }), "apply_edit");
  assert.equal(landed(a), repo.git("rev-parse", "HEAD"));
}));

test("002 errors: a file that does not exist is an error naming the path", () => withServer(TEXT, async (repo, { client }) => {
  const e = toolError(await call(client, "read_file", { path: "no/such/file.txt" }));
  assert.match(e.message, /no\/such\/file\.txt/);
}));

test("002 errors: an invalid argument is invalid_input saying what is required", () => withServer(TEXT, async (repo, { client }) => {
  const e = toolError(await call(client, "notebook_edit", { path: "nb.ipynb", mode: "sideways", cell: 0 }), "invalid_input");
  assert.match(e.message, /mode/);
}));

// --- seed 003: locators and structured diff results ---------------------

const THIRTY = Array.from({ length: 30 }, (_, i) => `line ${i + 1}\n`).join("");

test("003 locator {start_line 12, start_col 1, end_line 20, end_col 1}: a structured, unapplied result", () => withServer({ "doc.md": THIRTY }, async (repo, { client }) => {
  const locator = { start_line: 12, start_col: 1, end_line: 20, end_col: 1 };
  const e = ok(await call(client, "edit", { edits: [{ op: "range", path: "doc.md", locator, new: "new 12\nnew 13\n" }] }), "edit");
  const f = e.files[0];
  assert.equal(f.operation_type, "modify");
  // The result's locator is where the new text stands in the new file.
  assert.deepEqual([f.locator.start_line, f.locator.start_col], [12, 1]);
  assert.deepEqual(Object.keys(f.locator).sort(), ["end_col", "end_line", "start_col", "start_line"]);
  assert.equal(f.diff.format, "unified");
  assert.match(f.diff.hunks[0].header, /^@@ -\d+,\d+ \+\d+,\d+ @@/);
  assert.equal(typeof f.new_content_excerpt, "string");
  // The seed's dry_run true means "not written"; git-evolv says false here
  // because the proposal is stored (check "only" stores nothing: true).
  // Nothing reaches the working tree before apply either way.
  assert.equal(typeof f.dry_run, "boolean");
  assert.equal(repo.read("doc.md"), THIRTY, "not written");
}));

test("003 locator {start_offset, end_offset} replaces that span", () => withServer({ "doc.md": "hello world\n" }, async (repo, { client }) => {
  const e = ok(await call(client, "edit", { edits: [{ op: "range", path: "doc.md", locator: { start_offset: 6, end_offset: 11 }, new: "there" }] }), "edit");
  const r = ok(await call(client, "read_file", { path: "doc.md", patch_id: e.patch_id }), "read_file");
  assert.equal(r.content, "hello there\n");
}));

// --- seed 004: the safe edit tool's line edits and error tree -----------

const PY = Array.from({ length: 52 }, (_, i) => {
  const n = i + 1;
  if (n === 49) return "def process():\n";
  if (n >= 50 && n <= 52) return `    old_line_${n - 49}\n`;
  return `# line ${n}\n`;
}).join("");

test("004 line edit: lines 50-52 become \"    return new_value\"", () => withServer({ "file.py": PY }, async (repo, { client }) => {
  const e = ok(await call(client, "edit", { edits: [{ op: "range", path: "file.py", locator: { start_line: 50, start_col: 1, end_line: 53, end_col: 1 }, new: "    return new_value\n" }] }), "edit");
  assert.ok(e.unified_diff.includes(" def process():\n-    old_line_1\n-    old_line_2\n-    old_line_3\n+    return new_value\n"), e.unified_diff);
}));

test("004 errors: a line past the end is out_of_bounds, \"exceeds file length\"", () => withServer({ "file.py": PY }, async (repo, { client }) => {
  const e = toolError(await call(client, "edit", { edits: [{ op: "range", path: "file.py", locator: { start_line: 60, start_col: 1, end_line: 61, end_col: 1 }, new: "x\n" }] }), "out_of_bounds");
  assert.match(e.message, /line 60 exceeds file length \(52 lines\)/);
}));

test("004 errors: overlapping line edits are overlapping_edits", () => withServer({ "file.py": PY }, async (repo, { client }) => {
  toolError(await call(client, "edit", { edits: [
    { op: "range", path: "file.py", locator: { start_line: 10, start_col: 1, end_line: 15, end_col: 1 }, new: "a\n" },
    { op: "range", path: "file.py", locator: { start_line: 12, start_col: 1, end_line: 18, end_col: 1 }, new: "b\n" },
  ] }), "overlapping_edits");
}));

test("004 errors: a search that matches nothing is no_match (strict)", () => withServer({ "file.py": PY }, async (repo, { client }) => {
  toolError(await call(client, "edit", { edits: [{ op: "regex", path: "file.py", pattern: "nothing_here", replacement: "x" }] }), "no_match");
}));

test("004 errors: a binary file is refused", () => withServer({ "blob.bin": "\u0000\u0001binary" }, async (repo, { client }) => {
  toolError(await call(client, "edit", { edits: [{ op: "replace", path: "blob.bin", old: "binary", new: "text" }] }), "binary_file");
}));

test("004 verify_only: check \"only\" validates and stores nothing", () => withServer({ "conf.json": "{\"a\": 1}\n" }, async (repo, { client }) => {
  const e = ok(await call(client, "edit", { check: "only", edits: [{ op: "write", path: "conf.json", content: "{\"a\": 2}\n" }] }), "edit");
  assert.equal(e.check, "only");
  assert.equal(repo.git("for-each-ref", "refs/evolv/proposals/"), "", "nothing stored");
}));

test("004 strict: an edit that fails its validator is validation_failed, nothing stored", () => withServer({ "conf.json": "{\"a\": 1}\n" }, async (repo, { client }) => {
  toolError(await call(client, "edit", { edits: [{ op: "write", path: "conf.json", content: "{\"a\": \n" }] }), "validation_failed");
  assert.equal(repo.git("for-each-ref", "refs/evolv/proposals/"), "");
}));
