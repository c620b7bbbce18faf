#!/usr/bin/env bash
# Coexistence matrix of git-evolv's hooks with the hook managers people use,
# installed for real from their registries: pre-commit (PyPI), husky and
# lefthook (npm). For each manager: both install orders, the manager's
# re-install, and the uninstall of either tool. After every step it checks
# that each tool's commit-msg hook runs or not, as expected (the manager's
# hook appends to a log; git-evolv's rejects a message that is not a
# Conventional Commit), and that `git evolv hooks status` says so. The
# installed hook is a copy of git-evolv-hook (beside git-evolv), and no step
# of any manager may change either binary: each scenario ends by comparing
# them with what they were (a manager writing a hook in place wrote through
# the link older versions installed, into the binary).
#
#   scripts/hook_managers.sh [path/to/git-evolv]
#
# A manager whose registry cannot be reached is reported as "skipped", never
# passed. Exits 1 when a check fails. See issue #17.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
EVOLV=${1:-$ROOT/target/debug/git-evolv}
[ -x "$EVOLV" ] || { echo "hook_managers: $EVOLV is not built" >&2; exit 2; }
EVOLV=$(cd "$(dirname "$EVOLV")" && pwd)/$(basename "$EVOLV")
HOOK_BIN=$(dirname "$EVOLV")/git-evolv-hook
[ -x "$HOOK_BIN" ] || { echo "hook_managers: $HOOK_BIN is not built (cargo build --bins)" >&2; exit 2; }
binaries_sum() { cat "$EVOLV" "$HOOK_BIN" | sha256sum; }
BINARIES_SUM=$(binaries_sum)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/evolv-hook-managers.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
TOOLS=${HOOK_MANAGERS_TOOLS:-$WORK/tools}
mkdir -p "$TOOLS"
export HOME=$WORK/home GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=$WORK/home/.gitconfig
mkdir -p "$HOME"
git config --global user.name T
git config --global user.email t@e.x
git config --global init.defaultBranch main
export PRE_COMMIT_HOME=$TOOLS/pre-commit-cache NPM_CONFIG_UPDATE_NOTIFIER=false

passed=0 failed=0 skipped=0
ok() { passed=$((passed + 1)); echo "  ok: $*"; }
bad() { failed=$((failed + 1)); echo "  FAILED: $*"; }
skip() { skipped=$((skipped + 1)); echo "skipped: $*"; }

# --- installing the managers from their registries -------------------------
have_pre_commit=0 have_npm=0
if [ -x "$TOOLS/venv/bin/pre-commit" ] ||
  { python3 -m venv "$TOOLS/venv" >/dev/null 2>&1 &&
    "$TOOLS/venv/bin/pip" install -q --disable-pip-version-check pre-commit >"$TOOLS/pip.log" 2>&1; }; then
  have_pre_commit=1
  PRE_COMMIT=$TOOLS/venv/bin/pre-commit
  echo "pre-commit $("$PRE_COMMIT" --version | awk '{print $2}') from PyPI"
fi
if [ -x "$TOOLS/npm/node_modules/.bin/lefthook" ] ||
  { command -v npm >/dev/null && mkdir -p "$TOOLS/npm" &&
    (cd "$TOOLS/npm" && echo '{"name":"tools","private":true}' >package.json &&
      npm install --no-audit --no-fund --silent husky lefthook >"$TOOLS/npm.log" 2>&1); }; then
  have_npm=1
  NODE_BIN=$TOOLS/npm/node_modules/.bin
  # lefthook's npm package ships its binary in an optional dependency.
  [ -x "$NODE_BIN/lefthook" ] && "$NODE_BIN/lefthook" version >/dev/null 2>&1 || have_npm=0
  [ $have_npm = 1 ] && echo "husky $(node -p "require('$TOOLS/npm/node_modules/husky/package.json').version"), lefthook $("$NODE_BIN/lefthook" version) from npm"
fi

# --- one repository per scenario -------------------------------------------
# Each manager's hook appends "<manager>" to $LOG.
new_repo() { # manager
  R=$WORK/repo-$RANDOM$RANDOM
  export LOG=$R.log
  git init -q "$R" && cd "$R" || exit 2
  git init -q --bare "$R.remote" && git remote add origin "$R.remote"
  : >"$LOG"
  case $1 in
  pre-commit)
    cat >.pre-commit-config.yaml <<'EOF'
