//! Where bodies are encoded and gzipped, apart from the worker's own stack.
//!
//! - [`Encoders`]: large bodies ([`super::admission::LARGE`]) are encoded, and
//!   gzipped when asked, on long-lived encoder threads, one per core, each
//!   with its own compressor: encoding is CPU-bound, and glibc keeps what an
//!   encode frees in the freeing thread's arena, so done on any of a thousand
//!   workers large encodes would leave their peak in each arena (8 per core).
//! - [`Compressors`]: the gzip compressors (~300 KiB each) for small bodies
//!   gzipped on a worker, one per core, built before the server listens and
//!   lent for one compression: no worker owns one or builds one on its stack.

use crate::gzip::Compressor;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError, mpsc};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The gzip compressors, lent out one compression at a time.
#[derive(Debug)]
pub struct Compressors {
    free: Mutex<Vec<Compressor>>,
    returned: Condvar,
}

impl Compressors {
    /// `n` compressors (at least one), allocated now.
    pub fn new(n: usize) -> Compressors {
        Compressors {
            free: Mutex::new((0..n.max(1)).map(|_| warm_compressor()).collect()),
            returned: Condvar::new(),
        }
    }

    /// Appends the gzip of `data` at `level` to `out` with a borrowed compressor,
    /// waiting for one when all are in use (compression is CPU-bound: more
    /// at once than cores would not finish sooner).
    pub fn compress(&self, level: u8, data: &[u8], out: &mut Vec<u8>) {
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
            c.set_level(level);
            c.compress(data, out);
        }
    }
}

/// A compressor allocated by one empty compression: before the server
/// listens, not on a first request.
fn warm_compressor() -> Compressor {
    let mut c = Compressor::default();
    c.compress(&[], &mut Vec::new());
    c
}

/// What writes a body: appends it to the buffer it is given. The server
/// knows no payload; the handler hands it this.
pub type EncodeFn = Box<dyn FnOnce(&mut Vec<u8>) -> Result<(), String> + Send>;

/// One large encode handed to an encoder thread; the buffers travel with it.
pub struct EncodeJob {
    pub encode: EncodeFn,
    /// The gzip level when the body is also gzipped.
    pub gzip: Option<u8>,
    pub body: Vec<u8>,
    pub gz: Vec<u8>,
    pub reply: mpsc::Sender<EncodeDone>,
}

pub struct EncodeDone {
    pub body: Vec<u8>,
    pub gz: Vec<u8>,
    pub result: Result<(), String>,
}

/// The encoder threads and their shared queue.
#[derive(Debug)]
pub struct Encoders {
    queue: mpsc::Sender<EncodeJob>,
}

impl Encoders {
    /// Starts `n` encoder threads (at least one), each moved to `sched` when
    /// given (the workers' real-time class: an encoder in the fair class
    /// would wait behind every real-time worker). They exit when this is dropped.
    pub fn start(n: usize, sched: Option<super::sys::Sched>) -> std::io::Result<Encoders> {
        let (tx, rx) = mpsc::channel::<EncodeJob>();
        let rx = Arc::new(Mutex::new(rx));
        for _ in 0..n.max(1) {
            let rx = Arc::clone(&rx);
            let compressor = warm_compressor();
            std::thread::Builder::new().name("http-encoder".into()).spawn(move || {
                if let Some(sched) = sched {
                    // Refused only if the privilege went away since the
                    // server's probe; the encoder then stays fair.
                    let _ = super::sys::set_thread_sched(sched);
                }
                encoder_main(&rx, compressor)
            })?;
        }
        Ok(Encoders { queue: tx })
    }

    /// Encodes on an encoder thread; the buffers travel with the job and come
    /// back in the [`EncodeDone`] sent to `job.reply`. An error when the
    /// encoder threads are gone.
    pub fn submit(&self, job: EncodeJob) -> Result<(), String> {
        self.queue
            .send(job)
            .map_err(|_| "the encoder threads are gone".to_string())
    }
}

fn encoder_main(rx: &Mutex<mpsc::Receiver<EncodeJob>>, mut compressor: Compressor) {
    loop {
        let job = match lock(rx).recv() {
            Ok(job) => job,
            Err(_) => return, // the server is gone
        };
        let EncodeJob {
            encode,
            gzip,
            mut body,
            mut gz,
            reply,
        } = job;
        let result = catch_unwind(AssertUnwindSafe(|| {
            body.clear();
            gz.clear();
            encode(&mut body)?;
            if let Some(level) = gzip {
                compressor.set_level(level);
                compressor.compress(&body, &mut gz);
            }
            Ok(())
        }))
        .unwrap_or_else(|_| {
            compressor = Compressor::default();
            Err("the encode panicked".to_string())
        });
        let _ = reply.send(EncodeDone { body, gz, result });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_encoder_thread_encodes_and_gzips_into_the_buffers_it_is_given() {
        let encoders = Encoders::start(1, None).unwrap();
        let data: Vec<u8> = (0..20_000u32).flat_map(|i| (i % 251).to_le_bytes()).collect();
        let (tx, rx) = mpsc::channel();
        let job = |gzip| EncodeJob {
            encode: {
                let data = data.clone();
                Box::new(move |out: &mut Vec<u8>| {
                    out.extend_from_slice(&data);
                    Ok(())
                })
            },
            gzip,
            body: Vec::with_capacity(1 << 20),
            gz: Vec::new(),
            reply: tx.clone(),
        };
        encoders.submit(job(Some(6))).unwrap();
        let done = rx.recv().unwrap();
        done.result.unwrap();
        assert_eq!(done.body, data);
        assert!(
            done.body.capacity() >= 1 << 20,
            "the buffer sent is the buffer returned"
        );
        assert_eq!(crate::gzip::decompress(&done.gz, 1 << 20).unwrap(), done.body);
        encoders.submit(job(None)).unwrap();
        assert!(rx.recv().unwrap().gz.is_empty());
        // Level 1 and 9 give the bytes a fresh compressor at that level gives.
        for level in [1, 9, 6] {
            encoders.submit(job(Some(level))).unwrap();
            let done = rx.recv().unwrap();
            let mut fresh = Vec::new();
            crate::gzip::compress(&done.body, level, &mut fresh);
            assert_eq!(done.gz, fresh, "level {level}");
        }
    }

    #[test]
    fn lent_compressors_give_the_same_bytes_as_a_fresh_one() {
        let c = Compressors::new(1);
        let data = b"record record record".repeat(100);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        c.compress(6, &data, &mut a);
        c.compress(6, &data, &mut b);
        let mut fresh = Vec::new();
        crate::gzip::compress(&data, crate::gzip::DEFAULT_LEVEL, &mut fresh);
        assert_eq!(a, fresh);
        assert_eq!(b, fresh);
        // A lent compressor changes level and back.
        let (mut one, mut six) = (Vec::new(), Vec::new());
        c.compress(1, &data, &mut one);
        c.compress(6, &data, &mut six);
        let mut fresh1 = Vec::new();
        crate::gzip::compress(&data, 1, &mut fresh1);
        assert_eq!((one, six), (fresh1, fresh));
    }
}
