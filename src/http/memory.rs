//! What the server holds in memory for responses, and for how long.
//!
//! - [`Budget`]: one server-wide count of response bytes in flight
//!   (`--max-inflight-bytes`). A catalog or explain request reserves an upper
//!   bound of its body (and of its gzip copy) before encoding; when that does
//!   not fit, it waits up to `--budget-wait` for others to finish, then is
//!   answered 503 with `Retry-After`. A request alone always fits, so one
//!   larger than the whole budget is still served when nothing else is.
//! - [`Compressors`]: the gzip compressors (~300 KiB each), one per core,
//!   created before the server listens and lent to a request for one
//!   compression, so no worker thread owns one and no worker stack ever
//!   builds one.
//! - [`Encoders`]: large bodies (an estimate over [`LARGE`]) are encoded,
//!   and gzipped when asked, on a few long-lived encoder threads, one per
//!   core. Encoding is CPU-bound, so more at once would not finish sooner.
//!   And glibc keeps what an encode allocates and frees in the arena of the
//!   thread that freed it: done on any of a thousand workers, large encodes
//!   would leave up to one encode's peak in each of glibc's arenas
//!   (8 per core); done on the encoder threads it stays in theirs. A large
//!   request first waits for a free encoder ([`Permits`]) and only then
//!   reserves its budget, so requests queued behind the encoders hold none.
//! - [`Scratch`]: a worker's response buffers. After every response the
//!   budget is given back and any buffer over [`KEEP`] is freed, so an idle
//!   keep-alive connection holds a few KiB whatever it was served last.
//!
//! Large bodies (an estimate over [`LARGE`]) get a buffer of at least
//! [`LARGE_RESERVE`] bytes of address space. glibc's `malloc` serves a
//! request that large with its own `mmap` and unmaps it on `free`; smaller
//! ones it may serve from a per-thread arena that keeps the pages after
//! `free`, and freeing a mapped block below 32 MiB raises its threshold so
//! later ones go to the arenas too (`mallopt(3)`, `M_MMAP_THRESHOLD`). Only
//! the pages written become resident, so the reservation costs page faults
//! for what is used, and the memory is back with the kernel when the
//! response is done.

use crate::codec::Format;
use crate::gzip::{self, Compressor};
use crate::model::Product;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError, mpsc};
use std::time::{Duration, Instant};

/// Response buffer capacity a worker keeps between responses (each of body and gzip).
pub const KEEP: usize = 16 * 1024;

/// Estimated bodies above this get a [`LARGE_RESERVE`] buffer (glibc's initial mmap threshold).
pub const LARGE: usize = 128 * 1024;

/// Above glibc's largest dynamic mmap threshold (32 MiB on 64-bit), so the
/// block is always mapped on its own and unmapped on free.
pub const LARGE_RESERVE: usize = 33 << 20;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The server-wide budget of response bytes in flight.
#[derive(Debug)]
pub struct Budget {
    limit: usize,
    state: Mutex<BudgetState>,
    freed: Condvar,
}

#[derive(Debug, Default)]
struct BudgetState {
    used: usize,
    /// Requests waiting on `freed` (only then is a wake-up needed).
    waiters: usize,
    refused: u64,
}

impl Budget {
    pub fn new(limit: usize) -> Budget {
        Budget {
            limit,
            state: Mutex::default(),
            freed: Condvar::new(),
        }
    }

