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
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$REQ"
    echo "$sum" > "$VENV/.requirements"
fi
echo "$VENV"
