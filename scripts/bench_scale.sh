#!/usr/bin/env bash
# The scaling table of issue 14 (part of scripts/bench.sh; runs alone too):
# apply vs `git merge --ff-only` and propose vs `git grep -l` + `git diff`,
# wall time, instructions and peak RSS, at 1 / 30 / 300 / 3,000 / 30,000
# changed files of a generated 30,000-file repository whose every file holds
# the pattern (scope narrowed to get each size), then on the real-code
# repository of scripts/gen_real_repo.sh with a `\.unwrap\(\)` codemod.
#
#   scripts/bench_scale.sh            # both repositories
#   BENCH_REAL=0 scripts/bench_scale.sh   # the generated one only
#   BENCH_RUNS=3 (medians of 3), BENCH_INSTR_MAX=3000 (callgrind up to that size; 0: none)
#   BENCH_APPLY=0: propose against grep + diff only (no apply / merge runs)
#   EVOLV=/path/to/git-evolv (default: a release build of this tree)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
if [ -z "${EVOLV:-}" ]; then
  cargo build --release --locked -q
  EVOLV=$ROOT/target/release/git-evolv
fi
command -v valgrind >/dev/null || [ "${BENCH_INSTR_MAX:-3000}" = 0 ] || apt-get install -y -qq valgrind >/dev/null
WORK=$(mktemp -d "${TMPDIR:-/tmp}/evolv-scale.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=$WORK/gitconfig
git config --global user.name Bench && git config --global user.email bench@example.com

REPO=$WORK/gen
git init -q -b main "$REPO"
python3 scripts/gen_repo.py 30000 1 | git -C "$REPO" fast-import --quiet
git -C "$REPO" checkout -q -f main && git -C "$REPO" gc -q
echo "generated repository: $(git -C "$REPO" ls-files | wc -l) files, getUserData in every one" >&2
echo "### Generated repository, 30,000 files"
python3 scripts/bench_scale.py "$EVOLV" "$REPO" getUserData fetchUserData \
  '1=src/d000/e00/f000000.go' '30=src/d000/e00/f0000[0-2]?.go' '300=src/d000/e0[0-2]/**' \
  '3000=src/d00[0-2]/**' '30000=src/**'

# Issue 14's 1% case: the pattern in every 100th file, the whole tree in
# scope, propose against `git grep -l` (+ `git diff`) over all of HEAD.
SPARSE=$WORK/sparse
git init -q -b main "$SPARSE"
python3 scripts/gen_repo.py 30000 100 | git -C "$SPARSE" fast-import --quiet
git -C "$SPARSE" checkout -q -f main && git -C "$SPARSE" gc -q
echo
echo "### Generated repository, 30,000 files, the pattern in every 100th (1%)"
python3 scripts/bench_scale.py "$EVOLV" "$SPARSE" getUserData fetchUserData '300=**'

if [ "${BENCH_REAL:-1}" != 0 ]; then
  REAL=$WORK/real
  scripts/gen_real_repo.sh "$REAL" >&2
  echo
  echo "### Real code: cargo's unpacked sources ($(git -C "$REAL" ls-files | wc -l) files), \`\\.unwrap\\(\\)\` → \`.expect(\"x\")\`"
  python3 scripts/bench_scale.py "$EVOLV" "$REAL" '\.unwrap\(\)' '.expect("x")' \
    "all=**"
fi