repos:
- repo: local
  hooks:
  - id: log
    name: log
    entry: sh -c 'echo pre-commit >> "$LOG"'
    language: system
    stages: [commit-msg]
    always_run: true
    pass_filenames: false
  - id: log-push
    name: log-push
    entry: sh -c 'echo pre-commit-push >> "$LOG"'
    language: system
    stages: [pre-push]
    always_run: true
    pass_filenames: false
EOF
    ;;
  husky)
    mkdir .husky && printf 'echo husky >> "$LOG"\n' >.husky/commit-msg
    printf 'echo husky-push >> "$LOG"\n' >.husky/pre-push
    ;;
  lefthook)
    printf 'commit-msg:\n  commands:\n    log:\n      run: echo lefthook >> "$LOG"\npre-push:\n  commands:\n    log:\n      run: echo lefthook-push >> "$LOG"\n' >lefthook.yml
    ;;
  esac
  git add -A && git commit -q --no-verify -m "chore: init"
}

mgr_install() {
  case $1 in
  pre-commit) "$PRE_COMMIT" install --hook-type commit-msg --hook-type pre-push >/dev/null ;;
  husky) "$NODE_BIN/husky" >/dev/null ;;
  lefthook) "$NODE_BIN/lefthook" install >/dev/null 2>&1 ;;
  esac
}
# Each manager's documented way to remove it.
mgr_uninstall() {
  case $1 in
  pre-commit) "$PRE_COMMIT" uninstall --hook-type commit-msg --hook-type pre-push >/dev/null ;;
  husky) git config --unset core.hooksPath ;; # and `npm uninstall husky`
  lefthook) "$NODE_BIN/lefthook" uninstall >/dev/null 2>&1 ;;
  esac
}
evolv_install() {
  if [ -n "$(git config core.hooksPath)" ]; then
    "$EVOLV" hooks install --hooks-path >/dev/null
  else
    "$EVOLV" hooks install >/dev/null
  fi
}
evolv_uninstall() { "$EVOLV" hooks uninstall >/dev/null; }

# check STEP MANAGER EVOLV_RUNS(0/1) MANAGER_RUNS(0/1)
check() {
  local step=$1 m=$2 want_evolv=$3 want_mgr=$4 n out code status runs
  n=$(wc -l <"$LOG")
  out=$(git commit --allow-empty -m "not a conventional message" 2>&1)
  code=$?
  if [ $want_evolv = 1 ]; then
    if [ $code -ne 0 ] && grep -q "commit message rejected" <<<"$out"; then ok "$m/$step: git-evolv's hook runs"
    else bad "$m/$step: git-evolv's hook did not run (exit $code): $out"; fi
  else
    if [ $code -eq 0 ]; then ok "$m/$step: git-evolv's hook does not run"
    else bad "$m/$step: a commit was refused though git-evolv should be gone (exit $code): $out"; fi
    git reset -q --soft HEAD~1 2>/dev/null
  fi
  if [ $want_mgr = 1 ]; then
    if [ "$(wc -l <"$LOG")" -gt "$n" ]; then ok "$m/$step: $m's hook runs"
    else bad "$m/$step: $m's hook did not run"; fi
  else
    if [ "$(wc -l <"$LOG")" -eq "$n" ]; then ok "$m/$step: $m's hook does not run"
    else bad "$m/$step: $m's hook still runs"; fi
  fi
  # A good message passes both.
  n=$(wc -l <"$LOG")
  if git commit -q --allow-empty -m "feat: step $step" >/dev/null 2>&1; then ok "$m/$step: a good message commits"
  else bad "$m/$step: a good message was refused"; fi
  # pre-push: a feature branch, which git-evolv lets through (and reports).
  n=$(wc -l <"$LOG")
  out=$(git push origin "HEAD:refs/heads/topic-$RANDOM$RANDOM" 2>&1)
  code=$?
  if [ $code -ne 0 ]; then bad "$m/$step: the push failed: $out"
  elif [ $want_evolv = 1 ] && ! grep -q "git-evolv pre-push" <<<"$out"; then bad "$m/$step: git-evolv's pre-push did not run"
  elif [ $want_evolv = 0 ] && grep -q "git-evolv pre-push" <<<"$out"; then bad "$m/$step: git-evolv's pre-push still runs"
  else ok "$m/$step: git-evolv's pre-push runs=$want_evolv"; fi
  if [ "$want_mgr" = 1 ] && [ "$(wc -l <"$LOG")" -gt "$n" ]; then ok "$m/$step: $m's pre-push runs"
  elif [ "$want_mgr" = 0 ] && [ "$(wc -l <"$LOG")" -eq "$n" ]; then ok "$m/$step: $m's pre-push does not run"
  else bad "$m/$step: $m's pre-push ran: $((1 - want_mgr)), expected $want_mgr"; fi
  status=$("$EVOLV" hooks status --json)
  runs=$(python3 -c 'import json,sys; h=[h for h in json.load(sys.stdin)["hooks"] if h["name"]=="commit-msg"][0]; print(int(h.get("runs", -1)), h["state"])' <<<"$status")
  if [ "${runs%% *}" = "$want_evolv" ]; then ok "$m/$step: status says ${runs#* } (runs=${runs%% *})"
  else bad "$m/$step: status says ${runs#* } (runs=${runs%% *}), expected runs=$want_evolv"; fi
}

