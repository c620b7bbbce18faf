#!/usr/bin/env bash
# Runs the steps of the GitHub Action (action.yml, action/run.sh) here, with
# the environment GitHub gives a step: GITHUB_EVENT_PATH holding a sample
# pull_request event, GITHUB_BASE_REF, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY,
# GITHUB_PATH and RUNNER_TEMP, against local repositories (origin is a bare
# repository; the "release" is a folder of archives made by
# scripts/release_archive.sh, reached through a file:// URL).
#
# Usage: scripts/test_action.sh BIN_DIR   (holding git-evolv and git-evolv-hook)
set -euo pipefail
cd "$(dirname "$0")/.."
here="$PWD"
bin_dir="$(cd "${1:?usage: scripts/test_action.sh BIN_DIR}" && pwd)"
run="$here/action/run.sh"
t="$(mktemp -d)"
trap 'rm -rf "$t"' EXIT
# The build from source below runs cargo, which finds its toolchain and
# downloads through the real HOME's rustup and cargo folders.
export RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}" CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}"
export HOME="$t/home" GIT_CONFIG_NOSYSTEM=1 NO_COLOR=1
mkdir -p "$HOME"
git config --global user.name Tester
git config --global user.email tester@example.com
git config --global init.defaultBranch main
git config --global advice.detachedHead false

passed=0 failed=0
ok() { passed=$((passed + 1)); echo "ok: $1"; }
bad() { failed=$((failed + 1)); echo "FAILED: $1"; [ -f "$t/log" ] && sed 's/^/  /' "$t/log"; true; }
expect() { # expect DESCRIPTION EXIT-CODE COMMAND... (output in $t/log)
  local what="$1" want="$2" code=0; shift 2
  "$@" >"$t/log" 2>&1 || code=$?
  if [ "$code" = "$want" ]; then ok "$what"; else echo "  (exit $code, expected $want)" >>"$t/log"; bad "$what"; fi
}
has() { # has DESCRIPTION PATTERN FILE (FILE may be $t/log itself)
  if grep -q -- "$2" "$3"; then ok "$1"; else
    { echo "  no '$2' in $3:"; cat "$3" 2>/dev/null || true; } >"$t/has.log"; mv "$t/has.log" "$t/log"; bad "$1"
  fi
}
fresh_env() { # the files GitHub gives each step
  export GITHUB_OUTPUT="$t/output" GITHUB_STEP_SUMMARY="$t/summary" GITHUB_PATH="$t/path" RUNNER_TEMP="$t/runner"
  : >"$GITHUB_OUTPUT"; : >"$GITHUB_STEP_SUMMARY"; : >"$GITHUB_PATH"; rm -rf "$RUNNER_TEMP"; mkdir -p "$RUNNER_TEMP"
}

# --- install: a release folder as GitHub serves it -------------------------
version="$(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)"
target="$("$run" target)"
scripts/release_archive.sh --bin-dir "$bin_dir" --target "$target" --out "$t/releases/v$version" >/dev/null
name="git-evolv-$version-$target"
export EVOLV_RELEASE_URL="file://$t/releases" INPUT_REPOSITORY=example/git-evolv

fresh_env
expect "install: downloads, verifies and unpacks the release" 0 env INPUT_VERSION="v$version" "$run" install
has "install: puts the folder on GITHUB_PATH" "$RUNNER_TEMP/git-evolv-$version/$name" "$GITHUB_PATH"
has "install: outputs the path" "^path=$RUNNER_TEMP/git-evolv-$version/$name\$" "$GITHUB_OUTPUT"
has "install: outputs the verified sha256" "^sha256=$(cut -d' ' -f1 "$t/releases/v$version/$name.tar.gz.sha256")\$" "$GITHUB_OUTPUT"
expect "install: the installed git-evolv runs" 0 "$RUNNER_TEMP/git-evolv-$version/$name/git-evolv" --version
expect "install: git-evolv-hook sits beside it" 0 test -x "$RUNNER_TEMP/git-evolv-$version/$name/git-evolv-hook"

fresh_env
expect "install: a 'sha256' input that does not match fails" 2 env INPUT_VERSION="$version" INPUT_SHA256=0000 "$run" install
has "install: ... saying which sums differ" "does not match the 'sha256' input 0000" "$t/log"
expect "install: ... and puts nothing on GITHUB_PATH" 0 test ! -s "$GITHUB_PATH"

