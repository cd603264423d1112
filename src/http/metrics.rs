//! The server's own counters, served at `GET /metrics` in the Prometheus text
//! exposition format 0.0.4 (`Content-Type: text/plain; version=0.0.4`).
//!
//! **Nothing contended on the serving path.** Every worker thread owns one
//! [`WorkerMetrics`] block and is its only writer: an increment is a relaxed
//! load and a relaxed store (no locked instruction, no cache line shared with
//! another writer). The [`Registry`] keeps every block and sums them only when
//! `/metrics` is scraped. A scrape may see a block mid-request (requests
//! counted, bytes not yet): each value is exact, their sum a snapshot within
//! one request per worker. The kernel's figures ([`Kernel`]) are read at
//! scrape time too, never on the serving path; a series the kernel does not
//! give is left out.
//!
//! | name | type | labels |
//! |---|---|---|
//! | `wirebench_http_requests_total` | counter | `route`, `format`, `status` |
//! | `wirebench_http_response_bytes_total` | counter | `route`, `format`, `status` (body bytes; 0 for HEAD) |
//! | `wirebench_http_request_duration_seconds` | histogram | `route`: from a complete request head to the response handed to the kernel |
//! | `wirebench_encode_duration_seconds` | histogram | `format`: one response's body made ready (the encode, and the gzip when asked) |
//! | `wirebench_http_open_connections` | gauge | connections accepted and not yet closed |
//! | `wirebench_http_parked_connections` | gauge | connections in the poller, waiting for their client's bytes |
//! | `wirebench_http_queued_connections` | gauge | connections with bytes to serve, waiting for a worker |
//! | `wirebench_http_worker_threads` | gauge | `state` = `busy` or `idle` |
//! | `wirebench_http_refused_connections_total` | counter | connections answered 503 at the connection limit |
//! | `wirebench_http_queue_wait_max_seconds` | gauge | the longest a connection waited in the queue for a worker, since the start |
//! | `wirebench_sched_realtime` | gauge | 1 when the workers run in the real-time round-robin class (`--sched rr`, granted), else 0 |
//! | `wirebench_listen_queue_length` | gauge | connections waiting in the listening socket's accept queue (`TCP_INFO`) |
//! | `wirebench_listen_backlog` | gauge | that queue's capacity: `--backlog` after the kernel's `somaxconn` cap |
//! | `wirebench_listen_drops_total` | counter | connects this listening socket dropped, its queue full (`SO_MEMINFO`) |
//! | `wirebench_tcp_listen_overflows_total` | counter | `scope="machine"`: `TcpExtListenOverflows` of `/proc/net/netstat`, every socket of the machine |
//! | `wirebench_tcp_listen_drops_total` | counter | `scope="machine"`: `TcpExtListenDrops`, every socket of the machine |
//!
//! **Labels.** `route` and `format` values are the application's, declared in
//! a [`Layout`] (`serve::routes::METRICS`); `format` is its second label,
//! `none` on a response without one. Counters and histograms list only the
//! label sets seen. Histogram buckets are cumulative (`le`), end in
//! `le="+Inf"`, then `_sum` (seconds) and `_count`.
//!
//! **Memory.** One block is the [`Layout`]'s counters (6.5 KiB for `serve`'s),
//! padded by a cache line on each side, allocated once per worker thread. An
//! exited worker's block is folded into the retired counts and freed at the
//! next scrape, or at a registration that finds the list doubled since its
//! last fold: the registry holds at most twice the peak of worker threads'
//! blocks (or [`FOLD_MIN`]), and n registrations walk O(n) entries in all.

use super::sys::{self, ListenQueue};
use std::fmt::{Display, Write as _};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// The most routes a [`Layout`] may name.
pub const MAX_ROUTES: usize = 16;

/// What the application counts its responses under, declared once as a
/// `static`: its `route` label values and a second label (`format`) some
/// routes split by. Route 0 counts what no route claims: heads rejected
/// before routing, and replies made with [`Reply::new`](super::response::Reply::new).
/// The server knows the layout's words, never its names' meaning.
#[derive(Debug)]
pub struct Layout {
    /// `route` label values, each with whether it splits by the variant label.
    routes: &'static [(&'static str, bool)],
    /// The second label's name and its values.
    variant: &'static str,
    variants: &'static [&'static str],
    /// The encode-time histogram's `# HELP` text.
    encode_help: &'static str,
    /// Where each route's region starts; then where the encode-time histograms start.
    region: [usize; MAX_ROUTES + 1],
    /// Counters in one worker's block.
    words: usize,
}

