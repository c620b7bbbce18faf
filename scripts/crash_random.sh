#!/usr/bin/env bash
# Random-moment SIGKILL trials of a landing (issue 5), for the record.
#
#   scripts/crash_random.sh [TRIALS] [RECOVERY_KILL_PERCENT]   (default 500, 10)
#
# Each trial copies a template repository (every kind of change: add,
# modify, delete, rename, mode change, symlink, directory <-> file; dirty,
# staged, untracked and ignored files outside the change set), starts
# `git evolv apply`, SIGKILLs it after a random delay within the measured
# duration of an apply, then recovers with `git evolv recover` (itself
# killed at a random moment in RECOVERY_KILL_PERCENT % of trials, then run
# again), and checks: branch at H or N; `git status` exactly as before (so
# every changed path holds the tip's content and the user's changes are
# intact); unrelated files byte-identical; no journal and no .lock left;
# `git fsck --strict` clean; `git commit` works. Prints the figures.
set -euo pipefail
cd "$(dirname "$0")/.."

TRIALS=${1:-500}
KILL_RECOVERY_PCT=${2:-10}
cargo build --quiet --locked
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# A copy, so a rebuild during the run changes nothing.
cp target/debug/git-evolv "$WORK/git-evolv"
BIN=$WORK/git-evolv
export HOME=$WORK GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=$WORK/.gitconfig TZ=UTC LC_ALL=C
git config --global user.name "Crash Test"
git config --global user.email crash@example.com
git config --global init.defaultBranch main

# --- the template: H, the proposal (N), the user's own work -----------------
T=$WORK/template
git init -q "$T"
cd "$T"
printf 'build/\n' >.gitignore
printf 'unrelated\n' >keep.txt
printf 'committed\n' >dirty_outside.txt
printf 'committed\n' >staged_outside.txt
seq 1 300 | sed 's/^/line /' >mod.txt
printf 'to delete\n' >del.txt
printf 'renamed content\n' >old_name.txt
printf '#!/bin/sh\necho hi\n' >script.sh
ln -s del.txt link
mkdir d2f && printf 'inner\n' >d2f/inner.txt
printf 'a file\n' >f2d
for i in $(seq 1 40); do mkdir -p "many/d$i" && printf 'file %s\n' "$i" >"many/d$i/f.txt"; done
git add -A && git commit -qm H
H=$(git rev-parse HEAD)

export GIT_INDEX_FILE=$WORK/n-index
git read-tree "$H"
blob() { printf "$1" | git hash-object -w --stdin; }
git update-index --force-remove del.txt old_name.txt link d2f/inner.txt f2d
git update-index --add --cacheinfo "100644,$(blob 'added\n'),new/added.txt"
git update-index --add --cacheinfo "100644,$(seq 1 300 | sed 's/^/line /; s/^line 150$/line one-fifty/' | git hash-object -w --stdin),mod.txt"
git update-index --add --cacheinfo "100644,$(blob 'renamed content\n'),new_name.txt"
git update-index --add --cacheinfo "100755,$(blob '#!/bin/sh\necho hi\n'),script.sh"
git update-index --add --cacheinfo "120000,$(printf 'mod.txt' | git hash-object -w --stdin),link"
git update-index --add --cacheinfo "100644,$(blob 'now a file\n'),d2f"
git update-index --add --cacheinfo "100644,$(blob 'now in a dir\n'),f2d/inner.txt"
for i in $(seq 1 40); do
  git update-index --add --cacheinfo "100644,$(blob "file $i changed\\n"),many/d$i/f.txt"
done
NTREE=$(git write-tree)
unset GIT_INDEX_FILE
META='{"operation":"crash-random","pattern":"","replacement":"","literal":true,"scope":[],"created_at":1,"files_scanned":0,"files_matched":0,"total_changes":0,"lines_added":0,"lines_removed":0,"affected_files":[]}'
P=$(printf 'random crash trial\n\nEvolv-Metadata: %s\n' "$META" | git commit-tree "$NTREE" -p "$H" -F -)
ID=patch_1_c0ffee00
git update-ref "refs/evolv/proposals/$ID" "$P"

