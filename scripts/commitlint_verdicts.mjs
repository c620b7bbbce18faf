// Adds commitlint's verdict (config-conventional) to every message of a
// corpus made by scripts/commit_corpus.py, for the lint agreement test.
// commitlint is needed only to (re)build fixtures/commits/corpus.json,
// never at test time.
//
//   dir=$(mktemp -d) && cd "$dir" && npm init -y >/dev/null \
//     && npm install @commitlint/cli @commitlint/config-conventional
//   cp scripts/commitlint_verdicts.mjs "$dir"/
//   python3 scripts/commit_corpus.py --repo . /tmp/messages.json
//   node "$dir"/commitlint_verdicts.mjs /tmp/messages.json fixtures/commits/corpus.json
//
// The lint call is the one `commitlint` makes for a message on stdin: the
// loaded config's rules and parser preset, default ignores on.

import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import load from "@commitlint/load";
import lint from "@commitlint/lint";

const [input, output] = process.argv.slice(2);
const corpus = JSON.parse(readFileSync(input, "utf8"));
// Resolve the config from where commitlint is installed, not from the cwd.
const here = fileURLToPath(new URL(".", import.meta.url));
const loaded = await load({ extends: ["@commitlint/config-conventional"] }, { cwd: here });
const opts = {
  parserOpts: loaded.parserPreset?.parserOpts ?? {},
  plugins: loaded.plugins ?? {},
  ignores: loaded.ignores ?? [],
  defaultIgnores: loaded.defaultIgnores !== false,
};
const require = createRequire(import.meta.url);
const version = require("@commitlint/cli/package.json").version;

for (const entry of corpus) {
  const r = await lint(entry.message, loaded.rules, opts);
  entry.commitlint = {
    valid: r.valid,
    errors: [...new Set(r.errors.map((e) => e.name))].sort(),
    warnings: [...new Set(r.warnings.map((w) => w.name))].sort(),
  };
}
const doc = {
  generator: `scripts/commitlint_verdicts.mjs with @commitlint/cli ${version} and @commitlint/config-conventional`,
  messages: corpus,
};
writeFileSync(output, JSON.stringify(doc, null, 1) + "\n");
const invalid = corpus.filter((e) => !e.commitlint.valid).length;
console.error(`${corpus.length} messages, ${invalid} invalid according to commitlint ${version}`);
