#!/usr/bin/env bash
# The steps of git-evolv's GitHub Action (action.yml at the top of the
# repository). Each step reads what GitHub gives a step (GITHUB_EVENT_PATH,
# GITHUB_BASE_REF, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, the inputs as
# INPUT_* variables) and nothing else, so scripts/test_action.sh runs them
# here against local repositories with a sample pull_request event.
#
#   run.sh install    put git-evolv on GITHUB_PATH, from the first source
#                     given: INPUT_BINARY (a built git-evolv, used where it
#                     is); INPUT_VERSION (the release archive for this
#                     runner, checked against its .sha256 and INPUT_SHA256
#                     when given); else the action's own source, built with
#                     cargo into EVOLV_BUILD_DIR (which action.yml caches
#                     between runs) unless that folder already holds the
#                     build of the same source
#   run.sh source-key the cache key of the action's source for this runner
#                     (key, restore, dir outputs), for actions/cache
#   run.sh lint       lint the pull request's commits (base..head of the
#                     event, else origin/$GITHUB_BASE_REF..HEAD, or INPUT_RANGE)
#                     with one ::error annotation per finding
#   run.sh validate   fetch refs/evolv/proposals/*, dry-run apply each pending
#                     proposal (INPUT_PROPOSALS, default all) on the checked-out
#                     branch with INPUT_VALIDATE (default: git config
#                     evolv.validate, read once before any proposal runs),
#                     each in a throwaway clone of its own (a proposal's code
#                     cannot rewrite the job's config nor another's verdict;
#                     one that changes the job's config or refs by its path
#                     stops the step), write each verdict to the job summary
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
    *) die "no release archive for the $(uname -m) architecture: leave out the 'version' input to build from the action's source" ;; esac
  case "$(uname -s)" in Linux) os=unknown-linux-musl ;; Darwin) os=apple-darwin ;;
    *) die "no release archive for $(uname -s): git-evolv supports Linux and macOS" ;; esac
  echo "$arch-$os"
}

# sha256 of file $1, or of stdin.
sha256() { if command -v sha256sum >/dev/null; then sha256sum "$@"; else shasum -a 256 "$@"; fi | cut -d' ' -f1; }

install() {
  if [ -n "${INPUT_BINARY:-}" ]; then use_binary "$INPUT_BINARY"
  elif [ -n "${INPUT_VERSION:-}" ]; then download "$INPUT_VERSION"
  else build_from_source; fi
}

# The folder the action's source is in (this script is its action/run.sh).
source_dir() { cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd; }

# What the build depends on: the source files cargo reads and the
# toolchain. Tests, docs and scripts do not change the binary.
source_key() {
  local src rust sum
  src="$(source_dir)"
  rust="$("${CARGO:-cargo}" --version 2>/dev/null || echo no-cargo)"
  sum="$( { echo "$rust"; cd "$src" && find Cargo.toml Cargo.lock build.rs src crates -type f \
    ! -path '*/tests/*' -print0 | LC_ALL=C sort -z | while IFS= read -r -d '' f; do printf '%s\n' "$f"; cat "$f"; done; } \
    | sha256 | cut -c1-16)"
  echo "git-evolv-$(uname -s)-$(uname -m)-$sum"
}

build_dir() { echo "${EVOLV_BUILD_DIR:-${RUNNER_TEMP:-${TMPDIR:-/tmp}}/git-evolv-build}"; }

source_key_outputs() {
  local key
  key="$(source_key)"
  out key "$key"
  out restore "${key%-*}-"
  out dir "$(build_dir)"
  echo "cache key $key"
}

# Puts folder $1 (holding git-evolv) on GITHUB_PATH and in the outputs.
installed() {
  "$1/git-evolv" --version >/dev/null || die "$1/git-evolv does not run on this runner"
  [ -n "${GITHUB_PATH:-}" ] && echo "$1" >>"$GITHUB_PATH"
  out path "$1"
}

# A given binary: linked into a folder of its own as git-evolv (the later
# steps run <path>/git-evolv), with git-evolv-hook when it is beside it.
use_binary() {
  local b="$1" dir
  [ -d "$b" ] && b="$b/git-evolv"
  [ -f "$b" ] && [ -x "$b" ] || die "the 'binary' input names no executable file: $b (give the path of a built git-evolv, e.g. target/release/git-evolv)"
  b="$(cd "$(dirname "$b")" && pwd)/$(basename "$b")"
  dir="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/git-evolv-binary"
  rm -rf "$dir" && mkdir -p "$dir"
  ln -s "$b" "$dir/git-evolv"
  [ -x "$(dirname "$b")/git-evolv-hook" ] && ln -s "$(dirname "$b")/git-evolv-hook" "$dir/git-evolv-hook"
  installed "$dir"
  echo "using git-evolv $("$dir/git-evolv" --version | head -1) from $b"
}

