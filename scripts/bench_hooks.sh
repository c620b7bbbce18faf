#!/usr/bin/env bash
# What a commit-msg hook costs per commit, side by side (issues #14 item 5
# and #17): `git commit --allow-empty -m 'feat: x'` in scratch repositories
#   - with no hook (the base),
#   - with a compiled no-op hook (the floor: the least any hook can add),
#   - with git-evolv's hook as `git evolv hooks install` writes it (the
#     binary itself, linked as the hook, which really lints; issue 14 item 5),
#   - with git-evolv's sh shim, as installed where another hook is chained
#     (here chaining nothing, to show what the shell costs),
#   - with each hook manager running a no-op hook: husky, pre-commit,
#     lefthook (installed from their registries as scripts/hook_managers.sh
#     does; a manager that cannot be installed is reported as skipped).
# Prints a Markdown table for BENCHMARKS.md: mean wall time, time added
# over no hook, and git-evolv's added time as a ratio of the floor's (the
# target is at most 1.25). Wall time on a shared machine is noisy: runs
# alternate between the cases (hyperfine runs each in turn per round when
# given --runs; we repeat rounds and take the median of the means).
#
#   scripts/bench_hooks.sh            # BENCH_RUNS=100, BENCH_ROUNDS=3
#
# Needs hyperfine (installed with apt-get or cargo if missing) and a C
# compiler for the no-op hook.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
RUNS=${BENCH_RUNS:-100}
ROUNDS=${BENCH_ROUNDS:-3}

if ! command -v hyperfine >/dev/null; then
  (apt-get install -y -qq hyperfine >/dev/null 2>&1 || sudo apt-get install -y -qq hyperfine >/dev/null 2>&1) \
    || cargo install --locked hyperfine
fi
# BENCH_EVOLV=path uses an already built binary.
if [ -z "${BENCH_EVOLV:-}" ]; then
  cargo build --release --locked -q
fi
EVOLV=${BENCH_EVOLV:-$ROOT/target/release/git-evolv}

