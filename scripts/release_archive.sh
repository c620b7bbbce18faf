#!/usr/bin/env bash
# The release archive of one target, as .github/workflows/release.yml ships
# it and .ci/run checks it (scripts/test_release_archive.sh):
#
#   git-evolv-<version>-<target>.tar.gz          (a .zip is never made: no Windows build)
#     git-evolv-<version>-<target>/
#       git-evolv  git-evolv-hook                both binaries, side by side
#                                                (`hooks install` copies the hook from there)
#       man/man1/git-evolv*.1                    one page per subcommand
#       complete/git-evolv.bash _git-evolv git-evolv.fish git-evolv.elv _git-evolv.ps1
#       README.md  LICENSE-MIT  LICENSE-APACHE
#   git-evolv-<version>-<target>.tar.gz.sha256   "<hex>  <archive name>", as sha256sum -c reads it
#   git-evolv-<version>-<target>-debug.tar.gz    git-evolv.debug (ELF) or git-evolv.dSYM (macOS):
#     (and its .sha256)                          the line tables, split off (see below)
#
# Usage: scripts/release_archive.sh [--target TRIPLE] [--out DIR] [--bin-dir DIR]
#   --target   build for TRIPLE (default: the host's, from `rustc -vV`)
#   --out      where the archive and its .sha256 go (default: target/dist)
#   --bin-dir  package the two binaries already built there instead of
#              building them (`cargo build --locked --release --bins`, with
#              line tables); binaries with debug sections are split either way
# The man pages and completions come from the packaged git-evolv itself, so
# they match it; for a target the host cannot run, set EVOLV_GEN_BIN to a
# host build of the same commit. Prints the archive's path on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."

target="" out="target/dist" bin_dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --target) target="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --bin-dir) bin_dir="$2"; shift 2 ;;
    *) echo "release_archive.sh: unknown argument '$1' (see the usage at the top of the script)" >&2; exit 2 ;;
  esac
done
[ -n "$target" ] || target="$(rustc -vV | sed -n 's/^host: //p')"
version="$(sed -n '/^\[workspace.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)"
[ -n "$version" ] || { echo "release_archive.sh: no version in [workspace.package] of Cargo.toml" >&2; exit 2; }

if [ -z "$bin_dir" ]; then
  # Line tables, not stripped: split into the debug archive below.
  CARGO_PROFILE_RELEASE_DEBUG=line-tables-only CARGO_PROFILE_RELEASE_STRIP=none \
    cargo build --locked --release --bins --target "$target" >&2
  bin_dir="${CARGO_TARGET_DIR:-target}/$target/release"
fi
for b in git-evolv git-evolv-hook; do
  [ -x "$bin_dir/$b" ] || { echo "release_archive.sh: $bin_dir/$b is missing: build it first, or drop --bin-dir" >&2; exit 2; }
done
gen="${EVOLV_GEN_BIN:-$bin_dir/git-evolv}"

name="git-evolv-$version-$target"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
dir="$stage/$name"
mkdir -p "$dir/complete" "$out"
cp "$bin_dir/git-evolv" "$bin_dir/git-evolv-hook" README.md LICENSE-MIT LICENSE-APACHE "$dir/"
# install-man writes <prefix>/share/man/man1; the archive keeps man/man1.
"$gen" install-man --prefix "$stage/prefix" >/dev/null 2>&1
mv "$stage/prefix/share/man" "$dir/man"
"$gen" completions bash >"$dir/complete/git-evolv.bash"
"$gen" completions zsh >"$dir/complete/_git-evolv"
"$gen" completions fish >"$dir/complete/git-evolv.fish"
"$gen" completions elvish >"$dir/complete/git-evolv.elv"
"$gen" completions powershell >"$dir/complete/_git-evolv.ps1"

# The debug information goes apart, into <name>-debug.tar.gz: ELF binaries
# keep their symbols and get a .gnu_debuglink to git-evolv.debug, which
# std's backtraces (and gdb, addr2line) read when it sits beside the
# binary; macOS builds come with git-evolv.dSYM, which is moved there.
debug_dir="$stage/$name-debug/$name"
mkdir -p "$debug_dir"
if command -v objcopy >/dev/null && objdump -h "$dir/git-evolv" 2>/dev/null | grep -q '\.debug_line'; then
  objcopy --only-keep-debug "$dir/git-evolv" "$debug_dir/git-evolv.debug"
  objcopy --strip-debug --add-gnu-debuglink="$debug_dir/git-evolv.debug" "$dir/git-evolv"
elif [ -d "$bin_dir/git-evolv.dSYM" ]; then
  cp -R "$bin_dir/git-evolv.dSYM" "$debug_dir/"
fi

pack() { # pack FOLDER-PARENT NAME ARCHIVE: a reproducible .tar.gz and its .sha256
  tar_cmd "$1" "$2" | gzip -n -9 >"$3"
  (cd "$(dirname "$3")" && if command -v sha256sum >/dev/null; then sha256sum "$(basename "$3")"; else shasum -a 256 "$(basename "$3")"; fi) >"$3.sha256"
}
archive="$out/$name.tar.gz"
# Same bytes for the same inputs: sorted names, no owner, a fixed mtime.
# GNU tar (gtar on macOS, where the runners have it); bsdtar without those.
mtime="$(git log -1 --format=%ct 2>/dev/null || echo 0)"
tar=tar; command -v gtar >/dev/null && tar=gtar
tar_cmd() {
  if "$tar" --version 2>/dev/null | grep -q GNU; then
    "$tar" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$mtime" -C "$1" -cf - "$2"
  else
    "$tar" -C "$1" -cf - "$2"
  fi
}
pack "$stage" "$name" "$archive"
if [ -n "$(ls "$debug_dir")" ]; then
  pack "$stage/$name-debug" "$name" "$out/$name-debug.tar.gz"
fi
echo "$archive"
