//! What every load driver shares: one round's results ([`RoundStats`]), the
//! start line that makes all of a round's threads begin at one instant, the
//! finish line they all reach before any exits, and the CPU time the round
//! cost on each side of the wire ([`RoundCpu`]).
//!
//! The closed loop ([`super::closed`]), the open loop ([`super::open`]) and the
//! polling driver ([`super::mux`]) each decide *when* to send; this module
//! owns starting their threads together, merging what they measured, and the
//! rate arithmetic, so the three report the same quantities the same way.
//!
//! # CPU accounting
//!
//! Every thread of this process is read (`crate::measure::cpu`) while the
//! round's threads wait at the start line, and again while they wait at the
//! finish line — so the load threads are still alive to be read, and both
//! reads happen outside the timed window. Threads are assigned to a side by
//! name: [`SERVER_THREAD_PREFIX`] (the in-process server's acceptor, poller
//! and workers) and [`CLIENT_THREAD_PREFIX`] (the load threads). With
//! `--server-pid` the server side is that process and all its descendants
//! instead. The process's own total (which counts threads that exited, and the
//! main thread) is kept beside the two, so the unattributed rest is visible.

use super::client::Client;
use super::failure::{Errors, FailureKind};
use super::verify::Target;
use crate::measure::cpu::{CpuTime, Snapshot};
use crate::measure::histogram::Histogram;
use std::sync::{Condvar, Mutex, OnceLock};
use std::thread;
use std::time::{Duration, Instant};

/// Stack size of a connection thread. Decoders are iterative or depth-limited,
/// so this is plenty, and 1,000 threads reserve 512 MiB of address space, not RAM.
pub const STACK_SIZE: usize = 512 * 1024;

/// Name prefix of the in-process server's threads (`http-accept`,
/// `http-poller`, `http-worker`): what counts as the server side.
pub const SERVER_THREAD_PREFIX: &str = "http-";

/// Name prefix of the load threads (`load-0`, `load-1`, …): the client side.
pub const CLIENT_THREAD_PREFIX: &str = "load-";

/// CPU time of one round, by side (`crate::measure::cpu` for the definitions).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RoundCpu {
    /// The server's threads: this process's [`SERVER_THREAD_PREFIX`] threads,
    /// or the `--server-pid` process tree. None when there is neither.
    pub server: Option<CpuTime>,
    /// This process's [`CLIENT_THREAD_PREFIX`] threads.
    pub client: CpuTime,
    /// This whole process (`/proc/self/stat`: every thread, exited ones too; tick resolution).
    pub process: CpuTime,
    /// The server side is part of this process (and of `process`).
    pub server_in_process: bool,
}

impl RoundCpu {
    /// The process's CPU time not in a side measured inside it (the main
    /// thread, threads that exited during the round, tick rounding), ns.
    /// Slightly negative values are tick rounding.
    pub fn unattributed_ns(&self) -> i64 {
        let server = match self.server {
            Some(s) if self.server_in_process => s.ns,
            _ => 0,
        };
        self.process.ns as i64 - self.client.ns as i64 - server as i64
    }
}

/// The CPU reads at the start line, to subtract at the finish line.
struct CpuMark {
    me: Snapshot,
    server: Option<Snapshot>,
}

fn warn_cpu(e: &str) {
    static WARNED: OnceLock<()> = OnceLock::new();
    if WARNED.set(()).is_ok() {
        eprintln!("load: no CPU accounting: {e}");
    }
}

fn cpu_start(server_pid: Option<u32>) -> Option<CpuMark> {
    let read = || -> Result<CpuMark, String> {
        let server = server_pid.map(Snapshot::of_tree).transpose()?;
        Ok(CpuMark {
            me: Snapshot::of_processes(&[std::process::id()])?,
            server,
        })
    };
    read().map_err(|e| warn_cpu(&e)).ok()
}

fn cpu_end(mark: Option<CpuMark>, server_pid: Option<u32>) -> Option<RoundCpu> {
    let mark = mark?;
    let read = || -> Result<RoundCpu, String> {
        let me = Snapshot::of_processes_totals_first(&[std::process::id()])?;
        let server = match (server_pid, &mark.server) {
            (Some(pid), Some(before)) => {
                let after = Snapshot::of_tree(pid)?;
                Some(before.delta(&after, |_| true))
            }
            _ => me
                .threads
                .iter()
                .any(|t| t.name.starts_with(SERVER_THREAD_PREFIX))
                .then(|| mark.me.delta(&me, |n| n.starts_with(SERVER_THREAD_PREFIX))),
        };
        Ok(RoundCpu {
            server,
            client: mark.me.delta(&me, |n| n.starts_with(CLIENT_THREAD_PREFIX)),
            process: mark.me.process_delta(&me),
            server_in_process: server_pid.is_none(),
        })
    };
    read().map_err(|e| warn_cpu(&e)).ok()
}

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
    /// CPU time by side; None when `/proc` could not be read.
    pub cpu: Option<RoundCpu>,
    /// Other work and steal on the machine during the round
    /// ([`crate::measure::machine`]); None without `/proc/stat` or our CPU.
    pub machine: Option<crate::measure::machine::MachineLoad>,
}

