//! One case of `benches/peers.rs --data` in a loop, for instruction counting
//! under callgrind: a schema-driven codec (`ours`), its dynamic-value peer
//! (`peer`: serde_json `Value`, rmpv `Value`, apache-avro `Value`,
//! prost-reflect `DynamicMessage`) or, on the catalog, the specialised codec
//! (`special`), encoding or decoding one document ITERS times.
//!
//! ```text
//! cargo build --release --example generic_peer_loop
//! valgrind --tool=callgrind --toggle-collect='*timed*' \
//!     target/release/examples/generic_peer_loop catalog ours avro decode 5
//! ```
//!
//! Everything before the loop (schema inference, the peer's value built
//! from our bytes) runs outside `timed`, so the collected count ÷ ITERS is
//! the cost of one operation, drops included. `benches/generic-instructions.sh`
//! runs every case and prints the table.

// apache-avro 0.22 deprecates its one-call datum functions in favour of
// GenericDatumReader/Writer; they do exactly the bare-datum work compared here.
#![allow(deprecated)]

use prost::Message;
use std::hint::black_box;
use wirebench::codec::Format;
use wirebench::generic::{self, derive, infer, json, schema::Schema};

#[inline(never)]
fn timed(iters: usize, f: &mut dyn FnMut()) {
    for _ in 0..iters {
        f();
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [doc, side, format, op, iters] = args.as_slice() else {
        eprintln!("usage: generic_peer_loop DOC ours|peer|special FORMAT encode|decode ITERS");
        std::process::exit(2);
    };
    let format: Format = format.parse().expect("format");
    let iters: usize = iters.parse().expect("ITERS");
    let encode = match op.as_str() {
        "encode" => true,
        "decode" => false,
        _ => panic!("op: encode or decode"),
    };
    let (path, avsc) = if doc == "catalog" {
        (
            "fixtures/catalog.json".to_string(),
            std::fs::read_to_string("schemas/catalog.avsc").expect("catalog.avsc"),
        )
    } else {
        let path = format!("fixtures/data/{doc}.json");
        let text = std::fs::read(&path).expect("document");
        (path, infer::infer(&text).expect("infer").schema)
    };
    let text = std::fs::read(&path).expect("document");
    let schema = Schema::parse(avsc.as_bytes()).expect("schema");
    let datum = json::decode(&schema, &text).expect("datum");
    let mut bytes = Vec::new();
    generic::encode(format, &schema, &datum, &mut bytes).expect("encode");

    match side.as_str() {
        "ours" if encode => timed(iters, &mut || {
            let mut out = Vec::new();
            generic::encode(format, &schema, black_box(&datum), &mut out).expect("encode");
            black_box(out);
        }),
        "ours" => timed(iters, &mut || {
            black_box(generic::decode(format, &schema, black_box(&bytes)).expect("decode"));
        }),
        "special" => {
            assert_eq!(doc, "catalog", "the specialised codecs read the catalog only");
            let catalog = wirebench::fixtures::load_file(std::path::Path::new(&path)).expect("catalog");
            let bytes = format.encode_to_vec(&catalog.products).expect("encode");
            if encode {
                timed(iters, &mut || {
                    black_box(format.encode_to_vec(black_box(&catalog.products)).expect("encode"));
                });
            } else {
                timed(iters, &mut || {
                    black_box(format.decode(black_box(&bytes)).expect("decode"));
                });
            }
        }
        "peer" => peer(format, encode, iters, &schema, &avsc, &bytes),
        _ => panic!("side: ours, peer or special"),
    }
}

fn peer(format: Format, encode: bool, iters: usize, schema: &Schema, avsc: &str, bytes: &[u8]) {
    match format {
        Format::Json => {
            let value: serde_json::Value = serde_json::from_slice(bytes).expect("serde_json");
            if encode {
                timed(iters, &mut || {
                    let mut o = Vec::new();
                    serde_json::to_writer(&mut o, black_box(&value)).expect("serde_json");
                    black_box(o);
                });
            } else {
                timed(iters, &mut || {
                    black_box(serde_json::from_slice::<serde_json::Value>(black_box(bytes)).expect("serde_json"));
                });
            }
        }
        Format::Msgpack => {
            let value = rmpv::decode::read_value(&mut &bytes[..]).expect("rmpv");
            if encode {
                timed(iters, &mut || {
                    let mut o = Vec::new();
                    rmpv::encode::write_value(&mut o, black_box(&value)).expect("rmpv");
                    black_box(o);
                });
            } else {
                timed(iters, &mut || {
                    black_box(rmpv::decode::read_value(&mut black_box(bytes)).expect("rmpv"));
                });
            }
        }
        Format::Avro => {
            let aschema = apache_avro::Schema::parse_str(avsc).expect("apache-avro schema");
            let value = apache_avro::from_avro_datum(&aschema, &mut &bytes[..], None).expect("apache-avro");
            if encode {
                // The clone is part of the peer's case, as in the peers bench.
                timed(iters, &mut || {
                    black_box(apache_avro::to_avro_datum(&aschema, black_box(value.clone())).expect("apache-avro"));
                });
            } else {
                timed(iters, &mut || {
                    black_box(
                        apache_avro::from_avro_datum(&aschema, &mut black_box(bytes), None).expect("apache-avro"),
                    );
                });
            }
        }
        Format::Protobuf => {
            let proto = derive::derive(schema, derive::Target::Proto).expect("derive");
            let dir = std::env::temp_dir().join(format!("wirebench-peer-loop-{}", std::process::id()));
            std::fs::create_dir_all(&dir).expect("temp dir");
            std::fs::write(dir.join("doc.proto"), &proto).expect("write proto");
            let pool = protox::Compiler::new([&dir])
                .and_then(|mut c| c.open_file("doc.proto").map(|c| c.descriptor_pool()))
                .expect("protox");
            let _ = std::fs::remove_dir_all(&dir);
            let root = proto
                .lines()
                .find_map(|l| l.strip_prefix("// Root message: "))
                .expect("root message line");
            let desc = pool.get_message_by_name(root).expect("root message");
            let msg = prost_reflect::DynamicMessage::decode(desc.clone(), bytes).expect("prost-reflect");
            if encode {
                timed(iters, &mut || {
                    black_box(black_box(&msg).encode_to_vec());
                });
            } else {
                timed(iters, &mut || {
                    black_box(
                        prost_reflect::DynamicMessage::decode(desc.clone(), black_box(bytes)).expect("prost-reflect"),
                    );
                });
            }
        }
        Format::Flatbuffers => panic!("FlatBuffers has no generic peer"),
    }
}
