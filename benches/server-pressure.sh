#!/usr/bin/env bash
# The server under pressure, next to nginx in the same run.
#
#   1. burst, pinned: `wrk -t1 -c1000 -d5s /ping`, server on core $SERVER_CPU,
#      wrk on core $WRK_CPU; against a fresh wirebench process (started just
#      before wrk), the same process again (warm), and nginx with 1 worker —
#      interleaved, $ROUNDS rounds. Reports requests/s, p99, wrk timeouts and
#      the ratios to nginx.
#   2. unpinned: `wrk -t2 -c1000 -d10s /ping`, warm wirebench vs nginx with
#      2 workers, interleaved, $ROUNDS rounds.
#   3. RSS per idle connection: for every format with and without gzip, a
#      fresh server, $IDLE_CONNS connections each fetch count=10000 once and
#      stay open; RSS per connection, then RSS after they close (surplus spare
#      threads exit after --spare-timeout $SPARE_TIMEOUT).
#   4. eviction: --max-connections $EVICT_CAP full of idle keep-alive
#      connections; how long a new client waits for its 200.
#   5. soak for $SOAK (0 skips it): wrk -t2 -c64 with benches/server-pressure.lua
#      (every format, counts 1-10000 log-uniform, gzip on and off), RSS of the
#      server sampled every second into $OUT/soak-rss.csv and drawn as
#      $OUT/soak-rss.svg.
#
# Installs nothing: it stops when wrk, nginx, taskset, curl or python3 is
# missing (on Debian: apt-get install -y wrk nginx).
#
# Usage: benches/server-pressure.sh
#   env: ROUNDS=2 SOAK=60s IDLE_CONNS=200 EVICT_CAP=200 SERVER_CPU=0 WRK_CPU=1
#        OUR_PORT=18090 NGINX_PORT=18091 OUT=dir SKIP="" (e.g. SKIP="3 5")
set -euo pipefail

ROUNDS=${ROUNDS:-2}
SOAK=${SOAK:-60s}
IDLE_CONNS=${IDLE_CONNS:-200}
EVICT_CAP=${EVICT_CAP:-200}
SPARE_TIMEOUT=${SPARE_TIMEOUT:-2s}
SERVER_CPU=${SERVER_CPU:-0}
WRK_CPU=${WRK_CPU:-1}
OUR_PORT=${OUR_PORT:-18090}
NGINX_PORT=${NGINX_PORT:-18091}
SKIP=${SKIP:-}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$(mktemp -d /tmp/wirebench-pressure.XXXXXX)}
mkdir -p "$OUT"

missing=()
for tool in wrk nginx taskset curl python3; do
    command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "missing: ${missing[*]} (Debian: apt-get install -y wrk nginx util-linux curl python3)" >&2
    exit 1
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"
if [ "$(ulimit -n)" -lt 2200 ]; then
    echo "open-file limit $(ulimit -n) is too low for 1,000 connections" >&2
    exit 1
fi

(cd "$ROOT" && cargo build --release --quiet)
BIN="$ROOT/target/release/wirebench"
HELPER="$ROOT/benches/server-pressure.py"

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
skipped() { [[ " $SKIP " == *" $1 "* ]]; }

wait_port() { # poll until the server answers; this is a script, not a test
    for _ in $(seq 1 400); do
        curl -fsS -o /dev/null "http://127.0.0.1:$1/ping" 2>/dev/null && return 0
        sleep 0.05
    done
    echo "server on port $1 did not come up" >&2
    exit 1
}

# start_ours CPU_LIST EXTRA_FLAGS... : sets OUR_PID
start_ours() {
    local cpus=$1
    shift
    taskset -c "$cpus" "$BIN" serve --addr "127.0.0.1:$OUR_PORT" "$@" >"$OUT/wirebench.log" 2>&1 &
    OUR_PID=$!
    pids+=("$OUR_PID")
    wait_port "$OUR_PORT"
}
stop() { kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }

