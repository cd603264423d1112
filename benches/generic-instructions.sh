#!/bin/sh
# Schema-driven codecs beside their peers by instruction count: each case of
# examples/generic_peer_loop.rs alone under callgrind, counting only its
# timed loop (`timed`, ITERS operations, drops included), divided by ITERS.
# Prints one Markdown table on stdout:
#
#     benches/generic-instructions.sh [DOC...] > results/generic-instructions.md
#
# DOCs are fixtures/data/*.json names and `catalog` (default: all of them).
# Ratio = peer ÷ ours (> 1: ours runs fewer instructions); on the catalog the
# `special` column is the specialised codec and `ours/special` its ratio the
# other way round (< 2 meets the within-2× target). Machine load does not
# move these counts; they leave out cache misses and memory stalls.
# BIN overrides the binary (to count another build).
set -eu
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "generic-instructions: needs valgrind (apt install valgrind)" >&2; exit 2; }
if [ -z "${BIN:-}" ]; then
  cargo build --quiet --release --example generic_peer_loop
  BIN=target/release/examples/generic_peer_loop
fi
ITERS=${ITERS:-3}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
if [ $# -eq 0 ]; then
  set -- $(ls fixtures/data/*.json | sed 's#.*/##; s#\.json$##') catalog
fi

# count DOC SIDE FORMAT OP -> instructions per operation
count() {
  f="$OUT/cg.$1.$2.$3.$4"
  valgrind --tool=callgrind --callgrind-out-file="$f" --toggle-collect='*timed*' \
    "$BIN" "$1" "$2" "$3" "$4" "$ITERS" >/dev/null 2>&1 || { echo "?"; return; }
  callgrind_annotate "$f" 2>/dev/null | awk -v n="$ITERS" '
    /PROGRAM TOTALS/ { gsub(",", "", $1); printf "%d\n", $1 / n }'
}

echo "| doc | format | op | ours | peer | peer/ours | special | ours/special |"
echo "|---|---|---|---:|---:|---:|---:|---:|"
for doc in "$@"; do
  for fmt in json msgpack avro protobuf flatbuffers; do
    for op in encode decode; do
      ours=$(count "$doc" ours "$fmt" "$op")
      peer="—"; pr="—"; sp="—"; sr="—"
      if [ "$fmt" != flatbuffers ]; then
        peer=$(count "$doc" peer "$fmt" "$op")
        pr=$(awk -v a="$peer" -v b="$ours" 'BEGIN { printf "%.2f", a / b }')
      fi
      if [ "$doc" = catalog ]; then
        sp=$(count "$doc" special "$fmt" "$op")
        sr=$(awk -v a="$ours" -v b="$sp" 'BEGIN { printf "%.2f", a / b }')
      fi
      echo "| $doc | $fmt | $op | $ours | $peer | $pr | $sp | $sr |"
    done
  done
done
