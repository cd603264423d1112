#![no_main]
//! `wirebench schema infer` on hostile JSON text. Property: an error, or a
//! schema that parses and reads the very document it was inferred from;
//! never a panic, a hang or unbounded allocation.
//! Run: `make fuzz FUZZ_TARGETS=schema_infer`.

use libfuzzer_sys::fuzz_target;
use wirebench::generic::{infer, json, schema::Schema};

fuzz_target!(|data: &[u8]| {
    if let Ok(inferred) = infer::infer(data) {
        let schema = Schema::parse(inferred.schema.as_bytes()).expect("an inferred schema parses");
        json::decode(&schema, data).expect("a document reads with the schema inferred from it");
    }
});
