#!/usr/bin/env python3
"""Builds the commit-message corpus for the lint agreement test.

Writes a JSON list of {"id", "origin", "message"} to the path given (or
stdout). Messages come from two places:

* real histories on this machine (`--repo DIR`, repeatable): every commit
  message, as git stored it;
* a generated set that mirrors what real projects write: Conventional
  Commits in every shape (scopes, `!`, bodies, trailers, BREAKING CHANGE),
  the usual ways of getting them wrong (capitals, full stops, `fix:x`,
  unknown types, long lines), and the other styles found in the wild
  (kernel/Go `subsystem: change`, ticket prefixes, gitmoji, GitHub web-UI
  defaults, dependabot/renovate, merges, reverts, fixup!, release
  versions). The generator is seeded, so the corpus is reproducible.

Every message is stored as git would store it (`git stripspace`).

Then `scripts/commitlint_verdicts.mjs` adds commitlint's verdict to each
message and writes fixtures/commits/corpus.json.
"""

import json
import os
import random
import subprocess
import sys

RNG = random.Random(4)

TYPES = ["build", "chore", "ci", "docs", "feat", "fix", "perf", "refactor", "revert", "style", "test"]
BAD_TYPES = ["feature", "update", "wip", "release", "deps", "security", "config", "i18n", "e2e",
             "bugfix", "hotfix", "improvement", "cleanup", "Feat", "FIX", "Docs", "tests", "types"]
SCOPES = ["api", "cli", "core", "parser", "deps", "ui", "auth", "docs", "ci", "db", "lint",
          "router", "http", "config", "build", "release", "deps-dev", "i18n", "*", "web,api"]
SUBJECTS = [
    "add user authentication", "handle empty input in tokenizer", "bump serde to 1.0.197",
    "remove deprecated flag --legacy", "support windows paths", "update contributing guide",
    "avoid panic on unicode boundaries", "cache compiled regexes", "rename Config::load to Config::read",
    "drop node 16 from the matrix", "use rustls instead of openssl", "fix typo in README",
    "make retries configurable", "speed up diff for large files", "migrate to clap 4",
    "add missing license header", "correct off-by-one in pagination", "format with prettier 3",
    "lazy-load the settings page", "pin actions to commit SHAs", "split parser into modules",
    "allow trailing commas in config", "expose metrics endpoint", "reduce allocations in hot loop",
    "restore behaviour of --quiet", "guard against null user", "add tests for edge cases",
    "document the release process", "replace moment with date-fns", "upgrade eslint to v9",
    "show progress bar while downloading", "return 404 for unknown routes", "handle SIGTERM gracefully",
    "reword error messages", "prefer const over let", "add dark mode", "validate email addresses",
    "remove dead code", "implement retry with backoff", "add `--json` output", "handle \"quoted\" names",
    "2x faster startup", "404 page for missing docs", "i18n for the settings page", "éviter les doublons",
    "支持中文路径", "use `Path::join` instead of format!", "mark API as stable", "v2 of the plugin API",
]
CAP_SUBJECTS = ["Add user authentication", "Update dependencies", "Fix crash on startup",
                "README: fix links", "WIP", "URL parsing for ipv6", "Remove old code", "Éviter les doublons",
                "Improve Performance Of Search", "ADD TESTS", "Merge config files", "Refactor the parser"]
BODIES = [
    "The previous implementation allocated a new buffer for every line. Reuse one buffer instead.",
    "Without this, running the tool on an empty repository panicked because HEAD is unborn.",
    "This mirrors what git does: the last value wins when a key is set more than once.",
    "Closes #123",
    "Fixes #42\nRefs #40",
    "- add the flag\n- document it\n- test it",
    "See https://github.com/conventional-commits/conventionalcommits.org/issues/123456789/comments/very/long/url/that/goes/on/and/on",
    "Co-authored-by: Jane Doe <jane@example.com>",
    "Signed-off-by: John Smith <john@example.com>",
    "Reviewed-by: Z\nRefs: #7",
    "BREAKING CHANGE: the `--legacy` flag is gone; use `--compat` instead.",
    "BREAKING-CHANGE: config files must now be TOML.",
    "This is a longer explanation that is deliberately written on a single line so that it exceeds the one hundred character limit.",
    "Short line.\n\nAnother paragraph explaining the reasoning behind the change in some more detail.",
    "* wip\n* more wip\n* fix tests",
]


