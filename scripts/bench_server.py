"""Push to the landing queue against a plain push, same transport, same
run (issue 28 item 8).

A bare repository of N files (default 1,000) with git-evolv's server hooks
(`hooks install --server`, no validation configured), and a twin without
them, both served by one server on 127.0.0.1: `git daemon
--enable=receive-pack`, then nginx + fcgiwrap + git http-backend. Each run
commits a one-file change on top of the queue's main, then pushes that
same commit twice, in alternating order:

- plain: `git push <twin> HEAD:refs/heads/main`, a fast-forward of a branch;
- queue: `git push <queue> HEAD:refs/for/main`, which returns once the
  server's proc-receive hook has landed it (push to landed).

Between runs (untimed) the client fetches the landed main and the twin
gets the landed commit, so both servers start each run alike. Medians of
RUNS (default 15) runs; the ratio is queue / plain.

    python3 scripts/bench_server.py path/to/git-evolv [N]
"""
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

RUNS = int(os.environ.get("BENCH_RUNS", "15"))


def git(cwd, *args, env=None):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=env).stdout


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port):
    deadline = time.time() + 15
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.02)
    sys.exit(f"nothing listens on {port}")


def start_daemon(root, port):
    return [subprocess.Popen(
        ["git", "daemon", "--reuseaddr", "--listen=127.0.0.1", f"--port={port}", f"--base-path={root}/repos",
         "--export-all", "--enable=receive-pack", f"{root}/repos"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]


def start_http(root, port):
    sock = f"{root}/fcgi.sock"
    fcgi = subprocess.Popen(["/usr/sbin/fcgiwrap", "-c", "8", "-s", f"unix:{sock}"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.makedirs(f"{root}/nginx-tmp", exist_ok=True)
    user = "user root;\n" if os.getuid() == 0 else ""
    params = {
        "SCRIPT_FILENAME": "/usr/lib/git-core/git-http-backend", "GIT_PROJECT_ROOT": f"{root}/repos",
        "GIT_HTTP_EXPORT_ALL": '""', "REMOTE_USER": "bench", "PATH_INFO": "$uri", "QUERY_STRING": "$query_string",
        "REQUEST_METHOD": "$request_method", "CONTENT_TYPE": "$content_type", "CONTENT_LENGTH": "$content_length",
        "REMOTE_ADDR": "$remote_addr", "GIT_PROTOCOL": "$http_git_protocol", "PATH": os.environ["PATH"],
        "HOME": root,
    }
    lines = "".join(f"      fastcgi_param {k} {v};\n" for k, v in params.items())
    conf = (f"{user}daemon off;\nmaster_process off;\npid {root}/nginx.pid;\nerror_log {root}/nginx.err;\n"
            "events { worker_connections 64; }\nhttp {\n  access_log off;\n  client_max_body_size 0;\n"
            + "".join(f"  {k}_temp_path {root}/nginx-tmp/{k};\n" for k in ["client_body", "fastcgi", "proxy", "uwsgi", "scgi"])
            + f"  server {{\n    listen 127.0.0.1:{port};\n    location / {{\n      fastcgi_pass unix:{sock};\n"
            "      fastcgi_buffering off;\n      fastcgi_request_buffering off;\n" + lines + "    }\n  }\n}\n")
    with open(f"{root}/nginx.conf", "w") as f:
        f.write(conf)
    nginx = subprocess.Popen(["/usr/sbin/nginx", "-p", root, "-c", f"{root}/nginx.conf"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return [fcgi, nginx]


def make_repos(root, evolv, n):
    """The seed (N files, fast-import), the queue and its twin."""
    seed = f"{root}/seed"
    git(root, "init", "-q", "-b", "main", seed)
    lines = ["commit refs/heads/main", "committer B <b@e.x> 1700000000 +0000", "data 4", "init"]
    for i in range(n):
        content = f"file {i}\n"
        lines += [f"M 100644 inline d{i // 100:03}/f{i}.txt", f"data {len(content)}", content]
    subprocess.run(["git", "fast-import", "--quiet"], cwd=seed, input="\n".join(lines) + "\n", text=True, check=True)
    os.makedirs(f"{root}/repos")
    for name in ["queue.git", "plain.git"]:
        git(f"{root}/repos", "clone", "-q", "--bare", seed, name)
        git(f"{root}/repos/{name}", "config", "http.receivepack", "true")
    subprocess.run([evolv, "hooks", "install", "--server"], cwd=f"{root}/repos/queue.git", check=True,
                   stdout=subprocess.DEVNULL)


def timed(cwd, *args):
    start = time.perf_counter()
    p = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if p.returncode != 0:
        sys.exit(f"git {' '.join(args)}: {p.stderr}")
    return elapsed


def bench(root, url):
    client = f"{root}/client-{time.time_ns()}"
    git(root, "clone", "-q", f"{url}/queue.git", client)
    git(client, "config", "user.name", "B")
    git(client, "config", "user.email", "b@e.x")
    git(client, "remote", "add", "plain", f"{url}/plain.git")
    plain, queue = [], []
    for k in range(RUNS):
        with open(f"{client}/d000/f{k % 100}.txt", "a") as f:
            f.write(f"change {k}\n")
        git(client, "commit", "-qam", f"feat: change {k}")
        order = [("plain", "HEAD:refs/heads/main", plain), ("origin", "HEAD:refs/for/main", queue)]
        for remote, spec, times in (order if k % 2 == 0 else order[::-1]):
            times.append(timed(client, "push", "-q", remote, spec))
        git(client, "fetch", "-q", "origin")
        git(client, "reset", "-q", "--hard", "origin/main")
        git(client, "push", "-q", "-f", "plain", "HEAD:refs/heads/main")
    return statistics.median(plain), statistics.median(queue)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    evolv = os.path.abspath(sys.argv[1])
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    fs = subprocess.run(["stat", "-f", "-c", "%T", tempfile.gettempdir()], capture_output=True, text=True).stdout.strip()
    print(f"# {n} files, {RUNS} runs, medians; server repositories on {fs} ({tempfile.gettempdir()})")
    print("| transport | plain `git push` to a branch | push to `refs/for/main`, landed | ratio |")
    print("|---|---:|---:|---:|")
    for name, start in [("git daemon", start_daemon), ("HTTP (nginx + git http-backend)", start_http)]:
        root = tempfile.mkdtemp(prefix="bench-server-")
        procs = []
        try:
            make_repos(root, evolv, n)
            port = free_port()
            procs = start(root, port)
            wait_port(port)
            scheme = "git" if start is start_daemon else "http"
            plain, queue = bench(root, f"{scheme}://127.0.0.1:{port}")
            print(f"| {name} | {plain * 1000:.1f} ms | {queue * 1000:.1f} ms | {queue / plain:.2f}× |")
        finally:
            for p in procs:
                p.terminate()
                p.wait()
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
