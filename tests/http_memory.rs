//! Memory per connection under attack, measured by the counting allocator's
//! live-byte peak. The whole process is measured (server threads included),
//! so this binary holds a single test and its client reads into stack
//! buffers: what grows is the server's.
//!
//! The bound: a connection holds at most its request buffer (which grows
//! from 4 KiB to `Limits::head_buffer_len`, 24 KiB with the defaults, only for
//! heads that need it), a response head buffer and a thread's bookkeeping.
//! 32 KiB per connection is asserted; the test prints what it measured.

mod support;
use support::server;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};
use wirebench::http::Limits;
use wirebench::measure::alloc::{CountingAlloc, live, reset_peak};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::new();

const PER_CONNECTION: u64 = 32 * 1024;

fn connect(addr: std::net::SocketAddr) -> TcpStream {
    let s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s
}

/// Reads until the peer closes or `want` bytes of `needle` matches are seen;
/// returns (bytes read, matches). Stack buffer only.
fn drain(s: &mut TcpStream, needle: &[u8], want: usize) -> (usize, usize) {
    let mut buf = [0u8; 16 * 1024];
    let (mut total, mut seen) = (0, 0);
    while seen < want {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                total += n;
                seen += buf[..n].windows(needle.len()).filter(|w| *w == needle).count();
            }
        }
    }
    (total, seen)
}

/// Waits until the server's live bytes stop changing (its workers have read
/// what was sent), at most 2 s.
fn settle() {
    let mut last = live().now;
    let end = Instant::now() + Duration::from_secs(2);
    while Instant::now() < end {
        std::thread::sleep(Duration::from_millis(50));
        let now = live().now;
        if now == last {
            return;
        }
        last = now;
    }
}

#[test]
fn memory_per_connection_is_bounded_under_attack() {
    let srv = server::start();
    let addr = srv.local_addr();
    let limits = Limits::default();
    // Warm up: the first request builds what every later one reuses.
    let mut c = connect(addr);
    c.write_all(b"GET /ping HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        .unwrap();
    drain(&mut c, b"HTTP/1.1 200", 1);
    drop(c);
    settle();

    // 1. Fifty connections, each holding an unfinished head just under the
    //    header limit: the request buffers are as large as they get.
    let base = live().now;
    reset_peak();
    let line = format!("X-Pad: {}\r\n", "a".repeat(990)); // 1,000 bytes
    let lines = (limits.max_header_bytes - 100) / line.len();
    let mut held = Vec::new();
    for _ in 0..50 {
        let mut s = connect(addr);
        s.write_all(b"GET /ping HTTP/1.1\r\nHost: t\r\n").unwrap();
        for _ in 0..lines {
            s.write_all(line.as_bytes()).unwrap();
        }
        held.push(s);
    }
    settle();
    let grown = live().peak.saturating_sub(base);
    println!(
        "50 connections with {lines} KB heads pending: {} bytes each",
        grown / 50
    );
    assert!(grown / 50 <= PER_CONNECTION, "{} bytes per connection", grown / 50);
    // Each is still answered normally.
    for s in &mut held {
        s.write_all(b"Connection: close\r\n\r\n").unwrap();
        assert_eq!(drain(s, b"HTTP/1.1 200", 1).1, 1);
    }
    drop(held);
    settle();

    // 2. One connection at a time, each an attack; the peak growth of each
    //    stays within one connection's bound.
    let huge_length = b"GET /ping HTTP/1.1\r\nHost: t\r\nContent-Length: 1000000000000\r\n\r\n".to_vec();
    let endless_header = [
        &b"GET /ping HTTP/1.1\r\nHost: t\r\nX-Endless: "[..],
        &vec![b'a'; 1 << 20],
    ]
    .concat();
    let many_headers: Vec<u8> = [&b"GET /ping HTTP/1.1\r\nHost: t\r\n"[..]]
        .into_iter()
        .chain(std::iter::repeat_n(&b"X-A: b\r\n"[..], 1000))
        .chain([&b"\r\n"[..]])
        .flatten()
        .copied()
        .collect();
    let long_line = [&b"GET /"[..], &vec![b'a'; 100_000], b" HTTP/1.1\r\n"].concat();
    let pipelined = b"GET /ping HTTP/1.1\r\nHost: t\r\n\r\n".repeat(2000);
    let body = [
        &b"POST /ping HTTP/1.1\r\nHost: t\r\nContent-Length: 16384\r\n\r\n"[..],
        &vec![b'x'; 16384],
    ]
    .concat();
    let attacks: [(&str, &[u8], &[u8], usize); 6] = [
        ("Content-Length of 10^12", &huge_length, b"HTTP/1.1 413", 1),
        ("1 MiB header line", &endless_header, b"HTTP/1.1 431", 1),
        ("1,000 header lines", &many_headers, b"HTTP/1.1 431", 1),
        ("100 KB request line", &long_line, b"HTTP/1.1 414", 1),
        (
            "2,000 pipelined requests in one write",
            &pipelined,
            b"HTTP/1.1 200",
            2000,
        ),
        ("16 KiB body to discard", &body, b"HTTP/1.1 ", 1),
    ];
    for (what, bytes, answer, count) in attacks {
        let bytes = bytes.to_vec(); // the client's copy, made before measuring
        let base = live().now;
        reset_peak();
        let mut s = connect(addr);
        // Write from another thread while this one reads: the server may
        // answer and close before it has read everything.
        let mut w = s.try_clone().unwrap();
        let writer = std::thread::spawn(move || {
            let _ = w.write_all(&bytes);
        });
        let (_, seen) = drain(&mut s, answer, count);
        drop(s);
        writer.join().unwrap();
        settle();
        let grown = live().peak.saturating_sub(base);
        println!("{what}: {grown} bytes at the peak");
        assert_eq!(
            seen,
            count,
            "{what}: expected {count} × {:?}",
            String::from_utf8_lossy(answer)
        );
        assert!(grown <= PER_CONNECTION, "{what}: {grown} bytes");
    }
    srv.shutdown();
}
