//! One connection, start to close: read → parse → handle → write, repeated.
//! The [`super::shared::Handler`] decides each reply; this module knows no route.
//!
//! - **Keep-alive**: the HTTP/1.1 default; `Connection: close` ends it after the
//!   response; HTTP/1.0 keeps it only on `Connection: keep-alive`, echoed back
//!   (RFC 9112 §9.3). **Pipelining**: bytes after a request stay in the buffer
//!   and are parsed before the next read: one response each, in order.
//! - **Timeouts**: the first request is due within the header timeout of the
//!   accept; a request's head (and any body to discard) within the header
//!   timeout of its first byte, else 408 if part of it came. Idle time between
//!   requests is the poller's ([`super::pool`]). One blocked write may take the
//!   write timeout; a whole response of `n` bytes must go out within
//!   `write_timeout + n / min_send_rate` (`send_large`), so a slow reader
//!   cannot hold its worker (and its share of the budget) without limit.
//! - **Parking**: a worker serves a connection only while it has bytes to
//!   serve. After a response with no next request buffered, or a head stalled
//!   for [`HEAD_READ_WAIT`] (its bytes travel in [`Job::partial`]), [`serve`]
//!   returns [`Outcome::Park`]; the header deadline stays the connection's
//!   (`Job::started`). The poller is edge-triggered, so a connection is parked
//!   only after a read that left the socket empty (a read that filled the
//!   buffer is followed by one that does not wait); a turn's first read does
//!   not wait either (`recv` with `MSG_DONTWAIT`).
//! - **Memory**: after every response the worker gives back its budget and any
//!   response buffer over 16 KiB ([`Scratch::release`]).
//! - **Closing**: a parse error answers its status with `Connection: close`,
//!   then closes gracefully: our write side shut down, the client's late bytes
//!   drained by the poller ([`Outcome::Linger`], [`drain`]), so it reads the
//!   error, not a reset; so does a `Connection: close` response. A handler
//!   panic is a 500 for that request; framing is intact, the connection stays.
//!
//! The loop is a state machine (`State`), one function per state returning
//! the next. A keep-alive request costs one `read`, one `write` and two clock
//! readings; the read timeout is set only when the wait changes. Rare paths
//! (errors, timeouts, body discarding, large sends, the access log) are out of
//! line, so the common path's frames stay small.

use super::buffers::Scratch;
use super::config::ServerConfig;
use super::metrics::Exposition;
use super::parse::{self, Parsed, Version};
use super::response::{self, Body, Connection, Reply};
use super::shared::{Job, Shared};
use std::io::{self, Read as _};
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
    metrics: super::metrics::WorkerMetrics,
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
}

/// The socket's read timeout as last set, to skip redundant `setsockopt` calls.
struct ReadTimeout<'a> {
    stream: &'a TcpStream,
    current: &'a mut Option<Duration>,
}

impl ReadTimeout<'_> {
    fn set(&mut self, d: Duration) -> io::Result<()> {
        let d = d.max(Duration::from_millis(1)); // zero would mean "no timeout"
        if *self.current != Some(d) {
            self.stream.set_read_timeout(Some(d))?;
            *self.current = Some(d);
        }
        Ok(())
    }
}

/// How a worker's turn on a connection ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Closed (or to be closed): the client left, an error, a timeout, `Connection: close`.
    Close,
    /// Waiting for bytes: hand the connection to the poller. Either idle
    /// after a response, or mid-head with its bytes in [`Job::partial`].
    Park,
    /// Our side is shut down after a `Connection: close` response: the
    /// poller drains what the client still sends, then closes ([`drain`]).
    Linger,
}

/// The longest a worker waits in one read for more of a request head
/// before it parks the connection (its bytes so far travel with it):
/// a client trickling its head holds a worker for at most this long per
/// read, not for the whole header timeout.
pub const HEAD_READ_WAIT: Duration = Duration::from_millis(50);