# The binaries are what they were before any manager ran.
check_binaries() {
  if [ "$(binaries_sum)" = "$BINARIES_SUM" ]; then ok "$1: git-evolv and git-evolv-hook are unchanged"
  else bad "$1: git-evolv or git-evolv-hook was changed"; fi
}

# The manager installed again over git-evolv's hook: pre-commit keeps it,
# the others replace it, and git-evolv's own install puts it back.
mgr_reinstall() { # manager
  local m=$1
  mgr_install "$m"
  case $m in
  pre-commit) check "$m re-installed" "$m" 1 1 ;;
  *) check "$m re-installed (replaced git-evolv's hook)" "$m" 0 1
     evolv_install; check "git-evolv installed after $m's re-install" "$m" 1 1 ;;
  esac
}

scenario() { # manager
  local m=$1
  echo "== $m: git-evolv first"
  new_repo "$m"
  evolv_install; check "evolv installed" "$m" 1 0
  if [ -f .git/hooks/commit-msg ] && [ ! -L .git/hooks/commit-msg ] && cmp -s .git/hooks/commit-msg "$HOOK_BIN"; then
    ok "$m: the installed commit-msg hook is a copy of git-evolv-hook"
  else bad "$m: the installed commit-msg hook is not a copy of git-evolv-hook"; fi
  mgr_install "$m"
  case $m in
  husky) check "husky installed (core.hooksPath hides git-evolv)" "$m" 0 1 ;;
  lefthook) check "lefthook installed (moved git-evolv to .old)" "$m" 0 1 ;;
  *) check "$m installed" "$m" 1 1 ;;
  esac
  evolv_install; check "git-evolv installed again" "$m" 1 1
  evolv_install; check "git-evolv installed a third time" "$m" 1 1
  mgr_reinstall "$m"
  evolv_uninstall; check "git-evolv uninstalled" "$m" 0 1
  evolv_install; check "git-evolv installed back" "$m" 1 1
  mgr_uninstall "$m"
  case $m in
  husky) check "husky uninstalled (git-evolv's default-folder hook runs again)" "$m" 1 0 ;;
  *) check "$m uninstalled" "$m" 1 0 ;;
  esac
  evolv_uninstall; check "both uninstalled" "$m" 0 0

  echo "== $m: $m first"
  new_repo "$m"
  mgr_install "$m"; check "$m installed" "$m" 0 1
  evolv_install; check "git-evolv installed" "$m" 1 1
  evolv_install; check "git-evolv installed again" "$m" 1 1
  mgr_reinstall "$m"
  mgr_uninstall "$m"
  case $m in
  husky) check "husky uninstalled (git-evolv's default-folder hook runs)" "$m" 1 0 ;;
  *) check "$m uninstalled" "$m" 1 0 ;;
  esac
  mgr_install "$m"
  evolv_install; check "both installed again" "$m" 1 1
  evolv_uninstall; check "git-evolv uninstalled" "$m" 0 1
  check_binaries "$m"
}

# Every file of the hooks folders (name, mode, bytes) and the config.
hooks_snapshot() {
  { find .git/hooks .husky/_ -maxdepth 1 -type f -exec sha256sum {} + 2>/dev/null
    find .git/hooks .husky/_ -maxdepth 1 -printf '%m %p\n' 2>/dev/null
    cat .git/config; } | sort | sha256sum
}

