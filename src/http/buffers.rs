//! Response buffers: each worker's [`Scratch`], and the server's small
//! pool of warm buffers for large bodies ([`LargeBuffers`]).
//!
//! - A worker writes small bodies into its own `body`/`gz` buffers. After
//!   every response any buffer over [`KEEP`] is freed, so an idle
//!   keep-alive connection holds a few KiB whatever it was served last.
//! - A large body (admitted as [`Size::Large`]) of at most [`POOL_BUFFER`]
//!   bytes borrows a pair of buffers from [`LargeBuffers`] for the one
//!   response: one pair per encoder thread, kept warm (allocated and
//!   faulted in once), so a busy server does not map and fault in a fresh
//!   buffer per response. The pool's whole capacity, pairs × 2 ×
//!   [`POOL_BUFFER`], is set aside from the in-flight budget when the server
//!   starts (fewer pairs when the budget is smaller than that).
//! - A larger body gets a fresh buffer of at least [`LARGE_RESERVE`] bytes
//!   of address space. glibc's `malloc` serves a request that large with
//!   its own `mmap` and unmaps it on `free`; smaller ones it may serve from
//!   a per-thread arena that keeps the pages after `free`, and freeing a
//!   mapped block below 32 MiB raises its threshold so later ones go to the
//!   arenas too (`mallopt(3)`, `M_MMAP_THRESHOLD`). Only the pages written
//!   become resident, and they are back with the kernel once the response
//!   is sent.

use super::admission::{Size, Ticket};
use super::encoders::{EncodeDone, EncodeJob};
use super::memory::Resources;
use crate::codec::Format;
use crate::model::Product;
use std::sync::{Arc, Mutex, PoisonError, mpsc};

/// Response buffer capacity a worker keeps between responses (each of body and gzip).
pub const KEEP: usize = 16 * 1024;

/// Capacity of each pooled large-body buffer: a body estimated at up to this
/// many bytes (1,365 products at `BYTES_PER_PRODUCT`) uses a warm pair.
pub const POOL_BUFFER: usize = 1 << 20;

/// Above glibc's largest dynamic mmap threshold (32 MiB on 64-bit), so a
/// fresh large block is always mapped on its own and unmapped on free.
pub const LARGE_RESERVE: usize = 33 << 20;

/// Warm buffer pairs (body, gzip) for large bodies, at most one per
/// large-body slot of the admission, each of [`POOL_BUFFER`] capacity.
#[derive(Debug)]
pub struct LargeBuffers {
    free: Mutex<Vec<(Vec<u8>, Vec<u8>)>>,
    pairs: usize,
}

impl LargeBuffers {
    /// A pool of `pairs` pairs; their memory is allocated on first use.
    pub fn new(pairs: usize) -> LargeBuffers {
        LargeBuffers {
            free: Mutex::new(Vec::with_capacity(pairs)),
            pairs,
        }
    }

    /// Pairs the pool holds at most.
    pub fn pairs(&self) -> usize {
        self.pairs
    }

    /// Bytes the pool holds at most: what is set aside from the budget.
    pub fn footprint(&self) -> usize {
        self.pairs * 2 * POOL_BUFFER
    }

    /// A warm pair, or `None` when the pool has none free (no pairs at all,
    /// or every pair is lent out).
    fn take(&self) -> Option<(Vec<u8>, Vec<u8>)> {
        if self.pairs == 0 {
            return None;
        }
        let mut free = self.free.lock().unwrap_or_else(PoisonError::into_inner);
        Some(free.pop().unwrap_or_default())
    }

    /// Takes a pair back; a buffer that grew past [`POOL_BUFFER`] is freed.
    fn give(&self, (mut body, mut gz): (Vec<u8>, Vec<u8>)) {
        for b in [&mut body, &mut gz] {
            b.clear();
            if b.capacity() > POOL_BUFFER {
                *b = Vec::new();
            }
        }
        let mut free = self.free.lock().unwrap_or_else(PoisonError::into_inner);
        if free.len() < self.pairs {
            free.push((body, gz));
        }
    }

    /// Heap bytes held by the pairs waiting in the pool now.
    pub fn held(&self) -> usize {
        let free = self.free.lock().unwrap_or_else(PoisonError::into_inner);
        free.iter().map(|(b, g)| b.capacity() + g.capacity()).sum()
    }
}

