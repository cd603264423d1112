//! The worker pool: one thread per open connection, spare threads kept
//! ready ahead of demand, surplus threads retired, and the connection cap
//! with idle-connection eviction.
//!
//! A blocking server spends a thread per open connection, so the thread cap
//! *is* the connection cap (`max_connections`). Thread creation happens on
//! the spawner thread, never on the accept path and never per request.
//!
//! **Spare threads** (Apache httpd's `StartServers`, `MinSpareThreads`,
//! `MaxSpareThreads`): `start_threads` workers exist before the server
//! listens. Whenever fewer than `min_spare_threads` workers would be left
//! waiting once the queued connections are taken, [`Pool::submit`] wakes the
//! spawner, which starts the whole shortfall in one batch — so a burst of
//! connects meets threads that already exist instead of waiting for each
//! to be created while the core is busy serving. Each new worker first
//! starts two more of the shortfall itself (`Pool::help_spawn`): under a
//! burst the spawner is one runnable thread among hundreds, and the
//! starters double with every generation instead. A worker that has waited
//! `spare_timeout` for a connection while more than `max_spare_threads`
//! others also wait exits, and its buffers go with it.
//!
//! **Priority**: the acceptor and the spawner ask for nice [`RAISED_NICE`]
//! ([`Priorities::raise`]). With thousands of connections each owning a
//! runnable worker on one core, a thread at the workers' weight gets a
//! thousandth of the core and waits behind every one of them; at nice -20
//! a thread weighs as much as 87 workers, and the scheduler picks it soon
//! after it wakes. A thread inherits its creator's nice value.
//!
//! **`--sched rr`** moves the server into the real-time round-robin class
//! ([`Priorities::of`]): workers and encoders at priority [`WORKER_RT`], the
//! acceptor and the spawner at [`RAISED_RT`], so they preempt a worker as
//! soon as they wake. Among workers of one priority the kernel runs them in
//! the order they became ready, as an event loop takes its ready list; in
//! the fair class it picks by virtual deadline, and with thousands of ready
//! workers some wait many rounds (docs/HTTP.md has the measured tails of
//! both). Workers the pool's starter made are in the fair class until their
//! first job; they move then, as raised ones drop.
//!
//! **Starting at the starter's priority**: a worker started by the spawner
//! (or by a worker the spawner started) keeps that priority while it starts:
//! it helps spawn, makes its buffers and registers its counters, takes its
//! first job and opens its slot, and only then drops to the workers' own
//! priority ([`Priorities::worker`]), just before it serves, or before
//! it first waits when it finds no job (the drop is a system call after
//! which the scheduler may switch at once, so it is never made holding the
//! lock). Those steps take locks: the pool's, the metrics registry's,
//! glibc's malloc arena locks and the kernel's address-space lock (stacks
//! and heap growth). A holder at the workers' weight that loses the core
//! waits for its next turn behind every runnable worker — seconds, with
//! thousands of connections on one core — and every thread that needs the
//! lock waits behind it; a raised holder is back on the core soon. The
//! work done raised is paid back after the drop, because the scheduler
//! keeps a thread's lag (service beyond its share) across a change of
//! weight: a worker that started threads waits longer for its first turn
//! than one that did not. Where the privilege is missing (`CAP_SYS_NICE`)
//! every thread stays at the workers' priority.
//!
//! **Capacity**: a connection is admitted while fewer than
//! `max_connections` are open (queued or being served), not counting ones
//! already evicted. At the cap, the acceptor evicts the keep-alive
//! connection that has been idle longest, if it has been idle at least
//! `evict_idle` ([`Slot::evict`]: its worker's blocked read sees
//! end-of-file, it closes and takes the new connection from the queue).
//! Otherwise the new one is refused with a fast 503. A connection that
//! went idle a moment ago is mid-conversation (its next request is often
//! already on the way, or its worker is waiting for the core): evicting it
//! would only turn the new client's wait into its client's reconnect, and
//! under a flood of clients beyond the cap every accept would evict a
//! busy connection. The scan for the longest-idle connection reads every
//! slot; when it finds none old enough it records the earliest time one
//! can be (`no_evict_before`), and accepts until then are refused without
//! scanning, so refusing stays a few system calls on the acceptor. From 75% of the cap on, [`Shared::crowded`] is set and
//! connections idle for `busy_idle_timeout` instead of `idle_timeout`.
//!
//! Accounting invariant: every queued job has a future taker — an idle
//! worker, a thread the spawner was asked for, a thread started that has not
//! asked for a job yet, or (for a job admitted by eviction) the evicted
//! connection's worker. `submit` asks for threads by a lower bound of the
//! takers, so it may ask for one too many but never leaves a job without one.
//!
//! A panic that escapes a connection (a bug; route panics are already turned
//! into 500s by `conn`) is caught here: the connection closes, the worker
//! starts afresh and goes on.
//!
//! Shutdown: no new jobs, queued connections are closed, every open
//! connection's read side is shut down (a worker blocked in `read` sees EOF
//! and ends the connection after its current response), then the pool waits
//! until every worker has exited. A worker stuck writing to a client that
//! does not read is bounded by the response's send deadline.