# The action's own source, built with cargo (release profile without fat
# LTO: the binary serves this job only, and the build is minutes shorter),
# or the build a cached EVOLV_BUILD_DIR already holds for the same key.
build_from_source() {
  local src dir key cargo="${CARGO:-cargo}" profile="${EVOLV_CARGO_PROFILE:-release}" out_dir
  src="$(source_dir)"
  dir="$(build_dir)"
  key="${EVOLV_SOURCE_KEY:-$(source_key)}"
  if [ -x "$dir/bin/git-evolv" ] && [ "$(cat "$dir/source-key" 2>/dev/null)" = "$key" ]; then
    installed "$dir/bin"
    echo "using the cached build of this source ($key) in $dir/bin"
    return
  fi
  command -v "$cargo" >/dev/null || die "no cargo on this runner to build git-evolv from the action's source: set up Rust first (e.g. dtolnay/rust-toolchain@stable), or give the 'binary' input (a built git-evolv); the 'version' input works from the first release on"
  echo "building git-evolv from $src (cargo, profile $profile; cached for the next run)"
  CARGO_TARGET_DIR="${EVOLV_CARGO_TARGET_DIR:-$dir/target}" CARGO_PROFILE_RELEASE_LTO=false \
    CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    "$cargo" build --locked --bins --profile "$profile" --manifest-path "$src/Cargo.toml" >&2 \
    || die "cargo could not build git-evolv from $src (its output is above)"
  [ "$profile" = dev ] && out_dir=debug || out_dir="$profile"
  mkdir -p "$dir/bin"
  cp -f "${EVOLV_CARGO_TARGET_DIR:-$dir/target}/$out_dir/git-evolv" \
    "${EVOLV_CARGO_TARGET_DIR:-$dir/target}/$out_dir/git-evolv-hook" "$dir/bin/"
  printf '%s\n' "$key" >"$dir/source-key"
  installed "$dir/bin"
  echo "built git-evolv from source in $dir/bin"
}

