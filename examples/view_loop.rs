//! Decodes the 1,000-product fixture N times with the view decode (or the
//! owned one), for profilers: `cargo run --release --example view_loop -- json 2000 [owned]`.

use wirebench::codec::Format;

fn main() {
    let mut args = std::env::args().skip(1);
    let format: Format = args.next().unwrap_or("json".into()).parse().expect("format");
    let n: usize = args.next().map_or(1000, |s| s.parse().expect("count"));
    let owned = args.next().as_deref() == Some("owned");
    let bytes = format
        .encode_to_vec(&wirebench::fixtures::catalog(1000).products)
        .expect("encode");
    let mut total = 0;
    for _ in 0..n {
        total += if owned {
            format
                .decode(std::hint::black_box(&bytes))
                .expect("decode")
                .products
                .len()
        } else {
            format
                .decode_view(std::hint::black_box(&bytes))
                .expect("decode_view")
                .len()
        };
    }
    println!("{total}");
}
