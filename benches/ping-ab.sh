#!/usr/bin/env bash
# /ping cost of two wirebench builds, A and B (e.g. without and with a change):
#
#   benches/ping-ab.sh /tmp/wirebench-a /tmp/wirebench-b
#
# 1. Throughput: ROUNDS interleaved wrk runs (A, B, A, B, …), the server pinned
#    to CPU 0 and wrk to CPU 1; prints wrk's requests/s and requests per
#    second of server CPU time (utime + stime from /proc). Needs an idle machine.
# 2. Instructions: each build under callgrind serves N1 and then N2 keep-alive
#    /ping requests from one client; (Ir(N2) - Ir(N1)) / (N2 - N1) is the
#    user-space instructions per request, start-up cost removed. Stable on a
#    busy machine. Skipped when valgrind is missing or CALLGRIND=0.
#
# Needs wrk, curl, python3, bc, taskset. Loopback only; every server it starts
# it stops.
set -euo pipefail
A=${1:?usage: ping-ab.sh BIN_A BIN_B}
B=${2:?usage: ping-ab.sh BIN_A BIN_B}
ROUNDS=${ROUNDS:-8}; DUR=${DUR:-5s}; CONN=${CONN:-50}
N1=${N1:-2000}; N2=${N2:-12000}
TCK=$(getconf CLK_TCK)

wait_up() { for _ in $(seq 1 300); do curl -s -o /dev/null "http://127.0.0.1:$1/ping" && return 0; sleep 0.2; done; return 1; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

echo "# wrk: $ROUNDS interleaved rounds of $DUR, $CONN connections"
for r in $(seq 1 "$ROUNDS"); do
  for which in A B; do
    bin=$A; off=0
    if [ "$which" = B ]; then bin=$B; off=1; fi
    port=$((18100 + r * 2 + off))
    taskset -c 0 "$bin" serve --addr "127.0.0.1:$port" > /dev/null 2>&1 &
    pid=$!
    wait_up "$port"
    c0=$(cpu_ticks "$pid")
    out=$(taskset -c 1 wrk -t1 -c"$CONN" -d"$DUR" "http://127.0.0.1:$port/ping")
    c1=$(cpu_ticks "$pid")
    kill "$pid"; wait "$pid" 2> /dev/null || true
    rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
    reqs=$(echo "$out" | awk '/requests in/ {print $1}')
    echo "round $r $which requests/s=$rps requests_per_cpu_s=$(echo "$reqs * $TCK / ($c1 - $c0 + 1)" | bc)"
  done
done

[ "${CALLGRIND:-1}" = 0 ] && exit 0
command -v valgrind > /dev/null || { echo "# valgrind not found: instruction counts skipped"; exit 0; }
client=$(mktemp); trap 'rm -f "$client"' EXIT
cat > "$client" <<'PY'
import http.client, sys
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=120)
for _ in range(int(sys.argv[2])):
    c.request("GET", "/ping"); r = c.getresponse(); r.read(); assert r.status == 200
PY
echo "# callgrind: user-space instructions per /ping request"
for which in A B; do
  bin=$A; off=0
  if [ "$which" = B ]; then bin=$B; off=2; fi
  declare -A ir
  for n in "$N1" "$N2"; do
    port=$((19100 + off + (n == N2 ? 1 : 0)))
    out=$(mktemp)
    valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" serve --addr "127.0.0.1:$port" --max-connections 4 > /dev/null 2>&1 &
    pid=$!
    wait_up "$port"
    python3 "$client" "$port" "$n"
    kill -TERM "$pid"; wait "$pid" 2> /dev/null || true
    ir[$n]=$(grep -E '^(summary|totals):' "$out" | head -1 | awk '{print $2}')
    rm -f "$out"
  done
  echo "$which instructions_per_request=$(( (ir[$N2] - ir[$N1]) / (N2 - N1) ))"
done
