//! The catalog API on a blocking `std::net` HTTP/1.1 server with a thread pool.
//!
//! # Request lifecycle
//!
//! 1. [`server`]: the acceptor thread accepts, sets `TCP_NODELAY`, and hands the
//!    socket to the [`pool`] — or answers a fast 503 when every worker is taken.
//! 2. [`pool`]: a reused worker thread owns the connection until it closes.
//! 3. [`conn`]: the worker reads into its fixed buffer, [`parse`]s the head
//!    (no allocation), discards any body, asks [`routes`] for the reply,
//!    writes head + body with one system call ([`response`], [`date`]), and
//!    repeats for keep-alive and pipelined requests.
//!
//! # Limits
//!
//! Every resource is capped; each cap has a flag of `wirebench serve`.
//!
//! | what | default | flag | over the limit |
//! |---|---|---|---|
//! | request line | 8 KiB | `--max-request-line` | 414, close |
//! | header block | 16 KiB | `--max-header-bytes` | 431, close |
//! | header lines | 64 | `--max-headers` | 431, close |
//! | request body (discarded) | 16 KiB | `--max-body` | 413, close |
//! | open connections = worker threads | 2,048 | `--max-connections` (`--threads`) | fast 503, close |
//! | worker stack | 512 KiB | `--stack-size` | (measured need: see [`ServerConfig::stack_size`]) |
//! | first request / head deadline | 10 s | `--header-timeout` | 408 if partly sent, close |
//! | keep-alive idle | 30 s | `--idle-timeout` | close |
//! | one blocked write | 10 s | `--write-timeout` | close |
//! | `count` | 10,000 | `--max-count` | 400 |
//!
//! Per connection the worker holds one request buffer (4 KiB, doubling up to
//! the line + header limits, ~24 KiB, only for heads that need it) and
//! response buffers that grow to the largest body it sent; both are trimmed
//! back (to 4 KiB and 256 KiB) when the connection ends.
//!
//! **Architecture Invariant:** no response is cached; every catalog request
//! encodes afresh. **Architecture Invariant:** no thread is spawned per
//! request; threads only grow to the peak of concurrent connections.

pub mod conn;
pub mod date;
pub mod parse;
pub mod pool;
pub mod response;
pub mod routes;
pub mod server;

pub use parse::Limits;
pub use server::Server;

use crate::cli::{self, Args};
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

/// Everything `Server::start` needs. `Default` gives the documented defaults.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// `host:port`; `127.0.0.1:0` picks an ephemeral port.
    pub addr: String,
    /// Open connections served at once (= worker threads); more get 503.
    pub max_connections: usize,
    /// Products prepared; the largest `count` accepted.
    pub max_count: usize,
    /// A catalog JSON file to serve instead of the generated fixture.
    pub fixture: Option<PathBuf>,
    /// How long a keep-alive connection may sit between requests.
    pub idle_timeout: Duration,
    /// Deadline for a request head (and any body to discard) once it starts;
    /// for the first request, counted from the accept.
    pub header_timeout: Duration,
    /// Deadline for one blocked write.
    pub write_timeout: Duration,
    /// One line per request on stderr. Off by default.
    pub access_log: bool,
    pub limits: Limits,
    /// Stack size of each worker thread. The deepest path is the first gzip
    /// of a worker, where miniz_oxide's compressor state (~66 KiB inline)
    /// passes through the stack before it is boxed; debug builds (tests) need
    /// several times what release builds do. The default of 512 KiB leaves
    /// room for a debug build (how the need was measured: docs/HTTP.md,
    /// "Threads, limits and timeouts"); only the pages a thread touches
    /// become resident.
    pub stack_size: usize,
    /// Test hook, not for production: serve `/__panic`, which panics inside
    /// the handler (proves a panic becomes a 500 and the worker lives on).
    #[doc(hidden)]
    pub test_panic_route: bool,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            addr: "127.0.0.1:8090".into(),
            max_connections: 2048,
            max_count: 10_000,
            fixture: None,
            idle_timeout: Duration::from_secs(30),
            header_timeout: Duration::from_secs(10),
            write_timeout: Duration::from_secs(10),
            access_log: false,
            limits: Limits::default(),
            stack_size: 512 * 1024,
            test_panic_route: false,
        }
    }
}