impl RoundStats {
    /// One request of `target` on `client` and its reply's check: a
    /// verified reply counts its request and wire bytes and gives the time
    /// it was whole (the caller records its latency); a failure is counted
    /// by kind and returned.
    pub fn exchange(&mut self, client: &mut Client, target: &Target) -> Result<Instant, FailureKind> {
        let resp = client
            .send(&target.request)
            .inspect_err(|&kind| self.errors.add(kind))?;
        let done = Instant::now();
        target.check.verify(&resp).inspect_err(|&kind| self.errors.add(kind))?;
        self.requests += 1;
        self.bytes += resp.wire_bytes;
        Ok(done)
    }

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
        self.arrive();
        self.wait()
    }

    fn arrive(&self) {
        let mut n = self.ready.lock().unwrap_or_else(|e| e.into_inner());
        *n += 1;
        self.cv.notify_all();
    }

    fn wait(&self) -> Option<Instant> {
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
        target.server_pid,
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

/// Arrives at the finish line when dropped, so a worker that panics still
/// arrives and the main thread is not left waiting for it.
struct Finish<'a>(&'a Gate);

impl Drop for Finish<'_> {
    fn drop(&mut self) {
        self.0.arrive();
    }
}

/// Runs `threads` worker threads: each runs `setup(index)` (e.g. connects), all
/// wait until every setup is done, then each runs `work(index, state, start)`
/// with one shared start instant; the results are merged. `elapsed` is from the
/// start to the moment the last thread finished its work. The round's CPU time
/// ([`RoundCpu`]) is read while the threads wait at the start and at the finish
/// line; `server_pid` names the server's process when it is not this one.
pub fn run_workers<S, Setup, Work>(
    threads: usize,
    server_pid: Option<u32>,
    setup: Setup,
    work: Work,
) -> Result<RoundStats, String>
where
    Setup: Fn(usize) -> S + Sync,
    Work: Fn(usize, S, Instant) -> RoundStats + Sync,
{
    let threads = threads.max(1);
    let gate = Gate::default();
    let finish = Gate::default();
    let mut total = RoundStats::default();
    thread::scope(|s| {
        let mut handles = Vec::with_capacity(threads);
        for i in 0..threads {
            let (gate, finish, setup, work) = (&gate, &finish, &setup, &work);
            let spawned = thread::Builder::new()
                .name(format!("{CLIENT_THREAD_PREFIX}{i}"))
                .stack_size(STACK_SIZE)
                .spawn_scoped(s, move || {
                    let state = setup(i);
                    match gate.arrive_and_wait() {
                        Some(start) => {
                            let arrive = Finish(finish);
                            let stats = work(i, state, start);
                            drop(arrive);
                            finish.wait(); // stay alive until the CPU times are read
                            stats
                        }
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
        let mark = cpu_start(server_pid);
        let machine_start = crate::measure::machine::read();
        let start = Instant::now();
        gate.release(Some(start), handles.iter().map(|h| h.thread()));
        finish.wait_for(threads);
        total.elapsed = start.elapsed();
        let machine_end = crate::measure::machine::read();
        total.cpu = cpu_end(mark, server_pid);
        total.machine = match (machine_start, machine_end, total.cpu) {
            (Some(a), Some(b), Some(cpu)) => {
                let external = cpu.server.filter(|_| !cpu.server_in_process).map_or(0, |s| s.ns);
                Some(crate::measure::machine::MachineLoad::between(
                    a,
                    b,
                    cpu.process.ns + external,
                    total.elapsed.as_secs_f64(),
                    crate::measure::cpu::ticks_per_second(),
                ))
            }
            _ => None,
        };
        finish.release(Some(Instant::now()), handles.iter().map(|h| h.thread()));
        for h in handles {
            match h.join() {
                Ok(stats) => total.absorb(&stats),
                Err(_) => return Err("a load thread panicked".to_string()),
            }
        }
        Ok(())
    })?;
    Ok(total)
}

/// A duration in whole nanoseconds, saturating.
pub fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}
