//! The server under pressure, over real loopback sockets: idle keep-alive
//! connections are evicted at the connection cap instead of locking new
//! clients out, the idle timeout shortens near the cap, the pool keeps its
//! size whatever the connections, the in-flight response budget refuses with
//! 503 and `Retry-After` without losing a request it accepted, and a client that
//! does not read cannot hold its worker past the response's send deadline.
//!
//! Waits are on the server's own counters ([`support::wait_until`] on
//! `Server::stats`), never on sleeps. Speed targets (the 100 ms admission)
//! are measured by `benches/server-pressure.sh`, not asserted here.

mod support;
use support::server;

use server::{Client, assert_alive, start_with, wait_until};
use std::io::Read;
use std::time::{Duration, Instant};
use wirebench::codec::Format;
use wirebench::fixtures;
use wirebench::http::sys::Sched;

#[test]
fn at_the_cap_the_longest_idle_connection_makes_room() {
    const CAP: usize = 20;
    let server = start_with(|c| {
        c.server.max_connections = CAP;
        c.server.idle_timeout = Duration::from_secs(60);
        c.server.busy_idle_timeout = Duration::from_secs(60);
        c.server.evict_idle = Duration::ZERO; // any idle connection may go
    });
    let addr = server.local_addr();
    let mut oldest = Client::connect(addr);
    assert_eq!(oldest.get("/ping").status, 200);
    wait_until("the first connection is idle", || server.stats().idle_connections == 1);
    // Idle times have millisecond resolution: make the first strictly the oldest.
    let t = Instant::now();
    wait_until("a millisecond passed", || t.elapsed() >= Duration::from_millis(2));
    let mut others: Vec<Client> = (1..CAP).map(|_| Client::connect(addr)).collect();
    for c in &mut others {
        assert_eq!(c.get("/ping").status, 200);
    }
    wait_until("every connection is idle", || server.stats().idle_connections == CAP);

    let t = Instant::now();
    let mut newcomer = Client::connect(addr);
    let r = newcomer.get("/ping");
    let took = t.elapsed();
    println!("a new client at a cap full of idle connections: 200 after {took:?}");
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(oldest.is_closed(), "the longest-idle connection was closed");
    assert_eq!(server.stats().evicted, 1);
    for (i, c) in others.iter_mut().enumerate() {
        assert_eq!(c.get("/ping").status, 200, "connection {i} was not evicted");
    }
    assert_eq!(newcomer.get("/ping").status, 200);
    assert_eq!(server.stats().refused, 0);
}

#[test]
fn at_the_cap_a_connection_idle_less_than_evict_idle_stays_and_the_newcomer_gets_503() {
    const CAP: usize = 8;
    let server = start_with(|c| {
        c.server.max_connections = CAP;
        c.server.idle_timeout = Duration::from_secs(60);
        c.server.busy_idle_timeout = Duration::from_secs(60);
        c.server.evict_idle = Duration::from_secs(60);
    });
    let addr = server.local_addr();
    let mut open: Vec<Client> = (0..CAP).map(|_| Client::connect(addr)).collect();
    for c in &mut open {
        assert_eq!(c.get("/ping").status, 200);
    }
    wait_until("every connection is idle", || server.stats().idle_connections == CAP);
    // Twice: the second refusal comes from the recorded "none old enough
    // before" time, without a scan; both must say the same.
    for n in 1..=2 {
        let mut newcomer = Client::connect(addr);
        let r = newcomer.get("/ping");
        assert_eq!(r.status, 503, "{}", r.text());
        assert_eq!(r.header("retry-after"), Some("1"));
        let stats = server.stats();
        assert_eq!((stats.evicted, stats.refused), (0, n), "{stats:?}");
    }
    for (i, c) in open.iter_mut().enumerate() {
        assert_eq!(c.get("/ping").status, 200, "connection {i} was evicted");
    }
}

