//! The worker pool and its poller: a fixed number of workers serve
//! connections that have bytes to serve; one poller thread holds every
//! connection that waits for bytes (Apache httpd's event MPM).
//!
//! **Workers** (`--threads`, all started before the server listens) take
//! connections from one queue and serve them with blocking I/O
//! ([`conn::serve`]) until they close or wait for their client (no next
//! request buffered, or a head stalled for [`conn::HEAD_READ_WAIT`]); then the
//! worker *parks* the connection and takes the next.
//!
//! **The poller** waits on every parked connection with `epoll` ([`Epoll`]).
//! A socket is registered once, edge-triggered, when admitted (new connections
//! are parked first: a client that sends nothing holds no worker) and stays
//! registered until it closes, so parking is a slab update under a lock, not a
//! system call. Every open connection has a slab slot, parked or out; a token
//! is the slot's index and generation, so an event for a connection closed
//! meanwhile is ignored, and one for a connection that is out marks it ready:
//! its worker gets it straight back when it parks it. A worker parks only
//! after a read that drained the socket ([`conn::serve`]), so no byte arrives
//! unreported. Every [`TICK`] the poller closes idle keep-alive connections
//! past `--idle-timeout` (`--busy-idle-timeout` if they went idle at 75% of
//! the cap or more, [`Shared::crowded`]) and first requests past the header
//! timeout; queues half-sent heads past it (their worker answers 408); and
//! closes lingering closes ([`conn::drain`]) after [`conn::LINGER_TIME`].
//!
//! **Capacity**: a connection is admitted while fewer than `max_connections`
//! are open (queued, served or parked). At the cap the acceptor closes the
//! parked keep-alive connection idle the longest if idle at least
//! `evict_idle`, else refuses the new one with a fast 503, and refuses without
//! scanning until one can be old enough (`no_evict_before`).
//!
//! **Priority**: the acceptor asks for nice [`RAISED_NICE`], or [`RAISED_RT`]
//! with `--sched rr` (workers, encoders and poller then at [`WORKER_RT`]), to
//! drain a connect burst while the workers serve. In the fair class the poller
//! runs [`POLLER_NICE_BELOW`] levels below the workers, so it mostly runs when
//! they are out of work and takes what arrived as one batch; only it fills
//! their queue, so it cannot starve them.
//!
//! A panic escaping a connection (route panics are 500s already) is caught:
//! the connection closes, the worker starts afresh. **Shutdown**: no new
//! connections; queued ones close; the poller closes every parked one and
//! exits; every served connection's read side is shut down (a worker reading
//! a head sees end-of-file; one writing is bounded by its send deadline); the
//! pool waits for every worker. **Lock order**: `state` before `parked`,
//! never the other way.

use super::config::{RAISED_RT, SchedClass, WORKER_RT};
use super::conn::{self, Outcome, Worker};
use super::shared::{Job, Shared, Slot};
use super::sys::{Epoll, EpollEvent, Sched, hung_up};
use std::collections::VecDeque;
use std::os::fd::AsRawFd;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// How often the poller looks for expired parked connections (and for
/// shutdown): the granularity of the idle and first-request timeouts.
pub const TICK: Duration = Duration::from_millis(20);

/// Thread and connection counts at one instant (for tests and benchmarks).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PoolStats {
    /// Worker threads alive.
    pub threads: usize,
    /// Workers waiting for a connection.
    pub idle: usize,
    /// Connections accepted and not yet closed (queued, served or parked).
    pub open: usize,
    /// Connections in the poller.
    pub parked: usize,
    /// Of those, keep-alive connections waiting for their next request.
    pub idle_connections: usize,
    /// Connections waiting in the queue for a worker.
    pub queued: usize,
    /// Idle keep-alive connections closed to admit a new one.
    pub evicted: u64,
    /// Connections refused with 503 because none was idle long enough to evict.
    pub refused: u64,
}

#[derive(Debug)]
pub struct Pool {
    shared: Arc<Shared>,
    prio: Priorities,
    state: Mutex<State>,
    /// Workers wait here for jobs.
    wake: Condvar,
    /// Shutdown waits here for the last worker to exit.
    exited: Condvar,
    epoll: Epoll,
    parked: Mutex<Slab>,
    /// Set by [`Pool::shutdown`]: the poller's flag, read without the lock.
    stopping: AtomicBool,
}

