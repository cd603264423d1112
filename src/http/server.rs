//! The listener and its accept loop, and clean shutdown.
//!
//! The server serves a [`Handler`] it is given ([`Server::bind_with`]).
//! Binding returns once the socket listens, so a client can connect at once;
//! it listens with `--backlog` ([`sys::set_backlog`]: std's `bind` passes 128,
//! which a burst of 1,000 connects overflows), capped by the kernel at
//! `net.core.somaxconn` and read back by [`Server::listen_queue`].
//!
//! Per connection the accept loop only accepts and hands the socket to the
//! [`Pool`], or answers a fast 503 when the pool refuses it ([`refuse`]). It
//! runs at [`Priorities::raised`] and never dies: `ECONNABORTED` and `EINTR`
//! are retried at once; anything else (`EMFILE`, `ENOBUFS`, …) backs off, 1 ms
//! doubling to 100 ms, so an fd shortage does not become a busy loop.

use super::config::ServerConfig;
use super::date::DateCache;
use super::memory::Resources;
use super::pool::{Pool, PoolStats, Priorities};
use super::shared::{Handler, Job, Shared, refuse};
use super::sys::{self, ListenQueue};
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// A running server; dropping it (or [`Server::shutdown`]) stops it.
#[derive(Debug)]
pub struct Server {
    shared: Arc<Shared>,
    pool: Arc<Pool>,
    addr: SocketAddr,
    acceptor: Option<JoinHandle<()>>,
    /// The threads' scheduling, in the class the server got.
    prio: Priorities,
    /// Whether the acceptor runs at [`Priorities::raised`], or why not.
    priority: Result<(), String>,
    /// Why `--sched rr` was refused (the server then runs in the fair class).
    sched_refused: Option<String>,
}

/// A bound, listening socket with its handler, not yet accepting:
/// connects queue in the kernel's accept queue (up to the backlog) until
/// [`Bound::start`].
#[derive(Debug)]
pub struct Bound {
    config: ServerConfig,
    handler: Box<dyn Handler>,
    listener: TcpListener,
}

impl Bound {
    /// The address actually bound (the ephemeral port for `127.0.0.1:0`).
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// The listening socket's accept queue now (its length and effective backlog).
    pub fn listen_queue(&self) -> io::Result<ListenQueue> {
        sys::listen_queue(&self.listener)
    }

    /// Starts the pool, the encoder threads and the acceptor.
    pub fn start(self) -> io::Result<Server> {
        let Bound {
            mut config,
            handler,
            listener,
        } = self;
        let addr = listener.local_addr()?;
        let (class, sched_refused) = Priorities::available(config.sched);
        config.sched = class;
        // In the fair class the workers keep the starting thread's nice value.
        let prio = Priorities::of(class, super::sys::thread_nice().unwrap_or(0));
        let cores = thread::available_parallelism().map_or(1, |n| n.get());
        let resources = Arc::new(Resources::new(&config, cores, prio.encoders())?);
        let metrics = super::metrics::Registry::new(handler.layout());
        let shared = Arc::new(Shared {
            config,
            handler,
            resources,
            listener,
            shutdown: AtomicBool::new(false),
            crowded: AtomicBool::new(false),
            epoch: Instant::now(),
            metrics,
        });
        let pool = Arc::new(Pool::new(Arc::clone(&shared), prio)?);
        pool.start()?;
        let (raised_tx, raised_rx) = std::sync::mpsc::sync_channel(1);
        let acceptor = {
            let (shared, pool) = (Arc::clone(&shared), Arc::clone(&pool));
            thread::Builder::new().name("http-accept".into()).spawn(move || {
                let _ = raised_tx.send(prio.raise().map_err(|e| e.to_string()));
                accept_loop(&shared, &pool);
            })?
        };
        let priority = raised_rx
            .recv()
            .unwrap_or_else(|_| Err("the acceptor ended before it started".into()));
        Ok(Server {
            shared,
            pool,
            addr,
            acceptor: Some(acceptor),
            prio,
            priority,
            sched_refused,
        })
    }
}

impl Server {
    /// Binds `config.addr` and listens with `config.backlog` to serve
    /// `handler`, without accepting yet ([`Bound::start`]).
    pub fn bind_with(config: ServerConfig, handler: Box<dyn Handler>) -> io::Result<Bound> {
        // Each connection is a descriptor, queued or open; a few more for the
        // rest. Best effort: the hard limit may be lower, and accept backs
        // off on EMFILE.
        let want = config.max_connections as u64 + u64::from(config.backlog) + 64;
        let _ = sys::raise_open_files(want);
        let listener = TcpListener::bind(config.addr.as_str())?;
        sys::set_backlog(&listener, config.backlog)?;
        Ok(Bound {
            config,
            handler,
            listener,
        })
    }