/// `(command name, scheduling)` of every thread of this process.
fn thread_scheds() -> Vec<(String, Sched)> {
    let mut out = Vec::new();
    for task in std::fs::read_dir("/proc/self/task").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(task.path().join("stat")) else {
            continue; // the thread exited meanwhile
        };
        let name = stat
            .split_once('(')
            .and_then(|(_, r)| r.rsplit_once(')'))
            .map(|(n, _)| n.to_string());
        if let (Some(name), Some(sched)) = (name, wirebench::http::sys::sched_of_stat(&stat)) {
            out.push((name, sched));
        }
    }
    out
}

/// `(command name, nice value)` of every thread of this process in the
/// fair class (a `--sched rr` test server's threads are left out).
fn thread_nices() -> Vec<(String, i32)> {
    thread_scheds()
        .into_iter()
        .filter_map(|(name, sched)| match sched {
            Sched::Fair(nice) => Some((name, nice)),
            Sched::RoundRobin(_) => None,
        })
        .collect()
}

#[test]
fn the_acceptor_runs_raised_and_the_poller_and_workers_do_not() {
    use wirebench::http::pool::{POLLER_NICE_BELOW, RAISED_NICE};
    let base = wirebench::http::sys::thread_nice().unwrap();
    let server = start_with(|c| {
        c.server.threads = 2;
    });
    let raised = match server.priority() {
        Ok(()) => RAISED_NICE,
        Err(e) => {
            println!("not privileged, so the acceptor stays at the workers' priority: {e}");
            base
        }
    };
    // A thread names itself, then raises itself, once it runs: wait for
    // both. Other tests' servers run in this process too; each raises its own.
    wait_until(&format!("every http-accept thread runs at nice {raised}"), || {
        let of_role: Vec<i32> = thread_nices()
            .into_iter()
            .filter(|(n, _)| n == "http-accept")
            .map(|(_, v)| v)
            .collect();
        !of_role.is_empty() && of_role.iter().all(|&v| v == raised)
    });
    let mut burst: Vec<Client> = (0..16).map(|_| Client::connect(server.local_addr())).collect();
    for c in &mut burst {
        assert_eq!(c.get("/ping").status, 200);
    }
    assert_eq!(server.stats().threads, 2, "{:?}", server.stats());
    // The poller runs below the workers (pool.rs, "Priority"), never raised.
    let lowered = (base + POLLER_NICE_BELOW).min(19);
    wait_until("every worker runs at the workers' priority, every poller below", || {
        thread_nices().iter().all(|(n, v)| match n.as_str() {
            "http-worker" => *v == base,
            "http-poller" => *v == lowered,
            _ => true,
        })
    });
}

/// Opens `n` connections at once, sends `GET path` on every one before
/// reading any answer, then reads one response from each.
fn burst(addr: std::net::SocketAddr, n: usize, path: &str) -> Vec<support::server::Response> {
    let mut clients: Vec<Client> = (0..n).map(|_| Client::connect(addr)).collect();
    for c in &mut clients {
        c.send(format!("GET {path} HTTP/1.1\r\nHost: t\r\n\r\n").as_bytes());
    }
    clients.iter_mut().map(|c| c.read_response(false)).collect()
}

/// A burst against a pool of two workers: every connection is answered,
/// and no thread is started for them.
#[test]
fn a_burst_against_a_pool_of_two_is_answered_in_full() {
    const N: usize = 300;
    let server = start_with(|c| {
        c.server.threads = 2;
    });
    let answers = burst(server.local_addr(), N, "/ping");
    let ok = answers.iter().filter(|r| r.status == 200).count();
    assert_eq!(
        ok,
        N,
        "statuses: {:?}",
        answers.iter().map(|r| r.status).collect::<Vec<_>>()
    );
    let stats = server.stats();
    assert_eq!(stats.threads, 2, "no thread per connection: {stats:?}");
}

/// Self-test of the burst check: a cap below the burst answers some
/// connections 503 (none has been idle `evict_idle`), and the count sees it.
#[test]
fn self_test_a_burst_beyond_the_cap_is_not_answered_in_full() {
    let server = start_with(|c| {
        c.server.threads = 2;
        c.server.max_connections = 50;
        c.server.evict_idle = Duration::from_secs(3600);
    });
    let answers = burst(server.local_addr(), 80, "/ping");
    let ok = answers.iter().filter(|r| r.status == 200).count();
    assert_eq!(ok, 50, "the cap's worth are served");
    assert_eq!(answers.iter().filter(|r| r.status == 503).count(), 30);
}