def long_line(n):
    words = "the quick brown fox jumps over the lazy dog and keeps running far away".split()
    out = []
    while len(" ".join(out)) < n:
        out.append(RNG.choice(words))
    return " ".join(out)[:n]


def generated():
    msgs = []

    def add(origin, m):
        msgs.append((origin, m))

    # Valid conventional commits in many shapes.
    for _ in range(90):
        t, s = RNG.choice(TYPES), RNG.choice(SUBJECTS)
        scope = f"({RNG.choice(SCOPES)})" if RNG.random() < 0.5 else ""
        bang = "!" if RNG.random() < 0.08 else ""
        m = f"{t}{scope}{bang}: {s}"
        if RNG.random() < 0.45:
            m += "\n\n" + RNG.choice(BODIES)
        if RNG.random() < 0.15:
            m += "\n\n" + RNG.choice(BODIES)
        add("generated:conventional", m)
    # Wrong types, wrong case, capitals, full stops.
    for _ in range(45):
        t = RNG.choice(BAD_TYPES)
        scope = f"({RNG.choice(SCOPES)})" if RNG.random() < 0.3 else ""
        add("generated:bad-type", f"{t}{scope}: {RNG.choice(SUBJECTS)}")
    for _ in range(35):
        t = RNG.choice(TYPES)
        add("generated:subject-case", f"{t}: {RNG.choice(CAP_SUBJECTS)}")
    for _ in range(20):
        t = RNG.choice(TYPES)
        end = RNG.choice([".", ".", "...", "!", "?", ". "])
        add("generated:full-stop", f"{t}: {RNG.choice(SUBJECTS)}{end}".rstrip())
    # Punctuation mistakes.
    for _ in range(30):
        t, s = RNG.choice(TYPES), RNG.choice(SUBJECTS)
        form = RNG.choice(["{t}:{s}", "{t} : {s}", "{t} {s}", "{t}({sc}) {s}", "{t} ({sc}): {s}",
                           "[{t}] {s}", "{t} - {s}", "{t}({sc}):{s}", "{t}!:{s}", "{t}: ", "{t}:",
                           "({sc}): {s}", ": {s}", "{t}({sc}!): {s}", "{t}(): {s}"])
        add("generated:punctuation", form.format(t=t, s=s, sc=RNG.choice(SCOPES)))
    # Lengths at and around the limits.
    for n in [98, 99, 100, 101, 102, 120]:
        t = RNG.choice(TYPES)
        prefix = f"{t}: "
        add("generated:header-length", prefix + long_line(n - len(prefix)))
    for n in [99, 100, 101, 140]:
        add("generated:body-length", f"docs: explain limits\n\n{long_line(n)}")
        add("generated:footer-length", f"fix: handle limits\n\nBody.\n\nRefs: {long_line(n - 6)}")
    add("generated:body-length", "feat: emoji 😀\n\n" + "😀" * 50)
    add("generated:body-length", "feat: emoji 😀\n\n" + "😀" * 51)
    add("generated:body-length", "feat: accents\n\n" + "é" * 101)
    add("generated:header-length", "feat: " + "😀" * 47)
    add("generated:header-length", "feat: " + "😀" * 48)
    add("generated:body-length", "docs: link\n\nSee https://example.com/" + "a" * 120)
    # Body without a blank line, footers without a blank line.
    for _ in range(12):
        t, s = RNG.choice(TYPES), RNG.choice(SUBJECTS)
        add("generated:no-blank", f"{t}: {s}\n{RNG.choice(BODIES)}")
    add("generated:no-blank", "fix: x\nSigned-off-by: A <a@example.com>")
    add("generated:no-blank", "feat: y\n\nbody text\nCloses #12")
    # Leading whitespace (git keeps it).
    add("generated:trim", "  feat: indented header")
    add("generated:trim", "\tfix: tab in front")
    return msgs


