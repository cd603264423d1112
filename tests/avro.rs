//! Avro decoder on crafted input: `(input, "message at byte N")` error tables,
//! the legal-but-unusual shapes it must accept (negative block counts with
//! byte sizes, several blocks), the files in `fixtures/hostile/avro-*.bin`, and
//! one small product's every byte, encoded and decoded ([`SMALL`]), with the
//! schema's field order checked against the code's.
//!
//! Inputs are built from one minimal valid product ([`FIELDS`]) with a single
//! field's bytes replaced, so each row shows exactly what is wrong.

use std::path::PathBuf;
use wirebench::codec::avro;
use wirebench::model::{Catalog, Dimensions, Product, Status, Variant};

/// The smallest valid product, field by field (bytes in schema order).
/// Offsets in a one-product catalog: the product starts at byte 1.
const FIELDS: [(&str, &[u8]); 17] = [
    ("id", &[0x02]),                           // byte 1: 1
    ("sku", &[0x02, b'S']),                    // 2: "S"
    ("name", &[0x00]),                         // 4: ""
    ("description", &[0x00]),                  // 5: ""
    ("price_cents", &[0x00]),                  // 6: 0
    ("currency", &[0x06, b'T', b'H', b'B']),   // 7: "THB"
    ("rating", &[0, 0, 0, 0, 0, 0, 0, 0]),     // 11: 0.0
    ("review_count", &[0x00]),                 // 19: 0
    ("in_stock", &[0x01]),                     // 20: true
    ("stock", &[0x02]),                        // 21: 1
    ("status", &[0x00]),                       // 22: ACTIVE
    ("tags", &[0x00]),                         // 23: []
    ("dimensions", &[0x00, 0x00, 0x00, 0x00]), // 24: 0 0 0 0
    ("variants", &[0x00]),                     // 28: []
    ("discount_percent", &[0x00]),             // 29: null
    ("created_at_ms", &[0x00]),                // 30: 0
    ("image_url", &[0x00]),                    // 31: ""
];

/// The minimal product's bytes with `field` replaced by `bytes`.
fn product_with(field: &str, bytes: &[u8]) -> Vec<u8> {
    assert!(FIELDS.iter().any(|(f, _)| *f == field), "no field {field}");
    FIELDS
        .iter()
        .flat_map(|&(f, b)| if f == field { bytes } else { b })
        .copied()
        .collect()
}

/// A one-product catalog with `field` replaced: `02`, the product, `00`.
fn catalog_with(field: &str, bytes: &[u8]) -> Vec<u8> {
    let mut out = vec![0x02];
    out.extend(product_with(field, bytes));
    out.push(0x00);
    out
}

fn minimal() -> Vec<u8> {
    catalog_with("id", &[0x02])
}

fn minimal_product(id: i64) -> Product {
    Product {
        id,
        sku: "S".into(),
        name: String::new(),
        description: String::new(),
        price_cents: 0,
        currency: "THB".into(),
        rating: 0.0,
        review_count: 0,
        in_stock: true,
        stock: 1,
        status: Status::Active,
        tags: Vec::new(),
        dimensions: Dimensions::default(),
        variants: Vec::new(),
        discount_percent: None,
        created_at_ms: 0,
        image_url: String::new(),
    }
}

/// LEB128 of a raw u64 (no zigzag), to craft any varint.
fn raw(mut v: u64) -> Vec<u8> {
    let mut out = Vec::new();
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
    out
}

/// Zigzag LEB128 of a long, as Avro writes it.
fn long(v: i64) -> Vec<u8> {
    raw(((v << 1) ^ (v >> 63)) as u64)
}

fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

fn check_ok(input: &[u8], want: &Catalog) {
    match avro::decode(input) {
        Ok(c) => assert_eq!(&c, want, "input {input:02x?}"),
        Err(e) => panic!("rejected {input:02x?}: {e}"),
    }
}

#[test]
fn minimal_product_decodes() {
    assert_eq!(minimal().len(), 33);
    check_ok(
        &minimal(),
        &Catalog {
            products: vec![minimal_product(1)],
        },
    );
}

