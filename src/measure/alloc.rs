//! A counting global allocator: [`System`] plus four atomic counters, so the
//! codec benchmarks can report bytes/op and allocs/op like `go test -benchmem`.
//!
//! Install it in a binary, then read the counters around what you measure:
//!
//! ```
//! use wirebench::measure::alloc::{CountingAlloc, counts};
//!
//! #[global_allocator]
//! static ALLOC: CountingAlloc = CountingAlloc::new();
//!
//! fn main() {
//!     let before = counts();
//!     let v = std::hint::black_box(vec![0u8; 100]);
//!     let used = counts().since(before);
//!     assert!(used.allocs >= 1 && used.bytes >= 100);
//!     drop(v);
//! }
//! ```
//!
//! Every `alloc`, `alloc_zeroed` and `realloc` is one allocation of the size
//! requested (for `realloc` the new size: like Go, bytes handed out, not net
//! growth); `dealloc` is counted apart. [`thread_counts`] are the calling
//! thread's counters; [`live`] tracks the bytes currently allocated and their peak
//! ("decoding N bytes never holds more than k·N at once"). The counters are
//! process-wide: a measurement means something only while one thread
//! allocates, and the harness times every loop on one thread.
//!
//! # The switch
//!
//! Counting costs a few atomic adds per allocation, so it has a process-wide
//! switch ([`set_counting`], [`with_counting`]); while off, each call costs a
//! relaxed load and a branch on top of [`System`], and the counters stand
//! still. It starts **on**, so test and fuzz binaries count without a call;
//! the `wirebench` binary switches it off first thing in `main`, and only
//! `codec-bench` turns it on, for untimed runs apart from the timed batches.
//! [`live`] is exact only for blocks allocated and freed while on: binaries reading it leave it on.
//!
//! This is the crate's one `unsafe impl`: `GlobalAlloc` is an unsafe trait,
//! and each method forwards to `System` under the caller's contract.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

/// `System` with allocation counters. See the module docs. The counters are
/// process-wide statics (there is only one global allocator), read with [`counts`].
pub struct CountingAlloc {
    _private: (),
}

/// A snapshot of the counters; subtract two to get what happened between them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// `alloc` + `alloc_zeroed` + `realloc` calls.
    pub allocs: u64,
    /// Bytes requested by those calls.
    pub bytes: u64,
    /// `dealloc` calls.
    pub frees: u64,
}

/// Bytes currently allocated (handed out and not yet freed) and the most
/// there have been since the last [`reset_peak`]. Process-wide, like [`Counts`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Live {
    pub now: u64,
    pub peak: u64,
}

impl Counts {
    /// What happened between `earlier` and `self`.
    pub fn since(self, earlier: Counts) -> Counts {
        Counts {
            allocs: self.allocs.wrapping_sub(earlier.allocs),
            bytes: self.bytes.wrapping_sub(earlier.bytes),
            frees: self.frees.wrapping_sub(earlier.frees),
        }
    }
}

impl CountingAlloc {
    pub const fn new() -> CountingAlloc {
        CountingAlloc { _private: () }
    }

    /// One allocation of `size` bytes that replaced a block of `freed` bytes.
    #[cold]
    #[inline(never)]
    fn count(&self, size: usize, freed: usize) {
        Self::track(size, freed);
        REGISTERED.store(true, Relaxed);
        TOTAL_ALLOCS.fetch_add(1, Relaxed);
        TOTAL_BYTES.fetch_add(size as u64, Relaxed);
        THREAD.with(|t| {
            t.allocs.set(t.allocs.get() + 1);
            t.bytes.set(t.bytes.get() + size as u64);
        });
    }

    #[cold]
    #[inline(never)]
    fn count_free(size: usize) {
        TOTAL_FREES.fetch_add(1, Relaxed);
        THREAD.with(|t| t.frees.set(t.frees.get() + 1));
        Self::track(0, size);
    }