/// Every request of a burst is served at the workers' own priority.
#[test]
fn every_request_of_a_burst_is_served_at_the_workers_priority() {
    let base = wirebench::http::sys::thread_nice().unwrap();
    let server = start_with(|c| {
        c.server.threads = 2;
    });
    let answers = burst(server.local_addr(), 64, "/__nice");
    for (i, r) in answers.iter().enumerate() {
        assert_eq!((r.status, r.text()), (200, base.to_string()), "connection {i}");
    }
}

/// Self-test of the priority probe: a thread serving at the raised priority
/// answers that value, not the workers'.
#[test]
fn self_test_the_priority_probe_sees_a_raised_serving_thread() {
    use wirebench::http::pool::RAISED_NICE;
    let server = start_with(|_| {});
    let mut c = Client::connect(server.local_addr());
    let text = c.get("/__nice?raised").text();
    if text == "unprivileged" {
        println!("skipped: no CAP_SYS_NICE to raise a thread");
        return;
    }
    assert_eq!(text, RAISED_NICE.to_string());
    assert_ne!(text, wirebench::http::sys::thread_nice().unwrap().to_string());
}

/// `--sched rr`: every request of a burst is served by a real-time worker,
/// the acceptor runs one priority above, the poller, and the encoders
/// with the workers; without the privilege the server says why and runs in
/// the fair class.
#[test]
fn with_sched_rr_the_server_runs_real_time_or_says_why_not() {
    use wirebench::http::config::SchedClass;
    use wirebench::http::config::{RAISED_RT, WORKER_RT};
    use wirebench::http::pool::Priorities;
    let base = wirebench::http::sys::thread_nice().unwrap();
    let server = start_with(|c| {
        c.server.threads = 2;
        c.server.sched = SchedClass::RoundRobin;
    });
    if let Some(e) = server.sched_refused() {
        println!("not privileged, so the server runs in the fair class: {e}");
        assert_eq!(server.priorities(), Priorities::of(SchedClass::Fair, base));
        let answers = burst(server.local_addr(), 8, "/__sched");
        assert!(answers.iter().all(|r| r.text() == format!("nice {base}")));
        let metrics = Client::connect(server.local_addr()).get("/metrics").text();
        assert!(metrics.lines().any(|l| l == "wirebench_sched_realtime 0"), "{metrics}");
        return;
    }
    assert_eq!(
        server.priority(),
        Ok(()),
        "the acceptor entered the class the probe did"
    );
    assert_eq!(
        server.priorities(),
        Priorities {
            raised: Sched::RoundRobin(RAISED_RT),
            worker: Sched::RoundRobin(WORKER_RT),
            poller: Sched::RoundRobin(WORKER_RT),
        }
    );
    let answers = burst(server.local_addr(), 64, "/__sched");
    for (i, r) in answers.iter().enumerate() {
        assert_eq!(
            (r.status, r.text()),
            (200, format!("SCHED_RR priority {WORKER_RT}")),
            "connection {i}"
        );
    }
    let metrics = Client::connect(server.local_addr()).get("/metrics").text();
    assert!(metrics.lines().any(|l| l == "wirebench_sched_realtime 1"), "{metrics}");
    // Only this test's server has real-time threads; its acceptor and
    // poller name and move themselves once they run.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    wait_until("the acceptor, the poller and the encoders are real-time", || {
        let rr = |role: &str, sched: Sched| thread_scheds().iter().filter(|(n, s)| n == role && *s == sched).count();
        rr("http-accept", Sched::RoundRobin(RAISED_RT)) == 1
            && rr("http-poller", Sched::RoundRobin(WORKER_RT)) == 1
            && rr("http-encoder", Sched::RoundRobin(WORKER_RT)) == cores
    });
    // The class is the threads' own, not the process's: this one stays fair.
    assert_eq!(wirebench::http::sys::thread_sched().unwrap(), Sched::Fair(base));
}

