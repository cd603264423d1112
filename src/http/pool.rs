//! The worker pool: reused threads, one connection per worker while it is
//! open, at most `max_connections` of them.
//!
//! A blocking server spends a thread per open connection, so the thread cap
//! *is* the connection cap. Threads are spawned lazily — only when a
//! connection arrives and no worker is idle — and never exit before shutdown,
//! so after warm-up no connection ever spawns a thread and no request ever
//! does. Each thread has a small stack (`ServerConfig::stack_size`) and owns
//! its buffers ([`Worker`]), reused from connection to connection.
//!
//! Capacity: `open < max_connections` (open = queued + being served) or [`Pool::submit`] hands the
//! connection back and the acceptor answers 503. The queue therefore never
//! holds more than `max_connections` entries.
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
use super::server::Shared;
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
    wake: Condvar,
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
    handles: Vec<JoinHandle<()>>,
    slots: Vec<Slot>,
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
            cap: cap.max(1),
            stack_size,
        }
    }

    /// Hands `job` to a worker, spawning one if none is idle and the cap allows.
    /// Gives the job back when the server is at capacity or shutting down.
    pub fn submit(&self, shared: &Arc<Shared>, job: Job) -> Result<(), Job> {
        let mut st = lock(&self.state);
        if st.shutdown || st.open >= self.cap {
            return Err(job);
        }
        if st.idle <= st.queue.len() && st.threads < self.cap {
            // Every idle worker already has a queued job to take: add a thread.
            let slot: Slot = Arc::default();
            let (shared, worker_slot) = (Arc::clone(shared), Arc::clone(&slot));
            let spawned = thread::Builder::new()
                .name("http-worker".into())
                .stack_size(self.stack_size)
                .spawn(move || worker_main(&shared, &worker_slot));
            match spawned {
                Ok(handle) => {
                    st.threads += 1;
                    st.handles.push(handle);
                    st.slots.push(slot);
                }
                Err(_) => return Err(job), // out of threads or memory: answer 503
            }
        }
        st.open += 1;
        st.queue.push_back(job);
        drop(st);
        self.wake.notify_one();
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
        let (handles, slots, queued) = {
            let mut st = lock(&self.state);
            st.shutdown = true;
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
