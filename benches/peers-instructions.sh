#!/bin/sh
# Peer comparisons by instruction count: each case of benches/peers.rs alone
# under callgrind, counting only the timed loop (wirebench::bench::time_n:
# calibration n = 1 and one batch n = 1 at --benchtime 1ms, so two
# operations, each including the drop of what a decode built). Prints
# results/peers-instructions.md on stdout:
#
#     benches/peers-instructions.sh > results/peers-instructions.md
#
# With `instrument`, the instrument's overhead the same way instead: a decode
# timed by `wirebench codec-bench` (counting allocator installed, switched
# off while timing) beside the same harness and loop under plain System
# (the peers binary's --system-child), each in a fresh process:
#
#     benches/peers-instructions.sh instrument > results/instrument.md
#
# Machine load does not move these counts. They leave out cache misses and
# memory stalls, so they bound what a timing can show rather than replace it.
# The malloc columns are the instructions glibc's allocator itself ran
# (every function of malloc.c), the floor both sides of an owned decode share.
set -eu
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "peers-instructions: needs valgrind (apt install valgrind)" >&2; exit 2; }
cargo bench --quiet --bench peers --no-run 2>/dev/null
BIN=$(ls -t target/release/deps/peers-* | grep -v '\.d$' | head -n 1)
N=1000
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

# count FORMAT CASE -> "total malloc" instructions per operation
count() {
  f="$OUT/cg.$(echo "$2" | tr '/' '_')"
  valgrind --tool=callgrind --callgrind-out-file="$f" --toggle-collect='wirebench::bench::time_n*' \
    "$BIN" --only "$1" --case "$2" --benchtime 1ms --count 1 >/dev/null 2>&1
  callgrind_annotate "$f" 2>/dev/null | awk '
    /PROGRAM TOTALS/ { gsub(",", "", $1); total = $1 }
    /malloc\/malloc\.c:/ { gsub(",", "", $1); m += $1 }
    END { printf "%d %d\n", total / 2, m / 2 }'
}

# timed NAME COMMAND... -> instructions in the timed loop (all of time_n)
timed() {
  f="$OUT/cg.instrument.$1"
  shift
  valgrind --tool=callgrind --callgrind-out-file="$f" --toggle-collect='wirebench::bench::time_n*' "$@" >/dev/null 2>&1
  callgrind_annotate "$f" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }'
}

if [ "${1:-}" = instrument ]; then
  cargo build --quiet --release --bin wirebench
  cat <<EOF
# Instrument overhead, in instructions

The timed loop of a 1,000-product decode, counted by callgrind (machine load
does not move it) in two fresh processes with the same setup before the row:

