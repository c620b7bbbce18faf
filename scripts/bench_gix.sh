#!/usr/bin/env bash
# The old-against-new table of issue 24 item 3 (BENCHMARKS.md, "gitoxide
# against the project's own readers"): two release binaries, OLD (built
# from the commit before the swap) and NEW, on
#   - a generated 30,000-file repository, the pattern in every 100th file
#     (propose at 1%) and in every file (propose at 100%, apply of 300 and
#     3,000 changed files);
#   - a real repository with its history and a deltified pack (REAL, a
#     clone of a well-known project; its git dir is cloned, never changed).
#
#   OLD=/path/git-evolv-old NEW=/path/git-evolv-new REAL=/path/repo.git scripts/bench_gix.sh
#   BENCH_RUNS=5 (alternating runs of each, medians)
set -euo pipefail
cd "$(dirname "$0")/.."
: "${OLD:?OLD=path of the old binary}" "${NEW:?NEW=path of the new binary}"
command -v valgrind >/dev/null || apt-get install -y -qq valgrind >/dev/null
WORK=$(mktemp -d "${TMPDIR:-/tmp}/evolv-gix.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=$WORK/gitconfig
git config --global user.name Bench && git config --global user.email bench@example.com
git config --global gc.auto 0

gen() { # DIR EVERY
  git init -q -b main "$1"
  python3 scripts/gen_repo.py 30000 "$2" | git -C "$1" fast-import --quiet
  git -C "$1" checkout -q -f main && git -C "$1" gc -q
}
gen "$WORK/sparse" 100
gen "$WORK/dense" 1
python3 scripts/bench_gix.py "$OLD" "$NEW" "$WORK/sparse" getUserData fetchUserData 'propose:**'
python3 scripts/bench_gix.py "$OLD" "$NEW" "$WORK/dense" getUserData fetchUserData \
  'propose:**' 'apply:src/d000/e0[0-2]/**' 'apply:src/d00[0-2]/**' | tail -n +3
if [ -n "${REAL:-}" ]; then
  git clone -q "$REAL" "$WORK/real"
  echo "real: $(git -C "$WORK/real" ls-files | wc -l) files, $(git -C "$WORK/real" rev-list --count HEAD) commits," \
    "$(git -C "$WORK/real" count-objects -v | awk '/in-pack/ {print $2}') objects in $(ls "$WORK/real/.git/objects/pack/"*.pack | wc -l) pack(s)" >&2
  python3 scripts/bench_gix.py "$OLD" "$NEW" "$WORK/real" '\.unwrap\(\)' '.expect("x")' 'propose:**' | tail -n +3
fi
