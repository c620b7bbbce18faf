"""`git evolv list --json` against `git for-each-ref refs/evolv/proposals`
(issue 25 item 18): a repository with N proposals, made as git-evolv
stores them (a commit per proposal, its metadata in the message, a ref
under refs/evolv/proposals/), written with fast-import so that 10,000 take
seconds; refs packed, as `git gc` / `pack-refs` leaves them, and loose.
Alternating runs, medians, and the instructions of one run of each.
Two baselines: `for-each-ref` as typed (it reads each object's type) and
`for-each-ref --format='%(refname) %(objectname)'` (names and ids only,
what `list` needs of the refs). `list` reads each proposal's row from its
cache (`.git/evolv/list-cache`), written by the first run; the last column
times `list` with the cache removed before each run.

    python3 scripts/bench_list.py path/to/git-evolv [N ...]
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from bench_common import Repo  # noqa: E402

RUNS = int(os.environ.get("BENCH_RUNS", "7"))


def make(path, n):
    subprocess.run(["git", "init", "-q", "-b", "main", path], check=True)
    env = {**os.environ, "GIT_AUTHOR_NAME": "B", "GIT_AUTHOR_EMAIL": "b@e.x",
           "GIT_COMMITTER_NAME": "B", "GIT_COMMITTER_EMAIL": "b@e.x"}
    lines = ["commit refs/heads/main", "mark :1", "committer B <b@e.x> 1700000000 +0000",
             "data 5", "init", "M 100644 inline a.txt", "data 12", "getUserData", ""]
    for i in range(n):
        meta = {"operation": "replace", "pattern": "getUserData", "replacement": f"name{i}",
                "literal": False, "scope": [], "created_at": 1700000000 + i, "files_scanned": 1,
                "files_matched": 1, "total_changes": 1, "lines_added": 1, "lines_removed": 1,
                "affected_files": ["a.txt"]}
        message = (f"refactor: replace 'getUserData' with 'name{i}'\n\n"
                   f"Evolv-Metadata: {json.dumps(meta, separators=(',', ':'))}\nEvolv-Nonce: {i:016x}.1.0\n")
        content = f"name{i}\n"
        lines += [f"commit refs/evolv/proposals/patch_{1700000000 + i}_{i:08x}",
                  f"committer B <b@e.x> {1700000000 + i} +0000",
                  f"data {len(message.encode())}", message.rstrip("\n"),
                  "from :1", "M 100644 inline a.txt", f"data {len(content)}", content]
    data = "\n".join(lines) + "\n"
    subprocess.run(["git", "-C", path, "fast-import", "--quiet"], input=data.encode(), check=True, env=env)
    subprocess.run(["git", "-C", path, "checkout", "-q", "-f", "main"], check=True)


GIT_FORMAT = "--format=%(refname) %(objectname)"


def main():
    evolv = os.path.abspath(sys.argv[1])
    sizes = [int(n) for n in sys.argv[2:]] or [2000, 10000]
    print("| proposals | refs | `for-each-ref` | `for-each-ref --format=…` | `list --json` | ratio | ratio to `--format` "
          "| instructions ratio (to `--format`) | `list --json`, no cache |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for n in sizes:
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "r")
            make(path, n)
            repo = Repo(path)
            cache = os.path.join(path, ".git", "evolv", "list-cache")
            for refs in ["packed", "loose"]:
                if refs == "packed":
                    repo.git("pack-refs", "--all")
                else:
                    loosen(repo, path)
                git_cmd = ["git", "for-each-ref", "refs/evolv/proposals"]
                git_fmt = ["git", "for-each-ref", GIT_FORMAT, "refs/evolv/proposals"]
                evolv_cmd = [evolv, "list", "--json"]
                # The first run writes the cache the timed runs read.
                assert len(json.loads(subprocess.run(evolv_cmd, cwd=path, capture_output=True, check=True).stdout)["proposals"]) == n
                g, f, e, cold = [], [], [], []
                for _ in range(RUNS):
                    g.append(repo.run(git_cmd)[0])
                    f.append(repo.run(git_fmt)[0])
                    e.append(repo.run(evolv_cmd)[0])
                for _ in range(max(1, RUNS // 3)):
                    os.remove(cache)
                    cold.append(repo.run(evolv_cmd)[0])
                gm, fm, em = (statistics.median(x) for x in (g, f, e))
                ratio_i = repo.instructions(evolv_cmd) / repo.instructions(git_fmt)
                print(f"| {n:,} | {refs} | {gm * 1000:.1f} ms | {fm * 1000:.1f} ms | {em * 1000:.1f} ms | {em / gm:.2f}× "
                      f"| {em / fm:.2f}× | {ratio_i:.2f}× | {statistics.median(cold) * 1000:.1f} ms |")


def loosen(repo, path):
    """Every proposal ref as a loose file again (as new proposals are)."""
    out = repo.git("for-each-ref", "--format=%(objectname) %(refname)", "refs/evolv/proposals")
    for line in out.splitlines():
        oid, ref = line.split()
        f = os.path.join(path, ".git", ref)
        os.makedirs(os.path.dirname(f), exist_ok=True)
        with open(f, "w") as fh:
            fh.write(oid + "\n")
    packed = os.path.join(path, ".git", "packed-refs")
    with open(packed) as fh:
        keep = [l for l in fh if "refs/evolv/proposals/" not in l]
    with open(packed, "w") as fh:
        fh.writelines(keep)


if __name__ == "__main__":
    main()