cp -r "$t/releases" "$t/tampered"
printf x >>"$t/tampered/v$version/$name.tar.gz"
fresh_env
expect "install: an archive that does not match the release's .sha256 fails" 2 \
  env EVOLV_RELEASE_URL="file://$t/tampered" INPUT_VERSION="$version" "$run" install
has "install: ... naming the archive and both sums" "$name.tar.gz: sha256 [0-9a-f]* does not match the release's" "$t/log"
expect "install: ... and puts nothing on GITHUB_PATH" 0 test ! -s "$GITHUB_PATH"

fresh_env
expect "install: a version with no release fails" 2 env INPUT_VERSION=9.9.9 "$run" install
has "install: ... naming the release" "is there a release v9.9.9" "$t/log"

# --- install without a release: a given binary, or the action's own source --
unset EVOLV_RELEASE_URL INPUT_REPOSITORY
fresh_env
expect "install: the 'binary' input uses that binary, no release needed" 0 env INPUT_BINARY="$bin_dir/git-evolv" "$run" install
has "install: ... its folder on GITHUB_PATH" "$RUNNER_TEMP/git-evolv-binary" "$GITHUB_PATH"
has "install: ... and in the path output" "^path=$RUNNER_TEMP/git-evolv-binary\$" "$GITHUB_OUTPUT"
expect "install: ... where git-evolv runs" 0 "$RUNNER_TEMP/git-evolv-binary/git-evolv" --version
expect "install: ... with git-evolv-hook beside it" 0 test -x "$RUNNER_TEMP/git-evolv-binary/git-evolv-hook"
fresh_env
expect "install: a 'binary' that is not there fails" 2 env INPUT_BINARY="$t/nowhere/git-evolv" "$run" install
has "install: ... naming it" "names no executable file: $t/nowhere/git-evolv" "$t/log"
expect "install: ... and puts nothing on GITHUB_PATH" 0 test ! -s "$GITHUB_PATH"

# The build from source, as action.yml runs it: the source-key step, then
# install with its outputs (the cache step between them is GitHub's). The
# build reuses this checkout's target folder and the dev profile, so cargo
# only checks that what .ci/run built is fresh.
fresh_env
expect "source-key: prints the cache key of the action's source" 0 "$run" source-key
has "source-key: ... as the key output, per system and architecture" "^key=git-evolv-$(uname -s)-$(uname -m)-[0-9a-f]\{16\}\$" "$GITHUB_OUTPUT"
has "source-key: ... the restore prefix" "^restore=git-evolv-$(uname -s)-$(uname -m)-\$" "$GITHUB_OUTPUT"
has "source-key: ... and the folder to cache" "^dir=$RUNNER_TEMP/git-evolv-build\$" "$GITHUB_OUTPUT"
key="$(sed -n 's/^key=//p' "$GITHUB_OUTPUT")"
build=(env EVOLV_BUILD_DIR="$t/build" EVOLV_SOURCE_KEY="$key" EVOLV_CARGO_PROFILE=dev
  EVOLV_CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$here/target}")
fresh_env
expect "install: no version and no binary builds git-evolv from the action's source" 0 "${build[@]}" "$run" install
has "install: ... saying so" "built git-evolv from source in $t/build/bin" "$t/log"
has "install: ... its folder on GITHUB_PATH" "^$t/build/bin\$" "$GITHUB_PATH"
expect "install: ... git-evolv runs" 0 "$t/build/bin/git-evolv" --version
expect "install: ... git-evolv-hook beside it" 0 test -x "$t/build/bin/git-evolv-hook"
mkdir -p "$t/nocargo" && printf '#!/bin/sh
echo cargo ran >&2
exit 97
' >"$t/nocargo/cargo" && chmod +x "$t/nocargo/cargo"
fresh_env
expect "install: the same source again takes the cached build, no cargo run" 0 env CARGO="$t/nocargo/cargo" "${build[@]}" "$run" install
has "install: ... saying so" "using the cached build of this source" "$t/log"
has "install: ... on GITHUB_PATH" "^$t/build/bin\$" "$GITHUB_PATH"
fresh_env
expect "install: another source (a new key) builds again" 2 env CARGO="$t/nocargo/cargo" "${build[@]}" EVOLV_SOURCE_KEY=other "$run" install
has "install: ... running cargo" "cargo ran" "$t/log"
has "install: ... and says when cargo fails" "cargo could not build git-evolv" "$t/log"
fresh_env
expect "install: no cargo and nothing cached fails" 2 env CARGO="$t/nowhere/cargo" EVOLV_BUILD_DIR="$t/build2" "$run" install
has "install: ... saying which inputs to give" "no cargo on this runner.*'binary' input" "$t/log"

