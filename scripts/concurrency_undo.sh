#!/usr/bin/env bash
# Many writers proposing, applying and undoing at once (issue 26 item 5).
#
#   scripts/concurrency_undo.sh [PROCESSES] [EACH]   (default 8 5)
#
# PROCESSES processes each run EACH times: propose a change to its own
# file, apply it, and undo that apply by its operation id (`undo <op>`),
# every other landing left in place. Then: the op log is one linear chain
# (first-parent count = commit count) with every operation a process saw
# succeed; every undo names the apply it was asked to undo; every revert
# commit reverts a landing whose undo was asked for (an undo whose branch
# moved on is a revert, never a rewrite); the tip has exactly the changes
# that were landed and not undone; no lock, no journal, `git fsck` clean.
set -euo pipefail
cd "$(dirname "$0")/.."
P=${1:-8}
K=${2:-5}
# shellcheck source=scripts/lib/sandbox.sh
. scripts/lib/sandbox.sh
R=$WORK/r
git init -q "$R" && cd "$R"
for p in $(seq 1 "$P"); do
  for k in $(seq 1 "$K"); do printf 'tok_p%s_k%s_old\n\n' "$p" "$k"; done >"p$p.txt"
done
git add -A && git commit -qm base
field() { sed -n "s/.*\"$1\": \"\\([^\"]*\\)\".*/\\1/p" | head -1; }
start=$(date +%s%3N)
pids=()
for p in $(seq 1 "$P"); do
  (
    for k in $(seq 1 "$K"); do
      id=$("$BIN" propose --json -p "tok_p${p}_k${k}_old" -r "tok_p${p}_k${k}_new" -s "p$p.txt" | field patch_id)
      out=$("$BIN" apply --json "$id" 2>/dev/null) || { echo "$id" >>"$WORK/apply_failed"; continue; }
      commit=$(printf '%s' "$out" | field commit)
      op=$(printf '%s' "$out" | field audit_log_id)
      # Every other landing is undone.
      if [ $((k % 2)) = 0 ]; then
        if u=$("$BIN" undo --json "$op" 2>&1); then
          echo "$id $commit $(printf '%s' "$u" | field method) tok_p${p}_k${k}" >>"$WORK/undone"
        else
          echo "$id $(printf '%s' "$u" | field code)" >>"$WORK/undo_failed"
        fi
      else
        echo "$id $commit kept tok_p${p}_k${k}" >>"$WORK/kept"
      fi
    done
  ) &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done
touch "$WORK/undone" "$WORK/kept" "$WORK/apply_failed" "$WORK/undo_failed"
bad=0
problem() { echo "problem: $*" >&2; bad=$((bad + 1)); }
"$BIN" recover >/dev/null
[ "$(git rev-list --count refs/evolv/audit)" = "$(git rev-list --count --first-parent refs/evolv/audit)" ] || problem "the op log is not one linear chain"
log=$("$BIN" op log --json | tr -d ' \n')
for kind in propose apply undo; do
  n=$(grep -o "\"kind\":\"$kind\"" <<<"$log" | wc -l)
  echo "op log: $n $kind"
done
[ "$(grep -o '"kind":"undo"' <<<"$log" | wc -l)" = "$(wc -l <"$WORK/undone")" ] || problem "undo records do not match the undos that succeeded"
[ -s "$WORK/apply_failed" ] && problem "$(wc -l <"$WORK/apply_failed") applies failed"
[ -s "$WORK/undo_failed" ] && problem "undos failed: $(cut -d' ' -f2 "$WORK/undo_failed" | sort | uniq -c | tr '\n' ' ')"
# Every revert reverts a landing whose undo was asked for.
for reverted in $(git log --format=%b main | sed -n 's/^This reverts commit \([0-9a-f]*\)\..*/\1/p'); do
  grep -q " $reverted " "$WORK/undone" || problem "revert of $reverted, which nobody undid"
done
while read -r _ _ _ tok; do
  f="p$(sed 's/tok_p\([0-9]*\)_.*/\1/' <<<"$tok").txt"
  git show "main:$f" | grep -q "^${tok}_old\$" || problem "$tok: undone, but its change is in the tip"
done <"$WORK/undone"
while read -r _ _ _ tok; do
  f="p$(sed 's/tok_p\([0-9]*\)_.*/\1/' <<<"$tok").txt"
  git show "main:$f" | grep -q "^${tok}_new\$" || problem "$tok: landed and kept, but lost from the tip"
done <"$WORK/kept"
[ -z "$(git status --porcelain)" ] || problem "status: $(git status --porcelain | head -3)"
[ -z "$(find .git -name '*.lock' ! -name landing.lock)" ] || problem "locks left"
[ -z "$(ls .git/evolv/pending 2>/dev/null)" ] || problem "bookkeeping still journalled"
git fsck --strict --no-progress >/dev/null 2>&1 || problem "fsck"
moved=$(grep -c ' move_back ' "$WORK/undone" || true)
reverts=$(grep -c ' revert ' "$WORK/undone" || true)
echo "concurrency_undo: $P processes x $K: $(wc -l <"$WORK/kept") kept, $(wc -l <"$WORK/undone") undone ($moved moved back, $reverts as reverts), $bad problems, $(( $(date +%s%3N) - start )) ms"
[ "$bad" -eq 0 ]
