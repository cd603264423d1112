//! Differential tests: our Avro codec against apache-avro 0.21 (a
//! dev-dependency), in both directions, with the schema we serve
//! (`wirebench::codec::avro::SCHEMA`).
//!
//! - Our bytes equal apache-avro's datum encoding (`to_avro_datum` of a
//!   `Value` built against the parsed schema) for `catalog(1/100/1000)` and
//!   300 `random_catalog` seeds, and equal its serde path
//!   (`write_avro_datum_ref` of the shared serde mirror).
//! - apache-avro's `from_avro_datum` reads our bytes back to the same `Value`.
//! - We decode apache-avro's bytes back to the same catalog.
//!
//! Why `Value` and not a serde mirror for the reading direction: the shared
//! mirror (`tests/support/serde_mirror.rs`) spells `Status` in lowercase for
//! JSON/MessagePack, while the Avro enum symbols are `ACTIVE`/`DRAFT`/
//! `DISCONTINUED`. apache-avro's serializer writes an enum by its variant
//! *index* (so the mirror encodes correctly and we check that path), but its
//! deserializer matches symbol *names*, so reading into the mirror would fail
//! for a reason that has nothing to do with the bytes. A `Value` is also what
//! apache-avro itself decodes to, so comparing `Value`s checks every field
//! and every union/enum index with no serde layer in between.
//!
//! Blocking: both apache-avro writers put a non-empty array in one block
//! (count, items, `0`) as we do; its serde path starts a new block after 1,024
//! items, which none of these catalogs reaches (≤ 1,000 products, ≤ 5 tags).

mod support;
use support::serde_mirror;

use apache_avro::Schema;
use apache_avro::types::Value;
use serde_mirror::SCatalog;
use wirebench::codec::avro;
use wirebench::fixtures;
use wirebench::model::{Catalog, Product};

fn schema() -> Schema {
    Schema::parse_str(avro::SCHEMA).expect("schemas/catalog.avsc parses with apache-avro")
}

fn s(v: &str) -> Value {
    Value::String(v.to_string())
}

