//! The load generator against small std::net test servers on 127.0.0.1 (a ping
//! server, a chunked one, a stalling one, a wrong-body one) and against the real
//! in-process `http::Server`. Every run is bounded (≤ 0.5 s) and loopback only.
//! No assertion bounds how fast the machine is: counts follow from the
//! schedule, the server's own count and one connection's requests running
//! one after another.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread;
use std::time::Duration;
use wirebench::codec::Format;
use wirebench::fixtures;
use wirebench::load::closed;
use wirebench::load::round::RoundStats;
use wirebench::load::verify::{Check, Target, Verify};
use wirebench::load::{FailureKind, cases, client, mux, open};
use wirebench::measure::histogram::{Histogram, MAX_TRACKABLE};
use wirebench::payload::Payload;

// ---------------------------------------------------------------------------
// Test servers

/// What a test server answers to the n-th request (1-based) on a connection.
type Handler = dyn Fn(u64, &str) -> (Vec<u8>, Duration) + Send + Sync;

/// A std::net server on 127.0.0.1:0, one thread per connection; counts requests.
struct TestServer {
    addr: SocketAddr,
    served: Arc<AtomicU64>,
    connections: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
}

impl TestServer {
    fn start(handler: impl Fn(u64, &str) -> (Vec<u8>, Duration) + Send + Sync + 'static) -> TestServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let handler: Arc<Handler> = Arc::new(handler);
        let served = Arc::new(AtomicU64::new(0));
        let connections = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (s, c, st) = (served.clone(), connections.clone(), stop.clone());
        thread::spawn(move || {
            for conn in listener.incoming() {
                if st.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                c.fetch_add(1, Ordering::SeqCst);
                let (h, s) = (handler.clone(), s.clone());
                thread::spawn(move || serve_conn(conn, &*h, &s));
            }
        });
        TestServer {
            addr,
            served,
            connections,
            stop,
        }
    }

    fn served(&self) -> u64 {
        self.served.load(Ordering::SeqCst)
    }

    fn target(&self, path: &str, check: Check) -> Target {
        let url = format!("http://{}{path}", self.addr);
        Target::from_url(&url, check, Duration::from_secs(2)).unwrap()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr); // wake the accept loop
    }
}

/// The `verify` cell of an `http.csv` row.
fn verify_column<'a>(row: &[&'a str]) -> &'a str {
    let at = wirebench::measure::results::HTTP_HEADER
        .split(',')
        .position(|c| c == "verify")
        .unwrap();
    row[at]
}

/// The data lines of a CSV text: neither the run stamp's `#` lines nor the header.
fn data_lines(text: &str) -> impl Iterator<Item = &str> {
    text.lines()
        .filter(|l| !l.starts_with('#') && *l != wirebench::measure::results::HTTP_HEADER)
}

/// The `err_*` cells of an `http.csv` row.
fn failure_columns<'a>(row: &'a [&'a str]) -> &'a [&'a str] {
    let first = wirebench::measure::results::HTTP_HEADER
        .split(',')
        .position(|c| c.starts_with("err_"))
        .unwrap();
    &row[first..first + wirebench::measure::results::HTTP_ERROR_KINDS.len()]
}

fn serve_conn(conn: TcpStream, handler: &Handler, served: &AtomicU64) {
    conn.set_nodelay(true).unwrap();
    conn.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut writer = conn.try_clone().unwrap();
    let mut reader = BufReader::new(conn);
    let mut n = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let path = line.split(' ').nth(1).unwrap_or("/").to_string();
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header).unwrap_or(0) == 0 {
                return;
            }
            if header == "\r\n" {
                break;
            }
        }
        n += 1;
        let (response, stall) = handler(n, &path);
        if !stall.is_zero() {
            thread::sleep(stall);
        }
        served.fetch_add(1, Ordering::SeqCst);
        if writer.write_all(&response).is_err() || response.starts_with(b"HTTP/1.0") {
            return; // HTTP/1.0 without keep-alive: the body ends at the close
        }
    }
}

fn ok(body: &[u8]) -> Vec<u8> {
    let mut r = format!(
        "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nContent-Type: application/json\r\n\r\n",
        body.len()
    )
    .into_bytes();
    r.extend_from_slice(body);
    r
}

const PONG: &[u8] = br#"{"message":"pong"}"#;

// ---------------------------------------------------------------------------
// Percentile math and the histogram

fn hist(values: &[u64]) -> Histogram {
    let mut h = Histogram::new();
    for &v in values {
        h.record(v);
    }
    h
}

