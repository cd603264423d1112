#!/bin/sh
# Two builds of benches/peers.rs interleaved, pinned to one CPU: the old
# build's binary, then the new one's, ROUNDS times, each run `--count 1`, so
# machine drift falls on both sides alike. Prints each Benchmark line
# prefixed with `old` or `new`, then the median ns/op of every case per side
# and new/old.
#
#     benches/peers-ab.sh OLD_DIR NEW_DIR [ROUNDS] [-- PEERS FLAGS...]
#
# OLD_DIR and NEW_DIR are checkouts (e.g. `git archive 4fb1c70 | tar -x -C
# /tmp/old`, and this one); each is built with `cargo bench --bench peers
# --no-run` in place. PIN_CPU (default 1) picks the CPU; BENCHTIME (300ms)
# the time per case; extra flags after `--` go to both binaries (e.g.
# `--only protobuf`).
set -eu
[ $# -ge 2 ] || { echo "usage: $0 OLD_DIR NEW_DIR [ROUNDS] [-- FLAGS...]" >&2; exit 2; }
OLD=$1
NEW=$2
shift 2
ROUNDS=5
if [ $# -ge 1 ] && [ "$1" != "--" ]; then ROUNDS=$1; shift; fi
[ "${1:-}" = "--" ] && shift
PIN=""
command -v taskset >/dev/null && PIN="taskset -c ${PIN_CPU:-1}"
bin() {
  (cd "$1" && cargo bench --quiet --bench peers --no-run 2>/dev/null)
  ls -t "$1"/target/release/deps/peers-* | grep -v '\.d$' | head -n 1
}
OLD_BIN=$(bin "$OLD")
NEW_BIN=$(bin "$NEW")
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
r=0
while [ $r -lt "$ROUNDS" ]; do
  for side in old new; do
    if [ $side = old ]; then b=$OLD_BIN; d=$OLD; else b=$NEW_BIN; d=$NEW; fi
    (cd "$d" && $PIN "$b" --bench --benchtime "${BENCHTIME:-300ms}" --count 1 "$@") |
      grep '^Benchmark' | sed "s/^/$side /" | tee -a "$OUT"
  done
  r=$((r + 1))
done
echo
echo "| case | old median ns/op | new median ns/op | new/old |"
echo "|---|---:|---:|---:|"
awk '{ v[$2 " " $1] = v[$2 " " $1] " " $4; cases[$2] = 1 }
  function median(s,   a, n, i, j, t) {
    n = split(s, a, " ")
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  END { for (c in cases) { o = median(v[c " old"]); n = median(v[c " new"]);
    printf "| %s | %.0f | %.0f | %.3f |\n", c, o, n, (o > 0 ? n / o : 0) } }' "$OUT" | sort
