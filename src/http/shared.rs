//! What the acceptor, the pool and every connection share: the config, the
//! prepared catalog, the router, the listening socket, the memory
//! [`Resources`], each worker's [`Slot`] (its
//! connection and whether it is idle), and the fast 503 ([`refuse`]).
//!
//! This module imports none of `server`, `pool` or `conn`; they all import it.

use super::buffers::Scratch;
use super::config::ServerConfig;
use super::date::DateCache;
use super::memory::Resources;
use super::parse::Request;
use super::response::{self, Connection};
use super::routes::{App, Reply};
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::os::fd::{AsRawFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

/// What answers a parsed request: [`super::routes::handle`] in `wirebench
/// serve`; tests wrap it to add routes of their own (one that panics).
pub type Router = fn(&App, &Request<'_>, &mut Scratch) -> Reply;

/// State shared by the acceptor and every worker.
#[derive(Debug)]
pub struct Shared {
    pub config: ServerConfig,
    pub app: App,
    pub router: Router,
    pub resources: Arc<Resources>,
    /// The listening socket: the acceptor takes connections from it, and
    /// `/metrics` reads its queue and drops when scraped.
    pub listener: TcpListener,
    pub shutdown: AtomicBool,
    /// At least 75% of `max_connections` are open: keep-alive idle time is
    /// `busy_idle_timeout`. Set by the pool, read by connections.
    pub crowded: AtomicBool,
    /// Zero of the idle clocks in [`Slot`].
    pub epoch: Instant,
    /// Every worker's counters, summed for `/metrics`.
    pub metrics: super::metrics::Registry,
}

impl Shared {
    /// Milliseconds from [`Shared::epoch`] to `t` (a clock reading the caller already has).
    pub fn ms_at(&self, t: Instant) -> u64 {
        u64::try_from(t.saturating_duration_since(self.epoch).as_millis()).unwrap_or(u64::MAX - IDLE_BASE)
    }
}

/// `Slot::state` values; anything from `IDLE_BASE` up is "idle since (state - IDLE_BASE) ms".
const EMPTY: u64 = 0;
const BUSY: u64 = 1;
const EVICTED: u64 = 2;
const IDLE_BASE: u64 = 3;

/// One worker's connection as the others see it: the acceptor picks the
/// longest-idle one to close at the cap, shutdown closes them all.
///
/// The slot holds the connection's descriptor, not the socket: the worker
/// owns its `TcpStream` on its own stack, where every `read` and `write`
/// finds it. Behind a shared pointer it would sit on a heap line of its
/// own, and with a thread per connection that line is cold again at each
/// request's first system call (the other connections' threads ran in
/// between). The descriptor stays valid for whoever holds the lock: the
/// worker clears it under the lock ([`Slot::close`]) before it closes the
/// socket, and [`Slot::shutdown_read`] shuts it down holding the lock.
#[derive(Debug, Default)]
pub struct Slot {
    state: AtomicU64,
    fd: Mutex<Option<RawFd>>,
}

impl Slot {
    /// The worker starts serving `stream`; it must call [`Slot::close`]
    /// before it closes the socket.
    pub fn open(&self, stream: &TcpStream) {
        *self.fd.lock().unwrap_or_else(PoisonError::into_inner) = Some(stream.as_raw_fd());
        self.state.store(BUSY, Ordering::Release);
    }

    /// The connection waits for its next request (since `now_ms`). Returns
    /// the mark to hand to [`Slot::busy`].
    pub fn idle(&self, now_ms: u64) -> u64 {
        let mark = IDLE_BASE + now_ms;
        // Fails only when already evicted, which must stay visible.
        let _ = self
            .state
            .compare_exchange(BUSY, mark, Ordering::AcqRel, Ordering::Acquire);
        mark
    }

    /// Request bytes arrived on a connection marked idle with `mark`.
    /// False when it was evicted meanwhile: answer it, then close.
    pub fn busy(&self, mark: u64) -> bool {
        match self
            .state
            .compare_exchange(mark, BUSY, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => true,
            Err(now) => now != EVICTED,
        }
    }

    /// The connection is done (its socket not closed yet); true when it was evicted.
    pub fn close(&self) -> bool {
        *self.fd.lock().unwrap_or_else(PoisonError::into_inner) = None;
        self.state.swap(EMPTY, Ordering::AcqRel) == EVICTED
    }

    /// Since when this connection is idle, in ms since the epoch.
    pub fn idle_since(&self) -> Option<u64> {
        let s = self.state.load(Ordering::Acquire);
        (s >= IDLE_BASE).then(|| s - IDLE_BASE)
    }

    /// Closes the connection if it is still idle since `since`: its worker's
    /// blocked read sees end-of-file. False when it started a request meanwhile.
    pub fn evict(&self, since: u64) -> bool {
        let idle = IDLE_BASE + since;
        if self
            .state
            .compare_exchange(idle, EVICTED, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            return false;
        }
        self.shutdown_read();
        true
    }

    /// Shuts the read side of the connection, if any (eviction, server shutdown).
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
    let bytes = response::simple_with(
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
