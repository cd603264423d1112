//! The pool and its poller over real loopback sockets: many idle keep-alive
//! connections held by a few workers (and the threads that costs, read from
//! `/proc/self/task`), clients that trickle a head or do not read their
//! response cannot stall the pool, eviction and the 503 at the cap,
//! shutdown with parked connections, and what edge-triggered readiness
//! needs: pipelined bytes beyond one read, and a request that arrives while
//! its worker still writes.
//!
//! The tests run one at a time (`SERIAL`): the thread count is the
//! process's own. Waits are on the server's counters, never on sleeps.

mod support;
use support::server;

use server::{Client, start_with, wait_until};
use std::io::Read;
use std::sync::{Mutex, MutexGuard, PoisonError, mpsc};
use std::time::{Duration, Instant};

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Threads of this process now whose name starts with `prefix`.
fn threads(prefix: &str) -> usize {
    std::fs::read_dir("/proc/self/task")
        .expect("/proc/self/task")
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .filter(|name| name.starts_with(prefix))
        .count()
}

fn get(path: &str) -> String {
    format!("GET {path} HTTP/1.1\r\nHost: t\r\n\r\n")
}

#[test]
fn a_thousand_idle_connections_are_held_by_four_workers_and_answered_again() {
    let _serial = serial();
    const N: usize = 1000;
    const POOL: usize = 4;
    let limit = server::ensure_open_files(4 * N as u64);
    assert!(limit >= 2 * N as u64 + 100, "open-file limit {limit} is too low");
    let before = threads("");
    let server = start_with(|c| {
        c.server.threads = POOL;
        c.server.header_timeout = Duration::from_secs(60);
        c.server.idle_timeout = Duration::from_secs(60);
    });
    let addr = server.local_addr();
    let mut clients: Vec<Client> = Vec::with_capacity(N);
    while clients.len() < N {
        clients.extend((0..100).map(|_| Client::connect(addr)));
        assert_eq!(clients.last_mut().unwrap().get("/ping").status, 200);
    }
    for c in &mut clients {
        c.send(get("/ping").as_bytes());
    }
    for (i, c) in clients.iter_mut().enumerate() {
        assert_eq!(c.read_response(false).status, 200, "connection {i}");
    }
    wait_until("every connection is parked", || server.stats().idle_connections == N);
    let stats = server.stats();
    assert_eq!((stats.threads, stats.open, stats.parked), (POOL, N, N), "{stats:?}");
    // The pool, the acceptor, the poller and the encoders (one per core);
    // not a thread per connection.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    // Threads of earlier tests' servers may still be exiting: saturating.
    let grown = threads("").saturating_sub(before);
    assert!(
        grown <= POOL + 2 + cores + 2,
        "{grown} threads for {N} idle connections"
    );
    // Each is answered when it sends again, in reverse order of parking.
    for (i, c) in clients.iter_mut().enumerate().rev() {
        assert_eq!(c.get("/ping").status, 200, "connection {i}, sent again");
    }
    drop(clients);
    wait_until("every connection is closed", || server.stats().open == 0);
}

/// Self-test of the thread count: a thread per connection shows.
#[test]
fn self_test_the_thread_count_sees_a_thread_per_connection() {
    let _serial = serial();
    let (tx, rx) = mpsc::channel::<()>();
    let rx = std::sync::Arc::new(Mutex::new(rx));
    let held: Vec<_> = (0..50)
        .map(|_| {
            let rx = std::sync::Arc::clone(&rx);
            std::thread::Builder::new()
                .name("selftest-held".into())
                .spawn(move || {
                    let _ = rx.lock().unwrap_or_else(PoisonError::into_inner).recv();
                })
                .unwrap()
        })
        .collect();
    // A thread names itself once it runs.
    wait_until("the 50 threads run", || threads("selftest-held") == 50);
    drop(tx);
    for t in held {
        t.join().unwrap();
    }
}

#[test]
fn clients_trickling_their_heads_do_not_hold_the_workers() {
    let _serial = serial();
    let server = start_with(|c| {
        c.server.threads = 2;
        c.server.header_timeout = Duration::from_secs(5);
    });
    let addr = server.local_addr();
    // Four times as many half-sent heads as workers.
    let mut slow: Vec<Client> = (0..8).map(|_| Client::connect(addr)).collect();
    for c in &mut slow {
        c.send(b"GET /ping HTTP/1.1\r\nHo");
    }
    wait_until("the half-sent heads are parked", || server.stats().parked == 8);
    let t = Instant::now();
    for _ in 0..5 {
        assert_eq!(Client::connect(addr).get("/ping").status, 200);
    }
    assert!(t.elapsed() < Duration::from_secs(4), "served before the header timeout");
    // Each head, completed, is answered with its earlier bytes.
    for c in &mut slow {
        c.send(b"st: t\r\n\r\n");
        let r = c.read_response(false);
        assert_eq!(r.status, 200, "{}", r.text());
    }
}

#[test]
fn a_client_that_does_not_read_cannot_stall_a_pool_of_one() {
    let _serial = serial();
    let server = start_with(|c| {
        c.server.threads = 1;
        c.max_count = 10_000;
        c.server.write_timeout = Duration::from_millis(300);
        c.server.min_send_rate = 32 << 20; // 6.2 MB: deadline ≈ 0.3 s + 0.2 s
    });
    let addr = server.local_addr();
    let mut stalled = Client::connect(addr);
    stalled.send(get("/catalog/json?count=10000").as_bytes());
    // Never reads: the one worker is blocked sending until the deadline,
    // then closes; the next client is answered by the same worker.
    let t = Instant::now();
    let mut other = Client::connect(addr);
    assert_eq!(other.get("/ping").status, 200);
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    // The stalled response was cut short: fewer bytes than its length, then the end.
    let mut got = Vec::new();
    let _ = stalled.stream.read_to_end(&mut got);
    assert!(got.len() < 6_000_000, "{} bytes", got.len());
}

