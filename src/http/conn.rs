//! One connection, start to close: read → parse → route → write, repeated.
//!
//! - **Keep-alive** is the HTTP/1.1 default; `Connection: close` ends it after
//!   the response; HTTP/1.0 keeps the connection only when the client sent
//!   `Connection: keep-alive`, and then the response echoes it (RFC 9112 §9.3).
//! - **Pipelining**: bytes after one request stay in the buffer and are
//!   parsed before the next read, so pipelined requests are answered in
//!   order, one response each.
//! - **Timeouts**: the first request must arrive within the header timeout of
//!   the accept; between requests the connection may idle for the idle
//!   timeout; once a request's first byte is in, its head (and any body to
//!   discard) must be complete within the header timeout. A timed-out
//!   partial request gets 408; an idle one is closed silently. From 75% of
//!   the connection cap on, the idle timeout is `busy_idle_timeout`.
//! - **Sending**: one blocked write may take the write timeout (set once on
//!   the socket), and a whole response of `n` bytes must be sent within
//!   `write_timeout + n / min_send_rate`, so a client reading a large body
//!   slowly cannot hold its worker (and its share of the in-flight budget)
//!   without limit.
//! - **Idle marking**: while waiting for the next request the connection's
//!   [`Slot`] says since when it is idle, so the acceptor can evict it at the
//!   cap (the blocked read then sees end-of-file). A request that arrived as
//!   it was evicted is answered with `Connection: close`.
//! - **Memory**: after every response the worker gives back its in-flight
//!   budget and any response buffer over 16 KiB ([`Scratch::release`]).
//! - **Close rules**: a parse error answers its status with
//!   `Connection: close` and then closes *gracefully* — shut down our write
//!   side and drain what the client is still sending for a short while — so
//!   the client reads the error instead of a reset. A `Connection: close`
//!   response ends the same graceful way (pipelined bytes may follow it).
//! - **Panics** in a route become a 500 for that request; the connection
//!   stays usable because framing was not affected.
//!
//! The read socket timeout is a system call to change, so it is changed only
//! when the phase changes; the common keep-alive request costs one `read` and
//! one `write`.

use super::config::ServerConfig;
use super::parse::{self, Parsed, Version};
use super::response::{self, Connection};
use super::routes::{Body, Reply, Scratch};
use super::shared::{Shared, Slot};
use std::io::{self, Read};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// Buffers a worker reuses for every connection it serves; what it keeps
/// between requests is bounded (module doc).
#[derive(Debug)]
pub struct Worker {
    /// Request bytes: starts at [`INBUF_START`] and doubles up to
    /// [`parse::Limits::head_buffer_len`] only for heads that need it.
    inbuf: Vec<u8>,
    /// The largest head the limits allow.
    inbuf_max: usize,
    /// Response head (and small bodies).
    head: Vec<u8>,
    scratch: Scratch,
    date: super::date::DateCache,
    /// This worker's counters for `/metrics`, registered when the thread
    /// starts (a per-thread cost, like its stack, not a per-connection one).
    metrics: std::sync::Arc<super::metrics::WorkerMetrics>,
}

/// Initial request buffer: one page holds any ordinary request head, so an
/// idle worker keeps (and a request touches) as little memory as possible.
pub const INBUF_START: usize = 4096;

impl Worker {
    pub fn new(shared: &Shared) -> Worker {
        let limits = &shared.config.limits;
        Worker {
            inbuf: vec![0; INBUF_START.min(limits.head_buffer_len())],
            inbuf_max: limits.head_buffer_len(),
            head: Vec::with_capacity(512),
            scratch: Scratch::new(std::sync::Arc::clone(&shared.resources)),
            date: super::date::DateCache::new(),
            metrics: shared.metrics.register(),
        }
    }

