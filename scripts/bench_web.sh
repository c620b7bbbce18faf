#!/usr/bin/env bash
# The review page's acceptance figures (issue 12): first paint of large
# proposals, DOM size, live-update latency, streamed validation lines and
# reconnect after a restart, in headless chromium against the release
# binary; then the Rust word-diff figure. Paste the output into BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --locked --release --bin git-evolv
(cd tests/e2e/web && { [ -d node_modules/playwright-core ] || npm ci --no-audit --no-fund --loglevel=error; })
GIT_EVOLV_BIN="$PWD/target/release/git-evolv" node tests/e2e/web/bench.mjs
cargo bench --locked --bench web_words
