#!/usr/bin/env bash
# The steps of git-evolv's GitHub Action (action.yml at the top of the
# repository). Each step reads what GitHub gives a step (GITHUB_EVENT_PATH,
# GITHUB_BASE_REF, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, the inputs as
# INPUT_* variables) and nothing else, so scripts/test_action.sh runs them
# here against local repositories with a sample pull_request event.
#
#   run.sh install    download the release archive of INPUT_VERSION for this
#                     runner, check it against its .sha256 (and INPUT_SHA256
#                     when given), unpack it, put it on GITHUB_PATH
#   run.sh lint       lint the pull request's commits (base..head of the
#                     event, else origin/$GITHUB_BASE_REF..HEAD, or INPUT_RANGE)
#                     with one ::error annotation per finding
#   run.sh validate   fetch refs/evolv/proposals/*, dry-run apply each pending
#                     proposal (INPUT_PROPOSALS, default all) on the checked-out
#                     branch with INPUT_VALIDATE (default: git config
#                     evolv.validate), write each verdict to the job summary
#                     and to the outputs, and push the verdict refs the applies
#                     stored (refs/evolv/verdicts/*) to origin, where a
#                     developer's apply reuses them once fetched and trusted
#                     (INPUT_PUBLISH=false: keep them here)
set -euo pipefail

die() { echo "::error title=git-evolv action::$*" >&2; exit 2; }
out() { [ -n "${GITHUB_OUTPUT:-}" ] && printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"; true; }
summary() { [ -n "${GITHUB_STEP_SUMMARY:-}" ] && printf '%s\n' "$@" >>"$GITHUB_STEP_SUMMARY"; true; }
evolv() { "${EVOLV_BIN:-git-evolv}" "$@"; }

target() {
  local arch os
  case "$(uname -m)" in x86_64 | amd64) arch=x86_64 ;; arm64 | aarch64) arch=aarch64 ;;
    *) die "no release archive for the $(uname -m) architecture: build with 'cargo install --locked git-evolv'" ;; esac
  case "$(uname -s)" in Linux) os=unknown-linux-musl ;; Darwin) os=apple-darwin ;;
    *) die "no release archive for $(uname -s): git-evolv supports Linux and macOS" ;; esac
  echo "$arch-$os"
}

sha256() { if command -v sha256sum >/dev/null; then sha256sum "$1"; else shasum -a 256 "$1"; fi | cut -d' ' -f1; }

install() {
  local version="${INPUT_VERSION:-}"
  [ -n "$version" ] || die "the version input is required (a release, e.g. 0.1.0)"
  version="${version#v}"
  local repo="${INPUT_REPOSITORY:-${GITHUB_ACTION_REPOSITORY:-}}"
  [ -n "$repo" ] || die "no repository to download from: set the 'repository' input (owner/name)"
  local base="${EVOLV_RELEASE_URL:-https://github.com/$repo/releases/download}"
  local name="git-evolv-$version-$(target)"
  local dir="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/git-evolv-$version"
  mkdir -p "$dir"
  curl --fail --silent --show-error --location --retry 3 -o "$dir/$name.tar.gz" "$base/v$version/$name.tar.gz" \
    || die "could not download $base/v$version/$name.tar.gz: is there a release v$version?"
  curl --fail --silent --show-error --location --retry 3 -o "$dir/$name.tar.gz.sha256" "$base/v$version/$name.tar.gz.sha256" \
    || die "could not download $name.tar.gz.sha256 from the release v$version"
  local got want
  got="$(sha256 "$dir/$name.tar.gz")"
  want="$(cut -d' ' -f1 <"$dir/$name.tar.gz.sha256")"
  [ "$got" = "$want" ] || die "$name.tar.gz: sha256 $got does not match the release's $want; nothing was installed"
  if [ -n "${INPUT_SHA256:-}" ] && [ "$got" != "$INPUT_SHA256" ]; then
    die "$name.tar.gz: sha256 $got does not match the 'sha256' input $INPUT_SHA256; nothing was installed"
  fi
  tar -C "$dir" -xzf "$dir/$name.tar.gz"
  "$dir/$name/git-evolv" --version >/dev/null || die "$dir/$name/git-evolv does not run on this runner"
  [ -n "${GITHUB_PATH:-}" ] && echo "$dir/$name" >>"$GITHUB_PATH"
  out path "$dir/$name"
  out sha256 "$got"
  echo "installed git-evolv $version ($got) in $dir/$name"
}

# The commits of the pull request: the event's base and head, else
# origin/<base ref>..HEAD; the 'range' input wins.
range() {
  if [ -n "${INPUT_RANGE:-}" ]; then echo "$INPUT_RANGE"; return; fi
  if [ -n "${GITHUB_EVENT_PATH:-}" ] && [ -f "$GITHUB_EVENT_PATH" ]; then
    local r
    r="$(python3 - "$GITHUB_EVENT_PATH" <<'PY' 2>/dev/null || true
import json, sys
pr = json.load(open(sys.argv[1])).get("pull_request") or {}
if pr.get("base", {}).get("sha") and pr.get("head", {}).get("sha"):
    print(f'{pr["base"]["sha"]}..{pr["head"]["sha"]}')
PY
)"
    if [ -n "$r" ]; then echo "$r"; return; fi
  fi
  [ -n "${GITHUB_BASE_REF:-}" ] || die "no commits to lint: not a pull_request event and no 'range' input (e.g. origin/main..HEAD)"
  echo "origin/$GITHUB_BASE_REF..HEAD"
}

