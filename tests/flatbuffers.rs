//! FlatBuffers codec: one tiny catalog byte for byte (hand-annotated), optional
//! scalars, the verifier against crafted hostile buffers (each as
//! `(mutation, "message at byte N")`), huge lengths and a shared-object "zip
//! bomb" refused inside the verifier, and the direct-access checksum against
//! the domain one.
//!
//! Allocation: the reader (`view.rs`) checks each object as it reads it and
//! sizes the product list by what the buffer can hold (its length over the
//! smallest product's size), so a length the buffer cannot back is never
//! allocated. Had the 2^31-element vector below reached
//! `Vec::with_capacity`, 2^31 products (over 400 GiB) would abort the test
//! binary, not return an error.

use wirebench::codec::ErrorKind;
use wirebench::codec::flatbuffers::{self as fbc, generated::wirebench as fb};
use wirebench::fixtures;
use wirebench::model::{Catalog, Dimensions, Product, Status, Variant};

/// One small product that touches every kind of field.
fn tiny_product() -> Product {
    Product {
        id: 1,
        sku: "S1".into(),
        name: "N".into(),
        description: String::new(),
        price_cents: 250,
        currency: "THB".into(),
        rating: 4.5,
        review_count: 0,
        in_stock: true,
        stock: 3,
        status: Status::Draft,
        tags: vec!["x".into()],
        dimensions: Dimensions {
            width_mm: 1,
            height_mm: 2,
            depth_mm: 3,
            weight_g: 4,
        },
        variants: vec![],
        discount_percent: None,
        created_at_ms: 0,
        image_url: String::new(),
    }
}

/// `encode(&[tiny_product()])`, annotated. Offsets are little-endian; a
/// uoffset at byte p pointing to q holds q - p; a table's soffset at t
/// pointing to its vtable at v holds t - v.
#[rustfmt::skip]
const TINY: [u8; 216] = [
    // 0: root uoffset → Catalog table at 0 + 16 = 16
    0x10, 0x00, 0x00, 0x00,
    // 4: file identifier "WBCT"
    b'W', b'B', b'C', b'T',
    // 8: padding so the vtable ends where the 4-aligned table starts
    0x00, 0x00,
    // 10: Catalog vtable: 6 bytes long, table 8 bytes, products at table+4
    0x06, 0x00, 0x08, 0x00, 0x04, 0x00,
    // 16: Catalog table: soffset 6 → vtable at 16 - 6 = 10
    0x06, 0x00, 0x00, 0x00,
    // 20: products uoffset → vector at 20 + 4 = 24
    0x04, 0x00, 0x00, 0x00,
    // 24: products vector: 1 element
    0x01, 0x00, 0x00, 0x00,
    // 28: element 0 uoffset → Product table at 28 + 44 = 72
    0x2c, 0x00, 0x00, 0x00,
    // 32: padding
    0x00, 0x00,
    // 34: Product vtable: 38 bytes (17 slots), table 84 bytes, then one u16
    //     per field: table-relative offset, 0 = absent (default or null)
    0x26, 0x00, 0x54, 0x00,
    0x38, 0x00, // id            @ +56
    0x08, 0x00, // sku           @ +8
    0x0c, 0x00, // name          @ +12
    0x10, 0x00, // description   @ +16
    0x40, 0x00, // price_cents   @ +64
    0x14, 0x00, // currency      @ +20
    0x48, 0x00, // rating        @ +72
    0x00, 0x00, // review_count  absent: 0 is the default
    0x06, 0x00, // in_stock      @ +6
    0x18, 0x00, // stock         @ +24
    0x07, 0x00, // status        @ +7
    0x1c, 0x00, // tags          @ +28
    0x20, 0x00, // dimensions    @ +32 (struct, inline)
    0x30, 0x00, // variants      @ +48
    0x00, 0x00, // discount_percent absent: null
    0x00, 0x00, // created_at_ms absent: 0 is the default
    0x34, 0x00, // image_url     @ +52
    // 72: Product table: soffset 38 → vtable at 72 - 38 = 34
    0x26, 0x00, 0x00, 0x00,
    // 76: padding, in_stock = true (+6), status = 1 DRAFT (+7)
    0x00, 0x00, 0x01, 0x01,
    // 80: sku → 156, name → 164, description → 172, currency → 180
    0x4c, 0x00, 0x00, 0x00, 0x50, 0x00, 0x00, 0x00,
    0x54, 0x00, 0x00, 0x00, 0x58, 0x00, 0x00, 0x00,
    // 96: stock = 3
    0x03, 0x00, 0x00, 0x00,
    // 100: tags → 188
    0x58, 0x00, 0x00, 0x00,
    // 104: dimensions {1, 2, 3, 4}: 16 bytes inline
    0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
    0x03, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00,
    // 120: variants → 204, image_url → 208
    0x54, 0x00, 0x00, 0x00, 0x54, 0x00, 0x00, 0x00,
    // 128: id = 1 (i64, 8-aligned)
    0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    // 136: price_cents = 250
    0xfa, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    // 144: rating = 4.5 (f64 0x4012000000000000)
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x12, 0x40,
    // 152: padding to the table's 84 bytes
    0x00, 0x00, 0x00, 0x00,
    // 156: sku: length 2, "S1", NUL, padding
    0x02, 0x00, 0x00, 0x00, b'S', b'1', 0x00, 0x00,
    // 164: name: length 1, "N", NUL, padding
    0x01, 0x00, 0x00, 0x00, b'N', 0x00, 0x00, 0x00,
    // 172: description: length 0, NUL, padding
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    // 180: currency: length 3, "THB", NUL
    0x03, 0x00, 0x00, 0x00, b'T', b'H', b'B', 0x00,
    // 188: tags vector: 1 element, uoffset → string at 192 + 4 = 196
    0x01, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00,
    // 196: "x"
    0x01, 0x00, 0x00, 0x00, b'x', 0x00, 0x00, 0x00,
    // 204: variants vector: 0 elements
    0x00, 0x00, 0x00, 0x00,
    // 208: image_url: length 0, NUL, padding
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
];