#[test]
fn nearest_rank_percentiles_match_hand_computed_values() {
    let one_to_100: Vec<u64> = (1..=100).collect();
    // (values, q, expected): rank = ceil(q * n), the rank-th smallest value.
    let cases: &[(&[u64], f64, u64)] = &[
        (&one_to_100, 0.50, 50),
        (&one_to_100, 0.90, 90),
        (&one_to_100, 0.95, 95),
        (&one_to_100, 0.99, 99),
        (&one_to_100, 0.999, 100), // ceil(99.9) = 100
        (&one_to_100, 1.0, 100),
        (&one_to_100, 0.0, 1),
        (&one_to_100, 0.001, 1), // ceil(0.1) = 1
        (&one_to_100, 0.011, 2), // ceil(1.1) = 2
        (&[5, 1, 3], 0.5, 3),    // ceil(1.5) = 2 → 3
        (&[5, 1, 3], 0.33, 1),   // ceil(0.99) = 1 → 1
        (&[5, 1, 3], 0.34, 3),   // ceil(1.02) = 2 → 3
        (&[5, 1, 3], 0.67, 5),   // ceil(2.01) = 3 → 5
        (&[7, 7, 7, 200], 0.75, 7),
        (&[7, 7, 7, 200], 0.76, 200),
        (&[42], 0.99, 42),
        (&[], 0.5, 0),
    ];
    for &(values, q, expected) in cases {
        assert_eq!(hist(values).value_at_quantile(q), expected, "values {values:?} q {q}");
    }
    let h = hist(&one_to_100);
    assert_eq!((h.count(), h.max(), h.min()), (100, 100, 1));
}

#[test]
fn histogram_value_error_is_at_most_one_percent() {
    // Values from 1 ns to 2^40 ns, 64 per power of two, deterministic.
    let mut rng = wirebench::prng::Rng::new(7);
    let mut worst = 0.0f64;
    for e in 0..40u32 {
        for _ in 0..64 {
            let lo = 1u64 << e;
            let v = lo + rng.below(lo);
            // 0 and a huge value around v keep min/max clamping out of the way.
            let h = hist(&[0, v, MAX_TRACKABLE * 2]);
            let got = h.value_at_quantile(0.5);
            let err = (got as f64 - v as f64).abs() / v as f64;
            worst = worst.max(err);
            assert!(err <= 0.01, "value {v}: reported {got}, error {:.4}%", err * 100.0);
        }
    }
    assert!(
        worst > 0.0,
        "values above 256 ns are not exact, so some error must show"
    );
}

#[test]
fn merging_adds_counts_and_text_round_trips() {
    let mut rng = wirebench::prng::Rng::new(11);
    let values: Vec<u64> = (0..5000).map(|_| rng.below(50_000_000)).collect();
    let (a, b) = values.split_at(1234);
    let mut merged = hist(a);
    merged.merge(&hist(b));
    let whole = hist(&values);
    assert_eq!(merged, whole);

    let mut text = Vec::new();
    whole.write_text(&mut text).unwrap();
    let text = String::from_utf8(text).unwrap();
    let back = Histogram::read_text(&format!("# format=json\n{text}")).unwrap();
    assert_eq!(
        (back.count(), back.max(), back.min()),
        (whole.count(), whole.max(), whole.min())
    );
    for q in [0.0, 0.5, 0.9, 0.99, 0.999, 1.0] {
        assert_eq!(back.value_at_quantile(q), whole.value_at_quantile(q), "q {q}");
    }
    // Two files merged = one histogram of both halves.
    let (mut ta, mut tb) = (Vec::new(), Vec::new());
    hist(a).write_text(&mut ta).unwrap();
    hist(b).write_text(&mut tb).unwrap();
    let mut m = Histogram::read_text(std::str::from_utf8(&ta).unwrap()).unwrap();
    m.merge(&Histogram::read_text(std::str::from_utf8(&tb).unwrap()).unwrap());
    assert_eq!(m.value_at_quantile(0.99), whole.value_at_quantile(0.99));
    assert_eq!(m.count(), whole.count());
}

#[test]
fn histogram_text_errors_name_the_line() {
    for (text, msg) in [
        ("# x\n1 2\n", "line 2: expected `low_ns high_ns count`"),
        (
            "300 301 1\n",
            "line 1: [300, 301) is not a bucket of this layout (expected [300, 302))",
        ),
        ("1 2 x\n", "line 1: count: expected a number, found \"x\""),
        ("# max_ns=abc\n", "line 1: max_ns: expected a number, found \"abc\""),
    ] {
        let err = Histogram::read_text(text).unwrap_err().to_string();
        assert!(err.starts_with(msg), "{text:?}: {err}");
    }
}

// ---------------------------------------------------------------------------
// Client framing

