#!/usr/bin/env bash
# One bounded distributed Locust run on loopback: (optionally) a local server,
# one master, WORKERS worker processes, then the merged summary
# (`wirebench report --hlogs`) beside Locust's own figures.
#
# Settings (environment): WORKERS (2), USERS (8), DURATION (10s, Locust's -t:
# Ns, Nm or Nh),
# VERIFY (decode|digest|none), MIX (locustfile.py --wb-mix), RATE (0 = closed
# loop; else requests/s per user), ROUTE (path|accept), SPLIT (requests|users), HOST (a server URL on
# loopback; empty: start `wirebench serve --addr 127.0.0.1:0 $SERVE_ARGS`),
# STUB (a format: put locust/stub.py, answering that route with JSON, in front
# of the server), OUT (target/locust/run), RUN_ID, WIREBENCH (the binary).
#
# Writes OUT/digests.csv, OUT/hlogs/*.hlog, OUT/stats.csv (+ .failures.csv),
# OUT/summary.md and OUT/*.log. Every process it starts is bounded by
# `timeout` and stopped on exit.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
WORKERS=${WORKERS:-2}
USERS=${USERS:-8}
DURATION=${DURATION:-10s}
VERIFY=${VERIFY:-decode}
MIX=${MIX:-json:100:none,msgpack:100:none,protobuf:100:none,avro:100:none,flatbuffers:100:none}
RATE=${RATE:-0}
ROUTE=${ROUTE:-path}
SPLIT=${SPLIT:-requests}
HOST=${HOST:-}
STUB=${STUB:-}
SERVE_ARGS=${SERVE_ARGS:-}
OUT=${OUT:-target/locust/run}
RUN_ID=${RUN_ID:-locust-$(date -u +%Y%m%dT%H%M%S)-$$}
WIREBENCH=${WIREBENCH:-target/release/wirebench}

VENV=$(locust/venv.sh)
PY="$ROOT/$VENV/bin/python"
[ -x "$WIREBENCH" ] || cargo build --release --quiet
rm -rf "$OUT" && mkdir -p "$OUT/hlogs"
OUT=$(cd "$OUT" && pwd)

pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap cleanup EXIT

# wait_line FILE PATTERN PID: the first line of FILE matching PATTERN, once
# the process PID wrote it (fails when PID exits first).
wait_line() {
    local file=$1 pattern=$2 pid=$3 line
    while true; do
        line=$(grep -m1 -E "$pattern" "$file" 2>/dev/null || true)
        if [ -n "$line" ]; then echo "$line"; return 0; fi
        if ! kill -0 "$pid" 2>/dev/null; then
            echo "locust/run.sh: process $pid exited before writing '$pattern' to $file:" >&2
            cat "$file" >&2
            return 1
        fi
        sleep 0.05
    done
}

# Counts the mix asks for, for the digest file.
counts=$(echo "$MIX" | tr ',' '\n' | sed 's/=.*//' | cut -d: -f2 | sort -un | paste -sd, -)
"$WIREBENCH" digests --counts "$counts" --out "$OUT/digests.csv"

# Every process gets DURATION + 90 s, then `timeout` stops it.
case "$DURATION" in
    *h) secs=$((${DURATION%h} * 3600)) ;;
    *m) secs=$((${DURATION%m} * 60)) ;;
    *s) secs=${DURATION%s} ;;
    *) secs=$DURATION ;;
esac
secs=${secs%.*}
[[ "$secs" =~ ^[0-9]+$ ]] || { echo "locust/run.sh: DURATION=$DURATION: expected e.g. 10s, 2m, 1h" >&2; exit 2; }
BOUND=$((secs + 90))

if [ -z "$HOST" ]; then
    # shellcheck disable=SC2086  # SERVE_ARGS is a list of flags
    timeout "$BOUND" "$WIREBENCH" serve --addr 127.0.0.1:0 $SERVE_ARGS > "$OUT/server.log" 2>&1 &
    pids+=($!)
    HOST=$(wait_line "$OUT/server.log" 'listening on http://' "$!" | grep -oE 'http://[0-9.:]+')
fi
case "$HOST" in
    http://127.0.0.1:*|http://localhost:*|http://\[::1\]:*) ;;
    *) echo "locust/run.sh: HOST must be on loopback, got $HOST" >&2; exit 2 ;;
esac
if [ -n "$STUB" ]; then
    timeout "$BOUND" "$PY" locust/stub.py --upstream "${HOST#http://}" --wrong "$STUB" --lifetime "$BOUND" \
        > "$OUT/stub.log" 2>&1 &
    pids+=($!)
    HOST=$(wait_line "$OUT/stub.log" 'listening on http://' "$!" | grep -oE 'http://[0-9.:]+')
fi

MASTER_PORT=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
common=(--wb-verify "$VERIFY" --wb-mix "$MIX" --wb-rate "$RATE" --wb-route "$ROUTE" --wb-split "$SPLIT"
        --wb-digests "$OUT/digests.csv" --wb-hlog-dir "$OUT/hlogs" --wb-run-id "$RUN_ID")
cd locust
timeout "$BOUND" "$PY" -m locust -f locustfile.py --master --headless --master-bind-host 127.0.0.1 \
    --master-bind-port "$MASTER_PORT" --expect-workers "$WORKERS" -u "$USERS" -r "$USERS" -t "$DURATION" \
    -H "$HOST" --only-summary --wb-stats "$OUT/stats.csv" "${common[@]}" > "$OUT/master.log" 2>&1 &
master=$!
pids+=($master)
for i in $(seq 1 "$WORKERS"); do
    timeout "$BOUND" "$PY" -m locust -f locustfile.py --worker --master-host 127.0.0.1 \
        --master-port "$MASTER_PORT" > "$OUT/worker-$i.log" 2>&1 &
    pids+=($!)
done
cd ..
status=0
wait "$master" || status=$?
# Workers quit with the master: wait for each up to 20 s more, then stop it.
for p in "${pids[@]:$((${#pids[@]} - WORKERS))}"; do
    for _ in $(seq 400); do kill -0 "$p" 2>/dev/null || break; sleep 0.05; done
    kill "$p" 2>/dev/null || true
    wait "$p" || true
done
if [ "$status" -ne 0 ] && [ "$status" -ne 1 ]; then
    echo "locust/run.sh: the master exited with $status (1 = some requests failed):" >&2
    tail -20 "$OUT/master.log" >&2
    exit "$status"
fi
sed -n '/Type     Name/,$p' "$OUT/master.log" | grep -v "^\[" || true
echo
"$WIREBENCH" report --hlogs "$OUT/hlogs" --run-id "$RUN_ID" --locust-csv "$OUT/stats.csv" --out "$OUT/summary.md"
echo "locust/run.sh: run $RUN_ID, $WORKERS workers, $USERS users, $DURATION, verify=$VERIFY: files in $OUT" >&2