    /// Reserves `bytes`, waiting up to `wait` for room. False when there was
    /// none: the caller answers 503. A reservation made while nothing else is
    /// held always succeeds.
    pub fn acquire(&self, bytes: usize, wait: Duration) -> bool {
        let mut st = lock(&self.state);
        let deadline = Instant::now() + wait;
        loop {
            if st.used == 0 || st.used.saturating_add(bytes) <= self.limit {
                st.used = st.used.saturating_add(bytes);
                return true;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                st.refused += 1;
                return false;
            }
            st.waiters += 1;
            st = self
                .freed
                .wait_timeout(st, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
            st.waiters -= 1;
        }
    }

    /// Replaces a reservation of `old` bytes by one of `new` (the real size,
    /// once known); `new` = 0 gives it back.
    pub fn adjust(&self, old: usize, new: usize) {
        let mut st = lock(&self.state);
        st.used = st.used.saturating_sub(old).saturating_add(new);
        let wake = new < old && st.waiters > 0;
        drop(st);
        if wake {
            self.freed.notify_all();
        }
    }

    /// Bytes reserved now.
    pub fn in_use(&self) -> usize {
        lock(&self.state).used
    }

    /// Requests refused so far.
    pub fn refused(&self) -> u64 {
        lock(&self.state).refused
    }

    pub fn limit(&self) -> usize {
        self.limit
    }
}

/// The gzip compressors, lent out one compression at a time.
#[derive(Debug)]
pub struct Compressors {
    free: Mutex<Vec<Compressor>>,
    returned: Condvar,
}

impl Compressors {
    /// `n` compressors (at least one), each allocated now by one empty compression.
    pub fn new(n: usize) -> Compressors {
        let free = (0..n.max(1))
            .map(|_| {
                let mut c = Compressor::default();
                c.compress(&[], &mut Vec::new());
                c
            })
            .collect();
        Compressors {
            free: Mutex::new(free),
            returned: Condvar::new(),
        }
    }

    /// Appends the gzip of `data` to `out` with a borrowed compressor,
    /// waiting for one when all are in use (compression is CPU-bound: more
    /// at once than cores would not finish sooner).
    pub fn compress(&self, data: &[u8], out: &mut Vec<u8>) {
        let mut free = lock(&self.free);
        let compressor = loop {
            if let Some(c) = free.pop() {
                break c;
            }
            free = self.returned.wait(free).unwrap_or_else(PoisonError::into_inner);
        };
        drop(free);
        // Returned on drop, also when compression panics (it resets its state per member).
        struct Lent<'a>(&'a Compressors, Option<Compressor>);
        impl Drop for Lent<'_> {
            fn drop(&mut self) {
                if let Some(c) = self.1.take() {
                    lock(&self.0.free).push(c);
                    self.0.returned.notify_one();
                }
            }
        }
        let mut lent = Lent(self, Some(compressor));
        if let Some(c) = lent.1.as_mut() {
            c.compress(data, out);
        }
    }
}

/// One large encode handed to an encoder thread; the buffers travel with it.
struct EncodeJob {
    format: Format,
    products: Arc<Vec<Product>>,
    count: usize,
    gzip: bool,
    body: Vec<u8>,
    gz: Vec<u8>,
    reply: mpsc::Sender<EncodeDone>,
}

struct EncodeDone {
    body: Vec<u8>,
    gz: Vec<u8>,
    result: Result<(), String>,
}

/// The encoder threads and their shared queue.
#[derive(Debug)]
pub struct Encoders {
    queue: mpsc::Sender<EncodeJob>,
}

impl Encoders {
    /// Starts `n` encoder threads (at least one). They exit when the last
    /// [`Resources`] holding this is dropped.
    pub fn start(n: usize) -> std::io::Result<Encoders> {
        let (tx, rx) = mpsc::channel::<EncodeJob>();
        let rx = Arc::new(Mutex::new(rx));
        for _ in 0..n.max(1) {
            let rx = Arc::clone(&rx);
            // Allocated here, before the server listens, not on a first request.
            let mut compressor = Compressor::default();
            compressor.compress(&[], &mut Vec::new());
            std::thread::Builder::new()
                .name("http-encoder".into())
                .spawn(move || encoder_main(&rx, compressor))?;
        }
        Ok(Encoders { queue: tx })
    }
}

fn encoder_main(rx: &Mutex<mpsc::Receiver<EncodeJob>>, mut compressor: Compressor) {
    loop {
        let job = match lock(rx).recv() {
            Ok(job) => job,
            Err(_) => return, // the server is gone
        };
        let EncodeJob {
            format,
            products,
            count,
            gzip,
            mut body,
            mut gz,
            reply,
        } = job;
        let result = catch_unwind(AssertUnwindSafe(|| {
            body.clear();
            gz.clear();
            format
                .encode(&products[..count.min(products.len())], &mut body)
                .map_err(|e| format!("encoding {} failed: {e}", format.name()))?;
            if gzip {
                compressor.compress(&body, &mut gz);
            }
            Ok(())
        }))
        .unwrap_or_else(|_| {
            compressor = Compressor::default();
            Err(format!("encoding {} panicked", format.name()))
        });
        let _ = reply.send(EncodeDone { body, gz, result });
    }
}

