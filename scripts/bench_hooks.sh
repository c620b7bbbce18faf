#!/usr/bin/env bash
# What the commit-msg hook costs per commit: `git commit --allow-empty -m
# 'feat: x'` in a scratch repository without a hook, then with the
# git-evolv commit-msg hook (the shim `hooks install` writes: exec the
# binary by absolute path). Prints a Markdown table for BENCHMARKS.md.
#
#   scripts/bench_hooks.sh            # BENCH_RUNS=200 by default
#
# Needs hyperfine (installed with apt-get or cargo if missing).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
RUNS=${BENCH_RUNS:-200}

if ! command -v hyperfine >/dev/null; then
  (apt-get install -y -qq hyperfine >/dev/null 2>&1 || sudo apt-get install -y -qq hyperfine >/dev/null 2>&1) \
    || cargo install --locked hyperfine
fi
cargo build --release --locked -q
EVOLV=$ROOT/target/release/git-evolv

WORK=$(mktemp -d "${TMPDIR:-/tmp}/evolv-bench-hooks.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null HOME=$WORK \
  GIT_AUTHOR_NAME=Bench GIT_AUTHOR_EMAIL=bench@example.com \
  GIT_COMMITTER_NAME=Bench GIT_COMMITTER_EMAIL=bench@example.com

for name in plain hooked; do
  git init -q -b main "$WORK/$name"
  git -C "$WORK/$name" commit -q --allow-empty -m "chore: root"
done
printf '#!/bin/sh\nexec "%s" hook commit-msg "$@"\n' "$EVOLV" > "$WORK/hooked/.git/hooks/commit-msg"
chmod +x "$WORK/hooked/.git/hooks/commit-msg"
# The hook must really run (and reject) in the hooked repository.
if git -C "$WORK/hooked" commit -q --allow-empty -m "Not conventional" 2>/dev/null; then
  echo "the commit-msg hook did not run" >&2
  exit 1
fi

hyperfine -N --warmup 20 --runs "$RUNS" --export-json "$WORK/result.json" \
  -n "no hook" "git -C $WORK/plain commit -q --allow-empty -m 'feat: x'" \
  -n "git-evolv commit-msg hook" "git -C $WORK/hooked commit -q --allow-empty -m 'feat: x'" \
  -n "hook alone (git evolv hook commit-msg)" \
     "sh -c 'cd $WORK/hooked && exec $EVOLV hook commit-msg .git/COMMIT_EDITMSG'" >&2

python3 - "$WORK/result.json" "$RUNS" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
base = r["no hook"]
hook = r["git-evolv commit-msg hook"]
alone = r["hook alone (git evolv hook commit-msg)"]
ms = lambda x: x["mean"] * 1000
sd = lambda x: x["stddev"] * 1000
print(f"| case | mean (ms) | ± (ms) | vs no hook |")
print(f"| --- | ---: | ---: | ---: |")
print(f"| `git commit --allow-empty -m 'feat: x'`, no hook | {ms(base):.2f} | {sd(base):.2f} | 1.00 |")
print(f"| same, with the git-evolv commit-msg hook | {ms(hook):.2f} | {sd(hook):.2f} | {ms(hook)/ms(base):.2f} |")
print(f"| `git evolv hook commit-msg` alone (sh + binary) | {ms(alone):.2f} | {sd(alone):.2f} | |")
print()
print(f"Added per commit: {ms(hook) - ms(base):.2f} ms (median {1000*(hook['median']-base['median']):.2f} ms), {sys.argv[2]} runs each.")
PY
