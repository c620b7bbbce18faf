// The review page of `git evolv serve`. Plain DOM, no framework, no build
// step. Every piece of repository data goes into the page through
// textContent or attribute setters, never as HTML: a proposal full of
// <script> runs nothing. The Content-Security-Policy forbids inline script.
"use strict";

const ROWS_PER_CHUNK = 400;
const state = {
  epoch: null,
  seq: 0,
  handled: 0,
  view: null, // {kind: "list"} | {kind: "proposal", id, data}
  split: localStorage.getItem("evolv-split") === "1",
  changed: new Map(), // patch id -> time it changed live
  observer: null,
  current: -1,
  received: null,
};

// ---------- small helpers ----------

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "text") el.textContent = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

// replaceChildren, skipping the null/false of conditional children.
function fill(el, ...children) {
  el.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  return el;
}

function toast(text) {
  const t = document.getElementById("toast");
  t.textContent = text;
  t.classList.add("show");
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => t.classList.remove("show"), 2500);
}

function age(seconds) {
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86400)}d`;
}

class ApiError extends Error {
  constructor(status, body) {
    const e = (body && body.error) || {};
    super(e.message || `HTTP ${status}`);
    this.status = status;
    this.code = e.code || String(status);
    this.hint = e.hint || "";
  }
}

async function api(method, path, body) {
  const opts = { method, credentials: "same-origin", headers: {} };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const res = await fetch(path, opts);
  if (res.status === 401) {
    signedOut();
    throw new ApiError(401, null);
  }
  const text = await res.text();
  let data = null;
  try { data = JSON.parse(text); } catch (_) { data = null; }
  if (!res.ok) throw new ApiError(res.status, data);
  return data;
}

function signedOut() {
  const main = document.getElementById("main");
  fill(main, h("p", { class: "banner error", text:
    "Not signed in: open the URL (with its token) that `git evolv serve` printed." }));
}

function errorBanner(e) {
  return h("div", { class: "banner error", role: "alert" },
    h("strong", { text: e.code ? `${e.code}: ` : "" }), e.message,
    e.hint ? h("div", { class: "muted", text: `hint: ${e.hint}` }) : null);
}

function badge(status) {
  return h("span", { class: `badge ${status}`, dataset: { status }, text: status });
}

// The stored verdict of evolv.validate on the proposal's tree (what apply
// reuses): its state, and when, where and by whom it was made.
function verdictBadge(v) {
  if (!v) return null;
  const when = new Date(v.made_at * 1000).toISOString();
  return h("span", { class: `badge verdict ${v.status}`,
    dataset: { verdict: v.status, cached: String(v.cached), source: v.source },
    title: `\`${v.command}\` exit ${v.exit_code}, made ${when} by ${v.made_by} (${v.source})`,
    text: `${v.status} · cached ${when.slice(0, 16).replace("T", " ")}` });
}

// ---------- routing ----------

function route() {
  const m = location.pathname.match(/^\/p\/([A-Za-z0-9_-]+)$/);
  return m ? { kind: "proposal", id: m[1] } : { kind: "list" };
}

function go(path) {
  if (path !== location.pathname) history.pushState(null, "", path);
  render();
}

document.addEventListener("click", (ev) => {
  const a = ev.target.closest("a[data-nav]");
  if (!a || ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.button !== 0) return;
  ev.preventDefault();
  go(a.getAttribute("href"));
});
window.addEventListener("popstate", () => render());

async function render() {
  const r = route();
  try {
    if (r.kind === "list") await renderList();
    else await renderProposal(r.id);
  } catch (e) {
    if (e.status !== 401) fill(document.getElementById("main"), errorBanner(e));
  }
}

// ---------- the list ----------

async function renderList() {
  const data = await api("GET", "/api/proposals");
  state.view = { kind: "list" };
  document.title = "git evolv: proposals";
  setBranch(data.branch);
  const main = document.getElementById("main");
  const ops = h("section", { id: "ops" });
  if (data.proposals.length === 0) {
    fill(main, h("h1", { text: "Proposals" }),
      h("p", { class: "muted", id: "empty", text:
        "No proposals yet. They appear here as soon as `git evolv propose` (or an assistant) makes one." }),
      ops);
    renderOps(ops);
    return;
  }
  // Stacked proposals go right under the one they sit on.
  const byId = new Map(data.proposals.map((p) => [p.patch_id, p]));
  const children = new Map();
  const roots = [];
  for (const p of data.proposals) {
    if (p.onto && byId.has(p.onto)) {
      if (!children.has(p.onto)) children.set(p.onto, []);
      children.get(p.onto).push(p);
    } else roots.push(p);
  }
  const ordered = [];
  const visit = (p, depth) => {
    ordered.push([p, depth]);
    for (const c of children.get(p.patch_id) || []) visit(c, depth + 1);
  };
  roots.slice().reverse().forEach((p) => visit(p, 0));
  const rows = ordered.map(([p, depth]) => {
    // Marked for a few seconds after a live change (a fading highlight).
    const changed = Date.now() - (state.changed.get(p.patch_id) || 0) < 4000;
    return h("tr", { class: `${changed ? "changed" : ""} ${depth ? "stacked" : ""}`,
      dataset: { id: p.patch_id, status: p.status } },
      h("td", { class: "id" }, depth ? "↳ " : "",
        h("a", { href: `/p/${p.patch_id}`, "data-nav": true, text: p.patch_id })),
      h("td", { class: "num", title: new Date(p.created_at * 1000).toISOString(), text: age(p.age_seconds) }),
      h("td", { class: "summary", text: p.summary }),
      h("td", {}, badge(p.status), " ", verdictBadge(p.verdict)),
      h("td", { class: "num", text: String(p.files_changed) }),
      h("td", { class: "num" }, h("span", { class: "add", text: `+${p.lines_added}` }), " ",
        h("span", { class: "del", text: `-${p.lines_removed}` })),
      h("td", { class: "stack" }, p.onto ? h("span", { class: "muted" }, "on ",
        h("a", { href: `/p/${p.onto}`, "data-nav": true, class: "id", text: p.onto })) : ""));
  });
  fill(main,
    h("h1", { text: "Proposals" }),
    h("table", { class: "list", id: "proposals" },
      h("thead", {}, h("tr", {}, ...["ID", "Age", "Summary", "Status", "Files", "Lines", "Stack"]
        .map((t) => h("th", { text: t })))),
      h("tbody", {}, rows)),
    ops);
  renderOps(ops);
}

