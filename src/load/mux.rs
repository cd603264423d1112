//! Few threads, many connections: each thread drives its share of non-blocking
//! connections by polling them in turn (`--threads N`).
//!
//! Same semantics as the one-thread-per-connection drivers — closed loop as in
//! [`super::closed`] (every connection sends its next request as soon as its
//! previous response was verified, independently of the others), open loop as in
//! [`super::open`] (same schedule, latency from the due time, service time,
//! late and unsent counts) — but one thread serves `concurrency / N`
//! connections, so a response does not cost a thread wake-up. std has no portable readiness API (epoll/kqueue), so
//! the thread polls: it tries a non-blocking read on every waiting connection;
//! after [`SPIN_PASSES`] passes without progress it yields the CPU once per pass.
//! (In the open loop, when nothing is in flight, it sleeps until the next due time.)
//! The consequence is stated, not hidden: **a polling thread uses its whole core
//! while the run lasts**, whatever the request rate.
//!
//! Latency is taken when the poller finds the response complete, so it carries
//! up to one polling pass of extra time (about 1 µs per waiting connection of the
//! thread). Checks run on the polling thread, so this driver suits cheap checks
//! (`--url` mode: status + whole body); catalog mode keeps one thread per
//! connection, where a slow decode delays only its own connection.

use super::client::{MAX_RESPONSE, parse_buffered};
use super::round::{RoundStats, nanos, run_workers};
use super::verify::Target;
use super::{client::Response, failure::FailureKind};
use crate::measure::histogram::Histogram;
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
    /// After a failed connect, no new attempt before this instant (closed loop).
    retry_at: Option<Instant>,
    /// Open loop: due offsets (ns from the start) of this connection's requests,
    /// the next one to send, and the due time of the one in flight.
    plan: Vec<u64>,
    next: usize,
    due: Option<Instant>,
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
            plan: Vec::new(),
            next: 0,
            due: None,
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

/// When connections send.
#[derive(Clone, Copy)]
enum Mode {
    /// Back to back until the deadline.
    Closed { deadline: Instant },
    /// Each at its due times from `start`; nothing is sent after `hard_end`.
    Open { start: Instant, hard_end: Instant },
}

/// One closed-loop run: `concurrency` connections over `threads` polling threads.
pub fn run(target: &Target, concurrency: usize, threads: usize, duration: Duration) -> Result<RoundStats, String> {
    run_mode(target, concurrency, threads, None, |start| Mode::Closed {
        deadline: start + duration,
    })
}

/// One open-loop run (see [`super::open`] for the definitions: schedule, latency
/// from the due time, late, unsent) over `threads` polling threads.
pub fn run_open(
    target: &Target,
    concurrency: usize,
    threads: usize,
    duration: Duration,
    rate: f64,
) -> Result<RoundStats, String> {
    let plan = super::open::schedule(rate, duration, concurrency)?;
    let hard_end = duration + target.timeout;
    run_mode(target, concurrency, threads, Some(plan), |start| Mode::Open {
        start,
        hard_end: start + hard_end,
    })
}

fn run_mode(
    target: &Target,
    concurrency: usize,
    threads: usize,
    plan: Option<Vec<Vec<u64>>>,
    mode: impl Fn(Instant) -> Mode + Sync,
) -> Result<RoundStats, String> {
    let threads = threads.clamp(1, concurrency.max(1));
    run_workers(
        threads,
        target.server_pid,
        |t| {
            let mut errors = Vec::new();
            let conns: Vec<Conn> = (t..concurrency)
                .step_by(threads)
                .map(|i| {
                    let (mut c, e) = Conn::new(target);
                    errors.extend(e);
                    if let Some(p) = &plan {
                        c.plan = p[i].clone();
                    }
                    c
                })
                .collect();
            (conns, errors)
        },
        |_, (mut conns, errors), start| {
            let mut st = RoundStats::default();
            if plan.is_some() {
                st.service = Some(Histogram::new());
                st.scheduled = conns.iter().map(|c| c.plan.len() as u64).sum();
            }
            for e in errors {
                st.errors.add(e);
            }
            drive(target, &mut conns, mode(start), &mut st);
            st
        },
    )
}

fn drive(target: &Target, conns: &mut [Conn], mode: Mode, st: &mut RoundStats) {
    let mut body = Vec::new();
    let mut idle_passes = 0u32;
    loop {
        let now = Instant::now();
        let mut progress = false;
        let mut in_flight = 0;
        let mut waiting = false; // open loop: requests still to send
        let mut earliest: Option<Instant> = None;
        for c in conns.iter_mut() {
            if c.sent_at.is_none() {
                let due = match mode {
                    Mode::Closed { deadline } => {
                        if now >= deadline || c.retry_at.is_some_and(|t| now < t) {
                            continue;
                        }
                        None
                    }
                    Mode::Open { start, hard_end } => {
                        let Some(&due_ns) = c.plan.get(c.next) else { continue };
                        if now >= hard_end {
                            continue;
                        }
                        waiting = true;
                        let due = start + Duration::from_nanos(due_ns);
                        if due > now {
                            earliest = Some(earliest.map_or(due, |e| e.min(due)));
                            continue;
                        }
                        c.next += 1;
                        Some(due)
                    }
                };
                if c.stream.is_none() {
                    match connect(target) {
                        Ok(s) => c.stream = Some(s),
                        Err(k) => {
                            c.fail(st, k);
                            c.retry_at = Some(Instant::now() + CONNECT_BACKOFF);
                            continue;
                        }
                    }
                }
                let sent = Instant::now();
                if due.is_some_and(|d| sent > d + super::open::LATE) {
                    st.late += 1;
                }
                c.sent_at = Some(sent);
                c.due = due;
                c.written = 0;
                progress = true;
            }
            in_flight += 1;
            if step(target, c, st, &mut body) {
                progress = true;
            }
        }
        if in_flight == 0 && !waiting {
            let closed_done = matches!(mode, Mode::Closed { deadline } if now >= deadline);
            if closed_done || matches!(mode, Mode::Open { .. }) {
                break;
            }
        }
        if progress {
            idle_passes = 0;
        } else if in_flight == 0 && earliest.is_some() {
            // Open loop, nothing in flight: sleep until the next due time (≤ 1 ms).
            let wait = earliest.map_or(Duration::ZERO, |e| e.saturating_duration_since(Instant::now()));
            thread::sleep(wait.min(Duration::from_millis(1)));
        } else {
            idle_passes += 1;
            if idle_passes > SPIN_PASSES {
                thread::yield_now();
            }
        }
    }
    st.unsent += conns.iter().map(|c| (c.plan.len() - c.next) as u64).sum::<u64>();
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
            if c.buf.len() >= MAX_RESPONSE {
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
            let raw = p.body(&c.buf, body);
            let plain;
            let resp_body = if p.gzipped {
                match crate::gzip::decompress(raw, super::client::MAX_BODY) {
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
                raw
            };
            let done = Instant::now(); // after gunzip, as in the blocking client
            let resp = Response {
                status: p.status,
                body: resp_body,
                gzipped: p.gzipped,
                wire_bytes: p.consumed as u64,
            };
            match target.check.verify(&resp) {
                Ok(()) => {
                    st.latency.record(nanos(done - c.due.unwrap_or(sent_at)));
                    if let Some(service) = &mut st.service {
                        service.record(nanos(done - sent_at));
                    }
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