printf 'edited, not staged\n' >dirty_outside.txt
printf 'edited and staged\n' >staged_outside.txt
git add staged_outside.txt
printf 'staged, then edited again\n' >staged_outside.txt
printf 'mine\n' >untracked.txt
mkdir -p new build && printf 'mine too\n' >new/untracked_sibling.txt
printf 'ignored output\n' >build/out.o
STATUS=$(git status --porcelain=v1 --untracked-files=all --ignored)
UNRELATED="keep.txt dirty_outside.txt staged_outside.txt untracked.txt new/untracked_sibling.txt build/out.o .gitignore"
SUMS=$(sha1sum $UNRELATED)
STAGED=$(git diff --cached)
cd "$WORK"

# --- how long does an apply take? -------------------------------------------
now_us() { date +%s%6N; }
cp -a "$T" "$WORK/probe"
t0=$(now_us)
(cd "$WORK/probe" && "$BIN" apply "$ID" >/dev/null 2>&1)
t1=$(now_us)
APPLY_US=$(( (t1 - t0) * 12 / 10 + 1000 ))
rm -rf "$WORK/probe"

fail() { echo "FAIL trial $1: $2" >&2; failures=$((failures + 1)); }

failures=0 landed=0 undone=0 interrupted=0 rec_killed=0 skipped_files=0
start=$(now_us)
for trial in $(seq 1 "$TRIALS"); do
  R=$WORK/r
  rm -rf "$R"
  cp -a "$T" "$R"
  cd "$R"
  delay=$(( RANDOM * 32768 + RANDOM ))
  delay=$(( delay % APPLY_US ))
  "$BIN" apply "$ID" >/dev/null 2>&1 &
  pid=$!
  sleep "$(printf '0.%06d' "$delay")"
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  [ -e .git/evolv/journal ] && interrupted=$((interrupted + 1))
  if [ $(( RANDOM % 100 )) -lt "$KILL_RECOVERY_PCT" ]; then
    rec_killed=$((rec_killed + 1))
    "$BIN" recover >/dev/null 2>&1 &
    rpid=$!
    sleep "$(printf '0.%06d' $(( (RANDOM * 32768 + RANDOM) % APPLY_US )))"
    kill -9 "$rpid" 2>/dev/null || true
    wait "$rpid" 2>/dev/null || true
  fi
  if ! out=$("$BIN" recover --json 2>&1); then fail "$trial" "recover: $out"; cd "$WORK"; continue; fi
  case "$out" in *'"skipped": []'*|*'"action": "nothing"'*) ;; *) skipped_files=$((skipped_files + 1)); [ -n "${CRASH_VERBOSE:-}" ] && echo "$out" >&2;; esac
  tip=$(git rev-parse refs/heads/main)
  if [ "$tip" = "$H" ]; then undone=$((undone + 1));
  elif [ "$(git rev-parse "$tip^{tree}")" = "$NTREE" ] && [ "$(git rev-parse "$tip^")" = "$H" ]; then landed=$((landed + 1));
  else fail "$trial" "branch at $tip, neither H nor N"; fi
  [ "$(git status --porcelain=v1 --untracked-files=all --ignored)" = "$STATUS" ] \
    || fail "$trial" "git status differs: $(git status --porcelain=v1 --untracked-files=all --ignored | head -5)"
  [ "$(sha1sum $UNRELATED)" = "$SUMS" ] || fail "$trial" "an unrelated file changed"
  [ "$(git diff --cached)" = "$STAGED" ] || fail "$trial" "the staged change differs"
  [ -e .git/evolv/journal ] && fail "$trial" "journal left"
  locks=$(find .git -name '*.lock' ! -name landing.lock)
  [ -z "$locks" ] || fail "$trial" "locks left: $locks"
  git fsck --strict --no-progress >/dev/null 2>&1 || fail "$trial" "git fsck --strict"
  git commit -q --allow-empty -m probe >/dev/null 2>&1 || fail "$trial" "git commit"
  cd "$WORK"
done
end=$(now_us)

echo "crash_random: $TRIALS trials, kill delay uniform in 0..${APPLY_US} us (apply takes ~$(( (t1 - t0) )) us)"
echo "  killed mid-landing (journal left): $interrupted"
echo "  recoveries also killed:            $rec_killed"
echo "  ended at N (rolled forward/landed): $landed"
echo "  ended at H (rolled back/not begun): $undone"
echo "  recoveries reporting skipped paths: $skipped_files"
echo "  failures:                           $failures"
echo "  time: $(( (end - start) / 1000 )) ms"
[ "$failures" -eq 0 ]
