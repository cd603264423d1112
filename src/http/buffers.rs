//! Each worker's response buffers, [`Scratch`]: a route writes its body here.
//!
//! - Small bodies go into the worker's own `body`/`gz` buffers; after every
//!   response any buffer over [`KEEP`] is freed, so an idle keep-alive
//!   connection holds a few KiB whatever it was served last.
//! - A large body ([`Size::Large`]) of at most [`POOL_BUFFER`] bytes borrows a
//!   warm pair from [`super::warm`] for the one response.
//! - A larger one, or one finding every pair lent out, gets a fresh buffer of
//!   at least [`LARGE_RESERVE`] bytes of address space: glibc serves that with
//!   its own `mmap` and unmaps it on `free` (smaller blocks may land in a
//!   per-thread arena that keeps its pages, and freeing a mapped block under
//!   32 MiB raises the threshold, `mallopt(3)` `M_MMAP_THRESHOLD`). Only the
//!   pages written become resident, and they go back once the response is sent.

use super::admission::{Size, Ticket};
use super::encoders::{EncodeDone, EncodeJob};
use super::memory::Resources;
use super::response::{Body, Head, Reply};
use super::warm::POOL_BUFFER;
use std::sync::{Arc, mpsc};

/// Response buffer capacity a worker keeps between responses (each of body and gzip).
pub const KEEP: usize = 16 * 1024;

