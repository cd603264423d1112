//! Schema-driven peer benchmark (`make bench-peers` → `results/data-peers.txt`):
//! the schema-driven codecs of `wirebench::generic` beside the reference
//! crates' dynamic values, on the documents of `fixtures/data/` (written by
//! `tests/interop/docs.py`: made-up documents of the shapes JSON parser
//! benchmarks use) and the catalog, each with its inferred schema (the
//! catalog with `schemas/catalog.avsc`).
//!
//! | format | ours | peer | target |
//! |---|---|---|---|
//! | JSON | `generic::json` encode / decode | serde_json `to_writer(&Value)` / `from_slice::<Value>` | ≥ 1.2× |
//! | MessagePack | `generic::msgpack` | rmpv `encode::write_value` / `decode::read_value` | ≥ 1.2× |
//! | Avro | `generic::avro` | apache-avro `to_avro_datum(Value)` / `from_avro_datum` | ≥ 2× |
//! | Protobuf | `generic::protobuf` | prost-reflect `DynamicMessage` (descriptors by protox from the derived `.proto`) | ≥ 1.0× |
//! | FlatBuffers | `generic::flatbuffers` | — (no generic peer: its figures stand alone) | — |
//!
//! Each peer's value is built once from our bytes, outside the timing. The
//! cases of one comparison run interleaved in `--count` rounds (ours, peer,
//! ours, peer, …), each batch calibrated to `--benchtime`; ratio = median
//! over rounds of peer ns ÷ our ns (> 1: ours is faster). Our decoders
//! validate against the schema; the peers' dynamic values do not (serde_json,
//! rmpv) or do (apache-avro, prost-reflect).
//!
//! Documents of at least [`NUMBER_TEXT_MIN`] doubles get two more JSON rows,
//! the part of the JSON work that is number text, alone: `dtoa` is our
//! spelling of each double (`float::text::double_into`) beside zmij's (the
//! formatter serde_json calls), `atof` our parse of those spellings
//! (`float::parse_or_std`, correctly rounded) beside
//! `serde_json::from_str::<f64>` (its default parse, best-effort: a comment
//! line counts the spellings it reads to another double than std's).
//!
//! Flags: `--benchtime 300ms --count 5 [--doc NAME]`.

// apache-avro 0.22 deprecates its one-call datum functions in favour of
// GenericDatumReader/Writer; they do exactly the bare-datum work compared here.
#![allow(deprecated)]

use prost::Message;
use std::hint::black_box;
use std::time::Duration;
use wirebench::bench::{calibrate_op, measure};
use wirebench::cli::{Args, parse_duration};
use wirebench::codec::Format;
use wirebench::generic::{self, datum::Datum, derive, infer, schema::Schema};
use wirebench::measure::stats::median;

struct Doc {
    name: String,
    text: Vec<u8>,
    avsc: String,
    schema: Schema,
    datum: Datum,
}

fn docs(only: Option<&str>) -> Result<Vec<Doc>, String> {
    let mut paths: Vec<(String, String, Option<String>)> = Vec::new();
    let dir = std::fs::read_dir("fixtures/data").map_err(|e| format!("fixtures/data: {e}"))?;
    let mut names: Vec<String> = dir
        .filter_map(|e| e.ok())
        .map(|e| e.path().to_string_lossy().into_owned())
        .filter(|p| p.ends_with(".json"))
        .collect();
    names.sort();
    for p in names {
        let name = p.rsplit('/').next().unwrap_or(&p).trim_end_matches(".json").to_string();
        paths.push((name, p, None));
    }
    paths.push((
        "catalog".into(),
        "fixtures/catalog.json".into(),
        Some("schemas/catalog.avsc".into()),
    ));
    let mut out = Vec::new();
    for (name, path, schema) in paths {
        if only.is_some_and(|o| o != name) {
            continue;
        }
        let text = std::fs::read(&path).map_err(|e| format!("{path}: {e}"))?;
        let avsc = match schema {
            Some(s) => std::fs::read_to_string(&s).map_err(|e| format!("{s}: {e}"))?,
            None => infer::infer(&text).map_err(|e| format!("{path}: {e}"))?.schema,
        };
        let schema = Schema::parse(avsc.as_bytes()).map_err(|e| format!("{path}: {e}"))?;
        let datum = generic::json::decode(&schema, &text).map_err(|e| format!("{path}: {e}"))?;
        out.push(Doc {
            name,
            text,
            avsc,
            schema,
            datum,
        });
    }
    Ok(out)
}

