//! Encodes the 1,000-product fixture in one format `N` times, for instruction
//! counting under callgrind:
//! `valgrind --tool=callgrind target/release/examples/encode_loop flatbuffers 20`.
//! The fixture is loaded and encoded once before the loop (so buffers and any
//! per-thread state are warm); the encode loop is all that runs after it, so
//! (count at N) − (count at 0) is the cost of N encodes.

use std::hint::black_box;
use wirebench::codec::Format;

fn main() {
    let mut args = std::env::args().skip(1);
    let format = args
        .next()
        .and_then(|n| Format::from_name(&n))
        .expect("usage: encode_loop FORMAT N");
    let n: usize = args
        .next()
        .and_then(|n| n.parse().ok())
        .expect("usage: encode_loop FORMAT N");
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(wirebench::fixtures::CANONICAL_PATH);
    let catalog = wirebench::fixtures::load_file(&path).expect("fixture");
    let mut out = format.encode_to_vec(&catalog.products).expect("encode");
    for _ in 0..n {
        out.clear();
        format.encode(black_box(&catalog.products), &mut out).expect("encode");
        black_box(&out);
    }
}
