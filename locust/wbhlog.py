"""HdrHistogram interval logs (.hlog) from Locust workers.

Each interval's histogram is encoded by the ``hdrhistogram`` package
(HdrHistogram_py: V2 compressed, cookie 0x1c849314, zlib, base64), so the
payload comes from an HdrHistogram implementation independent of wirebench.
The text around it is written here, in the layout of HdrHistogram's
``HistogramLogWriter`` (log format 1.3) that ``wirebench report --hlogs``
reads (src/measure/hlog.rs): the package's own writer has no ``Tag=`` and
its start-time line does not run on Python 3.

Values are nanoseconds, 1 ns .. 2^40 ns, 3 significant digits: the layout
of the logs ``wirebench load --histograms`` writes.
"""

import os
import time

from hdrh.histogram import HdrHistogram

LOWEST_NS = 1
HIGHEST_NS = 1 << 40
DIGITS = 3
MAX_VALUE_DIVISOR = 1e6  # Interval_Max in ms, as Java's HistogramLogWriter


def new_histogram():
    return HdrHistogram(LOWEST_NS, HIGHEST_NS, DIGITS)


def write_log(path, comments, start_time_s, intervals):
    """Writes a log: `intervals` is a list of (tag, length_s, histogram).

    Tags may not hold commas or spaces. The file is written whole, then
    renamed into place, so a reader never sees half a log.
    """
    lines = ["#" + c for c in comments]
    lines.append("#[Histogram log format version 1.3]")
    lines.append(f"#[StartTime: {start_time_s:.3f} (seconds since epoch)]")
    lines.append(f"#[BaseTime: {start_time_s:.3f} (seconds since epoch)]")
    lines.append(f"#[MaxValueDivisor: {MAX_VALUE_DIVISOR:.3f}]")
    lines.append('"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"')
    for tag, length_s, h in intervals:
        if "," in tag or " " in tag:
            raise ValueError(f"hlog tag {tag!r} holds a comma or a space")
        if h.get_total_count() == 0:
            continue
        payload = h.encode().decode("ascii")
        max_ms = h.get_max_value() / MAX_VALUE_DIVISOR
        lines.append(f"Tag={tag},0.000,{length_s:.3f},{max_ms:.3f},{payload}")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, path)


def now_s():
    return time.time()
