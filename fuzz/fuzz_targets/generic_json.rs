#![no_main]
//! The schema-driven json decoder (src/generic) on hostile bytes: the first
//! byte picks a schema (0: schemas/catalog.avsc, else one of the seeded
//! random schemas of `wirebench::generic::random`); the rest is the payload.
//! Property: an error or a datum, never a panic, a hang or unbounded
//! allocation; a datum encodes, and its bytes decode back to it.
//! Run: `make fuzz FUZZ_TARGETS=generic_json`.

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use wirebench::codec::Format;
use wirebench::generic::{self, random, schema::Schema};

const FORMAT: Format = Format::Json;
/// Schemas to pick from: the catalog's and this many random ones.
const RANDOM_SCHEMAS: u64 = 63;

fn schemas() -> &'static Vec<Schema> {
    static SCHEMAS: OnceLock<Vec<Schema>> = OnceLock::new();
    SCHEMAS.get_or_init(|| {
        let catalog = Schema::parse(wirebench::codec::avro::SCHEMA.as_bytes()).expect("catalog schema parses");
        let mut all = vec![catalog];
        all.extend((0..RANDOM_SCHEMAS).map(|seed| random::schema(seed).1));
        all
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, payload)) = data.split_first() else { return };
    let schemas = schemas();
    let schema = &schemas[pick as usize % schemas.len()];
    if let Ok(d) = generic::decode(FORMAT, schema, payload) {
        let mut bytes = Vec::new();
        if generic::encode(FORMAT, schema, &d, &mut bytes).is_ok() {
            let again = generic::decode(FORMAT, schema, &bytes).expect("our own bytes decode");
            assert!(again == d || format!("{again:?}") == format!("{d:?}"), "re-decoded datum differs");
        }
    }
});