/// In the fair class the poller runs below the workers, so that it takes
/// readiness in batches when they run out of work (pool.rs, "Priority").
#[test]
fn in_the_fair_class_the_poller_runs_below_the_workers() {
    use wirebench::http::pool::POLLER_NICE_BELOW;
    let base = wirebench::http::sys::thread_nice().unwrap();
    let lowered = Sched::Fair((base + POLLER_NICE_BELOW).min(19));
    if base >= 19 {
        println!("the tests run at nice {base}: no room below the workers to check");
        return;
    }
    let server = start_with(|c| c.server.threads = 2);
    assert_eq!(server.priorities().poller, lowered);
    // Every fair server's poller here moves itself once it runs.
    wait_until("a poller runs below the workers", || {
        thread_scheds().iter().any(|(n, s)| n == "http-poller" && *s == lowered)
    });
    let worker = Client::connect(server.local_addr()).get("/__sched").text();
    assert_eq!(worker, format!("nice {base}"), "the workers stay where they were");
}

/// Self-test of the scheduling probe: a fair server's worker answers its
/// nice value, not the real-time class.
#[test]
fn self_test_the_sched_probe_sees_a_fair_worker() {
    let base = wirebench::http::sys::thread_nice().unwrap();
    let server = start_with(|_| {});
    let text = Client::connect(server.local_addr()).get("/__sched").text();
    assert_eq!(text, format!("nice {base}"));
}

#[test]
fn near_the_cap_idle_connections_get_the_short_timeout() {
    let server = start_with(|c| {
        c.server.max_connections = 4;
        c.server.idle_timeout = Duration::from_secs(60);
        c.server.busy_idle_timeout = Duration::from_millis(200);
    });
    let addr = server.local_addr();
    let mut relaxed = Client::connect(addr);
    assert_eq!(relaxed.get("/ping").status, 200);
    wait_until("the first connection idles uncrowded", || {
        server.stats().idle_connections == 1
    });
    let mut more: Vec<Client> = (0..2).map(|_| Client::connect(addr)).collect();
    for c in &mut more {
        assert_eq!(c.get("/ping").status, 200);
    }
    // 3 of 4 open: the connections that went idle from then on close after 200 ms.
    // Closed long before the 60 s idle timeout: the client's 10 s read timeout would fail first.
    assert!(more[1].is_closed(), "closed by the busy idle timeout");
    // Below 75% again: a new idle connection keeps the long timeout.
    wait_until("the closed connections are counted", || server.stats().open <= 2);
    drop(more);
    wait_until("only the first connection is open", || server.stats().open == 1);
    assert_eq!(
        relaxed.get("/ping").status,
        200,
        "the first connection was never crowded"
    );
}

#[test]
fn the_pool_keeps_its_size_whatever_the_connections() {
    let server = start_with(|c| c.server.threads = 4);
    let addr = server.local_addr();
    wait_until("the workers wait for work", || server.stats().idle == 4);
    let mut burst: Vec<Client> = (0..24).map(|_| Client::connect(addr)).collect();
    for c in &mut burst {
        assert_eq!(c.get("/ping").status, 200);
    }
    wait_until("every connection is parked", || server.stats().idle_connections == 24);
    let busy = server.stats();
    assert_eq!((busy.threads, busy.open, busy.parked), (4, 24, 24), "{busy:?}");
    for c in &mut burst {
        assert_eq!(c.get("/ping").status, 200, "answered again from the poller");
    }
    drop(burst);
    wait_until("the closed connections are counted", || server.stats().open == 0);
    assert_eq!(server.stats().threads, 4);
}

/// A test server with 10,000 products: a `count=10000` JSON body (6.2 MB) is
/// more than loopback socket buffers take while the client does not read,
/// so the worker stays blocked sending it.
fn big_server(edit: impl FnOnce(&mut wirebench::serve::Config)) -> wirebench::http::Server {
    start_with(|c| {
        c.max_count = 10_000;
        edit(c);
    })
}

