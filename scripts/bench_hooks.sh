#!/usr/bin/env bash
# What a commit-msg hook costs per commit, side by side (issues #14 item 5
# and #17): `git commit --allow-empty -m 'feat: x'` in scratch repositories
#   - with no hook (the base),
#   - with a compiled no-op hook (the floor: the least any hook can add),
#   - with git-evolv's hook as `git evolv hooks install` writes it: a copy
#     of the small `git-evolv-hook` binary (which really lints),
#   - with the layout older versions installed, for comparison: a link to
#     the whole `git-evolv` binary,
#   - with git-evolv's sh shim, as installed where another hook is chained
#     (here chaining nothing, to show what the shell costs),
#   - with each hook manager running a no-op hook: husky, pre-commit,
#     lefthook (installed from their registries as scripts/hook_managers.sh
#     does; BENCH_MANAGERS=0 leaves them out; one that cannot be installed
#     is reported as skipped).
# The commits alternate between the cases (one commit of each case per
# round, the order rotating by round), so a change of load hits them all.
# Prints a Markdown table for BENCHMARKS.md: wall time (median and minimum)
# and CPU time (user + system, median) of the `git commit`, the time added
# over no hook (for medians: the median of each round's difference, which
# a change of load between rounds does not move), and that as a ratio of
# the floor's (the target of #14 item 5 is at most 1.25). Then the hook run alone against the no-op alone:
# wall time, minor page faults, and instructions (callgrind, when valgrind
# is installed), and the hook binary's size. Load averages before and after
# are printed with the figures.
#
#   scripts/bench_hooks.sh              # BENCH_COMMITS=60 commits per case
#   BENCH_EVOLV=path/to/git-evolv scripts/bench_hooks.sh   # an existing build;
#                                       # git-evolv-hook must be beside it
#
# Needs python3 and a C compiler for the no-op hook.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
COMMITS=${BENCH_COMMITS:-60}

# BENCH_EVOLV=path uses an already built binary.
if [ -z "${BENCH_EVOLV:-}" ]; then
  cargo build --release --locked -q --bins
fi
EVOLV=${BENCH_EVOLV:-$ROOT/target/release/git-evolv}
EVOLV=$(cd "$(dirname "$EVOLV")" && pwd)/$(basename "$EVOLV")
HOOK_BIN=$(dirname "$EVOLV")/git-evolv-hook
[ -x "$HOOK_BIN" ] || { echo "bench_hooks: $HOOK_BIN is not built (cargo build --release --bins)" >&2; exit 2; }

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

# Automatic maintenance after a commit is off everywhere: the same for
# every case, and noise.
repo() {
  git init -q -b main "$WORK/$1" &&
    git -C "$WORK/$1" config maintenance.auto false &&
    git -C "$WORK/$1" commit -q --allow-empty -m "chore: root"
}
repo plain
repo floor
cp "$WORK/noop" "$WORK/floor/.git/hooks/commit-msg"
repo evolv
(cd "$WORK/evolv" && "$EVOLV" hooks install >/dev/null)
hook=$WORK/evolv/.git/hooks/commit-msg
{ [ -f "$hook" ] && [ ! -L "$hook" ] && cmp -s "$hook" "$HOOK_BIN"; } ||
  { echo "hooks install did not copy $HOOK_BIN to $hook" >&2; exit 1; }
repo link
ln -s "$EVOLV" "$WORK/link/.git/hooks/commit-msg"
repo shim
sed "s|@GIT_EVOLV_BIN@|'$EVOLV'|" hooks/commit-msg >"$WORK/shim/.git/hooks/commit-msg"
chmod 755 "$WORK/shim/.git/hooks/commit-msg"
# git-evolv's hooks must really run (and reject).
for r in evolv link shim; do
  if git -C "$WORK/$r" commit -q --allow-empty -m "Not conventional" 2>/dev/null; then
    echo "the commit-msg hook did not run in $r" >&2
    exit 1
  fi
done
# A message file for the hook run alone.
printf 'feat: x\n' >"$WORK/msg"

cases=(plain floor evolv link shim)
names=("no hook" "compiled no-op hook (floor)" "**git-evolv, installed: a copy of git-evolv-hook**" "git-evolv before: a link to the git-evolv binary" "git-evolv's sh shim + git-evolv (the chaining layout)")

if [ "${BENCH_MANAGERS:-1}" != 0 ]; then
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
fi

python3 - "$WORK" "$COMMITS" "$EVOLV" "$HOOK_BIN" "${cases[@]}" -- "${names[@]}" <<'PY'
import os, shutil, statistics, subprocess, sys, time

work, commits, evolv, hook_bin = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
rest = sys.argv[5:]
sep = rest.index("--")
cases, names = rest[:sep], rest[sep + 1:]
git = shutil.which("git")


# The managers print their progress: not into the table.
QUIET = [(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
         (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)]


def load():
    return open("/proc/loadavg").read().split()[:3]


def run(argv, cwd):
    """Wall ms, CPU ms (user + system, the process and the children it
    waited for: git and its hook) and minor page faults of one run."""
    os.chdir(cwd)
    t0 = time.perf_counter_ns()
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=QUIET)
    _, status, ru = os.wait4(pid, 0)
    wall = (time.perf_counter_ns() - t0) / 1e6
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{argv} failed in {cwd}")
    return wall, (ru.ru_utime + ru.ru_stime) * 1000, ru.ru_minflt


