#!/usr/bin/env bash
# Runs cargo-fuzz targets for SECONDS each (default 60), on stable Rust
# (`-s none`: coverage-guided, no sanitizer). Seeds come from fuzz/seeds/<target>,
# the growing corpus lives in fuzz/corpus/<target> (not committed), and any
# crash is left in fuzz/artifacts/<target>: fix it, then keep the input in
# fuzz/seeds/<target> as a regression case.
#
#   scripts/fuzz.sh                         # every target, 60 s each
#   scripts/fuzz.sh 1800                    # 30 minutes each, for the record
#   FUZZ_JOBS=2 scripts/fuzz.sh 1800 lint_message plan_parse
#
# FUZZ_JOBS runs that many targets at once (default 1); each libFuzzer process
# uses one core, so keep it at or below the core count.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
SECONDS_EACH=${1:-60}
shift || true
JOBS=${FUZZ_JOBS:-1}
command -v cargo-fuzz >/dev/null || cargo install --locked cargo-fuzz
cargo fuzz build -s none --release
targets=("$@")
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(cargo fuzz list)

# One target: its stats go to corpus/<target>.log, its verdict to stderr.
fuzz_one() {
  local target=$1
  mkdir -p "corpus/$target" "seeds/$target"
  echo "== $target: ${SECONDS_EACH}s" >&2
  # `cargo fuzz run` re-checks the build above under cargo's lock, so
  # parallel runs wait for each other only for that check.
  if ! cargo fuzz run -s none --release "$target" "corpus/$target" "seeds/$target" -- \
      -max_total_time="$SECONDS_EACH" -print_final_stats=1 2>"corpus/$target.log"; then
    echo "!! $target found a crash; see fuzz/artifacts/$target and corpus/$target.log" >&2
    return 1
  fi
  echo "-- $target done:" >&2
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "corpus/$target.log" | sed "s/^/   /" >&2 || true
}

status=0
running=0
for target in "${targets[@]}"; do
  fuzz_one "$target" &
  running=$((running + 1))
  if [ "$running" -ge "$JOBS" ]; then
    wait -n || status=1
    running=$((running - 1))
  fi
done
while [ "$running" -gt 0 ]; do
  wait -n || status=1
  running=$((running - 1))
done
exit $status
