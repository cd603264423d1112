//! Encodes the 1,000-product fixture in one format `N` times into one reused
//! buffer, for instruction counting under callgrind:
//! `valgrind --tool=callgrind target/release/examples/encode_loop msgpack 10`.
//! The fixture is loaded and the buffer presized before the loop; the encode
//! loop is all that runs after it, so (count at N) − (count at 0) is the cost
//! of N encodes.

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
    let len = format.encode_to_vec(&catalog.products).expect("encode").len();
    let mut buf = Vec::with_capacity(len);
    for _ in 0..n {
        buf.clear();
        format.encode(black_box(&catalog.products), &mut buf).expect("encode");
        assert_eq!(buf.len(), len);
        black_box(&buf);
    }
}