#[test]
fn error_table() {
    let with = catalog_with;
    let cases: Vec<(Vec<u8>, String)> =
        vec![
        (vec![], "unexpected end of input, expected products block count at byte 0".into()),
        // Lengths beyond the input: refused before any allocation.
        (
            with("name", &long(1 << 31)),
            "name length of 2147483648 exceeds the 28 bytes remaining at byte 9".into(),
        ),
        (
            with("name", &long(i64::MAX)),
            "name length of 9223372036854775807 exceeds the 28 bytes remaining at byte 14".into(),
        ),
        (
            with("image_url", &long(1 << 62)),
            "image_url length of 4611686018427387904 exceeds the 1 bytes remaining at byte 41".into(),
        ),
        (with("name", &long(-1)), "name length out of range: -1 at byte 4".into()),
        (
            with("name", &long(i64::MIN)),
            "name length out of range: -9223372036854775808 at byte 4".into(),
        ),
        (with("name", &[0x04, b'a', 0xff]), "invalid UTF-8 in string at byte 6".into()),
        (with("sku", &[0x04, 0xc3, b'(']), "invalid UTF-8 in string at byte 3".into()),
        // Varints: 11 bytes, or a 10th byte that overflows 64 bits.
        (
            with("id", &[0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00]),
            "id out of range: varint longer than 64 bits at byte 1".into(),
        ),
        (
            with("id", &[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02]),
            "id out of range: varint longer than 64 bits at byte 1".into(),
        ),
        // int fields hold a long on the wire but must fit i32.
        (
            with("review_count", &long(1 << 31)),
            "review_count out of range: 2147483648 at byte 19".into(),
        ),
        (
            with("stock", &long(i64::from(i32::MIN) - 1)),
            "stock out of range: -2147483649 at byte 21".into(),
        ),
        (
            with("dimensions", &cat(&[&[0, 0, 0], &long(i64::MAX)])),
            "dimensions.weight_g out of range: 9223372036854775807 at byte 27".into(),
        ),
        (
            with("discount_percent", &cat(&[&[0x02], &long(1 << 40)])),
            "discount_percent out of range: 1099511627776 at byte 30".into(),
        ),
        // Boolean, enum and union indexes.
        (with("in_stock", &[0x02]), "expected boolean byte 0x00 or 0x01, found 0x02 at byte 20".into()),
        (with("in_stock", &[0xff]), "expected boolean byte 0x00 or 0x01, found 0xff at byte 20".into()),
        (with("status", &long(3)), "unknown Status value 3 at byte 22".into()),
        (with("status", &long(-1)), "unknown Status value -1 at byte 22".into()),
        (
            with("discount_percent", &long(2)),
            "expected discount_percent union branch 0 (null) or 1 (int), found branch 2 at byte 29".into(),
        ),
        (
            with("discount_percent", &long(-1)),
            "expected discount_percent union branch 0 (null) or 1 (int), found branch -1 at byte 29".into(),
        ),
        // Doubles: NaN and infinities are not ratings.
        (
            with("rating", &f64::NAN.to_le_bytes()),
            "rating out of range: NaN at byte 11".into(),
        ),
        (
            with("rating", &f64::NEG_INFINITY.to_le_bytes()),
            "rating out of range: -inf at byte 11".into(),
        ),
        // Truncated inside `rating` (a name long enough that the product
        // passes the block count's minimum-size check first).
        (
            with("name", &cat(&[&long(20), &[b'n'; 20]]))[..34].to_vec(),
            "unexpected end of input, expected rating at byte 34".into(),
        ),
        (
            minimal()[..14].to_vec(),
            "products block count of 1 exceeds the 13 bytes remaining at byte 1".into(),
        ),
        // Block counts: beyond the input at the item's minimum size.
        (
            long(1_000),
            "products block count of 1000 exceeds the 0 bytes remaining at byte 2".into(),
        ),
        (
            with("variants", &long(1 << 40)),
            "variants block count of 1099511627776 exceeds the 4 bytes remaining at byte 34".into(),
        ),
        // i64::MIN block count: |count| = 2^63 must not overflow.
        (
            cat(&[&long(i64::MIN), &[0x00]]),
            "products block count of 9223372036854775808 exceeds the 0 bytes remaining at byte 11".into(),
        ),
        // Negative count: its byte size must be >= 0, fit, and be exact.
        (long(-1), "unexpected end of input, expected block byte size at byte 1".into()),
        (cat(&[&long(-1), &long(-1)]), "block byte size out of range: -1 at byte 1".into()),
        (
            cat(&[&long(-1), &long(1 << 40)]),
            "block byte size of 1099511627776 exceeds the 0 bytes remaining at byte 7".into(),
        ),
        (
            cat(&[&long(-1), &long(5), &product_with("id", &[0x02]), &[0x00]]),
            "expected a block byte size equal to the bytes of its items, found size 5, items took 31 bytes at byte 2"
                .into(),
        ),
        // Model rules, at the offset of the product (or of the block count).
        (
            with("id", &long(0)),
            "invalid data: products[0].id: must be >= 1, found 0 at byte 1".into(),
        ),
        (
            with("currency", &[0x06, b'u', b's', b'd']),
            "invalid data: products[0].currency: must be a 3-letter ISO 4217 code, found \"usd\" at byte 1".into(),
        ),
        (
            with("rating", &5.5f64.to_le_bytes()),
            "invalid data: products[0].rating: must be finite and in 0.0..=5.0, found 5.5 at byte 1".into(),
        ),
        (
            with("tags", &cat(&[&long(6), &[0; 6], &[0x00]])),
            "invalid data: products[0].tags: at most 5 items, found 6 at byte 23".into(),
        ),
        (
            with("tags", &cat(&[&long(3), &[0; 3], &long(3), &[0; 3], &[0x00]])),
            "invalid data: products[0].tags: at most 5 items, found at least 6 at byte 27".into(),
        ),
        (
            with("variants", &cat(&[&long(4), &[0; 20], &[0x00]])),
            "invalid data: products[0].variants: at most 3 items, found 4 at byte 28".into(),
        ),
        (
            cat(&[&long(2), &product_with("id", &[0x02]), &product_with("id", &[0x02]), &[0x00]]),
            "invalid data: products[1].id: duplicate id 1 at byte 32".into(),
        ),
        (
            cat(&[&minimal(), &[0x00]]),
            "1 trailing bytes after the root value at byte 33".into(),
        ),
    ];
    let mut wrong = Vec::new();
    for (input, want) in cases {
        match avro::decode(&input) {
            Ok(c) => wrong.push(format!("accepted {input:02x?} as {c:?}; wanted {want:?}")),
            Err(e) if e.to_string() != want => {
                wrong.push(format!("{input:02x?}\n   got {:?}\n  want {want:?}", e.to_string()))
            }
            Err(_) => {}
        }
    }
    assert!(wrong.is_empty(), "{} rows failed:\n{}", wrong.len(), wrong.join("\n"));
}

