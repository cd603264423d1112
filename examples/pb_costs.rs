//! Counts what a Protobuf decode of the 1,000-product fixture costs, `N`
//! times, by path, for callgrind and for allocation counts:
//!
//! - `ours`: `Format::Protobuf.decode` (the view reader, owned in one pass);
//! - `prost`: prost into its generated types, then `from_generated`
//!   (the `Decode/protobuf/1000/prost_to_domain` row of `benches/peers.rs`);
//! - `floor`: a clone of the decoded catalog, the allocations and copies any
//!   owned result needs (every `String` and `Vec` at its exact size) and
//!   nothing else.
//!
//! `valgrind --tool=callgrind target/release/examples/pb_costs prost 10`;
//! (count at N) − (count at 0), divided by N, is one operation. Each run
//! prints the allocator calls per operation, counted by this binary's
//! global allocator (one relaxed add per call, the same on every path).

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use wirebench::codec::{Format, protobuf};

/// `System`, counting `alloc` and `realloc` calls.
struct Counting;

static CALLS: AtomicU64 = AtomicU64::new(0);
static REALLOCS: AtomicU64 = AtomicU64::new(0);

// SAFETY: every method forwards its arguments unchanged to `System`, which
// upholds `GlobalAlloc`'s contract; the counters touch no memory it hands out.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        CALLS.fetch_add(1, Relaxed);
        // SAFETY: the caller's `layout` contract is `System`'s.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` with this `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        REALLOCS.fetch_add(1, Relaxed);
        // SAFETY: as for `dealloc`, with the caller's `new_size` contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn main() {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_default();
    let n: u64 = args
        .next()
        .and_then(|n| n.parse().ok())
        .expect("usage: pb_costs ours|prost|floor N");
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(wirebench::fixtures::CANONICAL_PATH);
    let catalog = wirebench::fixtures::load_file(&path).expect("fixture");
    let bytes = Format::Protobuf.encode_to_vec(&catalog.products).expect("encode");
    let one: fn(&[u8], &wirebench::model::Catalog) = match mode.as_str() {
        "ours" => |b, _| drop(black_box(Format::Protobuf.decode(black_box(b)).expect("decode"))),
        "prost" => |b, _| {
            let g = protobuf::decode_generated(black_box(b)).expect("prost decode");
            drop(black_box(protobuf::from_generated(g).expect("conversion")));
        },
        "floor" => |_, c| drop(black_box(black_box(c).clone())),
        _ => panic!("usage: pb_costs ours|prost|floor N"),
    };
    let (calls, reallocs) = (CALLS.load(Relaxed), REALLOCS.load(Relaxed));
    for _ in 0..n {
        one(&bytes, &catalog);
    }
    if n > 0 {
        let per = |c: &AtomicU64, before: u64| (c.load(Relaxed) - before) as f64 / n as f64;
        println!(
            "{mode}: {} allocs/op, {} reallocs/op",
            per(&CALLS, calls),
            per(&REALLOCS, reallocs)
        );
    }
}