impl Layout {
    /// The layout of `routes` and `variants`. Panics (at compile time, in
    /// a `static`) with no route or more than [`MAX_ROUTES`].
    pub const fn new(
        routes: &'static [(&'static str, bool)],
        variant: &'static str,
        variants: &'static [&'static str],
        encode_help: &'static str,
    ) -> Layout {
        assert!(!routes.is_empty() && routes.len() <= MAX_ROUTES);
        let mut region = [0; MAX_ROUTES + 1];
        let mut r = 0;
        while r < routes.len() {
            let slots = if routes[r].1 { 1 + variants.len() } else { 1 };
            region[r + 1] = region[r] + slots * STATUS_SLOTS * 2 + HIST_WORDS;
            r += 1;
        }
        let words = region[routes.len()] + variants.len() * HIST_WORDS;
        while r < MAX_ROUTES {
            region[r + 1] = region[r];
            r += 1;
        }
        Layout {
            routes,
            variant,
            variants,
            encode_help,
            region,
            words,
        }
    }

    /// The route (0 if out of range) and the variant slot (0: none) of a response.
    #[inline]
    fn slots(&self, route: u8, variant: Option<u8>) -> (usize, usize) {
        let r = route as usize;
        let Some(&(_, varied)) = self.routes.get(r) else {
            return (0, 0);
        };
        match variant {
            Some(v) if varied && (v as usize) < self.variants.len() => (r, 1 + v as usize),
            _ => (r, 0),
        }
    }

    /// The first word (the request count) of the series of route `r`,
    /// variant slot `v` and the status in slot `sslot`.
    fn series_at(&self, r: usize, v: usize, sslot: usize) -> usize {
        self.region[r] + 2 * (v * STATUS_SLOTS + sslot)
    }

    /// The first word of route `r`'s request-time histogram.
    fn request_time(&self, r: usize) -> usize {
        self.region[r + 1] - HIST_WORDS
    }

    /// The first word of variant `v`'s encode-time histogram.
    fn encode_time(&self, v: usize) -> usize {
        self.region[MAX_ROUTES] + v * HIST_WORDS
    }

    /// Every (route, variant slot) pair that has a series: the routes
    /// without variants, then each route with its variants.
    fn endpoints(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        let n = self.variants.len();
        let plain = (0..self.routes.len()).filter(|&r| !self.routes[r].1).map(|r| (r, 0));
        let varied = (0..self.routes.len())
            .filter(|&r| self.routes[r].1)
            .flat_map(move |r| (0..=n).map(move |v| (r, v)));
        plain.chain(varied)
    }

    /// The variant label's value of slot `v`.
    fn variant_name(&self, v: usize) -> &'static str {
        v.checked_sub(1)
            .and_then(|i| self.variants.get(i))
            .copied()
            .unwrap_or("none")
    }
}

/// Statuses counted by name; anything else counts as `other`.
const STATUSES: [u16; 12] = [200, 400, 404, 405, 406, 408, 413, 414, 431, 500, 503, 505];
const STATUS_SLOTS: usize = STATUSES.len() + 1;
/// Upper bounds of the duration buckets, in nanoseconds (10 µs … 1 s); a
/// last `+Inf` bucket follows.
pub const BOUNDS_NS: [u64; 16] = [
    10_000,
    25_000,
    50_000,
    100_000,
    250_000,
    500_000,
    1_000_000,
    2_500_000,
    5_000_000,
    10_000_000,
    25_000_000,
    50_000_000,
    100_000_000,
    250_000_000,
    500_000_000,
    1_000_000_000,
];
const BUCKETS: usize = BOUNDS_NS.len() + 1;
/// One histogram: the sum in ns, then its buckets (not cumulative).
const HIST_WORDS: usize = 1 + BUCKETS;

