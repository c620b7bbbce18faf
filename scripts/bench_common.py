"""What the Python benchmarks share: running git and a timed command in
one repository, counting instructions with callgrind, and putting the
repository back between runs (the branch reset, what a timed propose
stored dropped), so that every run starts alike."""
import os
import re
import subprocess
import sys
import tempfile
import time


class Repo:
    def __init__(self, path):
        self.path = path
        self.pack_dir = os.path.join(path, ".git", "objects", "pack")
        self.base = self.git("rev-parse", "HEAD").strip()

    def git(self, *args, check=True):
        return subprocess.run(["git", "-C", self.path, *args], check=check, capture_output=True, text=True).stdout

    def run(self, cmd, shell=False):
        """Wall seconds and peak RSS (KiB) of one command, output discarded."""
        start = time.perf_counter()
        p = subprocess.Popen(cmd, cwd=self.path, shell=shell, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(p.pid, 0)
        elapsed = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"failed: {cmd}: {p.stderr.read().decode(errors='replace')}")
        return elapsed, usage.ru_maxrss

    def instructions(self, cmd):
        """Instructions of `cmd` and every process it starts (callgrind)."""
        with tempfile.TemporaryDirectory() as d:
            subprocess.run(
                ["valgrind", "--tool=callgrind", "--trace-children=yes", f"--callgrind-out-file={d}/cg.%p", *cmd],
                cwd=self.path, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )
            total = 0
            for f in os.listdir(d):
                with open(os.path.join(d, f), errors="replace") as fh:
                    for line in fh:
                        m = re.match(r"(?:summary|totals):\s+(\d+)", line)
                        if m:
                            total += int(m.group(1))
                            break
            return total

    def packs(self):
        return set(os.listdir(self.pack_dir))

    def reset(self, pid=None):
        """The branch back at its first commit; `pid` no longer applied.
        The files the reset wrote are flushed before the next timed run, so
        that run does not also wait for their writeback (which swung the
        3,000-file apply and merge alike by a third between runs)."""
        self.git("reset", "-q", "--hard", self.base)
        if pid:
            self.git("update-ref", "-d", f"refs/evolv/applied/{pid}", check=False)
        os.sync()

    def undo_propose(self, keep_packs, keep_ids):
        """Drops what a timed propose stored (its pack, its ref)."""
        for f in self.packs() - keep_packs:
            os.remove(os.path.join(self.pack_dir, f))
        for r in self.git("for-each-ref", "--format=%(refname)", "refs/evolv/proposals").split():
            if r.rsplit("/", 1)[1] not in keep_ids:
                self.git("update-ref", "-d", r)
