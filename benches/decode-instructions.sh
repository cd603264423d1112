#!/bin/sh
# Instructions per decode of the 1,000-product fixture, by callgrind, for the
# example loops of one or more builds side by side: each of
# examples/{decode_loop,view_loop,encode_loop} runs N = 0 and N = 10 times,
# and (count at 10 − count at 0) / 10 is one operation. Machine load does
# not move these counts (they leave out cache misses and stalls).
#
#     benches/decode-instructions.sh DIR...
#
# where each DIR is a checkout whose `cargo build --release --examples` has
# run (e.g. an old commit unpacked by `git archive C | tar -x -C /tmp/old`,
# and this one). Prints a Markdown table, one column per DIR.
set -eu
command -v valgrind >/dev/null || { echo "decode-instructions: needs valgrind" >&2; exit 2; }
[ $# -ge 1 ] || { echo "usage: $0 DIR..." >&2; exit 2; }
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
count() { # BIN FORMAT N -> total instructions
  valgrind --tool=callgrind --callgrind-out-file="$OUT/cg" "$1" "$2" "$3" >/dev/null 2>&1
  callgrind_annotate "$OUT/cg" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }'
}
printf '| loop | format |'
for d in "$@"; do printf ' %s |' "$d"; done
printf '\n|---|---|'
for d in "$@"; do printf -- '---:|'; done
printf '\n'
for loop in decode_loop view_loop encode_loop; do
  for f in json msgpack protobuf avro flatbuffers; do
    printf '| %s | %s |' "$loop" "$f"
    for d in "$@"; do
      bin="$d/target/release/examples/$loop"
      a=$(count "$bin" "$f" 0)
      b=$(count "$bin" "$f" 10)
      printf ' %s |' $(( (b - a) / 10 ))
    done
    printf '\n'
  done
done
