//! The catalog API on a blocking `std::net` HTTP/1.1 server with a thread pool.
//!
//! Two parts: the **server** (sockets, connections, parsing, admission, the
//! pool and its poller, response buffers, metrics plumbing: [`server`],
//! [`pool`], [`conn`], [`parse`], [`response`], [`admission`], [`buffers`],
//! [`encoders`], [`metrics`]…) serves any [`Handler`] and knows no route,
//! payload or schema; the **application** (`wirebench serve`'s routes,
//! negotiation, payloads, page: [`routes`], [`negotiate`], [`payloads`],
//! [`page`], [`page_data`]) implements it.
//!
//! # Request lifecycle
//!
//! 1. [`server`]: the listening socket's queue holds up to `--backlog`
//!    completed connects ([`sys`]); the acceptor thread accepts and hands
//!    the socket to the [`pool`]. At the connection cap the pool closes the longest-idle
//!    keep-alive connection to make room; only when none has been idle
//!    `--evict-idle` does the acceptor answer a fast 503.
//! 2. [`pool`]: the poller holds every connection that waits for its client
//!    (new, idle keep-alive, a half-sent head, a lingering close) with
//!    `epoll` ([`sys::Epoll`]) and queues it when bytes arrive; a fixed pool
//!    of workers (`--threads`) serves queued connections and parks them
//!    again.
//! 3. [`conn`]: the worker reads into its fixed buffer, [`parse`]s the head
//!    (no allocation), asks the [`Handler`] ([`routes`]) for the reply, discards any body,
//!    writes head + body with one system call ([`response`], [`date`]), and
//!    repeats for pipelined requests: one state function each (reading a
//!    head, discarding a body, responding), until the connection waits for
//!    bytes (parked) or closes.
//! 4. [`memory`]: a catalog body is first admitted ([`admission`]: budget
//!    bytes, and a large-body slot when large; 503 + `Retry-After` when the
//!    budget stays full); large bodies are encoded on the [`encoders`] into
//!    warm pooled or freshly mapped [`buffers`]; every worker buffer over
//!    16 KiB is freed after the response.
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
//! | completed connects waiting for `accept` | `somaxconn`, at most 16,384 | `--backlog` | the kernel drops the SYN; the client retries 1 s later |
//! | open connections (served, queued or parked) | 2,048 | `--max-connections` | longest-idle connection closed; fast 503 + close if none is idle |
//! | worker threads | 4 per core | `--threads` | connections wait in the queue |
//! | response bytes in flight, all requests | MemTotal / 8 | `--max-inflight-bytes` | wait up to `--budget-wait` (250 ms), then 503 + `Retry-After: 1` |
//! | worker stack | 512 KiB | `--stack-size` | (measured need: see [`ServerConfig::stack_size`]) |
//! | first request / head deadline | 10 s | `--header-timeout` | 408 if partly sent, close |
//! | keep-alive idle | 30 s | `--idle-timeout` | close |
//! | keep-alive idle from 75% of the connection cap | 2 s | `--busy-idle-timeout` | close |
//! | one blocked write | 10 s | `--write-timeout` | close |
//! | whole response of `n` bytes | `write_timeout + n / 128 KiB/s` | `--min-send-rate` | close |
//! | `count` | 10,000 | `--max-count` | 400 |
//!
//! Each worker holds one request buffer (4 KiB, doubling up to the line +
//! header limits, ~24 KiB, only for heads that need it, shrunk back after
//! each turn), a response head buffer and response buffers of at most 16 KiB
//! each between responses; a parked connection holds its socket, its slot in
//! the poller and any half-sent head's bytes.
//!
//! **Architecture Invariant:** no response is cached; every catalog request
//! encodes afresh. **Architecture Invariant:** no thread is spawned per
//! request or per connection; the pool's size is fixed at start.

pub mod admission;
pub mod buffers;
pub mod config;
pub mod conn;
pub mod date;
pub mod encoders;
pub mod memory;
pub mod metrics;
pub mod negotiate;
pub mod page;
pub mod page_data;
pub mod parse;
pub mod payloads;
pub mod pool;
pub mod response;
pub mod routes;
pub mod server;
pub mod shared;
pub mod sys;
pub mod warm;

