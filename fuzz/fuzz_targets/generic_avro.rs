#![no_main]
//! The schema-driven avro decoder (src/generic) on hostile bytes: the first
//! byte picks a schema (0: schemas/catalog.avsc, else one of the seeded
//! random schemas of `wirebench::generic::random`); the rest is the payload.
//! Property: an error or a datum, never a panic, a hang or unbounded
//! allocation; a datum encodes, and its bytes decode back to it (unless it
//! holds a block of more than `ZERO_BYTE_FLOOR` zero-byte items, which a
//! payload that short may not claim).
//! Run: `make fuzz FUZZ_TARGETS=generic_avro`.

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use wirebench::codec::Format;
use wirebench::generic::avro::ZERO_BYTE_FLOOR;
use wirebench::generic::error::{GenericError, GenericErrorKind};
use wirebench::generic::{self, random, schema::Schema};

const FORMAT: Format = Format::Avro;
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
            let again = match generic::decode(FORMAT, schema, &bytes) {
                Ok(again) => again,
                // The one documented refusal of our own bytes: a block of more
                // zero-byte items (nulls, empty records) than the budget of a
                // payload that short (generic::avro::ZERO_BYTE_FLOOR).
                Err(GenericError { kind: GenericErrorKind::LengthExceedsInput { what, len, .. }, .. })
                    if what.contains("zero-byte") && len > ZERO_BYTE_FLOOR as u64 =>
                {
                    return;
                }
                Err(e) => panic!("our own bytes decode: {e:?}"),
            };
            assert!(again == d || format!("{again:?}") == format!("{d:?}"), "re-decoded datum differs");
        }
    }
});