/// Above glibc's largest dynamic mmap threshold (32 MiB on 64-bit), so a
/// fresh large block is always mapped on its own and unmapped on free.
pub const LARGE_RESERVE: usize = 33 << 20;

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
                Some((body, gz)) => {
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

    /// Replaces `body` with what `encode` writes, and `gz` with its gzip at
    /// level `gzip` when asked. A large body is encoded on an encoder
    /// thread, in the buffers [`Scratch::admit`] gave it; a small one here.
    pub fn encode(
        &mut self,
        size: Size,
        gzip: Option<u8>,
        encode: impl FnOnce(&mut Vec<u8>) -> Result<(), String> + Send + 'static,
    ) -> Result<(), String> {
        if size == Size::Large {
            let job = EncodeJob {
                encode: Box::new(encode),
                gzip,
                body: std::mem::take(&mut self.body),
                gz: std::mem::take(&mut self.gz),
                reply: self.replies.0.clone(),
            };
            self.resources.encoders.submit(job)?;
            let done = self
                .replies
                .1
                .recv()
                .map_err(|_| "an encoder thread exited".to_string())?;
            self.body = done.body;
            self.gz = done.gz;
            return done.result;
        }
        self.body.clear();
        encode(&mut self.body)?;
        if let Some(level) = gzip {
            self.gzip(level);
        }
        Ok(())
    }

    /// Replaces `gz` with the gzip of `body` at `level`.
    pub fn gzip(&mut self, level: u8) {
        self.gz.clear();
        self.resources.compressors.compress(level, &self.body, &mut self.gz);
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
            let pair = (
                std::mem::replace(&mut self.body, body),
                std::mem::replace(&mut self.gz, gz),
            );
            self.resources.large_buffers.give(pair);
        }
        if self.body.capacity() > KEEP {
            self.body = Vec::new();
        }
        if self.gz.capacity() > KEEP {
            self.gz = Vec::new();
        }
    }

    /// A 200 of `content_type` (and `extra` header lines) whose body is
    /// `bytes`, copied into `body`.
    pub fn ok(&mut self, content_type: &'static str, extra: &'static str, bytes: &[u8]) -> Reply {
        self.body.clear();
        self.body.extend_from_slice(bytes);
        Reply::new(Head::ok(content_type, extra), Body::Scratch)
    }

    /// A JSON error reply, its body written into `body` ([`Reply::error`]).
    #[cold]
    pub fn error(&mut self, status: u16, message: &str, extra: &'static str) -> Reply {
        Reply::error(&mut self.body, status, message, extra)
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

#[cfg(test)]
mod tests {
    use super::super::config::ServerConfig;
    use super::super::memory::Resources;
    use super::*;
    use crate::gzip;

    /// `n` bytes of a body that compresses like JSON records do.
    fn body(n: usize) -> Vec<u8> {
        let record = br#"{"id":0,"name":"widget","price_cents":1999},"#;
        (0..n).map(|i| record[i % record.len()] ^ (i / 4099) as u8).collect()
    }

    /// A body of `n` bytes, as a route hands it over.
    fn encode(n: usize) -> impl FnOnce(&mut Vec<u8>) -> Result<(), String> + Send + 'static {
        move |out| {
            out.extend_from_slice(&body(n));
            Ok(())
        }
    }

    fn resources(max_inflight_bytes: usize) -> Arc<Resources> {
        let config = ServerConfig {
            max_inflight_bytes,
            ..ServerConfig::default()
        };
        Arc::new(Resources::new(&config, 1, None).unwrap())
    }

    #[test]
    fn the_pool_is_set_aside_from_the_budget_and_fits_in_it() {
        let r = resources(64 << 20);
        assert_eq!(r.large_buffers.pairs(), 2, "two pairs for the one core");
        assert_eq!(r.admission.limit(), (64 << 20) - 4 * POOL_BUFFER);
        let one = resources(3 * POOL_BUFFER);
        assert_eq!(one.large_buffers.pairs(), 1, "as many as fit");
        assert_eq!(one.admission.limit(), POOL_BUFFER);
        let small = resources(POOL_BUFFER);
        assert_eq!(small.large_buffers.pairs(), 0, "no room for a pair");
        assert_eq!(small.admission.limit(), POOL_BUFFER);
    }

    #[test]
    fn a_large_body_reuses_the_warm_pair_and_gives_everything_back() {
        let res = resources(1 << 30);
        let mut s = Scratch::new(Arc::clone(&res));
        for round in 0..2 {
            assert_eq!(s.admit(768_000, true), Some(Size::Large));
            s.encode(Size::Large, Some(6), encode(200_000)).unwrap();
            assert_eq!(s.body, body(200_000));
            assert_eq!(gzip::decompress(&s.gz, 2 << 20).unwrap(), s.body);
            let body_at = s.body.as_ptr();
            s.settle();
            assert_eq!(res.admission.in_use(), s.body.len() + s.gz.len());
            s.release();
            assert_eq!(res.admission.in_use(), 0, "round {round}");
            assert!(s.capacity() <= 2 * KEEP, "round {round}: {}", s.capacity());
            assert_eq!(
                res.large_buffers.held(),
                4 * POOL_BUFFER,
                "round {round}: the pair is back, warm"
            );
            // The next large body gets the same buffer back.
            assert_eq!(s.admit(768_000, false), Some(Size::Large));
            assert_eq!(s.body.as_ptr(), body_at, "round {round}: the warm buffer is reused");
            s.release();
        }
    }

    #[test]
    fn a_body_beyond_the_pool_gets_a_fresh_buffer_freed_after() {
        let res = resources(1 << 30);
        let mut s = Scratch::new(Arc::clone(&res));
        assert_eq!(s.admit(3000 * 768, false), Some(Size::Large));
        s.encode(Size::Large, None, encode(1_900_000)).unwrap();
        assert_eq!(s.body, body(1_900_000));
        s.release();
        assert_eq!(s.capacity(), 0);
        assert_eq!(
            res.large_buffers.held(),
            4 * POOL_BUFFER,
            "the pool's pairs stayed in it"
        );
    }

    #[test]
    fn with_every_pair_lent_out_a_large_body_gets_a_fresh_buffer() {
        let res = resources(1 << 30);
        let mut lent: Vec<Scratch> = (0..2).map(|_| Scratch::new(Arc::clone(&res))).collect();
        for s in &mut lent {
            assert_eq!(s.admit(768_000, false), Some(Size::Large));
            assert_eq!(s.body.capacity(), POOL_BUFFER, "a warm pair");
            s.settle(); // gives the large slot back; the pair stays lent until release
        }
        assert_eq!(res.large_buffers.held(), 0, "both pairs are lent out");
        let mut b = Scratch::new(Arc::clone(&res));
        assert_eq!(b.admit(768_000, false), Some(Size::Large));
        assert!(b.body.capacity() >= LARGE_RESERVE, "a fresh mapped buffer");
        b.release();
        for s in &mut lent {
            s.release();
        }
        assert_eq!(res.large_buffers.held(), 4 * POOL_BUFFER, "two pairs, back in the pool");
    }

    #[test]
    fn a_small_body_is_encoded_in_place() {
        let res = resources(1 << 30);
        let mut s = Scratch::new(Arc::clone(&res));
        assert_eq!(s.admit(1000, true), Some(Size::Small));
        s.encode(Size::Small, Some(6), encode(600)).unwrap();
        assert_eq!(s.body, body(600));
        assert_eq!(gzip::decompress(&s.gz, 1 << 20).unwrap(), s.body);
        s.release();
        assert_eq!(res.admission.in_use(), 0);
    }
}