# start_nginx WORKERS CPU_LIST : sets NGINX_PID
start_nginx() {
    local workers=$1 cpus=$2 master=off
    [ "$workers" -gt 1 ] && master=on
    mkdir -p "$OUT/nginx"
    cat >"$OUT/nginx/nginx.conf" <<EOF
daemon off;
master_process $master;
worker_processes $workers;
worker_rlimit_nofile 65536;
pid $OUT/nginx/nginx.pid;
error_log $OUT/nginx/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    keepalive_requests 1000000;
    keepalive_timeout 75s;
    client_body_temp_path $OUT/nginx;
    proxy_temp_path $OUT/nginx;
    fastcgi_temp_path $OUT/nginx;
    uwsgi_temp_path $OUT/nginx;
    scgi_temp_path $OUT/nginx;
    server {
        listen 127.0.0.1:$NGINX_PORT;
        location /ping { default_type application/json; return 200 '{"message":"pong"}'; }
    }
}
EOF
    taskset -c "$cpus" "$NGINX" -c "$OUT/nginx/nginx.conf" -p "$OUT/nginx" &
    NGINX_PID=$!
    pids+=("$NGINX_PID")
    wait_port "$NGINX_PORT"
}

# run_wrk NAME CPU_LIST WRK_ARGS... : prints one summary line, keeps the raw output
run_wrk() {
    local name=$1 cpus=$2
    shift 2
    taskset -c "$cpus" wrk --latency "$@" >"$OUT/$name.txt" 2>&1 || true
    awk -v name="$name" '
        /Requests\/sec/ { rps = $2 }
        /^ +99%/ { p99 = $2 }
        /Socket errors/ { errs = $0; sub(/^ +Socket errors: /, "", errs) }
        /Non-2xx/ { non2xx = $NF }
        END {
            to = 0
            if (errs != "") { n = split(errs, a, ", "); for (i = 1; i <= n; i++) if (a[i] ~ /^timeout/) { split(a[i], b, " "); to = b[2] } }
            printf "%-24s %10s req/s  p99 %-9s timeouts %-5s non-2xx %-5s errors: %s\n",
                name, rps, p99, to, (non2xx == "" ? 0 : non2xx), (errs == "" ? "none" : errs)
        }' "$OUT/$name.txt" | tee -a "$OUT/summary.txt"
}

echo "# $(date -u +%FT%TZ) $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); raw output in $OUT"
echo "# wrk $(wrk -v 2>&1 | head -1 | awk '{print $2}'), $("$NGINX" -v 2>&1 | sed 's/.*: //'), $(ldd --version | head -1)"

if ! skipped 1; then
    echo "## 1. burst, pinned: wrk -t1 -c1000 -d5s /ping (server on core $SERVER_CPU, wrk on core $WRK_CPU)"
    for round in $(seq 1 "$ROUNDS"); do
        start_ours "$SERVER_CPU"
        run_wrk "ours-fresh-r$round" "$WRK_CPU" -t1 -c1000 -d5s "http://127.0.0.1:$OUR_PORT/ping"
        run_wrk "ours-warm-r$round" "$WRK_CPU" -t1 -c1000 -d5s "http://127.0.0.1:$OUR_PORT/ping"
        echo "   (threads after the warm run: $(awk '/^Threads/ {print $2}' /proc/$OUR_PID/status))"
        stop "$OUR_PID"
        start_nginx 1 "$SERVER_CPU"
        run_wrk "nginx1-fresh-r$round" "$WRK_CPU" -t1 -c1000 -d5s "http://127.0.0.1:$NGINX_PORT/ping"
        run_wrk "nginx1-warm-r$round" "$WRK_CPU" -t1 -c1000 -d5s "http://127.0.0.1:$NGINX_PORT/ping"
        stop "$NGINX_PID"
    done
fi

if ! skipped 2; then
    echo "## 2. unpinned: wrk -t2 -c1000 -d10s /ping (both on cores 0-1)"
    start_ours 0-1
    taskset -c 0-1 wrk -t2 -c1000 -d2s "http://127.0.0.1:$OUR_PORT/ping" >/dev/null
    start_nginx 2 0-1
    for round in $(seq 1 "$ROUNDS"); do
        run_wrk "ours-2cores-r$round" 0-1 -t2 -c1000 -d10s "http://127.0.0.1:$OUR_PORT/ping"
        run_wrk "nginx2-2cores-r$round" 0-1 -t2 -c1000 -d10s "http://127.0.0.1:$NGINX_PORT/ping"
    done
    stop "$OUR_PID"
    stop "$NGINX_PID"
