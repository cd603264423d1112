use wirebench::bench::alloc::{CountingAlloc, counts, live, reset_peak};
use wirebench::codec::Format;
use wirebench::model::*;
#[global_allocator]
static A: CountingAlloc = CountingAlloc::new();

fn minimal(i: usize) -> Product {
    Product {
        id: i as i64 + 1,
        sku: String::new(),
        name: String::new(),
        description: String::new(),
        price_cents: 0,
        currency: "USD".into(),
        rating: 0.0,
        review_count: 0,
        in_stock: false,
        stock: 0,
        status: Status::Active,
        tags: vec![],
        dimensions: Dimensions::default(),
        variants: vec![],
        discount_percent: None,
        created_at_ms: 0,
        image_url: String::new(),
    }
}
fn measure(name: &str, f: Format, bytes: &[u8]) {
    let c0 = counts();
    let b = reset_peak();
    let r = f.decode(bytes);
    let used = counts().since(c0);
    let peak = live().peak - b;
    println!(
        "{name:>30} {:>12} len {:>8} total {:>9} ({:>6.1}x) peak {:>9} ({:>6.1}x) ok={}",
        f.name(),
        bytes.len(),
        used.bytes,
        used.bytes as f64 / bytes.len() as f64,
        peak,
        peak as f64 / bytes.len() as f64,
        r.is_ok()
    );
}
#[test]
fn exp() {
    println!("product size {}", std::mem::size_of::<Product>());
    for f in Format::ALL {
        for n in [1, 100] {
            let p = std::fs::read(format!("fixtures/golden/catalog-{n}.{}", f.extension())).unwrap();
            measure(&format!("golden {n}"), f, &p);
        }
        let ps: Vec<Product> = (0..1000).map(minimal).collect();
        let bytes = f.encode_to_vec(&ps).unwrap();
        measure("minimal x1000", f, &bytes);
    }
    // protobuf: id + currency only
    let mut pb = Vec::new();
    for i in 0..1000u32 {
        let mut m = vec![0x08];
        let mut v = i + 1;
        while v >= 0x80 {
            m.push((v as u8) | 0x80);
            v >>= 7;
        }
        m.push(v as u8);
        m.extend_from_slice(&[0x32, 3, b'U', b'S', b'D']);
        pb.push(0x0a);
        pb.push(m.len() as u8);
        pb.extend(m);
    }
    measure("pb id+currency x1000", Format::Protobuf, &pb);
    // protobuf: empty products (invalid) x1000
    let pb2: Vec<u8> = (0..1000).flat_map(|_| [0x0a, 0]).collect();
    measure("pb empty x1000", Format::Protobuf, &pb2);
}