// ---------- the op log ----------

// The newest operations (`git evolv op log`), each with an undo button
// where there is something to put back. Errors stay inside the section:
// the proposals above are still worth showing.
async function renderOps(section) {
  let data;
  try {
    data = await api("GET", "/api/ops?n=20");
  } catch (e) {
    if (e.status !== 401) fill(section, h("h2", { text: "Operations" }), errorBanner(e));
    return;
  }
  const undone = new Set(data.operations.filter((o) => o.undoes && o.success).map((o) => o.undoes));
  const rows = data.operations.map((o) => {
    const can = o.success && !o.derived && !o.dry_run && o.refs.length > 0 && !undone.has(o.id);
    return h("tr", { dataset: { op: o.id, kind: o.kind } },
      h("td", { class: "id", title: o.id, text: o.id.slice(0, 12) }),
      h("td", { class: "num", text: o.time }),
      h("td", { text: o.kind }),
      h("td", { class: "id", text: o.patch_id }),
      h("td", { class: "muted", text: o.actor || "" }),
      h("td", {}, can ? h("button", { type: "button", class: "undo", dataset: { op: o.id },
        onclick: () => confirmUndo(o) }, "Undo") : ""));
  });
  fill(section, h("h2", { text: "Operations" }), state.undoResult || null,
    rows.length === 0 ? h("p", { class: "muted", text: "No operations yet." })
      : h("table", { class: "list", id: "op-log" },
        h("thead", {}, h("tr", {}, ...["Op", "Time", "Kind", "Proposal", "Actor", ""]
          .map((t) => h("th", { text: t })))),
        h("tbody", {}, rows)));
}

// The undo's dry run says what would change; the user confirms that.
async function confirmUndo(o) {
  // Kept until the next undo: the live feed redraws the list (and so
  // this section) as soon as the refs move.
  const result = (node) => {
    state.undoResult = node;
    renderOps(document.getElementById("ops"));
  };
  const path = `/api/ops/${encodeURIComponent(o.id)}/undo`;
  try {
    const preview = await api("POST", path, { dry_run: true });
    const u = preview.undone[0] || { refs: [], paths: [], method: "refs" };
    const how = u.method === "revert" ? `A revert commit (${u.reason || "the landing may be published"}).`
      : u.method === "reapply" ? `A commit that reapplies the change (${u.reason || "commits were made on top"}).`
        : u.method === "move_back" ? "The branch moves back and the landed files are restored."
          : u.method === "move_forward" ? "The branch moves forward again and the landed files are written."
            : "Refs are put back where they were.";
    const refs = u.refs.map((r) => r.name).join(", ");
    const files = u.paths.length ? ` Files: ${u.paths.join(", ")}.` : "";
    if (!(await ask("Undo operation", `Undo ${o.kind} of ${o.patch_id} (${o.id.slice(0, 12)})? ${how} Refs: ${refs}.${files}`))) return;
    const out = await api("POST", path, {});
    const done = out.undone[0];
    await renderList();
    result(h("div", { class: "banner", id: "undo-done", dataset: { op: o.id } },
      `${done && done.kind === "redo" ? "Redid" : "Undid"} ${o.kind} of ${o.patch_id}${done && done.id ? ` (operation ${done.id.slice(0, 12)})` : ""}.`));
  } catch (e) {
    result(errorBanner(e));
  }
}

function setBranch(branch) {
  document.getElementById("repo-branch").textContent = branch ? `on ${branch}` : "";
}

// ---------- the proposal view ----------

async function renderProposal(id) {
  const data = await api("GET", `/api/proposals/${encodeURIComponent(id)}`);
  state.view = { kind: "proposal", id, data, files: new Map() };
  state.current = -1;
  document.title = `git evolv: ${data.patch_id}`;
  setBranch(data.branch);
  const main = document.getElementById("main");
  fill(main,
    h("p", {}, h("a", { href: "/", "data-nav": true, text: "← all proposals" })),
    h("div", { id: "proposal-head" }),
    h("div", { id: "proposal-actions", class: "actions" }),
    h("pre", { id: "apply-output", dataset: { state: "idle" } }),
    h("div", { id: "action-result" }),
    metaPanel(data),
    h("div", { id: "comments", class: "panel" }),
    h("div", { id: "files" }));
  fillHead(data);
  fillComments(data.comments);
  const files = document.getElementById("files");
  if (state.observer) state.observer.disconnect();
  state.observer = new IntersectionObserver(onVisible, { rootMargin: "800px 0px" });
  data.diff_files.forEach((f, i) => files.append(fileSection(f, i)));
}