export EVOLV_BIN="$bin_dir/git-evolv"
# --- lint: a pull request of two commits, one with a bad message -----------
git init -q --bare "$t/origin.git"
git clone -q "$t/origin.git" "$t/dev" 2>/dev/null
cd "$t/dev"
printf 'hello\nworld\n' >file.txt
git add file.txt && git commit -q -m "feat: first file"
git push -q origin main
base="$(git rev-parse HEAD)"
git switch -q -c topic
echo more >>file.txt && git commit -q -am "fix(file): one more line"
echo again >>file.txt && git commit -q -am "Added stuff."
head="$(git rev-parse HEAD)"
git push -q origin topic
event() { # event BASE HEAD: a pull_request event as GitHub writes it (the fields read)
  cat >"$t/event.json" <<JSON
{"action": "synchronize", "number": 7,
 "pull_request": {"number": 7, "base": {"ref": "main", "sha": "$1"}, "head": {"ref": "topic", "sha": "$2"}},
 "repository": {"full_name": "example/project"}}
JSON
}
git clone -q "$t/origin.git" "$t/ci" 2>/dev/null
cd "$t/ci" && git checkout -q "$head"
export GITHUB_EVENT_PATH="$t/event.json" GITHUB_BASE_REF=main
event "$base" "$head"
fresh_env
expect "lint: a pull request with a bad message fails" 1 "$run" lint
has "lint: ... with an ::error annotation on that commit" "::error.*Added stuff\|::error.*${head:0:7}" "$t/log"
has "lint: ... the range from the event" "^range=$base..$head\$" "$GITHUB_OUTPUT"
has "lint: ... and a job summary" "2 commit(s) in \`$base..$head\`: findings" "$GITHUB_STEP_SUMMARY"
if grep -q "first file\|one more line" "$t/log"; then bad "lint: good commits are not annotated"; else ok "lint: good commits are not annotated"; fi

event "$base" "$(git rev-parse HEAD~1)"
fresh_env
expect "lint: a pull request of good commits passes" 0 "$run" lint
has "lint: ... and says so in the summary" "1 commit(s) in .*: no finding" "$GITHUB_STEP_SUMMARY"

echo '{"ref": "refs/heads/main"}' >"$t/event.json"
fresh_env
expect "lint: a push event lints origin/\$GITHUB_BASE_REF..HEAD" 1 "$run" lint
has "lint: ... that range" "^range=origin/main..HEAD\$" "$GITHUB_OUTPUT"
fresh_env
expect "lint: without an event or base ref it fails clearly" 2 env -u GITHUB_EVENT_PATH -u GITHUB_BASE_REF "$run" lint
has "lint: ... saying what to set" "no commits to lint" "$t/log"

