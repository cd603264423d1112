#![no_main]
//! The schema-driven flatbuffers decoder (`wirebench::generic::flatbuffers`) on
//! hostile bytes: the first byte picks a schema (the catalog's, or one of
//! every shape: optional, oneof/union, maps, wrapped arrays of arrays and of
//! unions, enums, fixed, a recursive record); the rest is the payload.
//! Properties: an error or a datum, never a panic, a hang or unbounded
//! allocation; a datum it reads, it writes, and reads back the same.
//! Run: `make fuzz FUZZ_TARGETS=generic_flatbuffers`.

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;
use wirebench::generic::flatbuffers;
use wirebench::generic::schema::Schema;

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
        [wirebench::codec::avro::SCHEMA, SHAPES, r#"{"type":"array","items":["null","double","string"]}"#]
            .iter()
            .map(|s| Schema::parse(s.as_bytes()).expect("fuzz schemas parse"))
            .collect()
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, bytes)) = data.split_first() else { return };
    let all = schemas();
    let schema = &all[pick as usize % all.len()];
    if let Ok(d) = flatbuffers::decode(schema, bytes) {
        let mut out = Vec::new();
        flatbuffers::encode(schema, &d, &mut out).expect("a datum read is written");
        let back = flatbuffers::decode(schema, &out).expect("what we write reads");
        assert_eq!(back.to_json(), d.to_json());
    }
});