/// What `read_direct` returns, computed from domain types field for field in
/// its order: `h = h × FNV prime + value` (wrapping), strings by length,
/// signed values as their two's-complement bits.
fn checksum(products: &[Product]) -> u64 {
    let len = |s: &String| s.len() as u64;
    let mut v: Vec<u64> = Vec::new();
    for p in products {
        let (d, n) = (&p.dimensions, |x: i32| i64::from(x) as u64);
        v.extend([
            p.id as u64,
            len(&p.sku),
            len(&p.name),
            len(&p.description),
            p.price_cents as u64,
        ]);
        v.extend([
            len(&p.currency),
            p.rating.to_bits(),
            n(p.review_count),
            u64::from(p.in_stock),
        ]);
        v.extend([n(p.stock), u64::from(p.status.index()), p.tags.len() as u64]);
        v.extend(p.tags.iter().map(len));
        v.extend([
            n(d.width_mm),
            n(d.height_mm),
            n(d.depth_mm),
            n(d.weight_g),
            p.variants.len() as u64,
        ]);
        for x in &p.variants {
            v.extend([
                len(&x.sku),
                len(&x.color),
                len(&x.size),
                x.price_cents as u64,
                n(x.stock),
            ]);
        }
        match p.discount_percent {
            None => v.push(0),
            Some(x) => v.extend([1, n(x)]),
        }
        v.extend([p.created_at_ms as u64, len(&p.image_url)]);
    }
    v.into_iter()
        .fold(0, |h, x| h.wrapping_mul(0x0000_0100_0000_01b3).wrapping_add(x))
}

fn encode(products: &[Product]) -> Vec<u8> {
    let mut out = Vec::new();
    fbc::encode(products, &mut out).unwrap();
    out
}

fn tiny_catalog() -> Catalog {
    Catalog {
        products: vec![tiny_product()],
    }
}

