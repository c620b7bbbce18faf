#!/usr/bin/env bash
# Concurrent landings on one repository (issue 5 §4), for the record.
#
#   scripts/concurrency.sh [PROCESSES] [LANDINGS_EACH] [ROUNDS]   (default 16 25 1)
#
# Each round: a fresh repository; PROCESSES processes each apply
# LANDINGS_EACH proposals one after another, every proposal changing the
# process's own file and its own line of a shared file; meanwhile another
# process runs `git commit` (of a file of its own) and `git status` in a
# loop. Then: every apply succeeded (landings queue for their turn, issue
# 14 item 4: a failure is a problem); the branch's first-parent history is
# exactly the base, one commit per landing and the committer's commits, with
# no revert commit; every success is in it exactly once, with one audit
# record and its applied ref; no success is lost (its change is in the tip);
# the working tree is the tip plus the committer's file; no lock and no
# journalled bookkeeping is left; `git fsck --strict` is clean.
set -euo pipefail
cd "$(dirname "$0")/.."
P=${1:-16}
K=${2:-25}
ROUNDS=${3:-1}
# shellcheck source=scripts/lib/sandbox.sh
. scripts/lib/sandbox.sh

now_ms() { date +%s%3N; }
total_ok=0 total_fail=0 total_bad=0 start=$(now_ms)
for round in $(seq 1 "$ROUNDS"); do
  R=$WORK/r$round
  git init -q "$R" && cd "$R"
  : >shared.txt
  for p in $(seq 1 "$P"); do
    mkdir -p own
    : >"own/p$p.txt"
    for k in $(seq 1 "$K"); do
      printf 'tok_p%s_k%s_old\n\n' "$p" "$k" >>"own/p$p.txt"
      printf 'tok_p%s_k%s_old\n\n' "$p" "$k" >>shared.txt
    done
  done
  git add -A && git commit -qm base
  for p in $(seq 1 "$P"); do
    for k in $(seq 1 "$K"); do
      "$BIN" propose --json --pattern "tok_p${p}_k${k}_old" --replacement "tok_p${p}_k${k}_new" \
        --scope "own/p$p.txt" --scope shared.txt |
        sed -n 's/.*"patch_id": "\(.*\)".*/\1/p' >>"$WORK/ids_${round}_$p"
    done
  done
  (
    for i in $(seq 1 60); do
      printf 'commit %s\n' "$i" >>committer.txt
      # A commit that fails to move HEAD ("cannot lock ref 'HEAD'") read
      # HEAD and the index before a landing and has written that index back
      # after it: git's own race (RELIABILITY.md), counted to tell it apart.
      until git add committer.txt 2>/dev/null && {
        err=$(git commit -qm "committer $i" 2>&1) || {
          case $err in *"cannot lock ref 'HEAD'"*) echo "$i" >>"$WORK/headfail_$round" ;; esac
          false
        }
      }; do sleep 0.01; done
      git status --porcelain >/dev/null 2>&1 || true
      sleep 0.02
    done
  ) &
  committer=$!
  pids=()
  for p in $(seq 1 "$P"); do
    (
      while read -r id; do
        if out=$("$BIN" apply --json "$id" 2>/dev/null); then
          echo "$id $(printf '%s' "$out" | sed -n 's/^  "commit": "\(.*\)",$/\1/p')" >>"$WORK/ok_$round"
        else
          echo "$id $(printf '%s' "$out" | sed -n 's/.*"code": "\(.*\)",$/\1/p')" >>"$WORK/fail_$round"
        fi
      done <"$WORK/ids_${round}_$p"
    ) &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid"; done
  wait "$committer"
  touch "$WORK/ok_$round" "$WORK/fail_$round" "$WORK/headfail_$round"
  ok=$(wc -l <"$WORK/ok_$round")
  fail=$(wc -l <"$WORK/fail_$round")
  bad=0
  history=$(git rev-list --first-parent main)
  [ "$fail" = 0 ] || { echo "round $round: $fail applies failed" >&2; bad=$((bad + 1)); }
  committed=$(git log --first-parent --format=%s main | grep -c '^committer ' || true)
  expected=$((1 + ok + committed))
  [ "$(wc -l <<<"$history")" = "$expected" ] || { echo "round $round: $(wc -l <<<"$history") commits in the history, expected $expected (base + $ok landings + $committed commits)" >&2; bad=$((bad + 1)); }
  reverts=$(git log --format=%s main | grep -c -e '^Revert ' -e '^Restore files' || true)
  [ "$reverts" = 0 ] || { echo "round $round: $reverts revert commits" >&2; bad=$((bad + 1)); }
  while read -r id commit; do
    [ "$(grep -c "^$commit\$" <<<"$history")" = 1 ] || { echo "round $round: $id ($commit) not in history once" >&2; bad=$((bad + 1)); }
    [ "$(git rev-parse -q --verify "refs/evolv/applied/$id")" = "$commit" ] || { echo "round $round: $id: applied ref" >&2; bad=$((bad + 1)); }
    tok=$(git show "$commit" --format= -- shared.txt | sed -n 's/^+\(tok_.*_new\)$/\1/p' | head -1)
    git show main:shared.txt | grep -q "^$tok\$" || { echo "round $round: $id: change lost from the tip's shared.txt" >&2; bad=$((bad + 1)); }
  done <"$WORK/ok_$round"
  audits=$("$BIN" log --json | grep -c '"action": "apply"' || true)
  audit_ok=$("$BIN" log --json | tr -d ' \n' | grep -o '"action":"apply","patch_id":"[^"]*","success":true' | wc -l)
  [ "$audit_ok" = "$ok" ] || { echo "round $round: $audit_ok audit successes for $ok landings ($audits apply records)" >&2; bad=$((bad + 1)); }
  [ -z "$(git status --porcelain)" ] || { echo "round $round: status: $(git status --porcelain | head -5)" >&2; bad=$((bad + 1)); }
  [ -z "$(find .git -name '*.lock' ! -name landing.lock)" ] || { echo "round $round: locks left" >&2; bad=$((bad + 1)); }
  [ -z "$(ls .git/evolv/pending 2>/dev/null)" ] || { echo "round $round: bookkeeping still journalled" >&2; bad=$((bad + 1)); }
  git fsck --strict --no-progress >/dev/null 2>&1 || { echo "round $round: fsck" >&2; bad=$((bad + 1)); }
  headfail=$(wc -l <"$WORK/headfail_$round")
  echo "round $round: $ok landed, $fail failed ($(cut -d' ' -f2 "$WORK/fail_$round" | sort | uniq -c | tr '\n' ' ')), $reverts reverts, $bad problems, $headfail committer commits lost the race for HEAD"
  total_ok=$((total_ok + ok)) total_fail=$((total_fail + fail)) total_bad=$((total_bad + bad))
  cd "$WORK"
done
echo "concurrency: $ROUNDS round(s) of $P processes x $K landings: $total_ok landed, $total_fail failed, $total_bad problems, $(( $(now_ms) - start )) ms"
[ "$total_bad" -eq 0 ]