- \`wirebench codec-bench\`: the counting allocator installed, counting
  switched off while timing (what \`make bench-codec\` measures);
- the peers bench binary's \`--system-child\`: the same harness
  (\`bench::bench\`) and loop under plain \`System\`.

Only \`wirebench::bench::time_n\` (the timed loop, never inlined) is counted:
calibration (n = 1 at \`--benchtime 1ms\` under callgrind) and the one
measured batch, two decodes in each process. Produced by:

    benches/peers-instructions.sh instrument > results/instrument.md

Commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src benches Cargo.toml || echo ' (with uncommitted changes)').

| decode, 1,000 products | codec-bench (counting off) | plain System | codec-bench ÷ System |
|---|---|---|---|
EOF
  for fmt in json msgpack avro protobuf flatbuffers; do
    cb=$(timed "cb.$fmt" target/release/wirebench codec-bench --formats "$fmt" --counts $N \
      --filter "Decode/$fmt/$N" --benchtime 1ms --count 1 --out - --env none)
    sys=$(timed "sys.$fmt" "$BIN" --system-child "$fmt" --counts $N --benchtime 1ms)
    awk -v f="$fmt" -v a="$cb" -v b="$sys" 'BEGIN { printf "| %s | %.0f | %.0f | %.3f |\n", f, a, b, a / b }'
  done
  cat <<'EOF'

With counting off, each allocator call costs a relaxed load and a predicted
branch before `System`; the two binaries differ in inlining and code layout,
(and glibc's heap starts each process from a different history), which moves a count by a few percent either way. The time-based rows in
`peers.txt` compare the same two processes by wall clock.
EOF
  exit 0
fi


cat <<EOF
# Peers by instruction count

Instructions per operation at 1,000 products, counted by callgrind in the
binary \`make bench-peers\` runs (release profile of \`Cargo.toml\`), one case
at a time (\`--case\`), counting only the timed loop. Machine load does not
move these counts; time is not instructions (cache misses and memory stalls
are not counted), but a ratio that holds here is no artefact of a busy
machine. "malloc" is the share glibc's allocator ran (every function of
\`malloc.c\`): for an owned decode it is the floor both sides share, since
both build the same strings and lists. Produced by:

    benches/peers-instructions.sh > results/peers-instructions.md

Commit: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src benches Cargo.toml || echo ' (with uncommitted changes)').
Ratio = peer instructions ÷ ours (> 1: ours runs fewer).

| ours | instructions | of which malloc | peer path | instructions | of which malloc | ratio | without malloc | target (time) |
|---|---|---|---|---|---|---|---|---|
EOF

# row FORMAT OURS_CASE PEER_CASE "peer path" "target"
row() {
  set -- "$1" "$2" "$3" "$4" "$5" $(count "$1" "$2") $(count "$1" "$3")
  awk -v oc="$2" -v pp="$4" -v tg="$5" -v o="$6" -v om="$7" -v p="$8" -v pm="$9" 'BEGIN {
    printf "| `%s` | %.2fM | %.2fM | %s | %.2fM | %.2fM | %.2f× | %.2f× | %s |\n",
      oc, o / 1e6, om / 1e6, pp, p / 1e6, pm / 1e6, p / o, (p - pm) / (o - om), tg }'
}

row json "Encode/json/$N/ours" "Encode/json/$N/serde_json" 'serde_json `to_writer`' '≥ 2×'
row json "Encode/json/$N/ours" "Encode/json/$N/sonic_rs" 'sonic-rs `to_writer`' '≥ 1.5× (fastest)'
row json "Encode/json/$N/ours" "Encode/json/$N/simd_json" 'simd-json `to_writer`' '—'
row json "Decode/json/$N/ours" "Decode/json/$N/serde_json" 'serde_json `from_slice`' '—'
row json "Decode/json/$N/ours" "Decode/json/$N/sonic_rs" 'sonic-rs `from_slice`' '≥ 1.25× (fastest)'
row json "Decode/json/$N/ours" "Decode/json/$N/simd_json" 'simd-json copy + `from_slice_with_buffers`' '—'
row msgpack "Encode/msgpack/$N/ours" "Encode/msgpack/$N/rmp_serde" 'rmp-serde `write_named`' '≥ 4×'
row msgpack "Decode/msgpack/$N/ours" "Decode/msgpack/$N/rmp_serde" 'rmp-serde `from_slice`' '≥ 1.5×'
row avro "Encode/avro/$N/ours" "Encode/avro/$N/apache_avro_serde" 'apache-avro `write_ser`' '≥ 8×'
row avro "Decode/avro/$N/ours" "Decode/avro/$N/apache_avro_serde" 'apache-avro `read_deser`' '≥ 1.5×'
row protobuf "Encode/protobuf/$N/ours" "Encode/protobuf/$N/prost_from_domain" 'prost from our types' '≥ 2.5×'
row protobuf "Encode/protobuf/$N/ours" "EncodePrebuilt/protobuf/$N/prost" 'prost, prebuilt messages' '≥ 0.83× (ours ≤ 1.2× theirs)'
row protobuf "Decode/protobuf/$N/ours" "Decode/protobuf/$N/prost_to_domain" 'prost + conversion' '≥ 1×'
row protobuf "Decode/protobuf/$N/ours" "DecodeGenerated/protobuf/$N/prost" 'prost, generated types only' '—'
row flatbuffers "Encode/flatbuffers/$N/ours" "Encode/flatbuffers/$N/crate_direct" 'flatbuffers crate, reused builder' '≥ 1×'
row flatbuffers "Decode/flatbuffers/$N/ours" "Decode/flatbuffers/$N/crate_direct" 'flatbuffers crate, `root_as_catalog` + copy' '≥ 1×'

cat <<'EOF'

The apache-avro `Value` paths (several times slower than its serde path in
`peers.txt`) are not counted here.
EOF