    /// The listening socket's accept queue now (its length and effective backlog).
    pub fn listen_queue(&self) -> io::Result<ListenQueue> {
        sys::listen_queue(&self.shared.listener)
    }

    /// Whether the acceptor runs at [`Priorities::raised`], or why not.
    pub fn priority(&self) -> Result<(), &str> {
        self.priority.as_ref().map(|_| ()).map_err(String::as_str)
    }

    /// The scheduling the server's threads ask for, in the class it got.
    pub fn priorities(&self) -> Priorities {
        self.prio
    }

    /// Why `--sched rr` was refused, if it was (the threads then run fair).
    pub fn sched_refused(&self) -> Option<&str> {
        self.sched_refused.as_deref()
    }

    /// Connects the listening socket dropped so far, its queue full.
    pub fn listen_drops(&self) -> io::Result<u32> {
        sys::drops(&self.shared.listener)
    }

    /// The address actually bound (the ephemeral port for `127.0.0.1:0`).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Thread and connection counts now.
    pub fn stats(&self) -> PoolStats {
        self.pool.stats()
    }

    /// Response bytes reserved in the in-flight budget now, and requests it refused so far.
    pub fn budget(&self) -> (usize, u64) {
        let a = &self.shared.resources.admission;
        (a.in_use(), a.refused())
    }

    /// Heap bytes the warm large-body buffers waiting in their pool hold now
    /// (server-wide, at most [`super::memory`]'s stated footprint).
    pub fn pooled_bytes(&self) -> usize {
        self.shared.resources.large_buffers.held()
    }

    /// Stops accepting, closes idle connections, joins every thread.
    pub fn shutdown(self) {
        drop(self);
    }

    fn stop(&mut self) {
        self.shared.shutdown.store(true, Ordering::SeqCst);
        if let Some(acceptor) = self.acceptor.take() {
            // Wake the blocking accept with a connection of our own. If even
            // that fails (no descriptors), leave the thread rather than hang.
            if TcpStream::connect_timeout(&wake_addr(self.addr), Duration::from_secs(1)).is_ok() {
                let _ = acceptor.join();
            }
        }
        self.pool.shutdown();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Loopback in place of an unspecified bind address.
fn wake_addr(addr: SocketAddr) -> SocketAddr {
    let ip = match addr.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => IpAddr::V4(Ipv4Addr::LOCALHOST),
        IpAddr::V6(ip) if ip.is_unspecified() => IpAddr::V6(Ipv6Addr::LOCALHOST),
        ip => ip,
    };
    SocketAddr::new(ip, addr.port())
}

// Linux errno values of the resource-shortage accept errors (asm-generic/errno-base.h,
// errno.h); std has no ErrorKind for them.
const ENOMEM: i32 = 12;
const ENFILE: i32 = 23;
const EMFILE: i32 = 24;
const ENOBUFS: i32 = 105;

const BACKOFF_MIN: Duration = Duration::from_millis(1);
const BACKOFF_MAX: Duration = Duration::from_millis(100);

fn accept_loop(shared: &Shared, pool: &Pool) {
    let mut backoff = BACKOFF_MIN;
    let mut date = DateCache::new();
    loop {
        let accepted = shared.listener.accept();
        if shared.shutdown.load(Ordering::SeqCst) {
            return;
        }
        match accepted {
            Ok((stream, peer)) => {
                backoff = BACKOFF_MIN;
                let job = Job::new(stream, peer, Instant::now());
                if let Err(stream) = pool.submit(job) {
                    shared.metrics.refused();
                    refuse(stream, &mut date);
                }
            }
            Err(e) => match e.kind() {
                io::ErrorKind::ConnectionAborted | io::ErrorKind::Interrupted | io::ErrorKind::ConnectionReset => {}
                _ => {
                    if !matches!(e.raw_os_error(), Some(EMFILE | ENFILE | ENOBUFS | ENOMEM)) && shared.config.access_log
                    {
                        eprintln!("http: accept: {e}; backing off {backoff:?}");
                    }
                    thread::sleep(backoff);
                    backoff = (backoff * 2).min(BACKOFF_MAX);
                }
            },
        }
    }
}
