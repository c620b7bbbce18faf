#!/usr/bin/env bash
# Issue 25 item 20: the scaling table where repositories are big and real,
# on the file system named by the directory argument (the repositories are
# made there), through scripts/bench_scale.py:
#   a) apply of 1,000 files in a 100,000-file repository vs `git merge --ff-only`;
#   b) apply of 300 and 3,000 of 30,000 files vs the merge;
#   c) propose on a real repository's deltified pack (tokio with its whole
#      history, cloned with --no-local so its pack is git's own deltified
#      one): `\.unwrap\(\)` → `.expect("x")` vs `git grep -l` + `git diff`.
#
#   scripts/bench_big.sh /mnt/journaled            # all three
#   BENCH_PARTS=b scripts/bench_big.sh /tmp        # only b
#   BENCH_TOKIO=/path/to/tokio (a clone or mirror with its history;
#     default: the mirror under /work/.mirror), BENCH_RUNS (default 5),
#   EVOLV=/path/to/git-evolv (default: a release build of this tree),
#   EVOLV_OLD=/path/to/another/git-evolv (before/after in the same rounds).
# A journaled ext4 for the argument, as root:
#   truncate -s 8G img && mkfs.ext4 -q img && mount -o loop,data=ordered img /mnt/j
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DIR=${1:?usage: scripts/bench_big.sh DIRECTORY (the file system to measure on)}
PARTS=${BENCH_PARTS:-abc}
export BENCH_RUNS=${BENCH_RUNS:-5} BENCH_INSTR_MAX=${BENCH_INSTR_MAX:-0}
if [ -z "${EVOLV:-}" ]; then
  cargo build --release --locked -q
  EVOLV=${CARGO_TARGET_DIR:-$ROOT/target}/release/git-evolv
fi
WORK=$(mktemp -d "$DIR/evolv-big.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=$WORK/gitconfig
git config --global user.name Bench && git config --global user.email bench@example.com
FS=$(findmnt -n -o FSTYPE,OPTIONS --target "$WORK")
JOURNAL=$(if [ "$(findmnt -n -o FSTYPE --target "$WORK")" = ext4 ] &&
  ! ls /proc/fs/jbd2/ 2>/dev/null | grep -q "^$(basename "$(findmnt -n -o SOURCE --target "$WORK")")-"; then
  echo "no journal"; else echo "journal as mounted"; fi)
echo "file system of $WORK: $FS ($JOURNAL); load $(cut -d' ' -f1-3 /proc/loadavg)"

generated() { # generated N NAME: a repository of N files, the pattern in every one
  git init -q -b main "$WORK/$2"
  python3 scripts/gen_repo.py "$1" 1 | git -C "$WORK/$2" fast-import --quiet
  git -C "$WORK/$2" checkout -q -f main && git -C "$WORK/$2" gc -q
}

if [[ $PARTS == *a* ]]; then
  generated 100000 g100k
  echo "### a) 100,000 files, apply of 1,000"
  python3 scripts/bench_scale.py "$EVOLV" "$WORK/g100k" getUserData fetchUserData \
    '1000=src/d000/**'
  rm -rf "$WORK/g100k"
fi
if [[ $PARTS == *b* ]]; then
  generated 30000 g30k
  echo "### b) 30,000 files, apply of 300 and 3,000"
  python3 scripts/bench_scale.py "$EVOLV" "$WORK/g30k" getUserData fetchUserData \
    '300=src/d000/e0[0-2]/**' '3000=src/d00[0-2]/**'
  rm -rf "$WORK/g30k"
fi
if [[ $PARTS == *c* ]]; then
  TOKIO=${BENCH_TOKIO:-/work/.mirror/tokio-rs+tokio/repo}
  git clone -q --no-local "$TOKIO" "$WORK/tokio"
  git -C "$WORK/tokio" checkout -q -B main
  echo "### c) tokio, its whole history in one deltified pack ($(git -C "$WORK/tokio" count-objects -v | grep -E '^(in-pack|size-pack)' | tr '\n' ' '))"
  python3 scripts/bench_scale.py "$EVOLV" "$WORK/tokio" '\.unwrap\(\)' '.expect("x")' 'all=**'
fi
