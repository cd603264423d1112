#!/usr/bin/env bash
# What one /ping request costs in user space when every connection has its
# own thread and the threads take turns on one core: instructions and
# simulated cache misses per request, wirebench beside the floor server
# (examples/floor_server.rs) and the floor server's `http` mode (`fhttp`:
# the full parse, a Date header, a read timeout), at CONNS connections.
#
#   benches/turn-cost.sh [WIREBENCH_BIN [FLOOR_BIN]]
#   env: CONNS=1000 WARM=5s DURATION=10s PORT=18490 (durations in whole seconds)
#        KEEP=DIR keeps the callgrind dumps and their per-function annotations
#        (DIR/ours.txt, DIR/floor.txt) to see which functions miss
#
# Each server runs under callgrind (pinned to CPU 0, wrk to CPU 1) with
# instrumentation off; one wrk run opens the connections (and the server
# starts its threads) during the first WARM, then instrumentation is on for
# DURATION and off again while wrk goes on, so the window holds requests on
# open connections only. Per request = the run's totals / the `send` calls
# it made (one per /ping response, for both servers). The cache simulation
# models this machine's per-core caches (48 KiB L1d, 2 MiB L2 as the last
# level): with CONNS threads taking turns, a thread's stack, buffers and
# counters are out of the L2 by its next turn, so each cache line its
# request touches is counted as a miss. The kernel's accesses are not
# simulated (they evict still more), so real misses are at least these.
#
# Under callgrind a thread gets about one turn a second, so wirebench
# reformats its Date header on most requests (DateCache::refresh); on a real
# run at tens of thousands of requests/s it does so once a second per thread.
# The script prints that function's share so it can be set aside.
#
# Counts are repeatable on a loaded machine (they do not depend on timing,
# apart from how many requests fit in DURATION). Loopback only.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-$ROOT/target/release/wirebench}
FLOOR=${2:-$ROOT/target/release/examples/floor_server}
CONNS=${CONNS:-1000}
WARM=${WARM:-5s}
DURATION=${DURATION:-10s}
PORT=${PORT:-18490}
for tool in valgrind callgrind_control callgrind_annotate wrk taskset curl; do
    command -v "$tool" >/dev/null 2>&1 || { echo "missing: $tool" >&2; exit 1; }
done
[ -x "$BIN" ] && [ -x "$FLOOR" ] || (cd "$ROOT" && cargo build --release --quiet --bin wirebench --example floor_server)
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
KEEP=${KEEP:-}
OUT=${KEEP:-$(mktemp -d /tmp/wirebench-turn.XXXXXX)}
mkdir -p "$OUT"
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; [ -n "$KEEP" ] || rm -rf "$OUT"' EXIT

secs() { echo "${1%s}"; } # "10s" -> 10 (whole seconds only)

# measure NAME CMD... : prints one line of per-request figures
measure() {
    local name=$1
    shift
    taskset -c 0 valgrind --tool=callgrind --max-threads=$((CONNS + 1000)) --instr-atstart=no \
        --cache-sim=yes --D1=49152,12,64 --LL=2097152,16,64 \
        --callgrind-out-file="$OUT/$name.out" "$@" >"$OUT/$name.log" 2>&1 &
    pid=$!
    local up=
    for _ in $(seq 1 1200); do
        curl -fsS -m 5 -o /dev/null "http://127.0.0.1:$PORT/ping" 2>/dev/null && up=1 && break
        sleep 0.1
    done
    [ -n "$up" ] || { echo "$name did not come up on port $PORT; see its log:" >&2; cat "$OUT/$name.log" >&2; exit 1; }
    # One wrk run: its connections open during the warm-up, so the window
    # counts requests on open connections only, no connects.
    taskset -c 1 wrk -t1 -c"$CONNS" -d"$(($(secs "$WARM") + $(secs "$DURATION") + 2))s" --timeout 10s \
        "http://127.0.0.1:$PORT/ping" >"$OUT/$name.wrk" 2>&1 &
    local wrk=$!
    sleep "$(secs "$WARM")"
    callgrind_control -i on "$pid" >/dev/null
    sleep "$(secs "$DURATION")"
    callgrind_control -i off "$pid" >/dev/null
    callgrind_control -d "$pid" >/dev/null
    wait "$wrk" || true
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    pid=
    local dump
    dump=$(find "$OUT" -name "$name.out.*" | sort | sed -n 1p)
    # Responses: calls to libc's send, summed over every call site.
    local id sends
    # (callgrind names a function once, at its first fn= or cfn= line, then by its number)
    id=$(grep -m1 -oP '^c?fn=\(\K[0-9]+(?=\) send$)' "$dump")
    sends=$(awk -v id="($id)" '$1 == "cfn="id { getline; split($1, a, "="); s += a[2] } END { print s + 0 }' "$dump")
    callgrind_annotate --show=Ir,D1mr,D1mw,DLmr,DLmw "$dump" 2>/dev/null >"$OUT/$name.txt"
    local totals date
    totals=$(grep -m1 'PROGRAM TOTALS' "$OUT/$name.txt" | sed 's/([^)]*)//g; s/,//g')
    date=$({ grep -m1 'DateCache::refresh' "$OUT/$name.txt" || true; } | sed 's/([^)]*)//g; s/,//g' | awk '{print $1}')
    echo "$totals" | awk -v n="$sends" -v name="$name" -v date="${date:-0}" '{
        printf "%-6s requests %d: per request %.0f instructions (%.0f of them Date refreshes), L1d misses %.1f, L2 misses %.1f (%.1f reads + %.1f writes)\n",
            name, n, $1 / n, date / n, ($2 + $3) / n, ($4 + $5) / n, $4 / n, $5 / n }'
}

echo "# /ping at -c$CONNS, $DURATION measured after $WARM of warm-up; callgrind, simulated 48 KiB L1d and 2 MiB L2"
measure ours "$BIN" serve --addr "127.0.0.1:$PORT" --max-count 1000
PORT=$((PORT + 1)) # the first server's socket may still be closing
measure floor "$FLOOR" "127.0.0.1:$PORT" 4096
PORT=$((PORT + 1))
measure fhttp "$FLOOR" "127.0.0.1:$PORT" 4096 http
