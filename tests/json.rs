//! The JSON parser on inputs our encoder never writes: errors as
//! `(input, "message at byte N")` tables, and the liberal side of RFC 8259
//! (whitespace everywhere, any key order, unknown keys with nested values,
//! every escape) as inputs that must decode to the expected catalog.

use wirebench::codec::json::{decode, encode};
use wirebench::fixtures;
use wirebench::model::Catalog;

/// A small valid catalog with one product; cases edit it with [`with`].
const ONE: &str = r#"{"products":[{"id":1,"sku":"S","name":"N","description":"D","price_cents":0,"currency":"USD","rating":4.5,"review_count":0,"in_stock":true,"stock":0,"status":"draft","tags":[],"dimensions":{"width_mm":0,"height_mm":0,"depth_mm":0,"weight_g":0},"variants":[{"sku":"V","color":"red","size":"M","price_cents":5,"stock":1}],"created_at_ms":0,"image_url":""}]}"#;

/// `ONE` with the text `from` (which must occur once) replaced by `to`.
fn with(from: &str, to: &str) -> Vec<u8> {
    assert_eq!(ONE.matches(from).count(), 1, "{from:?} must occur once in ONE");
    ONE.replacen(from, to, 1).into_bytes()
}

/// `ONE` with bytes `from` (which must occur once) replaced by `to`.
fn with_bytes(from: &[u8], to: &[u8]) -> Vec<u8> {
    let one = ONE.as_bytes();
    let at = one.windows(from.len()).position(|w| w == from).unwrap();
    [&one[..at], to, &one[at + from.len()..]].concat()
}

/// The one helper every error case goes through.
fn check_err(input: &[u8], want: &str) {
    match decode(input) {
        Ok(c) => panic!("expected error {want:?}, decoded {} products", c.products.len()),
        Err(e) => assert_eq!(e.to_string(), want, "input {:?}", String::from_utf8_lossy(input)),
    }
}

fn nested(prefix: &str, open: &str, depth: usize) -> Vec<u8> {
    let mut s = prefix.as_bytes().to_vec();
    for _ in 0..depth {
        s.extend_from_slice(open.as_bytes());
    }
    s
}

