//! `explain`: for every format and every golden file, the annotated spans
//! cover every byte exactly once and in order, the per-category counts add up
//! to the payload size, and the annotator — an independent reader — decodes
//! the same catalog as the real decoder. The annotated dumps of the count-1
//! catalogs are golden files (`fixtures/golden/catalog-1.<ext>.explain.txt`,
//! bless with `UPDATE_GOLDEN=1 cargo test --test explain`).

use std::path::PathBuf;
use wirebench::codec::Format;
use wirebench::explain::{self, Category, Summary};
use wirebench::fixtures;
use wirebench::generic::{self, schema::Schema};

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/golden")
}

fn golden(format: Format, count: usize) -> Vec<u8> {
    let path = golden_dir().join(format!("catalog-{count}.{}", format.extension()));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// What an annotator read (plain JSON), as the catalog's Avro bytes by the
/// schema-driven codecs: comparable with [`avro_of`] whatever the format
/// (enums by index, so `"active"` and `"ACTIVE"` read alike).
fn read_back(json: &str) -> Vec<u8> {
    let schema = Schema::parse(wirebench::codec::avro::SCHEMA.as_bytes()).unwrap();
    let datum = generic::json::decode(&schema, json.as_bytes()).unwrap_or_else(|e| panic!("{e}: {json:.200}"));
    let mut out = Vec::new();
    generic::encode(Format::Avro, &schema, &datum, &mut out).unwrap();
    out
}

/// The catalog's Avro bytes by the catalog codec.
fn avro_of(c: &wirebench::model::Catalog) -> Vec<u8> {
    Format::Avro.encode_to_vec(&c.products).unwrap()
}

/// The read-back check tells two catalogs apart.
#[test]
fn read_back_can_fail() {
    let ex = explain::explain(Format::Protobuf, &golden(Format::Protobuf, 3)).unwrap();
    let mut other = fixtures::catalog(3);
    other.products[2].stock += 1;
    assert_eq!(read_back(&ex.json), avro_of(&fixtures::catalog(3)));
    assert_ne!(read_back(&ex.json), avro_of(&other));
}

fn check(format: Format) {
    for count in [1, 3, 100] {
        let bytes = golden(format, count);
        let ex = explain::explain(format, &bytes).unwrap_or_else(|f| panic!("{format} count {count}: {}", f.error));
        // Every byte exactly once, in order.
        let mut at = 0;
        for s in &ex.spans {
            assert_eq!(
                s.offset, at,
                "{format} count {count}: span {:?} does not start where the last ended",
                s
            );
            assert!(s.len > 0, "{format}: empty span {s:?}");
            at += s.len;
        }
        assert_eq!(
            at,
            bytes.len(),
            "{format} count {count}: spans end at {at} of {}",
            bytes.len()
        );
        // Categories and fields add up to the payload.
        let sum = Summary::of(&ex);
        assert_eq!(
            sum.by_category.iter().sum::<usize>(),
            bytes.len(),
            "{format} count {count}: categories"
        );
        assert_eq!(
            sum.by_field.iter().map(|(_, n)| n).sum::<usize>(),
            bytes.len(),
            "{format} count {count}: fields"
        );
        // The independent reader agrees with the decoder and the fixture.
        let decoded = format.decode(&bytes).unwrap();
        assert_eq!(decoded, fixtures::catalog(count), "{format} count {count}: decoder");
        assert_eq!(
            read_back(&ex.json),
            avro_of(&decoded),
            "{format} count {count}: annotator and decoder disagree"
        );
    }
    // The count-1 annotated dump is a golden file.
    let text = explain::explain_text(format, &golden(format, 1), true).unwrap_or_else(|u| panic!("{}", u.error));
    let path = golden_dir().join(format!("catalog-1.{}.explain.txt", format.extension()));
    if std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v == "1") {
        std::fs::write(&path, &text).unwrap();
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; bless with UPDATE_GOLDEN=1 cargo test --test explain",
            path.display()
        )
    });
    assert!(
        text == want,
        "{format}: annotated dump differs from {}; review and bless",
        path.display()
    );
}

/// Truncations and byte changes of the count-1 golden never panic the annotator.
fn hostile(format: Format) {
    let bytes = golden(format, 1);
    for cut in 0..bytes.len() {
        let r = std::panic::catch_unwind(|| explain::explain(format, &bytes[..cut]).is_ok());
        assert!(r.is_ok(), "{format}: annotator panicked on truncation at {cut}");
    }
    let mut m = bytes.clone();
    for i in 0..bytes.len() {
        for v in [0x00, 0x7f, 0x80, 0xff, bytes[i] ^ 1] {
            m[i] = v;
            let r = std::panic::catch_unwind(|| {
                if let Ok(ex) = explain::explain(format, &m) {
                    // Whatever it accepts, it still accounts for every byte.
                    assert_eq!(ex.spans.iter().map(|s| s.len).sum::<usize>(), m.len());
                }
            });
            assert!(r.is_ok(), "{format}: annotator failed with byte {i} set to {v:#04x}");
        }
        m[i] = bytes[i];
    }
}