/// A worker's response buffers; a route writes bodies here.
pub struct Scratch {
    pub body: Vec<u8>,
    pub gz: Vec<u8>,
    resources: Arc<Resources>,
    /// The current response's admission, from [`Scratch::admit`] to [`Scratch::release`].
    ticket: Option<Ticket>,
    /// The worker's own small buffers while `body`/`gz` are a pooled pair.
    own: Option<(Vec<u8>, Vec<u8>)>,
    /// This worker's reply channel from the encoder threads.
    replies: (mpsc::Sender<EncodeDone>, mpsc::Receiver<EncodeDone>),
}

impl std::fmt::Debug for Scratch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scratch")
            .field("body", &self.body.capacity())
            .field("gz", &self.gz.capacity())
            .field("ticket", &self.ticket)
            .finish_non_exhaustive()
    }
}

impl Scratch {
    pub fn new(resources: Arc<Resources>) -> Scratch {
        Scratch {
            body: Vec::new(),
            gz: Vec::new(),
            resources,
            ticket: None,
            own: None,
            replies: mpsc::channel(),
        }
    }

    /// Before writing a body of at most `estimate` bytes (and its gzip copy
    /// when `gzip`): admits it (`None` when the budget stays full, and the
    /// request gets 503) and gives a large body its buffers (module doc).
    pub fn admit(&mut self, estimate: usize, gzip: bool) -> Option<Size> {
        let ticket = self.resources.admission.admit(estimate, gzip)?;
        let size = ticket.size();
        self.ticket = Some(ticket);
        if size == Size::Large {
            let pooled = if estimate <= POOL_BUFFER {
                self.resources.large_buffers.take()
            } else {
                None
            };
            match pooled {
                Some((mut body, mut gz)) => {
                    body.reserve(POOL_BUFFER);
                    if gzip {
                        gz.reserve(POOL_BUFFER);
                    }
                    let own = (
                        std::mem::replace(&mut self.body, body),
                        std::mem::replace(&mut self.gz, gz),
                    );
                    self.own = Some(own);
                }
                None => {
                    // Fresh mapped buffers, unmapped after the response; the
                    // worker's own (at most KEEP bytes each) go with them.
                    self.body = Vec::with_capacity(estimate.max(LARGE_RESERVE));
                    if gzip {
                        self.gz = Vec::with_capacity(estimate.max(LARGE_RESERVE));
                    }
                }
            }
        }
        Some(size)
    }

    /// Replaces `body` with the encoding of the first `count` products, and
    /// `gz` with its gzip when `gzip`. A large body is encoded on an encoder
    /// thread, in the buffers [`Scratch::admit`] gave it.
    pub fn encode(
        &mut self,
        size: Size,
        format: Format,
        products: &Arc<Vec<Product>>,
        count: usize,
        gzip: bool,
    ) -> Result<(), String> {
        let count = count.min(products.len());
        if size == Size::Large {
            let job = EncodeJob {
                format,
                products: Arc::clone(products),
                count,
                gzip,
                body: std::mem::take(&mut self.body),
                gz: std::mem::take(&mut self.gz),
                reply: self.replies.0.clone(),
            };
            self.resources.encoders.submit(job)?;
            let done = self.replies.1.recv().map_err(|_| "an encoder thread exited".to_string())?;
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
        self.resources.compressors.compress(&self.body, &mut self.gz);
    }

    /// Once the body is written: the reservation becomes the bytes really held.
    pub fn settle(&mut self) {
        let real = self.body.len() + self.gz.len();
        if let Some(ticket) = &mut self.ticket {
            ticket.settle(real);
        }
    }

    /// After the response: gives back the admission and any pooled pair,
    /// and frees buffers over [`KEEP`].
    pub fn release(&mut self) {
        self.ticket = None;
        if let Some((body, gz)) = self.own.take() {
            let pair = (std::mem::replace(&mut self.body, body), std::mem::replace(&mut self.gz, gz));
            self.resources.large_buffers.give(pair);
        }
        if self.body.capacity() > KEEP {
            self.body = Vec::new();
        }
        if self.gz.capacity() > KEEP {
            self.gz = Vec::new();
        }
    }

    /// Heap bytes these buffers hold now (a lent pooled pair included).
    pub fn capacity(&self) -> usize {
        let own = self.own.as_ref().map_or(0, |(b, g)| b.capacity() + g.capacity());
        self.body.capacity() + self.gz.capacity() + own
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        self.release();
    }
}
