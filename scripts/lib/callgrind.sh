# Sourced by the benchmark scripts: `count CMD...` prints the instructions
# (valgrind callgrind) of CMD and every process it starts, summed; its
# output files go to $WORK, which the caller creates and removes.
count() {
  rm -f "$WORK"/cg.*
  valgrind --tool=callgrind --trace-children=yes --callgrind-out-file="$WORK/cg.%p" "$@" >/dev/null 2>&1
  local total=0 n
  for f in "$WORK"/cg.*; do
    n=$(callgrind_annotate "$f" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}')
    total=$((total + ${n:-0}))
  done
  echo "$total"
}