// The layout of a block ([`Layout`]): one region per route, in the
// layout's order — its series (per variant slot and status: the request
// count, then the body bytes) followed by its request-time histogram — then
// the encode-time histograms. Counting a response writes a few neighbouring
// words of one region (two or three cache lines of one page, not four lines
// on two pages apart): a worker's block is cold each time its connection's
// turn comes.
/// A series' request count and body bytes, at these offsets from its word.
const REQUESTS: usize = 0;
const BYTES: usize = 1;

fn status_slot(status: u16) -> usize {
    STATUSES.iter().position(|&s| s == status).unwrap_or(STATUSES.len())
}

fn bucket_of(ns: u64) -> usize {
    BOUNDS_NS.iter().position(|&b| ns <= b).unwrap_or(BOUNDS_NS.len())
}

/// Unused counters before and after a block: one cache line (64 bytes) each,
/// so two workers' blocks never share a line whatever the allocator does.
const PAD: usize = 8;

/// One worker's counters. Only its worker writes them (see the module doc).
///
/// The worker holds this handle in place and the words sit in the `Arc`'s
/// own allocation: a worker's turn comes once per request of its
/// connection, after the other connections' threads have pushed its lines
/// out of the core's caches, so counting a response misses once (the
/// counter's line), not twice in a row (a pointer, then the counter). The
/// [`Layout`] is a `static` every worker reads and none writes.
#[derive(Debug)]
pub struct WorkerMetrics {
    layout: &'static Layout,
    /// [`PAD`] words, the layout's counters, [`PAD`] words.
    words: Arc<[AtomicU64]>,
}

/// Counter `i` of a block.
fn word(block: &[AtomicU64], i: usize) -> u64 {
    block.get(PAD + i).map_or(0, |w| w.load(Ordering::Relaxed))
}

impl WorkerMetrics {
    fn new(layout: &'static Layout) -> WorkerMetrics {
        let words = (0..PAD + layout.words + PAD).map(|_| AtomicU64::new(0)).collect();
        WorkerMetrics { layout, words }
    }

    /// Adds `n` to counter `i`. Single writer: load + store, no read-modify-write.
    #[inline]
    fn add(&self, i: usize, n: u64) {
        if let Some(w) = self.words.get(PAD + i) {
            w.store(w.load(Ordering::Relaxed).wrapping_add(n), Ordering::Relaxed);
        }
    }

    /// Counts one response: its route and variant (indices into the
    /// [`Layout`]; a variant on a route without variants counts under
    /// none), status, body bytes sent, the encode time (0 = nothing was
    /// encoded) and the request time.
    #[inline]
    pub fn record(&self, route: u8, variant: Option<u8>, status: u16, bytes: usize, encode_ns: u64, request_ns: u64) {
        let l = self.layout;
        let (r, v) = l.slots(route, variant);
        let s = l.series_at(r, v, status_slot(status));
        self.add(s + REQUESTS, 1);
        self.add(s + BYTES, bytes as u64);
        let h = l.request_time(r);
        self.add(h, request_ns);
        self.add(h + 1 + bucket_of(request_ns), 1);
        if let Some(v) = variant
            && (v as usize) < l.variants.len()
            && encode_ns > 0
        {
            let h = l.encode_time(v as usize);
            self.add(h, encode_ns);
            self.add(h + 1 + bucket_of(encode_ns), 1);
        }
    }

    /// Counts a response sent before any route was chosen (a rejected head):
    /// route 0, no request time.
    pub fn record_rejected(&self, status: u16, bytes: usize) {
        let s = self.layout.series_at(0, 0, status_slot(status));
        self.add(s + REQUESTS, 1);
        self.add(s + BYTES, bytes as u64);
    }
}

/// The pool's state at scrape time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Gauges {
    pub open_connections: usize,
    /// Connections in the poller.
    pub parked_connections: usize,
    /// Connections queued for a worker.
    pub queued_connections: usize,
    pub busy_threads: usize,
    pub idle_threads: usize,
    /// The longest a connection waited in the queue for a worker.
    pub queue_wait_max: std::time::Duration,
    /// The workers run in the real-time round-robin class (`--sched rr`, granted).
    pub realtime: bool,
}

/// Reads the pool's gauges at scrape time (set once the pool exists).
type GaugeSource = Box<dyn Fn() -> Gauges + Send + Sync>;