/// Where a connection is between two system calls; [`serve`] runs one state
/// function after another until [`State::Done`].
enum State {
    /// Keep-alive: no request bytes buffered; goes to the poller.
    Idle,
    /// Part of a head is in, the rest is late: goes to the poller with it.
    Stalled {
        started: Instant,
    },
    /// Part of a request head is buffered (or the first request is awaited,
    /// from the accept), due within the header timeout of `started`.
    ReadingHead {
        started: Instant,
    },
    /// The request was answered in the worker's buffers; `left` body bytes
    /// still to read and throw away (no route takes a body).
    DiscardingBody {
        left: u64,
        started: Instant,
        pending: Pending,
    },
    /// The response is ready and the request fully read.
    Responding(Pending),
    /// The last response was sent with `Connection: close`: close gracefully.
    Closing,
    Done,
}

/// A routed response waiting to be sent.
struct Pending {
    reply: Reply,
    conn: Connection,
    is_head: bool,
    /// Request time for `/metrics` starts at the complete head.
    handled_at: Instant,
    /// `--access-log`: when the request started and its request line (boxed:
    /// a pending response is moved from state to state on a cold stack).
    log: Option<Box<(Instant, String)>>,
}

/// One connection's bookkeeping across states.
struct Conn<'a> {
    stream: &'a TcpStream,
    peer: SocketAddr,
    shared: &'a Shared,
    timeout: ReadTimeout<'a>,
    /// Request bytes in `Worker::inbuf`.
    filled: usize,
    /// Whether the buffered bytes may hold a decision for the parser.
    ready: bool,
    /// Whether the current request's bytes so far contain a line feed.
    seen_lf: bool,
    /// When the last read that brought bytes returned: the start of a
    /// request, the completion of its head, and the second of its `Date`.
    last_read: Instant,
    /// When the last response was handed to the kernel: the start of the
    /// idle period that follows.
    sent_at: Instant,
    /// The next read must not wait (the turn's first, and the one that
    /// checks for bytes left behind a full read).
    nowait: bool,
    /// The last read took every byte the socket held then (it filled less
    /// than the room it had, or found none): with edge-triggered readiness,
    /// any later byte is reported, so the connection may be parked.
    drained: bool,
    /// A response was sent in this turn.
    responded: bool,
    /// The poller saw the client hang up: read to the end before parking.
    hung_up: bool,
}

/// Serves `job` until it closes or waits for bytes ([`Outcome::Park`]:
/// `job.since`, `job.started` and `job.partial` say what it waits for).
/// Errors are not reported: a broken connection simply ends.
pub fn serve(job: &mut Job, shared: &Shared, w: &mut Worker) -> Outcome {
    // Responses are single writes; without TCP_NODELAY, Nagle would hold a
    // response back while an earlier one is unacknowledged.
    if !job.configured {
        if job.stream.set_nodelay(true).is_err()
            || job.stream.set_write_timeout(Some(shared.config.write_timeout)).is_err()
        {
            return Outcome::Close;
        }
        job.configured = true;
    }
    let Job {
        stream,
        peer,
        started,
        since,
        partial,
        read_timeout,
        kept,
        hung_up,
        ..
    } = job;
    let mut c = Conn {
        stream,
        peer: *peer,
        shared,
        timeout: ReadTimeout {
            stream,
            current: read_timeout,
        },
        filled: 0,
        ready: false,
        seen_lf: false,
        last_read: *started,
        sent_at: *since,
        nowait: true,
        drained: false,
        responded: false,
        hung_up: std::mem::take(hung_up),
    };
    if !partial.is_empty() {
        // Bytes of a head read before the connection was parked: at most
        // the largest head, so they fit the buffer grown to it.
        let n = partial.len().min(w.inbuf_max);
        if w.inbuf.len() < n + 1 && w.inbuf.len() < w.inbuf_max {
            w.inbuf.resize((n + 1).next_power_of_two().min(w.inbuf_max), 0);
        }
        let n = n.min(w.inbuf.len());
        w.inbuf[..n].copy_from_slice(&partial[..n]);
        c.filled = n;
        c.seen_lf = partial[..n].contains(&b'\n');
        c.ready = true;
        *partial = Vec::new();
    }
    let mut state = State::ReadingHead { started: *started };
    loop {
        state = match state {
            State::Idle => {
                *since = c.sent_at;
                *kept |= c.responded;
                return Outcome::Park;
            }
            State::Stalled { started: head } => {
                *started = head;
                partial.extend_from_slice(&w.inbuf[..c.filled]);
                return Outcome::Park;
            }
            State::ReadingHead { started } => c.reading_head(w, started),
            State::DiscardingBody { left, started, pending } => c.discarding_body(w, left, started, pending),
            State::Responding(pending) => c.responding(w, pending),
            State::Closing => {
                // Pipelined bytes may still be arriving: close gracefully so
                // they do not turn our last response into a reset at the
                // client. The poller drains them; no worker waits for that.
                return match stream.shutdown(Shutdown::Write) {
                    Ok(()) => Outcome::Linger,
                    Err(_) => Outcome::Close,
                };
            }
            State::Done => return Outcome::Close,
        };
    }
}

