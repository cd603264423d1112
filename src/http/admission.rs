//! Admission of a response body: one [`Ticket`] per body a handler encodes,
//! holding its share of the server-wide byte budget and, for a large body,
//! one of the few large-body slots. Dropping the ticket gives both back.
//!
//! - **Budget** (`--max-inflight-bytes`): a request reserves an upper bound of
//!   its body (and its gzip copy) before encoding; when that does not fit it
//!   waits up to `--budget-wait`, then gets 503 with `Retry-After`. A request
//!   alone always fits. [`Ticket::settle`] turns the reservation into the
//!   bytes really held once the body is written.
//! - **Large bodies** (an estimate over [`LARGE`]) are made one per encoder
//!   thread at a time: a large request waits for a slot (bounded CPU work,
//!   every holder is encoding) before it reserves its budget, so requests
//!   queued behind the encoders hold none.
//!
//! [`Admission::admit`] returns the ticket with its [`Size`]: the caller never
//! infers "large" from a buffer.

use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// The message of the 503 a request gets when the budget stays full.
pub const REFUSED: &str = "the server's response memory (--max-inflight-bytes) is in use; retry later";

/// Estimated bodies above this are large: encoded on the encoder threads
/// into a pooled or freshly mapped buffer (glibc's initial mmap threshold).
pub const LARGE: usize = 128 * 1024;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Whether an admitted body is large (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Size {
    Small,
    Large,
}

/// The budget and the large-body slots, shared by every worker.
#[derive(Debug)]
pub struct Admission {
    limit: usize,
    wait: Duration,
    state: Mutex<State>,
    /// A large slot was given back: wakes one slot waiter (one slot admits one).
    slot_freed: Condvar,
    /// Budget bytes were given back: wakes every budget waiter (the bytes may admit several).
    bytes_freed: Condvar,
}

#[derive(Debug, Default)]
struct State {
    used: usize,
    /// Large-body slots free.
    slots: usize,
    /// Requests waiting on `slot_freed` / `bytes_freed` (only then is a
    /// wake-up needed: it is a system call, and each woken thread one more
    /// context switch on a busy core).
    slot_waiters: usize,
    byte_waiters: usize,
    /// Times a slot waiter woke up (tests check one wake-up per slot freed).
    slot_wakeups: u64,
    refused: u64,
}

impl Admission {
    /// A budget of `limit` bytes, `slots` large bodies at once (at least one),
    /// and `wait` as the longest wait for budget.
    pub fn new(limit: usize, slots: usize, wait: Duration) -> Admission {
        Admission {
            limit,
            wait,
            state: Mutex::new(State {
                slots: slots.max(1),
                ..State::default()
            }),
            slot_freed: Condvar::new(),
            bytes_freed: Condvar::new(),
        }
    }

    /// Admits a body of at most `estimate` bytes (and its gzip copy when
    /// `gzip`, reserved at half the body: structured data compresses to
    /// well under half; the catalog to 12–25%). `None` when the budget stays full: the request gets 503.
    pub fn admit(self: &Arc<Self>, estimate: usize, gzip: bool) -> Option<Ticket> {
        let bytes = if gzip {
            estimate.saturating_add(estimate / 2)
        } else {
            estimate
        };
        let size = if estimate > LARGE { Size::Large } else { Size::Small };
        let mut st = lock(&self.state);
        if size == Size::Large {
            while st.slots == 0 {
                st.slot_waiters += 1;
                st = self.slot_freed.wait(st).unwrap_or_else(PoisonError::into_inner);
                st.slot_waiters -= 1;
                st.slot_wakeups += 1;
            }
            st.slots -= 1;
        }
        let deadline = Instant::now() + self.wait;
        loop {
            if st.used == 0 || st.used.saturating_add(bytes) <= self.limit {
                st.used = st.used.saturating_add(bytes);
                return Some(Ticket {
                    admission: Arc::clone(self),
                    bytes,
                    size,
                });
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                st.refused += 1;
                if size == Size::Large {
                    st.slots += 1;
                    self.wake(st, true, false);
                }
                return None;
            }
            st.byte_waiters += 1;
            st = self
                .bytes_freed
                .wait_timeout(st, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
            st.byte_waiters -= 1;
        }
    }

    /// After a slot (`slot`) or budget bytes (`bytes`) were given back:
    /// wakes one slot waiter, and every budget waiter, skipping the call
    /// when nobody waits for what was freed.
    fn wake(&self, st: MutexGuard<'_, State>, slot: bool, bytes: bool) {
        let slot = slot && st.slot_waiters > 0;
        let bytes = bytes && st.byte_waiters > 0;
        drop(st);
        if slot {
            self.slot_freed.notify_one();
        }
        if bytes {
            self.bytes_freed.notify_all();
        }
    }

    /// Budget bytes reserved now.
    pub fn in_use(&self) -> usize {
        lock(&self.state).used
    }

    /// Requests refused so far.
    pub fn refused(&self) -> u64 {
        lock(&self.state).refused
    }

    /// The budget, bytes.
    pub fn limit(&self) -> usize {
        self.limit
    }
}

/// One admitted body: its budget bytes and, when large, its slot; both
/// go back when the ticket is dropped.
#[derive(Debug)]
pub struct Ticket {
    admission: Arc<Admission>,
    bytes: usize,
    size: Size,
}

impl Ticket {
    pub fn size(&self) -> Size {
        self.size
    }

    /// The body is written: the reservation becomes the `real` bytes held.
    /// The large slot goes back now (the encoding is done); the bytes stay
    /// reserved until the response is sent and the ticket dropped.
    pub fn settle(&mut self, real: usize) {
        let mut st = lock(&self.admission.state);
        st.used = st.used.saturating_sub(self.bytes).saturating_add(real);
        let bytes = real < self.bytes;
        let slot = self.size == Size::Large;
        if slot {
            st.slots += 1;
            self.size = Size::Small;
        }
        self.bytes = real;
        if bytes || slot {
            self.admission.wake(st, slot, bytes);
        }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut st = lock(&self.admission.state);
        st.used = st.used.saturating_sub(self.bytes);
        let slot = self.size == Size::Large;
        if slot {
            st.slots += 1;
        }
        self.admission.wake(st, slot, self.bytes > 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_admits_up_to_its_limit_and_one_request_alone() {
        let a = Arc::new(Admission::new(100, 1, Duration::from_millis(1)));
        let t1 = a.admit(60, false).unwrap();
        let t2 = a.admit(40, false).unwrap();
        assert_eq!(t1.size(), Size::Small);
        assert!(a.admit(1, false).is_none(), "full");
        assert_eq!(a.refused(), 1);
        drop((t1, t2));
        let alone = a.admit(1000, false).expect("alone, even over the limit");
        drop(alone);
        assert_eq!(a.in_use(), 0);
    }

    #[test]
    fn gzip_reserves_half_again_and_settle_corrects_it() {
        let a = Arc::new(Admission::new(1 << 20, 1, Duration::ZERO));
        let mut t = a.admit(1000, true).unwrap();
        assert_eq!(a.in_use(), 1500);
        t.settle(1200);
        assert_eq!(a.in_use(), 1200);
        drop(t);
        assert_eq!(a.in_use(), 0);
    }

    #[test]
    fn a_waiting_request_gets_room_freed_by_another() {
        let a = Arc::new(Admission::new(100, 1, Duration::from_secs(10)));
        let t = a.admit(100, false).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let waiter = {
            let a = Arc::clone(&a);
            std::thread::spawn(move || {
                tx.send(()).unwrap();
                a.admit(50, false).map(|t| t.bytes)
            })
        };
        rx.recv().unwrap();
        drop(t);
        assert_eq!(waiter.join().unwrap(), Some(50));
        assert_eq!(a.in_use(), 0);
    }

    #[test]
    fn large_bodies_take_a_slot_until_settled() {
        let a = Arc::new(Admission::new(1 << 30, 1, Duration::ZERO));
        let mut big = a.admit(LARGE + 1, false).unwrap();
        assert_eq!(big.size(), Size::Large);
        assert_eq!(lock(&a.state).slots, 0);
        // A second large body waits for the slot; a small one does not.
        let small = a.admit(LARGE, false).unwrap();
        assert_eq!(small.size(), Size::Small);
        let (tx, rx) = std::sync::mpsc::channel();
        let waiter = {
            let a = Arc::clone(&a);
            std::thread::spawn(move || {
                tx.send(()).unwrap();
                a.admit(LARGE + 1, false).map(|t| t.size())
            })
        };
        rx.recv().unwrap();
        big.settle(10);
        assert_eq!(waiter.join().unwrap(), Some(Size::Large));
        drop((big, small));
        assert_eq!(lock(&a.state).slots, 1);
        assert_eq!(a.in_use(), 0);
    }

    #[test]
    fn a_freed_slot_wakes_one_waiter_not_all() {
        let a = Arc::new(Admission::new(1 << 30, 1, Duration::ZERO));
        let first = a.admit(LARGE + 1, false).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let waiters: Vec<_> = (0..3)
            .map(|_| {
                let (a, tx) = (Arc::clone(&a), tx.clone());
                std::thread::spawn(move || tx.send(a.admit(LARGE + 1, false).unwrap()).unwrap())
            })
            .collect();
        // Every waiter is queued for the slot before it is freed.
        while lock(&a.state).slot_waiters < 3 {
            std::thread::yield_now();
        }
        let mut held = first;
        for _ in 0..3 {
            held.settle(10); // the slot goes back: one waiter takes it
            held = rx.recv().unwrap();
            assert_eq!(held.size(), Size::Large);
        }
        drop(held);
        for w in waiters {
            w.join().unwrap();
        }
        // notify_all would have woken all three at the first release, two of
        // them to find the slot taken: at least 4 wake-ups, not 3.
        assert_eq!(lock(&a.state).slot_wakeups, 3, "one wake-up per slot freed");
        assert_eq!(lock(&a.state).slots, 1);
    }

    #[test]
    fn a_refused_large_body_gives_its_slot_back() {
        let a = Arc::new(Admission::new(100, 1, Duration::ZERO));
        let held = a.admit(100, false).unwrap();
        assert!(a.admit(LARGE + 1, false).is_none());
        assert_eq!(lock(&a.state).slots, 1);
        drop(held);
    }
}
