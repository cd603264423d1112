//! Protobuf codec: exact bytes of small catalogs (worked out by hand from the
//! encoding guide, <https://protobuf.dev/programming-guides/encoding/>),
//! proto3 default omission and `optional` presence, unknown fields skipped,
//! hostile input as `(input, "message at byte N")` tables, and our encoder
//! byte for byte against prost's on fixtures, seeded and edge-value catalogs.
//!
//! proto3 writes no scalar that holds its default (0, 0.0, false, "", empty
//! list, enum value 0): such fields cost 0 bytes, and a reader cannot tell
//! "absent" from "zero". A product with `id = 0` would vanish the same way,
//! but validation rejects `id = 0` anyway. prost reports no byte offset, so
//! its parse errors are placed at the key of the product they are in; our own
//! walk over the catalog's and each product's keys places framing errors
//! exactly; enum errors point at the status value (see the codec's module doc).

mod support;
use support::memlimit;

use prost::Message;
use wirebench::codec::protobuf;
use wirebench::model::{Catalog, Dimensions, Product, Status, Variant};

/// `id = 1`, `sku = "S"`, `currency = "THB"`, everything else default.
fn tiny() -> Product {
    Product {
        id: 1,
        sku: "S".into(),
        name: String::new(),
        description: String::new(),
        price_cents: 0,
        currency: "THB".into(),
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

/// Every field set to something other than its default.
fn full() -> Product {
    Product {
        id: 300,
        name: "n".into(),
        description: "d".into(),
        price_cents: 5,
        rating: 4.5,
        review_count: 2,
        in_stock: true,
        stock: 3,
        status: Status::Discontinued,
        tags: vec!["a".into(), "b".into()],
        dimensions: Dimensions {
            width_mm: 1,
            height_mm: 2,
            depth_mm: 3,
            weight_g: 4,
        },
        variants: vec![Variant {
            sku: "v".into(),
            color: "c".into(),
            size: "s".into(),
            price_cents: 7,
            stock: 0,
        }],
        discount_percent: Some(5),
        created_at_ms: -1,
        image_url: "u".into(),
        ..tiny()
    }
}

const TINY: &[u8] = &[
    0x0a, 0x0c, // Catalog.products (1, LEN), 12 bytes
    0x08, 0x01, // id (1, VARINT) = 1
    0x12, 0x01, b'S', // sku (2, LEN) "S"
    0x32, 0x03, b'T', b'H', b'B', // currency (6, LEN) "THB"
    0x6a, 0x00, // dimensions (13, LEN), 0 bytes: all zeros
];

const FULL: &[u8] = &[
    0x0a, 0x53, // Catalog.products (1, LEN), 83 bytes
    0x08, 0xac, 0x02, // id = 300: 0b1_0101100 → ac, 0b10 → 02
    0x12, 0x01, b'S', // sku
    0x1a, 0x01, b'n', // name (3, LEN)
    0x22, 0x01, b'd', // description (4, LEN)
    0x28, 0x05, // price_cents (5, VARINT)
    0x32, 0x03, b'T', b'H', b'B', // currency
    0x39, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x12, 0x40, // rating (7, I64) 4.5 as f64 LE
    0x40, 0x02, // review_count (8)
    0x48, 0x01, // in_stock (9) true
    0x50, 0x03, // stock (10)
    0x58, 0x02, // status (11) DISCONTINUED
    0x62, 0x01, b'a', 0x62, 0x01, b'b', // tags (12, LEN): the key repeats per element
    0x6a, 0x08, 0x08, 0x01, 0x10, 0x02, 0x18, 0x03, 0x20, 0x04, // dimensions (13): 4 varint fields
    0x72, 0x0b, // variants (14, LEN), 11 bytes; stock 0 is omitted
    0x0a, 0x01, b'v', 0x12, 0x01, b'c', 0x1a, 0x01, b's', 0x20, 0x07, //
    0x78, 0x05, // discount_percent (15, VARINT) = 5
    0x80, 0x01, // created_at_ms: field 16 needs a 2-byte key (16 << 3 = 128)
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01, // -1 as int64: always 10 bytes
    0x8a, 0x01, 0x01, b'u', // image_url (17, LEN) "u"
];

/// Encodes `products`, compares with `want`, decodes `want` back.
fn check(products: &[Product], want: &[u8]) {
    let mut out = Vec::new();
    protobuf::encode(products, &mut out).unwrap();
    assert_eq!(out, want, "encoding of {products:?}");
    let back = protobuf::decode(want).unwrap();
    assert_eq!(back.products, products);
}

#[test]
fn exact_bytes() {
    check(&[], &[]); // an empty catalog is the empty message
    check(&[tiny()], TINY);
    check(&[full()], FULL);
    // Two products: the products key repeats.
    let second = Product { id: 2, ..tiny() };
    let mut two = TINY.to_vec();
    two.extend_from_slice(&[0x0a, 0x0c, 0x08, 0x02]);
    two.extend_from_slice(&TINY[4..]);
    check(&[tiny(), second], &two);
}

/// `optional` has explicit presence: `Some(0)` is written (`78 00`) even
/// though 0 is the default; validation then refuses it on the way back.
#[test]
fn optional_zero_is_present_on_the_wire() {
    let p = Product {
        discount_percent: Some(0),
        ..tiny()
    };
    let mut out = Vec::new();
    protobuf::encode(&[p], &mut out).unwrap();
    let mut want = TINY.to_vec();
    want[1] += 2;
    want.extend_from_slice(&[0x78, 0x00]);
    assert_eq!(out, want);
    assert_eq!(
        protobuf::decode(&out).unwrap_err().to_string(),
        "invalid data: products[0].discount_percent: must be absent or in 1..=90, found 0 at byte 0"
    );
}

/// Any field order, unknown fields of every wire type at both levels, and an
/// absent `dimensions` (read as all zeros) decode to the same catalog.
#[test]
fn unknown_fields_are_skipped_and_order_does_not_matter() {
    let product: &[u8] = &[
        0x32, 0x03, b'T', b'H', b'B', // currency first
        0x98, 0x06, 0x01, // field 99, VARINT
        0xa2, 0x06, 0x02, b'x', b'y', // field 100, LEN
        0xa9, 0x06, 1, 2, 3, 4, 5, 6, 7, 8, // field 101, I64
        0xb5, 0x06, 1, 2, 3, 4, // field 102, I32
        0x12, 0x01, b'S', // sku
        0x08, 0x01, // id last
    ];
    let mut payload = vec![0x10, 0x07]; // Catalog field 2, VARINT: unknown
    payload.push(0x0a);
    payload.push(product.len() as u8);
    payload.extend_from_slice(product);
    assert_eq!(protobuf::decode(&payload).unwrap(), Catalog { products: vec![tiny()] });
}

/// The generated types alone reproduce the golden bytes (prost is canonical).
#[test]
fn generated_types_round_trip_the_golden_file() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/golden/catalog-3.pb");
    let golden = std::fs::read(path).unwrap();
    let msg = protobuf::decode_generated(&golden).unwrap();
    assert_eq!(msg, protobuf::to_generated(&wirebench::fixtures::catalog(3).products));
    let mut out = Vec::new();
    protobuf::encode_generated(&msg, &mut out).unwrap();
    assert_eq!(out, golden);
    assert_eq!(protobuf::from_generated(msg).unwrap(), wirebench::fixtures::catalog(3));
}

fn with_product_prefix(body: &[u8]) -> Vec<u8> {
    let mut v = vec![0x0a, body.len() as u8];
    v.extend_from_slice(body);
    v
}

#[test]
fn errors_say_what() {
    // prost prints its field stack innermost first: `Product.sku: Catalog.products: …`.
    let prost = "prost: failed to decode Protobuf message: ";
    let cases: Vec<(Vec<u8>, String)> = vec![
        (
            with_product_prefix(&[0x08, 0x01, 0x12, 0x01, b'S', 0x32, 0x03, b'T', b'H', b'B', 0x58, 0x07]),
            "unknown Status value 7 at byte 13".into(),
        ),
        (
            [TINY, TINY].concat(),
            "invalid data: products[1].id: duplicate id 1 at byte 14".into(),
        ),
        (
            [
                TINY,
                &with_product_prefix(&[0x08, 0x02, 0x12, 0x01, b'S', 0x32, 0x03, b'u', b's', b'd']),
            ]
            .concat(),
            "invalid data: products[1].currency: must be a 3-letter ISO 4217 code, found \"usd\" at byte 14".into(),
        ),
        (
            with_product_prefix(&[0x12, 0x01, b'S', 0x32, 0x03, b'T', b'H', b'B']),
            "invalid data: products[0].id: must be >= 1, found 0 at byte 0".into(),
        ),
        (
            with_product_prefix(&[0x0a, 0x00]),
            format!("{prost}Product.id: invalid wire type: LengthDelimited (expected Varint) in products[0] at byte 0"),
        ),
        (
            // prost's errors are placed at the key of the product they are in.
            [TINY, &with_product_prefix(&[0x12, 0x01, 0xff])].concat(),
            format!("{prost}Product.sku: invalid string value: data is not UTF-8 encoded in products[1] at byte 14"),
        ),
        (
            vec![0x08, 0x01],
            "expected wire type 2 (LEN) for Catalog.products, found wire type 0 at byte 0".into(),
        ),
        (
            vec![0x0a, 0x05, 0x08],
            "product of 5 exceeds the 1 bytes remaining at byte 2".into(),
        ),
        (
            vec![0x0b],
            "expected wire type 2 (LEN) for Catalog.products, found wire type 3 at byte 0".into(),
        ),
        // Unknown fields are skipped by wire type, groups included; an end
        // without its start, or the wrong end, is an error.
        (
            [&[0x13, 0x08, 0x01, 0x14][..], TINY, &[0x24]].concat(),
            "expected a field (no group is open), found end of group 4 at byte 18".into(),
        ),
        (
            vec![0x13, 0x1c],
            "expected the end of the open group, found end of group 3 at byte 1".into(),
        ),
        (
            vec![0x07],
            "expected wire type 0, 1, 2, 3, 4 or 5, found wire type 7 at byte 0".into(),
        ),
        (vec![0x00], "field number out of range: 0 at byte 0".into()),
        (
            vec![0x80],
            "unexpected end of input, expected field key at byte 1".into(),
        ),
    ];
    for (input, want) in cases {
        let got = protobuf::decode(&input).unwrap_err().to_string();
        assert_eq!(got, want, "input {input:02x?}");
    }
}

/// Payloads whose length prefixes claim 2^31 or 2^63 bytes (or are 11-byte
/// varints), as the products length, a string length and a tags length.
fn huge_length_inputs() -> Vec<Vec<u8>> {
    let len_2_31: &[u8] = &[0x80, 0x80, 0x80, 0x80, 0x08];
    let len_2_63: &[u8] = &[0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01];
    let too_long: &[u8] = &[0xff; 11];
    let mut inputs = Vec::new();
    for len in [len_2_31, len_2_63, too_long] {
        inputs.push([&[0x0a][..], len, b"\x08\x01"].concat());
        inputs.push(with_product_prefix(&[&[0x12][..], len, b"S"].concat()));
        inputs.push(with_product_prefix(&[&[0x62][..], len].concat()));
    }
    inputs
}

/// Length prefixes of 2^31 and 2^63 are refused before anything of that size
/// is allocated. Proof without a custom allocator (no `unsafe` in tests): the
/// test binary re-runs itself with its address space capped at 1 GiB, where
/// allocating 2 GiB fails and aborts the process.
#[cfg(unix)]
#[test]
fn huge_length_prefixes_are_refused_without_allocating() {
    memlimit::run_child_under_1gib("huge_length_child");
}

#[test]
#[ignore = "run by huge_length_prefixes_are_refused_without_allocating under `ulimit -v`"]
fn huge_length_child() {
    memlimit::assert_limit_in_force();
    for input in huge_length_inputs() {
        let err = protobuf::decode(&input).unwrap_err().to_string();
        assert!(
            err.contains(" exceeds the ")
                || err.contains("varint longer than")
                || err.contains("buffer underflow")
                || err.contains("invalid varint"),
            "input {input:02x?}: {err}"
        );
    }
}

fn prost_bytes(products: &[Product]) -> Vec<u8> {
    protobuf::to_generated(products).encode_to_vec()
}

fn ours(products: &[Product]) -> Vec<u8> {
    let mut out = Vec::new();
    protobuf::encode(products, &mut out).unwrap();
    out
}

#[test]
fn byte_identical_to_prost_on_the_fixture() {
    for count in [0, 1, 2, 3, 100, 1000] {
        let c = wirebench::fixtures::catalog(count);
        assert_eq!(ours(&c.products), prost_bytes(&c.products), "count {count}");
    }
}

#[test]
fn byte_identical_to_prost_on_random_catalogs() {
    for seed in 0..500 {
        let c = wirebench::fixtures::random_catalog(seed);
        assert_eq!(ours(&c.products), prost_bytes(&c.products), "seed {seed}");
    }
}

/// Values at every default and sign boundary: negative int32 (ten bytes,
/// sign-extended), -0.0 (prost compares with 0.0, so it is left out),
/// `Some(0)` discount (written), empty strings in lists (written), empty
/// everything else (left out), extreme integers.
#[test]
fn byte_identical_to_prost_on_edge_values() {
    let base = wirebench::fixtures::catalog(1).products.remove(0);
    let mut edge = Vec::new();
    for (i, rating) in [0.0, -0.0, f64::MIN_POSITIVE, 5.0, f64::NAN, f64::INFINITY]
        .into_iter()
        .enumerate()
    {
        let mut p = base.clone();
        p.id = i as i64 * 7 - 3;
        p.rating = rating;
        p.review_count = if i % 2 == 0 { -1 } else { i32::MIN };
        p.stock = [0, i32::MAX, -5][i % 3];
        p.price_cents = [i64::MIN, 0, i64::MAX][i % 3];
        p.created_at_ms = -(i as i64);
        p.discount_percent = [None, Some(0), Some(-1)][i % 3];
        p.in_stock = i % 2 == 1;
        p.status = Status::ALL[i % 3];
        p.tags = vec![String::new(), "é".repeat(i * 40)];
        p.sku = String::new();
        p.name = "x".repeat(200 * i);
        p.dimensions = Dimensions {
            width_mm: -1,
            height_mm: 0,
            depth_mm: i32::MAX,
            weight_g: 0,
        };
        p.variants = vec![
            Variant {
                sku: String::new(),
                color: String::new(),
                size: String::new(),
                price_cents: 0,
                stock: 0,
            },
            Variant {
                sku: "v".into(),
                color: "c".into(),
                size: "s".into(),
                price_cents: -1,
                stock: -1,
            },
        ];
        edge.push(p);
    }
    let mut empty = base.clone();
    empty.dimensions = Dimensions::default();
    empty.tags.clear();
    empty.variants.clear();
    empty.image_url.clear();
    edge.push(empty);
    for i in 0..edge.len() {
        let one = &edge[i..=i];
        assert_eq!(ours(one), prost_bytes(one), "edge product {i}");
    }
    assert_eq!(ours(&edge), prost_bytes(&edge));
}

#[test]
fn appends_to_what_the_buffer_holds() {
    let c = wirebench::fixtures::catalog(3);
    let mut out = b"prefix".to_vec();
    protobuf::encode(&c.products, &mut out).unwrap();
    assert_eq!(&out[..6], b"prefix");
    assert_eq!(&out[6..], &prost_bytes(&c.products)[..]);
}
