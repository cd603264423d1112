//! Writes the `.proto` and `.fbs` that `schema derive` gives for seeded
//! random Avro schemas (tests/support/random_schema.rs: every type, nested
//! unions of up to four branches, maps, wrappers, recursion-free records),
//! for `make test-interop` to compile with `protoc` and `flatc`.
//!
//! ```text
//! cargo run --example derived_schemas -- OUTDIR COUNT
//! OUTDIR/s<seed>.avsc s<seed>.proto s<seed>.fbs
//! ```

// Only the schema generator is used here; the datum helpers serve the tests.
#[allow(dead_code)]
#[path = "../tests/support/random_schema.rs"]
mod random_schema;

use wirebench::generic::derive::{Target, derive};
use wirebench::generic::schema::Schema;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [dir, count] = args.as_slice() else {
        eprintln!("usage: derived_schemas OUTDIR COUNT");
        std::process::exit(2);
    };
    let count: u64 = count.parse().expect("COUNT");
    std::fs::create_dir_all(dir).expect("OUTDIR");
    for seed in 0..count {
        let text = random_schema::SchemaGen::new(seed).record(4);
        let schema = Schema::parse(text.as_bytes()).expect("random schemas parse");
        let write = |ext: &str, body: &str| std::fs::write(format!("{dir}/s{seed}.{ext}"), body).expect("write");
        write("avsc", &text);
        write("proto", &derive(&schema, Target::Proto).expect("derive proto"));
        write("fbs", &derive(&schema, Target::Fbs).expect("derive fbs"));
    }
}