WILD = [
    # Plain imperative / GitHub web UI.
    "Update README.md", "Initial commit", "Create LICENSE", "Add files via upload", "Update main.yml",
    "Delete .DS_Store", "Fix typo", "fix typo", "typo", "wip", "WIP", ".", "minor changes", "cleanup",
    "Add tests for the parser", "Refactor database layer", "Bump version", "more fixes", "oops",
    "Update dependencies", "Fix build", "Fixed the bug where the login button did nothing",
    "Added support for dark mode.", "Improve error handling\n\nWrap io errors with the path.",
    "Release 2.1.0", "release: 2.1.0", "Version 1.0", "Prepare for 0.3.0 release",
    # Kernel / Go / subsystem style.
    "mm/slab: fix kmalloc alignment on 32-bit", "net/http: reject invalid header names",
    "cmd/go: add -json flag to go list", "runtime: reduce GC pause on large heaps",
    "drm/i915: Fix oops on resume", "tools/perf: update man page", "docs: update FAQ",
    "sched/fair: Remove redundant check", "x86/boot: Add missing header",
    "Documentation: fix typo in kernel-parameters", "arm64: dts: add missing clock",
    # Ticket prefixes.
    "PROJ-123: Add login endpoint", "[PROJ-12] fix null pointer", "JIRA-9 update copy",
    "#123 fix crash on startup", "Fix #42: handle empty config", "GH-77: bump deps",
    "feat: PROJ-456 add SSO", "fix(PROJ-1): handle timeout",
    # Gitmoji.
    "✨ Add feature flags", ":sparkles: add feature flags", "🐛 fix crash", ":bug: Fix crash",
    "🎨 format code", "feat: ✨ add confetti", "✨ feat: add confetti", "🔖 v1.2.0",
    # Bots.
    "Bump lodash from 4.17.15 to 4.17.21",
    "Bump lodash from 4.17.15 to 4.17.21\n\nBumps [lodash](https://github.com/lodash/lodash) from 4.17.15 to 4.17.21.\n- [Release notes](https://github.com/lodash/lodash/releases)\n- [Commits](https://github.com/lodash/lodash/compare/4.17.15...4.17.21)\n\n---\nupdated-dependencies:\n- dependency-name: lodash\n  dependency-type: direct:production\n...\n\nSigned-off-by: dependabot[bot] <support@github.com>",
    "build(deps): bump serde from 1.0.196 to 1.0.197",
    "build(deps-dev): bump eslint from 8.56.0 to 8.57.0\n\nBumps [eslint](https://github.com/eslint/eslint) from 8.56.0 to 8.57.0.\n- [Release notes](https://github.com/eslint/eslint/releases)\n- [Changelog](https://github.com/eslint/eslint/blob/main/CHANGELOG.md)\n- [Commits](https://github.com/eslint/eslint/compare/v8.56.0...v8.57.0)\n\n---\nupdated-dependencies:\n- dependency-name: eslint\n  dependency-type: direct:development\n  update-type: version-update:semver-minor\n...\n\nSigned-off-by: dependabot[bot] <support@github.com>",
    "chore(deps): update dependency typescript to v5.4.2",
    "fix(deps): update rust crate tokio to 1.36.0",
    "chore(deps): update actions/checkout action to v4",
    "Update dependency @types/node to v20.11.25",
    "chore(deps): lock file maintenance",
    "[pre-commit.ci] pre-commit autoupdate",
    "[pre-commit.ci] auto fixes from pre-commit.com hooks\n\nfor more information, see https://pre-commit.ci",
    "[create-pull-request] automated change", "[bot] update generated docs",
    "chore: update generated files [skip ci]",
    # Merges and friends.
    "Merge pull request #123 from user/feature-branch\n\nfeat: add thing",
    "Merge branch 'main' into feature/login", "Merge branch 'develop'",
    "Merge branch 'main' of github.com:org/repo", "Merge remote-tracking branch 'origin/main'",
    "Merge tag 'v6.8-rc1' of git://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux",
    "Merged in feature/SSO (pull request #42)", "Merged PR 1234: Add telemetry",
    "Automatic merge of release/1.2 into main", "Auto-merged release into main",
    "Merge", "merge main", "Merging develop into main", "Merge develop into main",
    # Reverts, autosquash.
    "Revert \"feat: add dark mode\"\n\nThis reverts commit 1234567890abcdef1234567890abcdef12345678.",
    "revert: feat: add dark mode\n\nThis reverts commit 1234567.", "Reapply \"feat: add dark mode\"",
    "Revert 'fix: something'", "revert bad change", "fixup! feat: add dark mode",
    "squash! fix(api): handle null", "amend! docs: update readme", "fixup!", "Fixup! typo",
    # Versions.
    "v1.2.3", "1.2.3", "v2.0.0-beta.1", "0.1.0", "chore(release): 1.4.0", "chore(release): v1.4.0 [skip ci]",
    "chore: release 1.4.0", "v1.2", "Release v1.2.3", "1.2.3-SNAPSHOT", "v01.2.3",
    "chore(release): 2.0.0\n\n## Features\n\n* thing",
    # Conventional-looking but subtly off.
    "feat(api)!: remove v1 endpoints\n\nBREAKING CHANGE: v1 is gone",
    "fix!: stop accepting tabs", "feat(parser, lexer): share tokens", "feat(ui/settings): add toggle",
    "feat(UI): add toggle", "fix(deps)!: require node 20", "chore(): empty scope", "feat(a)(b): x",
    "feat(scope: missing paren", "feat scope): odd", "Feat(api): add x", "FEAT: add x", "fix:Add x",
    "docs: Update README", "docs: update README.", "docs: update README...", "style: 'Quoted' start",
    "feat: \"Quoted\" start", "feat: `Code` start", "fix: 42 is the answer", "fix: iOS build",
    "fix: macOS build", "fix: Ünïcode start", "refactor!: drop python 2",
    "feat: add x\n\nBREAKING CHANGE:", "feat: add x\n\nbody\n\nBREAKING CHANGE: y\nmore text about y",
    "test: add e2e tests\n\n\n\nextra blank lines", "ci: run on push:\n\nmain only",
    "perf: ", "chore: bump deps\r\n\r\nwith CRLF", "fix: trailing spaces   ", "feat:  two spaces",
    "build: release v1.2.3", "feat:", "fix(ci): ", "chore(deps): bump x: y to z",
    "feat: support key: value pairs", "fix: handle http://example.com URLs",
    "docs: changelog for 1.2.3", "feat: add X. Also add Y", "refactor: use A.B", "fix: a.", "ci: ...",
]