/// Every worker's block, summed when scraped; plus the refusal counter.
///
/// A worker's buffers that are replaced (after a panic) drop their handle on its
/// block; a later scrape, or a registration once the list has doubled,
/// folds that block into `retired` and frees it (module doc, "Memory").
pub struct Registry {
    layout: &'static Layout,
    blocks: Mutex<Blocks>,
    /// Counts of the workers that have exited.
    retired: Mutex<Vec<u64>>,
    /// Written by the acceptor; refusals
    /// are off the serving path, so one shared counter is fine.
    refused: AtomicU64,
    gauges: std::sync::OnceLock<GaugeSource>,
}

/// The fewest entries a registration lets the list reach before it folds.
pub const FOLD_MIN: usize = 64;

/// The registered blocks and when a registration next folds them.
#[derive(Default)]
struct Blocks {
    list: Vec<Arc<[AtomicU64]>>,
    /// A registration folds once `list` is this long: twice what the last
    /// fold kept (at least [`FOLD_MIN`]), so n registrations walk O(n)
    /// entries in all.
    fold_at: usize,
    /// Entries walked by folds so far (for the test of that bound).
    walked: usize,
}

impl Blocks {
    fn fold(&mut self, retired: &Mutex<Vec<u64>>, words: usize) {
        let mut retired = retired.lock().unwrap_or_else(PoisonError::into_inner);
        if retired.is_empty() {
            retired.resize(words, 0);
        }
        self.walked += self.list.len();
        self.list.retain(|b| {
            if Arc::strong_count(b) > 1 {
                return true;
            }
            for (t, i) in retired.iter_mut().zip(0..) {
                *t = t.wrapping_add(word(b, i));
            }
            false
        });
        self.fold_at = (2 * self.list.len()).max(FOLD_MIN);
    }
}

