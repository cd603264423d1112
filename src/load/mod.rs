//! `wirebench load`: the HTTP load generator. Docs: `docs/LOAD.md`.
//!
//! # Two loops, two questions
//!
//! - **Closed loop** ([`closed`]): `--concurrency` connections, each sending its
//!   next request as soon as the previous one was verified, for `--duration`.
//!   Answers "how many requests per second can this server complete with C
//!   clients that wait for each answer?". Latency is the service time, and a
//!   server stall is under-sampled (one slow sample per connection).
//! - **Open loop** ([`open`], `--rate R`): requests are due at a constant rate from
//!   a precomputed schedule, whether or not earlier ones were answered. Latency is
//!   measured from the due time (coordinated omission corrected), with the plain
//!   service time beside it. Answers "what latency do users see at R requests/s?".
//!
//! # What counts as success
//!
//! A request counts only when its response was read whole (Content-Length or
//! chunked), has status 200, and — in catalog mode — was gunzipped exactly when
//! asked, decoded by the format's decoder (which validates the domain rules) and
//! holds the asked number of products. Everything else is a failure counted by
//! [`FailureKind`]; none is dropped. In `--url` mode, status 200 + whole body is success.
//!
//! # Module map
//!
//! - [`config`]: the flags, parsed into a [`Config`].
//! - [`cases`]: the plan (format × count × round, rotated order), the
//!   in-process server, `--url` mode, and where results go.
//! - [`client`]: one blocking keep-alive HTTP/1.1 connection.
//! - [`verify`]: what a response must be to count ([`FailureKind`] otherwise).
//! - [`round`]: what every driver shares: [`round::RoundStats`] and the
//!   start line that begins a round's threads at one instant.
//! - The drivers: [`closed`] (one thread per connection, closed loop),
//!   [`open`] (one thread per connection, constant arrival rate) and [`mux`]
//!   (few threads polling many connections, closed or open loop).
//! - [`summary`]: CSV rows, the wrk-like text and histogram files.
//!
//! Latencies are recorded in [`crate::measure::histogram::Histogram`].

pub mod cases;
pub mod client;
pub mod closed;
pub mod config;
pub mod mux;
pub mod open;
pub mod round;
pub mod summary;
pub mod verify;

pub use config::{Compression, Config};

/// Why a request did not count. The order is the CSV column order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FailureKind {
    /// The TCP connect failed or timed out.
    Connect,
    /// Writing the request failed.
    Write,
    /// Reading failed, the peer closed mid-response, or the framing was malformed.
    Read,
    /// A read or write exceeded `--timeout` (polling driver: the whole response did).
    Timeout,
    /// The status was not 200.
    Status,
    /// The body did not gunzip or decode (or an unknown Content-Encoding).
    Decode,
    /// Decoded, but the wrong product count, the wrong Content-Encoding, or (for
    /// the first warm-up response) a field different from the fixture.
    Mismatch,
}

impl FailureKind {
    /// Every kind, in CSV column order.
    pub const ALL: [FailureKind; 7] = [
        FailureKind::Connect,
        FailureKind::Write,
        FailureKind::Read,
        FailureKind::Timeout,
        FailureKind::Status,
        FailureKind::Decode,
        FailureKind::Mismatch,
    ];

    /// The name in CSV columns (`err_<name>`) and summaries.
    pub fn name(self) -> &'static str {
        match self {
            FailureKind::Connect => "connect",
            FailureKind::Write => "write",
            FailureKind::Read => "read",
            FailureKind::Timeout => "timeout",
            FailureKind::Status => "status",
            FailureKind::Decode => "decode",
            FailureKind::Mismatch => "mismatch",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// Failure counts by kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Errors([u64; 7]);

impl Errors {
    pub fn add(&mut self, kind: FailureKind) {
        self.0[kind.index()] += 1;
    }

    pub fn get(&self, kind: FailureKind) -> u64 {
        self.0[kind.index()]
    }

    pub fn total(&self) -> u64 {
        self.0.iter().sum()
    }

    pub fn add_all(&mut self, other: &Errors) {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a += b;
        }
    }
}

/// Entry point of `wirebench load`.
pub fn cli_main(args: &mut crate::cli::Args) -> Result<(), String> {
    if args.switch("--help") || args.switch("-h") {
        eprint!("{}", config::USAGE);
        return Ok(());
    }
    let config = Config::from_args(args)?;
    args.finish()?;
    cases::run(&config)
}
