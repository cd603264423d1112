//! The catalog API on a blocking `std::net` HTTP/1.1 server with a thread pool.
//!
//! # Request lifecycle
//!
//! 1. [`server`]: the acceptor thread accepts and hands the socket to the
//!    [`pool`]. At the connection cap the pool closes the longest-idle
//!    keep-alive connection to make room; only when every connection is
//!    mid-request does the acceptor answer a fast 503.
//! 2. [`pool`]: a worker thread owns the connection until it closes. Spare
//!    workers are started ahead of demand, in batches; surplus spares exit.
//! 3. [`conn`]: the worker reads into its fixed buffer, [`parse`]s the head
//!    (no allocation), discards any body, asks [`routes`] for the reply,
//!    writes head + body with one system call ([`response`], [`date`]), and
//!    repeats for keep-alive and pipelined requests.
//! 4. [`memory`]: a catalog body first reserves its size in the server-wide
//!    in-flight budget (503 + `Retry-After` when it stays full); large bodies
//!    are encoded on the encoder threads; every buffer over 16 KiB is freed
//!    after the response.
//!
//! Module imports form no cycle: [`shared`] (the state all threads share)
//! and [`config`] import none of `server`, `pool`, `conn`.
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
//! | open connections (= most worker threads) | 2,048 | `--max-connections` (`--threads`) | longest-idle connection closed; fast 503 + close if none is idle |
//! | response bytes in flight, all requests | MemTotal / 8 | `--max-inflight-bytes` | wait up to `--budget-wait` (250 ms), then 503 + `Retry-After: 1` |
//! | worker stack | 512 KiB | `--stack-size` | (measured need: see [`ServerConfig::stack_size`]) |
//! | first request / head deadline | 10 s | `--header-timeout` | 408 if partly sent, close |
//! | keep-alive idle | 30 s | `--idle-timeout` | close |
//! | keep-alive idle from 75% of the connection cap | 2 s | `--busy-idle-timeout` | close |
//! | one blocked write | 10 s | `--write-timeout` | close |
//! | whole response of `n` bytes | `write_timeout + n / 128 KiB/s` | `--min-send-rate` | close |
//! | `count` | 10,000 | `--max-count` | 400 |
//!
//! Per connection the worker holds one request buffer (4 KiB, doubling up to
//! the line + header limits, ~24 KiB, only for heads that need it, shrunk back
//! when the connection ends), a response head buffer and response buffers of
//! at most 16 KiB each between responses.
//!
//! **Architecture Invariant:** no response is cached; every catalog request
//! encodes afresh. **Architecture Invariant:** no thread is spawned per
//! request; worker threads follow the number of open connections plus the
//! spares.

pub mod config;
pub mod conn;
pub mod data;
pub mod date;
pub mod memory;
pub mod metrics;
pub mod negotiate;
pub mod parse;
pub mod pool;
pub mod response;
pub mod routes;
pub mod server;
pub mod shared;

pub use config::{ServerConfig, config_from_args};
pub use parse::Limits;
pub use pool::PoolStats;
pub use server::Server;

use crate::cli::Args;
use config::USAGE;
use std::io::Write;

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
