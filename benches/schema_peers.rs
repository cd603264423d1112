//! Calibration of the schema-driven Protobuf and FlatBuffers codecs
//! (`make bench-peers` → `results/peers-schema.txt`): each beside the
//! specialised catalog codec of its format, on the catalog, in one run,
//! timed by our harness. (The schema-driven codecs beside the reference
//! crates' dynamic values, prost-reflect's `DynamicMessage` included, are
//! `benches/data_peers.rs`.)
//!
//! | comparison | ours | specialised |
//! |---|---|---|
//! | Protobuf | `generic::protobuf` encode of the catalog `Datum` / decode into one | `Format::Protobuf` encode / decode of the catalog |
//! | FlatBuffers | `generic::flatbuffers` encode / decode | `Format::Flatbuffers` encode / decode |
//!
//! The datum is `fixtures::catalog(N)` read as `schemas/catalog.avsc`; the
//! schema-driven bytes follow the derived schema (docs/DATA-SCHEMAS.md), not
//! the hand-written `catalog.proto`/`.fbs`, so the sizes differ a little.
//! Ratio = specialised time ÷ schema-driven time (the target: ≥ 0.5×,
//! "within 2×"), the median over `--count` interleaved rounds.
//!
//! Flags: `--benchtime 300ms --count 5 --counts 100,1000`.

use std::hint::black_box;
use wirebench::bench::{Run, calibrate_op, measure};
use wirebench::cli::{Args, parse_duration};
use wirebench::codec::Format;
use wirebench::generic::datum::Datum;
use wirebench::generic::schema::Schema;
use wirebench::generic::{flatbuffers as gfb, json as gjson, protobuf as gpb};
use wirebench::measure::stats::median;

struct Case<'a> {
    name: String,
    payload: usize,
    op: Box<dyn FnMut() + 'a>,
}

fn case<'a>(name: String, payload: usize, op: impl FnMut() + 'a) -> Case<'a> {
    Case {
        name,
        payload,
        op: Box::new(op),
    }
}

/// Interleaved rounds of every case; each case's per-round ns/op.
fn group(benchtime: std::time::Duration, count: usize, mut cases: Vec<Case<'_>>) -> Vec<Vec<f64>> {
    let iters: Vec<u64> = cases.iter_mut().map(|c| calibrate_op(benchtime, &mut c.op)).collect();
    let mut runs: Vec<Vec<Run>> = vec![Vec::new(); cases.len()];
    for _ in 0..count {
        for (i, c) in cases.iter_mut().enumerate() {
            runs[i].push(measure(iters[i], &mut c.op));
        }
    }
    cases
        .iter()
        .zip(runs)
        .map(|(c, runs)| {
            for r in &runs {
                let secs = r.elapsed.as_secs_f64().max(1e-12);
                println!(
                    "{:<56}\t{:8}\t{:10.0} ns/op\t{:8.2} MB/s",
                    format!("Benchmark{}", c.name),
                    r.iters,
                    r.ns_per_op(),
                    c.payload as f64 * r.iters as f64 / 1e6 / secs
                );
            }
            runs.iter().map(Run::ns_per_op).collect()
        })
        .collect()
}

/// Median over rounds of peer ÷ ours.
fn ratio(ours: &[f64], peer: &[f64]) -> f64 {
    let per: Vec<f64> = ours.iter().zip(peer).map(|(o, p)| p / o).collect();
    median(&per).unwrap_or(f64::NAN)
}

struct Doc {
    name: String,
    schema: Schema,
    datum: Datum,
}