impl std::fmt::Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registry")
            .field("refused", &self.refused.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl Registry {
    /// An empty registry of blocks laid out by `layout`.
    pub fn new(layout: &'static Layout) -> Registry {
        Registry {
            layout,
            blocks: Mutex::default(),
            retired: Mutex::default(),
            refused: AtomicU64::new(0),
            gauges: std::sync::OnceLock::new(),
        }
    }

    /// A new block for one worker thread, kept for as long as the server runs.
    pub fn register(&self) -> WorkerMetrics {
        let block = WorkerMetrics::new(self.layout);
        let mut blocks = self.blocks.lock().unwrap_or_else(PoisonError::into_inner);
        if blocks.list.len() >= blocks.fold_at {
            // Moves the counts of workers that have exited (the registry
            // holds the only handle left) into `retired`, frees their blocks.
            blocks.fold(&self.retired, self.layout.words);
        }
        blocks.list.push(Arc::clone(&block.words));
        block
    }

    /// Where open connections and busy/idle threads come from at scrape
    /// time; the pool sets it once when it starts.
    pub fn set_gauges(&self, source: GaugeSource) {
        let _ = self.gauges.set(source);
    }

    /// The gauges now (all zero before the pool has set its source).
    pub fn gauges(&self) -> Gauges {
        self.gauges.get().map(|g| g()).unwrap_or_default()
    }

    /// Counts one connection refused with 503.
    pub fn refused(&self) {
        self.refused.fetch_add(1, Ordering::Relaxed);
    }

    /// Every counter summed over the workers.
    fn sum(&self) -> Vec<u64> {
        let mut blocks = self.blocks.lock().unwrap_or_else(PoisonError::into_inner);
        blocks.fold(&self.retired, self.layout.words);
        let mut total = self.retired.lock().unwrap_or_else(PoisonError::into_inner).clone();
        total.resize(self.layout.words, 0);
        for block in blocks.list.iter() {
            for (t, i) in total.iter_mut().zip(0..) {
                *t = t.wrapping_add(word(block, i));
            }
        }
        total
    }

    /// Writes the exposition (text format 0.0.4) into `out`.
    pub fn render(&self, gauges: Gauges, kernel: &Kernel, out: &mut Vec<u8>) {
        let total = self.sum();
        let l = self.layout;
        let mut s = String::with_capacity(4096);
        let counter = |s: &mut String, name: &str, help: &str, base: usize| {
            let _ = writeln!(s, "# HELP {name} {help}\n# TYPE {name} counter");
            for (r, v) in l.endpoints() {
                for (sslot, status) in STATUSES
                    .iter()
                    .map(|s| s.to_string())
                    .chain(["other".into()])
                    .enumerate()
                {
                    let i = l.series_at(r, v, sslot);
                    if total[i + REQUESTS] == 0 {
                        continue;
                    }
                    let _ = writeln!(
                        s,
                        "{name}{{route=\"{}\",{}=\"{}\",status=\"{status}\"}} {}",
                        l.routes[r].0,
                        l.variant,
                        l.variant_name(v),
                        total[i + base]
                    );
                }
            }
        };
        counter(
            &mut s,
            "wirebench_http_requests_total",
            &format!("HTTP responses sent, by route, {} and status.", l.variant),
            REQUESTS,
        );
        counter(
            &mut s,
            "wirebench_http_response_bytes_total",
            &format!("Response body bytes sent, by route, {} and status.", l.variant),
            BYTES,
        );
        let name = "wirebench_http_request_duration_seconds";
        let _ = writeln!(
            s,
            "# HELP {name} From a complete request head to the response handed to the kernel.\n# TYPE {name} histogram"
        );
        for (r, (route, _)) in l.routes.iter().enumerate() {
            let h = l.request_time(r);
            histogram(&mut s, name, "route", route, &total[h..h + HIST_WORDS]);
        }
        let name = "wirebench_encode_duration_seconds";
        let _ = writeln!(s, "# HELP {name} {}\n# TYPE {name} histogram", l.encode_help);
        for (v, value) in l.variants.iter().enumerate() {
            let h = l.encode_time(v);
            histogram(&mut s, name, l.variant, value, &total[h..h + HIST_WORDS]);
        }
        let g = gauges;
        let (refused, wait) = (self.refused.load(Ordering::Relaxed), g.queue_wait_max.as_secs_f64());
        let series: [&[(&str, &dyn Display)]; 7] = [
            &[("", &g.open_connections)],
            &[("", &g.parked_connections)],
            &[("", &g.queued_connections)],
            &[
                ("{state=\"busy\"}", &g.busy_threads),
                ("{state=\"idle\"}", &g.idle_threads),
            ],
            &[("", &refused)],
            &[("", &wait)],
            &[("", &u8::from(g.realtime))],
        ];
        for (spec, series) in POOL_SERIES.iter().zip(series) {
            family(&mut s, spec, series);
        }
        kernel.render(&mut s);
        out.extend_from_slice(s.as_bytes());
    }
}

/// What a handler renders `/metrics` with: the server's registry and its
/// listening socket, read when scraped (never on the serving path).
#[derive(Debug, Clone, Copy)]
pub struct Exposition<'a> {
    registry: &'a Registry,
    listener: &'a std::net::TcpListener,
}

impl<'a> Exposition<'a> {
    pub fn new(registry: &'a Registry, listener: &'a std::net::TcpListener) -> Exposition<'a> {
        Exposition { registry, listener }
    }

    /// Appends the exposition of the server's counters and the kernel's
    /// listen-queue figures, read now, to `out`.
    #[inline(never)]
    pub fn render(&self, out: &mut Vec<u8>) {
        let kernel = Kernel::read(self.listener);
        self.registry.render(self.registry.gauges(), &kernel, out);
    }
}

/// What the kernel says about the listening socket and the machine's TCP
/// listeners, read at scrape time ([`Kernel::read`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Kernel {
    pub queue: Option<ListenQueue>,
    pub drops: Option<u32>,
    /// `TcpExtListenOverflows` and `TcpExtListenDrops`, machine-wide.
    pub machine: Option<(u64, u64)>,
}

impl Kernel {
    /// Reads the listener's queue and drops and `/proc/net/netstat`.
    pub fn read(listener: &std::net::TcpListener) -> Kernel {
        let netstat = std::fs::read_to_string("/proc/net/netstat").ok();
        Kernel {
            queue: sys::listen_queue(listener).ok(),
            drops: sys::drops(listener).ok(),
            machine: netstat.as_deref().and_then(listen_overflows),
        }
    }

