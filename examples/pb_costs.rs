//! Counts what a Protobuf decode of the 1,000-product fixture costs, by
//! path, for callgrind and for allocation counts:
//!
//! - `ours`: `Format::Protobuf.decode` (the view reader, owned in one pass);
//! - `prost`: prost into its generated types, then `from_generated`
//!   (the `Decode/protobuf/1000/prost_to_domain` row of `benches/peers.rs`);
//! - `floor`: a clone of the decoded catalog, the allocations and copies any
//!   owned result needs (every `String` and `Vec` at its exact size) and
//!   nothing else.
//!
//! `valgrind --tool=callgrind target/release/examples/pb_costs prost 10`:
//! (count at N) − (count at 0), divided by N, is one operation. Before the
//! N operations, one more runs with allocation counting on
//! (`wirebench::measure::alloc`) and its allocator calls are printed; the
//! N operations run with counting off, so each allocator call costs one
//! relaxed load on every path alike.

use std::hint::black_box;
use wirebench::codec::{Format, protobuf};
use wirebench::measure::alloc::{self, CountingAlloc};
use wirebench::model::Catalog;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::new();

fn main() {
    let mut args = std::env::args().skip(1);
    let mode = args.next().unwrap_or_default();
    let n: usize = args
        .next()
        .and_then(|n| n.parse().ok())
        .expect("usage: pb_costs ours|prost|floor N");
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(wirebench::fixtures::CANONICAL_PATH);
    let catalog = wirebench::fixtures::load_file(&path).expect("fixture");
    let bytes = Format::Protobuf.encode_to_vec(&catalog.products).expect("encode");
    let one: fn(&[u8], &Catalog) -> Catalog = match mode.as_str() {
        "ours" => |b, _| Format::Protobuf.decode(black_box(b)).expect("decode"),
        "prost" => |b, _| {
            let g = protobuf::decode_generated(black_box(b)).expect("prost decode");
            protobuf::from_generated(g).expect("conversion")
        },
        "floor" => |_, c| black_box(c).clone(),
        _ => panic!("usage: pb_costs ours|prost|floor N"),
    };
    let before = alloc::counts();
    let counted = one(&bytes, &catalog);
    let used = alloc::counts().since(before);
    assert_eq!(counted, catalog, "{mode}: the decode is the fixture");
    drop(counted);
    println!(
        "{mode}: {} allocator calls (alloc + realloc), {} bytes, {} frees before the drop",
        used.allocs, used.bytes, used.frees
    );
    alloc::set_counting(false);
    for _ in 0..n {
        drop(black_box(one(&bytes, &catalog)));
    }
}