use super::config::{RAISED_RT, SchedClass, WORKER_RT};
use super::conn::{self, Worker};
use super::date::DateCache;
use super::shared::{Shared, Slot, refuse};
use super::sys::Sched;
use std::collections::VecDeque;
use std::net::{SocketAddr, TcpStream};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// An accepted connection waiting for a worker.
#[derive(Debug)]
pub struct Job {
    pub stream: TcpStream,
    pub peer: SocketAddr,
    pub accepted: Instant,
}

/// Thread and connection counts at one instant (for tests and benchmarks).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PoolStats {
    /// Worker threads alive.
    pub threads: usize,
    /// Workers waiting for a connection.
    pub idle: usize,
    /// Connections accepted and not yet closed.
    pub open: usize,
    /// Keep-alive connections waiting for their next request.
    pub idle_connections: usize,
    /// Worker threads started since the server started.
    pub started: u64,
    /// Worker threads that exited as surplus spares.
    pub retired: u64,
    /// Idle keep-alive connections closed to admit a new one.
    pub evicted: u64,
    /// Connections refused with 503 because every connection was mid-request.
    pub refused: u64,
}

#[derive(Debug)]
pub struct Pool {
    shared: Arc<Shared>,
    prio: Priorities,
    state: Mutex<State>,
    /// Workers wait here for jobs.
    wake: Condvar,
    /// The spawner waits here for work.
    spawn: Condvar,
    /// Shutdown waits here for the last worker to exit.
    exited: Condvar,
}

#[derive(Debug, Default)]
struct State {
    queue: VecDeque<Job>,
    /// Connections accepted and not yet closed (queued or being served).
    open: usize,
    /// Of `open`, connections evicted whose workers have not closed them yet.
    evicting: usize,
    /// Workers waiting for a job.
    idle: usize,
    /// Worker threads alive (or being created).
    threads: usize,
    /// Threads counted in `threads` that have not reached `next` yet.
    starting: usize,
    /// Threads the spawner should create.
    to_spawn: usize,
    /// The spawner is waiting on `spawn` (only then is a wake-up needed).
    spawner_waiting: bool,
    /// Every live worker's slot.
    slots: Vec<Arc<Slot>>,
    spawner: Option<JoinHandle<()>>,
    shutdown: bool,
    started: u64,
    retired: u64,
    evicted: u64,
    refused: u64,
    /// At the cap, no connection can have been idle `evict_idle` before
    /// this many ms from the epoch (see the module doc).
    no_evict_before: u64,
    /// The spawner runs at [`Priorities::raised`]: threads it starts inherit it.
    raised: bool,
    /// The longest a job waited between its accept and a worker taking it.
    queue_wait_max: Duration,
}