/// What `state` guards; `open`, `idle`, `threads`, `evicted` and `refused`
/// are [`PoolStats`]' counts.
#[derive(Debug, Default)]
struct State {
    queue: VecDeque<Job>,
    open: usize,
    idle: usize,
    threads: usize,
    /// Every worker's slot.
    slots: Vec<Arc<Slot>>,
    poller: Option<JoinHandle<()>>,
    shutdown: bool,
    evicted: u64,
    refused: u64,
    /// The longest a connection waited in the queue for a worker.
    queue_wait_max: Duration,
}

/// A parked connection.
#[derive(Debug)]
struct Parked {
    job: Job,
    /// `job.since` in ms from the epoch.
    since_ms: u64,
    /// Its idle timeout in ms, chosen as it went idle (shorter when crowded).
    idle_ms: u64,
}

/// Where an open connection is, as the poller sees it.
#[derive(Debug)]
enum Entry {
    Free,
    /// In the poller, waiting for its client.
    Parked(Parked),
    /// With a worker (queued or served). `ready`: its socket reported bytes
    /// (or a hang-up) meanwhile, so parking it hands it straight back.
    Out {
        ready: bool,
    },
}

/// Every open connection, by token: a slot's index and generation.
#[derive(Debug, Default)]
struct Slab {
    entries: Vec<(u32, Entry)>,
    free: Vec<u32>,
    /// Parked connections, and of those the idle keep-alive ones.
    parked: usize,
    idle: usize,
    /// At the cap, no connection can have been idle `evict_idle` before
    /// this many ms from the epoch.
    no_evict_before: u64,
}

/// What [`Slab::park`] did.
enum Parking {
    Parked,
    /// Bytes arrived while it was out: serve it again.
    Ready(Parked),
    /// Not an open connection's token (cannot happen): close it.
    Gone(Parked),
}

impl Slab {
    /// A new open connection, out (with the acceptor); its token.
    fn insert(&mut self) -> u64 {
        let i = match self.free.pop() {
            Some(i) => i,
            None => {
                self.entries.push((0, Entry::Free));
                (self.entries.len() - 1) as u32
            }
        };
        let e = &mut self.entries[i as usize];
        e.1 = Entry::Out { ready: false };
        (u64::from(e.0) << 32) | u64::from(i)
    }

    fn entry(&mut self, token: u64) -> Option<&mut Entry> {
        let (generation, i) = ((token >> 32) as u32, token as u32);
        match self.entries.get_mut(i as usize) {
            Some((g, e)) if *g == generation && !matches!(e, Entry::Free) => Some(e),
            _ => None,
        }
    }

    /// Parks an out connection, unless bytes arrived while it was out.
    fn park(&mut self, token: u64, p: Parked) -> Parking {
        let idle = p.job.idle();
        let Some(e) = self.entry(token) else {
            return Parking::Gone(p);
        };
        match e {
            Entry::Out { ready: true } => {
                *e = Entry::Out { ready: false };
                Parking::Ready(p)
            }
            Entry::Out { ready: false } => {
                *e = Entry::Parked(p);
                self.parked += 1;
                self.idle += usize::from(idle);
                Parking::Parked
            }
            Entry::Parked(_) | Entry::Free => Parking::Gone(p),
        }
    }

    /// Takes a parked connection out (to a worker).
    fn take(&mut self, token: u64) -> Option<Parked> {
        let e = self.entry(token)?;
        if !matches!(e, Entry::Parked(_)) {
            return None;
        }
        let Entry::Parked(p) = std::mem::replace(e, Entry::Out { ready: false }) else {
            return None;
        };
        self.parked -= 1;
        self.idle -= usize::from(p.job.idle());
        Some(p)
    }

    /// An event for `token`: a parked connection is taken out; an out one
    /// is marked ready; a closed one's token is ignored.
    fn event(&mut self, token: u64) -> Option<Parked> {
        if let Entry::Out { ready } = self.entry(token)? {
            *ready = true;
            return None;
        }
        self.take(token)
    }

