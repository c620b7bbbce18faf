#!/usr/bin/env bash
# Builds the real-code repository of issue 14 from the crates cargo has
# unpacked ($CARGO_HOME/registry/src: this project's dependency sources,
# libgit2's C sources included), so anyone can reproduce the figures:
#
#   scripts/gen_real_repo.sh DIR
#
# One commit of every file under the registry's source folders (each
# crate's own .git, if any, left out), garbage-collected into one pack as a
# clone would be. Its size depends on which crates this machine unpacked:
# the benchmarks report the file count they ran on.
set -euo pipefail
DIR=${1:?usage: gen_real_repo.sh DIR}
SRC=${CARGO_HOME:-$HOME/.cargo}/registry/src
[ -d "$SRC" ] || { echo "no unpacked crates under $SRC: run cargo build first" >&2; exit 2; }
git init -q -b main "$DIR"
# Copy rather than add in place: the registry is cargo's, never written.
(cd "$SRC" && find . -type f ! -path '*/.git/*' -print0 | tar --null -T - -cf -) | tar -xf - -C "$DIR"
cd "$DIR"
# No automatic gc in the background: it would hold gc.pid against ours.
git config gc.auto 0
git add -A -f .
git -c user.name=Bench -c user.email=bench@example.com commit -q -m "cargo registry sources"
git gc -q
echo "real-code repository: $(git ls-files | wc -l) files in $DIR" >&2
