//! MessagePack codec, byte level: every width boundary with exact bytes,
//! every non-canonical width accepted, errors as `(input, "message at byte N")`
//! tables, crafted hostile inputs (huge lengths, deep nesting) that must fail
//! without allocating (checked under `ulimit -v`, like `tests/protobuf.rs`),
//! and the files in `fixtures/hostile/msgpack-*.bin`.
//!
//! Offsets in the tables: a catalog built by [`catalog_of`] starts
//! `81 a8 "products" 91` (11 bytes), so its product map is at byte 11 and,
//! with a map 16 header, the first key at byte 14 and the first value at
//! `15 + key.len()`. Tests put the field under test first.

mod support;
use support::memlimit;

use wirebench::codec::cursor::Cursor;
use wirebench::codec::msgpack::{self, read, write};
use wirebench::fixtures;
use wirebench::model::{Catalog, Product};

// ---------------------------------------------------------------------------
// Encoding: every width boundary, exact bytes; decoding reads them back.

fn bytes_of(f: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut out = Vec::new();
    f(&mut out);
    out
}

/// `v` encodes to exactly `want`, and `want` reads back as `v`.
fn check_int(v: i64, want: &[u8]) {
    assert_eq!(bytes_of(|o| write::write_int(o, v)), want, "encode {v}");
    let mut cur = Cursor::new(want);
    assert_eq!(
        read::read_int(&mut cur, &read::PRODUCT[0]).unwrap(),
        v,
        "decode {want:02x?}"
    );
    assert!(cur.finish().is_ok());
}

