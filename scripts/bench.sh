#!/usr/bin/env bash
# Benchmarks git-evolv against git itself, in the same run, on the same repository.
#
#   scripts/bench.sh                      # a generated repository of 100,000 small files
#   scripts/bench.sh /path/to/repo [PAT]  # a clone of a real repository; PAT defaults to "TODO"
#
# Needs hyperfine (installed with apt-get or cargo if missing) and python3.
# Prints a Markdown table of ratios (git-evolv / git); copy it into BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
FILES=${BENCH_FILES:-100000}
RUNS=${BENCH_RUNS:-10}   # BENCH_FIRST_RUNS (default 2) for the worktree-creating case

if ! command -v hyperfine >/dev/null; then
  (apt-get install -y -qq hyperfine >/dev/null 2>&1 || sudo apt-get install -y -qq hyperfine >/dev/null 2>&1) \
    || cargo install --locked hyperfine
fi
cargo build --release --locked -q
EVOLV=$ROOT/target/release/git-evolv

WORK=$(mktemp -d "${TMPDIR:-/tmp}/evolv-bench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
REPO=$WORK/repo
export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=Bench GIT_AUTHOR_EMAIL=bench@example.com \
  GIT_COMMITTER_NAME=Bench GIT_COMMITTER_EMAIL=bench@example.com

if [ $# -ge 1 ]; then
  git clone -q "$1" "$REPO"
  PATTERN=${2:-TODO}
  REPLACEMENT=${PATTERN}_X
  SOURCE="clone of $1"
else
  git init -q -b main "$REPO"
  python3 scripts/gen_repo.py "$FILES" | git -C "$REPO" fast-import --quiet
  git -C "$REPO" checkout -q -f main
  git -C "$REPO" gc -q
  PATTERN=getUserData
  REPLACEMENT=fetchUserData
  SOURCE="generated, $FILES files"
fi
cd "$REPO"
git config user.name Bench && git config user.email bench@example.com
BASE=$(git rev-parse HEAD)
NFILES=$(git ls-files | wc -l)
echo "repository: $SOURCE ($NFILES tracked files), pattern '$PATTERN'" >&2

json() { echo "$WORK/$1.json"; }
bench() { # name, runs, prepare-ours, ours, prepare-git, git
  local warmup=1; [ "$2" -le 2 ] && warmup=0
  hyperfine -N -w "$warmup" -r "$2" --export-json "$(json "$1")" \
    -n evolv --prepare "$3" "$4" -n git --prepare "$5" "$6" >/dev/null 2>&1 \
  || hyperfine -w "$warmup" -r "$2" --export-json "$(json "$1")" \
    -n evolv --prepare "$3" "$4" -n git --prepare "$5" "$6" >/dev/null
}

# 1. propose vs git grep -l over HEAD's blobs.
bench propose "$RUNS" "true" "$EVOLV propose --json -p $PATTERN -r $REPLACEMENT" \
  "true" "git grep -l $PATTERN HEAD"
$EVOLV drop --all >/dev/null 2>&1 || true

# A proposal to apply, and its commit as the equivalent fast-forward target.
ID=$($EVOLV propose --json -p "$PATTERN" -r "$REPLACEMENT" | python3 -c 'import json,sys; print(json.load(sys.stdin)["patch_id"])')
P=$(git rev-parse "refs/evolv/proposals/$ID")
RESET="git -C $REPO reset -q --hard $BASE"
FORGET="git -C $REPO update-ref -d refs/evolv/applied/$ID"

# 2. apply without validation vs git merge --ff-only.
bench apply "$RUNS" "sh -c '$RESET && $FORGET'" "$EVOLV -C $REPO apply $ID" \
  "$RESET" "git -C $REPO merge -q --ff-only $P"

# 3. first apply (creates the validation worktree) vs git worktree add.
GITWT=$WORK/git-wt
bench first_apply "${BENCH_FIRST_RUNS:-2}" "sh -c '$RESET && $FORGET && $EVOLV -C $REPO gc --worktrees >/dev/null && sync'" \
  "$EVOLV -C $REPO apply $ID --validate true --timeout 300" \
  "sh -c 'git -C $REPO worktree remove --force $GITWT 2>/dev/null; git -C $REPO worktree prune; sync'" \
  "git -C $REPO worktree add -q --detach $GITWT $BASE"

# 4. apply with a trivial validation on the warm worktree vs merge --ff-only + checkout there.
WARM=$(git rev-parse --git-common-dir)/evolv/worktrees/evolv-wt-0
WARM=$(cd "$WARM" && pwd)
bench warm_apply "$RUNS" "sh -c '$RESET && $FORGET && git -C $WARM checkout -q --detach $BASE'" \
  "$EVOLV -C $REPO apply $ID --validate true --timeout 300" \
  "sh -c '$RESET && git -C $GITWT checkout -q --detach $BASE'" \
  "sh -c 'git -C $REPO merge -q --ff-only $P && git -C $GITWT checkout -q --detach $P'"

# Peak memory of propose.
$RESET && $EVOLV drop --all >/dev/null
RSS_KB=$( { /usr/bin/time -f '%M' "$EVOLV" propose --json -p "$PATTERN" -r "$REPLACEMENT" >/dev/null; } 2>&1 | tail -1)

python3 - "$WORK" "$RSS_KB" "$NFILES" <<'PY'
import json, sys, os
work, rss_kb, nfiles = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rows = [
    ("propose", "`git evolv propose`", "`git grep -l PATTERN HEAD`", "≤ 1.0×"),
    ("apply", "`git evolv apply` (no validation)", "`git merge --ff-only`", "≤ 2×"),
    ("warm_apply", "`git evolv apply --validate true` (warm worktree)", "`git merge --ff-only` + `git -C wt checkout`", "≤ 2×"),
    ("first_apply", "first `git evolv apply --validate true` (creates the worktree)", "`git worktree add`", "≤ 1.2×"),
]
print(f"| operation | git baseline | git-evolv (mean ± σ) | git (mean ± σ) | ratio | target |")
print("|---|---|---|---|---|---|")
for key, ours, theirs, target in rows:
    data = json.load(open(os.path.join(work, key + ".json")))["results"]
    e = next(r for r in data if r["command"] == "evolv")
    g = next(r for r in data if r["command"] == "git")
    fmt = lambda r: f"{r['mean']*1000:.1f} ± {r['stddev']*1000:.1f} ms"
    print(f"| {ours} | {theirs} | {fmt(e)} | {fmt(g)} | {e['mean']/g['mean']:.2f}× | {target} |")
print(f"\nPeak RSS of `git evolv propose` on {nfiles} files: {rss_kb/1024:.1f} MiB (target < 100 MB)")
PY

# The scaling table of issue 14 (1 / 30 / 300 / 3,000 / 30,000 changed files,
# wall time, instructions and peak RSS): BENCH_SCALE=0 skips it.
if [ "${BENCH_SCALE:-1}" != 0 ]; then
  echo
  EVOLV=$EVOLV "$ROOT/scripts/bench_scale.sh"
fi