download() {
  local version="$1"
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
  installed "$dir/$name"
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

# The job's state a proposal's code must not touch: its local config and
# its refs (branches, refs/evolv/*).
job_state() {
  { git config --local -z --list; git for-each-ref --format='%(objectname) %(refname)' refs/heads/ refs/evolv/; } | cksum
}

# This clone's verdict secret (32 random bytes, as git-evolv makes it on
# first use), made now when missing so each throwaway clone marks its
# verdicts as this clone's: the ones brought back are reused here. One
# already there (a secret shared with a server, docs/server.md) is kept.
ensure_secret() {
  local f="$1/evolv/verdict-secret"
  if [ -s "$f" ]; then return; fi
  mkdir -p "$1/evolv"
  head -c 32 /dev/urandom >"$f.action.$$" && mv -f "$f.action.$$" "$f"
}

# Validates proposal $1 in a throwaway clone of the job's (objects shared,
# config and refs its own), with the job's settings read before any
# proposal ran: nothing a proposal's code does to its clone reaches the
# job or another proposal. Prints apply's JSON; exits as apply does; the
# tree the proposal lands as goes to $scratch/$1.tree, the clone's verdict
# refs before the run to $scratch/$1.before (for bring_back).
# Globals: job gitdir scratch branch settings cmds.
validate_one() {
  local id="$1" wt="$scratch/$1" i cand cand_tree before code=0 json
  git clone --quiet --shared --branch "$branch" "$job" "$wt" 2>/dev/null \
    || die "could not make a throwaway clone of $job in $wt to validate $id"
  git -C "$wt" remote remove origin
  git -C "$wt" fetch --quiet --no-tags "$job" '+refs/evolv/*:refs/evolv/*'
  for ((i = 0; i < ${#settings[@]}; i += 2)); do git -C "$wt" config --add "${settings[i]}" "${settings[i + 1]}"; done
  mkdir -p "$wt/.git/evolv" && cp "$gitdir/evolv/verdict-secret" "$wt/.git/evolv/verdict-secret"
  # The tree the proposal lands as (no code of it runs: `true` validates).
  cand="$(cd "$wt" && evolv apply "$id" --dry-run --json --validate true 2>/dev/null | python3 -c 'import json,sys
print(json.load(sys.stdin).get("commit") or "")' 2>/dev/null)" || true
  cand_tree="$(git -C "$wt" rev-parse --verify --quiet "$cand^{tree}" 2>/dev/null)" || cand_tree=""
  before="$(git -C "$wt" for-each-ref --format='%(objectname) %(refname)' refs/evolv/verdicts/)"
  json="$(cd "$wt" && evolv apply "$id" --dry-run --json "${cmds[@]}" 2>/dev/null)" || code=$?
  printf '%s\n' "$json"
  printf '%s' "$cand_tree" >"$scratch/$id.tree"
  printf '%s\n' "$before" >"$scratch/$id.before"
  return "$code"
}

# Fetches into the job the verdict refs the apply in clone $1 stored: new
# or changed ones whose verdict is about the proposal's tree $2 with the
# job's validators. Any other (a proposal's code writing verdict refs in
# its clone) stays there and goes with it.
bring_back() {
  local wt="$1" tree="$2" before="$3" ref
  [ -n "$tree" ] || return 0
  while IFS= read -r ref; do
    [ -n "$ref" ] || continue
    if git -C "$wt" cat-file commit "$ref" | EVOLV_TREE="$tree" python3 -c '
import json, os, sys
message = sys.stdin.read().split("\n\n", 1)[-1].rsplit("\nEvolv-Mark: ", 1)[0]
v = json.loads(message)
want = json.loads(os.environ["EVOLV_VALIDATORS"])
ok = v.get("tree") == os.environ["EVOLV_TREE"] and [c.get("command") for c in v.get("commands") or []] == want
sys.exit(0 if ok else 1)' 2>/dev/null; then
      git fetch --quiet --no-tags "$wt" "+$ref:$ref"
    fi
  done < <(git -C "$wt" for-each-ref --format='%(objectname) %(refname)' refs/evolv/verdicts/ \
    | grep -vxF -f <(printf '%s\n' "$before") | cut -d' ' -f2)
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
  local head
  branch="$(git symbolic-ref --short HEAD 2>/dev/null)" || die "validate needs a branch checked out (actions/checkout with 'ref: main'), not a detached HEAD"
  head="$(git rev-parse HEAD)"
  # The job's configuration, read once, before any proposal's code runs:
  # the validators (the 'validate' input, else evolv.validate), passed to
  # each apply explicitly, and the other evolv.* and user.* settings.
  local c entry key
  validators=() cmds=() settings=()
  if [ -n "${INPUT_VALIDATE:-}" ]; then
    while IFS= read -r c; do [ -n "$c" ] && validators+=("$c"); done <<<"$INPUT_VALIDATE"
  else
    while IFS= read -r -d '' c; do [ -n "$c" ] && validators+=("$c"); done < <(git config -z --get-all evolv.validate || true)
  fi
  for c in "${validators[@]}"; do cmds+=(--validate "$c"); done
  while IFS= read -r -d '' entry; do
    key="${entry%%$'\n'*}"
    [ "$key" = evolv.validate ] && continue
    if [ "$key" = "$entry" ]; then settings+=("$key" true); else settings+=("$key" "${entry#*$'\n'}"); fi
  done < <(git config --local -z --get-regexp '^(evolv|user)\.' || true)
  EVOLV_VALIDATORS="$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1:]))' "${validators[@]}")"
  export EVOLV_VALIDATORS
  job="$PWD"
  gitdir="$(git rev-parse --path-format=absolute --git-common-dir)"
  summary "### git-evolv validate" "" "Each proposal validated on \`$branch\` at \`${head:0:12}\` (a dry run: nothing landed), each in a throwaway clone of its own." ""
  if [ "${#ids[@]}" = 0 ]; then
    summary "No pending proposal under \`refs/evolv/proposals/\`."
    out verdicts "[]"; out passed 0; out failed 0
    return 0
  fi
  ensure_secret "$gitdir"
  scratch="$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/git-evolv-validate.XXXXXX")"
  trap 'rm -rf "$scratch"' EXIT
  summary "| proposal | commit | verdict | detail |" "| --- | --- | --- | --- |"
  local passed=0 failed=0 verdicts="" id json code state
  state="$(job_state)"
  for id in "${ids[@]}"; do
    code=0
    json="$(validate_one "$id")" || code=$?
    # What the proposal's code could reach by a path (the job's config, its
    # refs): any change and no verdict of this job can be believed.
    if [ "$(job_state)" != "$state" ]; then
      echo "::error title=git-evolv validate::$id changed the job's git config or refs (branches, refs/evolv/) while it was validated: its code reached outside its throwaway clone. Stopped; no verdict was published" >&2
      summary "" "**Stopped:** validating \`$id\` changed the job's git config or refs; no verdict was published."
      out passed "$passed"; out failed "$((failed + 1))"
      exit 2
    fi
    bring_back "$scratch/$id" "$(cat "$scratch/$id.tree" 2>/dev/null)" "$(cat "$scratch/$id.before" 2>/dev/null)"
    rm -rf "${scratch:?}/$id" "$scratch/$id.tree" "$scratch/$id.before"
    state="$(job_state)"
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
  source-key) source_key_outputs ;;
  target) target ;;
  *) die "usage: run.sh install|lint|validate|source-key (got '${1:-}')" ;;
esac
