#!/usr/bin/env bash
# Checks the release archive scripts/release_archive.sh builds for the host
# (issue 29, item 2): the exact file list, the checksum file, and that what
# it holds works: both binaries run from the unpacked folder and agree on
# the version, every man page is one `man` renders without a warning, every
# completion script names the subcommands, the debug information is split
# into its own archive that gives backtraces file:line, and the shipped
# git-evolv of a release build is at most 20 MB.
#
# Usage: scripts/test_release_archive.sh [--bin-dir DIR]
#   without --bin-dir: a release build (the binaries users get, size checked);
#   with it: the binaries in DIR (the layout and contents; the size only
#   with CHECK_SIZE=1).
set -euo pipefail
cd "$(dirname "$0")/.."
bin_dir=""
[ "${1:-}" = "--bin-dir" ] && bin_dir="$2"

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
passed=0 failed=0
check() { # check DESCRIPTION COMMAND...
  local what="$1"; shift
  if "$@" >"$out/log" 2>&1; then passed=$((passed + 1)); echo "ok: $what"
  else failed=$((failed + 1)); echo "FAILED: $what"; sed 's/^/  /' "$out/log"; fi
}

args=(--out "$out/dist")
[ -n "$bin_dir" ] && args+=(--bin-dir "$bin_dir")
archive="$(scripts/release_archive.sh "${args[@]}")"
name="$(basename "$archive" .tar.gz)"
version="$(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)"
host="$(rustc -vV | sed -n 's/^host: //p')"

check "archive named git-evolv-<version>-<host target>" test "$name" = "git-evolv-$version-$host"
sumcheck() { (cd "$out/dist" && if command -v sha256sum >/dev/null; then sha256sum -c "$1"; else shasum -a 256 -c "$1"; fi); }
check "the .sha256 file verifies the archive" sumcheck "$name.tar.gz.sha256"
check "the .sha256 file names the archive alone" sh -c \
  "[ \"\$(wc -l <'$archive.sha256')\" = 1 ] && grep -q '^[0-9a-f]\{64\}  $name.tar.gz\$' '$archive.sha256'"

mkdir -p "$out/x" && tar -C "$out/x" -xzf "$archive"
root="$out/x/$name"
pages="$("$root/git-evolv" install-man --prefix "$out/p" --json | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["pages"]))')"
expected() {
  printf '%s\n' git-evolv git-evolv-hook README.md LICENSE-MIT LICENSE-APACHE \
    complete/git-evolv.bash complete/_git-evolv complete/git-evolv.fish \
    complete/git-evolv.elv complete/_git-evolv.ps1
  (cd "$out/p/share" && ls man/man1/*.1)
}
check "the archive holds one folder, $name/" sh -c "[ \"\$(ls '$out/x')\" = '$name' ]"
check "the archive holds exactly the binaries, $pages man pages, 5 completions, README and licences" \
  diff <(expected | sort) <(cd "$root" && find . -type f | sed 's|^\./||' | sort)
check "git-evolv from the archive prints the version" sh -c "'$root/git-evolv' --version | grep -qx 'git-evolv $version'"
check "git-evolv-hook from the archive runs" sh -c "'$root/git-evolv-hook' --version | grep -q '$version'"
check "the binaries are executable by everyone" sh -c "ls -l '$root/git-evolv' '$root/git-evolv-hook' | cut -c10 | grep -qvx x && exit 1; true"
check "README and licences are the repository's" sh -c "cmp README.md '$root/README.md' && cmp LICENSE-MIT '$root/LICENSE-MIT' && cmp LICENSE-APACHE '$root/LICENSE-APACHE'"
if command -v man >/dev/null && man --help 2>&1 | grep -q -- --warnings; then
  check "every man page renders without a warning" sh -c \
    "for p in '$root'/man/man1/*.1; do MANWIDTH=100 man --warnings -l \"\$p\" 2>&1 >/dev/null | grep . && exit 1; done; true"
fi
for f in git-evolv.bash _git-evolv git-evolv.fish git-evolv.elv _git-evolv.ps1; do
  check "complete/$f names the apply and rollback subcommands" sh -c "grep -q apply '$root/complete/$f' && grep -q rollback '$root/complete/$f'"
done
check "the bash completion defines git's _git_evolv" grep -q '_git_evolv' "$root/complete/git-evolv.bash"
check "bash loads the bash completion" bash -c "source '$root/complete/git-evolv.bash'"
# The debug information, split off: its own archive and checksum, and
# unpacked beside the binary it gives file:line back.
debug="$out/dist/$name-debug.tar.gz"
if [ -f "$debug" ]; then
  check "the -debug archive's .sha256 verifies it" sumcheck "$name-debug.tar.gz.sha256"
  check "the shipped git-evolv has no debug sections" sh -c "! objdump -h '$root/git-evolv' | grep -Eq '[.]debug_(info|line|str) '"
  check "the shipped git-evolv keeps its symbols (backtraces name functions)" sh -c "nm -C '$root/git-evolv' | grep -q ' git_evolv::cli::run\$'"
  tar -C "$out/x" -xzf "$debug"
  check "the -debug archive holds git-evolv.debug or git-evolv.dSYM, unpacked beside git-evolv" \
    sh -c "[ -s '$root/git-evolv.debug' ] || [ -d '$root/git-evolv.dSYM' ]"
  # std's backtraces follow .gnu_debuglink as addr2line does.
  resolves() {
    local addr
    addr="$(nm -C "$root/git-evolv" | awk '$3 == "git_evolv::cli::run" {print $1; exit}')"
    [ -n "$addr" ] && addr2line -e "$root/git-evolv" "0x$addr" | tee /dev/stderr | grep -q 'src/cli/.*\.rs:[0-9]'
  }
  if [ -s "$root/git-evolv.debug" ] && command -v addr2line >/dev/null; then
    check "with it, git-evolv's code resolves to file:line" resolves
  fi
fi
if [ -z "$bin_dir" ] || [ -n "${CHECK_SIZE:-}" ]; then
  size=$(wc -c <"$root/git-evolv" | tr -d ' ')
  hook=$(wc -c <"$root/git-evolv-hook" | tr -d ' ')
  echo "sizes: git-evolv $size bytes, git-evolv-hook $hook bytes, archive $(wc -c <"$archive" | tr -d ' ') bytes"
  check "the shipped git-evolv is at most 20 MB ($size bytes)" test "$size" -le 20000000
  check "git-evolv-hook stays under 6 MB ($hook bytes)" test "$hook" -le 6000000
fi
echo "release archive: $passed passed, $failed failed"
[ "$failed" = 0 ]
