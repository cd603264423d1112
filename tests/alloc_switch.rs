//! The counting allocator's process-wide switch: off stops every counter,
//! on resumes them, `with_counting` restores the previous state. One test
//! function, because the switch is shared by every thread of this binary.

use std::hint::black_box;
use wirebench::measure::alloc::{CountingAlloc, counting, counts, live, set_counting, thread_counts, with_counting};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::new();

#[test]
fn the_switch_stops_and_resumes_counting() {
    assert!(counting(), "counting starts on for binaries that install CountingAlloc");

    // Off: a large allocation and its free leave every counter where it was.
    assert!(set_counting(false));
    let (before, thread_before) = (counts(), thread_counts());
    let off = black_box(vec![7u8; 1 << 20]);
    drop(off);
    assert_eq!(counts().since(before), Default::default());
    assert_eq!(thread_counts().since(thread_before), Default::default());

    // Allocated while off, freed while on: live bytes must not wrap below zero.
    let straddle = black_box(vec![1u8; 1 << 16]);
    let live_before = live();
    assert!(!set_counting(true));
    drop(straddle);
    let l = live();
    assert!(l.now <= live_before.now.max(1 << 40), "{l:?} after {live_before:?}");
    assert!(l.peak < 1 << 40, "live bytes wrapped: {l:?}");

    // On again: counted.
    let before = thread_counts();
    let on = black_box(vec![0u8; 4321]);
    let used = thread_counts().since(before);
    assert!(used.allocs >= 1 && used.bytes >= 4321, "{used:?}");
    drop(on);

    // with_counting switches on for its closure and restores "off" after it.
    set_counting(false);
    let before = thread_counts();
    let inside = with_counting(|| {
        let start = thread_counts();
        drop(black_box(vec![0u8; 999]));
        thread_counts().since(start)
    });
    assert!(inside.allocs >= 1 && inside.bytes >= 999, "{inside:?}");
    assert!(!counting());
    drop(black_box(vec![0u8; 999]));
    assert_eq!(
        thread_counts().since(before),
        inside,
        "nothing counted outside the closure"
    );
    set_counting(true);
}