const USAGE: &str = "\
wirebench serve — the catalog API (see docs/HTTP.md)

FLAGS:
  --addr HOST:PORT          listen address [127.0.0.1:8090]
  --max-connections N       open connections = worker threads; more get 503 [2048]
  --threads N               same as --max-connections
  --max-count N             products prepared; the largest count accepted [10000]
  --fixture FILE            serve this catalog JSON instead of the generated one
  --idle-timeout D          keep-alive idle time before closing [30s]
  --header-timeout D        deadline for a request head once started [10s]
  --write-timeout D         deadline for one blocked write [10s]
  --max-request-line BYTES  longer request lines get 414 [8192]
  --max-header-bytes BYTES  larger header blocks get 431 [16384]
  --max-headers N           more header lines get 431 [64]
  --max-body BYTES          larger request bodies get 413 [16384]
  --stack-size BYTES        worker thread stack [524288]
  --access-log              one line per request on stderr (off by default)
";

/// Parses the `serve` flags into a config.
pub fn config_from_args(args: &mut Args) -> Result<ServerConfig, String> {
    let d = ServerConfig::default();
    let duration = |args: &mut Args, name: &str, default: Duration| -> Result<Duration, String> {
        match args.value(name)? {
            Some(v) => cli::parse_duration(&v).map_err(|e| format!("{name}: {e}")),
            None => Ok(default),
        }
    };
    let threads = args.parse::<usize>("--threads")?;
    let max_connections = args
        .parse::<usize>("--max-connections")?
        .or(threads)
        .unwrap_or(d.max_connections);
    if max_connections == 0 {
        return Err("--max-connections must be at least 1".into());
    }
    let config = ServerConfig {
        addr: args.value("--addr")?.unwrap_or(d.addr),
        max_connections,
        max_count: args.parse_or("--max-count", d.max_count)?,
        fixture: args.value("--fixture")?.map(PathBuf::from),
        idle_timeout: duration(args, "--idle-timeout", d.idle_timeout)?,
        header_timeout: duration(args, "--header-timeout", d.header_timeout)?,
        write_timeout: duration(args, "--write-timeout", d.write_timeout)?,
        access_log: args.switch("--access-log"),
        limits: Limits {
            max_request_line: args.parse_or("--max-request-line", d.limits.max_request_line)?,
            max_header_bytes: args.parse_or("--max-header-bytes", d.limits.max_header_bytes)?,
            max_headers: args.parse_or("--max-headers", d.limits.max_headers)?,
            max_body: args.parse_or("--max-body", d.limits.max_body)?,
        },
        stack_size: args.parse_or("--stack-size", d.stack_size)?,
        test_panic_route: false,
    };
    if config.max_count == 0 {
        return Err("--max-count must be at least 1".into());
    }
    Ok(config)
}

/// `wirebench serve`: prints where it listens, then serves until killed.
pub fn cli_main(args: &mut Args) -> Result<(), String> {
    if args.switch("--help") || args.switch("-h") {
        print!("{USAGE}");
        return Ok(());
    }
    let config = config_from_args(args)?;
    args.finish()?;
    let server = Server::start(config.clone()).map_err(|e| format!("cannot start on {}: {e}", config.addr))?;
    // Write errors are ignored: a closed stdout (the reader went away) must
    // not take the server down, as `println!` would by panicking.
    let mut out = std::io::stdout().lock();
    let addr = server.local_addr();
    let _ = writeln!(
        out,
        "wirebench serve: listening on http://{addr} ({} products prepared, up to {} connections)",
        server.max_count(),
        config.max_connections
    );
    let _ = writeln!(out, "try: curl 'http://{addr}/catalog/json?count=1'");
    let _ = out.flush();
    drop(out);
    loop {
        std::thread::park();
    }
}
