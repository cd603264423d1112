#!/usr/bin/env bash
# How many requests/s one Locust worker core verifies, per verification mode,
# beside `wirebench load --url` on the same route: so a target rate tells how
# many worker machines it needs.
#
# The server runs on CPU $SERVER_CPU, every client on CPU $CLIENT_CPU (taskset,
# where there is one). Locust runs as one local process (one core: gevent is
# single-threaded), closed loop, $USERS users, for $DURATION per mode; its
# verified requests are also divided by the CPU time it used while the test ran
# (requests per CPU-second), which is what a saturated worker core delivers. `wirebench load --url … --verify
# FORMAT` runs with one polling thread (it takes its whole core by design).
#
#   locust/bench.sh                               # json, 100 products, 20 s per mode
#   FORMAT=protobuf COUNT=1 DURATION=5s locust/bench.sh
#
# Output: one Markdown table on stdout; raw logs in target/locust/bench/.
set -euo pipefail
cd "$(dirname "$0")/.."
FORMAT=${FORMAT:-json}
COUNT=${COUNT:-100}
COMPRESSION=${COMPRESSION:-none}
DURATION=${DURATION:-20s}
USERS=${USERS:-16}
SERVER_CPU=${SERVER_CPU:-0}
CLIENT_CPU=${CLIENT_CPU:-1}
WIREBENCH=${WIREBENCH:-target/release/wirebench}
OUT=target/locust/bench
[ -x "$WIREBENCH" ] || cargo build --release --quiet
VENV=$(locust/venv.sh)
PY=$PWD/$VENV/bin/python
rm -rf "$OUT" && mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
pin() { if command -v taskset > /dev/null; then taskset -c "$1" "${@:2}"; else "${@:2}"; fi; }
secs=${DURATION%s}

"$WIREBENCH" digests --formats "$FORMAT" --counts "$COUNT" --compression "$COMPRESSION" --out "$OUT/digests.csv" 2> /dev/null
pin "$SERVER_CPU" timeout $((${secs%.*} * 5 + 120)) "$WIREBENCH" serve --addr 127.0.0.1:0 > "$OUT/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; wait $server 2>/dev/null || true' EXIT
until grep -q 'listening on' "$OUT/server.log"; do
    kill -0 $server 2>/dev/null || { cat "$OUT/server.log" >&2; exit 1; }
    sleep 0.05
done
HOST=$(grep -oE 'http://[0-9.:]+' "$OUT/server.log" | head -1)
route="/catalog/$FORMAT?count=$COUNT&compression=$COMPRESSION"

echo "| client | verification | requests/s | client CPU s | requests per client CPU-second |"
echo "|---|---|---:|---:|---:|"
for mode in none digest decode; do
    # CPU time: the Locust process's own, from test start to stop (in its .hlog).
    (cd locust && pin "$CLIENT_CPU" "$PY" - "$mode" "$HOST" "$DURATION" "$USERS" "$OUT" "$FORMAT:$COUNT:$COMPRESSION" <<'EOF'
import csv, subprocess, sys
mode, host, duration, users, out, mix = sys.argv[1:]
subprocess.run(
    [sys.executable, "-m", "locust", "-f", "locustfile.py", "--headless", "-u", users, "-r", users, "-t", duration,
     "-H", host, "--only-summary", "--wb-verify", mode, "--wb-mix", mix, "--wb-digests", f"{out}/digests.csv",
     "--wb-hlog-dir", f"{out}/hlogs-{mode}", "--wb-run-id", f"bench-{mode}", "--wb-stats", f"{out}/stats-{mode}.csv"],
    stdout=open(f"{out}/locust-{mode}.log", "w"), stderr=subprocess.STDOUT, check=False, timeout=600)
import glob, re
log = open(glob.glob(f"{out}/hlogs-{mode}/*.hlog")[0]).read()
cpu = float(re.search(r"process_cpu_s=([0-9.]+)", log).group(1))
agg = [row for row in csv.DictReader(open(f"{out}/stats-{mode}.csv")) if row["Name"] == "Aggregated"][0]
ok = int(agg["Request Count"]) - int(agg["Failure Count"])
rps = float(agg["Requests/s"])
fails = int(agg["Failure Count"])
note = f" ({fails} failed)" if fails else ""
print(f"| Locust, 1 process | {mode}{note} | {rps:,.0f} | {cpu:.1f} | {ok / cpu if cpu else 0:,.0f} |")
EOF
    )
done
pin "$CLIENT_CPU" "$WIREBENCH" load --url "$HOST$route" --verify "$FORMAT" --expect-count "$COUNT" \
    --duration "$DURATION" --concurrency "$USERS" --threads 1 --format json > "$OUT/wirebench-load.json" 2> "$OUT/wirebench-load.log" || true
"$PY" - "$OUT/wirebench-load.json" <<'EOF'
import json, sys
r = json.loads(open(sys.argv[1]).read().splitlines()[-1])
print(f"| wirebench load --url, 1 polling thread | decode (own borrowed view) | {r['requests_per_s']:,.0f} | (whole core) | ≈ {r['requests_per_s']:,.0f} |")
EOF
echo
echo "route $route; server on CPU $SERVER_CPU, clients on CPU $CLIENT_CPU; $USERS users/connections, $DURATION per row"