#[test]
fn client_reads_content_length_and_chunked_bodies_on_one_connection() {
    let server = TestServer::start(|_, path| {
        let r = match path {
            "/chunked" => b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n\
                           5;ext=1\r\nhello\r\n1\r\n \r\n6\r\nworld!\r\n0\r\nTrailer: x\r\n\r\n"
                .to_vec(),
            _ => ok(PONG),
        };
        (r, Duration::ZERO)
    });
    let mut c = client::Client::new(server.addr, Duration::from_secs(2));
    let host = server.addr.to_string();
    for _ in 0..2 {
        let r = c.send(&client::get_request(&host, "/chunked")).unwrap();
        assert_eq!((r.status, r.body), (200, &b"hello world!"[..]));
        let r = c.send(&client::get_request(&host, "/ping")).unwrap();
        assert_eq!((r.status, r.body), (200, PONG));
    }
    assert_eq!(
        server.connections.load(Ordering::SeqCst),
        1,
        "keep-alive reuses the connection"
    );
}

#[test]
fn client_reads_until_close_and_reconnects() {
    let server = TestServer::start(|_, _| (b"HTTP/1.0 200 OK\r\n\r\nuntil close".to_vec(), Duration::ZERO));
    let mut c = client::Client::new(server.addr, Duration::from_secs(2));
    let req = client::get_request(&server.addr.to_string(), "/");
    for _ in 0..2 {
        let r = c.send(&req).unwrap();
        assert_eq!((r.status, r.body), (200, &b"until close"[..]));
        assert!(!c.is_connected(), "the body ended with the connection");
    }
    assert_eq!(server.connections.load(Ordering::SeqCst), 2);
}

#[test]
fn malformed_framing_is_a_read_failure_and_a_silent_server_a_timeout() {
    let server = TestServer::start(|_, path| {
        let r = match path {
            "/short" => b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc".to_vec(),
            "/badchunk" => b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n".to_vec(),
            _ => b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nab".to_vec(),
        };
        (r, Duration::ZERO)
    });
    let mut c = client::Client::new(server.addr, Duration::from_millis(200));
    let host = server.addr.to_string();
    assert_eq!(
        c.send(&client::get_request(&host, "/short")).unwrap_err(),
        FailureKind::Timeout
    );
    assert_eq!(
        c.send(&client::get_request(&host, "/badchunk")).unwrap_err(),
        FailureKind::Read
    );
    assert_eq!(
        c.send(&client::get_request(&host, "/twolengths")).unwrap_err(),
        FailureKind::Read
    );
}

// ---------------------------------------------------------------------------
// Runs against test servers

fn assert_clean(st: &RoundStats, what: &str) {
    assert_eq!(st.errors.total(), 0, "{what}: {:?}", st.errors);
    assert!(st.requests > 0, "{what}: no requests");
    assert_eq!(st.latency.count(), st.requests, "{what}");
}

/// `--min-requests`: a run goes on past its duration until N responses
/// were verified, and stops at its cap when they do not come; without it,
/// a run whose duration is shorter than one response gets at most one.
#[test]
fn closed_runs_bounded_by_count_and_time() {
    let server = TestServer::start(|_, _| (ok(PONG), Duration::from_millis(20)));
    let target = server.target("/ping", Check::Status200);
    let bound = |min_requests, max_ms| closed::Bound {
        duration: Duration::from_millis(1),
        min_requests,
        max_duration: Duration::from_millis(max_ms),
    };
    let st = closed::run_bounded(&target, 1, &bound(0, 1)).unwrap();
    assert!(st.requests <= 1, "time only: {} requests", st.requests);
    let st = closed::run_bounded(&target, 1, &bound(5, 10_000)).unwrap();
    assert_clean(&st, "min 5");
    assert!(st.requests >= 5, "{} requests", st.requests);
    assert!(st.elapsed < Duration::from_secs(10), "{:?}", st.elapsed);
    // The cap: 100 ms of 20 ms responses cannot give 1,000.
    let st = closed::run_bounded(&target, 2, &bound(1_000, 100)).unwrap();
    assert!((1..1_000).contains(&st.requests), "{} requests", st.requests);
}

#[test]
fn closed_and_open_runs_count_exactly_what_the_server_answered() {
    let server = TestServer::start(|_, _| (ok(PONG), Duration::ZERO));
    let target = server.target("/ping", Check::Status200);
    let st = closed::run(&target, 4, Duration::from_millis(200)).unwrap();
    assert_clean(&st, "closed");
    assert_eq!(st.requests, server.served());
    assert!(st.bytes >= st.requests * PONG.len() as u64);

    let before = server.served();
    let st = open::run(&target, 2, Duration::from_millis(200), 500.0).unwrap();
    assert_clean(&st, "open");
    assert_eq!(st.scheduled, 100);
    assert_eq!(st.requests + st.unsent, 100);
    assert_eq!(st.requests, server.served() - before);
    assert_eq!(st.service.as_ref().unwrap().count(), st.requests);

    for threads in [1, 3] {
        let before = server.served();
        let st = mux::run(&target, 7, threads, Duration::from_millis(200)).unwrap();
        assert_clean(&st, "mux");
        assert_eq!(st.requests, server.served() - before, "threads {threads}");

        let before = server.served();
        let st = mux::run_open(&target, 7, threads, Duration::from_millis(200), 500.0).unwrap();
        assert_clean(&st, "mux open");
        assert_eq!((st.scheduled, st.requests + st.unsent), (100, 100), "threads {threads}");
        assert_eq!(st.requests, server.served() - before, "threads {threads}");
        assert_eq!(st.service.as_ref().unwrap().count(), st.requests);
    }
}

