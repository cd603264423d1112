//! Closed loop with few threads: each thread drives many non-blocking
//! connections by polling them in turn (`--threads N`).
//!
//! Same semantics as [`super::closed`] — every connection sends its next request
//! as soon as its previous response was verified, independently of the others —
//! but one thread serves `concurrency / N` connections, so a response does not
//! cost a thread wake-up. std has no portable readiness API (epoll/kqueue), so
//! the thread polls: it tries a non-blocking read on every waiting connection;
//! after [`SPIN_PASSES`] passes without progress it yields the CPU once per pass.
//! The consequence is stated, not hidden: **a polling thread uses its whole core
//! while the run lasts**, whatever the request rate.
//!
//! Latency is taken when the poller finds the response complete, so it carries
//! up to one polling pass of extra time (about 1 µs per waiting connection of the
//! thread). Checks run on the polling thread, so this driver suits cheap checks
//! (`--url` mode: status + whole body); catalog mode keeps one thread per
//! connection, where a slow decode delays only its own connection.

use super::client::{MAX_HEAD, parse_buffered};
use super::closed::{RoundStats, nanos, run_workers};
use super::verify::Target;
use super::{FailureKind, client::Response};
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::thread;
use std::time::{Duration, Instant};

/// Empty polling passes before the thread starts yielding between passes.
pub const SPIN_PASSES: u32 = 64;

/// After a failed connect, the connection waits this long before the next attempt
/// (the others keep going), so a dead server is not hit in a busy loop.
const CONNECT_BACKOFF: Duration = Duration::from_millis(10);

/// Bytes read per `read` call; the receive buffer grows by this much as needed
/// (up to the client's head and body limits).
const READ_CHUNK: usize = 16 * 1024;

/// One connection's state.
struct Conn {
    stream: Option<TcpStream>,
    /// Received, not yet consumed bytes are `buf[..len]`.
    buf: Vec<u8>,
    len: usize,
    /// Some(when) while a request is in flight; `written` bytes of it are out.
    sent_at: Option<Instant>,
    written: usize,
    /// After a failed connect, no new attempt before this instant.
    retry_at: Option<Instant>,
}

fn connect(target: &Target) -> Result<TcpStream, FailureKind> {
    let s = TcpStream::connect_timeout(&target.addr, target.timeout).map_err(|_| FailureKind::Connect)?;
    s.set_nodelay(true)
        .and_then(|_| s.set_nonblocking(true))
        .map_err(|_| FailureKind::Connect)?;
    Ok(s)
}

impl Conn {
    fn new(target: &Target) -> (Conn, Option<FailureKind>) {
        let (stream, err) = match connect(target) {
            Ok(s) => (Some(s), None),
            Err(k) => (None, Some(k)),
        };
        let conn = Conn {
            stream,
            buf: vec![0; READ_CHUNK],
            len: 0,
            sent_at: None,
            written: 0,
            retry_at: None,
        };
        (conn, err)
    }

    fn fail(&mut self, st: &mut RoundStats, kind: FailureKind) {
        st.errors.add(kind);
        self.stream = None;
        self.sent_at = None;
        self.len = 0;
    }
}

/// One closed-loop run: `concurrency` connections over `threads` polling threads.
pub fn run(target: &Target, concurrency: usize, threads: usize, duration: Duration) -> Result<RoundStats, String> {
    let threads = threads.clamp(1, concurrency.max(1));
    run_workers(
        threads,
        |t| {
            let mine = (t..concurrency).step_by(threads).count();
            let mut errors = Vec::new();
            let conns: Vec<Conn> = (0..mine)
                .map(|_| {
                    let (c, e) = Conn::new(target);
                    errors.extend(e);
                    c
                })
                .collect();
            (conns, errors)
        },
        |_, (mut conns, errors), start| {
            let mut st = RoundStats::default();
            for e in errors {
                st.errors.add(e);
            }
            drive(target, &mut conns, start + duration, &mut st);
            st
        },
    )
}

