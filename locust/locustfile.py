"""Locust load test of the wirebench catalog API, every body verified (README.md).

Every user walks the weighted cycle of cases given by ``--wb-mix`` (format,
count, compression), one request per case, starting at a random point of the
cycle, or (``--wb-split users``) keeps to one case, so the weights are shares
of users; ``--wb-route`` chooses the format by path (``/catalog/{format}``) or by
``Accept`` (``/catalog``). Each response is checked by ``wbcheck.Checker``
(``--wb-verify decode|digest|none``); a wrong body is a Locust failure whose
message names the format and what was wrong.

Closed loop (``--wb-rate 0``, the default): each user sends its next request
as soon as the previous one is checked. Open loop (``--wb-rate R``): each user
has its own schedule, request k due at start + k/R; a late user sends at once
(one request in flight per user), and latency is taken from the due time, as
``wirebench load --rate`` does. Total rate = users x R.

Latency of every successful request goes into an HdrHistogram per case (ns);
at the end of the run each process writes
``{--wb-hlog-dir}/{run id}-{host}-{pid}.hlog``, one interval per case
(``Tag=json-100-none``; in the open loop also ``Tag=service-json-100-none``).
``wirebench report --hlogs DIR --run-id ID`` merges the files of every machine.
Locust's own figures count failures too; the .hlog counts successes only.
"""

import os
import random
import socket
import sys
import time
import types

import wbcheck
import wbhlog
from geventhttpclient import HTTPClient
from locust import User, events, task

# Locust may import this file more than once in one process; every copy
# shares this one state, and only the first registers the event listeners.
S = sys.modules.setdefault(
    "_wirebench_locust_state",
    types.SimpleNamespace(run=None, env=None, last_hlog=None, stats_written=False, done={}, listening=False),
)
FIRST_COPY = not S.listening
S.listening = True


def listener(event):
    """`event.add_listener`, in the first copy of this file only."""
    return event.add_listener if FIRST_COPY else (lambda f: f)


DEFAULT_MIX = "json:100:none,msgpack:100:none,protobuf:100:none,avro:100:none,flatbuffers:100:none"
DEFAULT_DIGESTS = os.path.join(wbcheck.REPO, "target", "locust", "digests.csv")
DEFAULT_HLOG_DIR = os.path.join(wbcheck.REPO, "target", "locust", "hlogs")


@listener(events.init_command_line_parser)
def _options(parser):
    g = parser.add_argument_group("wirebench")
    g.add_argument(
        "--wb-mix",
        default=os.environ.get("WB_MIX", DEFAULT_MIX),
        help="cases FORMAT:COUNT:COMPRESSION[=WEIGHT], comma-separated (env WB_MIX)",
    )
    g.add_argument("--wb-verify", default=os.environ.get("WB_VERIFY", "decode"), choices=wbcheck.MODES)
    g.add_argument(
        "--wb-split",
        default=os.environ.get("WB_SPLIT", "requests"),
        choices=("requests", "users"),
        help="requests: every user requests every case in turn; users: each user keeps to one case",
    )
    g.add_argument("--wb-route", default=os.environ.get("WB_ROUTE", "path"), choices=("path", "accept"))
    g.add_argument(
        "--wb-rate",
        type=float,
        default=float(os.environ.get("WB_RATE", "0")),
        help="open loop: requests/s per user (0: closed loop)",
    )
    # Empty defaults, resolved in each process (local_path): the master forwards
    # its options to the workers, whose repository may live elsewhere.
    g.add_argument("--wb-digests", default=os.environ.get("WB_DIGESTS", ""), help=f"default {DEFAULT_DIGESTS}")
    g.add_argument("--wb-fixture", default=os.environ.get("WB_FIXTURE", ""), help=f"default {wbcheck.FIXTURE}")
    g.add_argument("--wb-hlog-dir", default=os.environ.get("WB_HLOG_DIR", ""), help=f"default {DEFAULT_HLOG_DIR}")
    g.add_argument(
        "--wb-run-id",
        default=os.environ.get("WB_RUN_ID") or time.strftime("locust-%Y%m%dT%H%M%S", time.gmtime()),
        help="run id written into every .hlog (env WB_RUN_ID; forwarded from the master to its workers)",
    )
    g.add_argument("--wb-timeout", type=float, default=10.0, help="connect and network timeout, s")
    g.add_argument(
        "--wb-stats",
        default=os.environ.get("WB_STATS", ""),
        help="master or local run: write Locust's final per-name stats (its own CSV layout) to FILE, "
        "and its failures to FILE.failures.csv",
    )


def local_path(value, default):
    """An option's path, or this process's default when it is empty."""
    return value or default


