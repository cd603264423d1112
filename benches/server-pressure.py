#!/usr/bin/env python3
"""Helpers of benches/server-pressure.sh (python3 standard library only).

  idle-rss PORT PID N PATH     N connections each fetch PATH once (all at
                               once) and stay open; prints RSS before, with
                               them idle, and after they close (waiting for
                               surplus spare threads to exit)
  evict PORT CAP               fills the connection cap with idle keep-alive
                               connections, then times a new client's /ping
  svg CSV OUT TITLE            draws an RSS-over-time chart from "seconds,rss_kib"
  burst PORT N                 N clients connect at once (non-blocking) and
                               each sends GET /ping as soon as its connect
                               completes; prints the listening socket's
                               deepest accept queue seen meanwhile
                               (/proc/net/tcp rx_queue of the LISTEN row,
                               sampled every millisecond), and connect-to-
                               first-byte times: median, p99, max, and the
                               median of the last 10% of connections to
                               complete their connect
  ratios SUMMARY               from the case lines in SUMMARY: every row's
                               requests/s and p99 over its references' in the
                               same round (ours and rr over nginx, the floor,
                               fhttp; ours over base; rr over ours; the
                               floors over nginx; fhttp over the floor),
                               one line per round, then per pair the median
                               of the rounds' ratios with its distribution-
                               free 95% interval (the order statistics
                               src/measure/significance.rs::median_ci uses)
  median CONFIDENCE X...       prints "median lo hi coverage" of the Xs as
                               ratios does (tests/bench_helpers.rs checks it
                               against median_ci)
  case NAME OUT PID[,PID..] -- CMD...
                               runs CMD (a wrk run), keeps its output in
                               OUT/NAME.txt, and prints one line: requests/s,
                               p99, timeouts, non-2xx, socket errors, the
                               machine's TcpExt listen counters during the run
                               (/proc/net/netstat diff), and the CPU used by
                               everything but CMD and the PIDs' process trees
                               (/proc/stat), flagged when over 5% of a core;
                               per request, the PIDs' CPU time and how often
                               CMD went to sleep (its voluntary context
                               switches, from wait4)
"""
import math
import os
import re
import socket
import subprocess
import sys
import time

HZ = os.sysconf("SC_CLK_TCK")
NETSTAT_KEYS = ["ListenOverflows", "ListenDrops", "TCPSynRetrans", "TCPTimeouts", "TCPAbortOnData"]
QUIET_CORE_SHARE = 0.05