function fillHead(data) {
  const head = document.getElementById("proposal-head");
  const status = data.dropped ? "dropped" : data.status;
  fill(head,
    h("h1", { text: data.summary }),
    h("div", { class: "summary-head" },
      h("span", { class: "id", id: "proposal-id", text: data.patch_id }),
      badge(status),
      verdictBadge(data.verdict),
      h("span", { class: "badge op", text: data.operation }),
      h("span", {}, h("span", { class: "add", text: `+${data.lines_added}` }), " ",
        h("span", { class: "del", text: `-${data.lines_removed}` }),
        ` in ${data.diff_files.length} file(s)`),
      h("span", { class: "muted mono", text: `base ${data.base.slice(0, 12)} → ${data.commit.slice(0, 12)}` }),
      data.stack.length > 1 ? h("span", {}, "stack: ", ...data.stack.flatMap((s, i) => [
        i ? " → " : "", s === data.patch_id ? h("strong", { class: "id", text: s })
          : h("a", { href: `/p/${s}`, "data-nav": true, class: "id", text: s })])) : null,
      data.stacked_above.length ? h("span", { class: "muted" }, "stacked on it: ",
        ...data.stacked_above.map((s) => h("a", { href: `/p/${s}`, "data-nav": true, class: "id", text: s }))) : null));
  const actions = document.getElementById("proposal-actions");
  const applied = data.status === "applied";
  fill(actions,
    // Applying a stacked proposal lands the pending ones below it too
    // (the library decides, as for the CLI): the button says so.
    h("button", { type: "button", id: "apply", class: "primary", disabled: applied || data.dropped,
      dataset: { stack: String(data.stack.length) },
      onclick: () => confirmApply(data) }, data.stack.length > 1 ? `Apply stack (${data.stack.length})` : "Apply"),
    h("button", { type: "button", id: "drop", class: "danger", disabled: data.dropped,
      onclick: () => confirmSimple(data, "drop") }, "Drop"),
    h("button", { type: "button", id: "rollback", disabled: !applied,
      onclick: () => confirmSimple(data, "rollback") }, "Rollback"),
    h("button", { type: "button", id: "toggle-split", onclick: toggleSplit },
      state.split ? "Unified" : "Side by side"));
}

function metaPanel(data) {
  const m = data.metadata || {};
  const dl = h("dl", { class: "meta", id: "metadata" });
  const add = (k, v, cls) => {
    if (v === undefined || v === null || v === "" || (Array.isArray(v) && v.length === 0)) return;
    dl.append(h("dt", { text: k }), h("dd", { class: cls || "",
      text: typeof v === "string" ? v : JSON.stringify(v, null, 1) }));
  };
  add("operation", data.operation);
  // Per-file results are drawn with their files; here only a summary.
  const shown = new Set(["operation", "created_at", "affected_files", "files_matched",
    "lines_added", "lines_removed", "files", "validators"]);
  const vs = data.validators || [];
  if (vs.length) {
    const failed = vs.filter((v) => !v.passed);
    add("validators", vs.map((v) => `${v.name} ${v.passed ? "passed" : "FAILED"}`).join(", "),
      failed.length ? "warn" : "");
  }
  for (const [k, v] of Object.entries(m)) {
    if (shown.has(k)) continue;
    add(k.replace(/_/g, " "), v, /warn/.test(k) ? "warn" : "");
  }
  return h("div", { class: "panel" }, h("h2", { text: "Operation" }), dl);
}

function locatorText(l) {
  return `${l.path}:${l.start_line}:${l.start_col}-${l.end_line}:${l.end_col} (${l.side})`;
}

function locatorJson(l) {
  return JSON.stringify({ path: l.path, side: l.side, start_line: l.start_line, start_col: l.start_col,
    end_line: l.end_line, end_col: l.end_col });
}

async function copyLocator(l) {
  const text = locatorJson(l);
  try {
    await navigator.clipboard.writeText(text);
    toast("Locator copied");
  } catch (_) {
    toast(text);
  }
  document.body.dataset.lastCopied = text;
}

function commentBox(c) {
  return h("div", { class: "comment", dataset: { commentId: c.id } },
    h("div", { class: "who" }, h("span", { class: "mono", text: locatorText(c.locator) }),
      " · ", c.author, " · ", new Date(c.created_at * 1000).toLocaleString(), " ",
      h("button", { type: "button", class: "copy-locator", onclick: () => copyLocator(c.locator) }, "Copy as locator")),
    c.quote ? h("blockquote", { text: c.quote }) : null,
    h("div", { class: "body", text: c.body }));
}

function fillComments(comments) {
  const box = document.getElementById("comments");
  if (!box) return;
  box.dataset.count = String(comments.length);
  fill(box, h("h2", { text: `Review comments (${comments.length})` }),
    comments.length ? null : h("p", { class: "muted", text:
      "None yet. Hover a line and press +, or select text in the diff, to comment. `git evolv show` and the MCP server return them." }),
    ...comments.map(commentBox));
  // Inline copies next to the lines they point at.
  document.querySelectorAll("tr.comment-row.stored").forEach((r) => r.remove());
  if (state.view && state.view.kind === "proposal") state.view.data.comments = comments;
  document.querySelectorAll(".file[data-rendered='1']").forEach((sec) => placeComments(sec));
}

// ---------- files ----------