fn record(fields: Vec<(&str, Value)>) -> Value {
    Value::Record(fields.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
}

/// The catalog as an apache-avro `Value`, built by hand from the schema.
fn to_value(products: &[Product]) -> Value {
    let products = products
        .iter()
        .map(|p| {
            record(vec![
                ("id", Value::Long(p.id)),
                ("sku", s(&p.sku)),
                ("name", s(&p.name)),
                ("description", s(&p.description)),
                ("price_cents", Value::Long(p.price_cents)),
                ("currency", s(&p.currency)),
                ("rating", Value::Double(p.rating)),
                ("review_count", Value::Int(p.review_count)),
                ("in_stock", Value::Boolean(p.in_stock)),
                ("stock", Value::Int(p.stock)),
                (
                    "status",
                    Value::Enum(
                        p.status.index(),
                        ["ACTIVE", "DRAFT", "DISCONTINUED"][p.status.index() as usize].to_string(),
                    ),
                ),
                ("tags", Value::Array(p.tags.iter().map(|t| s(t)).collect())),
                (
                    "dimensions",
                    record(vec![
                        ("width_mm", Value::Int(p.dimensions.width_mm)),
                        ("height_mm", Value::Int(p.dimensions.height_mm)),
                        ("depth_mm", Value::Int(p.dimensions.depth_mm)),
                        ("weight_g", Value::Int(p.dimensions.weight_g)),
                    ]),
                ),
                (
                    "variants",
                    Value::Array(
                        p.variants
                            .iter()
                            .map(|v| {
                                record(vec![
                                    ("sku", s(&v.sku)),
                                    ("color", s(&v.color)),
                                    ("size", s(&v.size)),
                                    ("price_cents", Value::Long(v.price_cents)),
                                    ("stock", Value::Int(v.stock)),
                                ])
                            })
                            .collect(),
                    ),
                ),
                (
                    "discount_percent",
                    match p.discount_percent {
                        None => Value::Union(0, Box::new(Value::Null)),
                        Some(d) => Value::Union(1, Box::new(Value::Int(d))),
                    },
                ),
                ("created_at_ms", Value::Long(p.created_at_ms)),
                ("image_url", s(&p.image_url)),
            ])
        })
        .collect();
    record(vec![("products", Value::Array(products))])
}

/// All directions for one catalog; `name` says which one in a failure.
fn check(schema: &Schema, catalog: &Catalog, name: &str) {
    let mut ours = Vec::new();
    avro::encode(&catalog.products, &mut ours).unwrap_or_else(|e| panic!("{name}: encode: {e}"));
    let value = to_value(&catalog.products);

    // 1. Bytes: ours == apache-avro's Value writer.
    let theirs =
        apache_avro::to_avro_datum(schema, value.clone()).unwrap_or_else(|e| panic!("{name}: apache-avro encode: {e}"));
    if ours != theirs {
        let at = ours.iter().zip(&theirs).position(|(a, b)| a != b);
        panic!(
            "{name}: our bytes differ from apache-avro's at byte {at:?} (ours {} bytes, theirs {})",
            ours.len(),
            theirs.len()
        );
    }

    // 2. Bytes: ours == apache-avro's serde path (enum written by variant index).
    let mirror = SCatalog::from(catalog);
    let mut serde_bytes = Vec::new();
    apache_avro::write_avro_datum_ref(schema, &mirror, &mut serde_bytes)
        .unwrap_or_else(|e| panic!("{name}: apache-avro serde encode: {e}"));
    assert!(serde_bytes == ours, "{name}: apache-avro serde bytes differ from ours");

    // 3. apache-avro reads ours back to the same Value, consuming every byte.
    let mut reader: &[u8] = &ours;
    let read = apache_avro::from_avro_datum(schema, &mut reader, None)
        .unwrap_or_else(|e| panic!("{name}: apache-avro decode of our bytes: {e}"));
    assert!(reader.is_empty(), "{name}: apache-avro left {} bytes", reader.len());
    assert!(
        read == value,
        "{name}: apache-avro decoded our bytes to a different value"
    );

    // 4. We read theirs back to the same catalog (ratings bit for bit).
    let back = avro::decode(&theirs).unwrap_or_else(|e| panic!("{name}: our decode of apache-avro bytes: {e}"));
    for (a, b) in catalog.products.iter().zip(&back.products) {
        assert_eq!(a.rating.to_bits(), b.rating.to_bits(), "{name}: rating of id {}", a.id);
    }
    assert!(
        back == *catalog,
        "{name}: decoded apache-avro bytes differ from the catalog"
    );
}

#[test]
fn fixture_catalogs_match_apache_avro() {
    let schema = schema();
    for n in [0, 1, 100, 1000] {
        check(&schema, &fixtures::catalog(n), &format!("catalog({n})"));
    }
}

#[test]
fn random_catalogs_match_apache_avro() {
    let schema = schema();
    for seed in 0..300 {
        check(
            &schema,
            &fixtures::random_catalog(seed),
            &format!("random_catalog seed {seed}"),
        );
    }
}

/// Arrays in the other legal shapes apache-avro can read: several blocks and
/// negative counts with byte sizes. Built from apache-avro's own single-block
/// encoding of one product, so the item bytes are theirs.
#[test]
fn we_read_every_blocking_apache_avro_reads() {
    let schema = schema();
    let c = fixtures::catalog(3);
    let items: Vec<Vec<u8>> = c
        .products
        .iter()
        .map(|p| {
            let one = apache_avro::to_avro_datum(&schema, to_value(std::slice::from_ref(p))).unwrap();
            // Strip the block count `02` and the final `00`.
            one[1..one.len() - 1].to_vec()
        })
        .collect();
    let mut blocked = Vec::new();
    // Block of 1 item, then a block of -2 items with its byte size, then the end.
    blocked.push(0x02);
    blocked.extend_from_slice(&items[0]);
    blocked.push(0x03); // zigzag(-2)
    let size = (items[1].len() + items[2].len()) as i64;
    let mut z = ((size << 1) ^ (size >> 63)) as u64;
    while z >= 0x80 {
        blocked.push(z as u8 | 0x80);
        z >>= 7;
    }
    blocked.push(z as u8);
    blocked.extend_from_slice(&items[1]);
    blocked.extend_from_slice(&items[2]);
    blocked.push(0x00);
    let mut reader: &[u8] = &blocked;
    let theirs = apache_avro::from_avro_datum(&schema, &mut reader, None).unwrap();
    assert!(theirs == to_value(&c.products), "apache-avro reads the blocked form");
    assert_eq!(avro::decode(&blocked).unwrap(), c);
}