#[test]
fn tiny_catalog_bytes() {
    let bytes = encode(&tiny_catalog().products);
    assert_eq!(bytes, TINY);
    assert_eq!(fbc::decode(&TINY).unwrap(), tiny_catalog());
}

#[test]
fn encode_appends() {
    let mut out = b"prefix".to_vec();
    fbc::encode(&tiny_catalog().products, &mut out).unwrap();
    assert_eq!(&out[..6], b"prefix");
    assert_eq!(&out[6..], TINY);
}

#[test]
fn empty_catalog() {
    let bytes = encode(&[]);
    assert_eq!(fbc::decode(&bytes).unwrap(), Catalog::default());
}

#[test]
fn optional_scalar_absent_vs_present() {
    let root = |bytes: &[u8]| -> Option<i32> {
        let c = flatbuffers::root::<fb::Catalog>(bytes).unwrap();
        c.products().get(0).discount_percent()
    };
    let slot = |bytes: &[u8]| -> u16 {
        let c = flatbuffers::root::<fb::Catalog>(bytes).unwrap();
        c.products().get(0)._tab.vtable().get(fb::Product::VT_DISCOUNT_PERCENT)
    };
    // Absent: the vtable slot is 0 (see TINY byte 66) and the accessor says None.
    assert_eq!(u16::from_le_bytes([TINY[66], TINY[67]]), 0);
    assert_eq!(root(&TINY), None);

    // Present: the slot points into the table, and even 0 (the default of a
    // plain scalar, which the builder would drop) is written and read back.
    for value in [0, 10, 90] {
        let mut p = tiny_product();
        p.discount_percent = Some(value);
        let bytes = encode(&[p.clone()]);
        assert_ne!(slot(&bytes), 0, "discount {value}");
        assert_eq!(root(&bytes), Some(value));
        if value != 0 {
            assert_eq!(fbc::decode(&bytes).unwrap().products, vec![p]);
        }
    }
}

/// Decodes `bytes` and compares the error's Display with `want`.
fn check_err(bytes: &[u8], want: &str) {
    match fbc::decode(bytes) {
        Ok(c) => panic!("expected error {want:?}, decoded {} products", c.products.len()),
        Err(e) => assert_eq!(e.to_string(), want),
    }
}

/// TINY with `patches` (offset, new little-endian bytes) applied.
fn patched(patches: &[(usize, &[u8])]) -> Vec<u8> {
    let mut b = TINY.to_vec();
    for &(at, bytes) in patches {
        b[at..at + bytes.len()].copy_from_slice(bytes);
    }
    b
}