function fileSection(f, i) {
  const collapsed = f.generated || f.operation_type === "delete" || isViewed(f);
  const sec = h("section", { class: `file${collapsed ? " collapsed" : ""}`, id: `file-${i}`,
    dataset: { index: String(i), path: f.path, rendered: "0" } });
  const viewed = h("input", { type: "checkbox", class: "viewed", checked: isViewed(f),
    onchange: (ev) => setViewed(f, sec, ev.target.checked) });
  fill(sec,
    h("header", {},
      h("button", { type: "button", class: "toggle", "aria-label": "collapse or expand",
        onclick: () => toggleFile(sec) }, collapsed ? "▸" : "▾"),
      h("span", { class: "path", text: f.old_path ? `${f.old_path} → ${f.path}` : f.path }),
      h("span", { class: "badge op", text: f.operation_type }),
      f.generated ? h("span", { class: "badge", text: "generated" }) : null,
      f.binary ? h("span", { class: "badge", text: "binary" }) : null,
      h("span", {}, h("span", { class: "add", text: `+${f.lines_added}` }), " ",
        h("span", { class: "del", text: `-${f.lines_removed}` })),
      h("label", {}, viewed, " Viewed")),
    fileResults(f),
    h("div", { class: "body" }, h("div", { class: "placeholder",
      text: f.binary ? "Binary file: no text diff." : `${f.diff_lines} diff lines` })));
  // Keep the page's height close to its final size, so scrolling is stable.
  const ph = sec.querySelector(".placeholder");
  if (!f.binary) ph.style.height = `${Math.min(f.diff_lines, ROWS_PER_CHUNK) * 20}px`;
  state.observer.observe(sec);
  return sec;
}

// What an edit list recorded for this file when it was proposed: where
// the change sits, its warnings, and each validator's verdict with its
// output (all as text).
function fileResults(f) {
  const r = (state.view.data.files || []).find((x) => x.path === f.path);
  if (!r) return null;
  const box = h("div", { class: "results", dataset: { validators: String(r.validators.length),
    failed: String(r.validators.filter((v) => !v.passed).length) } });
  if (r.locator) {
    const l = { path: r.path, side: "new", ...r.locator };
    box.append(h("div", { class: "where" }, h("span", { class: "muted", text: "changed " }),
      h("span", { class: "mono locator", text: locatorText(l) }), " ",
      h("button", { type: "button", class: "copy-locator", onclick: () => copyLocator(l) }, "Copy as locator")));
  }
  for (const w of r.warnings || []) box.append(h("div", { class: "warn", text: `warning: ${w}` }));
  for (const v of r.validators) {
    const head = `${v.passed ? "✓" : "✗"} ${v.name}${v.command ? ` (${v.command})` : ""}` +
      `${v.passed ? " passed" : " failed"}${v.exit_code !== undefined && v.exit_code !== null ? `, exit ${v.exit_code}` : ""}`;
    box.append(h("details", { class: `validator ${v.passed ? "passed" : "failed"}`,
      open: !v.passed && v.output ? true : null, dataset: { name: v.name, passed: v.passed ? "1" : "0" } },
    h("summary", { text: head }),
    v.output ? h("pre", { class: "output", text: v.output }) : null));
  }
  return box;
}

function viewedKey(f) {
  return `evolv-viewed:${state.view.id}:${f.path}:${f.new_oid}`;
}
function isViewed(f) { return localStorage.getItem(viewedKey(f)) === "1"; }
function setViewed(f, sec, on) {
  if (on) localStorage.setItem(viewedKey(f), "1"); else localStorage.removeItem(viewedKey(f));
  sec.querySelector("input.viewed").checked = on;
  setCollapsed(sec, on);
}

function setCollapsed(sec, collapsed) {
  sec.classList.toggle("collapsed", collapsed);
  sec.querySelector("header .toggle").textContent = collapsed ? "▸" : "▾";
  if (!collapsed) loadFile(sec);
}
function toggleFile(sec) { setCollapsed(sec, !sec.classList.contains("collapsed")); }

function onVisible(entries) {
  for (const e of entries) {
    if (e.isIntersecting && !e.target.classList.contains("collapsed")) loadFile(e.target);
  }
}

// One page of a file's hunks (the server sends a bounded number of lines
// per page); its first hunk may continue the last one already held.
function filePage(v, f, from) {
  return api("GET", `/api/proposals/${encodeURIComponent(v.id)}/file` +
    `?path=${encodeURIComponent(f.path)}&from=${from}`);
}

function addPage(file, page) {
  for (const hk of page.hunks) {
    const last = file.hunks[file.hunks.length - 1];
    if (hk.cont && last) last.lines.push(...hk.lines);
    else file.hunks.push(hk);
  }
  file.next = page.next;
  file.total = page.total_lines;
  file.received = page.next === null ? page.total_lines : page.next;
}

async function loadFile(sec) {
  if (sec.dataset.rendered !== "0") return;
  const v = state.view;
  const f = v.data.diff_files[Number(sec.dataset.index)];
  if (f.binary) { sec.dataset.rendered = "1"; return; }
  sec.dataset.rendered = "loading";
  try {
    const page = await filePage(v, f, 0);
    if (state.view !== v) return;
    const file = { hunks: [], next: null, total: 0, received: 0 };
    addPage(file, page);
    v.files.set(f.path, file);
    drawFile(sec, f, file);
  } catch (e) {
    sec.dataset.rendered = "0";
    fill(sec.querySelector(".body"), errorBanner(e));
  }
}