/// A counting semaphore: how many large bodies may be in the making at once.
#[derive(Debug)]
pub struct Permits {
    free: Mutex<usize>,
    returned: Condvar,
}

impl Permits {
    pub fn new(n: usize) -> Permits {
        Permits {
            free: Mutex::new(n.max(1)),
            returned: Condvar::new(),
        }
    }

    /// Takes a permit, waiting for one (every holder is encoding: bounded CPU work).
    pub fn take(&self) {
        let mut free = lock(&self.free);
        while *free == 0 {
            free = self.returned.wait(free).unwrap_or_else(PoisonError::into_inner);
        }
        *free -= 1;
    }

    pub fn give(&self) {
        *lock(&self.free) += 1;
        self.returned.notify_one();
    }
}

/// What every worker's [`Scratch`] draws on.
#[derive(Debug)]
pub struct Resources {
    pub budget: Budget,
    pub compressors: Compressors,
    /// Where large bodies are encoded.
    pub encoders: Encoders,
    /// Large bodies in the making at once (as many as encoder threads): a
    /// request waits for one *before* it reserves budget, so requests queued
    /// behind the encoders hold no budget.
    pub large: Permits,
    /// How long a request waits for the budget.
    pub budget_wait: Duration,
}

/// A worker's response buffers; a route writes bodies here.
#[derive(Default)]
pub struct Scratch {
    pub body: Vec<u8>,
    pub gz: Vec<u8>,
    /// `None` only outside a server (unit tests): no budget, a fresh compressor per gzip.
    resources: Option<Arc<Resources>>,
    /// Bytes reserved in the budget for the current response.
    held: usize,
    /// A [`Resources::large`] permit is held.
    permit: bool,
    /// This worker's reply channel from the encoder threads, made on first use.
    replies: Option<(mpsc::Sender<EncodeDone>, mpsc::Receiver<EncodeDone>)>,
}

impl std::fmt::Debug for Scratch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scratch")
            .field("body", &self.body.capacity())
            .field("gz", &self.gz.capacity())
            .field("held", &self.held)
            .finish()
    }
}

impl Scratch {
    pub fn new(resources: Arc<Resources>) -> Scratch {
        Scratch {
            body: Vec::new(),
            gz: Vec::new(),
            resources: Some(resources),
            held: 0,
            permit: false,
            replies: None,
        }
    }

    /// Before writing a body of at most `estimate` bytes (and its gzip copy
    /// when `gzip`): reserves them in the budget — false when the budget
    /// stays full, and the request gets 503 — and gives a large body a
    /// buffer that goes back to the kernel when freed (module doc).
    pub fn admit(&mut self, estimate: usize, gzip: bool) -> bool {
        // The gzip copy is reserved at half the body (catalog data compresses
        // to 12–25%); `settle` corrects the reservation to the real sizes.
        let total = if gzip {
            estimate.saturating_add(estimate / 2)
        } else {
            estimate
        };
        if let Some(res) = &self.resources {
            if estimate > LARGE {
                res.large.take();
                self.permit = true;
            }
            if !res.budget.acquire(total, res.budget_wait) {
                self.give_permit();
                return false;
            }
            self.held += total;
        }
        if estimate > LARGE {
            self.body = Vec::with_capacity(estimate.max(LARGE_RESERVE));
            if gzip {
                self.gz = Vec::with_capacity(estimate.max(LARGE_RESERVE));
            }
        }
        true
    }

    /// Replaces `body` with the encoding of the first `count` products, and
    /// `gz` with its gzip when `gzip`. A large body (its buffer was reserved
    /// by [`Scratch::admit`]) is encoded on an encoder thread.
    pub fn encode(
        &mut self,
        format: Format,
        products: &Arc<Vec<Product>>,
        count: usize,
        gzip: bool,
    ) -> Result<(), String> {
        let count = count.min(products.len());
        let large = self.body.capacity() >= LARGE_RESERVE;
        if let (true, Some(res)) = (large, &self.resources) {
            let (reply, replies) = self.replies.get_or_insert_with(mpsc::channel);
            let job = EncodeJob {
                format,
                products: Arc::clone(products),
                count,
                gzip,
                body: std::mem::take(&mut self.body),
                gz: std::mem::take(&mut self.gz),
                reply: reply.clone(),
            };
            if res.encoders.queue.send(job).is_err() {
                return Err("the encoder threads are gone".into());
            }
            let done = replies.recv().map_err(|_| "an encoder thread exited".to_string())?;
            self.body = done.body;
            self.gz = done.gz;
            return done.result;
        }
        self.body.clear();
        format
            .encode(&products[..count], &mut self.body)
            .map_err(|e| format!("encoding {} failed: {e}", format.name()))?;
        if gzip {
            self.gzip();
        }
        Ok(())
    }

