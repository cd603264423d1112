#!/usr/bin/env bash
# Our /ping (and /catalog/json?count=1000) next to nginx's, with wrk.
#
# What it does, reproducibly:
#   - installs wrk and nginx from the distribution (apt-get) when missing;
#   - builds `wirebench` in release mode;
#   - runs each server pinned to core $SERVER_CPU and wrk pinned to core $WRK_CPU
#     (`taskset`), so the load generator never steals the server's core;
#   - nginx: one process (master_process off = one worker), pinned the same way,
#     `return 200 '{"message":"pong"}'` with default_type application/json,
#     keepalive_requests 1000000, worker_connections 4096, access_log off;
#   - for each case: a 2 s warm-up, then `wrk -t1 -cC -d${DURATION} --latency`;
#     ours and nginx alternate case by case, for $ROUNDS rounds, so a noisy
#     neighbour on a shared machine hits both and the spread shows;
#   - server CPU time = (utime + stime) delta of the server process from
#     /proc/<pid>/stat (all threads), divided by the requests wrk completed;
#     context switches per request from /proc/<pid>/task/*/status (threads
#     that exist at both reads; wirebench's are all spawned in the warm-up).
#
# Usage: benches/bench-http-server.sh            (as root for apt-get)
#   env: DURATION=10s ROUNDS=2 SERVER_CPU=0 WRK_CPU=1 OUR_PORT=8090 NGINX_PORT=8091 OUT=dir
# Output: one summary line per case on stdout; raw wrk output under $OUT.
set -euo pipefail

DURATION=${DURATION:-10s}
ROUNDS=${ROUNDS:-2}
SERVER_CPU=${SERVER_CPU:-0}
WRK_CPU=${WRK_CPU:-1}
OUR_PORT=${OUR_PORT:-8090}
NGINX_PORT=${NGINX_PORT:-8091}
OUT=${OUT:-$(mktemp -d /tmp/wirebench-http-bench.XXXXXX)}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUT"

need() { command -v "$1" >/dev/null 2>&1; }
if ! need wrk || ! need nginx; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk nginx >/dev/null
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
TICKS=$(getconf CLK_TCK)

(cd "$ROOT" && cargo build --release --quiet)
BIN="$ROOT/target/release/wirebench"

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

wait_port() { # poll until the server answers; this is a script, not a test
    for _ in $(seq 1 200); do
        curl -fsS -o /dev/null "http://127.0.0.1:$1/ping" 2>/dev/null && return 0
        sleep 0.05
    done
    echo "server on port $1 did not come up" >&2
    exit 1
}

cpu_ticks() { # utime + stime of the whole process (fields 14 and 15)
    awk '{ print $14 + $15 }' "/proc/$1/stat"
}

ctx_switches() { # voluntary + involuntary context switches of every thread
    cat /proc/"$1"/task/*/status 2>/dev/null | awk '/ctxt_switches/ { n += $2 } END { print n + 0 }'
}

# bench NAME PID URL CONNECTIONS
bench() {
    local name=$1 pid=$2 url=$3 conns=$4
    taskset -c "$WRK_CPU" wrk -t1 -c"$conns" -d2s "$url" >/dev/null
    local before after sw_before sw_after
    before=$(cpu_ticks "$pid")
    sw_before=$(ctx_switches "$pid")
    taskset -c "$WRK_CPU" wrk -t1 -c"$conns" -d"$DURATION" --latency "$url" >"$OUT/$name-c$conns.txt"
    after=$(cpu_ticks "$pid")
    sw_after=$(ctx_switches "$pid")
    awk -v name="$name" -v conns="$conns" -v ticks=$((after - before)) -v hz="$TICKS" \
        -v switches=$((sw_after - sw_before)) '
        /requests in/ { reqs = $1 }
        /Requests\/sec/ { rps = $2 }
        /^ +50%/ { p50 = $2 }
        /^ +99%/ { p99 = $2 }
        /Socket errors/ { errors = $0; sub(/^ +/, "", errors) }
        /Non-2xx/ { non2xx = $NF }
        END {
            if (errors == "") errors = "Socket errors: none"
            printf "%-26s c=%-5s %10s req/s  p50 %-8s p99 %-8s  cpu/req %6.2f us  switches/req %5.2f  non-2xx %s  %s\n",
                name, conns, rps, p50, p99, (ticks / hz) / reqs * 1e6, switches / reqs, (non2xx == "" ? 0 : non2xx), errors
        }' "$OUT/$name-c$conns.txt"
}

# --- our server -------------------------------------------------------------
taskset -c "$SERVER_CPU" "$BIN" serve --addr "127.0.0.1:$OUR_PORT" >"$OUT/wirebench.log" 2>&1 &
OUR_PID=$!
pids+=("$OUR_PID")
wait_port "$OUR_PORT"

# --- nginx, one worker -------------------------------------------------------
# shellcheck source=nginx-ping.sh
. "$ROOT/benches/nginx-ping.sh"
nginx_ping_conf "$OUT/nginx" "$NGINX_PORT" 1
taskset -c "$SERVER_CPU" "$NGINX" -c "$OUT/nginx/nginx.conf" -p "$OUT/nginx" &
NGINX_PID=$!
pids+=("$NGINX_PID")
wait_port "$NGINX_PORT"

echo "# $(date -u +%FT%TZ) $(nproc) cores, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# wrk $(wrk -v 2>&1 | head -1 | awk '{print $2}'), $("$NGINX" -v 2>&1 | sed 's/.*: //'), raw output in $OUT"
for round in $(seq 1 "$ROUNDS"); do
    echo "# round $round"
    for c in 8 64 1000; do
        bench "wirebench-ping-r$round" "$OUR_PID" "http://127.0.0.1:$OUR_PORT/ping" "$c"
        bench "nginx-ping-r$round" "$NGINX_PID" "http://127.0.0.1:$NGINX_PORT/ping" "$c"
    done
    bench "wirebench-json-1000-r$round" "$OUR_PID" "http://127.0.0.1:$OUR_PORT/catalog/json?count=1000" 8
done
