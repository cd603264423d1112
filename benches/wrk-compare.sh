#!/usr/bin/env bash
# wrk vs `wirebench load --url` against the same server and path.
#
# Server pinned to core 0, client pinned to core 1, one client thread for wrk
# (-t1). For each concurrency C: wrk, then wirebench (default --url driver: one
# polling thread per allowed core, so 1 here), then wirebench --threads 0 (one
# blocking thread per connection), each for $DUR; prints
# requests/s, p50 and the CPU seconds each side used (utime+stime from
# /proc/<pid>/stat for the server, bash `time` for the client).
#
# Usage: benches/wrk-compare.sh nginx|wirebench   (needs wrk; nginx for `nginx`)
#   DUR=10s CONNS="8 64 1000" REPS=1 BLOCKING=1 benches/wrk-compare.sh nginx
# REPS repeats the whole sweep (the runs alternate, so background load hits
# both sides); BLOCKING=0 skips the one-thread-per-connection driver.
#
# The numbers depend on whatever else runs on the machine: say so when you quote them.
set -euo pipefail

SERVER=${1:-nginx}
DUR=${DUR:-10s}
CONNS=${CONNS:-"8 64 1000"}
BIN=${BIN:-target/release/wirebench}
TCK=$(getconf CLK_TCK)
WORK=$(mktemp -d)
trap 'kill "$SERVER_PID" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$WORK"' EXIT

case "$SERVER" in
nginx)
    PORT=18080
    cat >"$WORK/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $WORK/nginx.pid;
error_log $WORK/error.log;
events { worker_connections 4096; }
http {
    access_log off;
    server {
        listen 127.0.0.1:$PORT backlog=4096;
        location /ping { default_type application/json; return 200 '{"message":"pong"}'; }
    }
}
EOF
    taskset -c 0 nginx -c "$WORK/nginx.conf" -p "$WORK" &
    SERVER_PID=$!
    ;;
wirebench)
    PORT=18090
    taskset -c 0 "$BIN" serve --addr "127.0.0.1:$PORT" &
    SERVER_PID=$!
    ;;
*)
    echo "usage: $0 nginx|wirebench" >&2
    exit 2
    ;;
esac
URL="http://127.0.0.1:$PORT/ping"
for _ in $(seq 50); do
    curl -fs "$URL" >/dev/null 2>&1 && break
    sleep 0.1
done

# CPU ticks of the server process and its children (nginx: master + worker).
server_ticks() {
    local total=0 p
    for p in "$SERVER_PID" $(pgrep -P "$SERVER_PID" || true); do
        [ -r "/proc/$p/stat" ] || continue
        total=$((total + $(awk '{print $14 + $15}' "/proc/$p/stat")))
    done
    echo "$total"
}

# run LABEL CMD... : prints "rps p50 client_cpu_s server_cpu_s"
run() {
    local label=$1
    shift
    local before after out
    before=$(server_ticks)
    out=$( { TIMEFORMAT='CPU %U %S'; time taskset -c 1 "$@" 2>&1; } 2>&1)
    after=$(server_ticks)
    echo "$out" >"$WORK/$label.out"
    local rps p50 cpu
    rps=$(echo "$out" | awk '/^Requests\/sec:/ {print $2}')
    p50=$(echo "$out" | awk '$1 == "50%" {print $2; exit}')
    cpu=$(echo "$out" | awk '/^CPU / {printf "%.2f", $2 + $3}')
    local errs
    errs=$(echo "$out" | grep -E 'Socket errors|Non-2xx|Errors:' | tr -s ' ' | tr '\n' ';' || true)
    printf '%-10s %-6s %12s %10s %9ss %9ss  %s\n' "$label" "$C" "$rps" "$p50" "$cpu" \
        "$(awk -v t=$((after - before)) -v k="$TCK" 'BEGIN {printf "%.2f", t / k}')" "$errs"
}

echo "server=$SERVER url=$URL duration=$DUR (server on core 0, client on core 1)"
printf '%-10s %-6s %12s %10s %10s %10s  %s\n' client conns req/s p50 client_cpu server_cpu errors
for _ in $(seq "${REPS:-1}"); do
    for C in $CONNS; do
        run wrk wrk -t1 -c"$C" -d"$DUR" --latency "$URL"
        run wirebench "$BIN" load --url "$URL" --concurrency "$C" --duration "$DUR" --warmup 0
        if [ "${BLOCKING:-1}" = 1 ]; then
            run wb-thread "$BIN" load --url "$URL" --concurrency "$C" --duration "$DUR" --warmup 0 --threads 0
        fi
    done
    echo "loadavg: $(cut -d' ' -f1-3 /proc/loadavg)"
done