#[test]
fn json() {
    check(Format::Json);
    hostile(Format::Json);
}

#[test]
fn msgpack() {
    check(Format::Msgpack);
    hostile(Format::Msgpack);
}

#[test]
fn protobuf() {
    check(Format::Protobuf);
    hostile(Format::Protobuf);
}

#[test]
fn avro() {
    check(Format::Avro);
    hostile(Format::Avro);
}

#[test]
fn flatbuffers() {
    check(Format::Flatbuffers);
    hostile(Format::Flatbuffers);
}

/// Keys exist only in the self-describing formats; padding only in FlatBuffers.
#[test]
fn categories_tell_the_formats_apart() {
    let key = Category::ALL.iter().position(|c| *c == Category::Key).unwrap();
    let pad = Category::ALL.iter().position(|c| *c == Category::Padding).unwrap();
    for format in Format::ALL {
        let sum = Summary::of(&explain::explain(format, &golden(format, 3)).unwrap());
        let self_describing = matches!(format, Format::Json | Format::Msgpack);
        assert_eq!(
            sum.by_category[key] > 0,
            self_describing,
            "{format}: keys {}",
            sum.by_category[key]
        );
        if format != Format::Flatbuffers {
            assert_eq!(sum.by_category[pad], 0, "{format}: padding");
        }
    }
}

/// The cross-format table lists every field and sums to each payload's size.
#[test]
fn compare_table_covers_every_field() {
    let products = fixtures::catalog(1).products;
    let table = explain::compare_text(&products).unwrap();
    for f in explain::PRODUCT_FIELDS {
        assert!(table.contains(&format!("| {f} |")), "missing row {f}:\n{table}");
    }
    for format in Format::ALL {
        let size = format.encode_to_vec(&products).unwrap().len();
        assert!(
            table.contains(&format!("**{size}**")),
            "{format} total {size} missing:\n{table}"
        );
    }
}

