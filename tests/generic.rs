//! The schema-driven codecs (src/generic) against the catalog's specialised
//! ones: with `schemas/catalog.avsc`, the generic JSON, MessagePack and Avro
//! bytes equal the specialised bytes, and each generic decoder reads the
//! specialised bytes back to the same datum.

use wirebench::codec::{self, Format};
use wirebench::fixtures;
use wirebench::generic::{self, datum::Datum, schema::Schema};

fn catalog_schema() -> Schema {
    Schema::parse(&std::fs::read("schemas/catalog.avsc").unwrap()).unwrap()
}

fn specialised(format: Format, products: &[wirebench::model::Product]) -> Vec<u8> {
    let mut out = Vec::new();
    match format {
        Format::Json => codec::json::encode(products, &mut out).unwrap(),
        Format::Msgpack => codec::msgpack::encode(products, &mut out).unwrap(),
        Format::Avro => codec::avro::encode(products, &mut out).unwrap(),
        _ => unreachable!(),
    }
    out
}

/// Enum symbols as the schema spells them (the JSON text spells them lowercase).
fn canonical_symbols(d: &Datum, schema_symbols: &[&str]) -> Datum {
    match d {
        Datum::Enum(i, _) => Datum::Enum(*i, schema_symbols[*i as usize].into()),
        Datum::Union(i, v) => Datum::Union(*i, Box::new(canonical_symbols(v, schema_symbols))),
        Datum::Array(xs) => Datum::Array(xs.iter().map(|x| canonical_symbols(x, schema_symbols)).collect()),
        Datum::Map(m) => Datum::Map(
            m.iter()
                .map(|(k, v)| (k.clone(), canonical_symbols(v, schema_symbols)))
                .collect(),
        ),
        Datum::Record(m) => Datum::Record(
            m.iter()
                .map(|(k, v)| (k.clone(), canonical_symbols(v, schema_symbols)))
                .collect(),
        ),
        other => other.clone(),
    }
}

const SYMBOLS: [&str; 3] = ["ACTIVE", "DRAFT", "DISCONTINUED"];

#[test]
fn catalog_bytes_are_identical_to_the_specialised_codecs() {
    let schema = catalog_schema();
    let text = std::fs::read(fixtures::CANONICAL_PATH).unwrap();
    let datum = generic::json::decode(&schema, &text).unwrap();
    let catalog = codec::json::decode(&text).unwrap();
    for format in [Format::Json, Format::Msgpack, Format::Avro] {
        let want = specialised(format, &catalog.products);
        let mut got = Vec::new();
        generic::encode(format, &schema, &datum, &mut got).unwrap();
        assert!(
            got == want,
            "{}: generic bytes differ ({} vs {} bytes)",
            format.name(),
            got.len(),
            want.len()
        );
        let back = generic::decode(format, &schema, &want).unwrap();
        assert_eq!(
            canonical_symbols(&back, &SYMBOLS),
            canonical_symbols(&datum, &SYMBOLS),
            "{}",
            format.name()
        );
    }
}

#[test]
fn random_catalogs_are_identical_too() {
    let schema = catalog_schema();
    for seed in 0..20 {
        let catalog = fixtures::random_catalog(seed);
        let json = specialised(Format::Json, &catalog.products);
        let datum = generic::json::decode(&schema, &json).unwrap();
        for format in [Format::Json, Format::Msgpack, Format::Avro] {
            let mut got = Vec::new();
            generic::encode(format, &schema, &datum, &mut got).unwrap();
            assert!(
                got == specialised(format, &catalog.products),
                "seed {seed} {}",
                format.name()
            );
        }
    }
}

#[test]
fn self_test_a_changed_value_changes_the_bytes() {
    // The comparison above can fail: one changed stock makes every format differ.
    let schema = catalog_schema();
    let catalog = fixtures::catalog(2);
    let json = specialised(Format::Json, &catalog.products);
    let mut datum = generic::json::decode(&schema, &json).unwrap();
    if let Datum::Record(f) = &mut datum
        && let Datum::Array(ps) = &mut f.values_mut()[0]
        && let Datum::Record(p) = &mut ps[0]
    {
        *p.value_mut("stock").unwrap() = Datum::Int(12345);
    }
    for format in [Format::Json, Format::Msgpack, Format::Avro] {
        let mut got = Vec::new();
        generic::encode(format, &schema, &datum, &mut got).unwrap();
        assert!(got != specialised(format, &catalog.products), "{}", format.name());
    }
}
