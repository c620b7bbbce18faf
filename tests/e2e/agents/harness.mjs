// Shared by the agents suite: a scratch repository with git's environment
// sealed off and a home of its own, `git evolv` on PATH (the binary under
// test), the scripted model server, and each real agent CLI run in it.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

import { startModelServer } from "./model_server.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, "../../..");
export const BIN = path.resolve(process.env.GIT_EVOLV_BIN || path.join(root, "target/debug/git-evolv"));
const cli = (name) => path.join(here, "node_modules", ".bin", name);

/// The two scripted turns: the first reads and edits a.txt with the
/// agent's edit tool and writes b.txt through its shell; the second edits
/// a.txt again and writes c.txt through the shell. `p` maps a path in the
/// repository to what the agent is given (Claude Code and Gemini CLI take
/// absolute paths, Codex relative ones).
export function script(p) {
  return (prompt) => {
    if (prompt.includes("turn one")) {
      return [
        { tool: "read", args: { path: p("a.txt") } },
        { tool: "edit", args: { path: p("a.txt"), old: "two", new: "TWO" } },
        { tool: "shell", args: { command: "printf 'made by shell\\n' > b.txt" } },
        { text: "turn one done" },
      ];
    }
    if (prompt.includes("turn two")) {
      return [
        { tool: "read", args: { path: p("a.txt") } },
        { tool: "edit", args: { path: p("a.txt"), old: "three", new: "THREE" } },
        { tool: "shell", args: { command: "printf 'second turn\\n' > c.txt && rm b.txt" } },
        { text: "turn two done" },
      ];
    }
    return [{ text: "nothing to do" }];
  };
}

/// A repository holding a.txt in one commit, a home, and the environment
/// every command of the test runs with.
export function makeRepo() {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "evolv-agents-")));
  const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "evolv-agents-home-")));
  const env = {
    PATH: `${path.dirname(BIN)}:${path.dirname(process.execPath)}:${process.env.PATH}`,
    HOME: home,
    XDG_STATE_HOME: path.join(home, ".local", "state"),
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: path.join(home, ".gitconfig"),
    GIT_AUTHOR_NAME: "E2E", GIT_AUTHOR_EMAIL: "e2e@example.com",
    GIT_COMMITTER_NAME: "E2E", GIT_COMMITTER_EMAIL: "e2e@example.com",
    TZ: "UTC", LC_ALL: "C", NO_COLOR: "1",
    GIT_EVOLV_AGENT_LOG: path.join(home, "agent-hook.log"),
  };
  const git = (...args) => execFileSync("git", args, { cwd: dir, env, encoding: "utf8" }).trim();
  git("init", "-q", "-b", "main");
  fs.writeFileSync(path.join(dir, "a.txt"), "one\ntwo\nthree\n");
  git("add", "-A");
  git("commit", "-qm", "initial");
  const evolv = (...args) => spawnSync(BIN, args, { cwd: dir, env, encoding: "utf8" });
  const read = (p) => (fs.existsSync(path.join(dir, p)) ? fs.readFileSync(path.join(dir, p), "utf8") : null);
  const hookLog = () => {
    if (!fs.existsSync(env.GIT_EVOLV_AGENT_LOG)) return [];
    return fs.readFileSync(env.GIT_EVOLV_AGENT_LOG, "utf8").trim().split("\n").filter(Boolean).map((l) => JSON.parse(l));
  };
  const cleanup = () => {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  };
  return { dir, home, env, git, evolv, read, hookLog, cleanup };
}

/// Runs a CLI to its end (killed after `timeout` ms); resolves to
/// { code, out, err }.
export function run(name, args, { cwd, env, timeout = 180000 }) {
  return new Promise((resolve) => {
    const p = spawn(cli(name), args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    p.stdout.on("data", (d) => (out += d));
    p.stderr.on("data", (d) => (err += d));
    const t = setTimeout(() => p.kill("SIGKILL"), timeout);
    p.on("close", (code) => {
      clearTimeout(t);
      resolve({ code, out, err });
    });
  });
}

/// Whether this git-evolv has the checkpoint engine (`checkpoints`).
export function hasEngine(repo) {
  const r = repo.evolv("checkpoints", "--json");
  return r.status === 0;
}

export { startModelServer };
