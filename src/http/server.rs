//! The listener and its accept loop, the connection cap, and clean shutdown.
//!
//! [`Server::start`] prepares the fixtures first (a bad `--fixture` fails
//! before anything listens), binds, and returns once the socket is listening,
//! so a test or the load generator can connect at once — no readiness polling.
//!
//! The accept loop does as little as possible per connection: `accept` and
//! hand the socket to the [`Pool`] (the worker sets `TCP_NODELAY`). It never dies:
//! `ECONNABORTED` (the client gave up while queued) and `EINTR` are retried at
//! once; `EMFILE`/`ENFILE`/`ENOBUFS`/`ENOMEM` and anything unexpected back off
//! (1 ms doubling to 100 ms) so an fd shortage does not become a busy loop,
//! and the loop continues when descriptors free up.
//!
//! Over capacity, the acceptor itself answers a fast `503` with
//! `Connection: close` on a non-blocking socket (it cannot block: the send
//! buffer of a fresh socket is empty) and closes, so an overloaded server
//! refuses quickly instead of letting connections hang.
//!
//! Note: std's `TcpListener::bind` listens with a backlog of 128 (not
//! configurable without `unsafe`/libc). A burst of 1,000 simultaneous
//! connects can overflow it; the kernel then drops SYNs and clients retry
//! after a second. The acceptor's speed is what keeps the queue short.

use super::ServerConfig;
use super::date::DateCache;
use super::pool::{Job, Pool};
use super::response::{self, Connection};
use super::routes::{App, SCHEMAS};
use crate::fixtures;
use std::io::{self, Read, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// State shared by the acceptor and every worker.
#[derive(Debug)]
pub struct Shared {
    pub config: ServerConfig,
    pub app: App,
    pub shutdown: AtomicBool,
    pub pool: Pool,
    /// Every worker's counters, summed for `/metrics`.
    pub metrics: super::metrics::Registry,
}

/// A running server; dropping it (or [`Server::shutdown`]) stops it.
#[derive(Debug)]
pub struct Server {
    shared: Arc<Shared>,
    addr: SocketAddr,
    acceptor: Option<JoinHandle<()>>,
}

impl Server {
    /// Prepares the catalog, binds `config.addr`, and starts accepting.
    /// Returns once the socket is listening.
    pub fn start(config: ServerConfig) -> io::Result<Server> {
        let app = prepare(&config)?;
        let listener = TcpListener::bind(config.addr.as_str())?;
        let addr = listener.local_addr()?;
        let pool = Pool::new(config.max_connections, config.stack_size);
        let shared = Arc::new(Shared {
            config,
            app,
            shutdown: AtomicBool::new(false),
            pool,
            metrics: super::metrics::Registry::default(),
        });
        shared.pool.start(&shared)?;
        let acceptor = {
            let shared = Arc::clone(&shared);
            thread::Builder::new()
                .name("http-accept".into())
                .spawn(move || accept_loop(&listener, &shared))?
        };
        Ok(Server {
            shared,
            addr,
            acceptor: Some(acceptor),
        })
    }

    /// The address actually bound (the ephemeral port for `127.0.0.1:0`).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Products prepared; the largest `count` a request may ask for.
    pub fn max_count(&self) -> usize {
        self.shared.app.max_count
    }

    /// Worker threads spawned so far (they are reused; this is the peak of open connections).
    pub fn worker_threads(&self) -> usize {
        self.shared.pool.threads()
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
        self.shared.pool.shutdown();
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

/// Loads or generates the products before anything listens.
fn prepare(config: &ServerConfig) -> io::Result<App> {
    let mut products = match &config.fixture {
        Some(path) => {
            fixtures::load_file(path)
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?
                .products
        }
        None => fixtures::catalog(config.max_count).products,
    };
    products.truncate(config.max_count);
    if products.is_empty() {
        let e = "no products to serve: the fixture is empty or --max-count is 0";
        return Err(io::Error::new(io::ErrorKind::InvalidInput, e));
    }
    Ok(App {
        max_count: products.len(),
        products,
        schemas: &SCHEMAS,
        panic_route: config.test_panic_route,
    })
}

// Linux errno values of the resource-shortage accept errors (asm-generic/errno-base.h,
// errno.h); std has no ErrorKind for them.
const ENOMEM: i32 = 12;
const ENFILE: i32 = 23;
const EMFILE: i32 = 24;
const ENOBUFS: i32 = 105;

const BACKOFF_MIN: Duration = Duration::from_millis(1);
const BACKOFF_MAX: Duration = Duration::from_millis(100);

fn accept_loop(listener: &TcpListener, shared: &Arc<Shared>) {
    let mut backoff = BACKOFF_MIN;
    let mut date = DateCache::new();
    loop {
        let accepted = listener.accept();
        if shared.shutdown.load(Ordering::SeqCst) {
            return;
        }
        match accepted {
            Ok((stream, peer)) => {
                backoff = BACKOFF_MIN;
                let job = Job {
                    stream,
                    peer,
                    accepted: Instant::now(),
                };
                if let Err(job) = shared.pool.submit(job) {
                    shared.metrics.refused();
                    refuse(job.stream, &mut date);
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

/// The fast 503: never blocks the acceptor.
pub(super) fn refuse(stream: TcpStream, date: &mut DateCache) {
    let bytes = response::simple(
        503,
        "server at its connection limit; retry later",
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
