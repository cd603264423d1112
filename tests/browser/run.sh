#!/usr/bin/env bash
# Runs a browser script (test_page.py by default, bench.py for the
# benchmark) against the release binary: installs Debian's chromium and
# chromium-driver if missing, makes the pinned venv under target/, builds.
# The script starts `wirebench serve` on a free loopback port itself and
# stops it when done.
#   tests/browser/run.sh [test_page.py|bench.py] [RESULTS_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
script=${1:-test_page.py}
results=${2:-results}
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    sudo=$(command -v sudo || true)
    $sudo apt-get update
    $sudo apt-get install -y chromium chromium-driver
fi
venv=target/browser-venv
stamp=$venv/.requirements
if [ ! -x "$venv/bin/python" ] || ! cmp -s tests/browser/requirements.txt "$stamp"; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --requirement tests/browser/requirements.txt
    cp tests/browser/requirements.txt "$stamp"
fi
cargo build --release --quiet
exec "$venv/bin/python" "tests/browser/$script" target/release/wirebench "$results"