#[test]
fn integer_width_boundaries() {
    let cases: &[(i64, &[u8])] = &[
        (0, &[0x00]),
        (127, &[0x7f]), // last positive fixint
        (128, &[0xcc, 0x80]),
        (255, &[0xcc, 0xff]),
        (256, &[0xcd, 0x01, 0x00]),
        (65_535, &[0xcd, 0xff, 0xff]),
        (65_536, &[0xce, 0x00, 0x01, 0x00, 0x00]),
        (4_294_967_295, &[0xce, 0xff, 0xff, 0xff, 0xff]),
        (4_294_967_296, &[0xcf, 0, 0, 0, 1, 0, 0, 0, 0]),
        (i64::MAX, &[0xcf, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
        (-1, &[0xff]),
        (-32, &[0xe0]), // last negative fixint
        (-33, &[0xd0, 0xdf]),
        (-128, &[0xd0, 0x80]),
        (-129, &[0xd1, 0xff, 0x7f]),
        (-32_768, &[0xd1, 0x80, 0x00]),
        (-32_769, &[0xd2, 0xff, 0xff, 0x7f, 0xff]),
        (i32::MIN as i64, &[0xd2, 0x80, 0x00, 0x00, 0x00]),
        (
            i32::MIN as i64 - 1,
            &[0xd3, 0xff, 0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff],
        ),
        (i64::MIN, &[0xd3, 0x80, 0, 0, 0, 0, 0, 0, 0]),
    ];
    for &(v, want) in cases {
        check_int(v, want);
    }
    // The unsigned writer alone reaches u64::MAX, which no i64 field accepts.
    let write::Scalar(b, n) = write::uint_bytes(u64::MAX);
    let max = b.to_le_bytes()[..n].to_vec();
    assert_eq!(max, [0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]);
    assert_eq!(
        read::read_int(&mut Cursor::new(&max), &read::PRODUCT[0])
            .unwrap_err()
            .to_string(),
        "id out of range: 18446744073709551615 at byte 0"
    );
}

#[test]
fn string_width_boundaries() {
    let cases: &[(usize, &[u8])] = &[
        (0, &[0xa0]),
        (31, &[0xbf]), // last fixstr
        (32, &[0xd9, 0x20]),
        (255, &[0xd9, 0xff]),
        (256, &[0xda, 0x01, 0x00]),
        (65_535, &[0xda, 0xff, 0xff]),
        (65_536, &[0xdb, 0x00, 0x01, 0x00, 0x00]),
    ];
    for &(len, header) in cases {
        let s = "x".repeat(len);
        let out = bytes_of(|o| write::write_str(o, &s).unwrap());
        assert_eq!(&out[..header.len()], header, "str of {len}");
        assert_eq!(out.len(), header.len() + len);
        let mut cur = Cursor::new(&out);
        assert_eq!(read::read_str(&mut cur, &read::PRODUCT[1]).unwrap(), s);
    }
}

#[test]
fn array_and_map_width_boundaries() {
    let cases: &[(usize, &[u8], &[u8])] = &[
        (0, &[0x90], &[0x80]),
        (15, &[0x9f], &[0x8f]), // last fixarray / fixmap
        (16, &[0xdc, 0x00, 0x10], &[0xde, 0x00, 0x10]),
        (31, &[0xdc, 0x00, 0x1f], &[0xde, 0x00, 0x1f]),
        (32, &[0xdc, 0x00, 0x20], &[0xde, 0x00, 0x20]),
        (255, &[0xdc, 0x00, 0xff], &[0xde, 0x00, 0xff]),
        (256, &[0xdc, 0x01, 0x00], &[0xde, 0x01, 0x00]),
        (65_535, &[0xdc, 0xff, 0xff], &[0xde, 0xff, 0xff]),
        (65_536, &[0xdd, 0x00, 0x01, 0x00, 0x00], &[0xdf, 0x00, 0x01, 0x00, 0x00]),
        (
            u32::MAX as usize,
            &[0xdd, 0xff, 0xff, 0xff, 0xff],
            &[0xdf, 0xff, 0xff, 0xff, 0xff],
        ),
    ];
    for &(n, array, map) in cases {
        assert_eq!(
            bytes_of(|o| write::write_array_len(o, n, "a").unwrap()),
            array,
            "array of {n}"
        );
        assert_eq!(
            bytes_of(|o| write::write_map_len(o, n, "m").unwrap()),
            map,
            "map of {n}"
        );
    }
}

/// Doc example and a few scalars, byte for byte.
#[test]
fn small_values_exact_bytes() {
    let mut out = vec![0x81];
    write::write_str(&mut out, "id").unwrap();
    write::write_int(&mut out, 1);
    assert_eq!(out, [0x81, 0xa2, 0x69, 0x64, 0x01]); // {"id":1}, the module doc example
    assert_eq!(
        bytes_of(|o| write::write_f64(o, 4.5)),
        [0xcb, 0x40, 0x12, 0, 0, 0, 0, 0, 0]
    );
    assert_eq!(bytes_of(|o| write::write_bool(o, true)), [0xc3]);
    assert_eq!(bytes_of(|o| write::write_bool(o, false)), [0xc2]);
    assert_eq!(bytes_of(write::write_nil), [0xc0]);
    let empty = bytes_of(|o| msgpack::encode(&[], o).unwrap());
    assert_eq!(empty, b"\x81\xa8products\x90");
}

#[test]
fn encode_appends_to_the_buffer() {
    let mut out = vec![0xaa];
    msgpack::encode(&fixtures::catalog(1).products, &mut out).unwrap();
    assert_eq!(out[0], 0xaa);
    assert_eq!(&out[1..4], b"\x81\xa8p");
}

// ---------------------------------------------------------------------------
// Crafted catalogs: one product as a list of (key, raw value bytes).

type Pairs = Vec<(&'static str, Vec<u8>)>;

fn int(v: i64) -> Vec<u8> {
    bytes_of(|o| write::write_int(o, v))
}

fn str_(s: &str) -> Vec<u8> {
    bytes_of(|o| write::write_str(o, s).unwrap())
}

fn map(pairs: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut out = bytes_of(|o| write::write_map_len(o, pairs.len(), "m").unwrap());
    for (k, v) in pairs {
        write::write_str(&mut out, k).unwrap();
        out.extend_from_slice(v);
    }
    out
}

/// The 17 pairs of `p` in field order (docs/SPEC.md, "Field order"), each value in its canonical encoding.
fn pairs_of(p: &Product) -> Pairs {
    let d = &p.dimensions;
    let mut tags = bytes_of(|o| write::write_array_len(o, p.tags.len(), "t").unwrap());
    p.tags.iter().for_each(|t| tags.extend(str_(t)));
    let mut variants = bytes_of(|o| write::write_array_len(o, p.variants.len(), "v").unwrap());
    for v in &p.variants {
        variants.extend(map(&[
            ("sku", str_(&v.sku)),
            ("color", str_(&v.color)),
            ("size", str_(&v.size)),
            ("price_cents", int(v.price_cents)),
            ("stock", int(v.stock.into())),
        ]));
    }
    vec![
        ("id", int(p.id)),
        ("sku", str_(&p.sku)),
        ("name", str_(&p.name)),
        ("description", str_(&p.description)),
        ("price_cents", int(p.price_cents)),
        ("currency", str_(&p.currency)),
        ("rating", bytes_of(|o| write::write_f64(o, p.rating))),
        ("review_count", int(p.review_count.into())),
        ("in_stock", vec![if p.in_stock { 0xc3 } else { 0xc2 }]),
        ("stock", int(p.stock.into())),
        ("status", str_(p.status.as_str())),
        ("tags", tags),
        (
            "dimensions",
            map(&[
                ("width_mm", int(d.width_mm.into())),
                ("height_mm", int(d.height_mm.into())),
                ("depth_mm", int(d.depth_mm.into())),
                ("weight_g", int(d.weight_g.into())),
            ]),
        ),
        ("variants", variants),
        (
            "discount_percent",
            p.discount_percent.map_or(vec![0xc0], |v| int(v.into())),
        ),
        ("created_at_ms", int(p.created_at_ms)),
        ("image_url", str_(&p.image_url)),
    ]
}

/// `{"products": [map of pairs]}` with the product map header chosen by the caller.
fn catalog_with_header(header: &[u8], pairs: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut out = b"\x81\xa8products\x91".to_vec();
    out.extend_from_slice(header);
    for (k, v) in pairs {
        write::write_str(&mut out, k).unwrap();
        out.extend_from_slice(v);
    }
    out
}

/// `{"products": [map of pairs]}` with the smallest map header.
fn catalog_of(pairs: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let header = bytes_of(|o| write::write_map_len(o, pairs.len(), "m").unwrap());
    catalog_with_header(&header, pairs)
}

/// Product 1's pairs with `first` moved to the front (replacing the same key,
/// or added if the key is new).
fn with_first(first: &[(&'static str, &[u8])]) -> Vec<u8> {
    let mut pairs = pairs_of(&fixtures::product(1));
    for &(key, value) in first.iter().rev() {
        pairs.retain(|(k, _)| *k != key);
        pairs.insert(0, (key, value.to_vec()));
    }
    catalog_of(&pairs)
}

fn product1_with(f: impl FnOnce(&mut Product)) -> Catalog {
    let mut p = fixtures::product(1);
    f(&mut p);
    Catalog { products: vec![p] }
}

#[test]
fn builder_reproduces_the_encoder() {
    let p = fixtures::product(1);
    assert_eq!(catalog_of(&pairs_of(&p)), fixtures_bytes(1));
}

fn fixtures_bytes(n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    msgpack::encode(&fixtures::catalog(n).products, &mut out).unwrap();
    out
}

/// Non-canonical widths, other key orders and unknown keys all decode.
#[test]
fn accepted_inputs() {
    let base = pairs_of(&fixtures::product(1));
    let one = fixtures::catalog(1);
    let mut reversed = base.clone();
    reversed.reverse();
    let sku = fixtures::product(1).sku;
    let mut sku32 = vec![0xdb, 0, 0, 0, sku.len() as u8];
    sku32.extend_from_slice(sku.as_bytes());
    let mut tags32 = vec![0xdd, 0, 0, 0, 1];
    tags32.extend(str_("x"));
    let cases: Vec<(&str, Vec<u8>, Catalog)> = vec![
        ("canonical", catalog_of(&base), one.clone()),
        (
            "id as uint 64",
            with_first(&[("id", &[0xcf, 0, 0, 0, 0, 0, 0, 0, 1])]),
            one.clone(),
        ),
        (
            "id as int 64",
            with_first(&[("id", &[0xd3, 0, 0, 0, 0, 0, 0, 0, 1])]),
            one.clone(),
        ),
        ("id as int 8", with_first(&[("id", &[0xd0, 0x01])]), one.clone()),
        (
            "product as map 32",
            catalog_with_header(&[0xdf, 0, 0, 0, 17], &base),
            one.clone(),
        ),
        (
            "product as map 16 (explicit)",
            catalog_with_header(&[0xde, 0, 17], &base),
            one.clone(),
        ),
        ("keys in reverse order", catalog_of(&reversed), one.clone()),
        ("sku as str 32", with_first(&[("sku", &sku32)]), one.clone()),
        (
            "tags as array 32",
            with_first(&[("tags", &tags32)]),
            product1_with(|p| p.tags = vec!["x".into()]),
        ),
        (
            "rating as float 32",
            with_first(&[("rating", &[0xca, 0x40, 0x90, 0, 0])]), // 4.5f32
            product1_with(|p| p.rating = 4.5),
        ),
        (
            "discount as int 16",
            with_first(&[("discount_percent", &[0xd1, 0x00, 0x0a])]),
            product1_with(|p| p.discount_percent = Some(10)),
        ),
        (
            "dimensions as map 16, keys reversed",
            with_first(&[(
                "dimensions",
                &[b"\xde\x00\x04\xa8weight_g\x01\xa8depth_mm\x02\xa9height_mm\x03\xa8width_mm\x04".as_slice()].concat(),
            )]),
            product1_with(|p| {
                p.dimensions = wirebench::model::Dimensions {
                    width_mm: 4,
                    height_mm: 3,
                    depth_mm: 2,
                    weight_g: 1,
                }
            }),
        ),
        (
            "unknown keys of every type skipped",
            with_first(&[
                ("bin", &[0xc4, 0x02, 0xff, 0x00]),
                ("ext", &[0xc7, 0x01, 0x05, 0xaa]),
                ("fixext", &[0xd8, 0x01, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
                ("nested", b"\x92\x81\xa1k\x93\xc0\xc3\xcb\x7f\xf8\0\0\0\0\0\0\x80"),
                ("u64", &[0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]),
            ]),
            one.clone(),
        ),
    ];
    for (what, bytes, want) in cases {
        let got = msgpack::decode(&bytes).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(got, want, "{what}");
    }
    // Unknown keys in the catalog map, before and after "products".
    let mut root = b"\x83\xa1a\xc0\xa8products".to_vec();
    root.extend_from_slice(&fixtures_bytes(1)[10..]);
    root.extend_from_slice(b"\xa1z\x90");
    assert_eq!(msgpack::decode(&root).unwrap(), one);
}

// ---------------------------------------------------------------------------
// Errors: (input, message) tables.

fn check_err(input: &[u8], want: &str) {
    if let Err(problem) = try_err(input, want) {
        panic!("{problem}");
    }
}

/// `Err(description)` unless decoding `input` fails with exactly `want`.
fn try_err(input: &[u8], want: &str) -> Result<(), String> {
    match msgpack::decode(input) {
        Ok(_) => Err(format!("{want}: decoded without error")),
        Err(e) if e.to_string() != want => Err(format!("want {want}\n got {e}")),
        Err(_) => Ok(()),
    }
}

/// Runs a whole table and reports every mismatch at once.
fn check_table<I: AsRef<[u8]>, W: AsRef<str>>(cases: &[(I, W)]) {
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|(input, want)| try_err(input.as_ref(), want.as_ref()).err())
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn errors_in_fields() {
    let nan = [0xcb, 0x7f, 0xf8, 0, 0, 0, 0, 0, 0];
    let inf = [0xcb, 0x7f, 0xf0, 0, 0, 0, 0, 0, 0];
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (
            with_first(&[("id", &[0xcf, 0x80, 0, 0, 0, 0, 0, 0, 0])]),
            "id out of range: 9223372036854775808 at byte 17",
        ),
        (
            with_first(&[("id", b"\xa1x")]),
            "expected an integer for `id`, found fixstr (0xa1) at byte 17",
        ),
        (
            with_first(&[("id", &[0xc1])]),
            "expected an integer for `id`, found reserved marker (0xc1) at byte 17",
        ),
        (
            with_first(&[("id", &[0xc0])]),
            "expected an integer for `id`, found nil (0xc0) at byte 17",
        ),
        (
            b"\x81\xa8products\x91\x81\xa2id\xcd\x01".to_vec(),
            "unexpected end of input, expected an integer for `id` at byte 17",
        ),
        (
            with_first(&[("review_count", &[0xce, 0x80, 0, 0, 0])]),
            "review_count out of range: 2147483648 at byte 27",
        ),
        (
            with_first(&[("stock", &[0xd3, 0xff, 0xff, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff])]),
            "stock out of range: -2147483649 at byte 20",
        ),
        (
            with_first(&[("stock", &[0xc0])]),
            "expected an integer for `stock`, found nil (0xc0) at byte 20",
        ),
        (with_first(&[("rating", &nan)]), "rating out of range: NaN at byte 21"),
        (with_first(&[("rating", &inf)]), "rating out of range: inf at byte 21"),
        (
            with_first(&[("rating", &[0x04])]),
            "expected a float for `rating`, found positive fixint (0x04) at byte 21",
        ),
        (
            with_first(&[("status", b"\xa8archived")]),
            "unknown status value \"archived\" at byte 21",
        ),
        (
            with_first(&[("status", b"\xa6ACTIVE")]),
            "unknown status value \"ACTIVE\" at byte 21",
        ),
        (
            with_first(&[("status", &[0x00])]),
            "expected a string for `status`, found positive fixint (0x00) at byte 21",
        ),
        (
            with_first(&[("sku", b"\xa2\xc3\x28")]),
            "invalid UTF-8 in string at byte 19",
        ),
        (
            with_first(&[("name", b"\xa3ab\xff")]),
            "invalid UTF-8 in string at byte 22",
        ),
        (
            with_first(&[("tags", b"\xa0")]),
            "expected an array for `tags`, found fixstr (0xa0) at byte 19",
        ),
        (
            with_first(&[("tags", b"\x91\x01")]),
            "expected a string for `tags[]`, found positive fixint (0x01) at byte 20",
        ),
        (
            with_first(&[("in_stock", &[0x01])]),
            "expected a bool for `in_stock`, found positive fixint (0x01) at byte 23",
        ),
        (
            with_first(&[("dimensions", &[0x90])]),
            "expected a map for `dimensions`, found fixarray (0x90) at byte 25",
        ),
        (
            with_first(&[("dimensions", b"\x81\xa8width_mm\xc0")]),
            "expected an integer for `dimensions.width_mm`, found nil (0xc0) at byte 35",
        ),
        (
            with_first(&[("dimensions", b"\x81\xa8width_mm\x01")]),
            "missing field `dimensions.height_mm` at byte 25",
        ),
        (
            with_first(&[("variants", b"\x91\x80")]),
            "missing field `variants[].sku` at byte 24",
        ),
        (
            with_first(&[("variants", b"\x91\x81\xa5stock\xa1x")]),
            "expected an integer for `variants[].stock`, found fixstr (0xa1) at byte 31",
        ),
        (
            with_first(&[("discount_percent", &[0xcc, 0xc8])]),
            "invalid data: products[0].discount_percent: must be absent or in 1..=90, found 200 at byte 11",
        ),
        (
            with_first(&[("discount_percent", &[0xc2])]),
            "expected nil or an integer for `discount_percent`, found false (0xc2) at byte 31",
        ),
        (
            with_first(&[("rating", &[0xcb, 0x40, 0x1e, 0, 0, 0, 0, 0, 0])]),
            "invalid data: products[0].rating: must be finite and in 0.0..=5.0, found 7.5 at byte 11",
        ),
        (
            with_first(&[("x", &[0xc1])]),
            "expected a MessagePack value, found reserved marker (0xc1) at byte 16",
        ),
        (with_first(&[("x", b"\xa1\xff")]), "invalid UTF-8 in string at byte 17"),
        (
            with_first(&[("id", &[0x00])]),
            "invalid data: products[0].id: must be >= 1, found 0 at byte 11",
        ),
    ];
    check_table(&cases);
}

#[test]
fn errors_in_structure() {
    let base = pairs_of(&fixtures::product(1));
    let mut missing = base.clone();
    missing.pop();
    let mut duplicate = base.clone();
    duplicate.insert(0, ("id", vec![0x01]));
    let mut trailing = fixtures_bytes(1);
    trailing.push(0x00);
    let mut bad_key = catalog_of(&base);
    bad_key[14] = 0x01; // the first key ("id") becomes an integer
    let mut two = fixtures_bytes(2);
    let second_at = 11
        + 3
        + pairs_of(&fixtures::product(1))
            .iter()
            .map(|(k, v)| 1 + k.len() + v.len())
            .sum::<usize>();
    assert_eq!(two[second_at + 3..second_at + 6], *b"\xa2id");
    two[second_at + 6] = 0x01; // product 2 gets id 1
    let dup_id = format!("invalid data: products[1].id: duplicate id 1 at byte {second_at}");
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (vec![], "unexpected end of input, expected the catalog map at byte 0"),
        (
            vec![0xc1],
            "expected the catalog map, found reserved marker (0xc1) at byte 0",
        ),
        (b"\x80".to_vec(), "missing field `products` at byte 0"),
        (
            b"\x81\xa8products\x90\x00".to_vec(),
            "1 trailing bytes after the root value at byte 11",
        ),
        (trailing, "1 trailing bytes after the root value at byte 550"),
        (
            b"\x82\xa8products\x90\xa8products\x90".to_vec(),
            "duplicate field `products` at byte 11",
        ),
        (
            b"\x81\xa8products\x80".to_vec(),
            "expected an array for `products`, found fixmap (0x80) at byte 10",
        ),
        (
            b"\x81\xa8products\x91\x90".to_vec(),
            "expected a product map, found fixarray (0x90) at byte 11",
        ),
        (
            b"\x81\x01\x02".to_vec(),
            "expected a string key in the catalog map, found positive fixint (0x01) at byte 1",
        ),
        (
            bad_key,
            "expected a string key in a product map, found positive fixint (0x01) at byte 14",
        ),
        (catalog_of(&missing), "missing field `image_url` at byte 11"),
        (catalog_of(&duplicate), "duplicate field `id` at byte 18"),
        (two, &dup_id),
        (
            b"\x81\xa8products\xdc\x00".to_vec(),
            "unexpected end of input, expected an array for `products` at byte 12",
        ),
    ];
    check_table(&cases);
}

/// Length prefixes of 2^31 and 0xFFFFFFFF in every 32-bit family: an error
/// at the end of the prefix (the offset [`Cursor::take`] reports).
const HUGE_LENGTHS: &[(&[u8], &str)] = &[
    (
        b"\x81\xdb\x80\x00\x00\x00",
        "string length of 2147483648 exceeds the 0 bytes remaining at byte 6",
    ),
    (
        b"\x81\xdb\xff\xff\xff\xffab",
        "string length of 4294967295 exceeds the 2 bytes remaining at byte 6",
    ),
    (
        b"\x81\xa8products\xdd\x80\x00\x00\x00\x80",
        "array length of 2147483648 exceeds the 1 bytes remaining at byte 15",
    ),
    (
        b"\x81\xa8products\xdd\xff\xff\xff\xff",
        "array length of 4294967295 exceeds the 0 bytes remaining at byte 15",
    ),
    (
        b"\xdf\x80\x00\x00\x00",
        "map length of 2147483648 exceeds the 0 bytes remaining at byte 5",
    ),
    (
        b"\xdf\xff\xff\xff\xff\x00\x00",
        "map length of 4294967295 exceeds the 2 bytes remaining at byte 5",
    ),
    (
        b"\x81\xa8products\x91\xdf\xff\xff\xff\xff",
        "map length of 4294967295 exceeds the 0 bytes remaining at byte 16",
    ),
    (
        b"\x81\xa1x\xc6\x80\x00\x00\x00",
        "bin length of 2147483648 exceeds the 0 bytes remaining at byte 8",
    ),
    (
        b"\x81\xa1x\xc6\xff\xff\xff\xff\x00",
        "bin length of 4294967295 exceeds the 1 bytes remaining at byte 8",
    ),
    (
        b"\x81\xa1x\xc9\xff\xff\xff\xff\x01",
        "ext length of 4294967295 exceeds the 0 bytes remaining at byte 9",
    ),
    (
        b"\x81\xa1x\xdd\x80\x00\x00\x00",
        "array length of 2147483648 exceeds the 0 bytes remaining at byte 8",
    ),
    (
        b"\x81\xa1x\xdf\xff\xff\xff\xff",
        "map length of 4294967295 exceeds the 0 bytes remaining at byte 8",
    ),
    (
        b"\x81\xa1x\xdb\x80\x00\x00\x00",
        "string length of 2147483648 exceeds the 0 bytes remaining at byte 8",
    ),
];

/// The same prefixes inside a product (description, tags), by offset.
fn check_huge_lengths_in_a_product() {
    let e = msgpack::decode(&with_first(&[("description", &[0xdb, 0xff, 0xff, 0xff, 0xff])])).unwrap_err();
    assert_eq!(e.offset, 14 + 12 + 5);
    let e = msgpack::decode(&with_first(&[("tags", &[0xdd, 0x80, 0, 0, 0])])).unwrap_err();
    assert_eq!(
        (e.offset, e.to_string().starts_with("array length of 2147483648")),
        (19 + 5, true)
    );
}

#[test]
fn huge_lengths_are_errors() {
    check_table(HUGE_LENGTHS);
    check_huge_lengths_in_a_product();
}

/// Huge prefixes are refused before anything of that size is allocated:
/// the test binary re-runs itself with its address space capped at 1 GiB,
/// where allocating 2 GiB fails and aborts the process (no custom allocator,
/// so no `unsafe` in tests; the pattern of `tests/protobuf.rs`).
#[cfg(unix)]
#[test]
fn huge_lengths_fail_without_allocating() {
    memlimit::run_child_under_1gib("huge_length_child");
}

#[test]
#[ignore = "run by huge_lengths_fail_without_allocating under `ulimit -v`"]
fn huge_length_child() {
    memlimit::assert_limit_in_force();
    check_table(HUGE_LENGTHS);
    check_huge_lengths_in_a_product();
}

/// Deeply nested unknown values: `DepthLimit` at the first container past
/// `read::MAX_DEPTH`, no stack overflow (100,000 levels, both kinds).
#[test]
fn deep_nesting_is_an_error() {
    assert_eq!(read::MAX_DEPTH, 128);
    let mut arrays = b"\x81\xa1x".to_vec();
    arrays.extend(std::iter::repeat_n(0x91, 100_000));
    // The value of "x" sits inside 1 container (the catalog map), so the array
    // at byte 3 + k is at depth 1 + k; the one at depth 128 may not open.
    check_err(&arrays, "nesting deeper than 128 levels at byte 130");
    let mut maps = b"\x81\xa1x".to_vec();
    for _ in 0..100_000 {
        maps.extend_from_slice(b"\x81\xa0"); // {"": {"": …}}
    }
    check_err(
        &maps,
        &format!("nesting deeper than 128 levels at byte {}", 3 + 2 * 127),
    );
    // In a product map (3 containers deep) the limit is the same total depth.
    let deep = vec![0x91; 100_000];
    check_err(
        &with_first(&[("x", &deep)]),
        "nesting deeper than 128 levels at byte 141",
    );
    // Just under the limit is fine: 125 arrays in a product's unknown key.
    let mut ok = vec![0x91; 124];
    ok.push(0x90);
    assert_eq!(
        msgpack::decode(&with_first(&[("x", &ok)])).unwrap(),
        fixtures::catalog(1)
    );
}

/// Every `fixtures/hostile/msgpack-*.bin` is an error with the recorded message.
#[test]
fn hostile_files() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/hostile");
    let cases = [
        (
            "msgpack-str32-length-2pow31.bin",
            "string length of 2147483648 exceeds the 0 bytes remaining at byte 6",
        ),
        (
            "msgpack-array32-length-ffffffff.bin",
            "array length of 4294967295 exceeds the 0 bytes remaining at byte 15",
        ),
        (
            "msgpack-map32-length-ffffffff.bin",
            "map length of 4294967295 exceeds the 0 bytes remaining at byte 5",
        ),
        (
            "msgpack-bin32-length-2pow31-unknown-key.bin",
            "bin length of 2147483648 exceeds the 0 bytes remaining at byte 8",
        ),
        (
            "msgpack-nested-arrays-10000-unknown-key.bin",
            "nesting deeper than 128 levels at byte 130",
        ),
        (
            "msgpack-reserved-marker-c1.bin",
            "expected the catalog map, found reserved marker (0xc1) at byte 0",
        ),
    ];
    let mut listed: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("msgpack-"))
        .collect();
    listed.sort();
    let mut named: Vec<String> = cases.iter().map(|(n, _)| n.to_string()).collect();
    named.sort();
    assert_eq!(listed, named, "every msgpack hostile file has an expected message");
    for (name, want) in cases {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        check_err(&bytes, want);
    }
}