// Rows of a file, as data: unified or side by side. While pages are still
// to come (`complete` false), side by side holds back the removed lines of
// the last change whose added lines have not all arrived: what is drawn
// never changes, later pages only add rows below it.
function rowsOf(hunks, split, complete = true) {
  const rows = [];
  hunks.forEach((hk, hi) => {
    rows.push({ hunk: hk.header, hi });
    if (!split) {
      for (const l of hk.lines) rows.push({ l });
      return;
    }
    let i = 0;
    const ls = hk.lines;
    const open = !complete && hi === hunks.length - 1;
    while (i < ls.length) {
      if (ls[i].k === " ") { rows.push({ left: ls[i], right: ls[i] }); i++; continue; }
      const dels = [], adds = [];
      while (i < ls.length && ls[i].k === "-") dels.push(ls[i++]);
      while (i < ls.length && ls[i].k === "+") adds.push(ls[i++]);
      const n = open && i === ls.length ? adds.length : Math.max(dels.length, adds.length);
      for (let j = 0; j < n; j++) rows.push({ left: dels[j], right: adds[j] });
    }
  });
  return rows;
}

function drawFile(sec, f, file) {
  const split = state.split;
  const table = h("table", { class: `diff${split ? " split" : ""}`, dataset: { path: f.path } });
  const tbody = h("tbody");
  const cols = split ? ["ln", "code", "ln", "code"] : ["ln", "ln", "mk", "code"];
  table.append(h("colgroup", {}, cols.map((c) => h("col", { class: `c-${c}` }))), tbody);
  const body = sec.querySelector(".body");
  fill(body, table);
  sec.dataset.rendered = "1";
  sec.dataset.split = split ? "1" : "0";
  // For the benchmark: when the first file's lines were on the page.
  if (!document.body.dataset.firstFileMs) document.body.dataset.firstFileMs = String(performance.now());
  appendRows(sec, tbody, f, file, 0);
}

// Draws rows [from, from + ROWS_PER_CHUNK); the rest, and the file's next
// page from the server, when the reader scrolls near the end.
function appendRows(sec, tbody, f, file, from) {
  const split = sec.dataset.split === "1";
  const rows = rowsOf(file.hunks, split, file.next === null);
  const to = Math.min(rows.length, from + ROWS_PER_CHUNK);
  const frag = document.createDocumentFragment();
  for (let i = from; i < to; i++) frag.append(rowEl(f, rows[i]));
  tbody.append(frag);
  placeComments(sec);
  sec.dataset.rows = String(to);
  if (to === rows.length && file.next === null) return;
  const more = h("tr", { class: "more" }, h("td", { colspan: "4", class: "muted",
    text: `${rows.length - to + file.total - file.received} more lines…` }));
  tbody.append(more);
  const v = state.view;
  const obs = new IntersectionObserver(async (es) => {
    if (!es.some((e) => e.isIntersecting)) return;
    obs.disconnect();
    try {
      if (to === rows.length) {
        const page = await filePage(v, f, file.next);
        if (state.view !== v || !more.isConnected) return;
        addPage(file, page);
      }
      more.remove();
      appendRows(sec, tbody, f, file, to);
    } catch (e) {
      fill(more.firstChild, errorBanner(e));
    }
  }, { rootMargin: "600px 0px" });
  obs.observe(more);
}

// A line's text with the engine's word-level changes wrapped in spans.
function codeCell(l, cls) {
  const td = h("td", { class: `code ${cls}` });
  const chars = Array.from(l.t);
  if (!l.w || l.w.length === 0) { td.textContent = l.t; return td; }
  let at = 0;
  for (const [s, e] of l.w) {
    if (s > at) td.append(chars.slice(at, s).join(""));
    td.append(h("span", { class: "w", text: chars.slice(s, e).join("") }));
    at = e;
  }
  if (at < chars.length) td.append(chars.slice(at).join(""));
  return td;
}

function kindClass(l) { return l.k === "+" ? "add" : l.k === "-" ? "del" : ""; }

function numCell(f, l, side, cls) {
  const n = side === "old" ? l.o : l.n;
  const td = h("td", { class: `ln ${cls}`, dataset: { side, line: n } }, n === null ? "" : String(n));
  if (n !== null && n !== undefined && !(side === "old" && l.k === " " && !state.split)) {
    td.prepend(h("button", { type: "button", class: "add-comment", title: "Comment on this line",
      "aria-label": `comment on ${side} line ${n}`,
      onclick: (ev) => { ev.stopPropagation(); openCommentForm(f, lineLocator(f, l, side), l.t, td.closest("tr")); } }, "+"));
  }
  return td;
}

function lineLocator(f, l, side) {
  const n = side === "old" ? l.o : l.n;
  return { path: f.path, side, start_line: n, start_col: 1, end_line: n, end_col: Array.from(l.t).length + 1 };
}

function rowEl(f, r) {
  if (r.hunk !== undefined) {
    return h("tr", { class: "hunk", dataset: { hunk: String(r.hi) } },
      h("td", { colspan: "4", class: "code", text: r.hunk }));
  }
  if (r.l) {
    const l = r.l, cls = kindClass(l);
    const side = l.k === "-" ? "old" : "new";
    const tr = h("tr", { dataset: { side, line: String(side === "old" ? l.o : l.n), k: l.k } },
      numCell(f, l, "old", cls), numCell(f, l, "new", cls),
      h("td", { class: `mk ${cls}`, text: l.k === " " ? "" : l.k }), codeCell(l, cls));
    if (l.k === " ") { tr.dataset.old = String(l.o); }
    return tr;
  }
  const tr = h("tr", { class: "pair" });
  const half = (l, side) => {
    if (!l) return [h("td", { class: "ln empty" }), h("td", { class: "code empty" })];
    const cls = l.k === " " ? "" : kindClass(l);
    const n = side === "old" ? l.o : l.n;
    return [numCell(f, l, side, cls), Object.assign(codeCell(l, cls), { })].map((td) => {
      td.dataset.side = side; td.dataset.line = String(n); return td;
    });
  };
  tr.append(...half(r.left, "old"), ...half(r.right, "new"));
  return tr;
}