#[test]
fn the_polling_driver_reads_every_framing() {
    let server = TestServer::start(|n, path| {
        let r = match (path, n % 3) {
            ("/close", _) => b"HTTP/1.0 200 OK\r\n\r\nuntil close".to_vec(),
            (_, 0) => b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\npong\r\n0\r\n\r\n".to_vec(),
            (_, 1) => ok(PONG),
            _ => ok(&vec![b'x'; 100_000]), // larger than one read
        };
        (r, Duration::ZERO)
    });
    for path in ["/mixed", "/close"] {
        let before = server.served();
        let st = mux::run(&server.target(path, Check::Status200), 4, 2, Duration::from_millis(150)).unwrap();
        assert_clean(&st, path);
        assert_eq!(st.requests, server.served() - before, "{path}");
    }
}

/// Samples of `h` at or above `ns`, counted by bucket: every bucket that can
/// hold such a value (an upper bound on the exact count by at most one bucket).
fn at_least(h: &Histogram, ns: u64) -> u64 {
    h.buckets().filter(|&(_, high, _)| high > ns).map(|(_, _, c)| c).sum()
}

/// Samples of `h` certainly at or above `ns` (buckets that start there).
fn surely_at_least(h: &Histogram, ns: u64) -> u64 {
    h.buckets().filter(|&(low, _, _)| low >= ns).map(|(_, _, c)| c).sum()
}

#[test]
fn open_loop_p99_shows_a_stall_that_the_closed_loop_hides() {
    // The 10th request on each connection stalls 200 ms: triggered by the
    // request count, so every run below meets exactly one stall, whatever
    // the machine's speed. Each assertion is arithmetic on the schedule and
    // on one connection's requests running one after another, never a
    // bound on how fast the machine is.
    const STALL: Duration = Duration::from_millis(200);
    const STALLED: u64 = 10;
    const RATE: f64 = 1000.0;
    const RUN: Duration = Duration::from_millis(500);
    let half = STALL.as_nanos() as u64 / 2;
    let stalls = Arc::new(AtomicU64::new(0));
    let stalled_at = Arc::new(std::sync::Mutex::new(None));
    let (counted, at) = (stalls.clone(), stalled_at.clone());
    let server = TestServer::start(move |n, _| {
        if n == STALLED {
            counted.fetch_add(1, Ordering::SeqCst);
            *at.lock().unwrap() = Some(std::time::Instant::now());
            (ok(PONG), STALL)
        } else {
            (ok(PONG), Duration::ZERO)
        }
    });
    let target = server.target("/ping", Check::Status200);
    // Requests due in the stall's first half wait at least its second half:
    // RATE × STALL/2 of them, fewer if the stall began so late that its first
    // half runs past the schedule's end. The run starts after `called`, so
    // the stall began at most `began - called` into the schedule.
    let queued = |called: std::time::Instant, what: &str| {
        let began = stalled_at.lock().unwrap().expect("the stall began");
        let into = began.duration_since(called).as_secs_f64();
        let window = (STALL.as_secs_f64() / 2.0).min(RUN.as_secs_f64() - into);
        let n = (RATE * window).floor() as u64;
        assert!(
            n > 0,
            "{what}: the stall began {into:.3} s in, after the schedule ended"
        );
        n - 1
    };
    let stalled = |what: &str, before: u64| {
        let after = stalls.load(Ordering::SeqCst);
        assert_eq!(
            after - before,
            1,
            "{what}: the {STALLED}th request (the stall) was never served"
        );
    };
    // One connection's requests follow each other, so at most elapsed ÷ (STALL/2)
    // of them can each have taken STALL/2 or more.
    let sequential = |slow: u64, elapsed: Duration, what: &str| {
        assert!(
            u128::from(slow) * u128::from(half) <= elapsed.as_nanos(),
            "{what}: {slow} samples ≥ {half} ns in {elapsed:?} on one connection"
        );
    };

    let before = stalls.load(Ordering::SeqCst);
    let closed = closed::run(&target, 1, RUN).unwrap();
    assert_clean(&closed, "closed");
    stalled("closed", before);
    let stall_ns = STALL.as_nanos() as u64;
    assert!(
        at_least(&closed.latency, stall_ns) >= 1,
        "the stall is one of the closed loop's samples"
    );
    let closed_slow = surely_at_least(&closed.latency, half);
    sequential(closed_slow, closed.elapsed, "closed");

    let before = stalls.load(Ordering::SeqCst);
    let called = std::time::Instant::now();
    let open = open::run(&target, 1, RUN, RATE).unwrap();
    assert_eq!(open.errors.total(), 0);
    stalled("open", before);
    let open_queued = queued(called, "open");
    let open_slow = at_least(&open.latency, half);
    let service = open.service.as_ref().unwrap();
    let service_slow = surely_at_least(service, half);
    sequential(service_slow, open.elapsed, "open, service time");
    let report = format!(
        "closed: {} requests, {closed_slow} ≥ {half} ns; open: {} requests, {open_slow} ≥ {half} ns from the due time, \
         {service_slow} from the send time",
        closed.requests, open.requests
    );
    assert!(
        open_slow >= open_queued,
        "every request due in the stall's first half waited: {report}"
    );
    assert!(open.late >= open_queued, "and was sent late: {report}");
    // What a closed loop reports is the service time: the same run's service
    // histogram holds the stall once, the latency from the due time holds
    // every request that waited for it. The run ends by RUN + 2 timeouts,
    // which bounds the service count (sequential, above) far below the
    // RATE × STALL/2 = 100 queued requests.
    assert!(open_slow > service_slow, "{report}");
    assert!(
        open.latency.value_at_quantile(0.99) >= half,
        "the open loop's p99 shows the stall: {report}"
    );

    // The polling driver measures the same thing.
    let before = stalls.load(Ordering::SeqCst);
    let called = std::time::Instant::now();
    let polled = mux::run_open(&target, 1, 1, RUN, RATE).unwrap();
    stalled("polling open", before);
    let polled_slow = at_least(&polled.latency, half);
    assert!(
        polled_slow >= queued(called, "polling open"),
        "polling open loop: {polled_slow} samples ≥ {half} ns; {report}"
    );
    let before = stalls.load(Ordering::SeqCst);
    let polled_closed = mux::run(&target, 1, 1, RUN).unwrap();
    stalled("polling closed", before);
    assert!(
        at_least(&polled_closed.latency, stall_ns) >= 1,
        "polling closed loop: the stall is a sample"
    );
    sequential(
        surely_at_least(&polled_closed.latency, half),
        polled_closed.elapsed,
        "polling closed",
    );
}