    /// The connection is closed: frees its slot (and gives back the parked
    /// connection, if it was parked, for the caller to close).
    fn remove(&mut self, token: u64) -> Option<Parked> {
        let (generation, i) = ((token >> 32) as u32, token as u32);
        let (g, e) = self.entries.get_mut(i as usize)?;
        if *g != generation || matches!(e, Entry::Free) {
            return None;
        }
        *g = g.wrapping_add(1);
        let old = std::mem::replace(e, Entry::Free);
        self.free.push(i);
        match old {
            Entry::Parked(p) => {
                self.parked -= 1;
                self.idle -= usize::from(p.job.idle());
                Some(p)
            }
            _ => None,
        }
    }

    fn token_of(&self, i: usize) -> u64 {
        (u64::from(self.entries[i].0) << 32) | i as u64
    }

    fn parked_at(&self, i: usize) -> Option<&Parked> {
        match &self.entries[i].1 {
            Entry::Parked(p) => Some(p),
            _ => None,
        }
    }
}

/// The nice value the acceptor asks for in the fair class (the highest priority).
pub const RAISED_NICE: i32 = -20;

/// How many nice levels below the workers the poller runs in the fair class.
pub const POLLER_NICE_BELOW: i32 = 10;

/// The scheduling of the server's threads (`--sched`, [`SchedClass`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Priorities {
    /// The acceptor.
    pub raised: Sched,
    /// Workers, and with `rr` the encoders.
    pub worker: Sched,
    /// The poller: [`POLLER_NICE_BELOW`] below the workers in the fair
    /// class, with them in the real-time one.
    pub poller: Sched,
}