lint() {
  local r code=0
  r="$(range)"
  # The base may be outside a shallow checkout: fetch it (a no-op when present).
  git cat-file -e "${r%%..*}^{commit}" 2>/dev/null \
    || git fetch --quiet --no-tags origin "${r%%..*}" 2>/dev/null \
    || die "the base of $r is not in this clone: check out with 'fetch-depth: 0'"
  evolv lint --range "$r" --format github || code=$?
  local n
  n="$(git rev-list --count --no-merges "$r")"
  out range "$r"
  if [ "$code" = 0 ]; then
    summary "### git-evolv lint" "" "$n commit(s) in \`$r\`: no finding."
  else
    summary "### git-evolv lint" "" "$n commit(s) in \`$r\`: findings, annotated on the commits (exit $code)."
  fi
  return "$code"
}

validate() {
  git fetch --quiet --no-tags origin '+refs/evolv/proposals/*:refs/evolv/proposals/*' 2>/dev/null \
    || echo "note: no refs/evolv/proposals/* fetched from origin; validating the local ones" >&2
  local ids=()
  if [ -n "${INPUT_PROPOSALS:-}" ]; then
    read -r -a ids <<<"$INPUT_PROPOSALS"
  else
    mapfile -t ids < <(evolv list --json | python3 -c 'import json,sys
for p in json.load(sys.stdin)["proposals"]:
    if p["status"] == "pending": print(p["patch_id"])')
  fi
  local cmds=()
  while IFS= read -r c; do [ -n "$c" ] && cmds+=(--validate "$c"); done <<<"${INPUT_VALIDATE:-}"
  local branch head
  branch="$(git symbolic-ref --short HEAD 2>/dev/null)" || die "validate needs a branch checked out (actions/checkout with 'ref: main'), not a detached HEAD"
  head="$(git rev-parse HEAD)"
  summary "### git-evolv validate" "" "Each proposal validated on \`$branch\` at \`${head:0:12}\` (a dry run: nothing landed)." ""
  if [ "${#ids[@]}" = 0 ]; then
    summary "No pending proposal under \`refs/evolv/proposals/\`."
    out verdicts "[]"; out passed 0; out failed 0
    return 0
  fi
  summary "| proposal | commit | verdict | detail |" "| --- | --- | --- | --- |"
  local passed=0 failed=0 verdicts="" id json code
  for id in "${ids[@]}"; do
    code=0
    json="$(evolv apply "$id" --dry-run --json "${cmds[@]}" 2>/dev/null)" || code=$?
    local line
    line="$(EVOLV_JSON="$json" python3 - "$id" "$code" <<'PY'
import json, os, sys
pid, code = sys.argv[1], int(sys.argv[2])
try:
    r = json.loads(os.environ["EVOLV_JSON"] or "{}")
except ValueError:
    r = {}
ok = code == 0 and r.get("success") is True
err = r.get("error") or {}
commit = r.get("commit") or ""
detail = "; ".join(f'`{v["command"]}` exit {v["exit_code"]}' for v in (r.get("validation") or err.get("validation") or []))
v = r.get("verdict") or {}
if v.get("cached"):
    detail += f' (cached verdict of {v["made_by"]}, {v["source"]})'

if not ok:
    detail = (f'{err.get("code", "error")}: {err.get("message", "exit " + str(code))}' + (f" ({detail})" if detail else "")).replace("|", "\\|").replace("\n", " ")
verdict = {"patch_id": pid, "verdict": "pass" if ok else "fail", "commit": commit, "exit": code}
print(json.dumps(verdict))
print(f'| `{pid}` | `{commit[:12]}` | {"pass" if ok else "**fail**"} | {detail or "—"} |')
PY
)"
    verdicts="$verdicts${verdicts:+,}$(head -1 <<<"$line")"
    summary "$(tail -1 <<<"$line")"
    if [ "$code" = 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); echo "::error title=git-evolv validate::$id failed (exit $code)"; fi
  done
  summary "" "$passed passed, $failed failed."
  out verdicts "[$verdicts]"; out passed "$passed"; out failed "$failed"
  publish
  [ "$failed" = 0 ]
}

# Pushes this clone's verdict refs that origin does not have yet (a verdict
# is never rewritten: one key, one answer), and says how to use them.
publish() {
  if [ "${INPUT_PUBLISH:-true}" = false ]; then
    summary "" "Verdict refs not published (\`publish: false\`)."
    out published 0
    return 0
  fi
  local have mine=() ref
  have="$(git ls-remote origin 'refs/evolv/verdicts/*' | cut -f2)" \
    || die "could not list origin's refs/evolv/verdicts/*: is origin reachable?"
  while IFS= read -r ref; do
    [ -n "$ref" ] && ! grep -qxF -- "$ref" <<<"$have" && mine+=("$ref:$ref")
  done < <(git for-each-ref --format='%(refname)' refs/evolv/verdicts/)
  if [ "${#mine[@]}" -gt 0 ]; then
    git push --quiet --no-verify origin "${mine[@]}" \
      || die "could not push ${#mine[@]} verdict ref(s) to origin: give the job 'permissions: contents: write', or set 'publish: false'"
  fi
  out published "${#mine[@]}"
  summary "" "${#mine[@]} new verdict(s) pushed to \`refs/evolv/verdicts/\` on origin. To reuse them in an apply: \`git fetch origin 'refs/evolv/verdicts/*:refs/evolv/remotes/origin/verdicts/*'\` and \`git config evolv.test.trust origin\` (with the same validation commands and declared key parts)."
}

case "${1:-}" in
  install | lint | validate) "$1" ;;
  target) target ;;
  *) die "usage: run.sh install|lint|validate (got '${1:-}')" ;;
esac
