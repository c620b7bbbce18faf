// End-to-end: the review page in a real headless chromium. It never
// sleeps: every wait is on an attribute the page sets when it has rendered
// what an event changed (body[data-seq]) or an action finished.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { makeRepo, serve, browser, seq, waitForSeqAndSelector, root } from "./harness.mjs";

const XSS = `<img src=x onerror="window.__xss=1">`;
let repo, server, b;
// Enough files, each tall enough, that most are below the first screen.
const MANY = Array.from({ length: 24 }, (_, i) => `many/f${String(i).padStart(2, "0")}.txt`);
const lines = (f) => Array.from({ length: 60 }, (_, i) => `line ${i + 1} of ${f}\n`).join("");
const dialogs = [];

before(async () => {
  repo = makeRepo({
    "backend/user.go": "package main\n\nfunc getUserData() string {\n\treturn \"user\"\n}\n",
    "backend/auth.go": "package main\n\nfunc auth() {\n\tuser := getUserData()\n\t_ = user\n}\n",
    [`web/${XSS}.html`]: `<script>window.__xss = 1</script>\n<p>hello</p>\n`,
    "Cargo.lock": "version = 3\n\n[[package]]\nname = \"a\"\n",
    "old/gone.txt": "soon gone\n",
    ...Object.fromEntries(MANY.map((f) => [f, lines(f)])),
  });
  repo.git("config", "evolv.validate", "echo validating one; echo validating two");
  server = await serve(repo);
  b = await browser();
  b.page.on("dialog", (d) => { dialogs.push(d.message()); d.dismiss(); });
  b.page.on("pageerror", (e) => { throw e; });
});

after(async () => {
  if (b) await b.close();
  if (server) assert.equal(await server.stop(), 0, "serve stops cleanly on SIGINT");
  if (repo) repo.cleanup();
});