    /// Live bytes go up by `grow` and down by `shrink`; the peak follows.
    #[cold]
    #[inline(never)]
    fn track(grow: usize, shrink: usize) {
        if grow >= shrink {
            let now = LIVE_BYTES.fetch_add((grow - shrink) as u64, Relaxed) + (grow - shrink) as u64;
            PEAK_BYTES.fetch_max(now, Relaxed);
        } else {
            // Saturating: a block allocated while counting was off and freed
            // while it is on was never added.
            let d = (shrink - grow) as u64;
            let _ = LIVE_BYTES.fetch_update(Relaxed, Relaxed, |v| Some(v.saturating_sub(d)));
        }
    }
}

impl Default for CountingAlloc {
    fn default() -> Self {
        CountingAlloc::new()
    }
}

// Process-wide counters: the harness reads them without needing a reference
// to whichever static the binary declared.
static TOTAL_ALLOCS: AtomicU64 = AtomicU64::new(0);
static TOTAL_BYTES: AtomicU64 = AtomicU64::new(0);
static TOTAL_FREES: AtomicU64 = AtomicU64::new(0);
/// This thread's share of the counters. `const`-initialised and without
/// `Drop`, so using it inside the allocator never allocates and stays valid
/// while the thread exits.
struct ThreadCounts {
    allocs: Cell<u64>,
    bytes: Cell<u64>,
    frees: Cell<u64>,
}

thread_local! {
    static THREAD: ThreadCounts = const {
        ThreadCounts {
            allocs: Cell::new(0),
            bytes: Cell::new(0),
            frees: Cell::new(0),
        }
    };
}

static LIVE_BYTES: AtomicU64 = AtomicU64::new(0);
static PEAK_BYTES: AtomicU64 = AtomicU64::new(0);
static REGISTERED: AtomicBool = AtomicBool::new(false);
/// The switch (see the module docs): on until a binary turns it off.
static COUNTING: AtomicBool = AtomicBool::new(true);

/// Whether allocations are being counted now.
#[inline(always)]
pub fn counting() -> bool {
    COUNTING.load(Relaxed)
}

/// Switches counting on or off for the whole process; returns the previous
/// state. Counts already taken stay.
pub fn set_counting(on: bool) -> bool {
    COUNTING.swap(on, Relaxed)
}

/// Runs `f` with counting on, then restores the previous state. Allocations
/// of other threads meanwhile are counted too (read [`thread_counts`] for
/// this thread alone).
pub fn with_counting<R>(f: impl FnOnce() -> R) -> R {
    let was = set_counting(true);
    let r = f();
    set_counting(was);
    r
}

/// The process-wide counters of whichever `CountingAlloc` is installed
/// (all zero when none is).
pub fn counts() -> Counts {
    Counts {
        allocs: TOTAL_ALLOCS.load(Relaxed),
        bytes: TOTAL_BYTES.load(Relaxed),
        frees: TOTAL_FREES.load(Relaxed),
    }
}

/// The counters for the calling thread only: what it allocated, whatever
/// other threads do meanwhile (tests run in parallel threads).
pub fn thread_counts() -> Counts {
    THREAD.with(|t| Counts {
        allocs: t.allocs.get(),
        bytes: t.bytes.get(),
        frees: t.frees.get(),
    })
}

/// Live bytes now and their peak since the last [`reset_peak`].
pub fn live() -> Live {
    Live {
        now: LIVE_BYTES.load(Relaxed),
        peak: PEAK_BYTES.load(Relaxed),
    }
}

/// Starts a new peak measurement from the bytes live now; returns them.
/// Measure with `live().peak - reset_peak()`.
pub fn reset_peak() -> u64 {
    let now = LIVE_BYTES.load(Relaxed);
    PEAK_BYTES.store(now, Relaxed);
    now
}

/// Whether a `CountingAlloc` is the global allocator of this process.
pub fn installed() -> bool {
    // Any counted allocation through it sets REGISTERED; make one to be sure.
    with_counting(|| drop(std::hint::black_box(Box::new(0u64))));
    REGISTERED.load(Relaxed)
}