pub use config::{ServerConfig, config_from_args};
pub use parse::Limits;
pub use pool::PoolStats;
pub use server::{Bound, Server};
pub use shared::Handler;

use crate::cli::Args;
use config::USAGE;
use std::io::Write;

/// `wirebench serve`: prints where it listens, then serves until killed.
///
/// `lab` computes the evolution matrix the page shows; the caller above this
/// layer (the `serve` command in main.rs) hands it in.
pub fn cli_main(args: &mut Args, lab: fn() -> Result<Vec<page::EvolutionCell>, String>) -> Result<(), String> {
    if args.switch("--help") || args.switch("-h") {
        print!("{USAGE}");
        return Ok(());
    }
    let mut config = config_from_args(args)?;
    args.finish()?;
    match lab() {
        Ok(cells) => config.page.evolution = std::sync::Arc::new(cells),
        // The page says the lab is not loaded; the catalog API is served anyway.
        Err(e) => eprintln!("wirebench serve: evolution lab not loaded: {e}"),
    }
    let started = routes::App::prepare(&config).and_then(|app| {
        let max_count = app.max_count;
        Ok((Server::bind_with(config.clone(), Box::new(app))?.start()?, max_count))
    });
    let (server, max_count) = started.map_err(|e| format!("cannot start on {}: {e}", config.addr))?;
    // Write errors are ignored: a closed stdout (the reader went away) must
    // not take the server down, as `println!` would by panicking.
    let mut out = std::io::stdout().lock();
    let addr = server.local_addr();
    let _ = writeln!(
        out,
        "wirebench serve: listening on http://{addr} ({} products prepared, up to {} connections)",
        max_count, config.max_connections
    );
    let _ = writeln!(out, "{}", backlog_line(config.backlog, server.listen_queue()));
    if let Some(e) = server.sched_refused() {
        let _ = writeln!(
            out,
            "wirebench serve: --sched rr refused ({e}); the threads stay in the fair class"
        );
    }
    let prio = server.priorities();
    let _ = match server.priority() {
        Ok(()) => writeln!(
            out,
            "wirebench serve: acceptor at {}, workers at {}, poller at {}",
            prio.raised, prio.worker, prio.poller
        ),
        Err(e) => writeln!(
            out,
            "wirebench serve: acceptor at the workers' priority, {} ({} refused: {e}), poller at {}",
            prio.worker, prio.raised, prio.poller
        ),
    };
    let _ = writeln!(out, "try: curl 'http://{addr}/catalog/json?count=1'");
    let _ = out.flush();
    drop(out);
    loop {
        std::thread::park();
    }
}

/// The start-up line about the listen backlog: the effective value, and a
/// warning when the kernel capped what `--backlog` asked.
fn backlog_line(asked: u32, effective: std::io::Result<sys::ListenQueue>) -> String {
    match effective {
        Ok(q) if q.backlog < asked => format!(
            "wirebench serve: warning: listen backlog {asked} asked, the kernel allows {} (net.core.somaxconn); \
             connects beyond a full queue are dropped and retried a second later",
            q.backlog
        ),
        Ok(q) => format!("wirebench serve: listen backlog {}", q.backlog),
        Err(e) => format!("wirebench serve: listen backlog {asked} asked (cannot read it back: {e})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_backlog_line_warns_when_the_kernel_capped_it() {
        let q = |backlog| Ok(sys::ListenQueue { queued: 0, backlog });
        assert_eq!(backlog_line(511, q(511)), "wirebench serve: listen backlog 511");
        let capped = backlog_line(8192, q(4096));
        assert!(
            capped.starts_with("wirebench serve: warning: listen backlog 8192 asked, the kernel allows 4096"),
            "{capped}"
        );
        let unknown = backlog_line(10, Err(std::io::Error::other("no TCP_INFO")));
        assert!(
            unknown.contains("10 asked (cannot read it back: no TCP_INFO)"),
            "{unknown}"
        );
    }
}
