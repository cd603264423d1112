//! Resource bounds under attack, measured by the counting allocator: every
//! decoder stays within `Format::max_decode_allocation(input)` (bytes
//! requested in total, counted for the calling thread) on the payloads that
//! cost the most per input byte — the smallest valid records, lists of empty
//! items longer than the model allows, shared FlatBuffers offsets — and the
//! report prints the ratio each reached. Memory per HTTP connection is in
//! `tests/http_memory.rs` (it needs the process to itself).

use wirebench::codec::Format;
use wirebench::measure::alloc::{CountingAlloc, thread_counts};
use wirebench::model::{Dimensions, Product, Status, Variant};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::new();

/// Decodes and returns (bytes requested, whether it decoded), asserting the bound.
fn measured(what: &str, format: Format, input: &[u8]) -> (u64, bool) {
    let before = thread_counts();
    let result = format.decode(input);
    let used = thread_counts().since(before).bytes;
    let limit = format.max_decode_allocation(input.len()) as u64;
    println!(
        "{:>12} {what:<44} {:>9} bytes in, {:>10} requested ({:>5.1}×, limit {:>10}) {}",
        format.name(),
        input.len(),
        used,
        used as f64 / input.len().max(1) as f64,
        limit,
        if result.is_ok() { "ok" } else { "error" }
    );
    assert!(
        used <= limit,
        "{format:?} {what}: {used} bytes for {} bytes of input",
        input.len()
    );
    (used, result.is_ok())
}

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

fn empty_variant() -> Variant {
    Variant {
        sku: String::new(),
        color: String::new(),
        size: String::new(),
        price_cents: 0,
        stock: 0,
    }
}

/// Valid catalogs: the fixtures, the smallest products, and the smallest
/// products carrying the most (empty) tags and variants the model allows.
#[test]
fn valid_payloads_stay_within_the_bound() {
    let full: Vec<Product> = (0..1000)
        .map(|i| Product {
            tags: vec![String::new(); 5],
            variants: vec![empty_variant(); 3],
            ..minimal(i)
        })
        .collect();
    let cases: Vec<(&str, Vec<Product>)> = vec![
        ("fixture, 1 product", wirebench::fixtures::catalog(1).products),
        ("fixture, 1,000 products", wirebench::fixtures::catalog(1000).products),
        ("1,000 smallest valid products", (0..1000).map(minimal).collect()),
        ("1,000 products, 5 empty tags, 3 empty variants", full),
    ];
    for format in Format::ALL {
        for (what, products) in &cases {
            let bytes = format.encode_to_vec(products).unwrap();
            let (_, ok) = measured(what, format, &bytes);
            assert!(ok, "{format:?} {what} did not decode");
        }
    }
}

fn varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn pb_field(number: u64, body: &[u8], out: &mut Vec<u8>) {
    varint(number << 3 | 2, out);
    varint(body.len() as u64, out);
    out.extend_from_slice(body);
}

/// Protobuf costs nothing for defaults: a valid product can be 9 bytes
/// (`id` and `currency`), an empty product 2, an empty tag or variant 2.
#[test]
fn protobuf_forgeries_stay_within_the_bound() {
    let mut smallest = Vec::new();
    for i in 0..1000u64 {
        let mut p = vec![0x08];
        varint(i + 1, &mut p);
        pb_field(6, b"USD", &mut p);
        pb_field(1, &p, &mut smallest);
    }
    assert!(measured("1,000 products of id + currency only", Format::Protobuf, &smallest).1);

    let empty: Vec<u8> = [0x0a, 0x00].repeat(1000);
    assert!(!measured("1,000 empty products", Format::Protobuf, &empty).1);

    for (field, what) in [
        (12, "one product, 100,000 empty tags"),
        (14, "one product, 100,000 empty variants"),
    ] {
        let mut p = vec![0x08, 0x01];
        pb_field(6, b"USD", &mut p);
        for _ in 0..100_000 {
            pb_field(field, b"", &mut p);
        }
        let mut bytes = Vec::new();
        pb_field(1, &p, &mut bytes);
        let (used, ok) = measured(what, Format::Protobuf, &bytes);
        assert!(!ok);
        // Refused before prost builds the list.
        assert!(used < 4096, "{what}: {used} bytes");
    }
}

