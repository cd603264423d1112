//! The schema-driven Protobuf codec against prost-reflect's `DynamicMessage`,
//! with the descriptors protox compiles from the `.proto` that
//! `schema derive` writes: on seeded random schemas and datums, the
//! reference reads every byte string we write, and what it writes back
//! (its own field order, its own map-entry and default choices) reads back
//! to the same datum, up to map order and the sign of a zero. protox compiling every derived schema is a test of
//! the derivation too.

mod support;

use prost::Message;
use prost_reflect::{DescriptorPool, DynamicMessage, ReflectMessage, Value};
use support::random_schema::{SchemaGen, datum, positive_zeros, same, sorted_maps};
use wirebench::generic::derive::{Target, derive};
use wirebench::generic::protobuf as pb;
use wirebench::generic::schema::Schema;
use wirebench::prng::Rng;

/// The pool protox builds from `proto`, and the root message's name.
fn compile(proto: &str, tag: &str) -> (DescriptorPool, String) {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("derived-{tag}"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("doc.proto"), proto).unwrap();
    let pool = protox::Compiler::new([&dir])
        .and_then(|mut c| c.open_file("doc.proto").map(|c| c.descriptor_pool()))
        .unwrap_or_else(|e| panic!("protox rejects the derived schema: {e:?}\n{proto}"));
    let root = proto
        .lines()
        .find_map(|l| l.strip_prefix("// Root message: "))
        .unwrap()
        .to_string();
    (pool, root)
}

#[test]
fn dynamic_message_reads_our_bytes_and_we_read_its() {
    let mut checked = 0;
    for seed in 0..150 {
        let text = SchemaGen::new(seed).record(4);
        let schema = Schema::parse(text.as_bytes()).unwrap();
        let proto = derive(&schema, Target::Proto).unwrap();
        let (pool, root) = compile(&proto, &seed.to_string());
        let desc = pool.get_message_by_name(&root).unwrap();
        let mut rng = Rng::new(seed);
        for _ in 0..4 {
            let d = datum(&schema, schema.root(), &mut rng, 0);
            let mut ours = Vec::new();
            pb::encode(&schema, &d, &mut ours).unwrap();
            let theirs = DynamicMessage::decode(desc.clone(), ours.as_slice())
                .unwrap_or_else(|e| panic!("seed {seed}: prost-reflect rejects our bytes: {e}\n{proto}\n{d}"));
            let again = theirs.encode_to_vec();
            let back = pb::decode(&schema, &again)
                .unwrap_or_else(|e| panic!("seed {seed}: we reject prost-reflect's bytes: {e}\n{proto}\n{d}"));
            // prost-reflect keeps maps in hash order and writes a -0.0
            // without presence as absent (a +0.0 on reading); ours keeps
            // both (docs/DATA-SCHEMAS.md).
            let (want, got) = (sorted_maps(&positive_zeros(&d)), sorted_maps(&positive_zeros(&back)));
            assert!(same(&got, &want), "seed {seed}:\n{proto}\nwrote {d}\nread  {back}");
            checked += 1;
        }
    }
    assert_eq!(checked, 600);
}

/// A field-by-field look at one message: the numbers, presence and oneof
/// members prost-reflect sees are the ones the derivation promises.
#[test]
fn dynamic_message_sees_the_derived_fields() {
    let schema = Schema::parse(
        br#"{"type":"record","name":"Doc","fields":[
        {"name":"id","type":"long"},
        {"name":"note","type":["null","string"]},
        {"name":"key","type":["null","long","string"]},
        {"name":"tags","type":{"type":"map","values":"int"}},
        {"name":"grid","type":{"type":"array","items":{"type":"array","items":"double"}}}]}"#,
    )
    .unwrap();
    let (pool, root) = compile(&derive(&schema, Target::Proto).unwrap(), "fields");
    let desc = pool.get_message_by_name(&root).unwrap();
    let json = br#"{"id":7,"note":null,"key":"x","tags":{"a":1},"grid":[[1.5],[]]}"#;
    let d = wirebench::generic::json::decode(&schema, json).unwrap();
    let mut ours = Vec::new();
    pb::encode(&schema, &d, &mut ours).unwrap();
    let m = DynamicMessage::decode(desc, ours.as_slice()).unwrap();
    assert_eq!(m.get_field_by_name("id").unwrap().as_i64(), Some(7));
    assert!(!m.has_field_by_name("note"), "null is absent");
    assert!(!m.has_field_by_name("key_long"));
    assert_eq!(m.get_field_by_name("key_string").unwrap().as_str(), Some("x"));
    let Value::Map(tags) = &*m.get_field_by_name("tags").unwrap() else {
        panic!()
    };
    assert_eq!(tags.len(), 1);
    let Value::List(grid) = &*m.get_field_by_name("grid").unwrap() else {
        panic!()
    };
    assert_eq!(grid.len(), 2, "an empty inner array is still one wrapper message");
    let field_numbers: Vec<u32> = m.descriptor().fields().map(|f| f.number()).collect();
    assert_eq!(field_numbers, [1, 2, 3, 4, 5, 6]);
}
