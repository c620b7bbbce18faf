#!/usr/bin/env bash
# Requirement 9 of #13: proposing a single-file exact replace must not grow
# with the repository. Proposes the same one-line replace in a 1,000-file and
# a 100,000-file repository (scripts/gen_repo.py), side by side: wall clock
# (hyperfine) and instructions (callgrind), with `git cat-file` on the same
# file as the git reference of each run.
#
#   scripts/bench_edits.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# EVOLV=path/to/git-evolv measures that binary instead of a fresh release build.
if [ -z "${EVOLV:-}" ]; then
  cargo build --release --locked -q
  EVOLV=$PWD/target/release/git-evolv
fi
WORK=$(mktemp -d "${TMPDIR:-/tmp}/evolv-edits.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
FILE=src/d000/e00/f000000.go
for n in 1000 100000; do
  R=$WORK/r$n
  git init -q -b main "$R"
  python3 scripts/gen_repo.py "$n" | git -C "$R" fast-import --quiet
  git -C "$R" checkout -q -f main && git -C "$R" gc -q
  git -C "$R" config user.name Bench && git -C "$R" config user.email bench@example.com
done
propose() { echo "$EVOLV -C $WORK/r$1 propose --json --file $FILE --old 'return 0 }' --new 'return 1 }'"; }
hyperfine -N --warmup 5 --runs 40 --export-json "$WORK/h.json" \
  -n "evolv 1k" "$(propose 1000)" -n "evolv 100k" "$(propose 100000)" \
  -n "git cat-file 1k" "git -C $WORK/r1000 cat-file -p HEAD:$FILE" \
  -n "git cat-file 100k" "git -C $WORK/r100000 cat-file -p HEAD:$FILE" >&2
python3 - "$WORK/h.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
m = lambda k: r[k]["median"] * 1000
print(f"wall median: evolv 1k {m('evolv 1k'):.1f} ms, 100k {m('evolv 100k'):.1f} ms, ratio {m('evolv 100k')/m('evolv 1k'):.2f}")
print(f"             git cat-file 1k {m('git cat-file 1k'):.1f} ms, 100k {m('git cat-file 100k'):.1f} ms")
print(f"             evolv/git: 1k {m('evolv 1k')/m('git cat-file 1k'):.1f}x, 100k {m('evolv 100k')/m('git cat-file 100k'):.1f}x")
PY
if command -v valgrind >/dev/null; then
  . scripts/lib/callgrind.sh
  a=$(count "$EVOLV" -C "$WORK/r1000" propose --json --file $FILE --old 'return 0 }' --new 'return 2 }')
  b=$(count "$EVOLV" -C "$WORK/r100000" propose --json --file $FILE --old 'return 0 }' --new 'return 2 }')
  g1=$(count git -C "$WORK/r1000" cat-file -p HEAD:$FILE)
  g2=$(count git -C "$WORK/r100000" cat-file -p HEAD:$FILE)
  python3 -c "print(f'instructions: evolv 1k {$a:,}, 100k {$b:,}, ratio {$b/$a:.3f}; git cat-file 1k {$g1:,}, 100k {$g2:,}')"
fi