test("a CLI proposal appears live, is commented on, applied, and git agrees", async () => {
  const { page } = b;
  await page.goto(server.url);
  // The token left the URL; the cookie is HttpOnly (invisible to script).
  assert.equal(new URL(page.url()).search, "");
  assert.equal(await page.evaluate(() => document.cookie), "");
  await page.waitForSelector("body[data-connected='1'][data-handled]");
  await page.waitForSelector("#empty");

  const seen = await seq(page);
  const out = repo.evolv("propose", "--json", "--pattern", "getUserData", "--replacement", "fetchUserData");
  const id = JSON.parse(out).patch_id;
  await waitForSeqAndSelector(page, seen, `tr[data-id="${id}"]`);
  assert.equal(await page.getAttribute(`tr[data-id="${id}"]`, "data-status"), "pending");

  await page.click(`tr[data-id="${id}"] a`);
  assert.equal(new URL(page.url()).pathname, `/p/${id}`);
  const file = `section.file[data-path="backend/user.go"]`;
  await page.waitForSelector(`${file}[data-rendered='1']`);
  const row = `${file} td.ln[data-side="new"][data-line="3"]`;
  await page.hover(row);
  await page.click(`${row} .add-comment`);
  await page.fill("textarea.comment-text", "Name it fetchUser; <b>not bold</b>");
  await page.click("button.save-comment");
  await page.waitForSelector("#comments[data-count='1']");

  // A selected passage becomes a locator with columns; "Copy as locator".
  await page.evaluate((sel) => {
    const cell = document.querySelector(sel).closest("tr").querySelector("td.code");
    const word = cell.querySelector(".w") || cell;
    const text = word.firstChild;
    const start = text.textContent.indexOf("fetchUserData");
    const range = document.createRange();
    range.setStart(text, start);
    range.setEnd(text, start + "fetchUserData".length);
    window.getSelection().removeAllRanges();
    window.getSelection().addRange(range);
    document.dispatchEvent(new MouseEvent("mouseup", { bubbles: true }));
  }, row);
  await page.click("#selection-button");
  const form = "tr.comment-row.form";
  assert.equal(await page.textContent(`${form} .mono`), "backend/user.go:3:6-3:19 (new)");
  await page.click(`${form} button.copy-locator`);
  await page.waitForSelector("body[data-last-copied]");
  assert.deepEqual(JSON.parse(await page.getAttribute("body", "data-last-copied")), {
    path: "backend/user.go", side: "new", start_line: 3, start_col: 6, end_line: 3, end_col: 19,
  });
  await page.click(`${form} button:text("Cancel")`);

  // Nothing but the file's own parts under its header (a replace records
  // no per-file results: no empty box, no stray text).
  assert.deepEqual(await page.$eval(file, (s) => Array.from(s.childNodes, (n) => n.nodeName)),
    ["HEADER", "DIV"]);

  fs.mkdirSync(path.join(root, "docs/images"), { recursive: true });
  // The screenshot shows the page at rest: no toast, no change highlight.
  await page.evaluate(() => {
    const toast = document.getElementById("toast");
    toast.style.transition = "none";
    toast.classList.remove("show");
    document.querySelectorAll(".changed").forEach((e) => e.classList.remove("changed"));
    window.scrollTo(0, 0);
  });
  await page.screenshot({ path: path.join(root, "docs/images/review-page.png") });

  const shown = JSON.parse(repo.evolv("show", "--json", id));
  assert.equal(shown.comments.length, 1);
  assert.deepEqual(shown.comments[0].locator, {
    path: "backend/user.go", side: "new", start_line: 3, start_col: 1, end_line: 3,
    end_col: "func fetchUserData() string {".length + 1,
  });
  assert.equal(shown.comments[0].quote, "func fetchUserData() string {");
  assert.equal(shown.comments[0].body, "Name it fetchUser; <b>not bold</b>");

  const before = repo.git("rev-parse", "HEAD");
  await page.click("#apply");
  await page.click("#confirm-ok");
  await page.waitForSelector("#apply-output:is([data-state='done'], [data-state='failed'])");
  assert.equal(await page.getAttribute("#apply-output", "data-state"), "done",
    await page.textContent("#apply-output"));
  const lines = await page.$$eval("#apply-output .line", (els) => els.map((e) => e.textContent));
  assert.deepEqual(lines, ["validating one", "validating two"]);
  assert.equal(repo.git("rev-parse", "HEAD~1"), before);
  assert.equal(repo.git("rev-parse", "HEAD"), repo.git("rev-parse", `refs/evolv/applied/${id}`));
  assert.equal(repo.git("status", "--porcelain"), "");
  assert.match(fs.readFileSync(path.join(repo.dir, "backend/user.go"), "utf8"), /fetchUserData/);
  // The page learns the new status from the feed.
  await page.waitForSelector("#proposal-head .badge[data-status='applied']");
});

test("HTML and script in names, messages, lines and comments stay text", async () => {
  const { page } = b;
  const out = repo.evolv("propose", "--json", "--literal", "--pattern", "hello",
    "--replacement", `${XSS}<script>window.__xss=2</script>`, "--message", `${XSS} summary`,
    "--scope", "web/**");
  const id = JSON.parse(out).patch_id;
  await page.goto(server.url.replace(/\/\?token=.*/, "/"));
  await page.waitForSelector(`tr[data-id="${id}"]`);
  assert.equal(await page.textContent(`tr[data-id="${id}"] td.summary`), `${XSS} summary`);
  await page.goto(server.url.replace(/\/\?token=.*/, `/p/${id}`));
  // The only file; its path is the payload.
  const file = `section.file[data-index="0"]`;
  await page.waitForSelector(`${file}[data-rendered='1']`);
  assert.equal(await page.getAttribute(file, "data-path"), `web/${XSS}.html`);
  assert.equal(await page.textContent(`${file} header .path`), `web/${XSS}.html`);
  const row = `${file} td.ln[data-side="new"][data-line="2"]`;
  await page.hover(row);
  await page.click(`${row} .add-comment`);
  await page.fill("textarea.comment-text", `${XSS}<script>window.__xss=3</script>`);
  await page.click("button.save-comment");
  await page.waitForSelector("#comments[data-count='1']");
  const code = await page.$$eval(`${file} td.code`, (els) => els.map((e) => e.textContent).join("\n"));
  assert.ok(code.includes(`${XSS}<script>window.__xss=2</script>`), code);
  assert.equal(await page.evaluate(() => window.__xss), undefined);
  assert.equal(await page.$$eval("main img, main script", (els) => els.length), 0);
  assert.deepEqual(dialogs, []);
});

