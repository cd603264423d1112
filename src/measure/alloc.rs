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
//! What is counted: every `alloc`, `alloc_zeroed` and `realloc` call is one
//! allocation and adds the size requested (for `realloc`, the new size: like
//! Go, we count bytes handed out, not net growth). `dealloc` is counted
//! separately. [`thread_counts`] are the same counters for the calling
//! thread alone. [`live`] also tracks the bytes currently allocated and
//! their peak, for bounds such as "decoding N bytes never holds more than
//! k·N bytes at once". The counters are process-wide, so a measurement is only
//! meaningful while a single thread allocates — the benchmark harness runs
//! every timed loop on one thread.
//!
//! This file is the crate's one `unsafe impl`: `GlobalAlloc` is an unsafe
//! trait, and each method forwards to `System` under the caller's contract.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

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

    fn count(&self, size: usize) {
        REGISTERED.store(true, Relaxed);
        TOTAL_ALLOCS.fetch_add(1, Relaxed);
        TOTAL_BYTES.fetch_add(size as u64, Relaxed);
        THREAD.with(|t| {
            t.allocs.set(t.allocs.get() + 1);
            t.bytes.set(t.bytes.get() + size as u64);
        });
    }

    /// Live bytes go up by `grow` and down by `shrink`; the peak follows.
    fn track(grow: usize, shrink: usize) {
        if grow >= shrink {
            let now = LIVE_BYTES.fetch_add((grow - shrink) as u64, Relaxed) + (grow - shrink) as u64;
            PEAK_BYTES.fetch_max(now, Relaxed);
        } else {
            LIVE_BYTES.fetch_sub((shrink - grow) as u64, Relaxed);
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
static REGISTERED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

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
    // Any allocation through it sets REGISTERED; make one to be sure.
    let probe = std::hint::black_box(Box::new(0u64));
    drop(probe);
    REGISTERED.load(Relaxed)
}

// SAFETY: (the whole impl) every method forwards its arguments unchanged
// to `System`, which upholds the `GlobalAlloc` contract; the extra work is a
// few relaxed atomic adds, which neither allocate nor unwind.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        self.count(layout.size());
        Self::track(layout.size(), 0);
        // SAFETY: the caller guarantees `layout` has non-zero size, as
        // `System.alloc` requires.
        unsafe { System.alloc(layout) }
    }

    // SAFETY: the caller upholds the `GlobalAlloc` contract for this method;
    // we pass it on to `System` unchanged.
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        self.count(layout.size());
        Self::track(layout.size(), 0);
        // SAFETY: same contract as `alloc`, passed through unchanged.
        unsafe { System.alloc_zeroed(layout) }
    }

    // SAFETY: the caller upholds the `GlobalAlloc` contract for this method;
    // we pass it on to `System` unchanged.
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        TOTAL_FREES.fetch_add(1, Relaxed);
        THREAD.with(|t| t.frees.set(t.frees.get() + 1));
        Self::track(0, layout.size());
        // SAFETY: `ptr` was returned by this allocator, i.e. by `System`
        // with this same `layout` (caller's contract).
        unsafe { System.dealloc(ptr, layout) }
    }

    // SAFETY: the caller upholds the `GlobalAlloc` contract for this method;
    // we pass it on to `System` unchanged.
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        self.count(new_size);
        Self::track(new_size, layout.size());
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
        // Other test threads allocate too, so only lower bounds hold.
        let base = reset_peak();
        let big: Vec<u8> = Vec::with_capacity(1 << 20);
        std::hint::black_box(&big);
        drop(big);
        let small: Vec<u8> = Vec::with_capacity(10);
        std::hint::black_box(&small);
        let l = live();
        assert!(l.peak >= base + (1 << 20), "{l:?} base {base}");
        assert!(l.peak >= l.now);
    }

    #[test]
    fn since_subtracts() {
        let a = Counts {
            allocs: 3,
            bytes: 100,
            frees: 1,
        };
        let b = Counts {
            allocs: 5,
            bytes: 164,
            frees: 4,
        };
        assert_eq!(
            b.since(a),
            Counts {
                allocs: 2,
                bytes: 64,
                frees: 3
            }
        );
    }
}
