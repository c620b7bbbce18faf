#!/usr/bin/env python3
"""Checkpoints (issue 40 item 6): `git evolv checkpoint` against `git status`,
`git stash push` and the shadow-repository approach of Cline and OpenCode (a
second git directory over the same work tree: `git add -A`, `write-tree`,
`commit-tree` per checkpoint), in the same run, on repositories of N files.

Usage: bench_checkpoints.py BINARY [N ...] [--storage K] [--dir DIR]
Each timing is the median of RUNS runs; the edits before a run are not timed.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zlib

RUNS = 7
ENV = dict(os.environ, GIT_AUTHOR_NAME="B", GIT_AUTHOR_EMAIL="b@x",
           GIT_COMMITTER_NAME="B", GIT_COMMITTER_EMAIL="b@x")


def sh(args, cwd, env=ENV, check=True, stdin=None):
    return subprocess.run(args, cwd=cwd, env=env, check=check, stdin=stdin,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def make_repo(root, n):
    repo = os.path.join(root, f"r{n}")
    os.makedirs(repo)
    sh(["git", "init", "-q", "-b", "main"], repo)
    gen = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gen_repo.py")
    stream = subprocess.run([sys.executable, gen, str(n)], check=True,
                            stdout=subprocess.PIPE).stdout
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=stream, check=True)
    sh(["git", "reset", "-q", "--hard", "main"], repo)
    sh(["git", "gc", "-q"], repo)
    sh(["git", "status", "--porcelain"], repo)  # the index's stat data, fresh
    return repo


def files_of(n):
    return [f"src/d{i // 1000:03d}/e{(i // 100) % 10:02d}/f{i:06d}.go" for i in range(n)]


class Editor:
    """Appends a line to 10 files spread over the tree, others each call."""

    def __init__(self, repo, n):
        self.repo, self.paths, self.k = repo, files_of(n), 0

    def edit(self, count=10):
        step = max(1, len(self.paths) // count)
        changed = []
        for j in range(count):
            p = self.paths[(j * step + self.k * 7919) % len(self.paths)]
            with open(os.path.join(self.repo, p), "a") as f:
                f.write(f"// edit {self.k}\n")
            changed.append(p)
        self.k += 1
        return changed


def timed(fn, before=None, after=None, runs=RUNS):
    out = []
    for _ in range(runs):
        if before:
            before()
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
        if after:
            after()
    return statistics.median(out)


def shadow_checkpoint(repo, shadow):
    env = dict(ENV, GIT_DIR=shadow, GIT_WORK_TREE=repo)
    sh(["git", "add", "-A"], repo, env)
    tree = sh(["git", "write-tree"], repo, env).stdout.decode().strip()
    parent = sh(["git", "rev-parse", "-q", "--verify", "refs/heads/cp"], repo, env, check=False)
    args = ["git", "commit-tree", tree, "-m", "checkpoint"]
    if parent.returncode == 0:
        args += ["-p", parent.stdout.decode().strip()]
    commit = sh(args, repo, env).stdout.decode().strip()
    sh(["git", "update-ref", "refs/heads/cp", commit], repo, env)


def du(path):
    total = 0
    for dirpath, _, names in os.walk(path):
        for name in names:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_size
            except OSError:
                pass
    return total


def bench_times(binary, repo, n):
    ed = Editor(repo, n)
    cp = [binary, "checkpoint", "--agent", "bench", "--session", "s", "--event", "after-tool", "--tool", "Edit"]
    shadow = os.path.join(os.path.dirname(repo), f"shadow{n}")
    sh(["git", "init", "-q", "--bare", shadow], repo)
    first_shadow = timed(lambda: shadow_checkpoint(repo, shadow), runs=1)
    sh(cp, repo)  # the session's first checkpoint
    rows = {}
    rows["git status"] = timed(lambda: sh(["git", "status"], repo))
    rows["checkpoint, nothing changed"] = timed(lambda: sh(cp, repo))
    rows["shadow, nothing changed"] = timed(lambda: shadow_checkpoint(repo, shadow))
    rows["checkpoint, 10 changed"] = timed(lambda: sh(cp, repo), before=ed.edit)
    rows["shadow, 10 changed"] = timed(lambda: shadow_checkpoint(repo, shadow), before=ed.edit)
    rows["git stash push, 10 changed"] = timed(
        lambda: sh(["git", "stash", "push", "-q"], repo), before=ed.edit,
        after=lambda: sh(["git", "stash", "pop", "-q"], repo))
    rows["shadow, first checkpoint"] = first_shadow
    return rows


def bench_storage(binary, repo, n, k):
    """K checkpoints of 10 appended lines: .git growth after gc, ours and
    the shadow's, against the zlib size of the changed blobs."""
    ed = Editor(repo, n)
    sh(["git", "gc", "-q", "--prune=now"], repo)
    start = du(os.path.join(repo, ".git"))
    shadow = os.path.join(os.path.dirname(repo), f"shadow-store{n}")
    sh(["git", "init", "-q", "--bare", shadow], repo)
    shadow_checkpoint(repo, shadow)
    sh(["git", "gc", "-q", "--prune=now"], repo, dict(ENV, GIT_DIR=shadow))
    shadow_start = du(shadow)
    blobs = 0
    cp = [binary, "checkpoint", "--agent", "bench", "--session", "store", "--event", "after-tool", "--tool", "Edit"]
    for _ in range(k):
        for p in ed.edit():
            with open(os.path.join(repo, p), "rb") as f:
                data = f.read()
            blobs += len(zlib.compress(b"blob %d\0" % len(data) + data))
        sh(cp, repo)
        shadow_checkpoint(repo, shadow)
    sh(["git", "gc", "-q", "--prune=now"], repo)
    sh(["git", "gc", "-q", "--prune=now"], repo, dict(ENV, GIT_DIR=shadow))
    ours = du(os.path.join(repo, ".git")) - start
    theirs = du(shadow) - shadow_start
    return ours, theirs, blobs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("sizes", nargs="*", type=int, default=[10_000, 100_000])
    ap.add_argument("--storage", type=int, default=0, help="checkpoints for the storage run")
    ap.add_argument("--dir", default=None)
    a = ap.parse_args()
    root = tempfile.mkdtemp(prefix="bench-cp-", dir=a.dir)
    try:
        for n in a.sizes:
            repo = make_repo(root, n)
            rows = bench_times(os.path.abspath(a.binary), repo, n)
            print(f"\n{n:,} files ({root})")
            status = rows["git status"]
            stash = rows["git stash push, 10 changed"]
            for name, t in rows.items():
                print(f"  {name:32s} {t * 1000:9.1f} ms   {t / status:5.2f}x status   {t / stash:5.2f}x stash")
            if a.storage:
                ours, theirs, blobs = bench_storage(os.path.abspath(a.binary), repo, n, a.storage)
                print(f"  storage, {a.storage} checkpoints: .git +{ours / 1024:.0f} KiB ({ours / blobs:.2f}x the "
                      f"{blobs / 1024:.0f} KiB of changed blobs, zlib); shadow +{theirs / 1024:.0f} KiB ({theirs / blobs:.2f}x)")
            shutil.rmtree(repo, ignore_errors=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
