#![no_main]
//! Avro schema parser and resolver on hostile schemas: the input up to its
//! first NUL byte is `.avsc` text, the rest a datum. A schema that parses is
//! resolved against itself and the datum read with it. Property: errors,
//! never a panic, a hang or unbounded allocation.
//! Run: `make fuzz FUZZ_TARGETS=avro_schema`.

use libfuzzer_sys::fuzz_target;
use wirebench::generic::resolve::Resolver;
use wirebench::generic::schema::Schema;

fuzz_target!(|data: &[u8]| {
    let (text, datum) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    if let Ok(schema) = Schema::parse(text) {
        let _ = Resolver::new(&schema, &schema).read(datum);
    }
});
