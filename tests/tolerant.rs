//! Tolerant mode of the handwritten JSON and MessagePack readers: a missing
//! key takes its field's zero value, where the strict decoder refuses it;
//! everything else (unknown keys skipped, wrong types, duplicates, the
//! model's rules) behaves as in strict mode.

use wirebench::codec::{json, msgpack};
use wirebench::model::{Catalog, Status};

/// One product with only the keys a v2 writer that dropped most fields would
/// still send, plus an unknown key.
const SPARSE_JSON: &str = r#"{"products":[{"id":7,"sku":"SKU-7","currency":"THB","brand":"Acme","dimensions":{"width_mm":3},"variants":[{"sku":"V"}]}]}"#;

fn sparse_msgpack() -> Vec<u8> {
    // The same document, written by serde_json's value → rmp-serde.
    let v: serde_json::Value = serde_json::from_str(SPARSE_JSON).unwrap();
    rmp_serde::to_vec_named(&v).unwrap()
}

fn check_defaults(c: &Catalog) {
    let p = &c.products[0];
    assert_eq!((p.id, p.sku.as_str(), p.currency.as_str()), (7, "SKU-7", "THB"));
    assert_eq!((p.name.as_str(), p.price_cents, p.stock, p.in_stock), ("", 0, 0, false));
    assert_eq!(p.status, Status::Active);
    assert_eq!(p.discount_percent, None);
    assert_eq!((p.dimensions.width_mm, p.dimensions.weight_g), (3, 0));
    assert_eq!((p.variants[0].sku.as_str(), p.variants[0].price_cents), ("V", 0));
}

#[test]
fn json_missing_keys_take_defaults_only_when_tolerant() {
    let strict = json::decode(SPARSE_JSON.as_bytes()).unwrap_err().to_string();
    assert!(strict.contains("missing field"), "{strict}");
    check_defaults(&json::decode_tolerant(SPARSE_JSON.as_bytes()).unwrap());
}

#[test]
fn msgpack_missing_keys_take_defaults_only_when_tolerant() {
    let bytes = sparse_msgpack();
    let strict = msgpack::decode(&bytes).unwrap_err().to_string();
    assert!(strict.contains("missing field"), "{strict}");
    check_defaults(&msgpack::decode_tolerant(&bytes).unwrap());
}

#[test]
fn a_missing_products_key_is_an_empty_catalog_when_tolerant() {
    assert!(json::decode(b"{}").is_err());
    assert_eq!(json::decode_tolerant(b"{}").unwrap().products.len(), 0);
    let empty_map = [0x80u8];
    assert!(msgpack::decode(&empty_map).is_err());
    assert_eq!(msgpack::decode_tolerant(&empty_map).unwrap().products.len(), 0);
}

#[test]
fn tolerance_stops_at_missing_keys() {
    // Each document would be valid in tolerant mode but for one thing.
    assert!(json::decode_tolerant(br#"{"products":[{"id":7,"currency":"THB"}]}"#).is_ok());
    for (doc, want) in [
        // Wrong type.
        (r#"{"products":[{"id":"7","currency":"THB"}]}"#, "id"),
        // The model's rules: an id of 0 (the default of a missing id) is invalid.
        (r#"{"products":[{"sku":"S","currency":"THB"}]}"#, "id"),
        // A discount the model forbids.
        (
            r#"{"products":[{"id":1,"currency":"THB","discount_percent":0}]}"#,
            "discount_percent",
        ),
    ] {
        let e = json::decode_tolerant(doc.as_bytes()).unwrap_err().to_string();
        assert!(e.contains(want), "{doc}: {e}");
        let v: serde_json::Value = serde_json::from_str(doc).unwrap();
        let m = rmp_serde::to_vec_named(&v).unwrap();
        let e = msgpack::decode_tolerant(&m).unwrap_err().to_string();
        assert!(e.contains(want), "{doc}: {e}");
    }
    // A duplicate key (serde_json's map would drop it, so JSON only).
    let e = json::decode_tolerant(br#"{"products":[{"id":7,"id":8,"currency":"THB"}]}"#)
        .unwrap_err()
        .to_string();
    assert!(e.contains("duplicate"), "{e}");
}

#[test]
fn full_catalogs_read_the_same_in_both_modes() {
    let c = wirebench::fixtures::catalog(50);
    let j = wirebench::codec::Format::Json.encode_to_vec(&c.products).unwrap();
    assert_eq!(json::decode_tolerant(&j).unwrap(), json::decode(&j).unwrap());
    let m = wirebench::codec::Format::Msgpack.encode_to_vec(&c.products).unwrap();
    assert_eq!(msgpack::decode_tolerant(&m).unwrap(), msgpack::decode(&m).unwrap());
}