def alternate(commands, rounds, warmup=5):
    """Runs each command once per round, the order rotating by round."""
    got = {k: [] for k in commands}
    keys = list(commands)
    for r in range(warmup + rounds):
        order = keys[r % len(keys):] + keys[:r % len(keys)]
        for k in order:
            m = run(*commands[k])
            if r >= warmup:
                got[k].append(m)
    return got


load_before = load()
started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
commit = {c: ([git, "commit", "-q", "--allow-empty", "-m", "feat: x"], f"{work}/{c}") for c in cases}
got = alternate(commit, commits)
alone = {
    "floor": ([f"{work}/floor/.git/hooks/commit-msg", f"{work}/msg"], f"{work}/floor"),
    "evolv": ([f"{work}/evolv/.git/hooks/commit-msg", f"{work}/msg"], f"{work}/evolv"),
    "link": ([f"{work}/link/.git/hooks/commit-msg", f"{work}/msg"], f"{work}/link"),
}
got_alone = alternate(alone, commits)
load_after = load()


def col(ms, i):
    return [m[i] for m in ms]


med = {c: statistics.median(col(got[c], 0)) for c in cases}
low = {c: min(col(got[c], 0)) for c in cases}
cpu = {c: statistics.median(col(got[c], 1)) for c in cases}


def paired(i):
    """Per case, the median over rounds of (this case - no hook) in the
    same round: the rounds alternate, so a change of load cancels out."""
    return {c: statistics.median(a[i] - b[i] for a, b in zip(got[c], got["plain"])) for c in cases}


med_added, cpu_added = paired(0), paired(1)
low_added = {c: low[c] - low["plain"] for c in cases}
ratio = lambda d, c: "" if c == "plain" else f"{d[c] / d['floor']:.2f}×"

print(f"Run of {started}, {commits} alternating commits per case (after 5 warm-up rounds), "
      f"load average {' '.join(load_before)} before, {' '.join(load_after)} after, "
      f"{os.cpu_count()} CPUs.")
print()
print("| commit-msg hook | median (ms) | added | vs floor | minimum (ms) | added | vs floor | CPU median (ms) | added | vs floor |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for c, n in zip(cases, names):
    print(f"| {n} | {med[c]:.2f} | {med_added[c]:+.2f} | {ratio(med_added, c)} | {low[c]:.2f} | {low_added[c]:+.2f} | {ratio(low_added, c)} "
          f"| {cpu[c]:.2f} | {cpu_added[c]:+.2f} | {ratio(cpu_added, c)} |")
print()
print("(added: the median over rounds of each round's difference from no hook; for minimums, "
      "the difference of the minimums)")
print()
print(f"git-evolv's installed hook adds {med_added['evolv']:.2f} ms (median) against the floor's "
      f"{med_added['floor']:.2f} ms: {med_added['evolv'] / med_added['floor']:.2f}×; by minimums "
      f"{low_added['evolv']:.2f} against {low_added['floor']:.2f} ms: "
      f"{low_added['evolv'] / low_added['floor']:.2f}×; by CPU time (median) "
      f"{cpu_added['evolv'] / cpu_added['floor']:.2f}× (target ≤ 1.25×).")
print()


def callgrind(argv, cwd):
    if not shutil.which("valgrind"):
        return None
    out = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv],
                         cwd=cwd, capture_output=True, text=True).stderr
    for line in out.splitlines():
        if "Collected :" in line:
            return int(line.split(":")[-1])
    return None


print("The hook run alone (`.git/hooks/commit-msg FILE`, started by this script; in a commit it")
print("also reads git's command line from /proc, one parent up instead of several here):")
print()
print("| hook alone | wall median (ms) | wall minimum (ms) | minor page faults | instructions |")
print("| --- | ---: | ---: | ---: | ---: |")
labels = {"floor": "compiled no-op", "evolv": "git-evolv-hook (the installed copy)", "link": "git-evolv (a link, as before)"}
for k, (argv, cwd) in alone.items():
    ms = got_alone[k]
    ins = callgrind(argv, cwd)
    ins = f"{ins / 1e6:.2f} M" if ins else "(no valgrind)"
    print(f"| {labels[k]} | {statistics.median(col(ms, 0)):.2f} | {min(col(ms, 0)):.2f} | "
          f"{statistics.median(col(ms, 2)):.0f} | {ins} |")
print()
size = os.path.getsize(hook_bin)
line = f"git-evolv-hook: {size / 1e6:.2f} MB ({size} bytes) as built"
if shutil.which("strip"):
    tmp = f"{work}/stripped"
    subprocess.run(["strip", "-o", tmp, hook_bin], check=True)
    line += f", {os.path.getsize(tmp) / 1e6:.2f} MB stripped"
print(line + f"; git-evolv: {os.path.getsize(evolv) / 1e6:.1f} MB.")
PY