#[test]
fn wrong_bodies_and_statuses_never_count_as_success() {
    let server = TestServer::start(|_, path| {
        let r = if path.starts_with("/status") {
            b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n".to_vec()
        } else {
            ok(b"this is not a catalog")
        };
        (r, Duration::ZERO)
    });
    for (format, verify) in Format::ALL.into_iter().flat_map(|f| Verify::ALL.map(|v| (f, v))) {
        let check = Check::Payload {
            payload: Payload::fixture(3),
            format,
            gzip: Some(false),
            verify,
        };
        let st = closed::run(&server.target("/catalog?count=3", check), 2, Duration::from_millis(100)).unwrap();
        assert_eq!(st.requests, 0, "{format:?}");
        assert!(st.errors.get(FailureKind::Decode) > 0, "{format:?}: {:?}", st.errors);
        assert_eq!(st.errors.total(), st.errors.get(FailureKind::Decode), "{format:?}");
    }
    let before = server.served();
    let st = closed::run(
        &server.target("/status", Check::Status200),
        2,
        Duration::from_millis(100),
    )
    .unwrap();
    assert_eq!(st.requests, 0);
    assert_eq!(st.errors.get(FailureKind::Status), server.served() - before);
}

#[test]
fn a_refused_connection_is_a_connect_failure() {
    let addr = {
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    }; // closed again: nothing listens there now
    let target = Target::from_url(&format!("http://{addr}/"), Check::Status200, Duration::from_secs(1)).unwrap();
    let st = closed::run(&target, 2, Duration::from_millis(50)).unwrap();
    assert_eq!(st.requests, 0);
    assert!(st.errors.get(FailureKind::Connect) >= 2);
    assert_eq!(st.errors.total(), st.errors.get(FailureKind::Connect));
}

// ---------------------------------------------------------------------------
// Verification against real encodings (codecs and gzip)

fn catalog_server(body: Vec<u8>, gzip: bool) -> TestServer {
    let mut head = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n", body.len());
    if gzip {
        head.push_str("Content-Encoding: gzip\r\n");
    }
    head.push_str("\r\n");
    let mut response = head.into_bytes();
    response.extend_from_slice(&body);
    TestServer::start(move |_, _| (response.clone(), Duration::ZERO))
}