#[test]
fn accepts_every_legal_blocking() {
    let p = |id| product_with("id", &long(id));
    let two = Catalog {
        products: vec![minimal_product(1), minimal_product(2)],
    };
    // One block of -2 items with its byte size (31 + 31).
    check_ok(&cat(&[&long(-2), &long(62), &p(1), &p(2), &[0x00]]), &two);
    // Two blocks of 1, the second negative with its size.
    check_ok(&cat(&[&long(1), &p(1), &long(-1), &long(31), &p(2), &[0x00]]), &two);
    // Tags in three blocks (two of them negative), variants as -1 with size.
    let mut want = minimal_product(1);
    want.tags = vec!["a".into(), "b".into(), "c".into()];
    want.variants = vec![Variant {
        sku: "v".into(),
        color: String::new(),
        size: String::new(),
        price_cents: 7,
        stock: 0,
    }];
    let tags = cat(&[
        &long(1),
        b"\x02a",
        &long(-1),
        &long(2),
        b"\x02b",
        &long(-1),
        &long(2),
        b"\x02c",
        &[0],
    ]);
    let variant = cat(&[b"\x02v", &[0, 0], &long(7), &[0]]);
    let variants = cat(&[&long(-1), &long(variant.len() as i64), &variant, &[0]]);
    let mut bytes = vec![0x02];
    for (f, b) in FIELDS {
        match f {
            "tags" => bytes.extend_from_slice(&tags),
            "variants" => bytes.extend_from_slice(&variants),
            _ => bytes.extend_from_slice(b),
        }
    }
    bytes.push(0x00);
    check_ok(&bytes, &Catalog { products: vec![want] });
    // Overlong but in-range varints are legal LEB128: id 1 in 3 bytes.
    check_ok(
        &catalog_with("id", &[0x82, 0x80, 0x00]),
        &Catalog {
            products: vec![minimal_product(1)],
        },
    );
}

