#!/bin/sh
# Verdict cache costs on a 100,000-file repository (issue 27 item 7):
#  1. a cache hit of `git evolv test`, against `git rev-parse HEAD^{tree}`
#     timed in the same run;
#  2. `apply` of a one-file proposal whose tree has a cached pass (so the
#     validation is skipped), against the same apply with no validation
#     configured, rounds alternating, each round a proposal of its own.
# Usage: scripts/bench_verdicts.sh [path/to/git-evolv] [files] [rounds]
set -eu
BIN=${1:-target/release/git-evolv}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
N=${2:-100000}
ROUNDS=${3:-15}
HERE=$(cd "$(dirname "$0")" && pwd)
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
cd "$DIR"
git init -q -b main repo && cd repo
python3 "$HERE/gen_repo.py" "$N" | git fast-import --quiet
git checkout -q -f main
git config user.name Bench && git config user.email bench@example.com
# The first run makes the warm worktree of every file: not what is timed.
git config evolv.timeout 900
"$BIN" test --command true >/dev/null   # the run that stores the verdict
echo "file system: $(stat -f -c %T .)"
python3 - "$BIN" "$ROUNDS" <<'PY'
import json, subprocess, sys, time
bin_, rounds = sys.argv[1], int(sys.argv[2])
def run(cmd, **kw):
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True, **kw).stdout
def timed(cmd):
    t = time.perf_counter(); out = run(cmd); return time.perf_counter() - t, out
def median(xs):
    xs = sorted(xs); return xs[len(xs) // 2]
hits = [timed([bin_, "test", "--json", "--command", "true"])[0] for _ in range(rounds)]
out = run([bin_, "test", "--json", "--command", "true"])
assert '"cached": true' in out, out
git = [timed(["git", "rev-parse", "HEAD^{tree}"])[0] for _ in range(rounds)]
hit, g = median(hits), median(git)
print(f"cache hit (median of {rounds}): {hit*1000:.1f} ms; git rev-parse: {g*1000:.1f} ms; ratio {hit/g:.2f}x")

def propose(i):
    path = f"src/d000/e{(i // 100) % 10:02d}/f{i:06d}.go"
    out = run([bin_, "propose", "--json", "--literal", "--pattern", f"return {i} }}",
               "--replacement", f"return {i + 1_000_000} }}", "--scope", path])
    return json.loads(out)["patch_id"]
cached, plain = [], []
for r in range(rounds):
    # A cached pass: the proposal's tree tested first (untimed).
    run(["git", "config", "evolv.validate", "true"])
    pid = propose(1 + 2 * r)
    run([bin_, "test", pid])
    t, out = timed([bin_, "apply", "--json", pid])
    v = json.loads(out)["verdict"]
    assert v["cached"] is True and v["status"] == "pass", out
    cached.append(t)
    # No validation configured.
    run(["git", "config", "--unset", "evolv.validate"])
    pid = propose(2 + 2 * r)
    t, out = timed([bin_, "apply", "--json", pid])
    assert json.loads(out)["verdict"] is None, out
    plain.append(t)
c, p = median(cached), median(plain)
print(f"apply with a cached pass (median of {rounds}): {c*1000:.1f} ms; "
      f"apply without validation: {p*1000:.1f} ms; ratio {c/p:.2f}x")
status = run(["git", "status", "--porcelain"])
assert status == "", status
run(["git", "fsck", "--no-progress"])
PY
