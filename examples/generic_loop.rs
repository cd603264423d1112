//! A profiling loop for the schema-driven codecs (callgrind, perf): encodes
//! or decodes the catalog (`schemas/catalog.avsc`, N products), or a JSON
//! document with its inferred schema (a path in place of N), ITERS times.
//!
//! ```text
//! cargo build --release --example generic_loop
//! valgrind --tool=callgrind target/release/examples/generic_loop protobuf decode 100 20
//! perf record target/release/examples/generic_loop json decode fixtures/data/numbers.json 200000
//! ```

use std::hint::black_box;
use wirebench::codec::Format;
use wirebench::generic::{self, json, schema::Schema};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [format, op, n, iters] = args.as_slice() else {
        eprintln!("usage: generic_loop FORMAT encode|decode N|FILE.json ITERS");
        std::process::exit(2);
    };
    let format: Format = format.parse().expect("format");
    let iters: usize = iters.parse().expect("ITERS");
    let (schema, json) = match n.parse::<usize>() {
        Ok(n) => {
            let schema = std::fs::read("schemas/catalog.avsc").expect("catalog.avsc");
            let mut json = Vec::new();
            Format::Json
                .encode(&wirebench::fixtures::catalog(n).products, &mut json)
                .expect("json");
            (Schema::parse(&schema).expect("schema"), json)
        }
        Err(_) => {
            let json = std::fs::read(n).expect("document");
            let avsc = wirebench::generic::infer::infer(&json).expect("infer").schema;
            (Schema::parse(avsc.as_bytes()).expect("schema"), json)
        }
    };
    let datum = json::decode(&schema, &json).expect("datum");
    let mut bytes = Vec::new();
    generic::encode(format, &schema, &datum, &mut bytes).expect("encode");
    for _ in 0..iters {
        if op == "encode" {
            let mut out = Vec::with_capacity(bytes.len());
            generic::encode(format, &schema, black_box(&datum), &mut out).expect("encode");
            black_box(out);
        } else {
            black_box(generic::decode(format, &schema, black_box(&bytes)).expect("decode"));
        }
    }
}
