//! What the acceptor, the pool and every connection share: the config, the
//! [`Handler`] that answers requests, the listening socket, the memory
//! [`Resources`], each worker's [`Slot`] (the connection it serves), and
//! the fast 503 ([`refuse`]).
//!
//! This module imports none of `server`, `pool` or `conn`; they all import it.

use super::buffers::Scratch;
use super::config::ServerConfig;
use super::date::DateCache;
use super::memory::Resources;
use super::metrics::{Exposition, Layout};
use super::parse::Request;
use super::response::{self, Connection, Reply};
use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::os::fd::{AsRawFd, RawFd};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// The application a server serves. The server parses, admits, counts and
/// sends; the handler decides the reply and writes its body into the
/// worker's [`Scratch`] (`wirebench serve`'s is `routes::App`).
pub trait Handler: Send + Sync + std::fmt::Debug {
    /// The response to `req`. Never fails: every problem is a reply. A
    /// panic becomes a 500 for this request. `metrics` renders the
    /// server's `/metrics` exposition where the handler serves it.
    fn handle(&self, req: &Request<'_>, s: &mut Scratch, metrics: &Exposition<'_>) -> Reply;

    /// The routes and variants its replies are counted under
    /// ([`Reply::route`], [`Reply::variant`]).
    fn layout(&self) -> &'static Layout;
}

/// State shared by the acceptor and every worker.
#[derive(Debug)]
pub struct Shared {
    pub config: ServerConfig,
    pub handler: Box<dyn Handler>,
    pub resources: Arc<Resources>,
    /// The listening socket: the acceptor takes connections from it, and
    /// `/metrics` reads its queue and drops when scraped.
    pub listener: TcpListener,
    pub shutdown: AtomicBool,
    /// At least 75% of `max_connections` are open: keep-alive idle time is
    /// `busy_idle_timeout`. Set by the pool, read by connections.
    pub crowded: AtomicBool,
    /// Zero of the poller's idle clocks.
    pub epoch: Instant,
    /// Every worker's counters, summed for `/metrics`.
    pub metrics: super::metrics::Registry,
}

impl Shared {
    /// Milliseconds from [`Shared::epoch`] to `t` (a clock reading the caller already has).
    pub fn ms_at(&self, t: Instant) -> u64 {
        u64::try_from(t.saturating_duration_since(self.epoch).as_millis()).unwrap_or(u64::MAX)
    }
}

/// The descriptor of the connection a worker serves now, if any, so that
/// shutdown can end a read waiting for the rest of a head. The worker owns
/// its `TcpStream`; the descriptor stays valid for whoever holds the lock:
/// the worker clears it under the lock ([`Slot::close`]) before it closes or
/// parks the socket, and [`Slot::shutdown_read`] holds the lock.
#[derive(Debug, Default)]
pub struct Slot {
    fd: Mutex<Option<RawFd>>,
}

impl Slot {
    /// The worker starts serving `stream`; it must call [`Slot::close`]
    /// before it closes or parks the socket.
    pub fn open(&self, stream: &TcpStream) {
        *self.fd.lock().unwrap_or_else(PoisonError::into_inner) = Some(stream.as_raw_fd());
    }

    /// The worker is done with its connection (closed or parked next).
    pub fn close(&self) {
        *self.fd.lock().unwrap_or_else(PoisonError::into_inner) = None;
    }

    /// Shuts the read side of the connection, if any (server shutdown).
    pub fn shutdown_read(&self) {
        let fd = self.fd.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(fd) = *fd {
            // Under the lock: the worker cannot close the socket meanwhile
            // (see the type's doc), so `fd` is still this connection's.
            let _ = super::sys::shutdown_read(fd);
        }
    }
}

/// The fast 503 (`Retry-After: 1`, `Connection: close`): never blocks the caller.
pub fn refuse(stream: TcpStream, date: &mut DateCache) {
    let bytes = response::simple(
        503,
        "the server is at its connection limit and no connection has been idle long enough to close for you; retry later",
        "Retry-After: 1\r\n",
        date.get(),
        Connection::Close,
    );
    if stream.set_nonblocking(true).is_ok() && (&stream).write_all(&bytes).is_ok() {
        let _ = stream.shutdown(Shutdown::Write);
        // Drain what already arrived so the close sends FIN, not RST.
        let mut sink = [0u8; 4096];
        let _ = (&stream).read(&mut sink);
    }
}

/// A connection between system calls: what travels between the acceptor,
/// the poller and the workers. Only a worker touches its stream while it
/// serves it; the poller only waits on it.
#[derive(Debug)]
pub struct Job {
    pub stream: TcpStream,
    pub peer: SocketAddr,
    pub accepted: Instant,
    /// The request head now awaited is due within the header timeout of
    /// this instant (the accept for the first request, the first byte for
    /// a later one).
    pub started: Instant,
    /// When the connection went idle (its last response was sent).
    pub since: Instant,
    /// Request bytes read before the connection was parked mid-head
    /// (bounded by the head limits); empty otherwise.
    pub partial: Vec<u8>,
    /// The socket's read timeout as last set (skips redundant `setsockopt`s).
    pub read_timeout: Option<Duration>,
    /// A response was sent on it: parked without partial bytes, it is an
    /// idle keep-alive connection (evictable, idle timeout).
    pub kept: bool,
    /// A worker has set it up (`TCP_NODELAY`, write timeout).
    pub configured: bool,
    /// Its token in the poller (slot index and generation), given when
    /// the pool admits it; its socket stays in the poller's epoll set,
    /// edge-triggered, until it is closed.
    pub token: u64,
    /// The poller saw its client hang up (or an error) with its last
    /// readiness: the worker reads to the end before it would park it.
    pub hung_up: bool,
    /// Lingering close: our side is shut down and the socket non-blocking;
    /// the poller drains it until `started` + the linger time. Holds the
    /// bytes drained so far.
    pub lingering: Option<usize>,
}

impl Job {
    /// A connection just accepted.
    pub fn new(stream: TcpStream, peer: SocketAddr, accepted: Instant) -> Job {
        Job {
            stream,
            peer,
            accepted,
            started: accepted,
            since: accepted,
            partial: Vec::new(),
            read_timeout: None,
            kept: false,
            configured: false,
            token: u64::MAX,
            hung_up: false,
            lingering: None,
        }
    }

    /// Parked now, an idle keep-alive connection (not a head in progress
    /// or a first request awaited).
    pub fn idle(&self) -> bool {
        self.kept && self.partial.is_empty() && self.lingering.is_none()
    }
}
