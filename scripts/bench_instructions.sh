#!/usr/bin/env bash
# Load-independent companion to scripts/bench.sh: counts the instructions
# (valgrind --tool=callgrind, all threads and child processes) that git-evolv
# and git itself execute for the same job on the same repository, and prints
# the ratios. Instruction counts repeat exactly for the same binary and input,
# whatever else the machine is doing; wall-clock ratios are in bench.sh.
#
#   scripts/bench_instructions.sh            # generated repository, 100,000 files
#   scripts/bench_instructions.sh /path/repo [PATTERN]
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
FILES=${BENCH_FILES:-100000}
command -v valgrind >/dev/null || apt-get install -y -qq valgrind >/dev/null
cargo build --release --locked -q
EVOLV=$ROOT/target/release/git-evolv
WORK=$(mktemp -d "${TMPDIR:-/tmp}/evolv-ibench.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
REPO=$WORK/repo
export GIT_CONFIG_NOSYSTEM=1
if [ $# -ge 1 ]; then
  git clone -q "$1" "$REPO"; PATTERN=${2:-TODO}
else
  git init -q -b main "$REPO"
  python3 scripts/gen_repo.py "$FILES" | git -C "$REPO" fast-import --quiet
  git -C "$REPO" checkout -q -f main && git -C "$REPO" gc -q
  PATTERN=getUserData
fi
cd "$REPO"
git config user.name Bench && git config user.email bench@example.com

# count CMD...: the instructions of CMD and every process it starts.
. "$ROOT/scripts/lib/callgrind.sh"
row() { # name ours theirs
  python3 -c "import sys; o,t=int(sys.argv[2]),int(sys.argv[3]); print(f'| {sys.argv[1]} | {o/1e9:.2f} G | {t/1e9:.2f} G | {o/t:.2f}x |')" "$@"
}

BASE=$(git rev-parse HEAD)
P_OURS=$(count "$EVOLV" propose --json -p "$PATTERN" -r "${PATTERN}_X")
P_GIT=$(count git grep -l "$PATTERN" HEAD)
ID=$("$EVOLV" list --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["proposals"][0]["patch_id"])')
P=$(git rev-parse "refs/evolv/proposals/$ID")
reset() { git reset -q --hard "$BASE"; git update-ref -d "refs/evolv/applied/$ID" 2>/dev/null || true; }

reset; A_OURS=$(count "$EVOLV" apply "$ID")
reset; A_GIT=$(count git merge -q --ff-only "$P")

# Warm worktree: create it once, then measure the reuse.
reset; "$EVOLV" apply "$ID" --validate true --timeout 300 >/dev/null
WARM=$(git rev-parse --git-common-dir)/evolv/worktrees/evolv-wt-0
git worktree add -q --detach "$WORK/gitwt" "$BASE"
reset; git -C "$WARM" checkout -q --detach "$BASE"
W_OURS=$(count "$EVOLV" apply "$ID" --validate true --timeout 300)
reset
W_GIT=$(( $(count git merge -q --ff-only "$P") + $(count git -C "$WORK/gitwt" checkout -q --detach "$P") ))

echo "| operation | git-evolv | git | ratio |"
echo "|---|---|---|---|"
row "propose vs git grep -l" "$P_OURS" "$P_GIT"
row "apply (no validation) vs git merge --ff-only" "$A_OURS" "$A_GIT"
row "apply --validate true (warm) vs merge --ff-only + checkout" "$W_OURS" "$W_GIT"
