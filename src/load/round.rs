//! What every load driver shares: one round's results ([`RoundStats`]), and
//! the start line that makes all of a round's threads begin at one instant.
//!
//! The closed loop ([`super::closed`]), the open loop ([`super::open`]) and the
//! polling driver ([`super::mux`]) each decide *when* to send; this module
//! owns starting their threads together, merging what they measured, and the
//! rate arithmetic, so the three report the same quantities the same way.

use super::Errors;
use super::client::Client;
use super::verify::Target;
use crate::measure::histogram::Histogram;
use std::sync::{Condvar, Mutex, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

/// Stack size of a connection thread. Decoders are iterative or depth-limited,
/// so this is plenty, and 1,000 threads reserve 512 MiB of address space, not RAM.
pub const STACK_SIZE: usize = 512 * 1024;

/// What one run (one round of one case) measured.
#[derive(Clone, Debug, Default)]
pub struct RoundStats {
    /// Verified responses.
    pub requests: u64,
    /// Wire bytes (head + body as received) of verified responses.
    pub bytes: u64,
    /// Latency of verified responses, ns (closed loop: service time;
    /// open loop: from the intended send time).
    pub latency: Histogram,
    /// Open loop only: service time of the same responses, ns.
    pub service: Option<Histogram>,
    pub errors: Errors,
    /// From the common start to the last thread's stop.
    pub elapsed: Duration,
    /// Open loop only: requests sent more than [`super::open::LATE`] after their intended time.
    pub late: u64,
    /// Open loop only: scheduled requests never sent (the run hit its hard end).
    pub unsent: u64,
    /// Open loop only: requests in the schedule.
    pub scheduled: u64,
}

impl RoundStats {
    /// Verified requests per second.
    pub fn rps(&self) -> f64 {
        per_second(self.requests, self.elapsed)
    }

    /// Wire bytes of verified responses per second.
    pub fn bytes_per_s(&self) -> f64 {
        per_second(self.bytes, self.elapsed)
    }

    /// Adds another thread's results (histograms by adding counts).
    pub fn absorb(&mut self, other: &RoundStats) {
        self.requests += other.requests;
        self.bytes += other.bytes;
        self.latency.merge(&other.latency);
        match (&mut self.service, &other.service) {
            (Some(a), Some(b)) => a.merge(b),
            (None, Some(b)) => self.service = Some(b.clone()),
            _ => {}
        }
        self.errors.add_all(&other.errors);
        self.late += other.late;
        self.unsent += other.unsent;
        self.scheduled += other.scheduled;
    }
}

fn per_second(n: u64, d: Duration) -> f64 {
    let s = d.as_secs_f64();
    if s > 0.0 { n as f64 / s } else { 0.0 }
}

/// The start line. Threads report "ready" under a mutex (spread out in time, as
/// connects finish), then park. The main thread publishes the start (or an
/// abort) and unparks each thread by its handle, so 1,000 threads do not all
/// wake on one condition variable and queue for its mutex — on a busy machine
/// that herd alone took seconds.
#[derive(Default)]
struct Gate {
    ready: Mutex<usize>,
    cv: Condvar,
    /// Some(Some(start)) = go, Some(None) = abort.
    go: OnceLock<Option<Instant>>,
}

impl Gate {
    fn arrive_and_wait(&self) -> Option<Instant> {
        {
            let mut n = self.ready.lock().unwrap_or_else(|e| e.into_inner());
            *n += 1;
            self.cv.notify_all();
        }
        loop {
            if let Some(go) = self.go.get() {
                return *go;
            }
            thread::park();
        }
    }

    fn wait_for(&self, n: usize) {
        let mut g = self.ready.lock().unwrap_or_else(|e| e.into_inner());
        while *g < n {
            g = self.cv.wait(g).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn release<'a>(&self, go: Option<Instant>, threads: impl Iterator<Item = &'a thread::Thread>) {
        let _ = self.go.set(go);
        for t in threads {
            t.unpark();
        }
    }
}

/// Runs `concurrency` connection threads, each calling `work(index, client, start)`
/// after all have connected; merges what they return. `start` is one instant
/// shared by every thread.
pub fn run_threads<F>(target: &Target, concurrency: usize, work: F) -> Result<RoundStats, String>
where
    F: Fn(usize, &mut Client, Instant) -> RoundStats + Sync,
{
    run_workers(
        concurrency,
        |_| {
            let mut client = Client::new(target.addr, target.timeout);
            let connect_error = client.connect().err();
            (client, connect_error)
        },
        |i, (mut client, connect_error), start| {
            let mut stats = work(i, &mut client, start);
            if let Some(kind) = connect_error {
                stats.errors.add(kind);
            }
            stats
        },
    )
}

/// Runs `threads` worker threads: each runs `setup(index)` (e.g. connects), all
/// wait until every setup is done, then each runs `work(index, state, start)`
/// with one shared start instant; the results are merged. `elapsed` is from the
/// start to the last thread's end.
pub fn run_workers<S, Setup, Work>(threads: usize, setup: Setup, work: Work) -> Result<RoundStats, String>
where
    Setup: Fn(usize) -> S + Sync,
    Work: Fn(usize, S, Instant) -> RoundStats + Sync,
{
    let threads = threads.max(1);
    let gate = Gate::default();
    let mut total = RoundStats::default();
    thread::scope(|s| {
        let mut handles = Vec::with_capacity(threads);
        for i in 0..threads {
            let (gate, setup, work) = (&gate, &setup, &work);
            let spawned = thread::Builder::new()
                .name(format!("load-{i}"))
                .stack_size(STACK_SIZE)
                .spawn_scoped(s, move || {
                    let state = setup(i);
                    match gate.arrive_and_wait() {
                        Some(start) => work(i, state, start),
                        None => RoundStats::default(),
                    }
                });
            match spawned {
                Ok(h) => handles.push(h),
                Err(e) => {
                    gate.release(None, handles.iter().map(|h| h.thread()));
                    return Err(format!(
                        "cannot start load thread {} of {threads}: {e} (check ulimit -u and memory)",
                        i + 1
                    ));
                }
            }
        }
        gate.wait_for(threads);
        let start = Instant::now();
        gate.release(Some(start), handles.iter().map(|h| h.thread()));
        for h in handles {
            match h.join() {
                Ok(stats) => total.absorb(&stats),
                Err(_) => return Err("a load thread panicked".to_string()),
            }
        }
        total.elapsed = start.elapsed();
        Ok(())
    })?;
    Ok(total)
}

/// A duration in whole nanoseconds, saturating.
pub fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}