def stored(message):
    """The message as git stores it (`git stripspace`: trailing whitespace
    and CR gone, blank runs collapsed), which is what a history holds."""
    out = subprocess.run(["git", "stripspace"], input=message, capture_output=True, text=True,
                         check=True).stdout
    return out.rstrip("\n")


def real(repo):
    out = subprocess.run(["git", "-C", repo, "log", "--format=%B%x00"], capture_output=True,
                         text=True, check=True).stdout
    return [m.strip("\n") for m in out.split("\x00") if m.strip()]


def main():
    args = sys.argv[1:]
    repos, dest = [], None
    while args:
        a = args.pop(0)
        if a == "--repo":
            repos.append(args.pop(0))
        else:
            dest = a
    msgs = []
    for repo in repos:
        name = os.path.basename(os.path.abspath(repo).rstrip("/"))
        msgs += [(f"git:{name}", m) for m in real(repo)]
    msgs += [("wild", m) for m in WILD]
    msgs += generated()
    seen, corpus = set(), []
    for origin, m in msgs:
        m = stored(m)
        if not m or m in seen:
            continue
        seen.add(m)
        corpus.append({"id": len(corpus) + 1, "origin": origin, "message": m})
    text = json.dumps(corpus, ensure_ascii=False, indent=1)
    if dest:
        with open(dest, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    else:
        print(text)
    print(f"{len(corpus)} messages", file=sys.stderr)


if __name__ == "__main__":
    main()