#[test]
fn errors_say_what_and_where() {
    let cases: Vec<(Vec<u8>, &str)> = vec![
        // Structure.
        (
            b"".to_vec(),
            "unexpected end of input, expected '{' (start of the catalog) at byte 0",
        ),
        (
            b"  [ ]".to_vec(),
            "expected '{' (start of the catalog), found '[' at byte 2",
        ),
        (b"{}".to_vec(), "missing field `products` at byte 1"),
        (
            br#"{"products":[],"products":[]}"#.to_vec(),
            "duplicate field `products` at byte 15",
        ),
        (
            br#"{"products":[]} x"#.to_vec(),
            "1 trailing bytes after the root value at byte 16",
        ),
        (
            br#"{"products":[]}{}"#.to_vec(),
            "2 trailing bytes after the root value at byte 15",
        ),
        (
            br#"{"products":["#.to_vec(),
            "unexpected end of input, expected '{' (start of a product) at byte 13",
        ),
        (
            br#"{"products":[],}"#.to_vec(),
            "expected string (object key), found '}' at byte 15",
        ),
        (
            br#"{"products" []}"#.to_vec(),
            "expected ':' after object key, found '[' at byte 12",
        ),
        (
            br#"{"products":[] "x":1}"#.to_vec(),
            "expected ',' or '}' after object member, found '\"' at byte 15",
        ),
        (
            br#"{"x":[1,],"products":[]}"#.to_vec(),
            "expected JSON value, found ']' at byte 8",
        ),
        (
            br#"{"x":[1 2],"products":[]}"#.to_vec(),
            "expected ',' or ']' after array element, found '2' at byte 8",
        ),
        (
            br#"{"x":tru,"products":[]}"#.to_vec(),
            "expected JSON value, found 't' at byte 5",
        ),
        (
            br#"{"x":"abc"#.to_vec(),
            "unexpected end of input, expected closing '\"' of string at byte 9",
        ),
        // Nesting: 100,000 levels inside an unknown key is one error, no stack overflow.
        (
            nested(r#"{"x":"#, "[", 100_000),
            "nesting deeper than 128 levels at byte 132",
        ),
        (
            nested(r#"{"x":"#, r#"{"a":"#, 100_000),
            "nesting deeper than 128 levels at byte 640",
        ),
        (
            nested(r#"{"products":[{"x":"#, "[", 100_000),
            "nesting deeper than 128 levels at byte 143",
        ),
        // Strings: UTF-8, control characters, escapes, surrogates.
        (
            with(r#""N""#, "\"N\u{7}\""),
            "expected string character (control characters must be escaped), found byte 0x07 at byte 40",
        ),
        (
            with(r#""N""#, r#""N\x""#),
            "expected escape character (one of \" \\ / b f n r t u), found 'x' at byte 41",
        ),
        (
            with(r#""N""#, r#""\u12G4""#),
            "expected 4 hex digits after \\u, found 'G' at byte 43",
        ),
        (
            with(r#""N""#, r#""\ud800""#),
            "lone UTF-16 surrogate \\uD800 at byte 39",
        ),
        (
            with(r#""N""#, r#""\ud800x""#),
            "lone UTF-16 surrogate \\uD800 at byte 39",
        ),
        (
            with(r#""N""#, r#""\ud800\u0041""#),
            "lone UTF-16 surrogate \\uD800 at byte 39",
        ),
        (
            with(r#""N""#, r#""\udc00""#),
            "lone UTF-16 surrogate \\uDC00 at byte 39",
        ),
        (
            with(r#""N""#, r#""\ud83d\ud83d""#),
            "lone UTF-16 surrogate \\uD83D at byte 39",
        ),
        (
            (*b"{\"\xff\":1,\"products\":[]}").to_vec(),
            "invalid UTF-8 in string at byte 2",
        ),
        (
            (*b"{\"products\":[{\"z\\u00e9\xff\":1}]}").to_vec(),
            "invalid UTF-8 in string at byte 22",
        ),
        // Invalid UTF-8: a stray continuation byte, a truncated sequence
        // before the quote, an overlong '/', an encoded surrogate, > U+10FFFF.
        (with_bytes(b"\"N\"", b"\"a\x80\""), "invalid UTF-8 in string at byte 40"),
        (
            with_bytes(b"\"N\"", b"\"ab\xe0\xa4\""),
            "invalid UTF-8 in string at byte 41",
        ),
        (
            with_bytes(b"\"N\"", b"\"\xc0\xaf\""),
            "invalid UTF-8 in string at byte 39",
        ),
        (
            with_bytes(b"\"N\"", b"\"\xed\xa0\x80\""),
            "invalid UTF-8 in string at byte 39",
        ),
        (
            with_bytes(b"\"N\"", b"\"\xf4\x90\x80\x80\""),
            "invalid UTF-8 in string at byte 39",
        ),
        (
            with_bytes(b"\"N\"", b"\"ok\\n\xff\""),
            "invalid UTF-8 in string at byte 43",
        ),
        (
            with_bytes(b"\"name\"", b"\"n\xffme\""),
            "invalid UTF-8 in string at byte 33",
        ),
        // Numbers: NaN and infinities are not JSON; ranges per field type.
        (
            with("4.5", "NaN"),
            "expected number for `rating`, found 'N' at byte 102",
        ),
        (
            with("4.5", "Infinity"),
            "expected number for `rating`, found 'I' at byte 102",
        ),
        (
            with("4.5", "-Infinity"),
            "expected digit after '-', found 'I' at byte 103",
        ),
        (
            with("4.5", "1e400"),
            "`rating` (finite f64) out of range: 1e400 at byte 102",
        ),
        (with("4.5", "4."), "expected digit after '.', found ',' at byte 104"),
        (with("4.5", "4.5e"), "expected digit in exponent, found ',' at byte 106"),
        (
            with(r#""stock":0"#, r#""stock":2147483648"#),
            "`stock` (i32) out of range: 2147483648 at byte 147",
        ),
        (
            with(r#""stock":0"#, r#""stock":-2147483649"#),
            "`stock` (i32) out of range: -2147483649 at byte 147",
        ),
        (
            with(r#""id":1"#, r#""id":9223372036854775808"#),
            "`id` (i64) out of range: 9223372036854775808 at byte 19",
        ),
        (
            with(r#""id":1"#, r#""id":-9223372036854775809"#),
            "`id` (i64) out of range: -9223372036854775809 at byte 19",
        ),
        (
            with(r#""id":1"#, r#""id":123456789012345678901234567890123456789012"#),
            "`id` (i64) out of range: 123456789012345678901234567890123456789012 at byte 19",
        ),
        (
            with(r#""stock":0"#, r#""stock":1e3"#),
            "expected integer for `stock`, found 1e3 (a fraction or exponent is not an integer) at byte 147",
        ),
        (
            with(r#""stock":0"#, r#""stock":1.0"#),
            "expected integer for `stock`, found 1.0 (a fraction or exponent is not an integer) at byte 147",
        ),
        (
            with(r#""stock":0"#, r#""stock":01"#),
            "expected end of number (JSON forbids leading zeros), found '1' at byte 148",
        ),
        (
            with(r#""stock":0"#, r#""stock":"0""#),
            "expected integer for `stock`, found '\"' at byte 147",
        ),
        (
            with(r#""stock":0"#, r#""stock":-"#),
            "expected digit after '-', found ',' at byte 148",
        ),
        (
            with(r#""created_at_ms""#, r#""discount_percent":2147483648,"created_at_ms""#),
            "`discount_percent` (i32) out of range: 2147483648 at byte 339",
        ),
        (
            with(r#""created_at_ms""#, r#""discount_percent":91,"created_at_ms""#),
            "invalid data: products[0].discount_percent: must be absent or in 1..=90, found 91 at byte 13",
        ),
        (
            with(r#""created_at_ms""#, r#""discount_percent":nul,"created_at_ms""#),
            "expected integer for `discount_percent`, found 'n' at byte 339",
        ),
        // Types, enum, keys.
        (
            with(r#""sku":"S""#, r#""sku":1"#),
            "expected string for `sku`, found '1' at byte 27",
        ),
        (
            with("true", "1"),
            "expected true or false for `in_stock`, found '1' at byte 134",
        ),
        (
            with(r#""draft""#, r#""archived""#),
            "unknown status (active, draft or discontinued) value \"archived\" at byte 158",
        ),
        (
            with(r#""draft""#, r#""Draft""#),
            "unknown status (active, draft or discontinued) value \"Draft\" at byte 158",
        ),
        (
            with(r#""tags":[]"#, r#""tags":[1]"#),
            "expected string (a tag), found '1' at byte 174",
        ),
        (
            with(r#""id":1,"#, r#""id":1,"id":2,"#),
            "duplicate field `id` at byte 21",
        ),
        (
            with(r#""id":1,"#, r#""id":1,"\u0069d":2,"#),
            "duplicate field `id` at byte 21",
        ),
        (with(r#""sku":"S","#, ""), "missing field `sku` at byte 342"),
        (with(r#","weight_g":0"#, ""), "missing field `weight_g` at byte 229"),
        (with(r#","stock":1}"#, "}"), "missing field `stock` at byte 307"),
        // Model validation, reported at the product's '{'.
        (
            with(r#""stock":0"#, r#""stock":-1"#),
            "invalid data: products[0].stock: must be >= 0, found -1 at byte 13",
        ),
        (
            with("4.5", "5.5"),
            "invalid data: products[0].rating: must be finite and in 0.0..=5.0, found 5.5 at byte 13",
        ),
    ];
    let mut failures = Vec::new();
    for (input, want) in cases {
        match decode(&input) {
            Ok(_) => failures.push(format!("{want}\n   got Ok")),
            Err(e) if e.to_string() != want => failures.push(format!("{want}\n   got {e}")),
            Err(_) => {}
        }
    }
    assert!(
        failures.is_empty(),
        "{} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn duplicate_ids_are_reported_at_the_second_product() {
    let p = &ONE[13..ONE.len() - 2];
    let two = format!("{{\"products\":[{p},{p}]}}");
    check_err(
        two.as_bytes(),
        &format!("invalid data: products[1].id: duplicate id 1 at byte {}", 14 + p.len()),
    );
    // The same message model::validate_products gives for that catalog.
    let one = decode(ONE.as_bytes()).unwrap();
    let twice = [one.products[0].clone(), one.products[0].clone()];
    let model = wirebench::model::validate_products(&twice).unwrap_err();
    assert_eq!(model.to_string(), "products[1].id: duplicate id 1");
}

fn one() -> Catalog {
    decode(ONE.as_bytes()).unwrap()
}

/// Inputs that differ from our compact output but mean the same catalog.
#[test]
fn liberal_inputs_decode_to_the_same_catalog() {
    let want = one();
    let garbage = r#"{"a":[1,-2.5e-3,{"b":null,"c":[true,false,"x\u00e9\ud83d\ude00\"\\"]},[]],"d":{},"e":""}"#;
    let cases: Vec<(&str, Vec<u8>)> = vec![
        (
            "unknown key in catalog",
            with(r#"{"products""#, &format!(r#"{{"zz":{garbage},"products""#)),
        ),
        (
            "unknown key in product",
            with(r#""id":1,"#, &format!(r#""zz":{garbage},"id":1,"#)),
        ),
        (
            "unknown key last in product",
            with(r#""image_url":"""#, &format!(r#""image_url":"","zz":{garbage}"#)),
        ),
        (
            "unknown key in dimensions",
            with(r#""weight_g":0"#, &format!(r#""weight_g":0,"zz":{garbage}"#)),
        ),
        (
            "unknown key in variant",
            with(r#""color":"red","#, &format!(r#""color":"red","zz":{garbage},"#)),
        ),
        ("escaped key", with(r#""id":1"#, r#""\u0069\u0064":1"#)),
        ("rating as integer", with("4.5", "45e-1")),
        ("discount_percent absent = null", ONE.as_bytes().to_vec()),
        (
            "discount_percent null",
            with(r#""created_at_ms""#, r#""discount_percent":null,"created_at_ms""#),
        ),
        ("negative zero int", with(r#""stock":0"#, r#""stock":-0"#)),
        (
            "keys reversed",
            with(
                r#"{"sku":"V","color":"red","size":"M","price_cents":5,"stock":1}"#,
                r#"{"stock":1,"price_cents":5,"size":"M","color":"red","sku":"V"}"#,
            ),
        ),
    ];
    for (what, input) in cases {
        let got = decode(&input).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(got, want, "{what}");
    }
}

/// Every escape, decoded; surrogate pairs become one scalar value.
#[test]
fn every_escape_decodes() {
    let input = with(r#""D""#, r#""\"\\\/\b\f\n\r\t\u0000\u00e9\u20AC\ud83d\ude00 é""#);
    let c = decode(&input).unwrap();
    assert_eq!(c.products[0].description, "\"\\/\u{8}\u{c}\n\r\t\u{0}é€😀 é");
}

/// Whitespace (all four kinds) between every pair of tokens of a real catalog.
#[test]
fn whitespace_everywhere() {
    let c = fixtures::catalog(20);
    let mut compact = Vec::new();
    encode(&c.products, &mut compact).unwrap();
    let mut spaced = b" \t\r\n".to_vec();
    let mut in_string = false;
    let mut escaped = false;
    for &b in &compact {
        spaced.push(b);
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
                spaced.extend_from_slice(b"\n\t \r");
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'}' | b'[' | b']' | b':' | b',' => spaced.extend_from_slice(b" \r\n\t"),
            _ => {}
        }
    }
    assert!(spaced.len() > compact.len() + 4 * 1000);
    assert_eq!(decode(&spaced).unwrap(), c);
}

/// Keys in an order other than the field order (docs/SPEC.md, "Field order"), everywhere: serde_json's `Value`
/// (without `preserve_order`) writes object keys sorted alphabetically.
#[test]
fn key_order_shuffled() {
    let c = fixtures::catalog(20);
    let mut compact = Vec::new();
    encode(&c.products, &mut compact).unwrap();
    let value: serde_json::Value = serde_json::from_slice(&compact).unwrap();
    let sorted = serde_json::to_vec(&value).unwrap();
    assert!(sorted.starts_with(br#"{"products":[{"created_at_ms":"#));
    assert_eq!(decode(&sorted).unwrap(), c);
}

/// Every `fixtures/hostile/json-*.json` is an error with the recorded message.
#[test]
fn hostile_files() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/hostile");
    let cases = [
        (
            "json-nested-arrays-10000-unknown-key.json",
            "nesting deeper than 128 levels at byte 132",
        ),
        (
            "json-lone-high-surrogate.json",
            "lone UTF-16 surrogate \\uD800 at byte 28",
        ),
        (
            "json-lone-low-surrogate.json",
            "lone UTF-16 surrogate \\uDC00 at byte 28",
        ),
        (
            "json-invalid-utf8-overlong-slash.json",
            "invalid UTF-8 in string at byte 22",
        ),
        (
            "json-int-field-with-exponent.json",
            "expected integer for `stock`, found 1e3 (a fraction or exponent is not an integer) at byte 22",
        ),
        (
            "json-i64-overflow.json",
            "`id` (i64) out of range: 9223372036854775808 at byte 19",
        ),
        (
            "json-nan-rating.json",
            "expected number for `rating`, found 'N' at byte 23",
        ),
    ];
    let mut listed: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("json-"))
        .collect();
    listed.sort();
    let mut named: Vec<String> = cases.iter().map(|(n, _)| n.to_string()).collect();
    named.sort();
    assert_eq!(listed, named, "every fixtures/hostile/json-*.json has a row here");
    for (name, want) in cases {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        check_err(&bytes, want);
    }
}
