#!/usr/bin/env python3
"""Startup figures of shipped binaries (issue 29, item 5): the file size,
`git-evolv --version`, and the MCP `initialize` round trip (server start to
the answer read), each against `git --version` timed in the same run, so the
ratios hold on a loaded machine. Medians of R runs, the binaries alternating.

Usage: bench_startup.py [R=31] LABEL=BIN [LABEL=BIN ...]
  e.g. bench_startup.py 31 before=/tmp/old/git-evolv after=target/release/git-evolv
"""
import json, os, statistics, subprocess, sys, tempfile, time

args = sys.argv[1:]
R = int(args.pop(0)) if args and args[0].isdigit() else 31
if not args:
    sys.exit(__doc__)
BINS = [(a.split("=", 1)[0], os.path.abspath(a.split("=", 1)[1])) for a in args]
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "bench", "version": "1"}}}


def timed(f):
    t = time.perf_counter()
    f()
    return (time.perf_counter() - t) * 1000


def version(cmd):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def initialize(bin_, repo):
    p = subprocess.Popen([bin_, "mcp"], cwd=repo, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    p.stdin.write((json.dumps(INIT) + "\n").encode())
    p.stdin.flush()
    answer = json.loads(p.stdout.readline())
    assert answer.get("id") == 1 and "result" in answer, answer
    p.stdin.close()
    p.wait()


def main():
    repo = tempfile.mkdtemp()
    subprocess.run(["git", "init", "-q", repo], check=True)
    samples = {k: [] for k in ["git --version"] + [f"{l} {w}" for l, _ in BINS for w in ("--version", "initialize")]}
    for _ in range(R):
        samples["git --version"].append(timed(lambda: version(["git", "--version"])))
        for label, b in BINS:
            samples[f"{label} --version"].append(timed(lambda: version([b, "--version"])))
            samples[f"{label} initialize"].append(timed(lambda: initialize(b, repo)))
    git = statistics.median(samples["git --version"])
    print(f"| binary | size (MB) | `--version` ms | × git | MCP `initialize` ms | × git |")
    print("| --- | --- | --- | --- | --- | --- |")
    for label, b in BINS:
        v = statistics.median(samples[f"{label} --version"])
        i = statistics.median(samples[f"{label} initialize"])
        size = os.path.getsize(b) / 1e6
        print(f"| {label} (`{b}`) | {size:.1f} | {v:.2f} | {v / git:.2f} | {i:.2f} | {i / git:.2f} |")
    print(f"\n`git --version`: {git:.2f} ms (median of {R}); {os.uname().machine}, "
          f"load {os.getloadavg()[0]:.2f}")


main()