fn drive(target: &Target, conns: &mut [Conn], deadline: Instant, st: &mut RoundStats) {
    let mut body = Vec::new();
    let mut idle_passes = 0u32;
    loop {
        let now = Instant::now();
        let sending = now < deadline;
        let mut progress = false;
        let mut in_flight = 0;
        for c in conns.iter_mut() {
            if c.sent_at.is_none() {
                if !sending {
                    continue;
                }
                if c.stream.is_none() {
                    if c.retry_at.is_some_and(|t| now < t) {
                        continue;
                    }
                    match connect(target) {
                        Ok(s) => c.stream = Some(s),
                        Err(k) => {
                            c.fail(st, k);
                            c.retry_at = Some(Instant::now() + CONNECT_BACKOFF);
                            continue;
                        }
                    }
                }
                c.sent_at = Some(Instant::now());
                c.written = 0;
                progress = true;
            }
            in_flight += 1;
            if step(target, c, st, &mut body) {
                progress = true;
            }
        }
        if !sending && in_flight == 0 {
            return;
        }
        if progress {
            idle_passes = 0;
        } else {
            idle_passes += 1;
            if idle_passes > SPIN_PASSES {
                thread::yield_now();
            }
        }
    }
}

/// Advances one in-flight request: write what is left, read what arrived, and
/// finish the request when its response is complete. True on any progress.
fn step(target: &Target, c: &mut Conn, st: &mut RoundStats, body: &mut Vec<u8>) -> bool {
    let Some(sent_at) = c.sent_at else { return false };
    let Some(stream) = c.stream.as_mut() else {
        c.fail(st, FailureKind::Connect);
        return true;
    };
    let req = &target.request;
    let mut progress = false;
    while c.written < req.len() {
        match stream.write(&req[c.written..]) {
            Ok(n) => {
                c.written += n;
                progress = true;
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
            Err(_) => {
                c.fail(st, FailureKind::Write);
                return true;
            }
        }
    }
    if c.written < req.len() {
        return timed_out(target, c, st, sent_at) || progress;
    }
    let mut eof = false;
    loop {
        if c.len == c.buf.len() {
            if c.buf.len() >= super::client::MAX_BODY + MAX_HEAD {
                c.fail(st, FailureKind::Read);
                return true;
            }
            c.buf.resize(c.buf.len() + READ_CHUNK.max(c.buf.len() / 2), 0);
        }
        match stream.read(&mut c.buf[c.len..]) {
            Ok(0) => {
                eof = true;
                break;
            }
            Ok(n) => {
                c.len += n;
                progress = true;
            }
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
            Err(_) => {
                c.fail(st, FailureKind::Read);
                return true;
            }
        }
    }
    if !progress && !eof {
        return timed_out(target, c, st, sent_at);
    }
    match parse_buffered(&c.buf[..c.len], eof, body) {
        Ok(None) if eof => {
            c.fail(st, FailureKind::Read);
            true
        }
        Ok(None) => timed_out(target, c, st, sent_at) || progress,
        Err(kind) => {
            c.fail(st, kind);
            true
        }
        Ok(Some(p)) => {
            let done = Instant::now();
            let plain;
            let resp_body = if p.gzipped {
                match crate::gzip::decompress(body, super::client::MAX_BODY) {
                    Ok(v) => {
                        plain = v;
                        &plain[..]
                    }
                    Err(_) => {
                        c.fail(st, FailureKind::Decode);
                        return true;
                    }
                }
            } else {
                &body[..]
            };
            let resp = Response {
                status: p.status,
                body: resp_body,
                gzipped: p.gzipped,
                wire_bytes: p.consumed as u64,
            };
            match target.check.verify(&resp) {
                Ok(()) => {
                    st.latency.record(nanos(done - sent_at));
                    st.requests += 1;
                    st.bytes += p.consumed as u64;
                }
                Err(kind) => st.errors.add(kind),
            }
            c.buf.copy_within(p.consumed..c.len, 0);
            c.len -= p.consumed;
            c.sent_at = None;
            if !p.keep_alive || eof {
                c.stream = None;
                c.len = 0;
            }
            true
        }
    }
}

fn timed_out(target: &Target, c: &mut Conn, st: &mut RoundStats, sent_at: Instant) -> bool {
    if sent_at.elapsed() > target.timeout {
        c.fail(st, FailureKind::Timeout);
        return true;
    }
    false
}
