#!/usr/bin/env bash
# What each part of HTTP costs the design's floor at -c1000: the floor
# server (examples/floor_server.rs) bare, with one part each (parse, date,
# timeout), with all three (http), beside wirebench and nginx (one
# worker), warm, interleaved, ROUNDS rounds; server on core SERVER_CPU,
# wrk on core WRK_CPU. Each case: a fresh server, a 2 s wrk run to open the
# connections and start the threads, then the measured run. Prints every
# case's line (benches/server-pressure.py case), then per server the median
# over rounds of its requests/s over the bare floor's, the http mode's and
# nginx's of the same round, with the median's distribution-free 95%
# interval.
#
#   benches/floor-parts.sh
#   env: ROUNDS=8 DURATION=5s CONNS=1000 PORT=18096 SERVER_CPU=0 WRK_CPU=1 OUT=dir
#
# Loopback only; wrk and nginx as benches/server-pressure.sh installs them.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=${ROUNDS:-8}
DURATION=${DURATION:-5s}
CONNS=${CONNS:-1000}
PORT=${PORT:-18096}
SERVER_CPU=${SERVER_CPU:-0}
WRK_CPU=${WRK_CPU:-1}
OUT=${OUT:-$(mktemp -d /tmp/wirebench-floor-parts.XXXXXX)}
mkdir -p "$OUT"
for tool in wrk nginx taskset curl python3; do
    command -v "$tool" >/dev/null 2>&1 || { echo "missing: $tool (benches/server-pressure.sh installs wrk and nginx)" >&2; exit 1; }
done
(cd "$ROOT" && cargo build --release --quiet --bin wirebench --example floor_server)
BIN="$ROOT/target/release/wirebench"
FLOOR="$ROOT/target/release/examples/floor_server"
HELPER="$ROOT/benches/server-pressure.py"
BACKLOG=$(cat /proc/sys/net/core/somaxconn 2>/dev/null || echo 4096)
[ "$BACKLOG" -gt 4096 ] && BACKLOG=4096
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; true' EXIT
# shellcheck source=nginx-ping.sh
. "$ROOT/benches/nginx-ping.sh"
nginx_ping_conf "$OUT/nginx" "$PORT" 1

# start NAME : a fresh server of that name on $PORT, pinned; sets pid
start() {
    case $1 in
        floor) taskset -c "$SERVER_CPU" "$FLOOR" "127.0.0.1:$PORT" "$BACKLOG" >"$OUT/$1.log" 2>&1 & ;;
        ours) taskset -c "$SERVER_CPU" "$BIN" serve --addr "127.0.0.1:$PORT" >"$OUT/$1.log" 2>&1 & ;;
        nginx1) taskset -c "$SERVER_CPU" nginx -c "$OUT/nginx/nginx.conf" -p "$OUT/nginx" >"$OUT/$1.log" 2>&1 & ;;
        *) taskset -c "$SERVER_CPU" "$FLOOR" "127.0.0.1:$PORT" "$BACKLOG" "${1//-/+}" >"$OUT/$1.log" 2>&1 & ;;
    esac
    pid=$!
    for _ in $(seq 1 400); do
        curl -fsS -o /dev/null "http://127.0.0.1:$PORT/ping" 2>/dev/null && return 0
        sleep 0.05
    done
    echo "$1 did not come up on port $PORT" >&2
    exit 1
}
stop() { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; pid=; }

# Server names: the floor's parts as its MODE argument with `-` for `+`.
SERVERS=(floor parse date timeout http ours nginx1)
echo "# $(date -u +%FT%TZ) $(nproc) cores, $(git -C "$ROOT" rev-parse --short HEAD); wrk -t1 -c$CONNS -d$DURATION /ping, warm; raw output in $OUT"
for round in $(seq 1 "$ROUNDS"); do
    order=("${SERVERS[@]}")
    if [ $((round % 2)) = 0 ]; then # alternate the order from round to round
        reversed=()
        for s in "${order[@]}"; do reversed=("$s" "${reversed[@]}"); done
        order=("${reversed[@]}")
    fi
    for s in "${order[@]}"; do
        start "$s"
        taskset -c "$WRK_CPU" wrk -t1 -c"$CONNS" -d2s "http://127.0.0.1:$PORT/ping" >/dev/null 2>&1 || true
        python3 "$HELPER" case "$s-warm-r$round" "$OUT" "$pid" -- taskset -c "$WRK_CPU" wrk --latency -t1 -c"$CONNS" -d"$DURATION" "http://127.0.0.1:$PORT/ping" | tee -a "$OUT/summary.txt"
        stop
    done
done
echo "## over rounds: median of the per-round ratios [95% interval of the median]"
python3 - "$OUT/summary.txt" "$HELPER" "${SERVERS[@]}" <<'PY'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("sp", sys.argv[2])
sp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sp)
rps, p99 = {}, {}
for line in open(sys.argv[1]):
    t = line.split()
    if len(t) >= 5 and t[2] == "req/s":
        rps[t[0]], p99[t[0]] = float(t[1]), sp.ms(t[4])
rounds = sorted({k.rsplit("-r", 1)[1] for k in rps}, key=int)
for s in sys.argv[3:]:
    out = [f"{s:<8}"]
    for ref in ("floor", "http", "nginx1"):
        if ref == s:
            continue
        pairs = [(rps[f"{s}-warm-r{r}"] / rps[f"{ref}-warm-r{r}"]) for r in rounds if f"{s}-warm-r{r}" in rps and f"{ref}-warm-r{r}" in rps]
        if pairs:
            med, lo, hi, cov = sp.median_interval(pairs)
            note = "" if cov >= 0.95 else f" ({cov:.0%} only)"
            out.append(f"req/s / {ref} {med:.2f}x [{lo:.2f}, {hi:.2f}]{note}")
    print("  ".join(out))
PY
