// Issue 25 item 8: how long a proposal takes to show its first diff row,
// a big one against a 1-line one, in headless chromium. The time is the
// page's own `performance.now()` (from navigation start) when the first
// file's rows are in the DOM (body[data-first-file-ms]). Cases alternate,
// run by run, so the machine's load falls on each alike; the median of
// RUNS is reported. Each run opens the proposal on a server started
// afresh (same port, so the page's cookie still holds): nothing the
// server kept from the run before (the hunks of a file paged through)
// makes a run faster than a first open. With OLD_BIN set, that binary is measured in the same
// runs too (the "before"). Run with scripts/bench_web_open.sh.
import fs from "node:fs";
import { makeRepo, serve, browser, BIN } from "./harness.mjs";

const RUNS = Number(process.env.RUNS || 11);
const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const line = (i, w) => `let value_${i} = compute(${w}, ${i}); // line ${i}\n`;
const text = (n, w) => Array.from({ length: n }, (_, i) => line(i, w)).join("");

/// The proposals: name → files, then a propose that changes them.
const CASES = [
  ["1-line proposal (1 of 50 lines)", { "src/a.rs": text(50, "alpha") }, ["--pattern", "alpha, 7\\)", "--replacement", "beta, 7)"]],
  ["20,000 lines in 20 files (20 × 1,000 changed)", Object.fromEntries(Array.from({ length: 20 },
    (_, f) => [`src/file_${String(f).padStart(3, "0")}.rs`, text(1000, "alpha")])), ["--pattern", "alpha", "--replacement", "beta"]],
  ["20,000 lines in 1 file (all changed)", { "src/big.rs": text(20000, "alpha") }, ["--pattern", "alpha", "--replacement", "beta"]],
];

async function firstRow(page, base, id) {
  await page.goto("about:blank");
  await page.goto(`${base}/p/${id}`);
  await page.waitForSelector("body[data-first-file-ms]", { timeout: 60000 });
  return Number(await page.getAttribute("body", "data-first-file-ms"));
}

const bins = [["after", BIN], ...(process.env.OLD_BIN ? [["before", process.env.OLD_BIN]] : [])];
const b = await browser();
const setups = [];
try {
  for (const [name, files, args] of CASES) {
    const repo = makeRepo(files);
    const id = JSON.parse(repo.evolv("propose", "--json", ...args)).patch_id;
    for (const [which, bin] of bins) {
      const server = await serve(repo, 0, bin);
      await b.page.goto(server.url); // the token, for this port's cookie
      setups.push({ name, which, bin, repo, id, server, base: server.url.replace(/\/\?token=.*/, ""), times: [] });
    }
  }
  const fresh = async (s) => {
    await s.server.stop();
    s.server = await serve(s.repo, s.server.port, s.bin);
    return firstRow(b.page, s.base, s.id);
  };
  for (const s of setups) await fresh(s); // warm-up (the browser's cache of the assets)
  for (let r = 0; r < RUNS; r++) {
    for (const s of setups) s.times.push(await fresh(s));
  }
  const load = fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  console.log(`First diff row, headless chromium, ${RUNS} alternating runs (each on a server started afresh), load average ${load}, ${new Date().toISOString().slice(0, 16)} UTC:\n`);
  console.log("| binary | proposal | median | min | max | median / 1-line median |\n| --- | --- | ---: | ---: | ---: | ---: |");
  for (const [which] of bins) {
    const mine = setups.filter((s) => s.which === which);
    const small = median(mine[0].times);
    for (const s of mine) {
      const m = median(s.times);
      console.log(`| ${which} | ${s.name} | ${m.toFixed(0)} ms | ${Math.min(...s.times).toFixed(0)} ms | ${Math.max(...s.times).toFixed(0)} ms | ${(m / small).toFixed(2)}× |`);
    }
  }
} finally {
  for (const s of setups) await s.server.stop();
  for (const r of new Set(setups.map((s) => s.repo))) r.cleanup();
  await b.close();
}