    /// Replaces `gz` with the gzip of `body`.
    pub fn gzip(&mut self) {
        self.gz.clear();
        match &self.resources {
            Some(res) => res.compressors.compress(&self.body, &mut self.gz),
            None => gzip::compress(&self.body, gzip::DEFAULT_LEVEL, &mut self.gz),
        }
    }

    /// Once the body is written: the reservation becomes the bytes really held.
    pub fn settle(&mut self) {
        self.give_permit();
        if self.held == 0 {
            return;
        }
        let real = self.body.len() + self.gz.len();
        if let Some(res) = &self.resources {
            res.budget.adjust(self.held, real);
        }
        self.held = real;
    }

    /// After the response: gives back the budget and frees buffers over [`KEEP`].
    pub fn release(&mut self) {
        self.give_permit();
        if self.held > 0 {
            if let Some(res) = &self.resources {
                res.budget.adjust(self.held, 0);
            }
            self.held = 0;
        }
        if self.body.capacity() > KEEP {
            self.body = Vec::new();
        }
        if self.gz.capacity() > KEEP {
            self.gz = Vec::new();
        }
    }

    fn give_permit(&mut self) {
        if self.permit {
            if let Some(res) = &self.resources {
                res.large.give();
            }
            self.permit = false;
        }
    }

    /// Heap bytes these buffers hold now.
    pub fn capacity(&self) -> usize {
        self.body.capacity() + self.gz.capacity()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        self.release();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_admits_up_to_its_limit_and_one_request_alone() {
        let b = Budget::new(100);
        assert!(b.acquire(60, Duration::ZERO));
        assert!(b.acquire(40, Duration::ZERO));
        assert!(!b.acquire(1, Duration::from_millis(1)), "full");
        assert_eq!(b.refused(), 1);
        b.adjust(100, 0);
        assert!(b.acquire(1000, Duration::ZERO), "alone, even over the limit");
        b.adjust(1000, 0);
        assert_eq!(b.in_use(), 0);
    }

    #[test]
    fn a_waiting_request_gets_room_freed_by_another() {
        let b = Arc::new(Budget::new(100));
        assert!(b.acquire(100, Duration::ZERO));
        let (tx, rx) = std::sync::mpsc::channel();
        let waiter = {
            let b = Arc::clone(&b);
            std::thread::spawn(move || {
                tx.send(()).unwrap();
                b.acquire(50, Duration::from_secs(10))
            })
        };
        rx.recv().unwrap();
        b.adjust(100, 0);
        assert!(waiter.join().unwrap());
        assert_eq!(b.in_use(), 50);
    }

    #[test]
    fn release_frees_large_buffers_and_the_budget() {
        let res = Arc::new(Resources {
            budget: Budget::new(1 << 30),
            compressors: Compressors::new(1),
            encoders: Encoders::start(1).unwrap(),
            large: Permits::new(1),
            budget_wait: Duration::ZERO,
        });
        let mut s = Scratch::new(Arc::clone(&res));
        let products = Arc::new(crate::fixtures::catalog(1000).products);
        assert!(s.admit(1 << 20, true));
        assert!(s.body.capacity() >= LARGE_RESERVE);
        s.encode(Format::Protobuf, &products, 1000, true).unwrap();
        assert_eq!(s.body, Format::Protobuf.encode_to_vec(&products).unwrap());
        assert_eq!(gzip::decompress(&s.gz, 2 << 20).unwrap(), s.body);
        s.settle();
        assert_eq!(res.budget.in_use(), s.body.len() + s.gz.len());
        s.release();
        assert_eq!(res.budget.in_use(), 0);
        assert_eq!(s.capacity(), 0);
        // A small body is encoded in place, the same bytes.
        assert!(s.admit(1000, false));
        s.encode(Format::Json, &products, 1, false).unwrap();
        assert_eq!(s.body, Format::Json.encode_to_vec(&products[..1]).unwrap());
        s.release();
    }
}