/// The nice value the acceptor and the spawner ask for in the fair class (the highest priority).
pub const RAISED_NICE: i32 = -20;

/// The scheduling of the server's threads (`--sched`, [`SchedClass`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Priorities {
    /// The acceptor and the spawner, and a worker the spawner starts until
    /// it first serves or waits.
    pub raised: Sched,
    /// Workers, and with `rr` the encoders.
    pub worker: Sched,
}

impl Priorities {
    /// `class`'s priorities; in the fair class the workers keep `worker_nice`.
    pub fn of(class: SchedClass, worker_nice: i32) -> Priorities {
        match class {
            SchedClass::Fair => Priorities {
                raised: Sched::Fair(RAISED_NICE),
                worker: Sched::Fair(worker_nice),
            },
            SchedClass::RoundRobin => Priorities {
                raised: Sched::RoundRobin(RAISED_RT),
                worker: Sched::RoundRobin(WORKER_RT),
            },
        }
    }

    /// The class the server can have: `wanted`, or the fair class when the
    /// kernel refuses the real-time one (tried on a short-lived thread), and
    /// then why.
    pub fn available(wanted: SchedClass) -> (SchedClass, Option<String>) {
        if wanted == SchedClass::Fair {
            return (wanted, None);
        }
        let probe = thread::spawn(|| super::sys::set_thread_sched(Sched::RoundRobin(RAISED_RT)));
        match probe.join() {
            Ok(Ok(())) => (wanted, None),
            Ok(Err(e)) => (SchedClass::Fair, Some(e.to_string())),
            Err(_) => (SchedClass::Fair, Some("the probe thread panicked".into())),
        }
    }

    /// Moves the calling thread to [`Priorities::raised`]; the error says why not.
    pub fn raise(&self) -> std::io::Result<()> {
        super::sys::set_thread_sched(self.raised)
    }

    /// Whether the workers run in the real-time class (`--sched rr`, granted).
    pub fn realtime(&self) -> bool {
        matches!(self.worker, Sched::RoundRobin(_))
    }