test("validator results are shown per file, their output as text", async () => {
  const { page } = b;
  repo.git("config", "evolv.validator.gate.glob", "backend/*.go");
  repo.git("config", "evolv.validator.gate.command",
    `echo '${XSS}<script>window.__xss=4</script>' {files}; exit 2`);
  const list = path.join(repo.home, "edits.json");
  fs.writeFileSync(list, JSON.stringify({ edits: [
    { op: "replace", path: "backend/auth.go", old: "_ = user", new: "_ = user // checked" },
    { op: "replace", path: "web/" + XSS + ".html", old: "<p>hello</p>", new: "<p>bye</p>" },
  ] }));
  const out = repo.evolv("propose", "--json", "--check", "warn", "--edits", list);
  repo.git("config", "--unset", "evolv.validator.gate.glob");
  repo.git("config", "--unset", "evolv.validator.gate.command");
  const id = JSON.parse(out).patch_id;
  await page.goto(server.url.replace(/\/\?token=.*/, `/p/${id}`));
  const go = `section.file[data-path="backend/auth.go"]`;
  const gate = `${go} .results details.validator[data-name="gate"][data-passed="0"]`;
  await page.waitForSelector(gate);
  assert.match(await page.textContent(`${gate} summary`), /^✗ gate \(.*\) failed, exit 2$/);
  assert.equal((await page.textContent(`${gate} pre.output`)).trim(),
    `${XSS}<script>window.__xss=4</script> backend/auth.go`);
  assert.equal(await page.textContent(`${go} .results .locator`), "backend/auth.go:5:1-5:21 (new)");
  // The HTML file was not matched by the glob: no validator under it.
  const counts = await page.$$eval("section.file", (secs) => secs.map((s) =>
    [s.dataset.path, s.querySelector(".results").dataset.validators]));
  assert.deepEqual(counts, [["backend/auth.go", "1"], [`web/${XSS}.html`, "0"]]);
  assert.match(await page.textContent("#metadata"), /gate FAILED/);
  assert.equal(await page.evaluate(() => window.__xss), undefined);
  assert.equal(await page.$$eval("main img, main script", (els) => els.length), 0);
});