def busy_jiffies():
    """Process jiffies of all CPUs: user, nice, system. Interrupt and softirq
    time is left out: loopback traffic of the case itself is handled there,
    and the kernel does not say on whose behalf."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return v[0] + v[1] + v[2]


def netstat():
    with open("/proc/net/netstat") as f:
        lines = [l.split() for l in f if l.startswith("TcpExt:")]
    return {k: int(v) for k, v in zip(lines[0][1:], lines[1][1:])}


def tree(pids):
    """The pids and every descendant (nginx's workers, our threads are one pid)."""
    parents = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    parents[int(d)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                pass
    out, todo = set(), list(pids)
    while todo:
        p = todo.pop()
        if p in out:
            continue
        out.add(p)
        todo.extend(c for c, pp in parents.items() if pp == p)
    return out


def proc_jiffies(pids):
    total = 0
    for p in pids:
        try:
            with open(f"/proc/{p}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime stime
        except OSError:
            pass
    return total


def wrk_summary(text):
    rps = re.search(r"Requests/sec:\s+([\d.]+)", text)
    p99 = re.search(r"^\s+99%\s+(\S+)", text, re.M)
    errs = re.search(r"Socket errors: (.*)", text)
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    timeouts = re.search(r"timeout (\d+)", errs.group(1)) if errs else None
    return (
        rps.group(1) if rps else "?",
        p99.group(1) if p99 else "?",
        timeouts.group(1) if timeouts else "0",
        non2xx.group(1) if non2xx else "0",
        errs.group(1) if errs else "none",
    )


# ratios: (row kind, reference kind, the cases where the pair is compared)
RATIO_PAIRS = [
    ("ours", "nginx1", "cold|warm|c4000|c8|c64"),
    ("ours", "floor", "cold|warm|c4000|c8|c64"),
    ("ours", "fhttp", "cold|warm|c4000|c8|c64"),
    ("rr", "fhttp", "cold|warm|c4000|c8|c64"),
    ("ours", "base", "cold|warm|c4000|c8|c64"),
    ("rr", "nginx1", "cold|warm|c4000|c8|c64"),
    ("rr", "floor", "cold|warm|c4000|c8|c64"),
    ("rr", "ours", "cold|warm|c4000|c8|c64"),
    ("base", "nginx1", "cold|warm|c4000|c8|c64"),
    ("base", "floor", "cold|warm|c4000|c8|c64"),
    ("floor", "nginx1", "cold|warm|c4000"),
    ("fhttp", "nginx1", "cold|warm|c4000|c8|c64"),
    ("fhttp", "floor", "cold|warm|c4000|c8|c64"),
    ("ours", "fpool", "cold|warm|c4000|c8|c64"),
    ("fpool", "nginx1", "cold|warm|c4000|c8|c64"),
    ("ours", "nginx2", "2cores"),
    ("ours", "base", "json1000"),
]


def ms(p99):
    """wrk's p99 (e.g. 850.00us, 12.3ms, 1.02s) in milliseconds, None if unreadable."""
    m = re.fullmatch(r"([\d.]+)(us|ms|s)", p99)
    if not m:
        return None
    return float(m.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[m.group(2)]


def median_interval(values, confidence=0.95):
    """(median, lo, hi, coverage): lo and hi are the order statistics
    x(k), x(n+1-k) for the largest k whose coverage 1 - 2 P(B <= k-1),
    B ~ Binomial(n, 1/2), is still >= confidence (k = 1 when none is)."""
    v = sorted(values)
    n = len(v)
    median = v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2

    def coverage(k):
        if k == 0 or 2 * k > n + 1:
            return 0.0
        return 1.0 - 2.0 * sum(math.comb(n, i) for i in range(k)) / 2**n

    k = 1
    while coverage(k + 1) >= confidence:
        k += 1
    return median, v[k - 1], v[n - k], coverage(k)


def ratios(summary):
    rps, p99 = {}, {}
    with open(summary) as f:
        for line in f:
            t = line.split()
            if len(t) >= 5 and t[2] == "req/s" and t[3] == "p99":
                rps[t[0]] = float(t[1])
                p99[t[0]] = ms(t[4])
    groups = {}
    lines = []
    for row in rps:
        m = re.fullmatch(r"([a-z0-9]+)-([a-z0-9]+)-r(\d+)", row)
        if not m:
            continue
        kind, case_, rnd = m.groups()
        for a, b, cases in RATIO_PAIRS:
            ref = f"{b}-{case_}-r{rnd}"
            if a != kind or not re.fullmatch(cases, case_) or ref not in rps or rps[ref] <= 0:
                continue
            r = rps[row] / rps[ref]
            q = p99[row] / p99[ref] if p99[row] and p99[ref] else None
            qs = f"{q:.2f}x" if q is not None else "?"
            lines.append(f"{row:<24} req/s {r:.2f}x  p99 {qs}  (vs {ref})")
            groups.setdefault((f"{kind}-{case_}", f"{b}-{case_}"), []).append((r, q))
    for line in sorted(lines):
        print(line)
    print("## over rounds: median of the per-round ratios [95% interval of the median]")
    for (row, ref), pairs in sorted(groups.items()):
        out = [f"{row + ' / ' + ref:<28} n={len(pairs):<3}"]
        for what, values in (("req/s", [r for r, _ in pairs]), ("p99", [q for _, q in pairs if q is not None])):
            if not values:
                continue
            med, lo, hi, cov = median_interval(values)
            note = "" if cov >= 0.95 else f" ({cov:.0%} only)"
            out.append(f"{what} {med:.2f}x [{lo:.2f}, {hi:.2f}]{note}")
        print("  ".join(out))


def listen_queue(port):
    """rx_queue of the LISTEN (state 0A) row for `port` in /proc/net/tcp and tcp6."""
    deepest = None
    for path in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(path) as f:
                next(f)
                for line in f:
                    fields = line.split()
                    if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                        q = int(fields[4].split(":")[1], 16)
                        deepest = q if deepest is None else max(deepest, q)
        except OSError:
            pass
    return deepest


def burst(port, n):
    import selectors
    import threading

    stop, deepest = threading.Event(), [0]

    def sample():
        while not stop.is_set():
            q = listen_queue(port)
            if q is not None and q > deepest[0]:
                deepest[0] = q
            time.sleep(0.001)

    sampler = threading.Thread(target=sample)
    sampler.start()
    sel = selectors.DefaultSelector()
    started, connected, first = {}, [], {}
    request = b"GET /ping HTTP/1.1\r\nHost: t\r\n\r\n"
    socks = []
    for _ in range(n):
        s = socket.socket()
        s.setblocking(False)
        s.connect_ex(("127.0.0.1", port))
        started[s.fileno()] = time.monotonic()
        sel.register(s, selectors.EVENT_WRITE)
        socks.append(s)
    end = time.monotonic() + 30
    while len(first) < n and time.monotonic() < end:
        for key, ev in sel.select(timeout=1):
            s, fd = key.fileobj, key.fd
            if ev & selectors.EVENT_WRITE:
                if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) != 0:
                    sel.unregister(s)
                    first[fd] = None
                    continue
                connected.append(fd)
                s.send(request)
                sel.modify(s, selectors.EVENT_READ)
            else:
                first[fd] = time.monotonic() - started[fd]
                sel.unregister(s)
    stop.set()
    sampler.join()
    times = sorted(t for t in first.values() if t is not None)
    failed = n - len(times)
    last = sorted(first.get(fd) or 30.0 for fd in connected[-max(1, n // 10):])

    def at(xs, q):
        return xs[min(len(xs) - 1, int(q * len(xs)))] * 1000 if xs else float("nan")

    print(
        f"burst of {n}: deepest accept queue {deepest[0]}; connect->first byte ms: "
        f"p50 {at(times, 0.5):.1f} p99 {at(times, 0.99):.1f} max {at(times, 1.0):.1f}; "
        f"last 10% of connects p50 {at(last, 0.5):.1f}; no answer within 30 s: {failed}",
        flush=True,
    )
    for s in socks:
        s.close()


def case(name, out, pids, cmd):
    under_test = tree(pids)
    n0, b0, p0, t0 = netstat(), busy_jiffies(), proc_jiffies(under_test), time.time()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    _, _, usage = os.wait4(proc.pid, 0)
    text = proc.stdout.read().decode("utf-8", "replace")
    n1, b1, p1, t1 = netstat(), busy_jiffies(), proc_jiffies(under_test), time.time()
    with open(os.path.join(out, name + ".txt"), "w") as f:
        f.write(text)
    cmd_jiffies = (usage.ru_utime + usage.ru_stime) * HZ
    other = max(0.0, (b1 - b0) - (p1 - p0) - cmd_jiffies) / HZ / (t1 - t0)
    rps, p99, timeouts, non2xx, errs = wrk_summary(text)
    counters = " ".join(f"{k}={n1.get(k, 0) - n0.get(k, 0)}" for k in NETSTAT_KEYS)
    flag = "  NOISY: other processes used more than 5% of a core" if other > QUIET_CORE_SHARE else ""
    # Per request: the server's CPU (the PIDs' trees), and how often the
    # client went to sleep for want of a response (its voluntary context
    # switches, every thread's, from wait4): a response that finds the client
    # asleep costs the server's core a cross-core wake-up.
    done = re.search(r"^\s*(\d+) requests in", text, re.M)
    per_request = ""
    if done and int(done.group(1)) > 0:
        n = int(done.group(1))
        server_us = (p1 - p0) / HZ / n * 1e6
        per_request = f"; per request: server CPU {server_us:.2f} us, client slept {usage.ru_nvcsw / n:.3f} times"
    print(
        f"{name:<26} {rps:>10} req/s  p99 {p99:<9} timeouts {timeouts:<5} non-2xx {non2xx:<6} "
        f"errors: {errs}\n{'':<26} machine: {counters}; other CPU {other * 100:.1f}% of a core{per_request}{flag}",
        flush=True,
    )


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def threads(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("Threads:"):
                return int(line.split()[1])
    return 0


def read_response(s):
    """Reads one response by Content-Length; returns (status, body length)."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = s.recv(65536)
        if not chunk:
            raise RuntimeError("closed inside a head")
        buf += chunk
    head, rest = buf.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.lower() == "content-length":
            length = int(value)
    got = len(rest)
    while got < length:
        chunk = s.recv(min(1 << 20, length - got))
        if not chunk:
            raise RuntimeError("closed inside a body")
        got += len(chunk)
    return status, length


def settle(pid, seconds=1.0):
    """Waits until RSS stops changing for `seconds` (at most 30 s)."""
    last, stable_since, end = rss_kib(pid), time.time(), time.time() + 30
    while time.time() < end:
        time.sleep(0.2)
        now = rss_kib(pid)
        if abs(now - last) > 256:
            last, stable_since = now, time.time()
        elif time.time() - stable_since >= seconds:
            break
    return rss_kib(pid)


def idle_rss(port, pid, n, path, wait_threads):
    base = settle(pid)
    conns = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port))
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        conns.append(s)
    req = f"GET {path} HTTP/1.1\r\nHost: b\r\n\r\n".encode()
    for s in conns:
        s.sendall(req)
    statuses, body = {}, 0
    for s in conns:
        status, length = read_response(s)
        statuses[status] = statuses.get(status, 0) + 1
        body = max(body, length)
    held = settle(pid)
    for s in conns:
        s.close()
    # Surplus spares exit after the spare timeout; wait for the thread count to stop falling.
    end = time.time() + wait_threads
    last = threads(pid)
    while time.time() < end:
        time.sleep(0.5)
        now = threads(pid)
        if now == last and now < n:
            break
        last = now
    after = settle(pid)
    per_conn = (held - base) / n / 1024
    print(
        f"{path:<48} n={n} body={body:>8} B statuses={statuses} "
        f"rss base={base / 1024:.1f} MiB idle={held / 1024:.1f} MiB "
        f"per-conn={per_conn:.3f} MiB after-close={after / 1024:.1f} MiB "
        f"(+{(after - base) / 1024:.1f} MiB) threads={threads(pid)}"
    )


def evict(port, cap):
    conns = []
    for _ in range(cap):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"GET /ping HTTP/1.1\r\nHost: b\r\n\r\n")
        conns.append(s)
    for s in conns:
        read_response(s)
    time.sleep(1.2)  # every connection idle past --evict-idle (1 s)
    times = []
    for _ in range(5):
        t = time.perf_counter()
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"GET /ping HTTP/1.1\r\nHost: b\r\nConnection: close\r\n\r\n")
        status, _ = read_response(s)
        times.append((time.perf_counter() - t) * 1000)
        s.close()
        if status != 200:
            print(f"new client at a full cap of {cap}: status {status}")
            return
    alive = 0
    for s in conns:
        try:
            s.sendall(b"GET /ping HTTP/1.1\r\nHost: b\r\n\r\n")
            s.settimeout(2)
            read_response(s)
            alive += 1
        except Exception:
            pass
    print(
        f"new client at a cap of {cap} idle connections: 200 in "
        + ", ".join(f"{t:.2f}" for t in times)
        + f" ms (5 tries); {cap - alive} idle connections evicted"
    )


def svg(csv_path, out, title):
    rows = []
    with open(csv_path) as f:
        for line in f:
            if line[0].isdigit():
                t, kib = line.strip().split(",")[:2]
                rows.append((float(t), int(kib) / 1024))
    if not rows:
        raise SystemExit("no samples")
    w, h, left, bottom, top, right = 720, 360, 70, 40, 40, 20
    tmax = max(r[0] for r in rows) or 1
    ymax = max(r[1] for r in rows) * 1.15 or 1
    step = 10 ** len(str(int(ymax))) / 10
    while ymax / step > 8:
        step *= 2
    def x(t):
        return left + (w - left - right) * t / tmax
    def y(v):
        return h - bottom - (h - bottom - top) * v / ymax
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
        f'font-family="sans-serif" font-size="12">',
        f'<rect width="{w}" height="{h}" fill="white"/>',
        f'<text x="{w / 2}" y="20" text-anchor="middle" font-size="14">{title}</text>',
    ]
    v = 0.0
    while v <= ymax:
        parts.append(f'<line x1="{left}" x2="{w - right}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#ddd"/>')
        parts.append(f'<text x="{left - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v:.0f}</text>')
        v += step
    tstep = 60 if tmax > 300 else 10 if tmax > 60 else 5
    t = 0
    while t <= tmax:
        parts.append(f'<text x="{x(t):.1f}" y="{h - bottom + 16}" text-anchor="middle">{t:.0f}</text>')
        t += tstep
    parts.append(f'<text x="{w / 2}" y="{h - 6}" text-anchor="middle">seconds</text>')
    parts.append(
        f'<text x="16" y="{h / 2}" text-anchor="middle" transform="rotate(-90 16 {h / 2})">RSS (MiB)</text>'
    )
    points = " ".join(f"{x(t):.1f},{y(v):.1f}" for t, v in rows)
    parts.append(f'<polyline points="{points}" fill="none" stroke="#1f77b4" stroke-width="1.5"/>')
    parts.append(
        f'<line x1="{left}" x2="{left}" y1="{top}" y2="{h - bottom}" stroke="black"/>'
        f'<line x1="{left}" x2="{w - right}" y1="{h - bottom}" y2="{h - bottom}" stroke="black"/>'
    )
    parts.append("</svg>")
    with open(out, "w") as f:
        f.write("\n".join(parts) + "\n")


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "case":
        sep = sys.argv.index("--")
        case(sys.argv[2], sys.argv[3], [int(p) for p in sys.argv[4].split(",")], sys.argv[sep + 1 :])
        sys.exit(0)
    if cmd == "burst":
        burst(int(sys.argv[2]), int(sys.argv[3]))
    elif cmd == "idle-rss":
        idle_rss(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], float(sys.argv[6]))
    elif cmd == "evict":
        evict(int(sys.argv[2]), int(sys.argv[3]))
    elif cmd == "svg":
        svg(sys.argv[2], sys.argv[3], sys.argv[4])
    elif cmd == "ratios":
        ratios(sys.argv[2])
    elif cmd == "median":
        print(*median_interval([float(x) for x in sys.argv[3:]], float(sys.argv[2])))
    else:
        raise SystemExit(__doc__)