struct Runner {
    benchtime: Duration,
    count: usize,
}

impl Runner {
    /// Ours and peer interleaved: (our median ns, peer median ns, median ratio).
    fn pair(&self, ours: &mut impl FnMut(), peer: &mut impl FnMut()) -> (f64, f64, f64) {
        let n_ours = calibrate_op(self.benchtime, ours);
        let n_peer = calibrate_op(self.benchtime, peer);
        let (mut a, mut b, mut r) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..self.count {
            let x = measure(n_ours, ours).ns_per_op();
            let y = measure(n_peer, peer).ns_per_op();
            a.push(x);
            b.push(y);
            r.push(y / x.max(1e-9));
        }
        let m = |v: &[f64]| median(v).unwrap_or(0.0);
        (m(&a), m(&b), m(&r))
    }

    fn alone(&self, ours: &mut impl FnMut()) -> f64 {
        let n = calibrate_op(self.benchtime, ours);
        let v: Vec<f64> = (0..self.count).map(|_| measure(n, ours).ns_per_op()).collect();
        median(&v).unwrap_or(0.0)
    }
}

/// A document with fewer doubles than this gets no `dtoa`/`atof` rows.
const NUMBER_TEXT_MIN: usize = 100;

/// Every double of `d`, in document order.
fn doubles(d: &Datum, out: &mut Vec<f64>) {
    match d {
        Datum::Double(v) => out.push(*v),
        Datum::Scalars(s) => out.extend(s.iter().filter_map(|x| match x {
            Datum::Double(v) => Some(v),
            _ => None,
        })),
        Datum::Union(_, v) => doubles(v, out),
        Datum::Array(items) => items.iter().for_each(|x| doubles(x, out)),
        Datum::Map(entries) => entries.iter().for_each(|(_, x)| doubles(x, out)),
        Datum::Record(fields) => fields.values().iter().for_each(|x| doubles(x, out)),
        _ => {}
    }
}

/// The `dtoa` and `atof` rows (see the module doc) for a document of at
/// least [`NUMBER_TEXT_MIN`] finite doubles.
fn number_text_rows(r: &Runner, d: &Doc, out: &mut String) {
    use wirebench::codec::json::float::text::{TEXT_BUF, double_into};
    let mut vs = Vec::new();
    doubles(&d.datum, &mut vs);
    vs.retain(|v| v.is_finite());
    if vs.len() < NUMBER_TEXT_MIN {
        return;
    }
    let mut ours_out: Vec<u8> = Vec::with_capacity(vs.len() * 26);
    let mut theirs_out: Vec<u8> = Vec::with_capacity(vs.len() * 26);
    let res = r.pair(
        &mut || {
            ours_out.clear();
            let mut buf = [0u8; TEXT_BUF];
            for &v in black_box(&vs) {
                let n = double_into(v, &mut buf);
                ours_out.extend_from_slice(&buf[..n]);
            }
            black_box(&ours_out);
        },
        &mut || {
            theirs_out.clear();
            let mut buf = zmij::Buffer::new();
            for &v in black_box(&vs) {
                theirs_out.extend_from_slice(buf.format_finite(v).as_bytes());
            }
            black_box(&theirs_out);
        },
    );
    let spellings: Vec<String> = vs
        .iter()
        .map(|&v| {
            let mut buf = [0u8; TEXT_BUF];
            let n = double_into(v, &mut buf);
            String::from_utf8_lossy(&buf[..n]).into_owned()
        })
        .collect();
    let bytes: usize = spellings.iter().map(String::len).sum();
    row(
        out,
        &d.name,
        ("json", "dtoa"),
        bytes,
        res,
        ("zmij (serde_json's formatter)", 1.2),
    );
    let res = r.pair(
        &mut || {
            for t in black_box(&spellings) {
                black_box(wirebench::codec::json::float::parse_or_std(t));
            }
        },
        &mut || {
            for t in black_box(&spellings) {
                black_box(serde_json::from_str::<f64>(t).ok());
            }
        },
    );
    row(
        out,
        &d.name,
        ("json", "atof"),
        bytes,
        res,
        ("serde_json::from_str::<f64>", 1.2),
    );
    let inexact = spellings
        .iter()
        .filter(|t| serde_json::from_str::<f64>(t).ok() != t.parse::<f64>().ok())
        .count();
    use std::fmt::Write as _;
    let _ = writeln!(
        out,
        "# {}: {} doubles; serde_json's default parse reads {inexact} of their shortest spellings to another double than std's",
        d.name,
        vs.len()
    );
}

