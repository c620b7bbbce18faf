#!/usr/bin/env python3
"""Writes a git fast-import stream for a repository of N small files.

Every EVERY-th file (default 1000) calls getUserData, so a rename touches
N/EVERY files; scripts/bench_scale.sh uses EVERY=1 and narrows the scope.
Usage: gen_repo.py N [EVERY] | git fast-import
"""
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
every = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
out = sys.stdout.buffer
blobs = []
for i in range(n):
    body = f"// module {i}\npackage m{i // 1000}\n\nfunc f{i}() int {{ return {i} }}\n"
    if i % every == 0:
        body += "func use() string { return getUserData() }\n"
    data = body.encode()
    out.write(b"blob\nmark :%d\ndata %d\n%s\n" % (i + 1, len(data), data))
out.write(b"commit refs/heads/main\n")
out.write(b"committer Bench <bench@example.com> 1700000000 +0000\n")
msg = b"generated"
out.write(b"data %d\n%s\n" % (len(msg), msg))
for i in range(n):
    out.write(b"M 100644 :%d src/d%03d/e%02d/f%06d.go\n" % (i + 1, i // 1000, (i // 100) % 10, i))
out.write(b"\n")