// SAFETY: (the whole impl) every method forwards its arguments unchanged
// to `System`, which upholds the `GlobalAlloc` contract; the extra work is a
// relaxed load of the switch and, when it is on, a few relaxed atomic adds
// and a const thread-local update, none of which allocate or unwind.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for CountingAlloc {
    // SAFETY: the caller upholds the `GlobalAlloc` contract for this method;
    // we pass it on to `System` unchanged.
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if counting() {
            self.count(layout.size(), 0);
        }
        // SAFETY: the caller guarantees `layout` has non-zero size, as
        // `System.alloc` requires.
        unsafe { System.alloc(layout) }
    }

    // SAFETY: the caller upholds the `GlobalAlloc` contract for this method;
    // we pass it on to `System` unchanged.
    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if counting() {
            self.count(layout.size(), 0);
        }
        // SAFETY: same contract as `alloc`, passed through unchanged.
        unsafe { System.alloc_zeroed(layout) }
    }

    // SAFETY: the caller upholds the `GlobalAlloc` contract for this method;
    // we pass it on to `System` unchanged.
    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if counting() {
            Self::count_free(layout.size());
        }
        // SAFETY: `ptr` was returned by this allocator, i.e. by `System`
        // with this same `layout` (caller's contract).
        unsafe { System.dealloc(ptr, layout) }
    }

    // SAFETY: the caller upholds the `GlobalAlloc` contract for this method;
    // we pass it on to `System` unchanged.
    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if counting() {
            self.count(new_size, layout.size());
        }
        // SAFETY: `ptr`/`layout` come from `System` via this allocator and
        // `new_size` is valid for `layout.align()` (caller's contract).
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[cfg(test)]
#[global_allocator]
static TEST_ALLOC: CountingAlloc = CountingAlloc::new();

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_a_known_allocation() {
        assert!(installed());
        let before = counts();
        let v: Vec<u8> = Vec::with_capacity(12_345);
        std::hint::black_box(&v);
        let during = counts().since(before);
        drop(v);
        // Other test threads may allocate concurrently: at least ours.
        assert!(during.allocs >= 1, "{during:?}");
        assert!(during.bytes >= 12_345, "{during:?}");
        let after = counts().since(before);
        assert!(after.frees >= 1, "{after:?}");
    }

    #[test]
    fn thread_counts_see_only_this_thread() {
        let before = thread_counts();
        std::thread::spawn(|| std::hint::black_box(vec![0u8; 1 << 20]))
            .join()
            .unwrap();
        let v: Vec<u8> = Vec::with_capacity(777);
        std::hint::black_box(&v);
        let during = thread_counts().since(before);
        // The spawn itself allocates a little on this thread; the child's MiB does not count.
        assert!(during.bytes >= 777 && during.bytes < (1 << 20), "{during:?}");
    }

    #[test]
    fn tracks_live_bytes_and_their_peak() {
        // Other test threads allocate and free meanwhile (and may switch
        // counting), so one attempt can see their frees lower the peak below
        // base + 1 MiB; a tracker that works passes within a few attempts, a
        // broken one never does.
        let ok = (0..20).any(|_| {
            let base = reset_peak();
            let big: Vec<u8> = Vec::with_capacity(1 << 20);
            std::hint::black_box(&big);
            drop(big);
            let l = live();
            l.peak >= base + (1 << 20) && l.peak >= l.now
        });
        assert!(ok, "the peak never rose by the 1 MiB allocated: {:?}", live());
    }

    #[test]
    fn since_subtracts() {
        let c = |allocs, bytes, frees| Counts { allocs, bytes, frees };
        assert_eq!(c(5, 164, 4).since(c(3, 100, 1)), c(2, 64, 3));
        assert_eq!(c(0, 0, 0).since(c(1, 1, 1)), c(u64::MAX, u64::MAX, u64::MAX), "wraps");
    }
}