    fn render(&self, s: &mut String) {
        let machine = "{scope=\"machine\"}";
        let rows = [
            self.queue.map(|q| ("", u64::from(q.queued))),
            self.queue.map(|q| ("", u64::from(q.backlog))),
            self.drops.map(|d| ("", u64::from(d))),
            self.machine.map(|(overflows, _)| (machine, overflows)),
            self.machine.map(|(_, drops)| (machine, drops)),
        ];
        for (spec, row) in KERNEL_SERIES.iter().zip(rows) {
            if let Some((labels, value)) = row {
                family(s, spec, &[(labels, &value)]);
            }
        }
    }
}

/// The pool's series in exposition order, each "name type help".
const POOL_SERIES: [&str; 7] = [
    "wirebench_http_open_connections gauge Connections accepted and not yet closed.",
    "wirebench_http_parked_connections gauge Connections in the poller, waiting for their client's bytes.",
    "wirebench_http_queued_connections gauge Connections with bytes to serve, waiting for a worker.",
    "wirebench_http_worker_threads gauge Worker threads, serving a connection (busy) or waiting for one (idle).",
    "wirebench_http_refused_connections_total counter Connections answered 503 at the connection limit.",
    "wirebench_http_queue_wait_max_seconds gauge The longest a connection waited in the queue for a worker, since the server started.",
    "wirebench_sched_realtime gauge 1 when the workers run in the real-time round-robin class (--sched rr, granted), else 0.",
];

/// The kernel's series ([`Kernel`]), in the same form.
const KERNEL_SERIES: [&str; 5] = [
    "wirebench_listen_queue_length gauge Connections waiting in the listening socket's accept queue.",
    "wirebench_listen_backlog gauge Capacity of the listening socket's accept queue.",
    "wirebench_listen_drops_total counter Connects the listening socket dropped because its accept queue was full.",
    "wirebench_tcp_listen_overflows_total counter TcpExtListenOverflows: accept-queue overflows of every socket on the machine.",
    "wirebench_tcp_listen_drops_total counter TcpExtListenDrops: connects dropped by every listening socket on the machine.",
];

/// One metric family: `# HELP` and `# TYPE` of `spec` ("name type help"),
/// then one sample per `(labels, value)`.
fn family(s: &mut String, spec: &str, series: &[(&str, &dyn Display)]) {
    let mut words = spec.splitn(3, ' ');
    let (name, kind, help) = (words.next(), words.next(), words.next());
    let (name, kind, help) = (name.unwrap_or(""), kind.unwrap_or(""), help.unwrap_or(""));
    let _ = writeln!(s, "# HELP {name} {help}\n# TYPE {name} {kind}");
    for (labels, value) in series {
        let _ = writeln!(s, "{name}{labels} {value}");
    }
}

/// `ListenOverflows` and `ListenDrops` of the `TcpExt:` lines of
/// `/proc/net/netstat` (a line of names, then a line of values).
pub fn listen_overflows(netstat: &str) -> Option<(u64, u64)> {
    let mut lines = netstat.lines().filter(|l| l.starts_with("TcpExt:"));
    let names = lines.next()?.split_whitespace().skip(1);
    let values = lines.next()?.split_whitespace().skip(1);
    let (mut overflows, mut drops) = (None, None);
    for (name, value) in names.zip(values) {
        match name {
            "ListenOverflows" => overflows = value.parse().ok(),
            "ListenDrops" => drops = value.parse().ok(),
            _ => {}
        }
    }
    Some((overflows?, drops?))
}

/// One histogram's series: cumulative buckets, `_sum` in seconds, `_count`.
/// Nothing when it is empty.
fn histogram(s: &mut String, name: &str, label: &str, value: &str, words: &[u64]) {
    let (sum, buckets) = (words[0], &words[1..]);
    let count: u64 = buckets.iter().sum();
    if count == 0 {
        return;
    }
    let mut cumulative = 0;
    for (i, n) in buckets.iter().enumerate() {
        cumulative += n;
        let le = match BOUNDS_NS.get(i) {
            Some(&b) => seconds(b),
            None => "+Inf".to_string(),
        };
        let _ = writeln!(s, "{name}_bucket{{{label}=\"{value}\",le=\"{le}\"}} {cumulative}");
    }
    let _ = writeln!(s, "{name}_sum{{{label}=\"{value}\"}} {}", seconds(sum));
    let _ = writeln!(s, "{name}_count{{{label}=\"{value}\"}} {count}");
}

