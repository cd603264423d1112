//! A blocking `std::net` HTTP/1.1 server with a thread pool: sockets,
//! connections, parsing, admission, the pool and its poller, response
//! buffers, encoder threads and metrics plumbing. It serves any [`Handler`]
//! and knows no route and no payload: the handler decides each reply and
//! declares the routes `/metrics` counts under ([`metrics::Layout`]).
//! `wirebench serve`'s handler is the application in `serve/`, a layer above.
//!
//! # Request lifecycle
//!
//! 1. [`server`] accepts (`--backlog`, [`sys`]) and hands the socket to the
//!    [`pool`], or answers a fast 503 when the pool refuses it at the cap.
//! 2. [`pool`]: the poller holds every connection waiting for its client
//!    (`epoll`) and queues it when bytes arrive; a fixed pool of workers
//!    serves queued connections and parks them again.
//! 3. [`conn`]: the worker reads into its fixed buffer, [`parse`]s the head (no
//!    allocation), asks the [`Handler`] for the reply, writes head + body with
//!    one system call ([`response`], [`date`]), and repeats for pipelined
//!    requests until the connection waits for bytes or closes.
//! 4. [`memory`]: a body the handler encodes is first admitted ([`admission`]);
//!    large ones are encoded on the [`encoders`] into [`buffers`].
//!
//! Module imports form no cycle: [`shared`] and [`config`] import none of
//! `server`, `pool`, `conn`.
//!
//! # Limits
//!
//! Every resource is capped; each cap has a flag ([`config::FLAGS`]).
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
//!
//! Each worker holds a request buffer (4 KiB, doubling up to the line + header
//! limits only for heads that need it, shrunk back after each turn), a head
//! buffer and response buffers of at most 16 KiB each between responses; a
//! parked connection holds its socket, its poller slot and any half-sent head.
//!
//! **Architecture Invariant:** no thread is spawned per request or per
//! connection; the pool's size is fixed at start.

pub mod admission;
pub mod buffers;
pub mod config;
pub mod conn;
pub mod date;
pub mod encoders;
pub mod memory;
pub mod metrics;
pub mod parse;
pub mod pool;
pub mod response;
pub mod server;
pub mod shared;
pub mod sys;
pub mod warm;

pub use config::ServerConfig;
pub use parse::Limits;
pub use pool::PoolStats;
pub use server::{Bound, Server};
pub use shared::Handler;