fn encode_case(f: Format, d: &Doc) -> impl FnMut() + '_ {
    move || {
        let mut out = Vec::new();
        let r = generic::encode(f, &d.schema, black_box(&d.datum), &mut out);
        black_box((r.is_ok(), out));
    }
}

fn decode_case<'a>(f: Format, d: &'a Doc, bytes: &'a [u8]) -> impl FnMut() + 'a {
    move || {
        black_box(generic::decode(f, &d.schema, black_box(bytes)).is_ok());
    }
}

/// One result line; `peer` is the peer's name and the target ratio.
fn row(
    out: &mut String,
    doc: &str,
    (format, op): (&str, &str),
    bytes: usize,
    r: (f64, f64, f64),
    (peer, target): (&str, f64),
) {
    use std::fmt::Write as _;
    let verdict = if r.2 >= target { "meets" } else { "BELOW" };
    let _ = writeln!(
        out,
        "{doc:<9} {format:<11} {op:<6} {bytes:>8} {:>10.1} {:>10.1} {:>6.2}x  {verdict} {target}x vs {peer}",
        r.0 / 1000.0,
        r.1 / 1000.0,
        r.2
    );
}

fn main() {
    if let Err(e) = run() {
        eprintln!("data_peers: {e}");
        std::process::exit(2);
    }
}

