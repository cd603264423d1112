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
//! holds the asked number of products; with `--data`, decoded with the
//! document's schema to the document itself ([`crate::payload`]). Everything else is a failure counted by
//! [`FailureKind`]; none is dropped. In `--url` mode, status 200 + whole body is success.
//!
//! # Module map
//!
//! - [`config`]: the flags, parsed into a [`Config`]; [`cases`]: the plan
//!   (format × count × round, rotated order), the in-process server, `--url`
//!   mode, and where results go.
//! - [`client`]: one blocking keep-alive HTTP/1.1 connection; [`verify`]: what
//!   a response must be to count (the catalog or the `--data` document, one
//!   [`crate::payload::Payload`]); [`failure`]: [`FailureKind`], [`Errors`].
//! - [`round`]: what every driver shares: [`round::RoundStats`], the start
//!   line that begins a round's threads at one instant, and each side's CPU
//!   time in the round ([`round::RoundCpu`]).
//! - The drivers: [`closed`] and [`open`] (one thread per connection) and
//!   [`mux`] (few threads polling many connections, either loop).
//! - [`summary`]: CSV rows, the wrk-like text and histogram files
//!   ([`crate::measure::histogram::Histogram`]).
//! - [`link`] (`--link`): the cases over a rate-limited link between two
//!   network namespaces; [`netns`]: their `ip`/`tc` plumbing.

pub mod cases;
pub mod client;
pub mod closed;
pub mod config;
pub mod failure;
pub mod link;
pub mod mux;
pub mod netns;
pub mod open;
pub mod round;
pub mod summary;
pub mod verify;

pub use config::{Compression, Config};
pub use failure::{Errors, FailureKind};

/// Entry point of `wirebench load`: the number of failed requests (the
/// binary exits 1 when it is not 0), or a usage error.
pub fn cli_main(args: &mut crate::cli::Args) -> Result<u64, String> {
    if args.switch("--help") || args.switch("-h") {
        eprint!("{}", config::USAGE);
        return Ok(0);
    }
    if let Some(names) = args.value("--link-reaper")? {
        args.finish()?;
        return link::reaper(&names).map(|()| 0);
    }
    let plan = link::LinkPlan::from_args(args)?;
    let config = Config::from_args(args)?;
    args.finish()?;
    if let Some(plan) = plan {
        return link::run(&config, &plan);
    }
    if let (true, Some(addr)) = (config.in_link, config.server_addr) {
        link::wait_ready(addr)?;
    }
    cases::run(&config)
}
