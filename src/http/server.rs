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
//! At the connection cap the pool evicts the longest-idle keep-alive
//! connection to admit the new one. Only when every connection is
//! mid-request does the acceptor itself answer a fast `503` with
//! `Connection: close` on a non-blocking socket (it cannot block: the send
//! buffer of a fresh socket is empty) and close, so an overloaded server
//! refuses quickly instead of letting connections hang.
//!
//! Note: std's `TcpListener::bind` listens with a backlog of 128 (not
//! configurable without `unsafe`/libc). A burst of 1,000 simultaneous
//! connects can overflow it; the kernel then drops SYNs and clients retry
//! after a second. The acceptor's speed is what keeps the queue short.

use super::config::ServerConfig;
use super::date::DateCache;
use super::memory::{Budget, Compressors, Encoders, Permits, Resources};
use super::pool::{Job, Pool, PoolStats};
use super::routes::{App, SCHEMAS};
use super::shared::{Shared, refuse};
use crate::fixtures;
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
}

impl Server {
    /// Prepares the catalog, binds `config.addr`, and starts accepting.
    /// Returns once the socket is listening.
    pub fn start(config: ServerConfig) -> io::Result<Server> {
        let app = prepare(&config)?;
        let listener = TcpListener::bind(config.addr.as_str())?;
        let addr = listener.local_addr()?;
        let cores = thread::available_parallelism().map_or(1, |n| n.get());
        let resources = Arc::new(Resources {
            budget: Budget::new(config.max_inflight_bytes),
            compressors: Compressors::new(cores),
            encoders: Encoders::start(cores)?,
            large: Permits::new(cores),
            budget_wait: config.budget_wait,
        });
        let shared = Arc::new(Shared {
            config,
            app,
            resources,
            shutdown: AtomicBool::new(false),
            crowded: AtomicBool::new(false),
            epoch: Instant::now(),
            metrics: super::metrics::Registry::default(),
        });
        let pool = Arc::new(Pool::new(Arc::clone(&shared)));
        pool.start()?;
        let acceptor = {
            let (shared, pool) = (Arc::clone(&shared), Arc::clone(&pool));
            thread::Builder::new()
                .name("http-accept".into())
                .spawn(move || accept_loop(&listener, &shared, &pool))?
        };
        Ok(Server {
            shared,
            pool,
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

    /// Worker threads alive now.
    pub fn worker_threads(&self) -> usize {
        self.pool.stats().threads
    }

    /// Thread and connection counts now.
    pub fn stats(&self) -> PoolStats {
        self.pool.stats()
    }

    /// Response bytes reserved in the in-flight budget now, and requests it refused so far.
    pub fn budget(&self) -> (usize, u64) {
        let b = &self.shared.resources.budget;
        (b.in_use(), b.refused())
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
    let data = match &config.data {
        Some((data, schema)) => {
            let schema = schema.as_ref().map(|p| p.to_string_lossy().into_owned());
            let set = super::data::DataSet::load(&data.to_string_lossy(), schema.as_deref())
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
            Some(Arc::new(set))
        }
        None => None,
    };
    Ok(App {
        data,
        max_count: products.len(),
        products: Arc::new(products),
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

fn accept_loop(listener: &TcpListener, shared: &Shared, pool: &Pool) {
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
                if let Err(job) = pool.submit(job) {
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
