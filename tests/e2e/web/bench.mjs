// The review page's acceptance figures (issue 12, item 7), measured in
// headless chromium against the release binary. Prints a Markdown table
// for BENCHMARKS.md. Run with scripts/bench_web.sh.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { makeRepo, serve, browser, BIN } from "./harness.mjs";

const ROUNDS = Number(process.env.ROUNDS || 20);

function p95(xs) {
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil(s.length * 0.95) - 1)];
}
const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/// `files` files of `lines` lines each, every line changed by the proposal.
function bigRepo(files, lines) {
  const content = {};
  for (let f = 0; f < files; f++) {
    let text = "";
    for (let i = 0; i < lines; i++) text += `let value_${i} = compute(alpha, ${i}); // line ${i}\n`;
    content[`src/file_${String(f).padStart(3, "0")}.rs`] = text;
  }
  const repo = makeRepo(content);
  const id = JSON.parse(repo.evolv("propose", "--json", "--pattern", "alpha", "--replacement", "beta")).patch_id;
  return { repo, id };
}

async function firstFile(page, url, id) {
  const base = url.replace(/\/\?token=.*/, "");
  await page.goto(`${base}/p/${id}`);
  await page.waitForSelector("section.file[data-rendered='1']");
  const first = Number(await page.getAttribute("body", "data-first-file-ms"));
  // Interactive: the first key press after the first file is handled.
  await page.keyboard.press("j");
  await page.waitForSelector("section.file.current");
  const interactive = await page.evaluate(() => performance.now());
  // Every node (elements, text, comments), as the issue counts them.
  const nodes = await page.evaluate(() => {
    const walk = document.createTreeWalker(document, NodeFilter.SHOW_ALL);
    let n = 1;
    while (walk.nextNode()) n++;
    return n;
  });
  const elements = await page.evaluate(() => document.getElementsByTagName("*").length);
  return { first, interactive, nodes, elements };
}

async function proposalFigures(b, files, lines) {
  const { repo, id } = bigRepo(files, lines);
  const server = await serve(repo);
  try {
    await b.page.goto(server.url);
    const runs = [];
    for (let i = 0; i < 5; i++) runs.push(await firstFile(b.page, server.url, id));
    return {
      first: median(runs.map((r) => r.first)),
      interactive: median(runs.map((r) => r.interactive)),
      nodes: Math.max(...runs.map((r) => r.nodes)),
      elements: Math.max(...runs.map((r) => r.elements)),
    };
  } finally {
    await server.stop();
    repo.cleanup();
  }
}

async function liveFigures(b) {
  const repo = makeRepo({ "a.txt": Array.from({ length: 50 }, (_, i) => `line ${i}\n`).join("") });
  const server = await serve(repo);
  const { page } = b;
  try {
    await page.goto(server.url);
    await page.waitForSelector("body[data-connected='1'][data-handled]");
    const lat = [];
    for (let i = 0; i < ROUNDS; i++) {
      const before = Number(await page.getAttribute("body", "data-seq"));
      const out = repo.evolv("propose", "--json", "--pattern", `line ${i}$`, "--replacement", `changed ${i}`);
      const exited = Date.now();
      const id = JSON.parse(out).patch_id;
      await page.waitForFunction(([before, id]) => Number(document.body.dataset.seq) > before
        && document.querySelector(`tr[data-id="${id}"]`), [before, id], { polling: "raf" });
      const shown = Number(await page.getAttribute("body", "data-seq-at"));
      lat.push(Math.max(0, shown - exited));
    }
    // Validation output: each line stamped when printed, then when shown.
    repo.git("config", "evolv.validate",
      "for i in 1 2 3 4 5 6; do echo \"stamp $(date +%s%3N)\"; sleep 0.25; done");
    const id = JSON.parse(repo.evolv("propose", "--json", "--pattern", "line 49$", "--replacement", "x")).patch_id;
    await page.goto(server.url.replace(/\/\?token=.*/, `/p/${id}`));
    await page.click("#apply");
    await page.click("#confirm-ok");
    await page.waitForSelector("#apply-output[data-state='done'], #apply-output[data-state='failed']");
    const stream = await page.$$eval("#apply-output .line", (els) =>
      els.map((e) => Number(e.dataset.at) - Number(e.textContent.replace("stamp ", ""))));

    // Restart: the page reconnects and catches up with a proposal made
    // while the server was down.
    const port = server.port;
    await server.stop();
    const missed = JSON.parse(repo.evolv("propose", "--json", "--pattern", "line 3$", "--replacement", "y")).patch_id;
    const restartAt = Date.now();
    const again = await serve(repo, port);
    await page.goto(again.url.replace(/\/\?token=.*/, "/")).catch(() => {});
    await page.waitForSelector(`tr[data-id="${missed}"]`, { timeout: 10000 });
    const reconnect = Date.now() - restartAt;
    await again.stop();
    return { p95: p95(lat), median: median(lat), stream: stream.length ? p95(stream) : NaN, lines: stream.length, reconnect };
  } finally {
    repo.cleanup();
  }
}

