#!/usr/bin/env bash
# Builds a git bundle of real history for the `propose --patch` round-trip
# test (issue 30 item 3): the first-parent commits FROM..TO of a public
# repository, replayed with their own trees, messages and authors onto one
# root commit holding FROM's tree. The trees are the project's own, so each
# commit's diff against its parent is the real one; only the history before
# FROM is left out, which keeps the bundle small and self-contained.
#
#   scripts/make_history_fixture.sh REPO FROM TO OUT.bundle
set -euo pipefail
repo=$1 from=$2 to=$3 out=$4
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q --bare --no-local "$repo" "$work/src.git"
export GIT_DIR="$work/src.git"
commit() { # TREE PARENT COMMIT-TO-COPY-METADATA-FROM
    local meta=$3
    GIT_AUTHOR_NAME=$(git log -1 --format=%an "$meta") \
    GIT_AUTHOR_EMAIL=$(git log -1 --format=%ae "$meta") \
    GIT_AUTHOR_DATE=$(git log -1 --format=%aD "$meta") \
    GIT_COMMITTER_NAME=$(git log -1 --format=%cn "$meta") \
    GIT_COMMITTER_EMAIL=$(git log -1 --format=%ce "$meta") \
    GIT_COMMITTER_DATE=$(git log -1 --format=%cD "$meta") \
    git commit-tree "$1" ${2:+-p "$2"} -F <(git log -1 --format=%B "$meta")
}
head=$(commit "$(git rev-parse "$from^{tree}")" "" "$from")
for c in $(git rev-list --reverse --first-parent "$from..$to"); do
    head=$(commit "$(git rev-parse "$c^{tree}")" "$head" "$c")
done
git update-ref refs/heads/main "$head"
git bundle create "$out" refs/heads/main
echo "$(git rev-list --count "$head") commits, $(du -h "$out" | cut -f1): $out"