# Files of git-evolv's (its marker, a copy of git-evolv-hook, a chained hook) in a folder.
ours_in() { # folder
  local f
  for f in "$1"/*; do
    [ -f "$f" ] || continue
    case $f in *.evolv-chained) echo "$f"; continue ;; esac
    if grep -q "git-evolv managed hook" "$f" || cmp -s "$f" "$HOOK_BIN"; then echo "$f"; fi
  done
}

# Runs each command `hooks status` advises, exactly as printed (git-evolv
# found on PATH as `git evolv`, as users run it).
follow_advice() { # step
  local cmds cmd
  cmds=$("$EVOLV" hooks status --json | python3 -c 'import json, re, sys
seen = []
for h in json.load(sys.stdin)["hooks"]:
    for n in h.get("notes", []):
        for c in re.findall(r"`(git [^`]*)`", n):
            if c not in seen:
                seen.append(c)
print("\n".join(seen))')
  [ -n "$cmds" ] || { bad "$1: status gave no advice"; return; }
  while IFS= read -r cmd; do
    if PATH="$(dirname "$EVOLV"):$PATH" sh -c "$cmd" >/dev/null 2>&1; then ok "$1: followed status's advice \`$cmd\`"
    else bad "$1: status's advice \`$cmd\` failed when followed"; fi
  done <<<"$cmds"
}

# Issue 25 item 16: husky's documented removal, then git-evolv's uninstall.
scenario_husky_removed_first() {
  local m=husky left
  echo "== husky: install --hooks-path, husky removed (core.hooksPath unset), then git-evolv uninstalled"
  new_repo $m
  mgr_install $m
  evolv_install; check "git-evolv installed with --hooks-path" $m 1 1
  mgr_uninstall $m; check "husky removed" $m 1 0
  evolv_uninstall; check "git-evolv uninstalled" $m 0 0
  left=$(ours_in .husky/_; ours_in .git/hooks)
  if [ -z "$left" ]; then ok "$m: nothing of git-evolv's is left in .husky/_ or .git/hooks"
  else bad "$m: git-evolv's files are left: $left"; fi
  git config core.hooksPath .husky/_
  check "core.hooksPath back on (husky's hooks run, git-evolv's do not)" $m 0 1
  check_binaries "$m removed first"
}

# Issue 25 item 17: lefthook -> git-evolv -> husky -> install --hooks-path
# -> `lefthook install --force`; a refused install changes nothing, and the
# advice status gives works when followed.
scenario_lefthook_forced_over_husky() {
  local m=lefthook before code
  echo "== lefthook, git-evolv, husky, git-evolv --hooks-path, then lefthook install --force"
  new_repo $m
  mkdir .husky && printf 'echo husky >> "$LOG"\n' >.husky/commit-msg
  printf 'echo husky-push >> "$LOG"\n' >.husky/pre-push
  git add -A && git commit -q --no-verify -m "chore: husky"
  mgr_install $m; check "lefthook installed" $m 0 1
  evolv_install; check "git-evolv installed" $m 1 1
  mgr_install husky; check "husky installed (core.hooksPath hides both)" husky 0 1
  evolv_install; check "git-evolv installed with --hooks-path" husky 1 1
  "$NODE_BIN/lefthook" install --force >/dev/null 2>&1
  check "lefthook install --force (moved git-evolv's hook to .old)" $m 0 1
  before=$(hooks_snapshot)
  "$EVOLV" hooks install >/dev/null 2>&1; code=$?
  if [ $code -eq 2 ] && [ "$(hooks_snapshot)" = "$before" ]; then ok "$m: the refused plain install changed nothing"
  else bad "$m: plain install exited $code, or changed the hooks folders or the config"; fi
  follow_advice "$m: after lefthook install --force"
  check "status's advice followed" $m 1 1
  evolv_uninstall; check "git-evolv uninstalled" $m 0 1
  if [ -z "$(ours_in .husky/_; ours_in .git/hooks)" ]; then ok "$m: nothing of git-evolv's is left"
  else bad "$m: git-evolv's files are left: $(ours_in .husky/_; ours_in .git/hooks)"; fi
  check_binaries "$m forced over husky"
}

if [ $have_pre_commit = 1 ]; then scenario pre-commit; else skip "pre-commit: PyPI could not be reached (see $TOOLS/pip.log)"; fi
if [ $have_npm = 1 ]; then
  scenario husky
  scenario lefthook
  scenario_husky_removed_first
  scenario_lefthook_forced_over_husky
else
  skip "husky, lefthook: the npm registry could not be reached"
fi

echo "managers: $passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