/// A payload that does not parse still shows what did, and names the first bad byte.
#[test]
fn errors_point_at_the_first_bad_byte() {
    let err = explain::explain_text(Format::Json, br#"{"products":[{"id":1,}]}"#, true).unwrap_err();
    assert_eq!(err.error.to_string(), "expected a string key at byte 21");
    assert!(err.partial.contains("integer 1"), "{}", err.partial);
    for format in Format::ALL {
        let bytes = golden(format, 1);
        let cut = &bytes[..bytes.len() - 1];
        if let Err(e) = explain::explain_text(format, cut, true) {
            assert!(
                e.error.offset <= cut.len(),
                "{format}: error offset {} past the input",
                e.error.offset
            );
        }
    }
}

/// The JSON form's spans: every byte exactly once and in order, each with at
/// least one owner path naming a product below `count` (or the envelope).
fn json_spans_cover(json: &serde_json::Value, count: usize) -> Result<(), String> {
    let total = json["bytes"].as_u64().ok_or("no bytes")? as usize;
    let spans = json["spans"].as_array().ok_or("no spans")?;
    let mut at = 0;
    for s in spans {
        let (off, len) = (
            s["offset"].as_u64().unwrap_or(u64::MAX),
            s["length"].as_u64().unwrap_or(0),
        );
        if off as usize != at || len == 0 {
            return Err(format!("span at {off} (length {len}) where byte {at} was next"));
        }
        at += len as usize;
        let fields = s["fields"].as_array().ok_or("no fields")?;
        if fields.is_empty() {
            return Err(format!("span at {off} has no owner"));
        }
        for f in fields {
            let f = f.as_str().ok_or("field path is not a string")?;
            let product = f
                .strip_prefix("products[")
                .and_then(|r| r.split(']').next())
                .map(|i| i.parse::<usize>().map_err(|e| format!("{f}: {e}")))
                .transpose()?;
            match product {
                Some(i) if i >= count => return Err(format!("span at {off}: {f} is past product {count}")),
                None if f != explain::ENVELOPE => return Err(format!("span at {off}: unknown owner {f}")),
                _ => {}
            }
        }
    }
    if at != total {
        return Err(format!("spans end at {at} of {total} bytes"));
    }
    Ok(())
}

fn to_value(ex: &explain::Explained) -> serde_json::Value {
    serde_json::from_str(&explain::to_json(ex, &[])).expect("the JSON form parses")
}

/// The JSON form covers every byte exactly once for every format and golden
/// count, and carries the payload itself.
#[test]
fn json_form_covers_every_byte_once() {
    use base64::Engine as _;
    for format in Format::ALL {
        for count in [1, 3, 100] {
            let bytes = golden(format, count);
            let ex = explain::explain(format, &bytes).unwrap();
            let v = to_value(&ex);
            json_spans_cover(&v, count).unwrap_or_else(|e| panic!("{format} count {count}: {e}"));
            let payload = base64::engine::general_purpose::STANDARD
                .decode(v["payload"].as_str().unwrap())
                .unwrap();
            assert_eq!(payload, bytes, "{format} count {count}: payload");
            assert_eq!(v["spans"].as_array().unwrap().len(), ex.spans.len());
            assert_eq!(v["error"], serde_json::Value::Null);
            // The first and last products own bytes of their (never empty) strings.
            let paths: std::collections::HashSet<&str> = v["spans"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|s| s["fields"].as_array().unwrap().iter().map(|f| f.as_str().unwrap()))
                .collect();
            for i in [0, count - 1] {
                for f in ["sku", "name", "image_url"] {
                    let p = format!("products[{i}].{f}");
                    assert!(
                        paths.contains(p.as_str()),
                        "{format} count {count}: nothing owned by {p}"
                    );
                }
            }
        }
    }
}

/// The coverage check fails on a gap, an overlap, a missing owner and an
/// owner past the last product.
#[test]
fn json_coverage_check_can_fail() {
    let ex = explain::explain(Format::Msgpack, &golden(Format::Msgpack, 1)).unwrap();
    let good = to_value(&ex);
    assert!(json_spans_cover(&good, 1).is_ok());
    assert!(json_spans_cover(&good, 0).is_err(), "products[0] is past a count of 0");
    let mut gap = good.clone();
    gap["spans"].as_array_mut().unwrap().remove(3);
    assert!(json_spans_cover(&gap, 1).is_err(), "gap");
    let mut overlap = good.clone();
    let second = overlap["spans"][1].clone();
    overlap["spans"].as_array_mut().unwrap().insert(1, second);
    assert!(json_spans_cover(&overlap, 1).is_err(), "overlap");
    let mut orphan = good.clone();
    orphan["spans"][2]["fields"] = serde_json::json!([]);
    assert!(json_spans_cover(&orphan, 1).is_err(), "no owner");
    let mut short = good;
    short["bytes"] = serde_json::json!(ex.bytes.len() + 1);
    assert!(json_spans_cover(&short, 1).is_err(), "short");
}

/// Data several tables point at is credited to every one of them: FlatBuffers
/// vtables shared by tables of several products, and strings shared by
/// `create_shared_string`. The summary still counts each byte once.
#[test]
fn shared_flatbuffers_data_names_every_owner() {
    let owners_of = |ex: &explain::Explained, pick: &dyn Fn(&explain::Span) -> bool| -> Vec<Vec<String>> {
        ex.spans
            .iter()
            .filter(|s| pick(s))
            .map(|s| s.owners.iter().map(|o| o.path()).collect())
            .collect()
    };
    // Vtables: the builder shares identical vtables across products.
    let bytes = golden(Format::Flatbuffers, 100);
    let ex = explain::explain(Format::Flatbuffers, &bytes).unwrap();
    let vtables = owners_of(&ex, &|s| s.meaning.starts_with("vtable slot") && s.owners.len() > 1);
    assert!(
        vtables
            .iter()
            .any(|o| o.iter().filter(|p| p.ends_with(".name")).count() >= 2),
        "no product vtable slot shared by two products: {:?}",
        &vtables[..vtables.len().min(3)]
    );
    // Strings: equal strings stored once.
    let products = fixtures::catalog(20).products;
    let shared = wirebench::codec::flatbuffers::builder::shared(&products);
    let ex = explain::explain(Format::Flatbuffers, &shared).unwrap();
    let strings = owners_of(&ex, &|s| s.category == Category::Value && s.owners.len() > 1);
    assert!(
        strings.iter().any(|o| {
            let products: std::collections::HashSet<&str> = o.iter().map(|p| &p[..p.find(']').unwrap()]).collect();
            products.len() >= 2
        }),
        "no string shared by two products"
    );
    let v = to_value(&ex);
    json_spans_cover(&v, 20).unwrap();
    let sum = Summary::of(&ex);
    assert_eq!(sum.by_field.iter().map(|(_, n)| n).sum::<usize>(), shared.len());
    assert_eq!(read_back(&ex.json), avro_of(&fixtures::catalog(20)));
}