function toggleSplit() {
  state.split = !state.split;
  localStorage.setItem("evolv-split", state.split ? "1" : "0");
  const v = state.view;
  if (!v || v.kind !== "proposal") return;
  document.getElementById("toggle-split").textContent = state.split ? "Unified" : "Side by side";
  document.querySelectorAll(".file[data-rendered='1']").forEach((sec) => {
    const f = v.data.diff_files[Number(sec.dataset.index)];
    const file = v.files.get(f.path);
    if (file) drawFile(sec, f, file);
  });
}

// ---------- comments ----------

function placeComments(sec) {
  const v = state.view;
  if (!v || v.kind !== "proposal") return;
  const path = sec.dataset.path;
  for (const c of v.data.comments || []) {
    if (c.locator.path !== path || sec.querySelector(`[data-comment-id="${c.id}"]`)) continue;
    const cell = sec.querySelector(
      `td.ln[data-side="${c.locator.side}"][data-line="${c.locator.end_line}"]`);
    if (!cell) continue;
    const tr = cell.closest("tr");
    tr.after(h("tr", { class: "comment-row stored" }, h("td", { colspan: "4" }, commentBox(c))));
  }
}

function openCommentForm(f, locator, quote, afterRow) {
  document.querySelectorAll("tr.comment-row.form").forEach((r) => r.remove());
  const text = h("textarea", { class: "comment-text", placeholder: "What should change here?", "aria-label": "comment" });
  const status = h("span", { class: "muted" });
  const form = h("form", { class: "comment-form", onsubmit: async (ev) => {
    ev.preventDefault();
    status.textContent = "Saving…";
    try {
      const c = await api("POST", `/api/proposals/${encodeURIComponent(state.view.id)}/comments`,
        { body: text.value, locator, quote });
      row.remove();
      const comments = (state.view.data.comments || []).concat(
        (state.view.data.comments || []).some((x) => x.id === c.id) ? [] : [c]);
      fillComments(comments);
      toast("Comment saved in git");
    } catch (e) {
      fill(status, errorBanner(e));
    }
  } },
  h("div", { class: "mono muted", text: locatorText(locator) }),
  quote ? h("blockquote", { text: quote }) : null, text,
  h("div", { class: "buttons" },
    h("button", { type: "submit", class: "primary save-comment" }, "Comment"),
    h("button", { type: "button", class: "copy-locator", onclick: () => copyLocator(locator) }, "Copy as locator"),
    h("button", { type: "button", onclick: () => row.remove() }, "Cancel"), status));
  const row = h("tr", { class: "comment-row form" }, h("td", { colspan: "4" }, form));
  afterRow.after(row);
  text.focus();
}

// A text selection inside one side of one file's diff becomes a locator.
function selectionLocator() {
  const sel = window.getSelection();
  if (!sel || sel.isCollapsed || sel.rangeCount === 0) return null;
  const range = sel.getRangeAt(0);
  const cellOf = (node) => {
    const el = node.nodeType === Node.ELEMENT_NODE ? node : node.parentElement;
    return el && el.closest("td.code");
  };
  const a = cellOf(range.startContainer), b = cellOf(range.endContainer);
  if (!a || !b) return null;
  const table = a.closest("table.diff");
  if (!table || table !== b.closest("table.diff")) return null;
  const where = (cell) => {
    const tr = cell.closest("tr");
    const side = cell.dataset.side || tr.dataset.side;
    const line = Number(cell.dataset.line || tr.dataset.line);
    return { side, line, tr };
  };
  const s = where(a), e = where(b);
  if (!s.side || s.side !== e.side || !s.line || !e.line) return null;
  const col = (cell, container, offset) => {
    const r = document.createRange();
    r.selectNodeContents(cell);
    r.setEnd(container, offset);
    return Array.from(r.toString()).length + 1;
  };
  const locator = { path: table.dataset.path, side: s.side, start_line: s.line,
    start_col: col(a, range.startContainer, range.startOffset),
    end_line: e.line, end_col: col(b, range.endContainer, range.endOffset) };
  return { locator, quote: sel.toString(), row: e.tr };
}

document.addEventListener("mouseup", () => {
  setTimeout(() => {
    const old = document.getElementById("selection-button");
    if (old) old.remove();
    const found = selectionLocator();
    if (!found) return;
    const rect = window.getSelection().getRangeAt(0).getBoundingClientRect();
    const file = state.view.data.diff_files.find((f) => f.path === found.locator.path);
    const btn = h("button", { type: "button", id: "selection-button", class: "primary",
      onmousedown: (ev) => ev.preventDefault(),
      onclick: () => { btn.remove(); openCommentForm(file, found.locator, found.quote, found.row); } },
    "Comment on selection");
    btn.style.left = `${rect.right + window.scrollX + 4}px`;
    btn.style.top = `${rect.bottom + window.scrollY + 4}px`;
    document.body.append(btn);
  }, 0);
});

// ---------- actions ----------

