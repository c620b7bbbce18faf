#!/usr/bin/env bash
# Runs every cargo-fuzz target for SECONDS each (default 60), on stable Rust
# (`-s none`: coverage-guided, no sanitizer). Seeds come from fuzz/seeds/<target>,
# the growing corpus lives in fuzz/corpus/<target> (not committed), and any
# crash is left in fuzz/artifacts/<target>: fix it, then keep the input in
# fuzz/seeds/<target> as a regression case.
#
#   scripts/fuzz.sh            # 60 s per target
#   scripts/fuzz.sh 1800       # 30 minutes per target, for the record
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
SECONDS_EACH=${1:-60}
command -v cargo-fuzz >/dev/null || cargo install --locked cargo-fuzz
cargo fuzz build -s none --release
status=0
for target in $(cargo fuzz list); do
  mkdir -p "corpus/$target" "seeds/$target"
  echo "== $target: ${SECONDS_EACH}s" >&2
  if ! cargo fuzz run -s none --release "$target" "corpus/$target" "seeds/$target" -- \
      -max_total_time="$SECONDS_EACH" -print_final_stats=1 2>"corpus/$target.log"; then
    status=1
    echo "!! $target found a crash; see fuzz/artifacts/$target and corpus/$target.log" >&2
  fi
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "corpus/$target.log" | sed "s/^/   /" >&2 || true
done
exit $status
