#!/usr/bin/env python3
"""Old against new in one run (issue 24 item 3): two git-evolv binaries
built from two commits, the same job on the same repository, runs
alternating (old, new, old, new, ...), medians of wall time, plus the
instructions of one run of each (valgrind callgrind, all threads and
child processes), which repeat whatever else the machine runs.

    scripts/bench_gix.py OLD NEW REPO PATTERN REPLACEMENT ROW...

ROW is `propose:SCOPE` (`**`: the whole tree) or `apply:SCOPE` (a
proposal of SCOPE made once by OLD, then `git evolv apply` of it, the
branch reset before every run). BENCH_RUNS (default 5) runs of each.
Prints one Markdown table row per ROW.
"""
import os
import re
import statistics
import subprocess
import sys

from bench_common import Repo

OLD, NEW, REPO, PATTERN, REPLACEMENT = sys.argv[1:6]
ROWS = [a.split(":", 1) for a in sys.argv[6:]]
RUNS = int(os.environ.get("BENCH_RUNS", "5"))


repo = Repo(REPO)


print("| row | old | new | new / old (instructions) | old | new | new / old (wall, median) | peak RSS old / new |")
print("|---|---:|---:|---:|---:|---:|---:|---|")
for kind, scope in ROWS:
    repo.reset()
    scope_args = [] if scope == "**" else ["--scope", scope]
    propose = ["propose", "--json", "-p", PATTERN, "-r", REPLACEMENT, *scope_args]
    out = subprocess.run([OLD, "-C", REPO, *propose], check=True, capture_output=True, text=True).stdout
    pid = re.search(r'"patch_id": "([^"]+)"', out).group(1)
    changed = int(re.search(r'"files_matched": (\d+)', out).group(1))
    kept = repo.packs()
    times = {OLD: [], NEW: []}
    rss = {OLD: 0, NEW: 0}
    instr = {}

    def once(binary, counted=False):
        repo.reset(pid)
        cmd = [binary, *propose] if kind == "propose" else [binary, "apply", pid]
        if counted:
            result = repo.instructions(cmd)
        else:
            result = repo.run(cmd)
        if kind == "propose":
            repo.undo_propose(kept, {pid})
        repo.reset(pid)
        return result

    for _ in range(RUNS):
        for binary in (OLD, NEW):
            s, r = once(binary)
            times[binary].append(s)
            rss[binary] = max(rss[binary], r)
    for binary in (OLD, NEW):
        instr[binary] = once(binary, counted=True)
    m = {b: statistics.median(v) for b, v in times.items()}
    label = f"{kind} {changed:,} changed files ({scope})"
    print(f"| {label} | {instr[OLD] / 1e6:,.0f} M | {instr[NEW] / 1e6:,.0f} M | {instr[NEW] / instr[OLD]:.3f}× "
          f"| {m[OLD]:.3f} s | {m[NEW]:.3f} s | {m[NEW] / m[OLD]:.3f}× | {rss[OLD] / 1024:.0f} / {rss[NEW] / 1024:.0f} MiB |",
          flush=True)
    print(f"{label}: old {sorted(times[OLD])} new {sorted(times[NEW])}", file=sys.stderr)
