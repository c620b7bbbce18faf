#!/usr/bin/env bash
# Issue 25 item 8: the review page's first diff row for a 1-line proposal
# against 20,000-line ones (20 files of 1,000 changed lines; one file of
# 20,000), in headless Debian chromium via playwright-core, release build,
# cases alternating run by run (tests/e2e/web/bench_open.mjs). With a git
# revision as $1, that revision is built too and measured in the same runs
# as "before". Paste the table it prints into BENCHMARKS.md.
#   scripts/bench_web_open.sh [OLD_REVISION]   (RUNS=11 by default)
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-$PWD/target}"
old_bin=""
if [ $# -gt 0 ]; then
  src=$(mktemp -d)
  trap 'rm -rf "$src"' EXIT
  git archive "$1" | tar -x -C "$src"
  (cd "$src" && CARGO_TARGET_DIR="$target" nice cargo build --locked --release --bin git-evolv)
  old_bin="$src/git-evolv-old"
  cp "$target/release/git-evolv" "$old_bin"
fi
nice cargo build --locked --release --bin git-evolv
(cd tests/e2e/web && { [ -d node_modules/playwright-core ] || npm ci --no-audit --no-fund --loglevel=error; })
GIT_EVOLV_BIN="$target/release/git-evolv" OLD_BIN="$old_bin" node tests/e2e/web/bench_open.mjs
