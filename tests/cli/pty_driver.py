"""Runs a command in a real pseudo-terminal and answers its prompts.

usage: pty_driver.py ANSWERS COMMAND [ARG...]

ANSWERS is a comma-separated list; each is typed (with Enter) when the
next prompt ending in "]? " appears. Prints everything the command wrote,
and exits with its exit code.
"""
import os
import pty
import select
import sys
import time

answers = [a for a in sys.argv[1].split(",") if a]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])

out = b""


def read_some(deadline):
    global out
    ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.time()))
    if not ready:
        sys.stdout.write(out.decode("utf-8", "replace"))
        sys.exit("timed out waiting for a prompt")
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        return False
    out += chunk
    return bool(chunk)


for n, answer in enumerate(answers, start=1):
    deadline = time.time() + 60
    while out.count(b"]? ") < n:
        if not read_some(deadline):
            sys.stdout.write(out.decode("utf-8", "replace"))
            sys.exit("the command ended before prompt %d" % n)
    os.write(fd, answer.encode() + b"\n")

deadline = time.time() + 120
while read_some(deadline):
    pass
_, status = os.waitpid(pid, 0)
sys.stdout.write(out.decode("utf-8", "replace"))
sys.exit(os.waitstatus_to_exitcode(status))