#[test]
fn crafted_buffers_are_errors_that_say_where() {
    let u32le = |v: u32| v.to_le_bytes();
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (
            TINY[..7].to_vec(),
            "unexpected end of input, expected 4-byte root offset and 4-byte file identifier at byte 7",
        ),
        (
            patched(&[(4, b"WBCX")]),
            "expected file identifier \"WBCT\", found \"WBCX\" at byte 4",
        ),
        // Status 3 and -1 are not in the enum; the offset is the status byte.
        (patched(&[(79, &[3])]), "unknown Status value 3 at byte 79"),
        (patched(&[(79, &[0xff])]), "unknown Status value -1 at byte 79"),
        // Root offset past the end: the error is at the offset (an error's
        // offset is always inside the input).
        (
            patched(&[(0, &u32le(0xffff_fff0))]),
            "flatbuffers: bytes 4294967280..4294967284 in the root table lie outside the 216-byte buffer at byte 0",
        ),
        // products vector claims 2^31 elements (8 GiB of offsets).
        (
            patched(&[(24, &u32le(1 << 31))]),
            "flatbuffers: bytes 28..8589934620 in products lie outside the 216-byte buffer at byte 28",
        ),
        // Element 0 of products points past the end: the error is at the element.
        (
            patched(&[(28, &u32le(0x1000))]),
            "flatbuffers: bytes 4124..4128 in products[0] lie outside the 216-byte buffer at byte 28",
        ),
        // The Product table's soffset points before the buffer.
        (
            patched(&[(72, &u32le(1000))]),
            "flatbuffers: vtable offset 1000 in products[0] points outside the buffer at byte 72",
        ),
        // The tags vector claims 2^31 strings.
        (
            patched(&[(188, &u32le(1 << 31))]),
            "flatbuffers: bytes 192..8589934784 in products[0].tags lie outside the 216-byte buffer at byte 192",
        ),
        // A string length of 2^31.
        (
            patched(&[(156, &u32le(1 << 31))]),
            "flatbuffers: bytes 160..2147483808 in products[0].sku lie outside the 216-byte buffer at byte 160",
        ),
        // The sku slot of the vtable cleared: a required field is missing.
        (
            patched(&[(40, &[0, 0])]),
            "flatbuffers: missing required field products[0].sku at byte 28",
        ),
        // The dimensions slot cleared: required structs are checked too.
        (
            patched(&[(62, &[0, 0])]),
            "flatbuffers: missing required field products[0].dimensions at byte 28",
        ),
        (patched(&[(160, &[0xff])]), "invalid UTF-8 in string at byte 160"),
        (
            patched(&[(162, b"!")]),
            "flatbuffers: string of 2 bytes in products[0].sku lacks its NUL terminator at byte 162",
        ),
        // The id slot moved to an odd table offset: an unaligned i64.
        (
            patched(&[(38, &[0x39, 0x00])]),
            "flatbuffers: i64 in products[0].id is not aligned to its size at byte 129",
        ),
        // Decodes, but the model rejects it: the offset is the product table.
        (
            patched(&[(144, &7.5f64.to_le_bytes())]),
            "invalid data: products[0].rating: must be finite and in 0.0..=5.0, found 7.5 at byte 72",
        ),
    ];
    for (bytes, want) in &cases {
        check_err(bytes, want);
        // The verifier alone and the direct path reject the same structural damage.
        if !want.contains("Status") && !want.starts_with("invalid data") {
            assert!(fbc::verify(bytes).is_err(), "verify accepted: {want}");
            assert!(fbc::read_direct(bytes).is_err(), "read_direct accepted: {want}");
        }
    }
}

#[test]
fn huge_lengths_are_refused_by_the_verifier() {
    for (at, path) in [(24, "products"), (188, "products[0].tags"), (156, "products[0].sku")] {
        let bytes = patched(&[(at, &(1u32 << 31).to_le_bytes())]);
        let e = fbc::decode(&bytes).unwrap_err();
        assert!(e.to_string().contains(&format!(" in {path} lie outside")), "{e}");
        assert!(fbc::verify(&bytes).is_err(), "{path}");
    }
}

/// One product with a 16 KiB description, referenced 1,000 times from the
/// products vector: a 17 KiB buffer that would expand to 16 MB of copied
/// strings. The apparent-size limit stops it inside the verifier.
#[test]
fn shared_objects_cannot_amplify() {
    let mut fbb = flatbuffers::FlatBufferBuilder::new();
    let big = "x".repeat(16 * 1024);
    let sku = fbb.create_string("S");
    let name = fbb.create_string("N");
    let description = fbb.create_string(&big);
    let currency = fbb.create_string("USD");
    let image_url = fbb.create_string("");
    let args = fb::ProductArgs {
        id: 1,
        sku: Some(sku),
        name: Some(name),
        description: Some(description),
        currency: Some(currency),
        tags: Some(fbb.create_vector::<flatbuffers::WIPOffset<&str>>(&[])),
        dimensions: Some(&fb::Dimensions::new(1, 1, 1, 1)),
        variants: Some(fbb.create_vector::<flatbuffers::WIPOffset<fb::Variant>>(&[])),
        image_url: Some(image_url),
        ..Default::default()
    };
    let p = fb::Product::create(&mut fbb, &args);
    let list = fbb.create_vector(&vec![p; 1000]);
    let root = fb::Catalog::create(&mut fbb, &fb::CatalogArgs { products: Some(list) });
    fb::finish_catalog_buffer(&mut fbb, root);
    let bytes = fbb.finished_data();
    assert!(bytes.len() < 24 * 1024, "{} bytes", bytes.len());
    let want = format!(
        "flatbuffers: objects reached through shared offsets add up to more than {} bytes (2× the buffer) at byte 0",
        2 * bytes.len()
    );
    // The verifier's error, before any string was copied.
    assert_eq!(fbc::decode(bytes).unwrap_err().to_string(), want);
    assert!(fbc::verify(bytes).is_err());
}

