#!/usr/bin/env bash
# The server under pressure, next to nginx (and the design's floor) in the same run.
#
# Sections (pick with ONLY="1 3", leave out with SKIP="9"):
#   1. burst, pinned: `wrk -t1 -c1000 -d$DURATION /ping`, server on core
#      $SERVER_CPU, wrk on core $WRK_CPU; a fresh wirebench process (cold),
#      the same process again (warm), nginx with 1 worker and the floor
#      server (examples/floor_server.rs, cold and warm), interleaved,
#      $ROUNDS rounds.
#   2. many connections, pinned: `wrk -t1 -c4000`, wirebench with
#      --max-connections 4096, beside nginx and the floor server; after
#      each of ours, the longest wait from accept to a worker (/metrics).
#   3. the design's floor, pinned: /ping at c=8 and c=64, wirebench vs the
#      floor server (thread per connection, one read and one write per
#      request) vs nginx, interleaved.
#   4. beyond the connection cap: `wrk -t1 -c3000` against the default cap of
#      2,048: served, 503 (non-2xx) and reset (read/connect errors), timeouts.
#   5. /catalog/json?count=1000, server only (wrk does not decode), pinned:
#      this checkout vs $BASE_REV (built from `git archive` into
#      target/base-$BASE_REV), interleaved, $ROUNDS rounds, c=$CATALOG_CONNS.
#   6. unpinned: `wrk -t2 -c1000 -d10s /ping`, warm wirebench vs nginx with
#      2 workers, interleaved, $ROUNDS rounds.
#   7. RSS per idle connection: for every format with and without gzip, a
#      fresh server, $IDLE_CONNS connections each fetch count=10000 once and
#      stay open; RSS per connection, then RSS after they close.
#   8. eviction: --max-connections $EVICT_CAP full of idle keep-alive
#      connections; how long a new client waits for its 200.
#   9. soak for $SOAK (0 skips it): wrk -t2 -c64 with benches/server-pressure.lua
#      (every format, counts 1-10000 log-uniform, gzip on and off), RSS of the
#      server sampled every second into $OUT/soak-rss.csv and drawn as
#      $OUT/soak-rss.svg.
#  10. burst anatomy: a fresh process pinned to $SERVER_CPU, $BURST clients
#      (benches/server-pressure.py on $WRK_CPU) connect at once; the deepest
#      accept queue seen and connect-to-first-byte times, the last
#      connections' included; then the floor server the same way.
#
# With RR=1 (the default) sections 1-3 also run this checkout with
# `--sched rr` (rows rr-cold, rr-warm, rr-c4000, rr-c8, rr-c64; RR_PORT): the
# workers in the real-time round-robin class, where the kernel runs ready
# workers in the order they woke. It needs CAP_SYS_NICE; without it the
# server runs fair and its log says so (the rows then repeat ours).
#
# With FLOOR_POOL=1 (the default) sections 1-3 also run the floor server in
# its `pool` mode (rows fpool-cold, fpool-warm, fpool-c4000, fpool-c8,
# fpool-c64; FPOOL_PORT): the shape of wirebench serve (a pool of workers
# and an epoll poller for parked connections) with nothing else, the floor
# of this design.
#
# With FLOOR_HTTP=1 (the default) sections 1-3 also run the floor
# server in its `http` mode (rows fhttp-cold, fhttp-warm, fhttp-c4000,
# fhttp-c8, fhttp-c64; FHTTP_PORT): the floor plus what any conforming server does per
# request (the full parse, a Date header, a read timeout). Between the
# floor and ours it shows what HTTP itself costs on this design, and what
# wirebench adds to it (routing, limits, the pool, /metrics counters).
#
# A/B against another build: BASE_BIN=path runs that wirebench binary
# beside this checkout's in sections 1-3 (rows base-cold, base-warm,
# base-c4000, base-c8, base-c64: a fresh process wherever ours is one, the
# two in alternating order from round to round), and the ratios set ours
# beside it. AB_REV=rev builds that revision from `git archive` into
# target/base-REV (as section 5 builds $BASE_REV) and uses it as BASE_BIN;
# AB_REV=main takes the HEAD of the main worktree's branch (`git rev-parse main`).
#
# The floor server listens with the backlog wirebench takes by default
# (somaxconn, at most 4096; FLOOR_BACKLOG overrides), so at c=1000 and
# c=4000 it shows what thread-per-connection itself costs, not a short
# listen queue. The ratios compare wirebench with nginx and with the floor
# server of the same round, round by round, then as the median over the
# rounds with its distribution-free 95% interval (ROUNDS=6 is the fewest
# whose interval reaches 95%).
#
# Every wrk case (sections 1-6) prints, beside wrk's figures, the machine's
# TcpExt listen counters during the case (/proc/net/netstat before and
# after) and the CPU every other process used meanwhile (/proc/stat minus
# the processes under test), flagged NOISY above 5% of a core: quote only
# quiet cases.
#
# Installs wrk and nginx with apt-get when they are missing (as root).
#
# Usage: benches/server-pressure.sh
#   env: ROUNDS=3 DURATION=5s SOAK=600s ONLY="" SKIP="" BASE_REV=935b724 RR=1 FLOOR_HTTP=1
#        BASE_BIN=path AB_REV=rev CATALOG_CONNS=8 FLOOR_BACKLOG=somaxconn IDLE_CONNS=200 EVICT_CAP=200 SERVER_CPU=0 WRK_CPU=1
#        OUR_PORT=18090 NGINX_PORT=18091 FLOOR_PORT=18092 BASE_PORT=18093 RR_PORT=18094 FHTTP_PORT=18095 OUT=dir
#   an A/B of this checkout against main: AB_REV=main ONLY="1 2 3" benches/server-pressure.sh
#   a short sanity run: ROUNDS=1 DURATION=1s SOAK=10s SKIP="5 7" benches/server-pressure.sh
set -euo pipefail

ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-5s}
SOAK=${SOAK:-600s}
ONLY=${ONLY:-}
BASE_REV=${BASE_REV:-935b724}
CATALOG_CONNS=${CATALOG_CONNS:-8}
BURST=${BURST:-1000}
FLOOR_PORT=${FLOOR_PORT:-18092}
FHTTP_PORT=${FHTTP_PORT:-18095}
FLOOR_HTTP=${FLOOR_HTTP:-1}
FLOOR_POOL=${FLOOR_POOL:-1}
FPOOL_PORT=${FPOOL_PORT:-18096}
FLOOR_BACKLOG=${FLOOR_BACKLOG:-$(cat /proc/sys/net/core/somaxconn 2>/dev/null || echo 4096)}
[ "$FLOOR_BACKLOG" -gt 4096 ] && FLOOR_BACKLOG=4096
BASE_PORT=${BASE_PORT:-18093}
BASE_BIN=${BASE_BIN:-}
AB_REV=${AB_REV:-}
RR=${RR:-1}
RR_PORT=${RR_PORT:-18094}
IDLE_CONNS=${IDLE_CONNS:-200}
EVICT_CAP=${EVICT_CAP:-200}
SERVER_CPU=${SERVER_CPU:-0}
WRK_CPU=${WRK_CPU:-1}
OUR_PORT=${OUR_PORT:-18090}
NGINX_PORT=${NGINX_PORT:-18091}
SKIP=${SKIP:-}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$(mktemp -d /tmp/wirebench-pressure.XXXXXX)}
mkdir -p "$OUT"

