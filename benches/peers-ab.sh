#!/bin/sh
# Two builds of benches/peers.rs interleaved, pinned to one CPU: the old
# build's binary, then the new one's, ROUNDS times, each run `--count 1`, so
# machine drift falls on both sides alike. Prints each Benchmark line
# prefixed with `old` or `new`, then for every case the median ns/op per
# side, the median of the per-round new/old ratios with its 95% interval,
# and whether the interval shows new within 3% of old (or faster).
#
#     benches/peers-ab.sh OLD_DIR NEW_DIR [ROUNDS] [-- PEERS FLAGS...]
#
# OLD_DIR and NEW_DIR are checkouts (e.g. `git archive 4fb1c70 | tar -x -C
# /tmp/old`, and this one); each is built with `cargo bench --bench peers
# --no-run` in place. PIN_CPU (default 1) picks the CPU; BENCHTIME (300ms)
# the time per case; extra flags after `--` go to both binaries (e.g.
# `--only protobuf`).
#
#     benches/peers-ab.sh --summarize FILE
#
# prints the summary alone, of a FILE of lines saved from an earlier run.
set -eu
summarize_only=""
if [ "${1:-}" = "--summarize" ]; then
  [ $# -eq 2 ] || { echo "usage: $0 --summarize FILE" >&2; exit 2; }
  summarize_only=$2
fi
if [ -z "$summarize_only" ]; then
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
else
  OUT=$summarize_only
fi
echo
# Round i's old and new batches of a case form a pair: drift that lasts
# longer than one round falls on both. The interval is the distribution-free
# 95% interval of the median pair ratio (order statistics of Binomial(n, 1/2));
# "within 3%" needs its upper end at or below 1.03.
echo "| case | old median ns/op | new median ns/op | pairs | new/old (median pair) | 95% interval | verdict |"
echo "|---|---:|---:|---:|---:|---|---|"
awk -v limit=1.03 '
  { k = $2 " " $1; n[k]++; v[k, n[k]] = $4; cases[$2] = 1 }
  function sort(a, m,   i, j, t) {
    for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
  }
  function med(a, m) { return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2 }
  # Largest k with P(Binomial(m, 1/2) < k) <= 0.025: [a_k, a_(m+1-k)] covers the median with >= 95%.
  function lower_rank(m,   k, c, p) {
    c = 0; p = 2 ^ -m; k = 0
    while (k < m) { if (c + p > 0.025) break; c += p; k++; p = p * (m - k + 1) / k }
    return k
  }
  END {
    for (c in cases) {
      m = n[c " old"] < n[c " new"] ? n[c " old"] : n[c " new"]
      if (m == 0) continue
      for (i = 1; i <= m; i++) { o[i] = v[c " old", i]; w[i] = v[c " new", i]; r[i] = (o[i] > 0 ? w[i] / o[i] : 0) }
      sort(o, m); sort(w, m); sort(r, m)
      k = lower_rank(m)
      if (k < 1) { iv = "needs >= 6 rounds"; verdict = "-" }
      else {
        iv = sprintf("%.3f-%.3f", r[k], r[m + 1 - k])
        verdict = r[m + 1 - k] < 1 ? "faster" : (r[m + 1 - k] <= limit ? "within 3%" : "not shown")
      }
      printf "| %s | %.0f | %.0f | %d | %.3f | %s | %s |\n", c, med(o, m), med(w, m), m, med(r, m), iv, verdict
    }
  }' "$OUT" | sort
