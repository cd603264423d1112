#!/usr/bin/env bash
# The server-only pass of `make bench`: `wirebench serve` pinned to one core,
# `wirebench load --server` pinned to the other, so the server's requests/s
# per core and CPU µs per request are measured without the client's decode on
# the same core. The load generator accounts the server's CPU through
# --server-pid (its process and all its threads).
#
# Usage: benches/server-only.sh OUT.csv [load flags...]
#   env: SERVER_CPU=0 LOAD_CPU=1 PORT=18090
#        BIN (default: release/wirebench in cargo's target directory, which
#        honours CARGO_TARGET_DIR and cargo configs; the Makefile passes it)
#        WB_RUN_ID (the run id, passed through to `load`)
# Without `taskset` (or with fewer than 2 CPUs) both run unpinned, and the
# CSV's first comment says so (`# pinned: no`), which the report repeats.
set -euo pipefail
OUT=$1
shift
SERVER_CPU=${SERVER_CPU:-0}
LOAD_CPU=${LOAD_CPU:-1}
PORT=${PORT:-18090}
if [ -z "${BIN:-}" ]; then
    target_dir=$(cargo metadata --no-deps --format-version 1 --manifest-path "$(dirname "$0")/../Cargo.toml" 2>/dev/null |
        sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p') || true
    BIN=${target_dir:-${CARGO_TARGET_DIR:-target}}/release/wirebench
fi
if [ ! -x "$BIN" ]; then
    echo "server-only.sh: no wirebench binary at $BIN (cargo build --release, or set BIN)" >&2
    exit 2
fi

server_pin=()
load_pin=()
pinned="no (taskset missing or fewer than 2 CPUs)"
if command -v taskset >/dev/null 2>&1 && [ "$(nproc)" -ge 2 ]; then
    server_pin=(taskset -c "$SERVER_CPU")
    load_pin=(taskset -c "$LOAD_CPU")
    pinned="yes: server on CPU $SERVER_CPU, load generator on CPU $LOAD_CPU"
fi

"${server_pin[@]}" "$BIN" serve --addr "127.0.0.1:$PORT" --max-count 1000 2>/dev/null &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true' EXIT

# Wait (bounded) until the server accepts connections.
for _ in $(seq 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
        break
    fi
    sleep 0.05
done

{
    echo "# pinned: $pinned"
    "${load_pin[@]}" "$BIN" load --server "127.0.0.1:$PORT" --server-pid "$server" "$@"
} >"$OUT"