// Reconnect without a reload: the open page notices the restart itself.
async function reconnectFigure(b) {
  const repo = makeRepo({ "a.txt": "one\ntwo\n" });
  let server = await serve(repo);
  const { page } = b;
  try {
    await page.goto(server.url);
    await page.waitForSelector("body[data-connected='1'][data-handled]");
    const epoch = await page.getAttribute("body", "data-epoch");
    const port = server.port;
    await server.stop();
    await page.waitForSelector("body[data-connected='0']");
    const missed = JSON.parse(repo.evolv("propose", "--json", "--pattern", "one", "--replacement", "1")).patch_id;
    const restartAt = Date.now();
    server = await serve(repo, port);
    await page.waitForFunction(([epoch, id]) => document.body.dataset.epoch !== epoch
      && document.querySelector(`tr[data-id="${id}"]`), [epoch, missed], { polling: "raf", timeout: 10000 });
    return Date.now() - restartAt;
  } finally {
    await server.stop();
    repo.cleanup();
  }
}

const b = await browser();
try {
  const five = await proposalFigures(b, 5, 1000);
  const twenty = await proposalFigures(b, 20, 1000);
  const live = await liveFigures(b);
  const reconnect = await reconnectFigure(b);
  const cores = execFileSync("nproc", { encoding: "utf8" }).trim();
  const row = (what, target, value) => console.log(`| ${what} | ${target} | ${value} |`);
  const load = fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  console.log(`Review page, headless chromium, binary ${BIN}, ${cores} cores, load average ${load}, ${new Date().toISOString().slice(0, 16)} UTC:\n`);
  console.log("| measure | target | measured |\n| --- | --- | --- |");
  row("5,000-line proposal (5 files × 1,000 changed lines): first file painted", "≤ 1,000 ms", `${five.first.toFixed(0)} ms`);
  row("5,000-line proposal: interactive (first key press handled)", "≤ 1,500 ms", `${five.interactive.toFixed(0)} ms`);
  row("20,000-line proposal (20 × 1,000): first file painted", "≤ 1,000 ms", `${twenty.first.toFixed(0)} ms`);
  row("20,000-line proposal: DOM nodes before scrolling (elements)", "≤ 15,000", `${twenty.nodes} (${twenty.elements})`);
  row(`live update after the CLI's exit, p95 of ${ROUNDS} (median)`, "≤ 500 ms", `${live.p95} ms (${live.median} ms)`);
  row(`streamed validation line, p95 of ${live.lines} lines`, "≤ 300 ms", `${live.stream} ms`);
  row("server restart → open page reconnected and caught up (no reload)", "≤ 3,000 ms", `${reconnect} ms`);
  row("server restart → reloaded page shows what was missed", "≤ 3,000 ms", `${live.reconnect} ms`);
} finally {
  await b.close();
}