/// Regression files: each must decode to exactly this error, never panic.
#[test]
fn hostile_files() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/hostile");
    let expected = [
        (
            "avro-string-length-2pow31.bin",
            "name length of 2147483648 exceeds the 28 bytes remaining at byte 9",
        ),
        (
            "avro-string-length-i64max.bin",
            "name length of 9223372036854775807 exceeds the 28 bytes remaining at byte 14",
        ),
        (
            "avro-block-count-i64min.bin",
            "products block count of 9223372036854775808 exceeds the 0 bytes remaining at byte 11",
        ),
        (
            "avro-tags-block-count-2pow62.bin",
            "tags block count of 4611686018427387904 exceeds the 9 bytes remaining at byte 33",
        ),
        (
            "avro-negative-block-size.bin",
            "block byte size out of range: -1 at byte 1",
        ),
        (
            "avro-varint-11-bytes.bin",
            "id out of range: varint longer than 64 bits at byte 1",
        ),
    ];
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("avro-") && n.ends_with(".bin"))
        .collect();
    files.sort();
    let mut listed: Vec<String> = expected.iter().map(|(f, _)| f.to_string()).collect();
    listed.sort();
    assert_eq!(files, listed, "every fixtures/hostile/avro-*.bin has a row here");
    for (file, want) in expected {
        let bytes = std::fs::read(dir.join(file)).unwrap();
        let got =
            std::panic::catch_unwind(|| avro::decode(&bytes)).unwrap_or_else(|_| panic!("{file}: decoder panicked"));
        assert_eq!(got.unwrap_err().to_string(), want, "{file}");
    }
}

/// Writes the hostile files from the same builders (run once with
/// `UPDATE_HOSTILE=1 cargo test --test avro`), so each file's bytes are
/// explained by the code that made it.
#[test]
fn hostile_files_are_what_their_builders_make() {
    let files: [(&str, Vec<u8>); 6] = [
        ("avro-string-length-2pow31.bin", catalog_with("name", &long(1 << 31))),
        ("avro-string-length-i64max.bin", catalog_with("name", &long(i64::MAX))),
        ("avro-block-count-i64min.bin", cat(&[&long(i64::MIN), &[0x00]])),
        ("avro-tags-block-count-2pow62.bin", catalog_with("tags", &long(1 << 62))),
        ("avro-negative-block-size.bin", cat(&[&long(-1), &long(-1)])),
        (
            "avro-varint-11-bytes.bin",
            catalog_with(
                "id",
                &[0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00],
            ),
        ),
    ];
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/hostile");
    for (name, bytes) in files {
        let path = dir.join(name);
        if std::env::var_os("UPDATE_HOSTILE").is_some_and(|v| v == "1") {
            std::fs::write(&path, &bytes).unwrap();
        }
        assert_eq!(std::fs::read(&path).unwrap(), bytes, "{name}");
    }
}

fn small() -> Product {
    Product {
        id: 1,
        sku: "S".into(),
        name: "ab".into(),
        description: String::new(),
        price_cents: 300,
        currency: "THB".into(),
        rating: 4.5,
        review_count: 0,
        in_stock: true,
        stock: 1,
        status: Status::Draft,
        tags: vec!["new".into(), "eco".into()],
        dimensions: Dimensions {
            width_mm: 1,
            height_mm: 2,
            depth_mm: 3,
            weight_g: 4,
        },
        variants: vec![Variant {
            sku: "v".into(),
            color: "red".into(),
            size: "M".into(),
            price_cents: -1,
            stock: 64,
        }],
        discount_percent: Some(15),
        created_at_ms: -64,
        image_url: "u".into(),
    }
}