test("keys move between files and hunks; viewed, generated and deleted files collapse; files render lazily", async () => {
  const { page } = b;
  const list = path.join(repo.home, "many.json");
  fs.writeFileSync(list, JSON.stringify({ edits: [
    ...MANY.flatMap((f) => [
      { op: "replace", path: f, old: `line 10 of ${f}\n`, new: `LINE 10 of ${f}\n` },
      { op: "replace", path: f, old: `line 50 of ${f}\n`, new: `LINE 50 of ${f}\n` }]),
    { op: "replace", path: "Cargo.lock", old: "version = 3", new: "version = 4" },
    { op: "delete", path: "old/gone.txt" },
  ] }));
  const id = JSON.parse(repo.evolv("propose", "--json", "--edits", list)).patch_id;
  // A URL per proposal.
  await page.goto(server.url.replace(/\/\?token=.*/, `/p/${id}`));
  const sec = (p) => `section.file[data-path="${p}"]`;
  await page.waitForSelector(`${sec(MANY[0])}[data-rendered='1']`);
  const files = await page.$$eval("section.file", (s) => s.map((e) =>
    [e.dataset.path, e.classList.contains("collapsed"), e.dataset.rendered]));
  assert.equal(files.length, MANY.length + 2);
  const by = new Map(files.map(([p, c, r]) => [p, { collapsed: c, rendered: r }]));
  // Generated (a lock file) and deleted files start collapsed, unrendered.
  assert.deepEqual(by.get("Cargo.lock"), { collapsed: true, rendered: "0" });
  assert.deepEqual(by.get("old/gone.txt"), { collapsed: true, rendered: "0" });
  assert.equal(by.get(MANY[0]).collapsed, false);
  // Lazy: the files far below the first screen have not been fetched.
  assert.equal(by.get(MANY[MANY.length - 1]).rendered, "0");
  const rendered = files.filter(([, , r]) => r === "1").length;
  assert.ok(rendered < MANY.length / 2, `rendered ${rendered} of ${files.length} before scrolling`);

  // j / k: next and previous file (the lock file is first in git's order).
  await page.keyboard.press("j");
  await page.keyboard.press("j");
  await page.keyboard.press("j");
  await page.keyboard.press("k");
  assert.equal(await page.getAttribute("section.file.current", "data-path"), MANY[0]);
  await page.waitForSelector(`${sec(MANY[0])}[data-rendered='1']`);
  // n / p: next and previous hunk, across files.
  await page.keyboard.press("n");
  const hunk = () => page.$eval("tr.hunk.current", (r) =>
    [r.closest("section").dataset.path, r.dataset.hunk]);
  const first = await hunk();
  await page.keyboard.press("n");
  const second = await hunk();
  assert.notDeepEqual(second, first);
  await page.keyboard.press("p");
  assert.deepEqual(await hunk(), first);

  // v: viewed; it collapses, and stays so after a reload.
  await page.keyboard.press("j");
  const cur = await page.getAttribute("section.file.current", "data-path");
  await page.keyboard.press("v");
  assert.equal(await page.isChecked(`${sec(cur)} input.viewed`), true);
  assert.match(await page.getAttribute(sec(cur), "class"), /collapsed/);
  await page.reload();
  await page.waitForSelector(`${sec(MANY[0])}[data-rendered='1']`);
  assert.equal(await page.isChecked(`${sec(cur)} input.viewed`), true);
  assert.match(await page.getAttribute(sec(cur), "class"), /collapsed/);
  await page.uncheck(`${sec(cur)} input.viewed`);
  assert.doesNotMatch(await page.getAttribute(sec(cur), "class"), /collapsed/);

  // s: side by side and back; the deleted file opens with o.
  await page.keyboard.press("s");
  await page.waitForSelector(`${sec(MANY[0])} table.diff.split`);
  assert.equal(await page.textContent("#toggle-split"), "Unified");
  const pair = await page.$$eval(`${sec(MANY[0])} tr.pair td.code.del, ${sec(MANY[0])} tr.pair td.code.add`,
    (tds) => tds.slice(0, 2).map((td) => [td.dataset.side, td.textContent]));
  assert.deepEqual(pair, [["old", `line 10 of ${MANY[0]}`], ["new", `LINE 10 of ${MANY[0]}`]]);
  await page.keyboard.press("s");
  await page.waitForSelector(`${sec(MANY[0])} table.diff:not(.split)`);
  await page.click(`${sec("old/gone.txt")} header .toggle`);
  await page.waitForSelector(`${sec("old/gone.txt")}[data-rendered='1'] td.code.del`);
  // u: back to the list.
  await page.keyboard.press("u");
  await page.waitForSelector(`tr[data-id="${id}"]`);
  assert.equal(new URL(page.url()).pathname, "/");
});

