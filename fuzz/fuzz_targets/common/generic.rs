//! The one body of the five schema-driven decoder targets (`generic_json`,
//! `generic_msgpack`, `generic_avro`, `generic_protobuf`,
//! `generic_flatbuffers`): the first byte picks a schema (the catalog's, a
//! record of every shape: optional, union, maps, arrays of arrays and of
//! unions, enums, fixed, recursion; an array of a union; or one of the seeded
//! random schemas of `wirebench::generic::random`); the rest is the payload.
//!
//! Properties: an error or a datum, never a panic, a hang or unbounded
//! allocation; a datum it reads, it writes, and reads back the same. The one
//! documented refusal of our own bytes: an Avro block of more zero-byte items
//! (nulls, empty records) than the budget of a payload that short
//! (`generic::avro::ZERO_BYTE_FLOOR`).

use std::sync::OnceLock;
use wirebench::codec::Format;
use wirebench::generic::avro::ZERO_BYTE_FLOOR;
use wirebench::generic::error::{GenericError, GenericErrorKind};
use wirebench::generic::{self, random, schema::Schema};

/// Random schemas beside the three fixed ones.
const RANDOM_SCHEMAS: u64 = 61;

const SHAPES: &str = r#"{"type":"record","name":"Doc","fields":[
    {"name":"id","type":"long"},{"name":"nothing","type":"null"},
    {"name":"note","type":["null","string"]},{"name":"n","type":["null","int"]},
    {"name":"grid","type":{"type":"array","items":{"type":"array","items":"double"}}},
    {"name":"maybe","type":{"type":"array","items":["null","float"]}},
    {"name":"counts","type":{"type":"map","values":["null","long"]}},
    {"name":"key","type":["long","string","null",{"type":"array","items":"boolean"}]},
    {"name":"kind","type":{"type":"enum","name":"Kind","symbols":["A","B","C"]}},
    {"name":"hash","type":{"type":"fixed","name":"H","size":4}},
    {"name":"raw","type":"bytes"},
    {"name":"next","type":["null","Doc"]},
    {"name":"kids","type":{"type":"array","items":"Doc"}}]}"#;

fn schemas() -> &'static [Schema] {
    static S: OnceLock<Vec<Schema>> = OnceLock::new();
    S.get_or_init(|| {
        let mut all: Vec<Schema> = [
            wirebench::codec::avro::SCHEMA,
            SHAPES,
            r#"{"type":"array","items":["null","double","string"]}"#,
        ]
        .iter()
        .map(|s| Schema::parse(s.as_bytes()).expect("fuzz schemas parse"))
        .collect();
        all.extend((0..RANDOM_SCHEMAS).map(|seed| random::schema(seed).1));
        all
    })
}

/// One fuzz input for `format`'s schema-driven decoder.
pub fn check(format: Format, data: &[u8]) {
    let Some((&pick, payload)) = data.split_first() else { return };
    let all = schemas();
    let schema = &all[pick as usize % all.len()];
    let Ok(d) = generic::decode(format, schema, payload) else { return };
    let mut bytes = Vec::new();
    let written = generic::encode(format, schema, &d, &mut bytes);
    // Protobuf and FlatBuffers write what they read (their readers take
    // every datum they return); the others may refuse a value a writer of
    // theirs would not make (a JSON float beyond f32, say) with an error.
    if matches!(format, Format::Protobuf | Format::Flatbuffers) {
        written.as_ref().expect("a datum read is written");
    }
    if written.is_err() {
        return;
    }
    let again = match generic::decode(format, schema, &bytes) {
        Ok(again) => again,
        Err(GenericError {
            kind: GenericErrorKind::LengthExceedsInput { what, len, .. },
            ..
        }) if what.contains("zero-byte") && len > ZERO_BYTE_FLOOR as u64 => return,
        Err(e) => panic!("our own bytes decode: {e:?}"),
    };
    match format {
        // Null as absent: a union's branch may differ, its JSON may not.
        Format::Protobuf | Format::Flatbuffers => assert_eq!(again.to_json(), d.to_json()),
        _ => assert!(again == d || format!("{again:?}") == format!("{d:?}"), "re-decoded datum differs"),
    }
}
