# Sourced by the many-writer scripts: a release git-evolv copied into a
# fresh $WORK (a rebuild meanwhile does not change it under a long run;
# EVOLV_BIN=path runs an already built binary), $BIN naming it, and git
# sealed from the user's configuration. KEEP=1 keeps $WORK.
[ -n "${EVOLV_BIN:-}" ] || cargo build --release --quiet --locked
WORK=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] || rm -rf "$WORK"' EXIT
cp "${EVOLV_BIN:-target/release/git-evolv}" "$WORK/git-evolv"
BIN=$WORK/git-evolv
export HOME=$WORK GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=$WORK/.gitconfig TZ=UTC LC_ALL=C
git config --global user.name "Concurrency"
git config --global user.email c@example.com
git config --global init.defaultBranch main
