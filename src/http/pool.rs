//! The worker pool: reused threads, one connection per worker while it is
//! open, at most `max_connections` of them.
//!
//! A blocking server spends a thread per open connection, so the thread cap
//! *is* the connection cap. Threads are spawned lazily by a spawner thread —
//! only when a connection arrives and no worker is idle or starting — and
//! never exit before shutdown, so after warm-up no connection spawns a thread
//! and no request ever does. Each thread has a small stack
//! (`ServerConfig::stack_size`) and owns its buffers ([`Worker`]), reused
//! from connection to connection.
//!
//! Capacity: `open < max_connections` (open = queued + being served), or
//! [`Pool::submit`] hands the connection back and the acceptor answers 503.
//! The queue therefore never holds more than `max_connections` entries.
//!
//! Accounting invariant: every queued job has a future taker — an idle
//! worker, a thread the spawner was asked for, or a thread already started
//! that has not asked for a job yet. `submit` counts only the first two
//! (a lower bound), so it may ask for one thread too many but never leaves a
//! job without a taker. (A starting thread must stop counting as "to spawn"
//! once it takes a job: otherwise the next job waits for a thread that never
//! comes. The 1,000-connection test covers it.)
//!
//! A panic that escapes a connection (a bug; route panics are already turned
//! into 500s by `conn`) is caught here: the connection closes, the worker
//! starts afresh and goes on.
//!
//! Shutdown: no new jobs, queued connections are closed, every open
//! connection's read side is shut down (a worker blocked in `read` sees EOF
//! and ends the connection after its current response), then the threads are
//! joined. A worker stuck writing to a client that does not read is bounded
//! by the write timeout.

use super::conn::{self, Worker};
use super::date::DateCache;
use super::server::{Shared, refuse};
use std::collections::VecDeque;
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::Instant;

/// An accepted connection waiting for a worker.
#[derive(Debug)]
pub struct Job {
    pub stream: TcpStream,
    pub peer: SocketAddr,
    pub accepted: Instant,
}

/// The connection a worker is serving, reachable by [`Pool::shutdown`].
type Slot = Arc<Mutex<Option<Arc<TcpStream>>>>;

#[derive(Debug)]
pub struct Pool {
    state: Mutex<State>,
    /// Workers wait here for jobs.
    wake: Condvar,
    /// The spawner waits here for threads to start.
    spawn: Condvar,
    cap: usize,
    stack_size: usize,
}