/// Nanoseconds as decimal seconds without exponent or trailing zeros: `0.00025`, `1`.
fn seconds(ns: u64) -> String {
    let (whole, frac) = (ns / 1_000_000_000, ns % 1_000_000_000);
    if frac == 0 {
        return whole.to_string();
    }
    let digits = format!("{frac:09}");
    format!("{whole}.{}", digits.trim_end_matches('0'))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `wirebench serve`'s shape: eight routes, three split by five variants.
    static TEST: Layout = Layout::new(
        &[
            ("other", false),
            ("/", false),
            ("/ping", false),
            ("/items/{format}", true),
            ("/items", true),
            ("/explain/{format}", true),
            ("/files/{file}", false),
            ("/metrics", false),
        ],
        "format",
        &["json", "msgpack", "protobuf", "avro", "flatbuffers"],
        "Making one response's body ready, by format.",
    );
    const PING: u8 = 2;
    const ITEMS: u8 = 3;
    const AVRO: u8 = 3;

    fn series(route: u8, variant: Option<u8>, status: u16) -> usize {
        let (r, v) = TEST.slots(route, variant);
        TEST.series_at(r, v, status_slot(status))
    }

    #[test]
    fn every_series_has_its_own_words() {
        // Every (route, variant, status) triple and every histogram word is
        // one word of the block that nothing else uses.
        let mut owner = vec![0u32; TEST.words];
        let mut series_count = 0;
        for (r, v) in TEST.endpoints() {
            for sslot in 0..STATUS_SLOTS {
                let i = TEST.series_at(r, v, sslot);
                owner[i + REQUESTS] += 1;
                owner[i + BYTES] += 1;
                series_count += 1;
            }
        }
        for r in 0..TEST.routes.len() {
            for w in &mut owner[TEST.request_time(r)..TEST.request_time(r) + HIST_WORDS] {
                *w += 1;
            }
        }
        for w in &mut owner[TEST.encode_time(0)..] {
            *w += 1;
        }
        assert!(owner.iter().all(|&n| n == 1), "{owner:?}");
        assert_eq!(series_count, 23 * STATUS_SLOTS);
        assert_eq!(TEST.words * 8, 6656, "the module doc's 6.5 KiB");
        // A variant on a route without variants is ignored; so are a route
        // and a variant out of range.
        assert_eq!(series(PING, Some(AVRO), 200), series(PING, None, 200));
        assert_eq!(series(200, None, 200), series(0, None, 200));
        assert_eq!(series(ITEMS, Some(9), 200), series(ITEMS, None, 200));
        assert_ne!(series(ITEMS, Some(AVRO), 200), series(ITEMS, None, 200));
        // A route's series and its histogram share a region: /ping's 200s
        // and its request time are within 512 bytes of each other.
        assert!((TEST.request_time(PING as usize) - series(PING, None, 200)) * 8 < 512);
    }

    #[test]
    fn netstat_listen_counters() {
        let text = "TcpExt: SyncookiesSent ListenOverflows ListenDrops TCPHPHits\n\
                    TcpExt: 0 991 1119 5\n\
                    IpExt: InNoRoutes\nIpExt: 0\n";
        assert_eq!(listen_overflows(text), Some((991, 1119)));
        assert_eq!(
            listen_overflows("TcpExt: ListenDrops\nTcpExt: 4\n"),
            None,
            "one missing"
        );
        assert_eq!(listen_overflows("IpExt: a\nIpExt: 1\n"), None);
    }

    #[test]
    fn seconds_are_plain_decimals() {
        assert_eq!(seconds(10_000), "0.00001");
        assert_eq!(seconds(250_000), "0.00025");
        assert_eq!(seconds(1_000_000_000), "1");
        assert_eq!(seconds(1_500_000_001), "1.500000001");
    }

    #[test]
    fn blocks_sum_and_buckets_cumulate() {
        let reg = Registry::new(&TEST);
        let (a, b) = (reg.register(), reg.register());
        a.record(PING, None, 200, 18, 0, 5_000);
        b.record(PING, None, 200, 18, 0, 30_000);
        b.record(ITEMS, Some(AVRO), 200, 100, 20_000, 2_000_000_000);
        a.record_rejected(431, 70);
        reg.refused();
        let mut out = Vec::new();
        let gauges = Gauges {
            open_connections: 3,
            parked_connections: 7,
            queued_connections: 1,
            busy_threads: 2,
            idle_threads: 5,
            queue_wait_max: std::time::Duration::from_micros(2_500),
            realtime: true,
        };
        reg.render(gauges, &Kernel::default(), &mut out);
        let text = String::from_utf8(out).unwrap();
        for line in [
            "wirebench_http_requests_total{route=\"/ping\",format=\"none\",status=\"200\"} 2",
            "wirebench_http_response_bytes_total{route=\"/ping\",format=\"none\",status=\"200\"} 36",
            "wirebench_http_requests_total{route=\"other\",format=\"none\",status=\"431\"} 1",
            "wirebench_http_requests_total{route=\"/items/{format}\",format=\"avro\",status=\"200\"} 1",
            "wirebench_http_request_duration_seconds_bucket{route=\"/ping\",le=\"0.00001\"} 1",
            "wirebench_http_request_duration_seconds_bucket{route=\"/ping\",le=\"0.00005\"} 2",
            "wirebench_http_request_duration_seconds_bucket{route=\"/ping\",le=\"+Inf\"} 2",
            "wirebench_http_request_duration_seconds_sum{route=\"/ping\"} 0.000035",
            "wirebench_http_request_duration_seconds_count{route=\"/ping\"} 2",
            "wirebench_http_request_duration_seconds_bucket{route=\"/items/{format}\",le=\"1\"} 0",
            "wirebench_http_request_duration_seconds_bucket{route=\"/items/{format}\",le=\"+Inf\"} 1",
            "wirebench_encode_duration_seconds_bucket{format=\"avro\",le=\"0.000025\"} 1",
            "wirebench_http_open_connections 3",
            "wirebench_http_parked_connections 7",
            "wirebench_http_queued_connections 1",
            "wirebench_http_worker_threads{state=\"busy\"} 2",
            "wirebench_http_worker_threads{state=\"idle\"} 5",
            "wirebench_http_refused_connections_total 1",
            "wirebench_http_queue_wait_max_seconds 0.0025",
            "wirebench_sched_realtime 1",
        ] {
            assert!(text.lines().any(|l| l == line), "missing {line:?} in\n{text}");
        }
        assert!(!text.contains("format=\"json\",le="), "empty histograms are left out");
    }

    fn walked(reg: &Registry) -> usize {
        reg.blocks.lock().unwrap().walked
    }

    #[test]
    fn a_burst_of_registrations_walks_the_list_linearly_and_keeps_exited_counts() {
        let reg = Registry::new(&TEST);
        let n = 4_000;
        let live: Vec<_> = (0..n).map(|_| reg.register()).collect();
        // Folding at every registration would walk n(n-1)/2 = 8 million entries.
        assert!(walked(&reg) <= 2 * n, "{} walked for {n} registrations", walked(&reg));
        for b in &live {
            b.record(PING, None, 200, 18, 0, 5_000);
        }
        drop(live); // every worker exits
        let again: Vec<_> = (0..n).map(|_| reg.register()).collect();
        let len = reg.blocks.lock().unwrap().list.len();
        assert!((n..=2 * n).contains(&len), "{len} blocks held for {n} live workers");
        let mut out = Vec::new();
        reg.render(Gauges::default(), &Kernel::default(), &mut out);
        let text = String::from_utf8(out).unwrap();
        let line = format!("wirebench_http_requests_total{{route=\"/ping\",format=\"none\",status=\"200\"}} {n}");
        assert!(text.lines().any(|l| l == line), "the exited workers' counts are kept");
        assert_eq!(
            reg.blocks.lock().unwrap().list.len(),
            again.len(),
            "a scrape frees every exited block"
        );
        // Self-test: a fold at every registration breaks the bound.
        let eager = Registry::new(&TEST);
        let (m, mut held) = (200, Vec::new());
        for _ in 0..m {
            eager.blocks.lock().unwrap().fold_at = 0;
            held.push(eager.register());
        }
        assert!(walked(&eager) > 2 * m, "{}", walked(&eager));
    }
}
