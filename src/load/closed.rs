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

use super::failure::FailureKind;
use super::round::{RoundStats, nanos, run_threads};
use super::verify::Target;
use std::thread;
use std::time::{Duration, Instant};

/// Pause after a failed connect, so a dead server is not hammered in a busy loop.
const CONNECT_BACKOFF: Duration = Duration::from_millis(10);

/// One closed-loop run of `duration` with `concurrency` connections.
pub fn run(target: &Target, concurrency: usize, duration: Duration) -> Result<RoundStats, String> {
    run_threads(target, concurrency, |_, client, start| {
        let deadline = start + duration;
        let mut st = RoundStats::default();
        let mut now = Instant::now();
        while now < deadline {
            let sent = now;
            match client.send(&target.request) {
                Ok(resp) => {
                    let done = Instant::now();
                    match target.check.verify(&resp) {
                        Ok(()) => {
                            st.latency.record(nanos(done - sent));
                            st.requests += 1;
                            st.bytes += resp.wire_bytes;
                        }
                        Err(kind) => st.errors.add(kind),
                    }
                }
                Err(kind) => {
                    st.errors.add(kind);
                    if kind == FailureKind::Connect {
                        thread::sleep(CONNECT_BACKOFF.min(deadline.saturating_duration_since(Instant::now())));
                    }
                }
            }
            now = Instant::now();
        }
        st
    })
}