#[derive(Debug, Default)]
struct State {
    queue: VecDeque<Job>,
    /// Connections accepted and not yet closed (queued or being served).
    open: usize,
    /// Workers waiting for a job.
    idle: usize,
    threads: usize,
    /// Threads the spawner has been asked to start and has not started yet.
    to_spawn: usize,
    /// The spawner is waiting on `spawn` (only then is a wake-up needed).
    spawner_waiting: bool,
    handles: Vec<JoinHandle<()>>,
    slots: Vec<Slot>,
    spawner: Option<JoinHandle<()>>,
    shutdown: bool,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Pool {
    pub fn new(cap: usize, stack_size: usize) -> Pool {
        Pool {
            state: Mutex::new(State::default()),
            wake: Condvar::new(),
            spawn: Condvar::new(),
            cap: cap.max(1),
            stack_size,
        }
    }

    /// Starts the spawner thread: thread creation (~tens of µs) happens there,
    /// never on the accept path, so a burst of connects drains the listen
    /// backlog as fast as `accept` can go.
    pub fn start(&self, shared: &Arc<Shared>) -> std::io::Result<()> {
        let shared = Arc::clone(shared);
        let handle = thread::Builder::new()
            .name("http-spawner".into())
            .spawn(move || spawner_main(&shared))?;
        lock(&self.state).spawner = Some(handle);
        Ok(())
    }

    /// Queues `job` for a worker and asks for one more thread when no idle or
    /// starting worker is left for it. Gives the job back when the server is
    /// at capacity or shutting down.
    pub fn submit(&self, job: Job) -> Result<(), Job> {
        let mut st = lock(&self.state);
        if st.shutdown || st.open >= self.cap {
            return Err(job);
        }
        st.open += 1;
        st.queue.push_back(job);
        let uncovered = st.queue.len() > st.idle + st.to_spawn;
        // Wake-ups are system calls: skip them when nobody waits, so the
        // acceptor drains a connect burst as fast as it can.
        let mut wake_spawner = false;
        if uncovered && st.threads + st.to_spawn < self.cap {
            st.to_spawn += 1;
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

    /// The next job, or `None` once shutting down. `finished`: the caller
    /// just closed a connection.
    fn next(&self, finished: bool) -> Option<Job> {
        let mut st = lock(&self.state);
        if finished {
            st.open -= 1;
        }
        loop {
            if st.shutdown {
                return None;
            }
            if let Some(job) = st.queue.pop_front() {
                return Some(job);
            }
            st.idle += 1;
            st = self.wake.wait(st).unwrap_or_else(PoisonError::into_inner);
            st.idle -= 1;
        }
    }

    /// Threads spawned so far (they are reused, so this only grows to the peak).
    pub fn threads(&self) -> usize {
        lock(&self.state).threads
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
        let (handles, slots, queued) = {
            let mut st = lock(&self.state);
            (
                std::mem::take(&mut st.handles),
                st.slots.clone(),
                std::mem::take(&mut st.queue),
            )
        };
        self.wake.notify_all();
        drop(queued);
        for slot in &slots {
            if let Some(stream) = lock(slot).as_ref() {
                let _ = stream.shutdown(Shutdown::Read);
            }
        }
        for handle in handles {
            let _ = handle.join();
        }
    }
}

fn spawner_main(shared: &Arc<Shared>) {
    let pool = &shared.pool;
    let mut date = DateCache::new();
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
            // Move the request from `to_spawn` to `threads` *before* the thread
            // exists: once started it may take a job at once, and counting it
            // in `to_spawn` then would make `submit` think a queued job is
            // covered when it is not (a job would wait for a thread that never
            // comes). Until it reaches `next` it counts nowhere, so at worst
            // `submit` asks for one thread too many.
            st.to_spawn -= 1;
            st.threads += 1;
        }
        let slot: Slot = Arc::default();
        let (worker_shared, worker_slot) = (Arc::clone(shared), Arc::clone(&slot));
        let spawned = thread::Builder::new()
            .name("http-worker".into())
            .stack_size(pool.stack_size)
            .spawn(move || worker_main(&worker_shared, &worker_slot));
        let mut st = lock(&pool.state);
        match spawned {
            Ok(handle) => {
                st.handles.push(handle);
                st.slots.push(slot);
            }
            Err(_) => {
                st.threads -= 1;
                // Out of threads or memory: refuse the job nobody will take.
                if st.queue.len() > st.idle + st.to_spawn
                    && let Some(job) = st.queue.pop_back()
                {
                    st.open -= 1;
                    drop(st);
                    refuse(job.stream, &mut date);
                }
            }
        }
    }
}

fn worker_main(shared: &Arc<Shared>, slot: &Slot) {
    let mut worker = Worker::new(&shared.config.limits);
    let mut finished = false;
    while let Some(job) = shared.pool.next(finished) {
        finished = true;
        let stream = Arc::new(job.stream);
        *lock(slot) = Some(Arc::clone(&stream));
        if !shared.shutdown.load(Ordering::SeqCst) {
            let served = catch_unwind(AssertUnwindSafe(|| {
                conn::serve(&stream, job.peer, job.accepted, shared, &mut worker);
            }));
            if served.is_err() {
                worker = Worker::new(&shared.config.limits);
            }
        }
        *lock(slot) = None;
        drop(stream); // the last reference: closes the socket
        worker.trim();
    }
}