// Issue 25 item 8: a big proposal opens without its lines. The open
// response has the file list only; a long file comes a page at a time as
// the reader scrolls, and a file far down the list when it is reached.
test("a big proposal opens with one page of one file; the rest comes on scrolling", async () => {
  const big = Array.from({ length: 1500 }, (_, i) => `let v${i} = compute(alpha, ${i});\n`).join("");
  const small = Object.fromEntries(Array.from({ length: 12 }, (_, i) =>
    [`z/f${String(i).padStart(2, "0")}.rs`, Array.from({ length: 40 }, (_, j) => `alpha ${j}\n`).join("")]));
  const r = makeRepo({ "a/big.rs": big, ...small });
  const s = await serve(r);
  const { page } = b;
  const asked = [];
  const onResponse = async (res) => {
    const u = new URL(res.url());
    if (u.pathname.startsWith("/api/proposals/")) asked.push({ path: u.pathname + u.search, bytes: (await res.body()).length });
  };
  page.on("response", onResponse);
  try {
    const id = JSON.parse(r.evolv("propose", "--json", "--pattern", "alpha", "--replacement", "beta")).patch_id;
    await page.goto(s.url);
    await page.goto(s.url.replace(/\/\?token=.*/, `/p/${id}`));
    const sec = (p) => `section.file[data-path="${p}"]`;
    // Its first page: 500 removed lines of 1,500 (all before the added).
    await page.waitForSelector(`${sec("a/big.rs")}[data-rendered='1'] td.code.del`);
    const open = asked.find((a) => a.path === `/api/proposals/${id}`);
    assert.ok(open && open.bytes < 16384, `open response ${open && open.bytes} bytes`);
    const pages = () => asked.filter((a) => a.path.includes("/file?"));
    assert.deepEqual(pages().map((a) => a.path), [`/api/proposals/${id}/file?path=a%2Fbig.rs&from=0`]);
    const last = `z/f11.rs`;
    assert.equal(await page.getAttribute(sec(last), "data-rendered"), "0");

    // Scrolling down the long file fetches its next pages, in order, and
    // draws every line once.
    for (;;) {
      const more = await page.$(`${sec("a/big.rs")} tr.more`);
      if (!more) break;
      await more.scrollIntoViewIfNeeded();
      await page.waitForFunction((el) => !el.isConnected, more);
    }
    const froms = pages().filter((a) => a.path.includes("big.rs")).map((a) => Number(a.path.split("from=")[1]));
    assert.deepEqual(froms, [0, 500, 1000, 1500, 2000, 2500]);
    const numbers = await page.$$eval(`${sec("a/big.rs")} tr[data-k='+'] td.ln[data-side='new']`,
      (tds) => tds.map((td) => Number(td.dataset.line)));
    assert.deepEqual(numbers, Array.from({ length: 1500 }, (_, i) => i + 1));
    assert.equal(await page.textContent(`${sec("a/big.rs")} tr[data-k='+'][data-line='1500'] td.code`),
      "let v1499 = compute(beta, 1499);");

    // Side by side, drawn again from the pages held: each removed line
    // beside its added line, across the page edges.
    await page.keyboard.press("s");
    await page.waitForSelector(`${sec("a/big.rs")} table.diff.split`);
    for (;;) {
      const more = await page.$(`${sec("a/big.rs")} tr.more`);
      if (!more) break;
      await more.scrollIntoViewIfNeeded();
      await page.waitForFunction((el) => !el.isConnected, more);
    }
    const pairs = await page.$$eval(`${sec("a/big.rs")} tr.pair`, (trs) => trs.map((tr) =>
      Array.from(tr.querySelectorAll("td.code")).map((td) => td.textContent)));
    assert.equal(pairs.length, 1500);
    assert.deepEqual(pairs[777], ["let v777 = compute(alpha, 777);", "let v777 = compute(beta, 777);"]);
    await page.keyboard.press("s");

    // The last file shows its hunks once scrolled to.
    await page.$eval(sec(last), (el) => el.scrollIntoView());
    await page.waitForSelector(`${sec(last)}[data-rendered='1'] td.code.add`);
    assert.equal(await page.textContent(`${sec(last)} tr[data-k='+'] td.code`), "beta 0");
  } finally {
    page.off("response", onResponse);
    await s.stop();
    r.cleanup();
  }
});
