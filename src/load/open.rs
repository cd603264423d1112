//! Open loop: requests arrive at a constant rate from a precomputed schedule,
//! whatever the server does, and latency is measured from the *intended* send time.
//!
//! The schedule has `round(rate × duration)` requests; request `i` is due at
//! `start + i / rate`. Request `i` belongs to connection `i mod concurrency`, so the
//! connections take turns and each sees `rate / concurrency` requests per second.
//! A connection sends its next request at its due time, or immediately if it is
//! already past due because its previous response came late.
//!
//! Two latencies are recorded for every verified response:
//!
//! - `latency = done_at - due_at` — from the intended send time. A server stall
//!   delays every request that was due during it, and each of them is charged the
//!   wait (coordinated omission corrected, as a population of real clients would
//!   experience it).
//! - `service = done_at - sent_at` — the plain service time, what a closed loop reports.
//!
//! A request is *late* when it was sent more than [`LATE`] after its due time.
//! The run stops sending at its hard end, `duration + timeout` after the start;
//! requests still unsent then are counted as *unsent* (the connection could not
//! keep up), never silently dropped. Rates divide by the actual elapsed time.
//!
//! Bounds: the schedule is at most [`MAX_SCHEDULE`] entries (8 bytes each).

use super::round::{RoundStats, nanos, run_threads};
use super::verify::Target;
use crate::measure::histogram::Histogram;
use std::thread;
use std::time::{Duration, Instant};

/// A request sent more than this after its due time counts as late.
pub const LATE: Duration = Duration::from_millis(1);

/// Largest schedule accepted (rate × duration).
pub const MAX_SCHEDULE: u64 = 50_000_000;

/// Due offsets from the start, in ns, for each connection: request `i` at
/// `i · 1e9 / rate` goes to connection `i mod concurrency`.
pub fn schedule(rate: f64, duration: Duration, concurrency: usize) -> Result<Vec<Vec<u64>>, String> {
    if !(rate.is_finite() && rate > 0.0) {
        return Err(format!(
            "--rate must be a positive number of requests per second, found {rate}"
        ));
    }
    let total = (rate * duration.as_secs_f64()).round();
    if total > MAX_SCHEDULE as f64 {
        return Err(format!(
            "--rate × --duration = {total} requests; at most {MAX_SCHEDULE} are scheduled"
        ));
    }
    let (total, c) = (total as u64, concurrency.max(1));
    let mut per_conn: Vec<Vec<u64>> = (0..c).map(|_| Vec::with_capacity(total as usize / c + 1)).collect();
    for i in 0..total {
        let due = (i as f64 * 1e9 / rate) as u64;
        per_conn[(i % c as u64) as usize].push(due);
    }
    Ok(per_conn)
}

/// One open-loop run at `rate` requests/s for `duration` over `concurrency` connections.
pub fn run(target: &Target, concurrency: usize, duration: Duration, rate: f64) -> Result<RoundStats, String> {
    let plan = schedule(rate, duration, concurrency)?;
    let hard_end = duration + target.timeout;
    run_threads(target, concurrency, |conn, client, start| {
        let mine = &plan[conn];
        let mut st = RoundStats {
            service: Some(Histogram::new()),
            scheduled: mine.len() as u64,
            ..RoundStats::default()
        };
        let mut service = Histogram::new();
        let end = start + hard_end;
        for (k, &due_ns) in mine.iter().enumerate() {
            let due = start + Duration::from_nanos(due_ns);
            let mut now = Instant::now();
            if now >= end {
                st.unsent += (mine.len() - k) as u64;
                break;
            }
            if now < due {
                thread::sleep(due - now);
                now = Instant::now();
            }
            if now > due + LATE {
                st.late += 1;
            }
            let sent = now;
            if let Ok(done) = st.exchange(client, target) {
                st.latency.record(nanos(done - due));
                service.record(nanos(done - sent));
            }
        }
        st.service = Some(service);
        st
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_is_spread_round_robin() {
        let plan = schedule(1000.0, Duration::from_millis(10), 3).unwrap();
        assert_eq!(plan.iter().map(Vec::len).sum::<usize>(), 10);
        assert_eq!(plan[0], [0, 3_000_000, 6_000_000, 9_000_000]);
        assert_eq!(plan[1], [1_000_000, 4_000_000, 7_000_000]);
        assert_eq!(plan[2], [2_000_000, 5_000_000, 8_000_000]);
        assert!(schedule(0.0, Duration::from_secs(1), 1).is_err());
        assert!(schedule(1e9, Duration::from_secs(1000), 1).is_err());
    }
}