/// Lists of empty items far longer than the model allows are refused at
/// the list, before a vector grows 24 bytes per input byte.
#[test]
fn long_lists_of_empty_items_are_refused_early() {
    // JSON: `"",` per tag and `{"sku":"",…}` per variant.
    let base = Format::Json.encode_to_vec(&[minimal(0)]).unwrap();
    let text = String::from_utf8(base).unwrap();
    let tags = format!("[{}\"\"]", "\"\",".repeat(100_000));
    let json = text.replacen("\"tags\":[]", &format!("\"tags\":{tags}"), 1);
    assert_ne!(json, text);
    let (_, ok) = measured("one product, 100,001 empty tags", Format::Json, json.as_bytes());
    assert!(!ok);
    let e = Format::Json.decode(json.as_bytes()).unwrap_err().to_string();
    assert!(e.contains("products[0].tags: at most 5 items, found 100001"), "{e}");

    // MessagePack: the count is in the array marker; one fixstr byte per tag.
    let base = Format::Msgpack.encode_to_vec(&[minimal(0)]).unwrap();
    let key = b"\xa4tags\x90"; // "tags": fixarray of 0
    let at = base.windows(key.len()).position(|w| w == key).unwrap() + 5;
    let mut mp = base[..at].to_vec();
    mp.push(0xdd); // array 32
    mp.extend_from_slice(&100_000u32.to_be_bytes());
    mp.extend(std::iter::repeat_n(0xa0, 100_000)); // empty fixstr
    mp.extend_from_slice(&base[at + 1..]);
    let (used, ok) = measured("one product, 100,000 empty tags", Format::Msgpack, &mp);
    assert!(!ok && used < 4096, "{used}");
    let e = Format::Msgpack.decode(&mp).unwrap_err().to_string();
    assert!(e.contains("products[0].tags: at most 5 items, found 100000"), "{e}");
}

/// FlatBuffers offsets may point at one product table from every element of
/// the products vector, or at one string from every product. The verifier's
/// apparent-size limit (2× the buffer) refuses heavy sharing before anything
/// is copied; sharing within the limit decodes, and the copy stays within
/// the bound.
#[test]
fn flatbuffers_shared_offsets_stay_within_the_bound() {
    use flatbuffers::{FlatBufferBuilder, WIPOffset};
    use wirebench::codec::flatbuffers::generated::wirebench as fb;
    // `products` distinct tables (ids 1..) whose descriptions all point at one
    // string of `len` bytes; with `same_table`, one table referenced `products` times.
    let build = |products: usize, len: usize, same_table: bool| {
        let mut fbb = FlatBufferBuilder::new();
        let empty = fbb.create_string("");
        let desc = fbb.create_string(&"d".repeat(len));
        let currency = fbb.create_string("USD");
        let tags = fbb.create_vector::<WIPOffset<&str>>(&[]);
        let variants = fbb.create_vector::<WIPOffset<fb::Variant>>(&[]);
        let tables: Vec<_> = (0..if same_table { 1 } else { products })
            .map(|i| {
                let args = fb::ProductArgs {
                    id: i as i64 + 1,
                    sku: Some(empty),
                    name: Some(empty),
                    description: Some(desc),
                    currency: Some(currency),
                    tags: Some(tags),
                    dimensions: Some(&fb::Dimensions::new(0, 0, 0, 0)),
                    variants: Some(variants),
                    image_url: Some(empty),
                    ..Default::default()
                };
                fb::Product::create(&mut fbb, &args)
            })
            .collect();
        let refs: Vec<_> = (0..products).map(|i| tables[i % tables.len()]).collect();
        let list = fbb.create_vector(&refs);
        let root = fb::Catalog::create(&mut fbb, &fb::CatalogArgs { products: Some(list) });
        fb::finish_catalog_buffer(&mut fbb, root);
        fbb.finished_data().to_vec()
    };
    let (_, ok) = measured(
        "one table referenced 1,000 times",
        Format::Flatbuffers,
        &build(1000, 0, true),
    );
    assert!(!ok);
    let (_, ok) = measured(
        "20 products sharing a 1,000-byte string",
        Format::Flatbuffers,
        &build(20, 1000, false),
    );
    assert!(!ok, "the verifier's apparent-size limit should refuse it");
    // The most sharing the verifier lets through: find it, then measure it.
    let mut decoded = 0;
    for products in 1..=4 {
        for len in [100, 400] {
            let bytes = build(products, len, false);
            let (_, ok) = measured(
                &format!("{products} products sharing a {len}-byte string"),
                Format::Flatbuffers,
                &bytes,
            );
            decoded += usize::from(ok);
        }
    }
    assert!(decoded > 0, "no sharing case decoded: the test measures nothing copied");
}