#[test]
fn a_valid_catalog_with_the_wrong_count_is_a_mismatch() {
    // Asked for 3 products, served a valid catalog of 2.
    for (format, verify) in Format::ALL.into_iter().flat_map(|f| Verify::ALL.map(|v| (f, v))) {
        let body = format.encode_to_vec(&fixtures::catalog(2).products).unwrap();
        let server = catalog_server(body, false);
        let check = Check::Payload {
            payload: Payload::fixture(3),
            format,
            gzip: Some(false),
            verify,
        };
        let st = closed::run(&server.target("/catalog", check), 2, Duration::from_millis(100)).unwrap();
        assert_eq!(st.requests, 0, "{format:?}");
        assert!(st.errors.get(FailureKind::Mismatch) > 0, "{format:?}");
        assert_eq!(
            st.errors.total(),
            st.errors.get(FailureKind::Mismatch),
            "{format:?}: {:?}",
            st.errors
        );
    }
}

#[test]
fn gzip_bodies_are_gunzipped_and_the_encoding_is_checked() {
    let plain = Format::Json.encode_to_vec(&fixtures::catalog(3).products).unwrap();
    let mut gz = Vec::new();
    wirebench::gzip::compress(&plain, wirebench::gzip::DEFAULT_LEVEL, &mut gz);
    let server = catalog_server(gz, true);
    let asked_gzip = Check::Payload {
        payload: Payload::fixture(3),
        format: Format::Json,
        gzip: Some(true),
        verify: Verify::Borrowed,
    };
    let st = closed::run(&server.target("/c", asked_gzip), 2, Duration::from_millis(100)).unwrap();
    assert_clean(&st, "gzip");
    // Gzip that was not asked for is a mismatch, not a success.
    let not_asked = Check::Payload {
        payload: Payload::fixture(3),
        format: Format::Json,
        gzip: Some(false),
        verify: Verify::Borrowed,
    };
    let st = closed::run(&server.target("/c", not_asked), 1, Duration::from_millis(50)).unwrap();
    assert_eq!(st.requests, 0);
    assert_eq!(st.errors.total(), st.errors.get(FailureKind::Mismatch));
}

#[test]
fn the_first_warm_up_response_is_compared_field_by_field() {
    let mut served = fixtures::catalog(3);
    served.products[1].name.push('!');
    let body = Format::Msgpack.encode_to_vec(&served.products).unwrap();
    let server = catalog_server(body, false);
    let target = server.target(
        "/c",
        Check::Payload {
            payload: Payload::fixture(3),
            format: Format::Msgpack,
            gzip: Some(false),
            verify: Verify::Borrowed,
        },
    );
    let (errors, difference) = cases::warm_up(&target, 3);
    let difference = difference.expect("a difference");
    assert!(difference.starts_with("products[1].name: expected "), "{difference}");
    assert_eq!(errors.get(FailureKind::Mismatch), 1);
    assert_eq!(errors.total(), 1, "the count is right, so only the comparison fails");
}

#[test]
fn the_polling_driver_counts_refused_connections_with_backoff() {
    let addr = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let target = Target::from_url(&format!("http://{addr}/"), Check::Status200, Duration::from_secs(1)).unwrap();
    let st = mux::run(&target, 2, 1, Duration::from_millis(100)).unwrap();
    assert_eq!(st.requests, 0);
    assert_eq!(st.errors.total(), st.errors.get(FailureKind::Connect));
    // 2 at setup, then at most one attempt per connection per 10 ms of the
    // run as it really lasted (a loaded machine makes fewer, never more).
    let per_conn = st.elapsed.as_millis() as u64 / 10 + 1;
    assert!(
        (2..=2 + 2 * per_conn).contains(&st.errors.total()),
        "{:?} in {:?}",
        st.errors,
        st.elapsed
    );
}

// ---------------------------------------------------------------------------
// The command end to end (`--url` mode): CSV rows and histogram files agree

fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("wirebench-load-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn url_mode_writes_csv_rows_and_histograms_that_agree() {
    let server = TestServer::start(|_, _| (ok(PONG), Duration::ZERO));
    let dir = temp_dir("url");
    let csv = dir.join("out.csv");
    for (threads, rate) in [("0", None), ("2", None), ("0", Some("400"))] {
        let mut argv = vec![
            format!("--url=http://{}/ping", server.addr),
            "--rounds=2".into(),
            "--duration=100ms".into(),
            "--concurrency=3".into(),
            "--warmup=2".into(),
            format!("--threads={threads}"),
            format!("--output={}", csv.display()),
            format!("--histograms={}", dir.display()),
        ];
        argv.extend(rate.map(|r| format!("--rate={r}")));
        let mut args = wirebench::cli::Args::new(argv);
        let config = wirebench::load::Config::from_args(&mut args).unwrap();
        args.finish().unwrap();
        cases::run(&config).unwrap();

        let text = std::fs::read_to_string(&csv).unwrap();
        let mut lines = text.lines().filter(|l| !l.starts_with('#'));
        assert_eq!(lines.next(), Some(wirebench::measure::results::HTTP_HEADER));
        assert!(
            text.starts_with("# run: ") && text.contains("\n# end: "),
            "the run stamp opens and closes the file:\n{text}"
        );
        let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
        assert_eq!(rows.len(), 2, "one row per round");
        for (i, row) in rows.iter().enumerate() {
            let round = i + 1;
            assert_eq!(&row[..5], [&round.to_string(), "url", "0", "none", "3"]);
            assert!(failure_columns(row).iter().all(|e| *e == "0"), "no failures: {row:?}");
            assert_eq!(verify_column(row), "status", "--url mode checks the status");
            let requests: u64 = row[6].parse().unwrap();
            let hist = std::fs::read_to_string(dir.join(format!("url-0-none-r{round}.hist"))).unwrap();
            assert!(hist.contains("# unit=ns\n") && hist.contains("# round="));
            let h = Histogram::read_text(&hist).unwrap();
            assert_eq!(h.count(), requests, "histogram file holds every counted request");
            let p50_ms: f64 = row[9].parse().unwrap();
            assert!((p50_ms - h.value_at_quantile(0.5) as f64 / 1e6).abs() < 0.001);
            let service = dir.join(format!("url-0-none-r{round}.service-hist"));
            assert_eq!(service.exists(), rate.is_some(), "open loop also writes service times");
            if rate.is_some() {
                assert_eq!(requests, 40, "400/s for 100 ms");
            }
        }
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x != "csv") {
                std::fs::remove_file(p).unwrap();
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---------------------------------------------------------------------------
// Catalog mode end to end against a std::net catalog server (codecs + gzip)

/// Serves `/catalog/{format}?count=N&compression=none|gzip` from the fixture.
fn catalog_route(path: &str) -> Vec<u8> {
    let (route, query) = path.split_once('?').unwrap_or((path, ""));
    let format = route.strip_prefix("/catalog/").and_then(Format::from_name).unwrap();
    let mut count = 100;
    let mut gzip = false;
    for kv in query.split('&') {
        match kv.split_once('=') {
            Some(("count", n)) => count = n.parse().unwrap(),
            Some(("compression", c)) => gzip = c == "gzip",
            _ => {}
        }
    }
    let mut body = format.encode_to_vec(&fixtures::catalog(count).products).unwrap();
    if gzip {
        let mut gz = Vec::new();
        wirebench::gzip::compress(&body, wirebench::gzip::DEFAULT_LEVEL, &mut gz);
        body = gz;
    }
    let enc = if gzip { "Content-Encoding: gzip\r\n" } else { "" };
    let mut r = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n{enc}\r\n", body.len()).into_bytes();
    r.extend_from_slice(&body);
    r
}

#[test]
fn catalog_mode_runs_every_case_and_round_with_zero_failures() {
    let server = TestServer::start(|_, path| (catalog_route(path), Duration::ZERO));
    for (compression, threads) in [("none", "0"), ("gzip", "2")] {
        let mut args = wirebench::cli::Args::new([
            "--rounds=2",
            "--duration=60ms",
            "--counts=1,7",
            "--concurrency=2",
            "--warmup=3",
            &format!("--compression={compression}"),
            &format!("--threads={threads}"),
        ]);
        let config = wirebench::load::Config::from_args(&mut args).unwrap();
        args.finish().unwrap();
        let mut csv = Vec::new();
        cases::run_cases(&config, &mut csv, server.addr, &fixtures::catalog(7).products).unwrap();
        let csv = String::from_utf8(csv).unwrap();
        let rows: Vec<Vec<&str>> = data_lines(&csv).map(|l| l.split(',').collect()).collect();
        assert_eq!(rows.len(), 2 * 5 * 2, "rounds x formats x counts:\n{csv}");
        for row in &rows {
            assert_eq!(row[3], compression);
            assert!(row[6].parse::<u64>().unwrap() > 0, "{row:?}");
            assert!(failure_columns(row).iter().all(|e| *e == "0"), "no failures: {row:?}");
            assert_eq!(verify_column(row), "borrowed", "the default verification");
        }
        // Round 1 starts at format (seed 1) mod 5 = msgpack; round 2 at protobuf.
        assert_eq!((rows[0][0], rows[0][1], rows[0][2]), ("1", "msgpack", "1"));
        assert_eq!((rows[10][0], rows[10][1]), ("2", "protobuf"));
        // One calibration sample before every run, naming its round and case,
        // read back by the report's parser.
        let samples = wirebench::report::parse::calibration("http.csv", &csv).unwrap();
        assert_eq!(samples.len(), rows.len(), "{csv}");
        for (s, row) in samples.iter().zip(&rows) {
            assert_eq!(s.round.to_string(), row[0]);
            assert_eq!(s.case.as_deref(), Some(&*format!("{}/{}", row[1], row[2])));
            assert!(s.cpu_us > 0.0 && s.mem_us > 0.0, "{s:?}");
        }
        let lines: Vec<&str> = csv.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(lines.len(), rows.len(), "only rows: the samples are comments");
        let first_row = csv.lines().position(|l| l.starts_with("1,msgpack,1,")).unwrap();
        assert!(
            csv.lines()
                .nth(first_row - 1)
                .unwrap()
                .starts_with("# calibration: round=1 case=msgpack/1 "),
            "the sample comes right before its run's row:\n{csv}"
        );
        let with_header = format!("{}\n{csv}", wirebench::measure::results::HTTP_HEADER);
        assert_eq!(
            wirebench::report::parse::http("http.csv", &with_header).unwrap().len(),
            rows.len()
        );
    }
}

// ---------------------------------------------------------------------------
// The real in-process server

fn http_server(max_count: usize) -> wirebench::http::Server {
    wirebench::serve::routes::start(&wirebench::serve::Config {
        server: wirebench::http::ServerConfig {
            addr: "127.0.0.1:0".into(),
            max_connections: 64,
            ..Default::default()
        },
        max_count,
        ..Default::default()
    })
    .unwrap()
}

#[test]
fn closed_and_open_runs_against_the_real_server_have_zero_failures() {
    let server = http_server(50);
    let addr = server.local_addr();
    for format in Format::ALL {
        for (compression, gzip) in [("none", false), ("gzip", true)] {
            let url = format!(
                "http://{addr}/catalog/{}?count=50&compression={compression}",
                format.name()
            );
            let check = Check::Payload {
                payload: Payload::fixture(50),
                format,
                gzip: Some(gzip),
                verify: Verify::Owned,
            };
            let target = Target::from_url(&url, check, Duration::from_secs(5)).unwrap();
            let (errors, difference) = cases::warm_up(&target, 3);
            assert_eq!((errors.total(), difference), (0, None), "{url}");
            let st = closed::run(&target, 3, Duration::from_millis(100)).unwrap();
            assert_clean(&st, &url);
        }
    }
    let url = format!("http://{addr}/catalog/avro?count=7&compression=gzip");
    let check = Check::Payload {
        payload: Payload::fixture(7),
        format: Format::Avro,
        gzip: Some(true),
        verify: Verify::Borrowed,
    };
    let target = Target::from_url(&url, check, Duration::from_secs(5)).unwrap();
    let st = open::run(&target, 2, Duration::from_millis(250), 200.0).unwrap();
    assert_clean(&st, "open");
    assert_eq!((st.scheduled, st.requests, st.unsent), (50, 50, 0));
    let st = mux::run_open(&target, 2, 1, Duration::from_millis(250), 200.0).unwrap();
    assert_clean(&st, "polling open");
    assert_eq!((st.scheduled, st.requests, st.unsent), (50, 50, 0));

    let ping = Target::from_url(&format!("http://{addr}/ping"), Check::Status200, Duration::from_secs(5)).unwrap();
    let st = mux::run(&ping, 8, 1, Duration::from_millis(100)).unwrap();
    assert_clean(&st, "ping");
    server.shutdown();
}

#[test]
fn the_bench_command_runs_in_process_and_writes_the_csv() {
    let dir = temp_dir("inproc");
    let csv = dir.join("http.csv");
    let mut args = wirebench::cli::Args::new([
        "--formats=json,flatbuffers".to_string(),
        "--verify=owned".into(),
        "--counts=1,10".into(),
        "--rounds=2".into(),
        "--duration=50ms".into(),
        "--concurrency=2".into(),
        "--warmup=2".into(),
        format!("--output={}", csv.display()),
    ]);
    let config = wirebench::load::Config::from_args(&mut args).unwrap();
    args.finish().unwrap();
    cases::run(&config).unwrap();
    let text = std::fs::read_to_string(&csv).unwrap();
    let rows: Vec<Vec<&str>> = data_lines(&text).map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 2 * 2 * 2, "{text}");
    for row in &rows {
        assert!(row[6].parse::<u64>().unwrap() > 0, "{row:?}");
        assert!(failure_columns(row).iter().all(|e| *e == "0"), "no failures: {row:?}");
        assert_eq!(verify_column(row), "owned", "--verify owned");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