fn run() -> Result<(), String> {
    let mut args = Args::new(std::env::args().skip(1));
    // `cargo bench` passes `--bench`; `cargo test --all-targets` runs this
    // binary without it, as a smoke test: every case once, briefly.
    let smoke = !args.switch("--bench");
    let (default_time, default_count) = if smoke { ("1ms", 1) } else { ("300ms", 5) };
    let benchtime = parse_duration(&args.value("--benchtime")?.unwrap_or(default_time.into()))?;
    let count = args.parse_or("--count", default_count)?.max(1);
    let only = args.value("--doc")?;
    args.finish()?;
    let r = Runner { benchtime, count };
    let docs = docs(only.as_deref())?;
    let mut out = String::new();
    out.push_str(&format!(
        "# schema-driven codecs vs dynamic-value peers; benchtime {benchtime:?}, count {count}\n"
    ));
    out.push_str("# doc       format      op        bytes    ours_us    peer_us  ratio\n");
    for d in &docs {
        // JSON vs serde_json::Value.
        let json = {
            let mut b = Vec::new();
            generic::encode(Format::Json, &d.schema, &d.datum, &mut b).map_err(|e| e.to_string())?;
            b
        };
        let value: serde_json::Value = serde_json::from_slice(&json).map_err(|e| e.to_string())?;
        let res = r.pair(&mut encode_case(Format::Json, d), &mut || {
            let mut o = Vec::new();
            serde_json::to_writer(&mut o, black_box(&value)).unwrap();
            black_box(o);
        });
        row(
            &mut out,
            &d.name,
            ("json", "encode"),
            json.len(),
            res,
            ("serde_json::Value", 1.2),
        );
        let res = r.pair(&mut decode_case(Format::Json, d, &json), &mut || {
            black_box(serde_json::from_slice::<serde_json::Value>(black_box(&json)).is_ok());
        });
        row(
            &mut out,
            &d.name,
            ("json", "decode"),
            json.len(),
            res,
            ("serde_json::Value", 1.2),
        );

        number_text_rows(&r, d, &mut out);

        // MessagePack vs rmpv::Value.
        let mp = {
            let mut b = Vec::new();
            generic::encode(Format::Msgpack, &d.schema, &d.datum, &mut b).map_err(|e| e.to_string())?;
            b
        };
        let value = rmpv::decode::read_value(&mut &mp[..]).map_err(|e| e.to_string())?;
        let res = r.pair(&mut encode_case(Format::Msgpack, d), &mut || {
            let mut o = Vec::new();
            rmpv::encode::write_value(&mut o, black_box(&value)).unwrap();
            black_box(o);
        });
        row(
            &mut out,
            &d.name,
            ("msgpack", "encode"),
            mp.len(),
            res,
            ("rmpv::Value", 1.2),
        );
        let res = r.pair(&mut decode_case(Format::Msgpack, d, &mp), &mut || {
            black_box(rmpv::decode::read_value(&mut black_box(&mp[..])).is_ok());
        });
        row(
            &mut out,
            &d.name,
            ("msgpack", "decode"),
            mp.len(),
            res,
            ("rmpv::Value", 1.2),
        );

        // Avro vs apache-avro Value.
        let av = {
            let mut b = Vec::new();
            generic::encode(Format::Avro, &d.schema, &d.datum, &mut b).map_err(|e| e.to_string())?;
            b
        };
        let aschema = apache_avro::Schema::parse_str(&d.avsc).map_err(|e| e.to_string())?;
        let value = apache_avro::from_avro_datum(&aschema, &mut &av[..], None).map_err(|e| e.to_string())?;
        let res = r.pair(&mut encode_case(Format::Avro, d), &mut || {
            black_box(apache_avro::to_avro_datum(&aschema, black_box(value.clone())).is_ok());
        });
        row(
            &mut out,
            &d.name,
            ("avro", "encode"),
            av.len(),
            res,
            ("apache-avro Value (clone included)", 2.0),
        );
        let res = r.pair(&mut decode_case(Format::Avro, d, &av), &mut || {
            black_box(apache_avro::from_avro_datum(&aschema, &mut black_box(&av[..]), None).is_ok());
        });
        row(
            &mut out,
            &d.name,
            ("avro", "decode"),
            av.len(),
            res,
            ("apache-avro Value", 2.0),
        );

        // Protobuf vs prost-reflect DynamicMessage.
        let pb = {
            let mut b = Vec::new();
            generic::encode(Format::Protobuf, &d.schema, &d.datum, &mut b).map_err(|e| e.to_string())?;
            b
        };
        match dynamic_descriptor(&d.schema, &d.name) {
            Ok(desc) => {
                let msg =
                    prost_reflect::DynamicMessage::decode(desc.clone(), pb.as_slice()).map_err(|e| e.to_string())?;
                let res = r.pair(&mut encode_case(Format::Protobuf, d), &mut || {
                    black_box(black_box(&msg).encode_to_vec());
                });
                row(
                    &mut out,
                    &d.name,
                    ("protobuf", "encode"),
                    pb.len(),
                    res,
                    ("prost-reflect DynamicMessage", 1.0),
                );
                let res = r.pair(&mut decode_case(Format::Protobuf, d, &pb), &mut || {
                    black_box(prost_reflect::DynamicMessage::decode(desc.clone(), black_box(pb.as_slice())).is_ok());
                });
                row(
                    &mut out,
                    &d.name,
                    ("protobuf", "decode"),
                    pb.len(),
                    res,
                    ("prost-reflect DynamicMessage", 1.0),
                );
            }
            Err(e) => out.push_str(&format!("{:<9} protobuf    (no peer: {e})\n", d.name)),
        }

        // FlatBuffers: no generic peer.
        let fb = {
            let mut b = Vec::new();
            generic::encode(Format::Flatbuffers, &d.schema, &d.datum, &mut b).map_err(|e| e.to_string())?;
            b
        };
        let e = r.alone(&mut encode_case(Format::Flatbuffers, d));
        let dec = r.alone(&mut decode_case(Format::Flatbuffers, d, &fb));
        out.push_str(&format!(
            "{:<9} flatbuffers encode {:>8} {:>10.1}          —      —  (no generic peer)\n{:<9} flatbuffers decode {:>8} {:>10.1}          —      —  (no generic peer)\n",
            d.name,
            fb.len(),
            e / 1000.0,
            d.name,
            fb.len(),
            dec / 1000.0
        ));
        let _ = &d.text;
        eprintln!("data_peers: {} done", d.name);
    }
    print!("{out}");
    Ok(())
}

/// The root message of the `.proto` derived from `schema`, compiled by protox.
fn dynamic_descriptor(schema: &Schema, tag: &str) -> Result<prost_reflect::MessageDescriptor, String> {
    let proto = derive::derive(schema, derive::Target::Proto)?;
    let dir = std::env::temp_dir().join(format!("wirebench-data-peers-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    std::fs::write(dir.join("doc.proto"), &proto).map_err(|e| e.to_string())?;
    let pool = protox::Compiler::new([&dir])
        .and_then(|mut c| c.open_file("doc.proto").map(|c| c.descriptor_pool()))
        .map_err(|e| format!("{e:?}"))?;
    let root = proto
        .lines()
        .find_map(|l| l.strip_prefix("// Root message: "))
        .ok_or("no root message line")?;
    pool.get_message_by_name(root)
        .ok_or_else(|| format!("no message {root}"))
}