fn catalog_doc(count: usize) -> Result<Doc, String> {
    let schema =
        Schema::parse(&std::fs::read("schemas/catalog.avsc").map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
    let mut json = Vec::new();
    Format::Json
        .encode(&wirebench::fixtures::catalog(count).products, &mut json)
        .map_err(|e| e.to_string())?;
    let datum = gjson::decode(&schema, &json).map_err(|e| e.to_string())?;
    Ok(Doc {
        name: format!("catalog{count}"),
        schema,
        datum,
    })
}

fn main() {
    if let Err(e) = run() {
        eprintln!("schema-peers: {e}");
        std::process::exit(2);
    }
}

fn run() -> Result<(), String> {
    let mut args = Args::new(std::env::args().skip(1));
    // `cargo test --all-targets` runs this without `--bench`: a smoke run.
    let smoke = !args.switch("--bench");
    let (default_time, default_count) = if smoke { ("1ms", 1) } else { ("300ms", 5) };
    let benchtime = parse_duration(&args.value("--benchtime")?.unwrap_or(default_time.into()))?;
    let count = args.parse_or("--count", default_count)?.max(1);
    let counts = args
        .list::<usize>("--counts")?
        .unwrap_or(vec![if smoke { 3 } else { 100 }]);
    args.finish()?;

    let mut docs = Vec::new();
    for &n in &counts {
        docs.push((catalog_doc(n)?, Some(n)));
    }
    let mut summary = Vec::new();
    for (doc, catalog) in &docs {
        let (s, d) = (&doc.schema, &doc.datum);
        let mut pb = Vec::new();
        gpb::encode(s, d, &mut pb).map_err(|e| format!("{}: {e}", doc.name))?;
        let name = &doc.name;
        let n = catalog.unwrap_or(0);
        let products = wirebench::fixtures::catalog(n).products;
        let mut special_pb = Vec::new();
        Format::Protobuf
            .encode(&products, &mut special_pb)
            .map_err(|e| e.to_string())?;
        let special = special_pb.as_slice();
        let (mut b1, mut b2) = (Vec::with_capacity(pb.len()), Vec::with_capacity(pb.len()));
        let enc = group(
            benchtime,
            count,
            vec![
                case(format!("Encode/protobuf-schema/{name}/ours"), pb.len(), || {
                    b1.clear();
                    gpb::encode(s, black_box(d), &mut b1).expect("encode");
                }),
                case(format!("Encode/protobuf/{name}/specialised"), special_pb.len(), || {
                    b2.clear();
                    Format::Protobuf.encode(black_box(&products), &mut b2).expect("encode");
                }),
            ],
        );
        let bytes = pb.as_slice();
        let dec = group(
            benchtime,
            count,
            vec![
                case(format!("Decode/protobuf-schema/{name}/ours"), pb.len(), || {
                    black_box(gpb::decode(s, black_box(bytes)).expect("decode"));
                }),
                case(format!("Decode/protobuf/{name}/specialised"), special_pb.len(), || {
                    black_box(Format::Protobuf.decode(black_box(special)).expect("decode"));
                }),
            ],
        );
        summary.push(format!(
            "| Protobuf encode, {name} ({} B; specialised {} B) | {:.2} | {:.2} | {:.2}× | within 2× (≥ 0.5×) |",
            pb.len(),
            special_pb.len(),
            median(&enc[0]).unwrap_or(f64::NAN) / 1000.0,
            median(&enc[1]).unwrap_or(f64::NAN) / 1000.0,
            ratio(&enc[0], &enc[1])
        ));
        summary.push(format!(
            "| Protobuf decode, {name} | {:.2} | {:.2} | {:.2}× | within 2× (≥ 0.5×) |",
            median(&dec[0]).unwrap_or(f64::NAN) / 1000.0,
            median(&dec[1]).unwrap_or(f64::NAN) / 1000.0,
            ratio(&dec[0], &dec[1])
        ));
        if let Some(n) = catalog {
            let products = wirebench::fixtures::catalog(*n).products;
            let mut fb = Vec::new();
            gfb::encode(s, d, &mut fb).map_err(|e| e.to_string())?;
            let mut special = Vec::new();
            Format::Flatbuffers
                .encode(&products, &mut special)
                .map_err(|e| e.to_string())?;
            let (mut b1, mut b2) = (Vec::new(), Vec::new());
            let enc = group(
                benchtime,
                count,
                vec![
                    case(format!("Encode/flatbuffers-schema/{name}/ours"), fb.len(), || {
                        b1.clear();
                        gfb::encode(s, black_box(d), &mut b1).expect("encode");
                    }),
                    case(format!("Encode/flatbuffers/{name}/specialised"), special.len(), || {
                        b2.clear();
                        Format::Flatbuffers
                            .encode(black_box(&products), &mut b2)
                            .expect("encode");
                    }),
                ],
            );
            let (fbs, sp) = (fb.as_slice(), special.as_slice());
            let dec = group(
                benchtime,
                count,
                vec![
                    case(format!("Decode/flatbuffers-schema/{name}/ours"), fb.len(), || {
                        black_box(gfb::decode(s, black_box(fbs)).expect("decode"));
                    }),
                    case(format!("Decode/flatbuffers/{name}/specialised"), sp.len(), || {
                        black_box(Format::Flatbuffers.decode(black_box(sp)).expect("decode"));
                    }),
                ],
            );
            summary.push(format!(
                "| FlatBuffers encode, {name} ({} B; specialised {} B) | {:.2} | {:.2} | {:.2}× | within 2× (≥ 0.5×) |",
                fb.len(),
                special.len(),
                median(&enc[0]).unwrap_or(f64::NAN) / 1000.0,
                median(&enc[1]).unwrap_or(f64::NAN) / 1000.0,
                ratio(&enc[0], &enc[1])
            ));
            summary.push(format!(
                "| FlatBuffers decode, {name} | {:.2} | {:.2} | {:.2}× | within 2× (≥ 0.5×) |",
                median(&dec[0]).unwrap_or(f64::NAN) / 1000.0,
                median(&dec[1]).unwrap_or(f64::NAN) / 1000.0,
                ratio(&dec[0], &dec[1])
            ));
        }
    }
    println!();
    println!("| comparison | schema-driven µs | specialised µs | specialised ÷ schema-driven | target |");
    println!("|---|---|---|---|---|");
    for line in summary {
        println!("{line}");
    }
    Ok(())
}