WORK=$(mktemp -d "${TMPDIR:-/tmp}/evolv-bench-hooks.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
TOOLS=${HOOK_MANAGERS_TOOLS:-$WORK/tools}
mkdir -p "$TOOLS"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null HOME=$WORK \
  GIT_AUTHOR_NAME=Bench GIT_AUTHOR_EMAIL=bench@example.com \
  GIT_COMMITTER_NAME=Bench GIT_COMMITTER_EMAIL=bench@example.com \
  PRE_COMMIT_HOME=$TOOLS/pre-commit-cache

# The floor: a hook that is a compiled program doing nothing.
printf 'int main(void) { return 0; }\n' >"$WORK/noop.c"
cc -O2 -o "$WORK/noop" "$WORK/noop.c"

repo() { git init -q -b main "$WORK/$1" && git -C "$WORK/$1" commit -q --allow-empty -m "chore: root"; }
repo plain
repo floor
cp "$WORK/noop" "$WORK/floor/.git/hooks/commit-msg"
repo evolv
(cd "$WORK/evolv" && "$EVOLV" hooks install >/dev/null)
[ -L "$WORK/evolv/.git/hooks/commit-msg" ] || { echo "hooks install did not link the binary" >&2; exit 1; }
repo shim
sed "s|@GIT_EVOLV_BIN@|'$EVOLV'|" hooks/commit-msg >"$WORK/shim/.git/hooks/commit-msg"
chmod 755 "$WORK/shim/.git/hooks/commit-msg"
# The hook must really run (and reject) in the git-evolv repository.
if git -C "$WORK/evolv" commit -q --allow-empty -m "Not conventional" 2>/dev/null; then
  echo "the commit-msg hook did not run" >&2
  exit 1
fi

cases=(plain floor evolv shim)
names=("no hook" "compiled no-op hook (floor)" "git-evolv (installed: the binary linked as the hook)" "git-evolv's sh shim + binary (the chaining layout)")

# The managers, each running a no-op commit-msg hook.
if [ -x "$TOOLS/venv/bin/pre-commit" ] ||
  { python3 -m venv "$TOOLS/venv" >/dev/null 2>&1 &&
    "$TOOLS/venv/bin/pip" install -q --disable-pip-version-check pre-commit >/dev/null 2>&1; }; then
  repo pre-commit
  (cd "$WORK/pre-commit" && cat >.pre-commit-config.yaml <<'EOF'
repos:
- repo: local
  hooks:
  - id: noop
    name: noop
    entry: "true"
    language: system
    stages: [commit-msg]
    always_run: true
    pass_filenames: false
EOF
  git add . && git commit -q --no-verify -m "chore: config" &&
    "$TOOLS/venv/bin/pre-commit" install --hook-type commit-msg >/dev/null)
  cases+=(pre-commit); names+=("pre-commit $("$TOOLS/venv/bin/pre-commit" --version | awk '{print $2}'), no-op hook")
else
  echo "skipped: pre-commit (PyPI could not be reached)" >&2
fi
if [ -x "$TOOLS/npm/node_modules/.bin/lefthook" ] ||
  { command -v npm >/dev/null && mkdir -p "$TOOLS/npm" &&
    (cd "$TOOLS/npm" && echo '{"name":"tools","private":true}' >package.json &&
      npm install --no-audit --no-fund --silent husky lefthook >/dev/null 2>&1); }; then
  BIN=$TOOLS/npm/node_modules/.bin
  repo husky
  (cd "$WORK/husky" && mkdir -p .husky && echo ':' >.husky/commit-msg && "$BIN/husky" >/dev/null)
  cases+=(husky); names+=("husky $(node -p "require('$TOOLS/npm/node_modules/husky/package.json').version"), no-op hook")
  repo lefthook
  (cd "$WORK/lefthook" && printf 'commit-msg:\n  commands:\n    noop:\n      run: "true"\n' >lefthook.yml &&
    "$BIN/lefthook" install >/dev/null 2>&1)
  cases+=(lefthook); names+=("lefthook $("$BIN/lefthook" version), no-op hook")
else
  echo "skipped: husky, lefthook (the npm registry could not be reached)" >&2
fi

args=()
for i in "${!cases[@]}"; do
  args+=(-n "${cases[$i]}" "git -C $WORK/${cases[$i]} commit -q --allow-empty -m 'feat: x'")
done
args+=(-n alone "sh -c 'cd $WORK/evolv && exec .git/hooks/commit-msg .git/COMMIT_EDITMSG'")
for round in $(seq "$ROUNDS"); do
  hyperfine -N --warmup 10 --runs "$RUNS" --export-json "$WORK/round$round.json" "${args[@]}" >/dev/null 2>&1
done

python3 - "$WORK" "$ROUNDS" "$RUNS" "${cases[@]}" -- "${names[@]}" <<'PY'
import json, statistics, sys
work, rounds, runs = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rest = sys.argv[4:]
sep = rest.index("--")
cases, names = rest[:sep], rest[sep + 1:]
times = {}
for r in range(1, rounds + 1):
    for x in json.load(open(f"{work}/round{r}.json"))["results"]:
        times.setdefault(x["command"], []).extend(t * 1000 for t in x["times"])
med = {k: statistics.median(v) for k, v in times.items()}
low = {k: min(v) for k, v in times.items()}
floor_med, floor_min = med["floor"] - med["plain"], low["floor"] - low["plain"]
print("| commit-msg hook | `git commit` median (ms) | added (ms) | added vs the floor | minimum (ms) | added (ms) | added vs the floor |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for c, n in zip(cases, names):
    am, al = med[c] - med["plain"], low[c] - low["plain"]
    rm = "" if c == "plain" else f"{am / floor_med:.2f}×"
    rl = "" if c == "plain" else f"{al / floor_min:.2f}×"
    print(f"| {n} | {med[c]:.2f} | {am:+.2f} | {rm} | {low[c]:.2f} | {al:+.2f} | {rl} |")
print()
print(f"the linked hook alone (`sh -c 'exec .git/hooks/commit-msg FILE'`): median {med['alone']:.2f} ms, minimum {low['alone']:.2f} ms.")
print(f"git-evolv adds {med['evolv'] - med['plain']:.2f} ms (median) against the floor's {floor_med:.2f} ms: "
      f"{(med['evolv'] - med['plain']) / floor_med:.2f}×; by minimums {(low['evolv'] - low['plain']) / floor_min:.2f}× "
      f"(target ≤ 1.25×). {rounds} rounds of {runs} runs per case.")
PY