    /// Shrinks a request buffer grown for a large head back to its start size
    /// once a connection ends (response buffers are released per response).
    pub fn trim(&mut self) {
        self.inbuf.truncate(INBUF_START.min(self.inbuf_max));
        self.inbuf.shrink_to_fit();
        self.scratch.release();
    }

    /// Heap bytes this worker holds now (request, head and response buffers).
    pub fn held(&self) -> usize {
        self.inbuf.capacity() + self.head.capacity() + self.scratch.capacity()
    }
}

/// The socket's read timeout as last set, to skip redundant `setsockopt` calls.
struct ReadTimeout<'a> {
    stream: &'a TcpStream,
    current: Option<Duration>,
}

impl ReadTimeout<'_> {
    fn set(&mut self, d: Duration) -> io::Result<()> {
        let d = d.max(Duration::from_millis(1)); // zero would mean "no timeout"
        if self.current != Some(d) {
            self.stream.set_read_timeout(Some(d))?;
            self.current = Some(d);
        }
        Ok(())
    }
}

/// Serves one connection until it closes. Errors are not reported: a broken
/// connection simply ends.
pub fn serve(stream: &TcpStream, peer: SocketAddr, accepted: Instant, shared: &Shared, w: &mut Worker, slot: &Slot) {
    let cfg = &shared.config;
    // Responses are single writes; without TCP_NODELAY, Nagle would hold a
    // response back while an earlier one is unacknowledged.
    if stream.set_nodelay(true).is_err() || stream.set_write_timeout(Some(cfg.write_timeout)).is_err() {
        return;
    }
    let mut timeout = ReadTimeout { stream, current: None };
    let mut filled = 0usize;
    // When the request being read started (the accept, for the first one).
    let mut started: Option<Instant> = Some(accepted);
    // Whether the bytes in the buffer may hold a decision for the parser (see below).
    let mut ready = false;
    // Whether the current request's bytes so far contain a line feed.
    let mut seen_lf = false;
    // The slot's idle mark while waiting for the next request.
    let mut idle_mark: Option<u64> = None;
    // Evicted while a request arrived: answer it, then close.
    let mut evicted = false;
    loop {
        let parsed = if filled == 0 || !ready {
            Ok(Parsed::Partial)
        } else {
            parse::parse(&w.inbuf[..filled], &cfg.limits)
        };
        let req = match parsed {
            Ok(Parsed::Complete(req)) => req,
            Ok(Parsed::Partial) => {
                if filled == w.inbuf.len() && filled < w.inbuf_max {
                    let grown = (filled * 2).min(w.inbuf_max);
                    w.inbuf.resize(grown, 0);
                }
                if filled == w.inbuf.len() {
                    // Cannot happen with a buffer of head_buffer_len; defensive.
                    let e = "request head too large";
                    reject(stream, w, 431, e);
                    return;
                }
                let wait = match started {
                    Some(t) => cfg.header_timeout.saturating_sub(t.elapsed()),
                    None => {
                        let wait = if shared.crowded.load(Ordering::Relaxed) {
                            cfg.idle_timeout.min(cfg.busy_idle_timeout)
                        } else {
                            cfg.idle_timeout
                        };
                        // Marked after the timeout is chosen: whoever sees the
                        // mark knows which timeout this idle period has.
                        if idle_mark.is_none() {
                            idle_mark = Some(slot.idle(shared.now_ms()));
                        }
                        wait
                    }
                };
                if wait.is_zero() || timeout.set(wait).is_err() {
                    timed_out(stream, w, filled);
                    return;
                }
                match (&*stream).read(&mut w.inbuf[filled..]) {
                    Ok(0) => return,
                    Ok(n) => {
                        started.get_or_insert_with(Instant::now);
                        if let Some(mark) = idle_mark.take() {
                            evicted |= !slot.busy(mark);
                        }
                        // The parser is stateless and rescans from the start,
                        // so run it only when the answer can have changed: a
                        // new line ended, the request line outgrew its limit,
                        // or the buffer is full. A client trickling one byte
                        // per packet then costs a rescan per line, not per byte.
                        let lf = w.inbuf[filled..filled + n].contains(&b'\n');
                        seen_lf |= lf;
                        filled += n;
                        ready = lf || filled == w.inbuf_max || (!seen_lf && filled > cfg.limits.max_request_line + 2);
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => {
                        timed_out(stream, w, filled);
                        return;
                    }
                    Err(_) => return,
                }
                continue;
            }
            Err(e) => {
                let msg = e.to_string();
                reject(stream, w, e.status(), &msg);
                return;
            }
        };

        let head_len = req.head_len;
        let body_len = req.content_length.unwrap_or(0);
        let is_head = req.method == "HEAD";
        let mut conn = match (req.version, req.close, req.keep_alive) {
            (_, true, _) => Connection::Close,
            (Version::Http11, false, _) => Connection::Default,
            (Version::Http10, false, true) => Connection::KeepAlive,
            (Version::Http10, false, false) => Connection::Close,
        };
        if evicted || shared.shutdown.load(Ordering::Relaxed) {
            conn = Connection::Close;
        }
        if body_len > cfg.limits.max_body {
            let msg = format!(
                "request body of {body_len} bytes is larger than {} bytes; no route takes a body",
                cfg.limits.max_body
            );
            reject(stream, w, 413, &msg);
            return;
        }
        let log_start = cfg
            .access_log
            .then(|| (Instant::now(), format!("{} {}", req.method, req.target)));

        let handled_at = Instant::now(); // metrics: request time starts at the complete head
        let reply = match catch_unwind(AssertUnwindSafe(|| (shared.router)(&shared.app, &req, &mut w.scratch))) {
            Ok(reply) => reply,
            Err(_) => {
                w.scratch.body.clear(); // whatever the panic left half-written
                w.scratch.gz.clear();
                internal_error(&mut w.scratch)
            }
        };
        w.scratch.settle();

        // Discard any body (no route reads one), keeping pipelined bytes after it.
        let consumed = head_len as u64 + body_len;
        if consumed <= filled as u64 {
            let consumed = consumed as usize;
            w.inbuf.copy_within(consumed..filled, 0);
            filled -= consumed;
        } else {
            let mut left = consumed - filled as u64;
            filled = 0;
            while left > 0 {
                let wait = cfg
                    .header_timeout
                    .saturating_sub(started.map_or(Duration::ZERO, |t| t.elapsed()));
                if wait.is_zero() || timeout.set(wait).is_err() {
                    return;
                }
                let cap = w.inbuf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
                match (&*stream).read(&mut w.inbuf[..cap]) {
                    Ok(0) => return,
                    Ok(n) => left -= n as u64,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(_) => return,
                }
            }
        }
        started = (filled > 0).then(Instant::now);
        (ready, seen_lf) = (filled > 0, filled > 0);

        let body: &[u8] = match reply.body {
            Body::Static(b) => b,
            Body::Scratch => &w.scratch.body,
            Body::Gzipped => &w.scratch.gz,
            Body::Schema(i) => shared.app.schemas[i].bytes,
            Body::Metrics => {
                w.scratch.body.clear();
                let kernel = super::metrics::Kernel::read(&shared.listener);
                shared.metrics.render(shared.metrics.gauges(), &kernel, &mut w.scratch.body);
                &w.scratch.body
            }
        };
        w.head.clear();
        response::write_head(&mut w.head, &reply.head, w.date.get(), body.len(), conn);
        let body = if is_head { &[][..] } else { body };
        let sent = if body.len() <= response::COPY_BODY_MAX {
            response::send(&mut &*stream, &mut w.head, body)
        } else {
            send_large(stream, &w.head, body, cfg)
        };
        if let Some((t0, line)) = log_start {
            let micros = t0.elapsed().as_micros();
            eprintln!("{peer} \"{line}\" {} {} {micros}us", reply.head.status, body.len());
        }
        {
            let m = &w.metrics;
            let sent_bytes = if is_head { 0 } else { body.len() };
            let request_ns = u64::try_from(handled_at.elapsed().as_nanos()).unwrap_or(u64::MAX);
            m.record(
                reply.label,
                reply.format,
                reply.head.status,
                sent_bytes,
                reply.encode_ns,
                request_ns,
            );
        }
        w.scratch.release();
        if sent.is_err() {
            return;
        }
        if conn == Connection::Close {
            // Pipelined bytes may still be arriving: close gracefully so they
            // do not turn our last response into a reset at the client.
            linger_close(stream, &mut w.inbuf);
            return;
        }
    }
}

/// Sends head + a large body within the whole-response deadline
/// (`write_timeout + len / min_send_rate`): the socket's write timeout is
/// lowered to what is left of it only once that is below the write timeout,
/// and restored after, so a client reading at a normal rate costs no extra
/// system call.
fn send_large(stream: &TcpStream, head: &[u8], body: &[u8], cfg: &ServerConfig) -> io::Result<()> {
    let total = (head.len() + body.len()) as u64;
    let allowance = Duration::from_secs_f64(total as f64 / cfg.min_send_rate as f64);
    let deadline = Instant::now() + cfg.write_timeout + allowance;
    let mut bufs = [io::IoSlice::new(head), io::IoSlice::new(body)];
    let mut bufs = &mut bufs[..];
    let mut lowered = false;
    let result = loop {
        if bufs.is_empty() {
            break Ok(());
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            break Err(io::ErrorKind::TimedOut.into());
        }
        if left < cfg.write_timeout {
            if let Err(e) = stream.set_write_timeout(Some(left)) {
                break Err(e);
            }
            lowered = true;
        }
        match io::Write::write_vectored(&mut &*stream, bufs) {
            Ok(0) => break Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => io::IoSlice::advance_slices(&mut bufs, n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => break Err(e),
        }
    };
    if lowered && result.is_ok() {
        stream.set_write_timeout(Some(cfg.write_timeout))?;
    }
    result
}

fn internal_error(s: &mut Scratch) -> Reply {
    response::json_error(&mut s.body, "internal error: the handler panicked; see the server log");
    Reply::new(
        response::Head {
            status: 500,
            content_type: "application/json",
            extra: "",
            gzip: false,
        },
        Body::Scratch,
    )
}

/// The header deadline passed: 408 if part of a request arrived, else just close.
fn timed_out(stream: &TcpStream, w: &mut Worker, filled: usize) {
    if filled > 0 {
        reject(stream, w, 408, "request head not received within the header timeout");
    }
}

/// Sends an error with `Connection: close`, then closes gracefully.
fn reject(stream: &TcpStream, w: &mut Worker, status: u16, message: &str) {
    let bytes = response::simple(status, message, w.date.get(), Connection::Close);
    w.metrics.record_rejected(status, bytes.len());
    if io::Write::write_all(&mut &*stream, &bytes).is_ok() {
        linger_close(stream, &mut w.inbuf);
    }
}

/// How long and how much a closing connection keeps draining the client's bytes.
const LINGER_TIME: Duration = Duration::from_millis(500);
const LINGER_BYTES: usize = 256 * 1024;

/// Half-closes, then reads and discards what the client still sends (bounded),
/// so closing with unread data does not turn into a reset that destroys the
/// response in flight (the "lingering close" of RFC 9112 §9.6).
pub fn linger_close(stream: &TcpStream, scratch: &mut [u8]) {
    if stream.shutdown(Shutdown::Write).is_err() {
        return;
    }
    let deadline = Instant::now() + LINGER_TIME;
    let mut drained = 0;
    while drained < LINGER_BYTES {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() || stream.set_read_timeout(Some(left)).is_err() {
            return;
        }
        match (&*stream).read(scratch) {
            Ok(0) | Err(_) => return,
            Ok(n) => drained += n,
        }
    }
}
