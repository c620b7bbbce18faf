#!/usr/bin/env bash
# The review page's acceptance figures (issue 12 item 7): first paint of
# large proposals, DOM size, live-update latency, streamed validation lines
# and reconnect after a restart, in headless Debian chromium (driven by
# playwright-core) against the release binary; then the Rust word-diff
# figure (benches/web_words.rs, built with the same release profile so no
# second optimised build of the dependencies is needed). Paste the output
# into BENCHMARKS.md with the load average it prints.
set -euo pipefail
cd "$(dirname "$0")/.."
nice cargo build --locked --release --bin git-evolv
(cd tests/e2e/web && { [ -d node_modules/playwright-core ] || npm ci --no-audit --no-fund --loglevel=error; })
GIT_EVOLV_BIN="$PWD/target/release/git-evolv" node tests/e2e/web/bench.mjs
nice cargo bench --locked --profile release --bench web_words
# The baseline for the word figure: git's own word diff of the same 5,000
# line pairs (process start included), in the same run.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for w in alpha beta; do
  for i in $(seq 0 4999); do
    echo "    let value_$i = compute($w, $i); // line $i"
  done >"$tmp/$w.rs"
done
hyperfine --warmup 2 --runs 20 -N -i \
  "git diff --no-index --word-diff=porcelain $tmp/alpha.rs $tmp/beta.rs"
# The incremental cache of a release build is large and not reused.
rm -rf target/release/incremental