/// What one read brought.
enum Read {
    Bytes,
    Closed,
    TimedOut,
    /// Nothing there yet (a read that does not wait).
    Nothing,
}

impl Conn<'_> {
    /// Reads until the buffered bytes parse as a complete head, then routes it.
    #[inline(never)]
    fn reading_head(&mut self, w: &mut Worker, started: Instant) -> State {
        let cfg = &self.shared.config;
        let parsed = if self.filled == 0 || !self.ready {
            Ok(Parsed::Partial)
        } else {
            parse::parse(&w.inbuf[..self.filled], &cfg.limits)
        };
        let req = match parsed {
            Ok(Parsed::Complete(req)) => req,
            Ok(Parsed::Partial) => {
                if self.filled == w.inbuf.len() && self.filled < w.inbuf_max {
                    let grown = (self.filled * 2).min(w.inbuf_max);
                    w.inbuf.resize(grown, 0);
                }
                if self.filled == w.inbuf.len() {
                    // Cannot happen with a buffer of head_buffer_len; defensive.
                    return self.reject(w, 431, "request head too large");
                }
                // A turn's first read does not wait (the poller saw the
                // bytes); a later one waits a constant, so its
                // `setsockopt` is made once.
                let left = cfg.header_timeout.saturating_sub(started.elapsed());
                return match self.read(w, left.min(HEAD_READ_WAIT)) {
                    Read::Bytes => State::ReadingHead { started },
                    Read::Closed => State::Done,
                    // The poller reported bytes another read already took
                    // (or bytes behind a full read were not there): wait in
                    // the poller, the head so far (if any) with it.
                    Read::Nothing if self.filled == 0 => State::Idle,
                    Read::Nothing => State::Stalled { started },
                    Read::TimedOut if left > HEAD_READ_WAIT => State::Stalled { started },
                    Read::TimedOut => self.timed_out(w),
                };
            }
            Err(e) => {
                let msg = e.to_string();
                return self.reject(w, e.status(), &msg);
            }
        };

        let head_len = req.head_len;
        let body_len = req.content_length.unwrap_or(0);
        let mut conn = match (req.version, req.close, req.keep_alive) {
            (_, true, _) => Connection::Close,
            (Version::Http11, false, _) => Connection::Default,
            (Version::Http10, false, true) => Connection::KeepAlive,
            (Version::Http10, false, false) => Connection::Close,
        };
        if self.shared.shutdown.load(Ordering::Relaxed) {
            conn = Connection::Close;
        }
        if body_len > cfg.limits.max_body {
            let msg = format!(
                "request body of {body_len} bytes is larger than {} bytes; no route takes a body",
                cfg.limits.max_body
            );
            return self.reject(w, 413, &msg);
        }
        let log = cfg.access_log.then(|| log_start(&req));
        // The head completed with the read that brought its last bytes.
        let handled_at = self.last_read;
        let shared = self.shared;
        let metrics = Exposition::new(&shared.metrics, &shared.listener);
        let reply = match catch_unwind(AssertUnwindSafe(|| {
            shared.handler.handle(&req, &mut w.scratch, &metrics)
        })) {
            Ok(reply) => reply,
            Err(_) => {
                w.scratch.body.clear(); // whatever the panic left half-written
                w.scratch.gz.clear();
                internal_error(&mut w.scratch)
            }
        };
        w.scratch.settle();
        let pending = Pending {
            reply,
            conn,
            is_head: req.method == "HEAD",
            handled_at,
            log,
        };
        // Keep pipelined bytes after the request; what is not in yet is discarded.
        let consumed = head_len as u64 + body_len;
        if consumed <= self.filled as u64 {
            let consumed = consumed as usize;
            w.inbuf.copy_within(consumed..self.filled, 0);
            self.filled -= consumed;
            State::Responding(pending)
        } else {
            let left = consumed - self.filled as u64;
            self.filled = 0;
            State::DiscardingBody { left, started, pending }
        }
    }

    /// Reads and drops the rest of a request body, within the header timeout.
    #[inline(never)]
    fn discarding_body(&mut self, w: &mut Worker, mut left: u64, started: Instant, pending: Pending) -> State {
        let wait = self.shared.config.header_timeout.saturating_sub(started.elapsed());
        if wait.is_zero() || self.timeout.set(wait).is_err() {
            return State::Done;
        }
        let cap = w.inbuf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        match (&*self.stream).read(&mut w.inbuf[..cap]) {
            Ok(0) => return State::Done,
            Ok(n) => {
                left -= n as u64;
                self.drained = n < cap;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return State::Done,
        }
        if left == 0 {
            State::Responding(pending)
        } else {
            State::DiscardingBody { left, started, pending }
        }
    }

    /// Writes the response, counts it, gives its memory back.
    #[inline(never)]
    fn responding(&mut self, w: &mut Worker, p: Pending) -> State {
        let shared = self.shared;
        let body: &[u8] = match p.reply.body {
            Body::Static(b) => b,
            Body::Scratch => &w.scratch.body,
            Body::Gzipped => &w.scratch.gz,
        };
        w.head.clear();
        response::write_head(
            &mut w.head,
            &p.reply.head,
            w.date.at(self.last_read),
            body.len(),
            p.conn,
        );
        let body = if p.is_head { &[][..] } else { body };
        let sent = if body.len() <= response::COPY_BODY_MAX {
            response::send(&mut &*self.stream, &mut w.head, body)
        } else {
            send_large(self.stream, &w.head, body, &shared.config)
        };
        if let Some(log) = p.log {
            log_request(self.peer, &log.1, p.reply.head.status, body.len(), log.0);
        }
        let done = Instant::now();
        self.sent_at = done;
        self.responded = true;
        let request_ns = u64::try_from(done.saturating_duration_since(p.handled_at).as_nanos()).unwrap_or(u64::MAX);
        let r = &p.reply;
        w.metrics
            .record(r.route, r.variant, r.head.status, body.len(), r.encode_ns, request_ns);
        w.scratch.release();
        if sent.is_err() {
            State::Done
        } else if p.conn == Connection::Close {
            State::Closing
        } else if self.filled > 0 {
            // A pipelined request is already (partly) in: its head is due from now.
            (self.ready, self.seen_lf) = (true, true);
            State::ReadingHead { started: done }
        } else if !self.drained || self.hung_up {
            // The last read filled the buffer (more may be in the socket,
            // its arrival reported already), or the client hung up (its
            // end-of-file is not reported again): look before parking.
            (self.ready, self.seen_lf) = (false, false);
            self.nowait = true;
            State::ReadingHead { started: done }
        } else {
            (self.ready, self.seen_lf) = (false, false);
            State::Idle
        }
    }

    /// One read into the request buffer, waiting at most `wait` (not at
    /// all when [`Conn::nowait`] is set).
    fn read(&mut self, w: &mut Worker, wait: Duration) -> Read {
        let nowait = std::mem::replace(&mut self.nowait, false);
        if wait.is_zero() || (!nowait && self.timeout.set(wait).is_err()) {
            return Read::TimedOut;
        }
        loop {
            let room = w.inbuf.len() - self.filled;
            let got = if nowait {
                super::sys::recv_nowait(self.stream, &mut w.inbuf[self.filled..])
            } else {
                (&*self.stream).read(&mut w.inbuf[self.filled..])
            };
            match got {
                Ok(0) => return Read::Closed,
                Ok(n) => {
                    self.drained = n < room;
                    self.last_read = Instant::now();
                    // The parser is stateless and rescans from the start, so
                    // run it only when the answer can have changed: a new
                    // line ended, the request line outgrew its limit, or the
                    // buffer is full. A client trickling one byte per packet
                    // then costs a rescan per line, not per byte.
                    let lf = w.inbuf[self.filled..self.filled + n].contains(&b'\n');
                    self.seen_lf |= lf;
                    self.filled += n;
                    let limits = &self.shared.config.limits;
                    self.ready = lf
                        || self.filled == w.inbuf_max
                        || (!self.seen_lf && self.filled > limits.max_request_line + 2);
                    return Read::Bytes;
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if nowait && e.kind() == io::ErrorKind::WouldBlock => {
                    self.drained = true;
                    return Read::Nothing;
                }
                Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => {
                    self.drained = true;
                    return Read::TimedOut;
                }
                Err(_) => return Read::Closed,
            }
        }
    }

    /// The header deadline passed: 408 if part of a request arrived, else just close.
    #[cold]
    #[inline(never)]
    fn timed_out(&mut self, w: &mut Worker) -> State {
        if self.filled > 0 {
            return self.reject(w, 408, "request head not received within the header timeout");
        }
        State::Done
    }

    /// Sends an error with `Connection: close`, then closes gracefully.
    #[cold]
    #[inline(never)]
    fn reject(&mut self, w: &mut Worker, status: u16, message: &str) -> State {
        let bytes = response::simple(status, message, "", w.date.get(), Connection::Close);
        w.metrics.record_rejected(status, bytes.len());
        if io::Write::write_all(&mut &*self.stream, &bytes).is_ok() {
            State::Closing
        } else {
            State::Done
        }
    }
}

/// Sends head + a large body within the whole-response deadline
/// (`write_timeout + len / min_send_rate`): the socket's write timeout is
/// lowered to what is left of it only once that is below the write timeout,
/// and restored after, so a client reading at a normal rate costs no extra
/// system call.
#[inline(never)]
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

/// `--access-log`: when the request started and its request line.
#[cold]
#[inline(never)]
fn log_start(req: &parse::Request<'_>) -> Box<(Instant, String)> {
    Box::new((Instant::now(), format!("{} {}", req.method, req.target)))
}

/// `--access-log`: one line per response on stderr.
#[cold]
#[inline(never)]
fn log_request(peer: SocketAddr, line: &str, status: u16, len: usize, t0: Instant) {
    let micros = t0.elapsed().as_micros();
    eprintln!("{peer} \"{line}\" {status} {len} {micros}us");
}

#[cold]
#[inline(never)]
fn internal_error(s: &mut Scratch) -> Reply {
    Reply::error(
        &mut s.body,
        500,
        "internal error: the handler panicked; see the server log",
        "",
    )
}

/// How long and how much a closing connection keeps draining the client's bytes.
pub const LINGER_TIME: Duration = Duration::from_millis(500);
pub const LINGER_BYTES: usize = 256 * 1024;

/// One round of a lingering close (RFC 9112 §9.6): reads and discards what
/// the client sent on a non-blocking socket whose write side we shut down,
/// so that closing with unread data does not turn into a reset that
/// destroys the response in flight. Returns the bytes drained so far, or
/// `None` when the connection is done with (end-of-file, an error, or
/// more than [`LINGER_BYTES`]): close it.
pub fn drain(stream: &TcpStream, drained: usize) -> Option<usize> {
    let mut sink = [0u8; 4096];
    let mut drained = drained;
    loop {
        match (&*stream).read(&mut sink) {
            Ok(0) => return None,
            Ok(n) => {
                drained += n;
                if drained >= LINGER_BYTES {
                    return None;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Some(drained),
            Err(_) => return None,
        }
    }
}