const BIG: &str = "GET /catalog/json?count=10000 HTTP/1.1\r\nHost: t\r\n\r\n";

#[test]
fn the_budget_refuses_with_retry_after_and_loses_no_accepted_request() {
    let server = big_server(|c| {
        c.server.max_inflight_bytes = 1; // one response at a time
        c.server.budget_wait = Duration::from_millis(20);
    });
    let addr = server.local_addr();
    // A client that asks for a large body and does not read it yet holds the budget.
    let mut holder = Client::connect(addr);
    holder.send(BIG.as_bytes());
    wait_until("the large response holds the budget", || server.budget().0 > 0);

    let mut others: Vec<Client> = (0..4).map(|_| Client::connect(addr)).collect();
    for c in &mut others {
        let r = c.get("/catalog/msgpack?count=10");
        assert_eq!(r.status, 503, "{}", r.text());
        assert_eq!(r.header("retry-after"), Some("1"));
        assert!(r.text().contains("--max-inflight-bytes"), "{}", r.text());
        assert_eq!(c.get("/ping").status, 200, "a refusal keeps the connection usable");
    }
    assert_eq!(server.budget().1, 4);

    // The accepted request is answered in full once its client reads.
    let r = holder.read_response(false);
    assert_eq!(r.status, 200);
    let got = Format::Json.decode(&r.body).expect("the whole body arrives");
    assert_eq!(got.products.len(), 10_000);
    wait_until("the budget is free again", || server.budget().0 == 0);
    let expected = fixtures::catalog(10);
    for c in &mut others {
        let r = c.get("/catalog/msgpack?count=10");
        assert_eq!(r.status, 200, "{}", r.text());
        assert_eq!(Format::Msgpack.decode(&r.body).unwrap(), expected);
    }
}

#[test]
fn a_client_that_stops_reading_is_cut_off_at_the_send_deadline() {
    let server = big_server(|c| {
        c.server.write_timeout = Duration::from_millis(300);
        c.server.min_send_rate = 8 << 20; // 6.2 MB: deadline ≈ 0.3 s + 0.75 s
    });
    let mut stalled = Client::connect(server.local_addr());
    let t = Instant::now();
    stalled.send(BIG.as_bytes());
    wait_until("the request is being served", || server.stats().open == 1);
    // It keeps reading a trickle, so no single write blocks for the write timeout.
    let mut got = 0usize;
    let mut buf = [0u8; 1024];
    loop {
        match stalled.stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => got += n,
        }
        if server.stats().open == 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(5)); // the slow reader's pace, not a wait for state
        assert!(t.elapsed() < Duration::from_secs(20), "never cut off; read {got} bytes");
    }
    wait_until("the worker let the connection go", || server.stats().open == 0);
    println!("cut off after {:?}, {got} bytes read", t.elapsed());
    assert!(got < 6_000_000, "the response was not sent in full: {got} bytes");
    assert_alive(server.local_addr());
}

// ---------------------------------------------------------------------------
// The listen queue: `--backlog`, read back from the socket, and a burst

/// `net.core.somaxconn`, the kernel's cap on any backlog.
fn somaxconn() -> u32 {
    wirebench::http::config::somaxconn().expect("/proc/sys/net/core/somaxconn")
}

#[test]
fn the_backlog_asked_is_the_listening_socket_s_queue_capacity() {
    for asked in [16, 511, somaxconn().min(2048)] {
        let server = start_with(|c| c.server.backlog = asked);
        assert_eq!(server.listen_queue().unwrap().backlog, asked, "--backlog {asked}");
    }
    // Beyond somaxconn the kernel caps it; the socket says so.
    let server = start_with(|c| c.server.backlog = u32::MAX);
    assert_eq!(server.listen_queue().unwrap().backlog, somaxconn());
}

