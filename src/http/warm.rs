//! The warm buffers for large bodies: [`super::memory::PAIRS_PER_CORE`] pairs
//! (body, gzip) per large-body slot, each of [`POOL_BUFFER`] capacity,
//! allocated at start and kept (pages become resident as first written), so a
//! busy server does not map and fault in a fresh buffer per large response. A
//! [`super::buffers::Scratch`] borrows a pair for one response; with every
//! pair lent out it gets a fresh mapped buffer instead. The pool's whole
//! capacity is set aside from the in-flight budget
//! ([`super::memory::Resources::new`]).

use std::sync::{Mutex, PoisonError};

/// Capacity of each pooled large-body buffer: a body estimated at up to this
/// many bytes (1,365 catalog products at `serve::payloads::BYTES_PER_PRODUCT`)
/// uses a warm pair.
pub const POOL_BUFFER: usize = 1 << 20;

/// The pool of warm pairs (module doc).
#[derive(Debug)]
pub struct LargeBuffers {
    free: Mutex<Vec<(Vec<u8>, Vec<u8>)>>,
    pairs: usize,
}

impl LargeBuffers {
    /// A pool of `pairs` pairs, allocated now.
    pub fn new(pairs: usize) -> LargeBuffers {
        let free = (0..pairs).map(|_| (Vec::with_capacity(POOL_BUFFER), Vec::with_capacity(POOL_BUFFER)));
        LargeBuffers {
            free: Mutex::new(free.collect()),
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
    pub fn take(&self) -> Option<(Vec<u8>, Vec<u8>)> {
        self.free.lock().unwrap_or_else(PoisonError::into_inner).pop()
    }

    /// Takes a pair back; a buffer that grew past [`POOL_BUFFER`] is
    /// replaced by a fresh one of that size.
    pub fn give(&self, (mut body, mut gz): (Vec<u8>, Vec<u8>)) {
        for b in [&mut body, &mut gz] {
            b.clear();
            if b.capacity() != POOL_BUFFER {
                *b = Vec::with_capacity(POOL_BUFFER);
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