need_apt=()
command -v wrk >/dev/null 2>&1 || need_apt+=(wrk)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need_apt+=(nginx)
if [ ${#need_apt[@]} -gt 0 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq && apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
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

(cd "$ROOT" && cargo build --release --quiet --bin wirebench --example floor_server)
BIN="$ROOT/target/release/wirebench"
# build_rev REV: the wirebench binary of REV, built once from `git archive`
# into target/base-REV; prints its path.
build_rev() {
    local dir="$ROOT/target/base-$1"
    if [ ! -x "$dir/target/release/wirebench" ]; then
        rm -rf "$dir" && mkdir -p "$dir"
        git -C "$ROOT" archive "$1" | tar -x -C "$dir"
        (cd "$dir" && CARGO_TARGET_DIR="$dir/target" cargo build --release --quiet --bin wirebench) >&2
    fi
    echo "$dir/target/release/wirebench"
}
if [ -n "$AB_REV" ]; then
    AB_REV=$(git -C "$ROOT" rev-parse --short "$AB_REV")
    BASE_BIN=$(build_rev "$AB_REV")
fi
if [ -n "$BASE_BIN" ] && [ ! -x "$BASE_BIN" ]; then
    echo "BASE_BIN=$BASE_BIN is not an executable" >&2
    exit 1
fi
FLOOR="$ROOT/target/release/examples/floor_server"
HELPER="$ROOT/benches/server-pressure.py"
# shellcheck source=nginx-ping.sh
. "$ROOT/benches/nginx-ping.sh"

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT
skipped() { [[ " $SKIP " == *" $1 "* ]] || { [ -n "$ONLY" ] && [[ " $ONLY " != *" $1 "* ]]; }; }

wait_port() { # poll until the server answers; this is a script, not a test
    for _ in $(seq 1 400); do
        curl -fsS -o /dev/null "http://127.0.0.1:$1/ping" 2>/dev/null && return 0
        sleep 0.05
    done
    echo "server on port $1 did not come up" >&2
    exit 1
}

# start_server PIDVAR BIN PORT LOG CPU_LIST EXTRA_FLAGS... : `BIN serve` on PORT,
# pinned to CPU_LIST, its output in $OUT/LOG; sets PIDVAR
start_server() {
    local var=$1 bin=$2 port=$3 log=$4 cpus=$5
    shift 5
    taskset -c "$cpus" "$bin" serve --addr "127.0.0.1:$port" "$@" >"$OUT/$log" 2>&1 &
    printf -v "$var" '%s' "$!"
    pids+=("$!")
    wait_port "$port"
}
# start_ours CPU_LIST EXTRA_FLAGS... : sets OUR_PID
start_ours() { start_server OUR_PID "$BIN" "$OUR_PORT" wirebench.log "$@"; }
# start_base CPU_LIST EXTRA_FLAGS... : sets BASE_PID (BASE_BIN on BASE_PORT)
start_base() { start_server BASE_PID "$BASE_BIN" "$BASE_PORT" base.log "$@"; }
# start_rr CPU_LIST EXTRA_FLAGS... : sets RR_PID (this checkout with --sched rr on RR_PORT)
start_rr() {
    local cpus=$1
    shift
    start_server RR_PID "$BIN" "$RR_PORT" rr.log "$cpus" --sched rr "$@"
}
stop() { kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }

# ab ROUND FN... : runs `FN ours`, with RR=1 `FN rr`, and with BASE_BIN
# `FN base`; in even rounds in the reverse order
ab() {
    local round=$1 who order=(ours)
    shift
    [ "$RR" = 1 ] && order+=(rr)
    [ -n "$BASE_BIN" ] && order+=(base)
    if [ $((round % 2)) = 0 ]; then
        local reversed=()
        for who in "${order[@]}"; do reversed=("$who" "${reversed[@]}"); done
        order=("${reversed[@]}")
    fi
    for who in "${order[@]}"; do "$@" "$who"; done
}

# start_floor CPU_LIST : sets FLOOR_PID (listening with $FLOOR_BACKLOG, as wirebench does)
start_floor() {
    taskset -c "$1" "$FLOOR" "127.0.0.1:$FLOOR_PORT" "$FLOOR_BACKLOG" >"$OUT/floor.log" 2>&1 &
    FLOOR_PID=$!
    pids+=("$FLOOR_PID")
    wait_port "$FLOOR_PORT"
}
# start_fhttp CPU_LIST : sets FHTTP_PID (the floor server's http mode on $FHTTP_PORT)
start_fhttp() {
    taskset -c "$1" "$FLOOR" "127.0.0.1:$FHTTP_PORT" "$FLOOR_BACKLOG" http >"$OUT/fhttp.log" 2>&1 &
    FHTTP_PID=$!
    pids+=("$FHTTP_PID")
    wait_port "$FHTTP_PORT"
}

# start_fpool CPU_LIST : sets FPOOL_PID (the floor server's pool mode on $FPOOL_PORT)
start_fpool() {
    taskset -c "$1" "$FLOOR" "127.0.0.1:$FPOOL_PORT" "$FLOOR_BACKLOG" pool >"$OUT/fpool.log" 2>&1 &
    FPOOL_PID=$!
    pids+=("$FPOOL_PID")
    wait_port "$FPOOL_PORT"
}

# start_nginx WORKERS CPU_LIST : sets NGINX_PID
start_nginx() {
    local workers=$1 cpus=$2
    nginx_ping_conf "$OUT/nginx" "$NGINX_PORT" "$workers"
    taskset -c "$cpus" "$NGINX" -c "$OUT/nginx/nginx.conf" -p "$OUT/nginx" &
    NGINX_PID=$!
    pids+=("$NGINX_PID")
    wait_port "$NGINX_PORT"
}

# run_wrk NAME PID[,PID..] CPU_LIST WRK_ARGS... : one summary line (+ the
# machine's counters and other processes' CPU), raw output in $OUT/NAME.txt
run_wrk() {
    local name=$1 under_test=$2 cpus=$3
    shift 3
    python3 "$HELPER" case "$name" "$OUT" "$under_test" -- taskset -c "$cpus" wrk --latency "$@" | tee -a "$OUT/summary.txt"
}

echo "# $(date -u +%FT%TZ) $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); raw output in $OUT"
[ -n "$BASE_BIN" ] && echo "# base: $BASE_BIN${AB_REV:+ ($AB_REV)}"
echo "# wrk $(wrk -v 2>&1 | head -1 | awk '{print $2}'), $("$NGINX" -v 2>&1 | sed 's/.*: //'), $(ldd --version | head -1)"

if ! skipped 1; then
    echo "## 1. burst, pinned: wrk -t1 -c1000 -d$DURATION /ping (server on core $SERVER_CPU, wrk on core $WRK_CPU)"
    # burst_case ROUND ours|base: a fresh process, cold then warm
    burst_case() {
        local round=$1 who=$2 pid port log
        if [ "$who" = ours ]; then
            start_ours "$SERVER_CPU"
            pid=$OUR_PID port=$OUR_PORT log=wirebench.log
        elif [ "$who" = rr ]; then
            start_rr "$SERVER_CPU"
            pid=$RR_PID port=$RR_PORT log=rr.log
        else
            start_base "$SERVER_CPU"
            pid=$BASE_PID port=$BASE_PORT log=base.log
        fi
        grep -hE "backlog|sched|acceptor" "$OUT/$log" | sed 's/^/   /'
        run_wrk "$who-cold-r$round" "$pid" "$WRK_CPU" -t1 -c1000 -d"$DURATION" "http://127.0.0.1:$port/ping"
        run_wrk "$who-warm-r$round" "$pid" "$WRK_CPU" -t1 -c1000 -d"$DURATION" "http://127.0.0.1:$port/ping"
        echo "   (threads after the warm run: $(awk '/^Threads/ {print $2}' "/proc/$pid/status"))"
        curl -fsS "http://127.0.0.1:$port/metrics" | grep -E '^wirebench_(listen|tcp_listen)' | sed 's/^/   /'
        stop "$pid"
    }
    for round in $(seq 1 "$ROUNDS"); do
        ab "$round" burst_case "$round"
        start_nginx 1 "$SERVER_CPU"
        run_wrk "nginx1-cold-r$round" "$NGINX_PID" "$WRK_CPU" -t1 -c1000 -d"$DURATION" "http://127.0.0.1:$NGINX_PORT/ping"
        run_wrk "nginx1-warm-r$round" "$NGINX_PID" "$WRK_CPU" -t1 -c1000 -d"$DURATION" "http://127.0.0.1:$NGINX_PORT/ping"
        stop "$NGINX_PID"
        start_floor "$SERVER_CPU"
        run_wrk "floor-cold-r$round" "$FLOOR_PID" "$WRK_CPU" -t1 -c1000 -d"$DURATION" "http://127.0.0.1:$FLOOR_PORT/ping"
        run_wrk "floor-warm-r$round" "$FLOOR_PID" "$WRK_CPU" -t1 -c1000 -d"$DURATION" "http://127.0.0.1:$FLOOR_PORT/ping"
        stop "$FLOOR_PID"
        if [ "$FLOOR_HTTP" = 1 ]; then
            start_fhttp "$SERVER_CPU"
            run_wrk "fhttp-cold-r$round" "$FHTTP_PID" "$WRK_CPU" -t1 -c1000 -d"$DURATION" "http://127.0.0.1:$FHTTP_PORT/ping"
            run_wrk "fhttp-warm-r$round" "$FHTTP_PID" "$WRK_CPU" -t1 -c1000 -d"$DURATION" "http://127.0.0.1:$FHTTP_PORT/ping"
            stop "$FHTTP_PID"
        fi
        if [ "$FLOOR_POOL" = 1 ]; then
            start_fpool "$SERVER_CPU"
            run_wrk "fpool-cold-r$round" "$FPOOL_PID" "$WRK_CPU" -t1 -c1000 -d"$DURATION" "http://127.0.0.1:$FPOOL_PORT/ping"
            run_wrk "fpool-warm-r$round" "$FPOOL_PID" "$WRK_CPU" -t1 -c1000 -d"$DURATION" "http://127.0.0.1:$FPOOL_PORT/ping"
            stop "$FPOOL_PID"
        fi
    done
fi

if ! skipped 2; then
    echo "## 2. many connections, pinned: wrk -t1 -c4000 -d$DURATION /ping, wirebench --max-connections 4096, nginx, floor"
    # many_case ROUND ours|base
    many_case() {
        local round=$1 who=$2 pid port
        if [ "$who" = ours ]; then
            start_ours "$SERVER_CPU" --max-connections 4096
            pid=$OUR_PID port=$OUR_PORT
        elif [ "$who" = rr ]; then
            start_rr "$SERVER_CPU" --max-connections 4096
            pid=$RR_PID port=$RR_PORT
        else
            start_base "$SERVER_CPU" --max-connections 4096
            pid=$BASE_PID port=$BASE_PORT
        fi
        run_wrk "$who-c4000-r$round" "$pid" "$WRK_CPU" -t1 -c4000 -d"$DURATION" "http://127.0.0.1:$port/ping"
        # A wrk timeout is a response later than 2 s: did its connection wait for a thread?
        curl -fsS "http://127.0.0.1:$port/metrics" | grep -E '^wirebench_(http_queue_wait_max|listen_queue|listen_drops)' | sed 's/^/   /'
        stop "$pid"
    }
    for round in $(seq 1 "$ROUNDS"); do
        ab "$round" many_case "$round"
        start_nginx 1 "$SERVER_CPU"
        run_wrk "nginx1-c4000-r$round" "$NGINX_PID" "$WRK_CPU" -t1 -c4000 -d"$DURATION" "http://127.0.0.1:$NGINX_PORT/ping"
        stop "$NGINX_PID"
        start_floor "$SERVER_CPU"
        run_wrk "floor-c4000-r$round" "$FLOOR_PID" "$WRK_CPU" -t1 -c4000 -d"$DURATION" "http://127.0.0.1:$FLOOR_PORT/ping"
        stop "$FLOOR_PID"
        if [ "$FLOOR_HTTP" = 1 ]; then
            start_fhttp "$SERVER_CPU"
            run_wrk "fhttp-c4000-r$round" "$FHTTP_PID" "$WRK_CPU" -t1 -c4000 -d"$DURATION" "http://127.0.0.1:$FHTTP_PORT/ping"
            stop "$FHTTP_PID"
        fi
        if [ "$FLOOR_POOL" = 1 ]; then
            start_fpool "$SERVER_CPU"
            run_wrk "fpool-c4000-r$round" "$FPOOL_PID" "$WRK_CPU" -t1 -c4000 -d"$DURATION" "http://127.0.0.1:$FPOOL_PORT/ping"
            stop "$FPOOL_PID"
        fi
    done
fi

if ! skipped 3; then
    echo "## 3. the design's floor, pinned: /ping at c=8 and c=64, wirebench vs floor_server vs nginx"
    start_ours "$SERVER_CPU"
    [ -n "$BASE_BIN" ] && start_base "$SERVER_CPU"
    [ "$RR" = 1 ] && start_rr "$SERVER_CPU"
    start_floor "$SERVER_CPU"
    [ "$FLOOR_HTTP" = 1 ] && start_fhttp "$SERVER_CPU"
    [ "$FLOOR_POOL" = 1 ] && start_fpool "$SERVER_CPU"
    start_nginx 1 "$SERVER_CPU"
    # floor_case C ROUND ours|base
    floor_case() {
        if [ "$3" = ours ]; then
            run_wrk "ours-c$1-r$2" "$OUR_PID" "$WRK_CPU" -t1 -c"$1" -d"$DURATION" "http://127.0.0.1:$OUR_PORT/ping"
        elif [ "$3" = rr ]; then
            run_wrk "rr-c$1-r$2" "$RR_PID" "$WRK_CPU" -t1 -c"$1" -d"$DURATION" "http://127.0.0.1:$RR_PORT/ping"
        else
            run_wrk "base-c$1-r$2" "$BASE_PID" "$WRK_CPU" -t1 -c"$1" -d"$DURATION" "http://127.0.0.1:$BASE_PORT/ping"
        fi
    }
    for round in $(seq 1 "$ROUNDS"); do
        for c in 8 64; do
            ab "$round" floor_case "$c" "$round"
            run_wrk "floor-c$c-r$round" "$FLOOR_PID" "$WRK_CPU" -t1 -c"$c" -d"$DURATION" "http://127.0.0.1:$FLOOR_PORT/ping"
            [ "$FLOOR_HTTP" = 1 ] && run_wrk "fhttp-c$c-r$round" "$FHTTP_PID" "$WRK_CPU" -t1 -c"$c" -d"$DURATION" "http://127.0.0.1:$FHTTP_PORT/ping"
            [ "$FLOOR_POOL" = 1 ] && run_wrk "fpool-c$c-r$round" "$FPOOL_PID" "$WRK_CPU" -t1 -c"$c" -d"$DURATION" "http://127.0.0.1:$FPOOL_PORT/ping"
            run_wrk "nginx1-c$c-r$round" "$NGINX_PID" "$WRK_CPU" -t1 -c"$c" -d"$DURATION" "http://127.0.0.1:$NGINX_PORT/ping"
        done
    done
    stop "$OUR_PID"
    [ -n "$BASE_BIN" ] && stop "$BASE_PID"
    [ "$RR" = 1 ] && stop "$RR_PID"
    stop "$FLOOR_PID"
    [ "$FLOOR_HTTP" = 1 ] && stop "$FHTTP_PID"
    [ "$FLOOR_POOL" = 1 ] && stop "$FPOOL_PID"
    stop "$NGINX_PID"
fi

if ! skipped 4; then
    echo "## 4. beyond the cap: wrk -t1 -c3000 -d$DURATION /ping against --max-connections 2048 (the default)"
    echo "   served = requests - non-2xx; 503 = non-2xx; reset = read + connect errors"
    for round in $(seq 1 "$ROUNDS"); do
        start_ours "$SERVER_CPU"
        run_wrk "ours-c3000-r$round" "$OUR_PID" "$WRK_CPU" -t1 -c3000 -d"$DURATION" "http://127.0.0.1:$OUR_PORT/ping"
        curl -fsS "http://127.0.0.1:$OUR_PORT/metrics" | grep -E '^wirebench_http_(refused|open)' | sed 's/^/   /'
        stop "$OUR_PID"
    done
fi

if ! skipped 5; then
    REV_BIN=$(build_rev "$BASE_REV")
    echo "## 5. /catalog/json?count=1000, server only, pinned, c=$CATALOG_CONNS: this checkout vs $BASE_REV"
    for round in $(seq 1 "$ROUNDS"); do
        start_server BASE_PID "$REV_BIN" "$BASE_PORT" base.log "$SERVER_CPU"
        run_wrk "base-json1000-r$round" "$BASE_PID" "$WRK_CPU" -t1 -c"$CATALOG_CONNS" -d"$DURATION" \
            "http://127.0.0.1:$BASE_PORT/catalog/json?count=1000"
        stop "$BASE_PID"
        start_ours "$SERVER_CPU"
        run_wrk "ours-json1000-r$round" "$OUR_PID" "$WRK_CPU" -t1 -c"$CATALOG_CONNS" -d"$DURATION" \
            "http://127.0.0.1:$OUR_PORT/catalog/json?count=1000"
        stop "$OUR_PID"
    done
fi

if ! skipped 6; then
    echo "## 6. unpinned: wrk -t2 -c1000 -d10s /ping (both on cores 0-1)"
    start_ours 0-1
    taskset -c 0-1 wrk -t2 -c1000 -d2s "http://127.0.0.1:$OUR_PORT/ping" >/dev/null
    start_nginx 2 0-1
    for round in $(seq 1 "$ROUNDS"); do
        run_wrk "ours-2cores-r$round" "$OUR_PID" 0-1 -t2 -c1000 -d10s "http://127.0.0.1:$OUR_PORT/ping"
        run_wrk "nginx2-2cores-r$round" "$NGINX_PID" 0-1 -t2 -c1000 -d10s "http://127.0.0.1:$NGINX_PORT/ping"
    done
    stop "$OUR_PID"
    stop "$NGINX_PID"
fi

if [ -s "$OUT/summary.txt" ]; then
    echo "## ratios (same round; requests/s and p99)"
    python3 "$HELPER" ratios "$OUT/summary.txt"
fi

if ! skipped 7; then
    echo "## 7. RSS per idle connection after one count=10000 response ($IDLE_CONNS connections, fetched at once)"
    for format in json msgpack protobuf avro flatbuffers; do
        for compression in none gzip; do
            start_ours 0-1
            python3 "$HELPER" idle-rss "$OUR_PORT" "$OUR_PID" "$IDLE_CONNS" \
                "/catalog/$format?count=10000&compression=$compression" 15
            stop "$OUR_PID"
        done
    done
fi

if ! skipped 8; then
    echo "## 8. eviction: --max-connections $EVICT_CAP full of idle keep-alive connections"
    start_ours 0-1 --max-connections "$EVICT_CAP"
    python3 "$HELPER" evict "$OUR_PORT" "$EVICT_CAP"
    stop "$OUR_PID"
fi

if ! skipped 10; then
    echo "## 10. burst anatomy: $BURST connects at once against a fresh process on core $SERVER_CPU"
    echo "   (the Python client is slow to connect: a queue of 0 means the acceptor kept up with it)"
    for round in $(seq 1 "$ROUNDS"); do
        start_ours "$SERVER_CPU"
        echo -n "   ours r$round: "
        taskset -c "$WRK_CPU" python3 "$HELPER" burst "$OUR_PORT" "$BURST"
        stop "$OUR_PID"
        start_floor "$SERVER_CPU"
        echo -n "   floor r$round: "
        taskset -c "$WRK_CPU" python3 "$HELPER" burst "$FLOOR_PORT" "$BURST"
        stop "$FLOOR_PID"
    done
fi

if ! skipped 9 && [ "$SOAK" != "0" ] && [ "$SOAK" != "0s" ]; then
    echo "## 9. soak: $SOAK, wrk -t2 -c64 --timeout 30s, every format, count 1-10000, gzip on/off"
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
            else printf "   RSS at 60 s %.1f MiB, highest after %.1f MiB (%+.1f MiB: %s the 32 MiB bound), last %.1f MiB, peak %.1f MiB\n", first, max, max - first, (max - first <= 32 ? "within" : "OVER"), last, peak
        }' "$OUT/soak-rss.csv"
    python3 "$HELPER" svg "$OUT/soak-rss.csv" "$OUT/soak-rss.svg" "wirebench serve RSS during a $SOAK soak (wrk -c64, mixed formats, counts 1-10000, gzip on/off)"
    echo "   chart: $OUT/soak-rss.svg"
fi
