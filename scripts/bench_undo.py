"""`git evolv undo` against git in the same run (issue 26 item 7).

1. Undo of a landing of K files in a repository of N files (K = 10 and
   3,000, N = 100,000 by default) against `git reset --keep HEAD~1`, which
   does the same to the branch, index and work tree. Alternating runs:
   git's reset (then `git reset --keep N` untimed), then `git evolv undo`
   of the landing (then `git evolv undo` again, which redoes it, untimed);
   medians.
2. Undo of a propose and of a drop against one `git update-ref` (what
   they put back is one ref, or three for a drop of an applied proposal).

    python3 scripts/bench_undo.py path/to/git-evolv [N]

BENCH_RUNS (default 7) sets the runs, BENCH_HOT (default 10,3000) the
landing sizes; `BENCH_HOT=` (empty) times only part 2, the undo of a
propose and of a drop. BENCH_BASELINE (comma-separated paths) adds other
git-evolv builds to part 2, alternating with the first in every run.
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
# Other git-evolv binaries (a baseline) timed in the same runs as the first
# in part 2, comma-separated: BENCH_BASELINE=/path/to/main/git-evolv.
BASELINE = os.environ.get("BENCH_BASELINE", "").split(",")
# The landing sizes timed (BENCH_HOT=10 times only the 10-file one).
HOT = [int(k) for k in os.environ.get("BENCH_HOT", "10,3000").split(",") if k]


def make(path, n):
    """N files in directories of 1,000 (plus `hot<K>/` files holding the
    word a proposal replaces), one commit written with fast-import, checked
    out."""
    subprocess.run(["git", "init", "-q", "-b", "main", path], check=True)
    lines = ["commit refs/heads/main", "committer B <b@e.x> 1700000000 +0000", "data 4", "init"]
    for i in range(n):
        content = f"file {i}\n"
        lines += [f"M 100644 inline d{i // 1000:03}/f{i}.txt", f"data {len(content)}", content]
    for k in HOT:
        for i in range(k):
            content = f"needle{k} {i}\n"
            lines += [f"M 100644 inline hot{k}/f{i}.txt", f"data {len(content)}", content]
    data = "\n".join(lines) + "\n"
    subprocess.run(["git", "-C", path, "fast-import", "--quiet"], input=data.encode(), check=True)
    subprocess.run(["git", "-C", path, "checkout", "-q", "-f", "main"], check=True)
    for k, v in [("user.name", "B"), ("user.email", "b@e.x")]:
        subprocess.run(["git", "-C", path, "config", k, v], check=True)


def evolv_json(evolv, path, *args):
    out = subprocess.run([evolv, *args, "--json"], cwd=path, capture_output=True, check=True, text=True)
    return json.loads(out.stdout)


def landing(evolv, repo, k):
    """Lands a K-file proposal; times git's and git-evolv's undo of it."""
    path = repo.path
    pid = evolv_json(evolv, path, "propose", "-p", f"needle{k}", "-r", f"pin{k}", "-s", f"hot{k}/**")["patch_id"]
    evolv_json(evolv, path, "apply", pid)
    n = repo.git("rev-parse", "HEAD").strip()
    g, e = [], []
    for _ in range(RUNS):
        g.append(repo.run(["git", "reset", "-q", "--keep", "HEAD~1"])[0])
        repo.git("reset", "-q", "--keep", n)
        e.append(repo.run([evolv, "undo"])[0])
        assert repo.git("rev-parse", "HEAD").strip() != n
        repo.run([evolv, "undo"])  # undo of the undo: the redo
        assert repo.git("rev-parse", "HEAD").strip() == n
    return statistics.median(g), statistics.median(e)


def ref_only(evolvs, repo):
    """Undo of a propose and of a drop against one `git update-ref`, for
    each binary of `evolvs` in turn within every run."""
    path = repo.path
    pid = evolv_json(evolvs[0], path, "propose", "-p", "file 1\\b", "-r", "file one", "-s", "d000/f1.txt")["patch_id"]
    ref = f"refs/evolv/proposals/{pid}"
    target = repo.git("rev-parse", ref).strip()
    g, p, d = [], {e: [] for e in evolvs}, {e: [] for e in evolvs}
    for _ in range(RUNS):
        g.append(repo.run(["git", "update-ref", "-d", ref])[0])
        repo.git("update-ref", ref, target)
        for e in evolvs:
            p[e].append(repo.run([e, "undo"])[0])  # the propose (or the redo)
            repo.run([e, "undo"])  # back
    subprocess.run([evolvs[0], "drop", pid], cwd=path, check=True, capture_output=True)
    for _ in range(RUNS):
        for e in evolvs:
            d[e].append(repo.run([e, "undo"])[0])  # the drop (or its redo)
            repo.run([e, "undo"])
    med = statistics.median
    return med(g), {e: (med(p[e]), med(d[e])) for e in evolvs}


def main():
    evolv = os.path.abspath(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    fs = subprocess.run(["stat", "-f", "-c", "%T", tempfile.gettempdir()], capture_output=True, text=True).stdout.strip()
    print(f"repository of {n:,} files on {fs} ({tempfile.gettempdir()}), {RUNS} alternating runs, medians")
    print()
    if HOT:
        print("| landed files | `git reset --keep HEAD~1` | `git evolv undo` | ratio |")
        print("|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "r")
        make(path, n)
        repo = Repo(path)
        for k in HOT:
            gm, em = landing(evolv, repo, k)
            print(f"| {k:,} | {gm * 1000:.1f} ms | {em * 1000:.1f} ms | {em / gm:.2f}× |")
        print()
        evolvs = [evolv] + [os.path.abspath(b) for b in BASELINE if b]
        gm, timed = ref_only(evolvs, repo)
        print("| what | binary | `git update-ref -d` | `git evolv undo` | ratio |")
        print("|---|---|---:|---:|---:|")
        for e, (pm, dm) in timed.items():
            name = os.path.basename(e)
            print(f"| propose | {name} | {gm * 1000:.1f} ms | {pm * 1000:.1f} ms | {pm / gm:.2f}× |")
            print(f"| drop | {name} | {gm * 1000:.1f} ms | {dm * 1000:.1f} ms | {dm / gm:.2f}× |")


if __name__ == "__main__":
    main()
