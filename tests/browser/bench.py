"""Benchmark of the browser page on its largest payload (20 products), not
part of any test target: for each format, ROUNDS fresh page loads; the median
time to first render (navigation start to the hex view laid out: HTML, script,
the JSON request, the render) and the median time of a selection (the click's
handler plus style and layout) must both stay under BOUND_MS.

    tests/browser/run.sh bench.py     (make bench-browser)"""

import os
import statistics
import sys

from common import FORMATS, chromium, render_times, server

BOUND_MS = 200.0
ROUNDS = int(os.environ.get("ROUNDS", "7"))


def main():
    binary = sys.argv[1]
    failed = []
    with server(binary) as base, chromium() as driver:
        render_times(driver, base, "json")  # warm the browser's caches once
        print(f"{'format':<12} {'first render ms':>16} {'selection ms':>13}   (median of {ROUNDS}, 20 products)")
        for fmt in FORMATS:
            runs = [render_times(driver, base, fmt) for _ in range(ROUNDS)]
            first = statistics.median(r[0] for r in runs)
            select = statistics.median(r[1] for r in runs)
            print(f"{fmt:<12} {first:16.1f} {select:13.1f}")
            if first >= BOUND_MS or select >= BOUND_MS:
                failed.append(fmt)
    if failed:
        print(f"over {BOUND_MS:.0f} ms: {', '.join(failed)}")
        sys.exit(1)
    print(f"every format under {BOUND_MS:.0f} ms")


if __name__ == "__main__":
    main()