def parse_mix(text):
    """[(format, count, compression)] with each case repeated by its weight."""
    cycle = []
    for item in filter(None, (s.strip() for s in text.split(","))):
        case, _, weight = item.partition("=")
        parts = case.split(":")
        if len(parts) != 3:
            raise ValueError(f"--wb-mix: {item!r}, expected FORMAT:COUNT:COMPRESSION[=WEIGHT]")
        fmt, count, comp = parts[0], int(parts[1]), parts[2]
        if fmt not in wbcheck.FORMATS:
            raise ValueError(f"--wb-mix: unknown format {fmt!r}; allowed: {', '.join(wbcheck.FORMATS)}")
        if comp not in ("none", "gzip") or count < 1:
            raise ValueError(f"--wb-mix: {item!r}: compression none|gzip, count >= 1")
        cycle += [(fmt, count, comp)] * int(weight or 1)
    if not cycle:
        raise ValueError("--wb-mix is empty")
    return cycle


class Run:
    """What one process shares between its users: options, checker, histograms."""

    def __init__(self, options):
        self.options = options
        self.cycle = parse_mix(options.wb_mix)
        digests_path = local_path(options.wb_digests, DEFAULT_DIGESTS)
        fixture_path = local_path(options.wb_fixture, wbcheck.FIXTURE)
        digests = wbcheck.load_digests(digests_path) if options.wb_verify == "digest" else None
        products = wbcheck.load_fixture(fixture_path) if options.wb_verify == "decode" else []
        self.checker = wbcheck.Checker(options.wb_verify, products, digests)
        self.histograms = {}
        self.users = 0  # users started in this process
        self.start_s = wbhlog.now_s()
        self.start_perf = time.perf_counter()
        self.start_cpu = time.process_time()

    def record(self, tag, ns):
        h = self.histograms.get(tag)
        if h is None:
            h = self.histograms[tag] = wbhlog.new_histogram()
        h.record_value(max(1, min(ns, wbhlog.HIGHEST_NS)))

    def write(self):
        o = self.options
        host = socket.gethostname().replace(",", "_").replace(" ", "_")
        path = os.path.join(local_path(o.wb_hlog_dir, DEFAULT_HLOG_DIR), f"{o.wb_run_id}-{host}-{os.getpid()}.hlog")
        loop = f"open rate={o.wb_rate}/s per user, latency from the due time" if o.wb_rate > 0 else "closed"
        comments = [
            # The run stamp `wirebench load` writes (docs/MEASUREMENT.md, "Runs: one `make bench`, one run id").
            f"run: {o.wb_run_id}",
            f"wirebench locust: run_id={o.wb_run_id} host={host} pid={os.getpid()}",
            f"verify={o.wb_verify} route={o.wb_route} split={o.wb_split} loop={loop} mix={o.wb_mix}",
            "values in ns; one interval per case, successful requests only",
        ]
        length = time.perf_counter() - self.start_perf
        cpu = time.process_time() - self.start_cpu
        comments.append(f"elapsed_s={length:.3f} process_cpu_s={cpu:.3f} (this process, from test start to stop)")
        intervals = [(tag, length, h) for tag, h in sorted(self.histograms.items())]
        wbhlog.write_log(path, comments, self.start_s, intervals)
        return path


def _kind(environment):
    return type(environment.runner).__name__


@listener(events.init)
def _init(environment, **_kw):
    """Distributed runs end in two steps, so Locust's totals are final and
    equal to the .hlog counts: the master asks every worker to stop
    ("wb_stop"); a worker stops its users, writes its .hlog, sends its last
    stats, then "wb_done" (one zmq socket, so the stats arrive first); the
    master goes on with its own stop once every worker is done (Locust's own
    quit waits only 0.5 s for the workers' last stats)."""
    S.env = environment
    if {"wb_stop", "wb_done"} & set(getattr(environment.runner, "custom_messages", {})):
        return  # registered already
    if _kind(environment) == "WorkerRunner":

        def on_stop(environment, msg, **_kw):
            runner = environment.runner
            runner.stop()
            runner._send_stats()  # noqa: SLF001 (Locust has no public flush)
            runner.send_message("wb_done", {"worker": runner.client_id, "hlog": S.last_hlog})

        environment.runner.register_message("wb_stop", on_stop)
    elif _kind(environment) == "MasterRunner":
        environment.runner.register_message("wb_done", lambda msg, **_kw: S.done.update({msg.data["worker"]: msg.data}))


@listener(events.test_start)
def _test_start(environment, **_kw):
    # The master sends no requests; its workers (or a local run) do.
    if _kind(environment) != "MasterRunner":
        S.run = Run(environment.parsed_options)