# --- validate: two proposals pushed as refs, one passing, one failing -------
cd "$t/dev" && git switch -q main
good="$("$EVOLV_BIN" propose --json --pattern hello --replacement hi --scope file.txt | python3 -c 'import json,sys; print(json.load(sys.stdin)["patch_id"])')"
sleep 1
broken="$("$EVOLV_BIN" propose --json --pattern world --replacement BROKEN --scope file.txt | python3 -c 'import json,sys; print(json.load(sys.stdin)["patch_id"])')"
git push -q origin 'refs/evolv/proposals/*:refs/evolv/proposals/*'
rm -rf "$t/ci" && git clone -q "$t/origin.git" "$t/ci" 2>/dev/null && cd "$t/ci"
before="$(git rev-parse main)"
export INPUT_VALIDATE=$'test -f file.txt\n! grep -q BROKEN file.txt'
fresh_env
expect "validate: one failing proposal fails the step" 1 "$run" validate
has "validate: ... the passing one in the summary" "| \`$good\` | \`[0-9a-f]*\` | pass |" "$GITHUB_STEP_SUMMARY"
has "validate: ... the failing one too, with the failed command" "| \`$broken\` | .* | \*\*fail\*\* | validation_failed.*grep -q BROKEN" "$GITHUB_STEP_SUMMARY"
has "validate: ... the counts" "1 passed, 1 failed." "$GITHUB_STEP_SUMMARY"
has "validate: ... how to reuse the published verdicts" "2 new verdict(s) pushed to \`refs/evolv/verdicts/\` on origin" "$GITHUB_STEP_SUMMARY"
has "validate: ... published=2 output (the pass and the fail)" "^published=2\$" "$GITHUB_OUTPUT"
has "validate: ... an annotation for the failure" "::error title=git-evolv validate::$broken failed" "$t/log"
has "validate: ... passed=1 output" "^passed=1\$" "$GITHUB_OUTPUT"
has "validate: ... failed=1 output" "^failed=1\$" "$GITHUB_OUTPUT"
expect "validate: ... verdicts output is JSON naming both" 0 python3 -c "
import sys
line = [l for l in open('$GITHUB_OUTPUT') if l.startswith('verdicts=')][0]
import json; v = {x['patch_id']: x['verdict'] for x in json.loads(line[9:])}
assert v == {'$good': 'pass', '$broken': 'fail'}, v"
expect "validate: ... origin holds the two verdict refs" 0 \
  test "$(git -C "$t/origin.git" for-each-ref refs/evolv/verdicts/ | wc -l)" = 2
expect "validate: a dry run: main did not move" 0 test "$(git rev-parse main)" = "$before"
expect "validate: ... the working tree is clean" 0 test -z "$(git status --porcelain)"
expect "validate: ... git fsck is clean" 0 git fsck --no-progress
fresh_env
expect "validate: the 'proposals' input picks one" 0 env INPUT_PROPOSALS="$good" "$run" validate
has "validate: ... and validates only it" "1 passed, 0 failed." "$GITHUB_STEP_SUMMARY"
has "validate: ... reusing the verdict stored by the first run" "| pass | .*(cached verdict of " "$GITHUB_STEP_SUMMARY"
has "validate: ... and publishes nothing twice" "^published=0\$" "$GITHUB_OUTPUT"
git checkout -q --detach
fresh_env
expect "validate: a detached HEAD is refused clearly" 2 "$run" validate
has "validate: ... saying what to check out" "needs a branch checked out" "$t/log"

# --- the published verdicts in a developer's clone: a cache hit ------------
cd "$t/dev" && git switch -q main
git config --add evolv.validate 'test -f file.txt'
git config --add evolv.validate '! grep -q BROKEN file.txt'
git fetch -q origin 'refs/evolv/verdicts/*:refs/evolv/remotes/origin/verdicts/*'
expect "verdicts: fetched but untrusted, they are not used" 0 python3 -c "
import json, subprocess
ps = json.loads(subprocess.check_output(['$EVOLV_BIN', 'list', '--json']))['proposals']
assert all('verdict' not in p for p in ps), ps"
git config evolv.test.trust origin
before="$(git rev-parse main)"
expect "verdicts: trusted, CI's fail refuses the broken proposal without running" 1 \
  "$EVOLV_BIN" apply --json "$broken"
has "verdicts: ... saying the verdict is cached" "a cached verdict, made .* by .*(origin)" "$t/log"
expect "verdicts: ... nothing landed" 0 test "$(git rev-parse main)" = "$before"
expect "verdicts: CI's pass lands the good proposal as a cache hit" 0 \
  sh -c "'$EVOLV_BIN' apply --json '$good' >'$t/applied.json'"
expect "verdicts: ... the apply's verdict is cached, from origin" 0 python3 -c "
import json
v = json.load(open('$t/applied.json'))['verdict']
assert v['cached'] is True and v['source'] == 'origin' and v['status'] == 'pass', v"
expect "verdicts: ... it landed" 0 test "$(git rev-parse main~1)" = "$before"
expect "verdicts: ... the working tree is clean" 0 test -z "$(git status --porcelain)"
expect "verdicts: ... git fsck is clean" 0 git fsck --no-progress

