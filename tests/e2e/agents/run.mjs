// Runs the suite: `node run.mjs PATH/TO/git-evolv` (or GIT_EVOLV_BIN=…,
// else target/debug/git-evolv), with node's own test runner.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = process.argv[2] || process.env.GIT_EVOLV_BIN || path.resolve(here, "../../../target/debug/git-evolv");
if (!fs.existsSync(bin)) {
  console.error(`error: no git-evolv binary at ${bin}`);
  process.exit(2);
}
const files = fs.readdirSync(here).filter((f) => f.endsWith(".test.mjs")).sort();
const r = spawnSync(process.execPath, ["--test", "--test-concurrency=1", "--test-timeout=600000", ...files], {
  cwd: here,
  stdio: "inherit",
  env: { ...process.env, GIT_EVOLV_BIN: path.resolve(bin) },
});
process.exit(r.status ?? 1);