function ask(title, text) {
  const dlg = document.getElementById("confirm");
  document.getElementById("confirm-title").textContent = title;
  document.getElementById("confirm-text").textContent = text;
  return new Promise((resolve) => {
    const done = (ok) => {
      dlg.removeEventListener("close", onClose);
      document.getElementById("confirm-cancel").onclick = null;
      if (dlg.open) dlg.close();
      resolve(ok);
    };
    const onClose = () => done(dlg.returnValue === "ok");
    dlg.addEventListener("close", onClose);
    document.getElementById("confirm-cancel").onclick = () => { dlg.returnValue = "cancel"; dlg.close(); };
    dlg.returnValue = "";
    dlg.showModal();
    document.getElementById("confirm-ok").focus();
  });
}

function showResult(node) {
  fill(document.getElementById("action-result"), node);
}

async function confirmSimple(data, action) {
  const above = data.stacked_above || [];
  const what = action === "drop"
    ? `Drop ${data.patch_id}${above.length ? ` and the proposals stacked on it (${above.join(", ")})` : ""}? The proposal ref is deleted (an applied proposal can still be rolled back).`
    : `Roll back ${data.patch_id}? A new commit undoing it goes on top of the branch.`;
  if (!(await ask(action === "drop" ? "Drop proposal" : "Roll back", what))) return;
  try {
    const body = action === "drop" ? { all_above: above.length > 0 } : {};
    const out = await api("POST", `/api/proposals/${encodeURIComponent(data.patch_id)}/${action}`, body);
    showResult(h("div", { class: "banner", id: "action-done", dataset: { action } },
      action === "drop" ? `Dropped ${out.dropped.join(", ")}.`
        : `Rolled back ${out.patch_id}: commit ${(out.commit || "").slice(0, 12)} on ${out.branch}.`));
  } catch (e) {
    showResult(errorBanner(e));
  }
}

async function confirmApply(data) {
  const ids = data.stack;
  const stack = ids.length > 1;
  const ok = await ask(stack ? "Apply stack" : "Apply proposal",
    `Apply ${ids.join(", ")} to the current branch? The repository's configured validation runs first; nothing lands if it fails.`);
  if (!ok) return;
  const out = document.getElementById("apply-output");
  fill(out);
  out.dataset.state = "running";
  out.dataset.lines = "0";
  showResult(h("span"));
  document.querySelectorAll("#proposal-actions button").forEach((b) => { b.disabled = true; });
  let final = null;
  try {
    const res = await fetch(`/api/proposals/${encodeURIComponent(data.patch_id)}/apply`, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json" }, body: JSON.stringify({}) });
    if (!res.ok) {
      let body = null;
      try { body = await res.json(); } catch (_) { body = null; }
      throw new ApiError(res.status, body);
    }
    const reader = res.body.getReader();
    const dec = new TextDecoder();
    let buf = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (value) buf += dec.decode(value, { stream: true });
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const msg = JSON.parse(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        final = onApplyMessage(out, msg) || final;
      }
      if (done) break;
    }
  } catch (e) {
    final = { type: "error", error: { code: e.code, message: e.message, hint: e.hint } };
    onApplyMessage(out, final);
  }
  out.dataset.state = final && final.type === "result" ? "done" : "failed";
  document.querySelectorAll("#proposal-actions button").forEach((b) => { b.disabled = false; });
}

function onApplyMessage(out, msg) {
  if (msg.type === "start") {
    out.append(h("div", { class: "muted", text: `Applying ${msg.patch_ids.join(", ")}…` }));
  } else if (msg.type === "command") {
    out.append(h("div", { class: "command", text: `$ ${msg.command}` }));
  } else if (msg.type === "line") {
    out.append(h("div", { class: "line", text: msg.text, dataset: { at: String(Date.now()) } }));
    out.dataset.lines = String(Number(out.dataset.lines || 0) + 1);
    out.scrollTop = out.scrollHeight;
  } else if (msg.type === "result") {
    const r = msg.report;
    const landed = r.results.map((o) => `${o.patch_id} as ${o.commit.slice(0, 12)} on ${o.branch}`);
    out.append(h("div", { class: "result-ok", text: `Applied ${landed.join("; ")}.` }));
    showResult(h("div", { class: "banner", id: "action-done", dataset: { action: "apply" },
      text: `Applied ${landed.join("; ")}. Undo with Rollback.` }));
    return msg;
  } else if (msg.type === "error") {
    const e = msg.error;
    out.append(h("div", { class: "result-err", text: `${e.code}: ${e.message}` }));
    showResult(errorBanner(e));
    return msg;
  }
  return null;
}

// ---------- live feed ----------

let pending = [];
let draining = false;

function setConnected(on, text) {
  document.body.dataset.connected = on ? "1" : "0";
  document.getElementById("conn").textContent = text;
}

// The event stream, read with fetch: a POST always carries its Origin,
// which the server demands (an EventSource sends none). Server-sent event
// framing; on a drop it reconnects with the last id it saw, and the server
// replays exactly what was missed (or says "reset").
async function connect() {
  let retry = 250;
  for (;;) {
    try {
      const r = state.received;
      const since = r ? `${r.epoch}:${r.seq}` : null;
      const res = await fetch("/api/events", { method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json", "Accept": "text/event-stream" },
        body: JSON.stringify({ since }) });
      if (res.status === 401) signedOut();
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      setConnected(true, "live");
      const reader = res.body.getReader();
      const dec = new TextDecoder();
      let buf = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += dec.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
        let end;
        while ((end = buf.indexOf("\n\n")) >= 0) {
          const block = buf.slice(0, end);
          buf = buf.slice(end + 2);
          const ev = { event: "message", id: null, data: [] };
          for (const line of block.split("\n")) {
            const i = line.indexOf(":");
            if (i === 0) continue;
            const field = i < 0 ? line : line.slice(0, i);
            const val = i < 0 ? "" : line.slice(i + 1).replace(/^ /, "");
            if (field === "event") ev.event = val;
            else if (field === "id") ev.id = val;
            else if (field === "data") ev.data.push(val);
            else if (field === "retry" && /^\d+$/.test(val)) retry = Number(val);
          }
          if (ev.id === null || (ev.event !== "change" && ev.event !== "reset")) continue;
          const [epoch, seq] = ev.id.split(":");
          state.received = { epoch, seq: Number(seq) };
          pending.push({ kind: ev.event, epoch, seq: Number(seq), data: JSON.parse(ev.data.join("\n")) });
        }
        drain();
      }
    } catch (_) { /* reconnect below */ }
    setConnected(false, "reconnecting");
    await new Promise((r) => setTimeout(r, retry));
  }
}

