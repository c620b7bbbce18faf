#!/usr/bin/env python3
"""MCP server figures (issue #11, requirement 11): server start to
`initialize` answered, a single-file `edit` round trip, and a
`propose_edit` round trip against the same CLI command (`propose --json`),
on a repository of N files from scripts/gen_repo.py. Medians of R runs,
the MCP and CLI proposals alternating.

With BENCH_INSTRUCTIONS=1 (and valgrind), also the load-independent
ratio: instructions of a server that answers `initialize` and one
`propose_edit`, minus those of a server that only answers `initialize`,
against the instructions of `propose --json` (callgrind, every thread).

Usage: bench_mcp.py BIN [N=100000] [R=9]
"""
import glob, json, os, shutil, statistics, subprocess, sys, tempfile, time

BIN = os.path.abspath(sys.argv[1])
N = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
R = int(sys.argv[3]) if len(sys.argv) > 3 else 9
here = os.path.dirname(os.path.abspath(__file__))


class Server:
    def __init__(self, repo, wrap=()):
        self.p = subprocess.Popen([*wrap, BIN, "mcp"], cwd=repo, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.id = 0

    def rpc(self, method, params):
        self.id += 1
        self.p.stdin.write((json.dumps({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params}) + "\n").encode())
        self.p.stdin.flush()
        while True:
            msg = json.loads(self.p.stdout.readline())
            if msg.get("id") == self.id:
                return msg

    def close(self):
        self.p.stdin.close()
        self.p.wait()


INIT = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}


def ms(f):
    t = time.perf_counter()
    f()
    return (time.perf_counter() - t) * 1000


def main():
    repo = tempfile.mkdtemp()
    subprocess.run(["git", "init", "-q", "-b", "main", repo], check=True)
    gen = subprocess.Popen([sys.executable, os.path.join(here, "gen_repo.py"), str(N)], stdout=subprocess.PIPE)
    subprocess.run(["git", "-C", repo, "fast-import", "--quiet"], stdin=gen.stdout, check=True)
    subprocess.run(["git", "-C", repo, "checkout", "-q", "-f", "main"], check=True)
    for k, v in (("user.name", "B"), ("user.email", "b@e")):
        subprocess.run(["git", "-C", repo, "config", k, v], check=True)

    starts = []
    for _ in range(R):
        t = time.perf_counter()
        s = Server(repo)
        s.rpc("initialize", INIT)
        starts.append((time.perf_counter() - t) * 1000)
        s.close()

    s = Server(repo)
    s.rpc("initialize", INIT)
    edits, mcp_prop, cli_prop = [], [], []
    for i in range(R):
        args = {"edits": [{"op": "replace", "path": "src/d000/e00/f000001.go", "old": "return 1 }", "new": f"return {i + 1000} }}"}]}
        edits.append(ms(lambda: s.rpc("tools/call", {"name": "edit", "arguments": args})))
        pargs = {"pattern": "getUserData", "replacement": f"fetch{i}"}
        mcp_prop.append(ms(lambda: s.rpc("tools/call", {"name": "propose_edit", "arguments": pargs})))
        cli_prop.append(ms(lambda: subprocess.run([BIN, "propose", "--json", "-p", "getUserData", "-r", f"cli{i}"],
                                                    cwd=repo, stdout=subprocess.DEVNULL, check=True)))
    s.close()
    if os.environ.get("BENCH_INSTRUCTIONS") and shutil.which("valgrind"):
        instructions(repo)
    med = statistics.median
    print(f"files: {N}, runs: {R}")
    print(f"start -> initialize answered: {med(starts):.1f} ms")
    print(f"single-file edit round trip:  {med(edits):.1f} ms")
    print(f"propose_edit round trip:      {med(mcp_prop):.1f} ms")
    print(f"CLI propose --json:           {med(cli_prop):.1f} ms")
    print(f"ratio MCP / CLI:              {med(mcp_prop) / med(cli_prop):.2f}x")
    subprocess.run(["rm", "-rf", repo])


def callgrind_total(prefix):
    total = 0
    for f in glob.glob(prefix + ".*"):
        out = subprocess.run(["callgrind_annotate", f], capture_output=True, text=True).stdout
        for line in out.splitlines():
            if "PROGRAM TOTALS" in line:
                total += int(line.split()[0].replace(",", ""))
        os.remove(f)
    return total


def instructions(repo):
    work = tempfile.mkdtemp()
    wrap = lambda name: ("valgrind", "--tool=callgrind", "--trace-children=yes",
                         f"--callgrind-out-file={work}/{name}.%p")
    pargs = {"pattern": "getUserData", "replacement": "instr"}
    s = Server(repo, wrap("init"))
    s.rpc("initialize", INIT)
    s.close()
    s = Server(repo, wrap("call"))
    s.rpc("initialize", INIT)
    s.rpc("tools/call", {"name": "propose_edit", "arguments": pargs})
    s.close()
    subprocess.run([*wrap("cli"), BIN, "propose", "--json", "-p", "getUserData", "-r", "instr"],
                   cwd=repo, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    init, call, cli = (callgrind_total(f"{work}/{n}") for n in ("init", "call", "cli"))
    mcp = call - init
    print(f"instructions: server start+initialize {init:,}; propose_edit {mcp:,}; "
          f"CLI propose --json {cli:,}; ratio MCP / CLI {mcp / cli:.3f}")
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
