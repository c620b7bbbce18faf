"""Proposals from anywhere (issue 30 item 5), each against git doing the
same in the same run, alternating, medians:

- `propose --from-worktree -- <10 paths>` in a 100,000-file repository
  against `git stash push -- <the same paths>`;
- `propose --patch` of a 3,000-file diff against `git apply --cached` of
  it into a temporary index (a copy of the repository's, made untimed),
  and against the same work from HEAD alone (`git read-tree HEAD` into a
  temporary index, then `git apply --cached`, both timed), which leaves
  the user's index alone as propose does.

    python3 scripts/bench_anywhere.py path/to/git-evolv [FILES]
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from bench_common import Repo  # noqa: E402

RUNS = int(os.environ.get("BENCH_RUNS", "7"))
HERE = os.path.dirname(os.path.abspath(__file__))


def make(path, files, every):
    subprocess.run(["git", "init", "-q", "-b", "main", path], check=True)
    gen = subprocess.Popen([sys.executable, os.path.join(HERE, "gen_repo.py"), str(files), str(every)],
                           stdout=subprocess.PIPE)
    subprocess.run(["git", "-C", path, "fast-import", "--quiet"], stdin=gen.stdout, check=True)
    gen.wait()
    subprocess.run(["git", "-C", path, "checkout", "-q", "-f", "main"], check=True)
    for key, value in [("user.name", "B"), ("user.email", "b@e.x"), ("gc.auto", "0")]:
        subprocess.run(["git", "-C", path, "config", key, value], check=True)
    subprocess.run(["git", "-C", path, "status", "-s"], check=True, capture_output=True)
    return Repo(path)


def median(xs):
    return statistics.median(xs)


def from_worktree(evolv, repo):
    paths = repo.git("ls-files").split()[::10_000][:10]

    def touch():
        for p in paths:
            with open(os.path.join(repo.path, p), "a") as f:
                f.write("// edited\n")

    ours, gits = [], []
    for _ in range(RUNS):
        touch()
        ours.append(repo.run([evolv, "propose", "--from-worktree", "--", *paths])[0])
        for r in repo.git("for-each-ref", "--format=%(refname)", "refs/evolv/proposals").split():
            repo.git("update-ref", "-d", r)
        touch()
        gits.append(repo.run(["git", "stash", "push", "-q", "--", *paths])[0])
        repo.git("stash", "drop", "-q")
    return median(ours), median(gits)


def patch(evolv, repo, files):
    changed = repo.git("ls-files").split()[:files]
    for p in changed:
        full = os.path.join(repo.path, p)
        with open(full) as f:
            text = f.read()
        with open(full, "w") as f:
            f.write(text.replace("getUserData", "fetchUserData"))
    repo.git("commit", "-qam", "rename")
    diff = os.path.join(repo.path, "..", "change.diff")
    with open(diff, "wb") as f:
        f.write(subprocess.run(["git", "-C", repo.path, "diff", "--binary", "HEAD~1", "HEAD"],
                               check=True, capture_output=True).stdout)
    repo.git("reset", "-q", "--hard", "HEAD~1")
    index = os.path.join(repo.path, ".git", "index")
    temp = os.path.join(repo.path, "..", "temp.index")
    ours, gits, fresh = [], [], []
    for _ in range(RUNS):
        ours.append(repo.run([evolv, "propose", "--patch", diff])[0])
        for r in repo.git("for-each-ref", "--format=%(refname)", "refs/evolv/proposals").split():
            repo.git("update-ref", "-d", r)
        shutil.copy(index, temp)
        gits.append(repo.run(["sh", "-c", f"GIT_INDEX_FILE={temp} git apply --cached {diff}"])[0])
        # The same work from HEAD alone, leaving the user's index alone as
        # propose does (issue 38 item 24): a temporary index read from
        # HEAD's tree, then the patch applied to it.
        os.remove(temp)
        fresh.append(repo.run(["sh", "-c", f"GIT_INDEX_FILE={temp} git read-tree HEAD && "
                                           f"GIT_INDEX_FILE={temp} git apply --cached {diff}"])[0])
    return median(ours), median(gits), median(fresh)


def main():
    evolv = os.path.abspath(sys.argv[1])
    files = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    with tempfile.TemporaryDirectory() as d:
        big = make(os.path.join(d, "big"), files, 1000)
        ours, git = from_worktree(evolv, big)
        print(f"| propose --from-worktree, 10 of {files:,} files | {ours*1000:.0f} ms | "
              f"git stash push {git*1000:.0f} ms | {ours/git:.2f}× |")
        shutil.rmtree(big.path)
        mid = make(os.path.join(d, "mid"), 30_000, 1)
        ours, git, fresh = patch(evolv, mid, 3000)
        print(f"| propose --patch, 3,000 of 30,000 files | {ours*1000:.0f} ms | "
              f"git apply --cached {git*1000:.0f} ms | {ours/git:.2f}× |")
        print(f"| propose --patch, 3,000 of 30,000 files | {ours*1000:.0f} ms | "
              f"git read-tree HEAD + git apply --cached {fresh*1000:.0f} ms | {ours/fresh:.2f}× |")


if __name__ == "__main__":
    main()