# --- validate: one proposal's test code cannot decide another's verdict ------
# The job validates with its configured evolv.validate (`sh check.sh`, the
# project's own test script). Proposal "rewrite" changes check.sh so that it
# rewrites evolv.validate to `true`; proposal "broken" (validated after it)
# breaks file.txt and must still fail (issue 38 item 3).
git init -q --bare "$t/origin2.git"
git clone -q "$t/origin2.git" "$t/dev2" 2>/dev/null
cd "$t/dev2"
printf 'hello\nworld\n' >file.txt
printf 'grep -q BROKEN file.txt && exit 1\nexit 0\n' >check.sh
git add file.txt check.sh && git commit -q -m "feat: a file and its check"
git push -q origin main
rewrite="$("$EVOLV_BIN" propose --json --pattern 'grep -q BROKEN file.txt && exit 1' \
  --replacement 'git config evolv.validate true' --scope check.sh | python3 -c 'import json,sys; print(json.load(sys.stdin)["patch_id"])')"
sleep 1
broken2="$("$EVOLV_BIN" propose --json --pattern world --replacement BROKEN --scope file.txt | python3 -c 'import json,sys; print(json.load(sys.stdin)["patch_id"])')"
git push -q origin 'refs/evolv/proposals/*:refs/evolv/proposals/*'
git clone -q "$t/origin2.git" "$t/ci2" 2>/dev/null && cd "$t/ci2"
git config evolv.validate 'sh check.sh'
fresh_env
expect "validate: a proposal rewriting evolv.validate cannot pass a later broken one" 1 \
  env -u INPUT_VALIDATE "$run" validate
has "validate: ... the broken one fails" "| \`$broken2\` | .* | \*\*fail\*\* | validation_failed.*sh check.sh" "$GITHUB_STEP_SUMMARY"
has "validate: ... the rewriting one is validated by its own code" "| \`$rewrite\` | \`[0-9a-f]*\` | pass |" "$GITHUB_STEP_SUMMARY"
expect "validate: ... the job's evolv.validate is unchanged" 0 test "$(git config --get-all evolv.validate)" = "sh check.sh"
expect "validate: ... no pass is stored for the broken tree" 0 python3 -c "
import json, subprocess
ps = {p['patch_id']: p for p in json.loads(subprocess.check_output(['$EVOLV_BIN', 'list', '--json']))['proposals']}
v = ps['$broken2'].get('verdict')
assert v is None or v['status'] != 'pass', v"
expect "validate: ... the working tree is clean" 0 test -z "$(git status --porcelain)"
expect "validate: ... git fsck is clean" 0 git fsck --no-progress
# A proposal whose code reaches the job's clone by its path (here through
# GITHUB_WORKSPACE) is caught: the step fails loudly and publishes nothing.
cd "$t/dev2"
reach="$("$EVOLV_BIN" propose --json --pattern 'grep -q BROKEN file.txt && exit 1' \
  --replacement 'git -C "$$GITHUB_WORKSPACE" config evolv.validate true' --scope check.sh | python3 -c 'import json,sys; print(json.load(sys.stdin)["patch_id"])')"
git push -q origin 'refs/evolv/proposals/*:refs/evolv/proposals/*'
rm -rf "$t/ci2" && git clone -q "$t/origin2.git" "$t/ci2" 2>/dev/null && cd "$t/ci2"
git config evolv.validate 'sh check.sh'
published_before="$(git -C "$t/origin2.git" for-each-ref refs/evolv/verdicts/ | wc -l)"
fresh_env
expect "validate: a proposal changing the job's config by its path fails the step" 2 \
  env -u INPUT_VALIDATE GITHUB_WORKSPACE="$t/ci2" INPUT_PROPOSALS="$reach" "$run" validate
has "validate: ... loudly, naming the proposal" "::error title=git-evolv validate::$reach changed the job's" "$t/log"
expect "validate: ... and publishes nothing" 0 \
  test "$(git -C "$t/origin2.git" for-each-ref refs/evolv/verdicts/ | wc -l)" = "$published_before"

echo "action: $passed passed, $failed failed"
[ "$failed" = 0 ]
