//! Closed loop: `concurrency` connections, each sending its next request as soon
//! as the previous response was verified, for a fixed duration.
//!
//! One thread per connection (small stacks, so 1,000 connections are 1,000
//! threads). Every thread connects first; then all start together behind a
//! barrier, and each keeps going until the deadline — a request in flight at the
//! deadline is finished and counted. `elapsed` runs from the common start to the
//! moment the last thread stopped, and rates divide by it.
//!
//! Latency here is the *service time*: from just before the request is written
//! to the last byte of the response (gunzip included, decode and checks
//! excluded). A closed loop never sends while a response is late, so a stall of
//! the server shows up as one slow sample per connection, not as the many
//! requests a real client population would have queued (coordinated omission).
//! Use the open loop ([`super::open`]) for that question.
//!
//! `--min-requests N` ([`Bound`]) keeps a run going past `--duration` until
//! N responses were verified, up to `--max-duration`: on a slow link one
//! response can take longer than the whole duration.

use super::failure::FailureKind;
use super::round::{RoundStats, nanos, run_threads};
use super::verify::Target;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;
use std::time::{Duration, Instant};

/// Pause after a failed connect, so a dead server is not hammered in a busy loop.
const CONNECT_BACKOFF: Duration = Duration::from_millis(10);

/// One closed-loop run of `duration` with `concurrency` connections.
pub fn run(target: &Target, concurrency: usize, duration: Duration) -> Result<RoundStats, String> {
    run_bounded(target, concurrency, &Bound::time(duration))
}

/// When a closed-loop run stops: at `duration`, or later, while fewer than
/// `min_requests` responses (all connections together) were verified, but
/// never later than `max_duration` (a request in flight then is finished).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bound {
    pub duration: Duration,
    pub min_requests: u64,
    pub max_duration: Duration,
}

impl Bound {
    /// Time only: stops at `duration`.
    pub fn time(duration: Duration) -> Bound {
        Bound {
            duration,
            min_requests: 0,
            max_duration: duration,
        }
    }
}

/// [`run`] bounded by time and request count ([`Bound`]).
pub fn run_bounded(target: &Target, concurrency: usize, bound: &Bound) -> Result<RoundStats, String> {
    let verified = AtomicU64::new(0);
    run_threads(target, concurrency, |_, client, start| {
        let deadline = start + bound.duration;
        let cap = start + bound.max_duration.max(bound.duration);
        let go_on =
            |now: Instant| now < deadline || (now < cap && verified.load(Ordering::Relaxed) < bound.min_requests);
        let mut st = RoundStats::default();
        let mut now = Instant::now();
        while go_on(now) {
            let sent = now;
            match st.exchange(client, target) {
                Ok(done) => {
                    st.latency.record(nanos(done - sent));
                    verified.fetch_add(1, Ordering::Relaxed);
                }
                Err(FailureKind::Connect) => {
                    thread::sleep(CONNECT_BACKOFF.min(cap.saturating_duration_since(Instant::now())));
                }
                Err(_) => {}
            }
            now = Instant::now();
        }
        st
    })
}