/// Connects `n` clients to a bound server that does not accept yet: each
/// connect completes only once the kernel queued the connection.
fn connect_all(addr: std::net::SocketAddr, n: usize, timeout: Duration) -> Vec<std::io::Result<std::net::TcpStream>> {
    (0..n)
        .map(|_| std::net::TcpStream::connect_timeout(&addr, timeout))
        .collect()
}

#[test]
fn a_burst_of_1000_connects_fits_the_queue_of_a_fresh_server() {
    const BURST: usize = 1000;
    if (somaxconn() as usize) < BURST + 1 {
        println!("skipped: net.core.somaxconn = {} is below {BURST}", somaxconn());
        return;
    }
    // Both ends of every connection live in this process.
    let files = wirebench::http::sys::raise_open_files(2 * BURST as u64 + 200).unwrap();
    if files < 2 * BURST as u64 + 200 {
        println!(
            "skipped: the open-file limit, raised to the hard limit, is {files}: below two descriptors per connection"
        );
        return;
    }
    let bound = server::bind_with(|c| {
        c.server.backlog = 1024;
        c.server.max_connections = 1100;
    });
    let addr = bound.local_addr().unwrap();
    // Nobody accepts yet: a connect the queue had no room for would be
    // dropped and retried a second later, and again, never completing.
    let clients = connect_all(addr, BURST, Duration::from_secs(30));
    let mut clients: Vec<_> = clients
        .into_iter()
        .map(|c| c.expect("every connect completes"))
        .collect();
    let q = bound.listen_queue().unwrap();
    assert_eq!((q.queued, q.backlog), (BURST as u32, 1024), "all queued at once");
    let server = bound.start().unwrap();
    for c in &mut clients {
        c.set_read_timeout(Some(server::CLIENT_TIMEOUT)).unwrap();
        std::io::Write::write_all(c, b"GET /ping HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n").unwrap();
    }
    for (i, c) in clients.iter_mut().enumerate() {
        let mut text = String::new();
        let t0 = Instant::now();
        let r = c.read_to_string(&mut text);
        assert!(r.is_ok(), "client {i}: {r:?} after {:?}: {text:?}", t0.elapsed());
        assert!(text.starts_with("HTTP/1.1 200"), "client {i}: {text:?}");
    }
    assert_eq!(
        server.listen_drops().unwrap(),
        0,
        "the listening socket dropped no connect"
    );
}

#[test]
fn self_test_a_burst_beyond_the_backlog_is_dropped_and_counted() {
    let bound = server::bind_with(|c| c.server.backlog = 4);
    let addr = bound.local_addr().unwrap();
    // Linux queues backlog + 1 connections; the rest are dropped.
    let results = connect_all(addr, 8, Duration::from_millis(300));
    let done = results.iter().filter(|r| r.is_ok()).count();
    assert_eq!(done, 5, "{results:?}");
    assert_eq!(bound.listen_queue().unwrap().queued, 5);
    let server = bound.start().unwrap();
    assert!(server.listen_drops().unwrap() >= 3, "each dropped connect is counted");
}

/// More large bodies asked at once than there are large-body slots (one per
/// core): each slot given back admits one waiting request, and every request
/// is answered in full. A lost wake-up would leave a client waiting: the
/// client's read timeout turns that into a failure, not a hang.
#[test]
fn more_large_requests_than_slots_are_all_answered() {
    let server = start_with(|c| c.max_count = 1000);
    let addr = server.local_addr();
    let expected = Format::Json.encode_to_vec(&fixtures::catalog(1000).products).unwrap();
    let clients: Vec<_> = (0..8)
        .map(|_| {
            let expected = expected.clone();
            std::thread::spawn(move || {
                let mut c = Client::connect(addr);
                for _ in 0..4 {
                    let r = c.get("/catalog/json?count=1000");
                    assert_eq!(r.status, 200, "{}", r.text());
                    assert!(r.body == expected, "the body is the catalog's encoding");
                }
            })
        })
        .collect();
    for c in clients {
        c.join().expect("every client got its four responses");
    }
    wait_until("the budget is free again", || server.budget().0 == 0);
    assert_eq!(server.budget().1, 0, "nothing refused");
}