fi

if [ -s "$OUT/summary.txt" ]; then
    echo "## ratios (ours / nginx, same round)"
    awk '
        { rps[$1] = $2; p = $5; if (p ~ /us$/) v = p / 1000; else if (p ~ /ms$/) v = p + 0; else if (p ~ /s$/) v = p * 1000; p99[$1] = v }
        END {
            for (k in rps) {
                if (k ~ /^ours-(fresh|warm)/) { n = k; sub(/^ours-/, "nginx1-", n) }
                else if (k ~ /^ours-2cores/) { n = k; sub(/^ours-/, "nginx2-", n) }
                else continue
                if (n in rps && rps[n] > 0 && p99[n] > 0)
                    printf "%-24s req/s %.2fx  p99 %.2fx  (vs %s)\n", k, rps[k] / rps[n], p99[k] / p99[n], n
            }
        }' "$OUT/summary.txt" | sort
fi

if ! skipped 3; then
    echo "## 3. RSS per idle connection after one count=10000 response ($IDLE_CONNS connections, fetched at once)"
    for format in json msgpack protobuf avro flatbuffers; do
        for compression in none gzip; do
            start_ours 0-1 --spare-timeout "$SPARE_TIMEOUT"
            python3 "$HELPER" idle-rss "$OUR_PORT" "$OUR_PID" "$IDLE_CONNS" \
                "/catalog/$format?count=10000&compression=$compression" 15
            stop "$OUR_PID"
        done
    done
fi

if ! skipped 4; then
    echo "## 4. eviction: --max-connections $EVICT_CAP full of idle keep-alive connections"
    start_ours 0-1 --max-connections "$EVICT_CAP"
    python3 "$HELPER" evict "$OUR_PORT" "$EVICT_CAP"
    stop "$OUR_PID"
fi

if ! skipped 5 && [ "$SOAK" != "0" ] && [ "$SOAK" != "0s" ]; then
    echo "## 5. soak: $SOAK, wrk -t2 -c64 --timeout 30s, every format, count 1-10000, gzip on/off"
    start_ours 0-1
    echo "seconds,rss_kib,threads" >"$OUT/soak-rss.csv"
    (
        t0=$(date +%s.%N)
        while kill -0 "$OUR_PID" 2>/dev/null; do
            now=$(date +%s.%N)
            awk -v t="$(echo "$now - $t0" | bc)" '/^VmRSS/ { r = $2 } /^Threads/ { th = $2 } END { printf "%.1f,%d,%d\n", t, r, th }' \
                "/proc/$OUR_PID/status" >>"$OUT/soak-rss.csv" 2>/dev/null || break
            sleep 1
        done
    ) &
    SAMPLER=$!
    taskset -c 0-1 wrk -t2 -c64 -d"$SOAK" --timeout 30s --latency -s "$ROOT/benches/server-pressure.lua" \
        "http://127.0.0.1:$OUR_PORT" >"$OUT/soak-wrk.txt" 2>&1 || true
    sleep 2
    stop "$OUR_PID"
    wait "$SAMPLER" 2>/dev/null || true
    grep -E "requests in|Requests/sec|Socket errors|Non-2xx|99%" "$OUT/soak-wrk.txt" | sed 's/^ */   /'
    awk -F, 'NR > 1 { t = $1; r = $2 / 1024; if (t >= 60 && first == "") first = r; if (t >= 60 && r > max) max = r; last = r; if (r > peak) peak = r }
        END {
            if (first == "") print "   soak shorter than a minute: peak RSS " peak " MiB, last " last " MiB"
            else printf "   RSS at 60 s %.1f MiB, highest after %.1f MiB (%+.1f%%), last %.1f MiB, peak %.1f MiB\n", first, max, (max / first - 1) * 100, last, peak
        }' "$OUT/soak-rss.csv"
    python3 "$HELPER" svg "$OUT/soak-rss.csv" "$OUT/soak-rss.svg" "wirebench serve RSS during a $SOAK soak (wrk -c64, mixed formats, counts 1-10000, gzip on/off)"
    echo "   chart: $OUT/soak-rss.svg"
fi
