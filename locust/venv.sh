#!/usr/bin/env bash
# Creates (on first use) and prints the path of the Locust virtual environment
# under target/, from the pinned locust/requirements.txt. Reinstalls when the
# requirements change (a stamp holds their checksum).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${WB_LOCUST_VENV:-target/locust-venv}
REQ=locust/requirements.txt
sum=$(cksum < "$REQ")
if [ ! -x "$VENV/bin/locust" ] || [ "$(cat "$VENV/.requirements" 2>/dev/null)" != "$sum" ]; then
    echo "locust: installing $REQ into $VENV" >&2
    if ! python3 -m venv "$VENV" 2>/dev/null; then
        # Debian ships venv apart from python3.
        if command -v apt-get > /dev/null; then
            apt-get update -qq && apt-get install -y -qq python3-venv > /dev/null
        fi
        rm -rf "$VENV"
        python3 -m venv "$VENV"
    fi
    "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$REQ"
    echo "$sum" > "$VENV/.requirements"
fi
echo "$VENV"