// Events are handled in order; a burst becomes one refresh, and the
// sequence attribute moves only once the page shows what they changed.
async function drain() {
  if (draining) return;
  draining = true;
  try {
    while (pending.length) {
      const batch = pending;
      pending = [];
      const reset = batch.some((e) => e.kind === "reset");
      const ids = new Set(batch.filter((e) => e.kind === "change" && e.data.patch_id).map((e) => e.data.patch_id));
      for (const id of ids) state.changed.set(id, Date.now());
      const head = batch.some((e) => e.kind === "change" && e.data.kind === "head");
      try {
        await refresh(reset, ids, head, batch);
      } catch (_) { /* shown by the view itself */ }
      const last = batch[batch.length - 1];
      state.epoch = last.epoch;
      state.seq = last.seq;
      state.handled += batch.length;
      document.body.dataset.epoch = state.epoch;
      document.body.dataset.seq = String(state.seq);
      document.body.dataset.handled = String(state.handled);
      document.body.dataset.seqAt = String(Date.now());
    }
  } finally {
    draining = false;
  }
}

async function refresh(reset, ids, head, batch) {
  const v = state.view;
  if (!v) return;
  if (v.kind === "list") {
    if (reset || ids.size || head) await renderList();
    return;
  }
  if (!reset && !head && !ids.has(v.id)) return;
  let data;
  try {
    data = await api("GET", `/api/proposals/${encodeURIComponent(v.id)}`);
  } catch (e) {
    if (e.code === "patch_not_found") {
      v.data.dropped = true;
      fillHead(v.data);
      return;
    }
    throw e;
  }
  if (state.view !== v) return;
  const kinds = new Set(batch.filter((e) => e.data.patch_id === v.id).map((e) => e.data.kind));
  Object.assign(v.data, { status: data.status, applied_commit: data.applied_commit, stack: data.stack,
    stacked_above: data.stacked_above, dropped: false });
  fillHead(v.data);
  if (reset || kinds.has("comments")) fillComments(data.comments);
  const hd = document.getElementById("proposal-head");
  hd.classList.remove("changed");
  void hd.offsetWidth; // restart the highlight animation
  hd.classList.add("changed");
}

// ---------- keyboard ----------

function sections() { return Array.from(document.querySelectorAll("section.file")); }

function focusFile(i) {
  const secs = sections();
  if (!secs.length) return;
  state.current = Math.max(0, Math.min(secs.length - 1, i));
  secs.forEach((s, j) => s.classList.toggle("current", j === state.current));
  const sec = secs[state.current];
  sec.scrollIntoView({ block: "start" });
  window.scrollBy(0, -44);
  loadFile(sec);
}

function jumpHunk(dir) {
  const hunks = Array.from(document.querySelectorAll(".file:not(.collapsed) tr.hunk"));
  if (!hunks.length) return;
  const y = 90;
  let target;
  if (dir > 0) target = hunks.find((r) => r.getBoundingClientRect().top > y + 2);
  else target = hunks.slice().reverse().find((r) => r.getBoundingClientRect().top < y - 2);
  if (!target) return;
  document.querySelectorAll("tr.hunk.current").forEach((r) => r.classList.remove("current"));
  target.classList.add("current");
  window.scrollBy(0, target.getBoundingClientRect().top - y);
  const sec = target.closest("section.file");
  state.current = sections().indexOf(sec);
  sections().forEach((s, j) => s.classList.toggle("current", j === state.current));
}

// Keys go to text fields and dialogs as typed; a focused checkbox (just
// clicked "Viewed") or button does not swallow them.
function typingIn(el) {
  if (el.closest("textarea, select, dialog, [contenteditable]")) return true;
  return el.matches("input") && !["checkbox", "radio", "button", "submit"].includes(el.type);
}

document.addEventListener("keydown", (ev) => {
  if (typingIn(ev.target) || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const v = state.view;
  const inProposal = v && v.kind === "proposal";
  const cur = sections()[state.current];
  switch (ev.key) {
    case "j": if (inProposal) focusFile(state.current + 1); break;
    case "k": if (inProposal) focusFile(state.current - 1); break;
    case "n": if (inProposal) jumpHunk(1); break;
    case "p": if (inProposal) jumpHunk(-1); break;
    case "o": if (cur) toggleFile(cur); break;
    case "v": if (cur) { const f = v.data.diff_files[Number(cur.dataset.index)]; setViewed(f, cur, !isViewed(f)); } break;
    case "s": if (inProposal) toggleSplit(); break;
    case "u": go("/"); break;
    case "?": document.getElementById("help").showModal(); break;
    default: return;
  }
  ev.preventDefault();
});

document.getElementById("help-button").addEventListener("click", () => document.getElementById("help").showModal());

render().then(connect);
