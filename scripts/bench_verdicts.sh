#!/bin/sh
# Cache-hit cost of `git evolv test` on a 100,000-file repository, as a
# ratio against `git rev-parse HEAD^{tree}` timed in the same run.
# Usage: scripts/bench_verdicts.sh [path/to/git-evolv] [files]
set -eu
BIN=${1:-target/release/git-evolv}
N=${2:-100000}
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
cd "$DIR"
git init -q -b main repo && cd repo
python3 "$HERE/gen_repo.py" "$N" | git fast-import --quiet
git checkout -q -f main
git config user.name Bench && git config user.email bench@example.com
"$BIN" test --command true >/dev/null   # the run that stores the verdict
echo "file system: $(stat -f -c %T .)"
python3 - "$BIN" <<'PY'
import subprocess, sys, time
bin_ = sys.argv[1]
def best(cmd, n=15):
    times = []
    for _ in range(n):
        t = time.perf_counter(); subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL); times.append(time.perf_counter() - t)
    times.sort(); return times[len(times) // 2]
hit = best([bin_, "test", "--json", "--command", "true"])
out = subprocess.run([bin_, "test", "--json", "--command", "true"], capture_output=True, text=True).stdout
assert '"cached": true' in out, out
git = best(["git", "rev-parse", "HEAD^{tree}"])
print(f"cache hit (median of 15): {hit*1000:.1f} ms; git rev-parse: {git*1000:.1f} ms; ratio {hit/git:.2f}x")
PY