impl Priorities {
    /// `class`'s priorities; in the fair class the workers keep `worker_nice`.
    pub fn of(class: SchedClass, worker_nice: i32) -> Priorities {
        match class {
            SchedClass::Fair => Priorities {
                raised: Sched::Fair(RAISED_NICE),
                worker: Sched::Fair(worker_nice),
                poller: Sched::Fair(worker_nice.saturating_add(POLLER_NICE_BELOW).min(19)),
            },
            SchedClass::RoundRobin => Priorities {
                raised: Sched::RoundRobin(RAISED_RT),
                worker: Sched::RoundRobin(WORKER_RT),
                poller: Sched::RoundRobin(WORKER_RT),
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
    pub fn new(shared: Arc<Shared>, prio: Priorities) -> std::io::Result<Pool> {
        Ok(Pool {
            shared,
            prio,
            state: Mutex::new(State::default()),
            wake: Condvar::new(),
            exited: Condvar::new(),
            epoll: Epoll::new()?,
            parked: Mutex::new(Slab::default()),
            stopping: AtomicBool::new(false),
        })
    }

    fn cap(&self) -> usize {
        self.shared.config.max_connections.max(1)
    }

    /// Starts the workers, then the poller.
    pub fn start(self: &Arc<Self>) -> std::io::Result<()> {
        let weak = Arc::downgrade(self);
        self.shared.metrics.set_gauges(Box::new(move || {
            weak.upgrade().map(|pool| pool.gauges()).unwrap_or_default()
        }));
        for _ in 0..self.shared.config.threads.max(1) {
            let slot: Arc<Slot> = Arc::default();
            let pool = Arc::clone(self);
            let worker_slot = Arc::clone(&slot);
            lock(&self.state).threads += 1;
            let spawned = thread::Builder::new()
                .name("http-worker".into())
                .stack_size(self.shared.config.stack_size)
                .spawn(move || worker_main(&pool, &worker_slot));
            let mut st = lock(&self.state);
            match spawned {
                Ok(_detached) => st.slots.push(slot),
                Err(e) => {
                    st.threads -= 1;
                    drop(st);
                    self.shutdown();
                    return Err(e);
                }
            }
        }
        let pool = Arc::clone(self);
        let handle = thread::Builder::new()
            .name("http-poller".into())
            .spawn(move || poller_main(&pool));
        match handle {
            Ok(h) => {
                lock(&self.state).poller = Some(h);
                Ok(())
            }
            Err(e) => {
                self.shutdown();
                Err(e)
            }
        }
    }

    /// Admits a new connection (to the poller, which queues it once its
    /// client sends); at the cap, evicts the longest-idle connection to make
    /// room. Gives the socket back when none is idle long enough or the
    /// server is shutting down.
    pub fn submit(&self, job: Job) -> Result<(), std::net::TcpStream> {
        {
            let mut st = lock(&self.state);
            if st.shutdown {
                return Err(job.stream);
            }
            if st.open >= self.cap() {
                match self.evict_longest_idle(self.shared.ms_at(job.accepted)) {
                    Some(evicted) => {
                        st.evicted += 1;
                        drop(evicted); // closes it; one out, one in
                    }
                    None => {
                        st.refused += 1;
                        return Err(job.stream);
                    }
                }
            } else {
                st.open += 1;
                self.set_crowded(&st);
            }
        }
        self.admit(job);
        Ok(())
    }

    /// Removes the parked keep-alive connection idle the longest, if it has
    /// been idle at least `evict_idle` at `now_ms`.
    fn evict_longest_idle(&self, now_ms: u64) -> Option<Parked> {
        let mut slab = lock(&self.parked);
        if now_ms < slab.no_evict_before {
            return None;
        }
        let min_idle = u64::try_from(self.shared.config.evict_idle.as_millis()).unwrap_or(u64::MAX);
        let oldest = (0..slab.entries.len())
            .filter_map(|i| slab.parked_at(i).filter(|p| p.job.idle()).map(|p| (p.since_ms, i)))
            .min();
        match oldest {
            Some((since, i)) if now_ms.saturating_sub(since) >= min_idle => {
                let token = slab.token_of(i);
                slab.remove(token)
            }
            Some((since, _)) => {
                slab.no_evict_before = since.saturating_add(min_idle);
                None
            }
            None => {
                slab.no_evict_before = now_ms.saturating_add(min_idle);
                None
            }
        }
    }

    fn set_crowded(&self, st: &State) {
        let crowded = st.open * 4 >= self.cap() * 3;
        if self.shared.crowded.load(Ordering::Relaxed) != crowded {
            self.shared.crowded.store(crowded, Ordering::Relaxed);
        }
    }

    /// The poller's entry for `job`, parked.
    fn parked(&self, job: Job) -> Parked {
        let since_ms = self.shared.ms_at(job.since);
        let cfg = &self.shared.config;
        let idle_wait = if self.shared.crowded.load(Ordering::Relaxed) {
            cfg.idle_timeout.min(cfg.busy_idle_timeout)
        } else {
            cfg.idle_timeout
        };
        let idle_ms = u64::try_from(idle_wait.as_millis()).unwrap_or(u64::MAX);
        Parked { job, since_ms, idle_ms }
    }

    /// A new connection: a slot in the poller, its socket in the epoll set
    /// for good (edge-triggered), parked until its client sends. Closed if
    /// it cannot be registered.
    fn admit(&self, mut job: Job) {
        let fd = job.stream.as_raw_fd();
        let mut slab = lock(&self.parked);
        job.token = slab.insert();
        let token = job.token;
        // Parked before it is registered, under the lock: its first event
        // (bytes already there included) finds it parked.
        let parked = self.parked(job);
        let failed = match slab.park(token, parked) {
            Parking::Parked => self
                .epoll
                .watch(&fd, token)
                .is_err()
                .then(|| slab.remove(token))
                .flatten(),
            Parking::Ready(p) | Parking::Gone(p) => Some(p),
        };
        drop(slab);
        if let Some(p) = failed {
            drop(p);
            self.closed(1);
        }
    }

    /// Hands `job` to the poller, or back when bytes (or a hang-up) arrived
    /// since its worker last read: the caller serves it again at once.
    #[must_use]
    fn park(&self, job: Job) -> Option<Job> {
        let token = job.token;
        let parked = self.parked(job);
        let parking = lock(&self.parked).park(token, parked);
        match parking {
            Parking::Parked => None,
            Parking::Ready(p) => Some(p.job),
            Parking::Gone(p) => {
                self.close(p.job);
                None
            }
        }
    }

    /// Closes `job` (a connection out of the poller).
    fn close(&self, job: Job) {
        let _ = lock(&self.parked).remove(job.token);
        drop(job);
        self.closed(1);
    }

    /// A lingering close: drains what the client sent so far, then parks
    /// it (the poller drains again at each arrival) or closes it.
    fn linger(&self, mut job: Job) {
        loop {
            match conn::drain(&job.stream, job.lingering.unwrap_or(0)) {
                Some(drained) => job.lingering = Some(drained),
                None => return self.close(job),
            }
            match self.park(job) {
                Some(again) => job = again,
                None => return,
            }
        }
    }

    /// `n` connections were closed.
    fn closed(&self, n: usize) {
        if n == 0 {
            return;
        }
        let mut st = lock(&self.state);
        st.open -= n;
        self.set_crowded(&st);
    }

    /// Queues connections with bytes to serve and wakes workers for them.
    fn enqueue(&self, ready: &mut Vec<Job>) {
        let n = ready.len();
        let mut st = lock(&self.state);
        if st.shutdown {
            st.open -= n;
            drop(st);
            let mut slab = lock(&self.parked);
            for job in ready.drain(..) {
                let _ = slab.remove(job.token);
            }
            return;
        }
        let now = Instant::now();
        for mut job in ready.drain(..) {
            job.since = now; // from here: the time it waits in the queue
            st.queue.push_back(job);
        }
        let wake = st.idle.min(n);
        drop(st);
        if wake == n && n > 1 {
            self.wake.notify_all();
        } else {
            for _ in 0..wake {
                self.wake.notify_one();
            }
        }
    }

    /// The next job, or `None` when the worker should exit (shutdown).
    fn next(&self, slot: &Arc<Slot>) -> Option<Job> {
        let mut st = lock(&self.state);
        loop {
            if st.shutdown {
                return self.exit(st, slot);
            }
            if let Some(job) = st.queue.pop_front() {
                st.queue_wait_max = st.queue_wait_max.max(job.since.elapsed());
                return Some(job);
            }
            st.idle += 1;
            st = self.wake.wait(st).unwrap_or_else(PoisonError::into_inner);
            st.idle -= 1;
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

    /// The poller's bookkeeping: closes the idle connections past their
    /// idle timeout and the new ones past the header timeout; queues the
    /// half-sent heads past it (their workers answer 408).
    fn expire(&self, ready: &mut Vec<Job>) {
        let cfg = &self.shared.config;
        let now = Instant::now();
        let now_ms = self.shared.ms_at(now);
        let mut closing = Vec::new();
        {
            let mut slab = lock(&self.parked);
            for i in 0..slab.entries.len() {
                let Some(p) = slab.parked_at(i) else { continue };
                let expired = if p.job.idle() {
                    now_ms.saturating_sub(p.since_ms) >= p.idle_ms
                } else if p.job.lingering.is_some() {
                    now.saturating_duration_since(p.job.started) >= conn::LINGER_TIME
                } else {
                    now.saturating_duration_since(p.job.started) >= cfg.header_timeout
                };
                let close = p.job.partial.is_empty() || p.job.lingering.is_some();
                if expired {
                    let token = slab.token_of(i);
                    if close {
                        closing.extend(slab.remove(token).map(|p| p.job));
                    } else {
                        ready.extend(slab.take(token).map(|p| p.job));
                    }
                }
            }
        }
        let n = closing.len();
        drop(closing);
        self.closed(n);
    }

    /// Thread and connection counts now.
    pub fn stats(&self) -> PoolStats {
        let st = lock(&self.state);
        let slab = lock(&self.parked);
        PoolStats {
            threads: st.threads,
            idle: st.idle,
            open: st.open,
            parked: slab.parked,
            idle_connections: slab.idle,
            queued: st.queue.len(),
            evicted: st.evicted,
            refused: st.refused,
        }
    }

    /// Connections and threads now, for `/metrics`.
    pub fn gauges(&self) -> super::metrics::Gauges {
        let st = lock(&self.state);
        let parked = lock(&self.parked).parked;
        super::metrics::Gauges {
            open_connections: st.open,
            parked_connections: parked,
            queued_connections: st.queue.len(),
            busy_threads: st.threads - st.idle.min(st.threads),
            idle_threads: st.idle,
            queue_wait_max: st.queue_wait_max,
            realtime: self.prio.realtime(),
        }
    }

    /// Closes every parked connection.
    fn close_parked(&self) {
        let parked: Vec<Parked> = {
            let mut slab = lock(&self.parked);
            let tokens: Vec<u64> = (0..slab.entries.len())
                .filter(|&i| slab.parked_at(i).is_some())
                .map(|i| slab.token_of(i))
                .collect();
            tokens.into_iter().filter_map(|t| slab.remove(t)).collect()
        };
        let n = parked.len();
        drop(parked);
        self.closed(n);
    }

    /// Stops the pool: see the module doc. Safe to call more than once.
    pub fn shutdown(&self) {
        let (slots, queued, poller) = {
            let mut st = lock(&self.state);
            st.shutdown = true;
            self.stopping.store(true, Ordering::Release);
            let queued = std::mem::take(&mut st.queue);
            st.open -= queued.len();
            (st.slots.clone(), queued, st.poller.take())
        };
        self.wake.notify_all();
        {
            let mut slab = lock(&self.parked);
            for job in &queued {
                let _ = slab.remove(job.token);
            }
        }
        drop(queued);
        if let Some(poller) = poller {
            let _ = poller.join(); // it sees the flag within a tick
        }
        for slot in &slots {
            slot.shutdown_read();
        }
        let mut st = lock(&self.state);
        while st.threads > 0 {
            st = self.exited.wait(st).unwrap_or_else(PoisonError::into_inner);
        }
        drop(st);
        // A worker may have parked its connection after the poller left.
        self.close_parked();
    }
}

/// Events taken from one `epoll_wait`.
const EVENTS: usize = 256;

fn poller_main(pool: &Arc<Pool>) {
    // Below the workers (module doc, "Priority"). Lowering a nice value
    // needs no privilege; the real-time class was granted to the probe.
    let _ = super::sys::set_thread_sched(pool.prio.poller);
    let mut events = vec![EpollEvent::default(); EVENTS];
    let mut ready: Vec<Job> = Vec::with_capacity(EVENTS);
    let mut lingering: Vec<Job> = Vec::new();
    let tick_ms = i32::try_from(TICK.as_millis()).unwrap_or(i32::MAX);
    let mut next_scan = Instant::now() + TICK;
    loop {
        let n = match pool.epoll.wait(&mut events, tick_ms) {
            Ok(n) => n,
            Err(_) => {
                // Cannot happen with a valid instance and buffer; never spin.
                thread::sleep(TICK);
                0
            }
        };
        if pool.stopping.load(Ordering::Acquire) {
            pool.close_parked();
            return;
        }
        if n > 0 {
            let now = Instant::now();
            let mut slab = lock(&pool.parked);
            for ev in &events[..n] {
                let Some(p) = slab.event(ev.token()) else {
                    continue;
                };
                let mut job = p.job;
                // Edge-triggered: the end-of-file is reported once, here.
                job.hung_up = hung_up(ev);
                if job.lingering.is_some() {
                    // Drained here, not by a worker: a few reads at most.
                    lingering.push(job);
                    continue;
                }
                if job.partial.is_empty() {
                    // A request's head is due from its first byte (the
                    // wait for that byte was the poller's to bound).
                    job.started = now;
                }
                ready.push(job);
            }
        }
        for job in lingering.drain(..) {
            pool.linger(job);
        }
        let now = Instant::now();
        if now >= next_scan {
            next_scan = now + TICK;
            pool.expire(&mut ready);
        }
        if !ready.is_empty() {
            pool.enqueue(&mut ready);
        }
    }
}

fn worker_main(pool: &Arc<Pool>, slot: &Arc<Slot>) {
    let shared = &pool.shared;
    if pool.prio.realtime() {
        let _ = super::sys::set_thread_sched(pool.prio.worker);
    }
    let mut worker = Worker::new(shared);
    let mut next = pool.next(slot);
    while let Some(mut job) = next.take() {
        slot.open(&job.stream);
        let outcome = if shared.shutdown.load(Ordering::SeqCst) {
            Outcome::Close
        } else {
            match catch_unwind(AssertUnwindSafe(|| conn::serve(&mut job, shared, &mut worker))) {
                Ok(outcome) => outcome,
                Err(_) => {
                    worker = Worker::new(shared);
                    Outcome::Close
                }
            }
        };
        slot.close();
        worker.trim();
        match outcome {
            // Bytes that arrived since the last read come straight back:
            // no hop through the poller and the queue.
            Outcome::Park => next = pool.park(job),
            Outcome::Linger if job.stream.set_nonblocking(true).is_ok() => {
                job.lingering = Some(0);
                job.started = Instant::now();
                // Drained before it is parked: bytes already in (pipelined
                // behind the last request) would report no new arrival.
                pool.linger(job);
            }
            // Closes the socket, after the slot let go of its descriptor.
            Outcome::Close | Outcome::Linger => pool.close(job),
        }
        if next.is_none() {
            next = pool.next(slot);
        }
    }
}