/// The densest legal buffer for the verifier's apparent-size limit: products
/// whose strings and lists are all empty, so each re-counted vtable is large
/// next to the data (measured 1.36× the buffer, under the 2× limit).
#[test]
fn products_with_nothing_in_them_still_verify() {
    let products: Vec<Product> = (1..=200)
        .map(|id| Product {
            id,
            sku: String::new(),
            name: String::new(),
            description: String::new(),
            currency: "EUR".into(),
            tags: vec![],
            variants: vec![
                Variant {
                    sku: String::new(),
                    color: String::new(),
                    size: String::new(),
                    price_cents: 0,
                    stock: 0,
                };
                (id % 4) as usize
            ],
            image_url: String::new(),
            ..tiny_product()
        })
        .collect();
    let bytes = encode(&products);
    assert_eq!(fbc::decode(&bytes).unwrap().products, products);
}

#[test]
fn read_direct_sees_every_field() {
    let mut catalogs = vec![tiny_catalog(), fixtures::catalog(100)];
    catalogs.extend((0..50).map(fixtures::random_catalog));
    for (i, c) in catalogs.iter().enumerate() {
        let bytes = encode(&c.products);
        fbc::verify(&bytes).unwrap();
        assert_eq!(fbc::read_direct(&bytes).unwrap(), checksum(&c.products), "catalog #{i}");
    }
    // The checksum notices a change in any one field (here the last-read
    // field of a variant, and the optional scalar).
    let mut c = fixtures::catalog(3);
    let base = checksum(&c.products);
    c.products[2].discount_percent = match c.products[2].discount_percent {
        Some(_) => None,
        None => Some(5),
    };
    assert_ne!(checksum(&c.products), base);
    let mut c = tiny_catalog();
    c.products[0].variants.push(Variant {
        sku: "V".into(),
        color: "red".into(),
        size: "M".into(),
        price_cents: 1,
        stock: 2,
    });
    let with = checksum(&c.products);
    c.products[0].variants[0].stock = 3;
    assert_ne!(checksum(&c.products), with);
    assert_eq!(fbc::read_direct(&encode(&c.products)).unwrap(), checksum(&c.products));
}

/// The reader accepts exactly what `Product::validate` accepts: each rule broken alone (and at its
/// boundary) gives validate's error, each boundary value kept is accepted.
#[test]
fn the_model_rules_hold() {
    type Mutation = fn(&mut Product);
    let mutations: &[Mutation] = &[
        |_| {},
        |p| p.id = 0,
        |p| p.id = 1,
        |p| p.id = -5,
        |p| p.sku = "SKU-é".into(),
        |p| p.sku = String::new(),
        |p| p.price_cents = -1,
        |p| p.price_cents = 0,
        |p| p.currency = "usd".into(),
        |p| p.currency = "USDX".into(),
        |p| p.currency = "US".into(),
        |p| p.rating = f64::NAN,
        |p| p.rating = f64::INFINITY,
        |p| p.rating = -0.1,
        |p| p.rating = 5.0,
        |p| p.rating = 5.01,
        |p| p.rating = 0.0,
        |p| p.review_count = -1,
        |p| p.stock = -1,
        |p| p.stock = 0,
        |p| p.dimensions.width_mm = -1,
        |p| p.dimensions.height_mm = i32::MIN,
        |p| p.dimensions.depth_mm = -1,
        |p| p.dimensions.weight_g = -1,
        |p| p.dimensions.weight_g = 0,
        |p| p.discount_percent = Some(0),
        |p| p.discount_percent = Some(1),
        |p| p.discount_percent = Some(90),
        |p| p.discount_percent = Some(91),
        |p| p.discount_percent = None,
        |p| p.variants = vec![p.variants[0].clone(); 3],
        |p| p.variants.iter_mut().for_each(|v| v.price_cents = -1),
        |p| p.variants.iter_mut().for_each(|v| v.stock = -1),
        |p| p.variants.iter_mut().for_each(|v| v.price_cents = 0),
        |p| {
            p.id = 0;
            p.stock = -1;
        },
    ];
    for (i, m) in mutations.iter().enumerate() {
        let mut p = fixtures::product(1);
        p.variants = vec![Variant {
            sku: "V-1".into(),
            color: "red".into(),
            size: "M".into(),
            price_cents: 100,
            stock: 2,
        }];
        m(&mut p);
        let bytes = encode(std::slice::from_ref(&p));
        match (fbc::decode(&bytes), p.validate(0)) {
            (Ok(c), Ok(())) => assert_eq!(c.products, [p.clone()], "mutation {i}"),
            (Err(got), Err(want)) => {
                assert!(
                    matches!(&got.kind, ErrorKind::Invalid(e) if *e == want),
                    "mutation {i}: {got}"
                )
            }
            (got, want) => panic!("mutation {i}: decode {got:?}, validate {want:?}"),
        }
    }
}

