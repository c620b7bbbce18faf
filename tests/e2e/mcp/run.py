"""End-to-end test of `git evolv mcp` with the official MCP Python SDK.

Creates a scratch repository, starts `git-evolv mcp` over stdio through the
SDK's own client (which validates every structuredContent against the tool's
outputSchema), runs propose -> show -> apply -> apply of an unknown id ->
edit list -> rollback -> background apply + task_output (non-block, block)
-> unknown tool, then checks the repository with git.

Usage: python run.py PATH/TO/git-evolv
"""

import asyncio
import json
import os
import subprocess
import sys
import tempfile

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
try:  # the exception's name changed between SDK major versions
    from mcp.shared.exceptions import MCPError as McpError
except ImportError:  # pragma: no cover
    from mcp.shared.exceptions import McpError

BIN = os.path.abspath(sys.argv[1])


def git(repo, *args):
    return subprocess.run(
        ["git", *args], cwd=repo, check=True, capture_output=True, text=True
    ).stdout


def check(cond, what):
    if not cond:
        raise AssertionError(what)
    print(f"ok - {what}")


def structured(result):
    text = json.loads(result.content[0].text)
    if result.is_error:
        # An error result is JSON text only: a structuredContent would be
        # checked against the success's outputSchema (issue 25).
        check(result.structured_content is None, "an error result has no structuredContent")
        return text
    check(text == result.structured_content, "text copy equals structuredContent")
    return result.structured_content


async def scenario(repo, env):
    params = StdioServerParameters(command=BIN, args=["mcp", "--repo", repo], env=env, cwd=repo)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            name = getattr(init, "server_info", None) or getattr(init, "serverInfo", None)
            check(name.name == "git-evolv", f"server names itself git-evolv ({name.name} {name.version})")
            tools = {t.name for t in (await session.list_tools()).tools}
            check({"propose_edit", "apply_edit", "edit", "rollback", "task_output"} <= tools, "tools listed")
            head0 = git(repo, "rev-parse", "HEAD").strip()

            seen = []

            async def on_progress(progress, total, message):
                seen.append((progress, total, message))

            r = await session.call_tool("propose_edit", {"pattern": "getUserData", "replacement": "fetchUserData", "scope": ["backend/**"]},
                                        progress_callback=on_progress)
            p = structured(r)
            check(not r.is_error and p["success"], "propose_edit succeeded")
            check(seen and seen[-1][:2] == (2, 2) and seen[-1][2] == "Scanning files: 2/2 (2 matched)",
                  f"progress with real counts reached the client's callback ({seen})")
            pid = p["patch_id"]
            check(p["affected_files"] == ["backend/auth.go", "backend/user.go"], "affected files")
            check(git(repo, "rev-parse", "HEAD").strip() == head0, "propose did not move HEAD")

            r = await session.call_tool("show_proposal", {"patch_id": pid})
            check("+func fetchUserData()" in structured(r)["unified_diff"], "show_proposal returns the diff")

            r = await session.call_tool("apply_edit", {"patch_id": pid})
            a = structured(r)
            check(not r.is_error and a["patch_id"] == pid, "apply_edit landed (one id: the CLI's apply --json shape)")
            landed = a["commit"]
            check(git(repo, "rev-parse", "HEAD").strip() == landed, "HEAD is the landed commit")

            r = await session.call_tool("apply_edit", {"patch_id": "invalid_patch"})
            e = structured(r)
            check(r.is_error and e["error"]["code"] == "patch_not_found", "unknown id is patch_not_found")
            check(e["error"]["message"] == "Patch 'invalid_patch' not found", "message as the CLI's")

            r = await session.call_tool("edit", {"message": "docs", "edits": [
                {"op": "replace", "path": "frontend/api.ts", "old": "getUserData()", "new": "fetchUserData()"},
                {"op": "write", "path": "NOTES.md", "content": "renamed\n"},
            ]})
            ed = structured(r)
            check(not r.is_error and ed["statistics"]["edits_applied"] == 2, "edit list proposed")
            eid = ed["patch_id"]

            r = await session.call_tool("rollback", {"patch_id": pid})
            rb = structured(r)
            check(not r.is_error and rb["reverted"] == landed, "rollback reverted the landed commit")
            check("getUserData" in open(os.path.join(repo, "backend/user.go")).read(), "file restored")

            r = await session.call_tool("apply_edit", {"patch_id": eid, "run_in_background": True})
            bg = structured(r)
            check(bg["status"] == "running" and bg["task_id"], "background apply returns a task id")
            r = await session.call_tool("task_output", {"task_id": bg["task_id"], "block": False})
            check(structured(r)["status"] in ("running", "succeeded"), "task_output non-blocking answers at once")
            r = await session.call_tool("task_output", {"task_id": bg["task_id"], "block": True, "timeout_seconds": 120})
            t = structured(r)
            check(t["status"] == "succeeded", f"task_output blocking waits for the end ({t['status']})")

            try:
                r = await session.call_tool("no_such_tool", {})
                check(False, f"unknown tool must be a JSON-RPC error, got {r}")
            except McpError as err:
                code = getattr(err, "code", None)
                if code is None:
                    code = getattr(getattr(err, "error", None), "code", None)
                check(code == -32602, f"unknown tool is a -32602 error ({err})")

            r = await session.call_tool("list_proposals", {})
            check(len(structured(r)["proposals"]) == 2, "the server survived every bad call")
            return landed, t["result"]["results"][0]["commit"]


def main():
    with tempfile.TemporaryDirectory() as repo, tempfile.TemporaryDirectory() as home:
        env = {"HOME": home, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.path.join(home, ".gitconfig"),
               "PATH": os.environ["PATH"], "LC_ALL": "C", "TZ": "UTC"}
        os.environ.update(env)
        git(repo, "init", "-q", "-b", "main")
        git(repo, "config", "user.name", "E2E")
        git(repo, "config", "user.email", "e2e@example.com")
        files = {
            "backend/user.go": 'package main\nfunc getUserData() string { return "user" }\n',
            "backend/auth.go": "package main\nfunc auth() { user := getUserData(); _ = user }\n",
            "frontend/api.ts": "const data = getUserData()\n",
        }
        for path, text in files.items():
            os.makedirs(os.path.join(repo, os.path.dirname(path)), exist_ok=True)
            with open(os.path.join(repo, path), "w") as f:
                f.write(text)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "initial")
        landed, edit_commit = asyncio.run(scenario(repo, env))
        # The repository, checked with git.
        log = git(repo, "log", "--format=%H %s").splitlines()
        check(len(log) == 4, f"four commits: initial, apply, revert, edit ({len(log)})")
        check(log[0].split()[0] == edit_commit, "HEAD is the background apply's commit")
        check(git(repo, "rev-parse", "HEAD~2").strip() == landed, "the landed commit is in history")
        check(git(repo, "status", "--porcelain") == "", "git status is clean")
        check(open(os.path.join(repo, "NOTES.md")).read() == "renamed\n", "the edit list landed")
        wt = git(repo, "worktree", "list", "--porcelain")
        check("locked" not in wt, "no validation worktree left locked")
        subprocess.run(["git", "fsck", "--strict", "--no-progress"], cwd=repo, check=True)
        check(True, "git fsck is clean")
        refs = git(repo, "for-each-ref", "--format=%(refname)", "refs/evolv/").split()
        check(any(r.startswith("refs/evolv/applied/") for r in refs), "applied markers recorded")
    print("e2e mcp: all checks passed")


if __name__ == "__main__":
    main()
