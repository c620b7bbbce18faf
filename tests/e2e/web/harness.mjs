// Shared by the end-to-end suite and the benchmark: a scratch repository,
// `git evolv serve` on it, and Debian's chromium driven by playwright-core.
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, "../../..");
export const BIN = process.env.GIT_EVOLV_BIN || path.join(root, "target/debug/git-evolv");
export const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";

/// A repository in a temp dir, with git's environment sealed off.
export function makeRepo(files) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "evolv-e2e-"));
  const home = fs.mkdtempSync(path.join(os.tmpdir(), "evolv-home-"));
  const env = {
    PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: path.join(home, ".gitconfig"), TZ: "UTC", LC_ALL: "C", GIT_EDITOR: ":",
  };
  const git = (...args) => execFileSync("git", args, { cwd: dir, env, encoding: "utf8" }).trim();
  const evolv = (...args) => execFileSync(BIN, args, { cwd: dir, env, encoding: "utf8", maxBuffer: 1 << 28 });
  git("init", "-q", "-b", "main");
  git("config", "user.name", "Reviewer");
  git("config", "user.email", "reviewer@example.com");
  for (const [p, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
    fs.writeFileSync(path.join(dir, p), content);
  }
  git("add", "-A");
  git("commit", "-qm", "initial");
  const cleanup = () => {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  };
  return { dir, home, env, git, evolv, cleanup };
}

/// Starts `git evolv serve` (of binary `bin`) and resolves to
/// {url, port, proc, stop()}.
export function serve(repo, port = 0, bin = BIN) {
  const args = ["serve", "--no-open"];
  if (port) args.push("--port", String(port));
  const proc = spawn(bin, args, { cwd: repo.dir, env: repo.env, stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  proc.stderr.on("data", (d) => { err += d; });
  return new Promise((resolve, reject) => {
    let out = "";
    proc.on("exit", (code) => reject(new Error(`serve exited ${code}: ${err}`)));
    proc.stdout.on("data", (d) => {
      out += d;
      const nl = out.indexOf("\n");
      if (nl < 0) return;
      const url = out.slice(0, nl).trim();
      const port = Number(new URL(url).port);
      const stop = () => new Promise((done) => {
        if (proc.exitCode !== null) return done(proc.exitCode);
        proc.removeAllListeners("exit");
        proc.on("exit", (code) => done(code));
        proc.kill("SIGINT");
      });
      resolve({ url, port, proc, stop });
    });
  });
}

/// Chromium with the flags the issue names and a fresh profile.
export async function browser() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "evolv-chromium-"));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    viewport: { width: 1280, height: 860 },
  });
  const page = ctx.pages()[0] || (await ctx.newPage());
  const close = async () => {
    await ctx.close();
    fs.rmSync(profile, { recursive: true, force: true });
  };
  return { ctx, page, close };
}

/// The page's event sequence, as it last rendered it.
export async function seq(page) {
  return Number((await page.getAttribute("body", "data-seq")) || 0);
}

/// Waits (without sleeping: on the page's own attributes) until the page
/// has handled an event after `after` and `selector` matches.
export async function waitForSeqAndSelector(page, after, selector, timeout = 10000) {
  await page.waitForFunction(([after, selector]) =>
    Number(document.body.dataset.seq || 0) > after && document.querySelector(selector) !== null,
  [after, selector], { timeout, polling: "raf" });
}