/// A buffer laid out by another writer (objects in field order, vtables
/// shared differently) also takes the one pass.
#[test]
fn another_layout_takes_the_one_pass() {
    let c = fixtures::catalog(20);
    let mut fbb = flatbuffers::FlatBufferBuilder::new();
    let bytes = fbc::builder::build::<false>(&mut fbb, &c.products);
    assert_ne!(bytes, encode(&c.products), "the layout should differ from ours");
    assert_eq!(fbc::decode(bytes), Ok(c));
}

/// Every truncation and many single-byte changes of the encodings of a
/// few two-product catalogs.
fn damaged_buffers(mut check: impl FnMut(u64, &[u8])) {
    for seed in 0..3 {
        let mut c = fixtures::random_catalog(seed);
        c.products.truncate(2);
        let bytes = encode(&c.products);
        for n in 0..bytes.len() {
            check(seed, &bytes[..n]);
        }
        let mut m = bytes.clone();
        for i in 0..bytes.len() {
            let (b, fixed) = (bytes[i], [0x00, 0x01, 0x02, 0x04, 0x80, 0xff]);
            for v in fixed.into_iter().chain([b ^ 0x01, b ^ 0x10, b.wrapping_add(4)]) {
                m[i] = v;
                check(seed, &m);
            }
            m[i] = bytes[i];
        }
    }
}

/// The reader against the crate's verifier: what it accepts, the
/// verifier accepts and the accessors read alike; what it refuses with
/// one of the model's errors, the verifier accepts; anything else it
/// refuses with the verifier's error, never with its own placeholder
/// (`tests/views.rs` holds the view to the owned decode on such buffers).
#[test]
fn the_reader_checks_what_the_verifier_checks() {
    let (mut accepted, mut model, mut verifier) = (0, 0, 0);
    damaged_buffers(|seed, m| {
        let got = fbc::decode(m);
        match &got {
            Ok(c) => {
                assert_eq!(fbc::read_direct(m), Ok(checksum(&c.products)), "seed {seed}: {m:?}");
                accepted += 1;
            }
            Err(e) => match fbc::verify(m) {
                Ok(_) => {
                    assert!(
                        matches!(e.kind, ErrorKind::Invalid(_) | ErrorKind::UnknownEnum { .. }),
                        "seed {seed}: the verifier accepts {m:?}, the reader says {e}"
                    );
                    model += 1;
                }
                Err(v) => {
                    assert_eq!(e, &v, "seed {seed}: {m:?}");
                    verifier += 1;
                }
            },
        }
    });
    // Every outcome occurs, so no branch above is vacuous.
    assert!(
        accepted > 100 && model > 100 && verifier > 100,
        "accepted {accepted}, model errors {model}, verifier errors {verifier}"
    );
}