/// Every byte of a one-product catalog, field by field.
#[rustfmt::skip]
const SMALL: &[u8] = &[
    0x02,                                     // products: block of 1 item
    0x02,                                     // id 1
    0x02, b'S',                               // sku "S"
    0x04, b'a', b'b',                         // name "ab"
    0x00,                                     // description ""
    0xd8, 0x04,                               // price_cents 300 (zigzag 600)
    0x06, b'T', b'H', b'B',                   // currency "THB"
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x12, 0x40, // rating 4.5 LE
    0x00,                                     // review_count 0
    0x01,                                     // in_stock true
    0x02,                                     // stock 1
    0x02,                                     // status DRAFT (index 1)
    0x04, 0x06, b'n', b'e', b'w', 0x06, b'e', b'c', b'o', 0x00, // tags
    0x02, 0x04, 0x06, 0x08,                   // dimensions 1, 2, 3, 4
    0x02,                                     // variants: block of 1
    0x02, b'v', 0x06, b'r', b'e', b'd', 0x02, b'M', // sku, color, size
    0x01,                                     // price_cents -1
    0x80, 0x01,                               // stock 64 (zigzag 128)
    0x00,                                     // end of variants
    0x02, 0x1e,                               // discount_percent: branch int, 15
    0x7f,                                     // created_at_ms -64
    0x02, b'u',                               // image_url "u"
    0x00,                                     // end of products
];

#[test]
fn encodes_exact_bytes() {
    let mut out = Vec::new();
    avro::encode(&[small()], &mut out).unwrap();
    assert_eq!(out, SMALL);
}

#[test]
fn empty_catalog_is_one_zero_byte() {
    let mut out = vec![0xaa];
    avro::encode(&[], &mut out).unwrap();
    assert_eq!(out, [0xaa, 0x00], "encode appends");
    assert_eq!(avro::decode(&[0x00]).unwrap(), Catalog::default());
}

#[test]
fn decodes_exact_bytes() {
    // Price -1 on a variant breaks the model, so the decoder must say so.
    let err = avro::decode(SMALL).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid data: products[0].variants[0].price_cents: must be >= 0, found -1 at byte 1"
    );
    let mut ok = small();
    ok.variants[0].price_cents = 1;
    let mut bytes = SMALL.to_vec();
    assert_eq!(bytes[49], 0x01, "variant price_cents -1");
    bytes[49] = 0x02; // variant price_cents 1
    assert_eq!(avro::decode(&bytes).unwrap(), Catalog { products: vec![ok] });
}

#[test]
fn schema_lists_fields_in_code_order() {
    let quoted = |names: &str| names.split(' ').map(|n| format!("\"{n}\"")).collect::<Vec<_>>();
    let mut fields = quoted("products id sku name description price_cents currency rating review_count in_stock");
    fields.extend(quoted("stock status"));
    fields.push(r#""ACTIVE", "DRAFT", "DISCONTINUED""#.into());
    fields.extend(quoted(
        "tags dimensions width_mm height_mm depth_mm weight_g variants color size",
    ));
    fields.push(r#""discount_percent", "type": ["null", "int"], "default": null"#.into());
    fields.extend(quoted("created_at_ms image_url"));
    let mut from = 0;
    for f in &fields {
        let at = avro::SCHEMA[from..]
            .find(f.as_str())
            .unwrap_or_else(|| panic!("{f} missing or out of order in {}", avro::SCHEMA_FILE));
        from += at + f.len();
    }
}

#[test]
fn errors_carry_offsets() {
    // One product announced, none of its (at least 27) bytes present.
    assert_eq!(
        avro::decode(&[0x02]).unwrap_err().to_string(),
        "products block count of 1 exceeds the 0 bytes remaining at byte 1"
    );
    let mut truncated = SMALL.to_vec();
    truncated[49] = 0x02; // a valid variant price, so the product validates
    truncated.truncate(58);
    assert_eq!(
        avro::decode(&truncated).unwrap_err().to_string(),
        "unexpected end of input, expected products block count at byte 58"
    );
}