#[test]
fn at_the_cap_the_poller_evicts_the_longest_idle_or_the_acceptor_refuses() {
    let _serial = serial();
    const CAP: usize = 10;
    let server = start_with(|c| {
        c.server.threads = 2;
        c.server.max_connections = CAP;
        c.server.evict_idle = Duration::from_millis(300);
        // At the cap every connection is crowded: no idle close meanwhile.
        c.server.idle_timeout = Duration::from_secs(60);
        c.server.busy_idle_timeout = Duration::from_secs(60);
    });
    let addr = server.local_addr();
    let mut idle: Vec<Client> = (0..CAP).map(|_| Client::connect(addr)).collect();
    for c in &mut idle {
        assert_eq!(c.get("/ping").status, 200);
    }
    // None idle for `evict_idle` yet: the new one is refused.
    let mut early = Client::connect(addr);
    let r = early.read_response(false);
    assert_eq!((r.status, r.header("retry-after")), (503, Some("1")), "{}", r.text());
    assert_eq!(server.stats().refused, 1);
    // Once they are: the first parked goes, the new one is served.
    wait_until("every connection is parked", || server.stats().idle_connections == CAP);
    std::thread::sleep(Duration::from_millis(350)); // let them age past evict_idle
    let mut late = Client::connect(addr);
    assert_eq!(late.get("/ping").status, 200);
    // Which one went idle first is the scheduler's call on a busy machine.
    let stats = server.stats();
    assert_eq!((stats.evicted, stats.open), (1, CAP), "{stats:?}");
    drop(idle);
}

#[test]
fn shutdown_with_parked_connections_closes_them_and_returns() {
    let _serial = serial();
    let server = start_with(|c| c.server.threads = 2);
    let addr = server.local_addr();
    let mut idle: Vec<Client> = (0..100).map(|_| Client::connect(addr)).collect();
    for c in &mut idle {
        assert_eq!(c.get("/ping").status, 200);
    }
    let mut silent: Vec<Client> = (0..10).map(|_| Client::connect(addr)).collect();
    let mut half = Client::connect(addr);
    half.send(b"GET /ping HTTP/1.1\r\n");
    wait_until("all are parked", || server.stats().parked == 111);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        server.shutdown();
        let _ = tx.send(());
    });
    rx.recv_timeout(Duration::from_secs(10)).expect("shutdown returns");
    for c in idle
        .iter_mut()
        .chain(silent.iter_mut())
        .chain(std::iter::once(&mut half))
    {
        assert!(c.is_closed(), "a parked connection was closed");
    }
}

/// Edge-triggered readiness reports an arrival once: a worker whose read
/// filled its buffer must look for the rest before parking, or the
/// requests behind it would wait for bytes that never come again.
#[test]
fn pipelined_requests_beyond_one_read_buffer_are_all_answered() {
    let _serial = serial();
    let server = start_with(|c| c.server.threads = 2);
    let mut client = Client::connect(server.local_addr());
    const N: usize = 400; // 400 × 34 bytes: several request buffers
    let batch = get("/ping").repeat(N);
    assert!(batch.len() > 3 * 4096, "{} bytes", batch.len());
    client.send(batch.as_bytes());
    for i in 0..N {
        assert_eq!(client.read_response(false).status, 200, "pipelined request {i}");
    }
    wait_until("the connection is parked", || server.stats().idle_connections == 1);
    assert_eq!(client.get("/ping").status, 200, "and answered when it sends again");
}

/// A request that arrives while its worker is still sending the previous
/// response marks the connection ready: parking hands it straight back and
/// it is answered (the poller does not see that arrival again).
#[test]
fn a_request_sent_while_its_worker_writes_is_answered() {
    let _serial = serial();
    let server = start_with(|c| {
        c.server.threads = 1;
        c.max_count = 10_000;
    });
    let mut client = Client::connect(server.local_addr());
    for round in 0..3 {
        client.send(get("/catalog/json?count=10000").as_bytes());
        // The first bytes of the response: the worker has read the request
        // and is writing 6 MB to a client that does not read yet.
        let mut first = [0u8; 1];
        assert_eq!(client.stream.peek(&mut first).expect("the response starts"), 1);
        client.send(get("/ping").as_bytes());
        let big = client.read_response(false);
        assert_eq!((big.status, big.body.len() > 5_000_000), (200, true), "round {round}");
        let ping = client.read_response(false);
        assert_eq!(
            (ping.status, ping.text()),
            (200, r#"{"message":"pong"}"#.to_string()),
            "round {round}"
        );
    }
}

/// A client that sends its requests and shuts its side: every request is
/// answered and the connection closed at once, not at the idle timeout
/// (edge-triggered readiness reports the end-of-file once, with the bytes).
#[test]
fn a_client_that_shuts_its_side_is_answered_and_closed_at_once() {
    let _serial = serial();
    let server = start_with(|c| {
        c.server.threads = 2;
        c.server.idle_timeout = Duration::from_secs(60);
    });
    for n in [1, 2, 50] {
        let mut client = Client::connect(server.local_addr());
        client.send(get("/ping").repeat(n).as_bytes());
        client.stream.shutdown(std::net::Shutdown::Write).unwrap();
        let t = Instant::now();
        for i in 0..n {
            assert_eq!(client.read_response(false).status, 200, "request {i} of {n}");
        }
        assert!(client.is_closed(), "closed after {n} answers");
        assert!(
            t.elapsed() < Duration::from_secs(5),
            "{:?}, not the idle timeout",
            t.elapsed()
        );
    }
    wait_until("every connection is closed", || server.stats().open == 0);
}
