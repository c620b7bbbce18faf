#!/usr/bin/env python3
"""The scaling table of issue 14: what git-evolv costs per changed file,
against git doing the same job in the same run on the same repository.

    scripts/bench_scale.py EVOLV REPO PATTERN REPLACEMENT SIZE=SCOPE...

For each SIZE=SCOPE (the scope glob that selects SIZE files holding the
pattern), with RUNS (env BENCH_RUNS, default 3) alternating runs, medians:

- `git evolv apply ID` (no validation) against `git merge --ff-only P` of
  the same proposal commit, `git reset --hard` before every run;
- `git evolv propose --scope SCOPE` against `git grep -l PATTERN HEAD` plus
  `git diff BASE P` over the same pathspec;
- peak RSS (wait4's ru_maxrss) of propose and apply;
- instructions (valgrind callgrind, all threads and child processes) of one
  run each, for sizes up to BENCH_INSTR_MAX (default 3000; 0 skips them):
  the machine is shared, so instruction ratios are the reliable figure.

Prints a Markdown table for BENCHMARKS.md.
"""
import os
import re
import statistics
import subprocess
import sys

from bench_common import Repo

EVOLV, REPO, PATTERN, REPLACEMENT = sys.argv[1:5]
SIZES = [a.split("=", 1) for a in sys.argv[5:]]
RUNS = int(os.environ.get("BENCH_RUNS", "3"))
INSTR_MAX = int(os.environ.get("BENCH_INSTR_MAX", "3000"))
# BENCH_APPLY=0: the propose columns only (apply and merge are not run).
APPLY = os.environ.get("BENCH_APPLY", "1") != "0"
# EVOLV_OLD: a second build, run in the same loop (old, new, git each
# round), for a before/after table beside git's figures.
OLD = os.environ.get("EVOLV_OLD")


repo = Repo(REPO)
base = repo.base

rows = []
for size, scope in SIZES:
    repo.reset()
    # `**`: the whole tree, no --scope and no pathspec (git grep -l P HEAD).
    scope_args = [] if scope == "**" else ["--scope", scope]
    spec_args = [] if scope == "**" else ["--", f":(glob){scope}"]
    out = subprocess.run([EVOLV, "-C", REPO, "propose", "--json", "-p", PATTERN, "-r", REPLACEMENT, *scope_args],
                         check=True, capture_output=True, text=True).stdout
    pid = re.search(r'"patch_id": "([^"]+)"', out).group(1)
    changed = int(re.search(r'"files_matched": (\d+)', out).group(1))
    proposal = repo.git("rev-parse", f"refs/evolv/proposals/{pid}").strip()
    kept = repo.packs()
    propose_cmd = [EVOLV, "propose", "--json", "-p", PATTERN, "-r", REPLACEMENT, *scope_args]
    grep_cmd = ["git", "grep", "-l", PATTERN, "HEAD", *spec_args]
    diff_cmd = ["git", "diff", base, proposal, *spec_args]
    t = {k: [] for k in ("apply", "merge", "propose", "grep", "diff", "old_apply", "old_propose")}
    rss = {"apply": 0, "propose": 0, "merge": 0}
    for _ in range(RUNS):
        if APPLY and OLD:
            repo.reset(pid)
            t["old_apply"].append(repo.run([OLD, "apply", pid])[0])
        if APPLY:
            repo.reset(pid)
            s, r = repo.run([EVOLV, "apply", pid])
            t["apply"].append(s); rss["apply"] = max(rss["apply"], r)
            repo.reset(pid)
            s, r = repo.run(["git", "merge", "-q", "--ff-only", proposal])
            t["merge"].append(s); rss["merge"] = max(rss["merge"], r)
        repo.reset(pid)
        if OLD:
            t["old_propose"].append(repo.run([OLD, *propose_cmd[1:]])[0])
            repo.undo_propose(kept, {pid})
        s, r = repo.run(propose_cmd)
        repo.undo_propose(kept, {pid})
        t["propose"].append(s); rss["propose"] = max(rss["propose"], r)
        t["grep"].append(repo.run(grep_cmd)[0])
        t["diff"].append(repo.run(diff_cmd)[0])
    med = {k: statistics.median(v) if v else float("nan") for k, v in t.items()}
    instr = None
    if changed <= INSTR_MAX:
        ia = im = float("nan")
        if APPLY:
            repo.reset(pid)
            ia = repo.instructions([EVOLV, "apply", pid])
            repo.reset(pid)
            im = repo.instructions(["git", "merge", "-q", "--ff-only", proposal])
        repo.reset(pid)
        ip = repo.instructions(propose_cmd)
        repo.undo_propose(kept, {pid})
        igrep = repo.instructions(grep_cmd)
        ig = igrep + repo.instructions(diff_cmd)
        instr = (ia, im, ip, ig, igrep)
    repo.reset(pid)
    rows.append((changed, med, rss, instr))
    print(f"{changed} files: apply {med['apply']:.3f}s merge {med['merge']:.3f}s propose {med['propose']:.3f}s "
          f"grep {med['grep']:.3f}s diff {med['diff']:.3f}s instr {instr}", file=sys.stderr)

print("| changed files | apply | `merge --ff-only` | ratio | propose | `grep -l` + `diff` | ratio | propose / `grep -l` "
      "| apply instr. ratio | propose instr. ratio (vs grep + diff; vs grep) | peak RSS propose / apply / merge |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
for changed, m, rss, instr in rows:
    gd = m["grep"] + m["diff"]
    ir = f"{instr[0] / instr[1]:.2f}× ({instr[0] / 1e9:.2f} G / {instr[1] / 1e9:.2f} G)" if instr and APPLY else "—"
    ip = (f"{instr[2] / instr[3]:.2f}× ({instr[2] / 1e9:.2f} G / {instr[3] / 1e9:.2f} G); "
          f"{instr[2] / instr[4]:.2f}×" if instr else "—")
    print(f"| {changed:,} | {m['apply']:.3f} s | {m['merge']:.3f} s | {m['apply'] / m['merge']:.2f}× "
          f"| {m['propose']:.3f} s | {gd:.3f} s | {m['propose'] / gd:.2f}× | {m['propose'] / m['grep']:.2f}× | {ir} | {ip} "
          f"| {rss['propose'] / 1024:.0f} / {rss['apply'] / 1024:.0f} / {rss['merge'] / 1024:.0f} MiB |")
if OLD:
    print(f"\nbefore ({OLD}) / after ({EVOLV}) / git, the same rounds:\n")
    print("| changed files | apply before / after / merge | ratios | propose before / after / `grep -l` + `diff` | ratios |")
    print("|---:|---:|---:|---:|---:|")
    for changed, m, rss, instr in rows:
        gd = m["grep"] + m["diff"]
        print(f"| {changed:,} | {m['old_apply']:.3f} / {m['apply']:.3f} / {m['merge']:.3f} s "
              f"| {m['old_apply'] / m['merge']:.2f}× → {m['apply'] / m['merge']:.2f}× "
              f"| {m['old_propose']:.3f} / {m['propose']:.3f} / {gd:.3f} s "
              f"| {m['old_propose'] / gd:.2f}× → {m['propose'] / gd:.2f}× |")