@listener(events.test_stopping)
def _stopping(environment, **_kw):
    if _kind(environment) != "MasterRunner":
        return
    import gevent  # noqa: PLC0415

    runner = environment.runner
    S.done.clear()
    workers = [c.id for c in runner.clients.all]
    runner.send_message("wb_stop")
    deadline = time.monotonic() + 60
    while set(workers) - set(S.done) and time.monotonic() < deadline:
        gevent.sleep(0.05)
    missing = set(workers) - set(S.done)
    if missing:
        print(f"wirebench locust: no final report from workers {sorted(missing)}", flush=True)


@listener(events.test_stop)
def _test_stop(environment, **_kw):
    if S.run is not None:
        path = S.last_hlog = S.run.write()
        S.run = None
        print(f"wirebench locust: wrote {path}", flush=True)


@listener(events.quit)
def _quit(**_kw):
    """Locust's own final figures, written after every worker reported (Locust's
    --csv files are written once a second and may miss the last second)."""
    o = S.env.parsed_options if S.env is not None else None
    if S.stats_written or o is None or not getattr(o, "wb_stats", "") or _kind(S.env) == "WorkerRunner":
        return
    S.stats_written = True
    import csv  # noqa: PLC0415

    from locust.stats import PERCENTILES_TO_REPORT, StatsCSV  # noqa: PLC0415

    os.makedirs(os.path.dirname(os.path.abspath(o.wb_stats)), exist_ok=True)
    stats = StatsCSV(S.env, PERCENTILES_TO_REPORT)
    with open(o.wb_stats, "w", newline="") as f:
        stats.requests_csv(csv.writer(f))
    with open(o.wb_stats + ".failures.csv", "w", newline="") as f:
        stats.failures_csv(csv.writer(f))
    print(f"wirebench locust: wrote {o.wb_stats}", flush=True)


class CatalogUser(User):
    """One keep-alive connection; requests the cases of --wb-mix in turn."""

    def on_start(self):
        from urllib.parse import urlsplit  # noqa: PLC0415

        o = self.environment.parsed_options
        u = urlsplit(self.host or "http://127.0.0.1:8090")
        self.http = HTTPClient(
            u.hostname,
            u.port or 80,
            connection_timeout=o.wb_timeout,
            network_timeout=o.wb_timeout,
            concurrency=1,
        )
        self.route = o.wb_route
        self.rate = o.wb_rate
        n = len(S.run.cycle)
        if o.wb_split == "users":
            # User k of worker w keeps to case (w + k) mod n: the weights become shares of users.
            S.run.users += 1
            self.position, self.step = (getattr(self.environment.runner, "worker_index", 0) + S.run.users - 1) % n, 0
        else:
            self.position, self.step = random.randrange(n), 1
        self.due = time.perf_counter()

    def on_stop(self):
        self.http.close()

    def wait_time(self):
        if self.rate <= 0:
            return 0
        return max(0.0, self.due - time.perf_counter())

    @task
    def get_catalog(self):
        run = S.run
        fmt, count, comp = run.cycle[self.position]
        self.position = (self.position + self.step) % len(run.cycle)
        due = self.due
        self.due += 1 / self.rate if self.rate > 0 else 0
        name = f"{fmt}-{count}-{comp}"
        if self.route == "path":
            path, headers = f"/catalog/{fmt}?count={count}&compression={comp}", {}
        else:
            path, headers = f"/catalog?count={count}&compression={comp}", {"Accept": wbcheck.MEDIA_TYPES[fmt]}
        start = time.perf_counter_ns()
        body = b""
        try:
            r = self.http.get(path, headers=headers)
            body = r.read()
            end = time.perf_counter_ns()
            status, hdrs = r.status_code, {k.lower(): v for k, v in r.items()}
            r.release()
        except Exception as e:  # connect, reset, timeout: a failure, never a crash
            end = time.perf_counter_ns()
            self._fire(name, start, end, 0, f"{fmt}: {type(e).__name__}: {e}")
            self.http.close()
            return
        reason = run.checker.check(fmt, count, comp, status, hdrs, body)
        if reason is None:
            if self.rate > 0:
                run.record(name, end - int(due * 1e9) if due * 1e9 < start else end - start)
                run.record(f"service-{name}", end - start)
            else:
                run.record(name, end - start)
        self._fire(name, start, end, len(body), reason)

    def _fire(self, name, start, end, length, reason):
        self.environment.events.request.fire(
            request_type="GET",
            name=name,
            response_time=(end - start) / 1e6,
            response_length=length,
            exception=None if reason is None else VerifyError(reason),
            context={},
        )


class VerifyError(Exception):
    """A response that failed its check; the message is the reason."""