    /// What the encoder threads move to: the workers' class when it is the
    /// real-time one (an encoder left fair would wait behind every
    /// real-time worker); otherwise nothing, and they keep the starting
    /// thread's, which they inherit.
    pub fn encoders(&self) -> Option<Sched> {
        self.realtime().then_some(self.worker)
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Pool {
    pub fn new(shared: Arc<Shared>, prio: Priorities) -> Pool {
        Pool {
            shared,
            prio,
            state: Mutex::new(State::default()),
            wake: Condvar::new(),
            spawn: Condvar::new(),
            exited: Condvar::new(),
        }
    }

    fn cap(&self) -> usize {
        self.shared.config.max_connections.max(1)
    }

    /// Starts `start_threads` workers, then the spawner thread.
    pub fn start(self: &Arc<Self>) -> std::io::Result<()> {
        let weak = Arc::downgrade(self);
        self.shared.metrics.set_gauges(Box::new(move || {
            weak.upgrade().map(|pool| pool.gauges()).unwrap_or_default()
        }));
        let first = self.shared.config.start_threads.min(self.cap());
        for _ in 0..first {
            {
                let mut st = lock(&self.state);
                st.threads += 1;
                st.starting += 1;
            }
            if let Err(e) = self.spawn_worker() {
                let mut st = lock(&self.state);
                st.threads -= 1;
                st.starting -= 1;
                return Err(e);
            }
        }
        let pool = Arc::clone(self);
        let handle = thread::Builder::new()
            .name("http-spawner".into())
            .spawn(move || spawner_main(&pool))?;
        lock(&self.state).spawner = Some(handle);
        Ok(())
    }

    /// Queues `job` for a worker; at the cap, evicts the longest-idle
    /// connection to make room. Gives the job back when every connection is
    /// mid-request or the server is shutting down.
    pub fn submit(&self, job: Job) -> Result<(), Job> {
        let cap = self.cap();
        let mut st = lock(&self.state);
        if st.shutdown {
            return Err(job);
        }
        if st.open - st.evicting >= cap {
            if !self.evict_longest_idle(&mut st, self.shared.ms_at(job.accepted)) {
                st.refused += 1;
                return Err(job);
            }
            st.evicting += 1;
            st.evicted += 1;
        }
        st.open += 1;
        st.queue.push_back(job);
        self.set_crowded(&st);
        // Spares left once every queued job is taken; top them up to the minimum.
        let takers = st.idle + st.starting + st.to_spawn + st.evicting;
        let want = (st.queue.len() + self.shared.config.min_spare_threads).saturating_sub(takers);
        let room = cap.saturating_sub(st.threads + st.to_spawn);
        let more = want.min(room);
        // Wake-ups are system calls: skip them when nobody waits, so the
        // acceptor drains a connect burst as fast as it can.
        let mut wake_spawner = false;
        if more > 0 {
            st.to_spawn += more;
            wake_spawner = st.spawner_waiting;
        }
        let wake_worker = st.idle > 0;
        drop(st);
        if wake_spawner {
            self.spawn.notify_one();
        }
        if wake_worker {
            self.wake.notify_one();
        }
        Ok(())
    }

    /// Closes the keep-alive connection idle the longest, if it has been idle
    /// at least `evict_idle` at `now_ms`; false when none has.
    fn evict_longest_idle(&self, st: &mut State, now_ms: u64) -> bool {
        if now_ms < st.no_evict_before {
            return false;
        }
        let min_idle = u64::try_from(self.shared.config.evict_idle.as_millis()).unwrap_or(u64::MAX);
        // A connection may start a request between the scan and the eviction; try the next.
        for _ in 0..4 {
            let oldest = st
                .slots
                .iter()
                .filter_map(|s| s.idle_since().map(|t| (t, s)))
                .min_by_key(|(t, _)| *t);
            match oldest {
                Some((since, slot)) if now_ms.saturating_sub(since) >= min_idle => {
                    if slot.evict(since) {
                        return true;
                    }
                }
                // Any connection idle later than the oldest (or than now) is younger.
                Some((since, _)) => {
                    st.no_evict_before = since.saturating_add(min_idle);
                    return false;
                }
                None => {
                    st.no_evict_before = now_ms.saturating_add(min_idle);
                    return false;
                }
            }
        }
        false
    }

    fn set_crowded(&self, st: &State) {
        let crowded = (st.open - st.evicting) * 4 >= self.cap() * 3;
        if self.shared.crowded.load(Ordering::Relaxed) != crowded {
            self.shared.crowded.store(crowded, Ordering::Relaxed);
        }
    }

    /// The next job, or `None` when the worker should exit (shutdown, or a
    /// surplus spare). `finished`: the caller just closed a connection,
    /// `evicted` says whether it was closed by eviction. `settle`: the
    /// priority a new worker moves to; it is applied here, outside the
    /// lock, before the worker first waits for a job, and otherwise left to
    /// the caller, which applies it before it serves the job it took.
    fn next(&self, first: bool, finished: Option<bool>, slot: &Arc<Slot>, settle: &mut Option<Sched>) -> Option<Job> {
        let cfg = &self.shared.config;
        let mut st = lock(&self.state);
        // Counted in `starting` (a taker of queued jobs) until it takes one or waits.
        let mut starting = first;
        if let Some(evicted) = finished {
            st.open -= 1;
            if evicted {
                st.evicting -= 1;
            }
            self.set_crowded(&st);
        }
        loop {
            if st.shutdown {
                st.starting -= usize::from(starting);
                return self.exit(st, slot);
            }
            if let Some(job) = st.queue.pop_front() {
                st.starting -= usize::from(starting);
                // Once per connection: where a burst's connections wait for a
                // thread (a turn in the accept queue is the kernel's).
                st.queue_wait_max = st.queue_wait_max.max(job.accepted.elapsed());
                return Some(job);
            }
            if let Some(sched) = settle.take() {
                // A system call that may hand the core to another thread at
                // once: never with the lock held.
                drop(st);
                let _ = super::sys::set_thread_sched(sched);
                st = lock(&self.state);
                continue;
            }
            if starting {
                st.starting -= 1;
                starting = false;
            }
            st.idle += 1;
            let (guard, waited) = self
                .wake
                .wait_timeout(st, cfg.spare_timeout)
                .unwrap_or_else(PoisonError::into_inner);
            st = guard;
            st.idle -= 1;
            if waited.timed_out() && st.queue.is_empty() && st.idle >= cfg.max_spare_threads {
                st.retired += 1;
                return self.exit(st, slot);
            }
        }
    }

    /// Unregisters an exiting worker.
    fn exit(&self, mut st: MutexGuard<'_, State>, slot: &Arc<Slot>) -> Option<Job> {
        st.threads -= 1;
        if let Some(i) = st.slots.iter().position(|s| Arc::ptr_eq(s, slot)) {
            st.slots.swap_remove(i);
        }
        let last = st.threads == 0;
        drop(st);
        if last {
            self.exited.notify_all();
        }
        None
    }

    /// Thread and connection counts now.
    pub fn stats(&self) -> PoolStats {
        let st = lock(&self.state);
        PoolStats {
            threads: st.threads,
            idle: st.idle,
            open: st.open,
            idle_connections: st.slots.iter().filter(|s| s.idle_since().is_some()).count(),
            started: st.started,
            retired: st.retired,
            evicted: st.evicted,
            refused: st.refused,
        }
    }

    /// Open connections and busy/idle threads, for `/metrics`.
    pub fn gauges(&self) -> super::metrics::Gauges {
        let st = lock(&self.state);
        super::metrics::Gauges {
            open_connections: st.open,
            busy_threads: st.threads - st.idle.min(st.threads),
            idle_threads: st.idle,
            queue_wait_max: st.queue_wait_max,
            realtime: self.prio.realtime(),
        }
    }

    /// Stops the pool: see the module doc. Safe to call more than once.
    pub fn shutdown(&self) {
        let spawner = {
            let mut st = lock(&self.state);
            st.shutdown = true;
            st.spawner.take()
        };
        self.spawn.notify_all();
        if let Some(spawner) = spawner {
            let _ = spawner.join(); // after this no thread is added
        }
        let (slots, queued) = {
            let mut st = lock(&self.state);
            let queued = std::mem::take(&mut st.queue);
            st.open -= queued.len();
            (st.slots.clone(), queued)
        };
        self.wake.notify_all();
        drop(queued);
        for slot in &slots {
            slot.shutdown_read();
        }
        let mut st = lock(&self.state);
        while st.threads > 0 {
            st = self.exited.wait(st).unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Starts one worker thread; the caller has counted it in `threads` and `starting`.
    fn spawn_worker(self: &Arc<Self>) -> std::io::Result<()> {
        let slot: Arc<Slot> = Arc::default();
        lock(&self.state).slots.push(Arc::clone(&slot));
        let pool = Arc::clone(self);
        let worker_slot = Arc::clone(&slot);
        let spawned = thread::Builder::new()
            .name("http-worker".into())
            .stack_size(self.shared.config.stack_size)
            .spawn(move || worker_main(&pool, &worker_slot));
        let mut st = lock(&self.state);
        match spawned {
            Ok(_detached) => {
                st.started += 1;
                Ok(())
            }
            Err(e) => {
                if let Some(i) = st.slots.iter().position(|s| Arc::ptr_eq(s, &slot)) {
                    st.slots.swap_remove(i);
                }
                Err(e)
            }
        }
    }
}

fn spawner_main(pool: &Arc<Pool>) {
    let mut date = DateCache::new();
    if pool.prio.raise().is_ok() {
        lock(&pool.state).raised = true;
    }
    loop {
        {
            let mut st = lock(&pool.state);
            while st.to_spawn == 0 && !st.shutdown {
                st.spawner_waiting = true;
                st = pool.spawn.wait(st).unwrap_or_else(PoisonError::into_inner);
                st.spawner_waiting = false;
            }
            if st.shutdown {
                return;
            }
            claim(&mut st);
        }
        pool.spawn_claimed(&mut date);
    }
}

/// Takes one thread off `to_spawn`, counted in `threads` and `starting`
/// *before* it exists: once started it may take a job at once.
fn claim(st: &mut State) {
    st.to_spawn -= 1;
    st.threads += 1;
    st.starting += 1;
}

impl Pool {
    /// A worker's first act: if threads are still to be started, start up
    /// to [`HELP_SPAWN`] of them. The spawner is one thread among the many a
    /// burst makes runnable, so on a busy core it gets a small share of it;
    /// each new worker starting two more doubles the starters every
    /// generation (one more each would only keep their number). Returns the
    /// workers' priority when this thread inherited the spawner's raised
    /// one, or when the workers are real-time: the worker moves to it once
    /// it has taken its first job (see [`worker_main`]).
    fn help_spawn(self: &Arc<Self>, date: &mut DateCache) -> Option<Sched> {
        let (claimed, settle) = {
            let mut st = lock(&self.state);
            let mut claimed = 0;
            while claimed < HELP_SPAWN && st.to_spawn > 0 && !st.shutdown {
                claim(&mut st);
                claimed += 1;
            }
            // A worker the pool's starter made (not raised) still needs the
            // real-time class when the workers have it.
            let settle = st.raised || self.prio.realtime();
            (claimed, settle.then_some(self.prio.worker))
        };
        for _ in 0..claimed {
            self.spawn_claimed(date);
        }
        settle
    }

    /// Starts a thread [`claim`]ed by the caller; on failure (out of
    /// threads or memory) stops spawning and refuses the job nobody will take.
    fn spawn_claimed(self: &Arc<Self>, date: &mut DateCache) {
        if self.spawn_worker().is_ok() {
            return;
        }
        let mut st = lock(&self.state);
        st.threads -= 1;
        st.starting -= 1;
        st.to_spawn = 0;
        if st.queue.len() > st.idle + st.starting + st.evicting
            && let Some(job) = st.queue.pop_back()
        {
            st.open -= 1;
            st.refused += 1;
            drop(st);
            self.shared.metrics.refused();
            refuse(job.stream, date);
        }
    }
}

/// Threads a new worker starts of the spawner's shortfall before it serves.
const HELP_SPAWN: usize = 2;

fn worker_main(pool: &Arc<Pool>, slot: &Arc<Slot>) {
    let shared = &pool.shared;
    // Everything up to the first serve takes locks (the pool's, the metrics
    // registry's, the allocator's) and runs at the priority the thread was
    // started with; see the module doc, "Starting at the starter's priority".
    let mut settle = pool.help_spawn(&mut DateCache::new());
    let mut worker = Worker::new(shared);
    let mut finished = None;
    let mut first = true;
    while let Some(job) = pool.next(first, finished, slot, &mut settle) {
        first = false;
        // On this thread's stack, where the connection's system calls find it.
        let stream = job.stream;
        slot.open(&stream);
        if let Some(sched) = settle.take() {
            // Lowering the priority needs no privilege; should it fail, the
            // worker only keeps a higher one.
            let _ = super::sys::set_thread_sched(sched);
        }
        if !shared.shutdown.load(Ordering::SeqCst) {
            let served = catch_unwind(AssertUnwindSafe(|| {
                conn::serve(&stream, job.peer, job.accepted, shared, &mut worker, slot);
            }));
            if served.is_err() {
                worker = Worker::new(shared);
            }
        }
        finished = Some(slot.close());
        drop(stream); // closes the socket, after the slot let go of its descriptor
        worker.trim();
    }
}
