//! Peer benchmark (`make bench-peers` → `results/peers.txt`): our codecs beside
//! the reference crates on their fastest paths, on the same catalog, in one
//! run, timed by our harness ([`wirebench::bench`]).
//!
//! | comparison | ours | peers |
//! |---|---|---|
//! | JSON | `Format::Json` encode / decode (+ validation) | serde_json `to_writer` / `from_slice`; sonic-rs `to_writer` / `from_slice`; simd-json `serde::to_writer` / `serde::from_slice_with_buffers` (input copied into a reused buffer, which simd-json parses in place, and reused parse buffers); all into owned serde mirror structs |
//! | MessagePack | `Format::Msgpack` | rmp-serde `encode::write_named` / `from_slice` (named fields, as ours) |
//! | Avro | `Format::Avro` | apache-avro: the schema-aware serde path (`GenericDatumWriter::write_ser` / `GenericDatumReader::read_deser`, writer and reader built once) and the `Value` path (`to_value` + `write_value_ref` / `read_value` + `from_value`) |
//! | Protobuf | `Format::Protobuf` | prost from our domain types (`to_generated` + encode; decode into generated types + conversion to ours) and prost alone (encode of prebuilt messages; decode into generated types only) |
//! | FlatBuffers | `Format::Flatbuffers` | the official crate used directly: a reused `FlatBufferBuilder` filled from our domain types, the bytes left in the builder; `root_as_catalog` (verifier, default limits) then every field copied into our domain types |
//! | instrument | a decode timed by `wirebench codec-bench` (child process) | the same harness and decode loop in a child process of this binary (`--system-child`), under plain `System` |
//! | memcpy | — | copying each payload: the physical floor |
//! | borrowed, every format | `Format::decode_view` | our owned `Format::decode` (target: view ≤ 0.5× owned) |
//! | borrowed JSON | `Format::decode_view` | `serde_json::from_slice` / `sonic_rs::from_slice` into `Cow<'a, str>` structs |
//! | borrowed MessagePack | `Format::decode_view` | `rmp_serde::from_slice` into `Cow<'a, str>` structs |
//!
//! Everyone runs under the same allocator: this binary installs none, so it
//! is plain `System`, and nothing counts allocations (the result lines carry
//! no B/op columns; `codec.txt` has ours). Ratio = peer time ÷ our time =
//! our throughput ÷ peer throughput (> 1: ours is faster): the cases of a
//! comparison run interleaved in `--count` rounds (A B C, A B C, …), each
//! round's batches back to back, and the ratio is the median over rounds of
//! that round's ratio, so a change in machine load between rounds moves both
//! sides of a pair rather than the ratio. The µs columns are the medians of
//! each side's batches. Peers encode from their own prebuilt structs where their users
//! would (serde mirrors; conversion from our types is not charged to them)
//! and their decoders do not validate ranges; ours do. The release profile
//! (`Cargo.toml`, `[profile.release]`, which `bench` inherits) applies to
//! every crate alike.
//!
//! With `--data PATH,…` the payload is a document instead (a `.json` file,
//! every one in a directory, or `catalog` for the catalog read with
//! `schemas/catalog.avsc`): the schema-driven codecs beside the reference
//! crates' dynamic values, and on the catalog beside the specialised codecs
//! (`peers/documents.rs`).
//!
//! Flags: `--benchtime 300ms --count 5 --counts 1000 [--only json,msgpack,avro,protobuf,flatbuffers,instrument,borrowed,memcpy] [--case TEXT] [--data PATH,…]`.

#[path = "../tests/support/avro_mirror.rs"]
mod avro_mirror;
#[path = "peers/documents.rs"]
mod documents;
#[path = "../tests/support/serde_borrowed.rs"]
mod serde_borrowed;
#[path = "../tests/support/serde_mirror.rs"]
mod serde_mirror;

use apache_avro::Schema;
use apache_avro::reader::datum::GenericDatumReader;
use apache_avro::writer::datum::GenericDatumWriter;
use avro_mirror::ACatalog;
use flatbuffers::FlatBufferBuilder;
use serde_borrowed::BCatalog;
use serde_mirror::SCatalog;
use std::hint::black_box;
use std::time::Duration;
use wirebench::bench::{Config, Run, calibrate_op, hooks, measure};
use wirebench::cli::{Args, parse_duration};
use wirebench::codec::Format;
use wirebench::codec::flatbuffers::builder::build;
use wirebench::codec::flatbuffers::generated::wirebench as fb;
use wirebench::measure::stats::{median, procs};
use wirebench::model::{Catalog, Dimensions, Product, Status, Variant};

/// One measured side: ns/op of each round in order, or why it could not run.
type Side = Result<Rounds, String>;

/// The ns/op of one case's batches, one per round. Round `i` of every case
/// of a comparison ran back to back, so the rounds pair up.
#[derive(Clone, Debug)]
struct Rounds(Vec<f64>);

impl Rounds {
    /// Median ns/op over the rounds.
    fn median(&self) -> f64 {
        median(&self.0).unwrap_or(f64::NAN)
    }
}

/// Peer time ÷ our time: the median over rounds of each round's ratio when
/// both sides ran the same rounds interleaved (a load change between rounds
/// then moves both sides of a pair, not the ratio), else the ratio of the
/// medians.
fn ratio(ours: &Rounds, peer: &Rounds) -> f64 {
    if ours.0.len() == peer.0.len() && !ours.0.is_empty() {
        let per_round: Vec<f64> = ours.0.iter().zip(&peer.0).map(|(o, p)| p / o).collect();
        median(&per_round).unwrap_or(f64::NAN)
    } else {
        peer.median() / ours.median()
    }
}

struct Runner {
    cfg: Config,
    /// `--only json,avro,…,instrument,memcpy`: run only these comparisons.
    only: Option<Vec<String>>,
    /// `--case TEXT`: measure only the cases whose name contains TEXT (the
    /// others read "not selected"), e.g. to count one case's instructions
    /// under callgrind.
    case: Option<String>,
}

impl Runner {
    fn wants(&self, what: &str) -> bool {
        self.only.as_ref().is_none_or(|o| o.iter().any(|x| x == what))
    }
}

/// One operation to measure: its result-line name, payload bytes, a one-off
/// check that it works (else it is skipped with the reason), and the op.
struct Case<'a> {
    name: String,
    payload: usize,
    probe: Result<(), String>,
    op: Box<dyn FnMut() + 'a>,
}

impl<'a> Case<'a> {
    fn new(name: String, payload: usize, probe: Result<(), String>, op: impl FnMut() + 'a) -> Case<'a> {
        Case {
            name,
            payload,
            probe,
            op: Box::new(op),
        }
    }
}

/// A Go benchmark line without the B/op and allocs/op columns (nothing is
/// counted here); `benchstat` reads it.
fn go_line(name: &str, run: &Run, payload: usize) -> String {
    let secs = run.elapsed.as_secs_f64();
    let mb = if secs > 0.0 {
        payload as f64 * run.iters as f64 / 1e6 / secs
    } else {
        0.0
    };
    format!(
        "{:<48}\t{:8}\t{:10.0} ns/op\t{mb:8.2} MB/s",
        format!("Benchmark{name}-{}", procs()),
        run.iters,
        run.ns_per_op()
    )
}

impl Runner {
    /// Measures the cases of one comparison *interleaved*: calibrate each,
    /// then one batch of each in turn, `--count` times (A B A B …), so a
    /// change in machine load during the run hits every side alike. Prints
    /// every batch as a Go line and returns each case's median ns/op.
    fn group(&self, mut cases: Vec<Case<'_>>) -> Vec<Side> {
        if let Some(sel) = &self.case {
            for c in cases.iter_mut().filter(|c| !c.name.contains(sel.as_str())) {
                c.probe = Err("not selected".into());
            }
        }
        let iters: Vec<Option<u64>> = cases
            .iter_mut()
            .map(|c| c.probe.is_ok().then(|| calibrate_op(self.cfg.benchtime, &mut c.op)))
            .collect();
        let mut runs: Vec<Vec<Run>> = vec![Vec::new(); cases.len()];
        for _ in 0..self.cfg.count {
            for (i, c) in cases.iter_mut().enumerate() {
                if let Some(n) = iters[i] {
                    runs[i].push(measure(n, &mut c.op));
                }
            }
        }
        cases
            .iter()
            .zip(runs)
            .map(|(c, runs)| {
                if let Err(e) = &c.probe {
                    eprintln!("peers: {:<48} skipped: {e}", c.name);
                    return Err(e.clone());
                }
                for r in &runs {
                    println!("{}", go_line(&c.name, r, c.payload));
                }
                let rounds = Rounds(runs.iter().map(|r| r.ns_per_op()).collect());
                eprintln!("peers: {:<48} {:>12.0} ns/op", c.name, rounds.median());
                Ok(rounds)
            })
            .collect()
    }
}

/// Our encoder of `f` as a case (`payload` = our encoding, or why it failed).
fn ours_encode<'a>(f: Format, products: &'a [Product], payload: &Result<Vec<u8>, String>) -> Case<'a> {
    let len = payload.as_ref().map_or(0, Vec::len);
    let mut buf = Vec::with_capacity(len);
    let probe = payload.as_ref().map(|_| ()).map_err(Clone::clone);
    Case::new(format!("Encode/{f}/{}/ours", products.len()), len, probe, move || {
        buf.clear();
        f.encode(black_box(products), &mut buf).expect("encode");
        assert_eq!(buf.len(), len);
    })
}

/// Our decoder of `f` (parse + validation + domain types) as a case.
fn ours_decode(f: Format, n: usize, payload: &Result<Vec<u8>, String>) -> Case<'_> {
    let bytes: &[u8] = payload.as_deref().unwrap_or(&[]);
    let probe = payload
        .as_ref()
        .map_err(Clone::clone)
        .and_then(|b| f.decode(b).map(|_| ()).map_err(|e| e.to_string()));
    Case::new(format!("Decode/{f}/{n}/ours"), bytes.len(), probe, move || {
        let c = f.decode(black_box(bytes)).expect("decode");
        assert_eq!(c.products.len(), n);
        black_box(c);
    })
}

/// One row of the summary table: ours beside one peer path.
struct Ratio {
    what: String,
    ours: Side,
    peer: Side,
    /// Minimum ratio (peer time ÷ our time) the target asks for.
    target: Option<f64>,
}

impl Ratio {
    fn new(what: impl Into<String>, ours: &Side, peer: &Side, target: Option<f64>) -> Ratio {
        Ratio {
            what: what.into(),
            ours: ours.clone(),
            peer: peer.clone(),
            target,
        }
    }
}

/// The fastest of several peer sides, with its name.
fn fastest<'a>(sides: &[(&'a str, &Side)]) -> (&'a str, Side) {
    sides
        .iter()
        .filter_map(|(name, s)| s.as_ref().ok().map(|r| (*name, r)))
        .min_by(|a, b| a.1.median().total_cmp(&b.1.median()))
        .map_or(("none", Err("no peer ran".to_string())), |(name, r)| {
            (name, Ok(r.clone()))
        })
}

fn us(s: &Side) -> String {
    match s {
        Ok(r) => format!("{:.2}", r.median() / 1000.0),
        Err(_) => "n/a".into(),
    }
}

fn main() {
    if let Err(e) = run() {
        eprintln!("peers: {e}");
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
    let counts = args.list::<usize>("--counts")?.unwrap_or(vec![1000]);
    let only = args.list::<String>("--only")?;
    let system_child_format = args.value("--system-child")?;
    let case = args.value("--case")?;
    let data = args.list::<String>("--data")?;
    args.finish()?;
    if let Some(f) = system_child_format {
        let f: Format = f.parse().map_err(|e| format!("--system-child: {e}"))?;
        return system_child(f, counts.first().copied().unwrap_or(1000), benchtime);
    }
    let r = Runner {
        cfg: Config { benchtime, count },
        only,
        case,
    };
    let mut summary = String::new();
    let env = wirebench::measure::env::capture();
    print!("{}", wirebench::bench::go_header(&env.cpu));
    println!(
        "benchtime: {benchtime:?}\ncount: {count}\ncommit: {}\ndate: {}\nloadavg: {}\nprofile: {}\nallocator: System for every case (nothing counted)",
        env.git_commit, env.date_utc, env.load_average, PROFILE
    );
    // `--data` measures those payloads alone; `cargo test --all-targets`
    // (the smoke run) covers the documents and then the catalog's rows.
    let data_only = data.is_some();
    let data = data.or_else(|| smoke.then(|| vec!["fixtures/data".to_string(), "catalog".to_string()]));
    if let Some(data) = &data {
        for d in documents::docs(data, &counts)? {
            let ratios = documents::compare(&r, &d)?;
            summary += &format!(
                "\n# {}: schema-driven codecs. ratio = reference time / our time (median over {count} interleaved rounds of each round's ratio; times are medians; > 1: ours faster)\n| comparison | ours µs | reference µs | ratio | target | met |\n|---|---|---|---|---|---|\n",
                d.name
            );
            summary += &ratio_rows(&ratios);
        }
        if data_only {
            print!("{summary}");
            return Ok(());
        }
    }
    let schema = Schema::parse_str(wirebench::codec::avro::SCHEMA).map_err(|e| format!("avro schema: {e}"))?;
    for n in counts {
        let products = wirebench::fixtures::catalog(n).products;
        let (ratios, floors) = compare(&r, &products, &schema);
        summary += &format!(
            "\n# {n} products. ratio = reference time / our time = our throughput / reference throughput (median over {count} interleaved rounds of each round's ratio; times are medians; > 1: ours faster)\n| comparison | ours µs | reference µs | ratio | target | met |\n|---|---|---|---|---|---|\n"
        );
        summary += &ratio_rows(&ratios);
        summary += &format!(
            "\n# {n} products: our throughput beside memcpy of the same bytes (the physical floor), MB/s\n| format | payload bytes | encode MB/s | decode MB/s | memcpy MB/s | decode ÷ memcpy time |\n|---|---|---|---|---|---|\n"
        );
        for f in floors {
            let mbs = |s: &Side| {
                s.as_ref()
                    .map_or("n/a".into(), |r| format!("{:.1}", f.bytes as f64 / r.median() * 1e3))
            };
            let times = match (&f.decode, &f.memcpy) {
                (Ok(d), Ok(m)) => format!("{:.0}×", d.median() / m.median()),
                _ => "n/a".into(),
            };
            summary += &format!(
                "| {} | {} | {} | {} | {} | {times} |\n",
                f.format,
                f.bytes,
                mbs(&f.encode),
                mbs(&f.decode),
                mbs(&f.memcpy)
            );
        }
    }
    print!("{summary}");
    Ok(())
}

/// The summary table's rows: each ratio with its target and verdict.
fn ratio_rows(ratios: &[Ratio]) -> String {
    let mut summary = String::new();
    for x in ratios {
        let (ratio, met) = match (&x.ours, &x.peer) {
            (Ok(o), Ok(p)) => {
                let q = ratio(o, p);
                (
                    format!("{q:.2}×"),
                    x.target.map_or("—".into(), |t| {
                        if q >= t {
                            "yes".into()
                        } else {
                            format!("NO ({:.0}% short)", 100.0 * (1.0 - q / t))
                        }
                    }),
                )
            }
            (Err(e), _) | (_, Err(e)) => ("n/a".into(), format!("skipped: {e}")),
        };
        let target = x.target.map_or("—".into(), |t| format!("≥ {t}×"));
        summary += &format!(
            "| {} | {} | {} | {ratio} | {target} | {met} |\n",
            x.what,
            us(&x.ours),
            us(&x.peer)
        );
    }
    summary
}

/// The release profile every crate here is built with (`Cargo.toml`).
const PROFILE: &str = "release (Cargo.toml [profile.release]; bench inherits it)";

/// Our throughput beside the memcpy floor for one format's payload.
struct Floor {
    format: &'static str,
    bytes: usize,
    encode: Side,
    decode: Side,
    memcpy: Side,
}

/// Every comparison at one product count, then the memcpy floors.
fn compare(r: &Runner, products: &[Product], schema: &Schema) -> (Vec<Ratio>, Vec<Floor>) {
    let scat = SCatalog::from(&Catalog {
        products: products.to_vec(),
    });
    let mut out = Vec::new();
    let mut floors: Vec<(&'static str, Side, Side)> = Vec::new();
    let payloads = Payloads::new(products, &scat, schema);

    if r.wants("json") {
        floors.push(json(r, products, &scat, &payloads, &mut out));
    }
    if r.wants("msgpack") {
        floors.push(msgpack(r, products, &scat, &payloads, &mut out));
    }
    if r.wants("avro") {
        floors.push(avro(r, products, &scat, schema, &payloads, &mut out));
    }
    if r.wants("protobuf") {
        floors.push(protobuf(r, products, &payloads, &mut out));
    }
    if r.wants("flatbuffers") {
        floors.push(flatbuffers(r, products, &payloads, &mut out));
    }
    if r.wants("instrument") {
        instrument(r, products.len(), &mut out);
    }
    if r.wants("borrowed") {
        out.extend(borrowed(r, products));
    }
    if !r.wants("memcpy") {
        return (out, Vec::new());
    }

    // memcpy floor beside each payload.
    let n = products.len();
    let present: Vec<(&'static str, &[u8])> = payloads.all().into_iter().filter(|(_, b)| !b.is_empty()).collect();
    let cases: Vec<Case<'_>> = present
        .iter()
        .map(|&(f, bytes)| {
            let mut dst = vec![0u8; bytes.len()];
            Case::new(format!("Memcpy/{f}/{n}"), bytes.len(), Ok(()), move || {
                dst.copy_from_slice(black_box(bytes));
                black_box(&mut dst);
            })
        })
        .collect();
    let memcpys = r.group(cases);
    let out_floors = present
        .iter()
        .zip(memcpys)
        .filter_map(|(&(f, bytes), memcpy)| {
            let (_, encode, decode) = floors.iter().find(|x| x.0 == f).cloned()?;
            Some(Floor {
                format: f,
                bytes: bytes.len(),
                encode,
                decode,
                memcpy,
            })
        })
        .collect();
    (out, out_floors)
}

/// Our payload of each format (or why encoding failed).
struct Payloads {
    json: Result<Vec<u8>, String>,
    msgpack: Result<Vec<u8>, String>,
    avro: Result<Vec<u8>, String>,
    protobuf: Result<Vec<u8>, String>,
    flatbuffers: Result<Vec<u8>, String>,
}

impl Payloads {
    fn new(products: &[Product], scat: &SCatalog, schema: &Schema) -> Payloads {
        let ours = |f: Format| f.encode_to_vec(products).map_err(|e| e.to_string());
        let p = Payloads {
            json: ours(Format::Json),
            msgpack: ours(Format::Msgpack),
            avro: ours(Format::Avro),
            protobuf: ours(Format::Protobuf),
            flatbuffers: ours(Format::Flatbuffers),
        };
        // The byte-identity each comparison relies on, stated in the output.
        let same = |name: &str, ours: &Result<Vec<u8>, String>, theirs: Result<Vec<u8>, String>| {
            if let (Ok(a), Ok(b)) = (ours, &theirs) {
                println!(
                    "# {name}: our bytes and the reference's are {} ({} vs {} bytes)",
                    if a == b { "identical" } else { "DIFFERENT" },
                    a.len(),
                    b.len()
                );
            }
        };
        same("json", &p.json, serde_json::to_vec(scat).map_err(|e| e.to_string()));
        same(
            "msgpack",
            &p.msgpack,
            rmp_serde::to_vec_named(scat).map_err(|e| e.to_string()),
        );
        same(
            "avro",
            &p.avro,
            avro_writer(schema).and_then(|w| avro_ser(&w, &ACatalog::from(scat))),
        );
        same(
            "protobuf",
            &p.protobuf,
            hooks::pb_to_generated(products).and_then(|g| {
                let mut v = Vec::new();
                hooks::pb_encode_generated(&g, &mut v).map(|()| v)
            }),
        );
        p
    }

    fn all(&self) -> [(&'static str, &[u8]); 5] {
        fn b(r: &Result<Vec<u8>, String>) -> &[u8] {
            r.as_deref().unwrap_or(&[])
        }
        [
            ("json", b(&self.json)),
            ("msgpack", b(&self.msgpack)),
            ("avro", b(&self.avro)),
            ("protobuf", b(&self.protobuf)),
            ("flatbuffers", b(&self.flatbuffers)),
        ]
    }
}

/// JSON: ours, serde_json, sonic-rs, simd-json, each way.
fn json(
    r: &Runner,
    products: &[Product],
    scat: &SCatalog,
    p: &Payloads,
    out: &mut Vec<Ratio>,
) -> (&'static str, Side, Side) {
    let n = products.len();
    let Ok(bytes) = &p.json else {
        return ("json", Err("no JSON payload".into()), Err("no JSON payload".into()));
    };
    let len = bytes.len();
    let (mut b1, mut b2, mut b3) = (
        Vec::with_capacity(len),
        Vec::with_capacity(len),
        Vec::with_capacity(len),
    );
    let probe = |s: Result<Vec<u8>, String>| {
        s.and_then(|v| {
            if &v == bytes {
                Ok(())
            } else {
                Err("different bytes".into())
            }
        })
    };
    let enc = r.group(vec![
        ours_encode(Format::Json, products, &p.json),
        Case::new(
            format!("Encode/json/{n}/serde_json"),
            len,
            probe(serde_json::to_vec(scat).map_err(|e| e.to_string())),
            || {
                b1.clear();
                serde_json::to_writer(&mut b1, black_box(scat)).expect("serde_json encode");
                assert_eq!(b1.len(), len);
            },
        ),
        Case::new(
            format!("Encode/json/{n}/sonic_rs"),
            len,
            probe(sonic_rs::to_vec(scat).map_err(|e| e.to_string())),
            || {
                b2.clear();
                sonic_rs::to_writer(&mut b2, black_box(scat)).expect("sonic-rs encode");
                assert_eq!(b2.len(), len);
            },
        ),
        Case::new(
            format!("Encode/json/{n}/simd_json"),
            len,
            probe(simd_json::to_vec(scat).map_err(|e| e.to_string())),
            || {
                b3.clear();
                simd_json::to_writer(&mut b3, black_box(scat)).expect("simd-json encode");
                assert_eq!(b3.len(), len);
            },
        ),
    ]);
    let mut input = bytes.clone();
    let mut buffers = simd_json::Buffers::new(len);
    let simd_probe = {
        let mut copy = bytes.clone();
        simd_json::serde::from_slice::<SCatalog>(&mut copy)
            .map_err(|e| e.to_string())
            .and_then(|c| {
                if &c == scat {
                    Ok(())
                } else {
                    Err("different catalog".into())
                }
            })
    };
    let dec = r.group(vec![
        ours_decode(Format::Json, n, &p.json),
        Case::new(format!("Decode/json/{n}/serde_json"), len, Ok(()), || {
            let c: SCatalog = serde_json::from_slice(black_box(bytes)).expect("serde_json decode");
            assert_eq!(c.products.len(), n);
            black_box(c);
        }),
        Case::new(
            format!("Decode/json/{n}/sonic_rs"),
            len,
            sonic_rs::from_slice::<SCatalog>(bytes)
                .map_err(|e| e.to_string())
                .and_then(|c| {
                    if &c == scat {
                        Ok(())
                    } else {
                        Err("different catalog".into())
                    }
                }),
            || {
                let c: SCatalog = sonic_rs::from_slice(black_box(bytes)).expect("sonic-rs decode");
                assert_eq!(c.products.len(), n);
                black_box(c);
            },
        ),
        Case::new(format!("Decode/json/{n}/simd_json"), len, simd_probe, || {
            // simd-json parses in place: the payload is copied into a reused buffer first.
            input.copy_from_slice(black_box(bytes));
            let c: SCatalog =
                simd_json::serde::from_slice_with_buffers(&mut input, &mut buffers).expect("simd-json decode");
            assert_eq!(c.products.len(), n);
            black_box(c);
        }),
    ]);
    let [oe, sje, sre, sme]: [Side; 4] = enc.try_into().expect("four sides");
    let [od, sjd, srd, smd]: [Side; 4] = dec.try_into().expect("four sides");
    out.push(Ratio::new(
        "JSON encode vs serde_json (`to_writer`)",
        &oe,
        &sje,
        Some(2.0),
    ));
    out.push(Ratio::new("JSON encode vs sonic-rs (`to_writer`)", &oe, &sre, None));
    out.push(Ratio::new("JSON encode vs simd-json (`to_writer`)", &oe, &sme, None));
    let (name, fe) = fastest(&[("serde_json", &sje), ("sonic-rs", &sre), ("simd-json", &sme)]);
    out.push(Ratio::new(
        format!("JSON encode vs the fastest JSON crate ({name})"),
        &oe,
        &fe,
        Some(1.5),
    ));
    out.push(Ratio::new(
        "JSON decode vs serde_json (`from_slice`, owned structs)",
        &od,
        &sjd,
        None,
    ));
    out.push(Ratio::new(
        "JSON decode vs sonic-rs (`from_slice`, owned structs)",
        &od,
        &srd,
        None,
    ));
    out.push(Ratio::new(
        "JSON decode vs simd-json (copy + `from_slice_with_buffers`, owned structs)",
        &od,
        &smd,
        None,
    ));
    let (name, fd) = fastest(&[("serde_json", &sjd), ("sonic-rs", &srd), ("simd-json", &smd)]);
    out.push(Ratio::new(
        format!("JSON decode vs the fastest JSON crate ({name})"),
        &od,
        &fd,
        Some(1.25),
    ));
    ("json", oe, od)
}

/// MessagePack: ours vs rmp-serde with named fields (the same bytes as ours).
fn msgpack(
    r: &Runner,
    products: &[Product],
    scat: &SCatalog,
    p: &Payloads,
    out: &mut Vec<Ratio>,
) -> (&'static str, Side, Side) {
    let n = products.len();
    let mp = rmp_serde::to_vec_named(scat).expect("rmp_serde");
    let mut buf = Vec::with_capacity(mp.len());
    let enc = r.group(vec![
        ours_encode(Format::Msgpack, products, &p.msgpack),
        Case::new(format!("Encode/msgpack/{n}/rmp_serde"), mp.len(), Ok(()), || {
            buf.clear();
            rmp_serde::encode::write_named(&mut buf, black_box(scat)).expect("rmp encode");
            assert_eq!(buf.len(), mp.len());
        }),
    ]);
    let dec = r.group(vec![
        ours_decode(Format::Msgpack, n, &p.msgpack),
        Case::new(format!("Decode/msgpack/{n}/rmp_serde"), mp.len(), Ok(()), || {
            let c: SCatalog = rmp_serde::from_slice(black_box(&mp)).expect("rmp decode");
            assert_eq!(c.products.len(), n);
            black_box(c);
        }),
    ]);
    let [oe, pe]: [Side; 2] = enc.try_into().expect("two sides");
    let [od, pd]: [Side; 2] = dec.try_into().expect("two sides");
    out.push(Ratio::new(
        "MessagePack encode vs rmp-serde (`write_named`)",
        &oe,
        &pe,
        Some(4.0),
    ));
    out.push(Ratio::new(
        "MessagePack decode vs rmp-serde (`from_slice`)",
        &od,
        &pd,
        Some(1.5),
    ));
    ("msgpack", oe, od)
}

fn avro_writer(schema: &Schema) -> Result<GenericDatumWriter<'_>, String> {
    GenericDatumWriter::builder(schema)
        .build()
        .map_err(|e| format!("apache-avro writer: {e}"))
}

fn avro_reader(schema: &Schema) -> Result<GenericDatumReader<'_>, String> {
    GenericDatumReader::builder(schema)
        .build()
        .map_err(|e| format!("apache-avro reader: {e}"))
}

fn avro_ser(w: &GenericDatumWriter<'_>, scat: &ACatalog) -> Result<Vec<u8>, String> {
    w.write_ser_to_vec(scat)
        .map_err(|e| format!("apache-avro write_ser: {e}"))
}

/// Avro: ours vs apache-avro's schema-aware serde path and its `Value` path.
fn avro(
    r: &Runner,
    products: &[Product],
    scat: &SCatalog,
    schema: &Schema,
    p: &Payloads,
    out: &mut Vec<Ratio>,
) -> (&'static str, Side, Side) {
    let n = products.len();
    let acat = ACatalog::from(scat);
    let scat = &acat;
    let (writer, reader) = match (avro_writer(schema), avro_reader(schema)) {
        (Ok(w), Ok(r)) => (w, r),
        (Err(e), _) | (_, Err(e)) => {
            out.push(Ratio::new(
                "Avro vs apache-avro",
                &Err(e.clone()),
                &Err(e.clone()),
                None,
            ));
            return ("avro", Err(e.clone()), Err(e));
        }
    };
    let av = avro_ser(&writer, scat).unwrap_or_default();
    let len = av.len();
    let ser_probe = avro_ser(&writer, scat).map(drop);
    let value_encode = |w: &mut Vec<u8>, c: &ACatalog| -> Result<(), String> {
        let v = apache_avro::to_value(c).map_err(|e| e.to_string())?;
        writer.write_value_ref(w, &v).map(drop).map_err(|e| e.to_string())
    };
    let value_probe = {
        let mut v = Vec::new();
        value_encode(&mut v, scat).and_then(|()| if v == av { Ok(()) } else { Err("different bytes".into()) })
    };
    let (mut b1, mut b2) = (Vec::with_capacity(len), Vec::with_capacity(len));
    let enc = r.group(vec![
        ours_encode(Format::Avro, products, &p.avro),
        Case::new(format!("Encode/avro/{n}/apache_avro_serde"), len, ser_probe, || {
            b1.clear();
            writer.write_ser(&mut b1, black_box(scat)).expect("avro write_ser");
            assert_eq!(b1.len(), len);
        }),
        Case::new(format!("Encode/avro/{n}/apache_avro_value"), len, value_probe, || {
            b2.clear();
            value_encode(&mut b2, black_box(scat)).expect("avro Value encode");
            assert_eq!(b2.len(), len);
        }),
    ]);
    let deser =
        |bytes: &[u8]| -> Result<ACatalog, String> { reader.read_deser(&mut &bytes[..]).map_err(|e| e.to_string()) };
    let value_decode = |bytes: &[u8]| -> Result<ACatalog, String> {
        let v = reader.read_value(&mut &bytes[..]).map_err(|e| e.to_string())?;
        apache_avro::from_value(&v).map_err(|e| e.to_string())
    };
    let check = |c: Result<ACatalog, String>| {
        c.and_then(|c| {
            if &c == scat {
                Ok(())
            } else {
                Err("different catalog".into())
            }
        })
    };
    let dec = r.group(vec![
        ours_decode(Format::Avro, n, &p.avro),
        Case::new(
            format!("Decode/avro/{n}/apache_avro_serde"),
            len,
            check(deser(&av)),
            || {
                let c = deser(black_box(&av)).expect("avro read_deser");
                assert_eq!(c.products.len(), n);
                black_box(c);
            },
        ),
        Case::new(
            format!("Decode/avro/{n}/apache_avro_value"),
            len,
            check(value_decode(&av)),
            || {
                let c = value_decode(black_box(&av)).expect("avro Value decode");
                assert_eq!(c.products.len(), n);
                black_box(c);
            },
        ),
    ]);
    let [oe, se, ve]: [Side; 3] = enc.try_into().expect("three sides");
    let [od, sd, vd]: [Side; 3] = dec.try_into().expect("three sides");
    out.push(Ratio::new(
        "Avro encode vs apache-avro serde (`GenericDatumWriter::write_ser`)",
        &oe,
        &se,
        None,
    ));
    out.push(Ratio::new(
        "Avro encode vs apache-avro Value (`to_value` + `write_value_ref`)",
        &oe,
        &ve,
        None,
    ));
    let (name, fe) = fastest(&[("serde", &se), ("Value", &ve)]);
    out.push(Ratio::new(
        format!("Avro encode vs apache-avro's fastest path ({name})"),
        &oe,
        &fe,
        Some(8.0),
    ));
    out.push(Ratio::new(
        "Avro decode vs apache-avro serde (`GenericDatumReader::read_deser`)",
        &od,
        &sd,
        None,
    ));
    out.push(Ratio::new(
        "Avro decode vs apache-avro Value (`read_value` + `from_value`)",
        &od,
        &vd,
        None,
    ));
    let (name, fd) = fastest(&[("serde", &sd), ("Value", &vd)]);
    out.push(Ratio::new(
        format!("Avro decode vs apache-avro's fastest path ({name})"),
        &od,
        &fd,
        Some(1.5),
    ));
    ("avro", oe, od)
}

/// Protobuf: ours vs prost from our domain types, and prost alone.
fn protobuf(r: &Runner, products: &[Product], p: &Payloads, out: &mut Vec<Ratio>) -> (&'static str, Side, Side) {
    let n = products.len();
    let pb: &[u8] = p.protobuf.as_deref().unwrap_or(&[]);
    let prebuilt = hooks::pb_to_generated(products);
    let empty = hooks::PbCatalog::default();
    let g = prebuilt.as_ref().unwrap_or(&empty);
    let probe = prebuilt
        .as_ref()
        .map_err(Clone::clone)
        .and_then(|g| hooks::pb_encode_generated(g, &mut Vec::new()));
    let (mut b1, mut b2) = (Vec::with_capacity(pb.len()), Vec::with_capacity(pb.len()));
    let enc = r.group(vec![
        ours_encode(Format::Protobuf, products, &p.protobuf),
        Case::new(
            format!("Encode/protobuf/{n}/prost_from_domain"),
            pb.len(),
            probe.clone(),
            || {
                b1.clear();
                let g = hooks::pb_to_generated(black_box(products)).expect("to_generated");
                hooks::pb_encode_generated(&g, &mut b1).expect("prost encode");
                assert_eq!(b1.len(), pb.len());
            },
        ),
        Case::new(format!("EncodePrebuilt/protobuf/{n}/prost"), pb.len(), probe, || {
            b2.clear();
            hooks::pb_encode_generated(black_box(g), &mut b2).expect("prost encode");
            assert_eq!(b2.len(), pb.len());
        }),
    ]);
    let probe = hooks::pb_decode_generated(pb).map(drop);
    let dec = r.group(vec![
        ours_decode(Format::Protobuf, n, &p.protobuf),
        Case::new(
            format!("Decode/protobuf/{n}/prost_to_domain"),
            pb.len(),
            probe.clone(),
            || {
                let g = hooks::pb_decode_generated(black_box(pb)).expect("prost decode");
                let c = wirebench::codec::protobuf::from_generated(g).expect("conversion");
                assert_eq!(c.products.len(), n);
                black_box(c);
            },
        ),
        Case::new(format!("DecodeGenerated/protobuf/{n}/prost"), pb.len(), probe, || {
            let g = hooks::pb_decode_generated(black_box(pb)).expect("prost decode");
            assert_eq!(hooks::pb_len(&g), n);
            black_box(g);
        }),
    ]);
    let [oe, de, pre]: [Side; 3] = enc.try_into().expect("three sides");
    let [od, dd, gd]: [Side; 3] = dec.try_into().expect("three sides");
    out.push(Ratio::new(
        "Protobuf encode vs prost from our types (`to_generated` + `encode`)",
        &oe,
        &de,
        Some(2.5),
    ));
    out.push(Ratio::new(
        "Protobuf encode vs prost's encode of prebuilt messages (target: our time ≤ 1.2× theirs)",
        &oe,
        &pre,
        Some(0.83),
    ));
    out.push(Ratio::new(
        "Protobuf decode vs prost + conversion to our types (`decode` + `from_generated`, validates too)",
        &od,
        &dd,
        Some(1.0),
    ));
    out.push(Ratio::new(
        "Protobuf decode vs prost into its generated types only (no conversion, no validation)",
        &od,
        &gd,
        None,
    ));
    ("protobuf", oe, od)
}

/// The crate used directly to read: `root_as_catalog` (verifier with its
/// default limits), then every field copied into our domain types.
fn fb_decode_direct(bytes: &[u8]) -> Result<Vec<Product>, String> {
    let root = fb::root_as_catalog(bytes).map_err(|e| e.to_string())?;
    root.products()
        .iter()
        .map(|p| {
            let d = p.dimensions();
            Ok(Product {
                id: p.id(),
                sku: p.sku().to_owned(),
                name: p.name().to_owned(),
                description: p.description().to_owned(),
                price_cents: p.price_cents(),
                currency: p.currency().to_owned(),
                rating: p.rating(),
                review_count: p.review_count(),
                in_stock: p.in_stock(),
                stock: p.stock(),
                status: Status::from_index(i64::from(p.status().0)).ok_or("unknown status")?,
                tags: p.tags().iter().map(str::to_owned).collect(),
                dimensions: Dimensions {
                    width_mm: d.width_mm(),
                    height_mm: d.height_mm(),
                    depth_mm: d.depth_mm(),
                    weight_g: d.weight_g(),
                },
                variants: p
                    .variants()
                    .iter()
                    .map(|v| Variant {
                        sku: v.sku().to_owned(),
                        color: v.color().to_owned(),
                        size: v.size().to_owned(),
                        price_cents: v.price_cents(),
                        stock: v.stock(),
                    })
                    .collect(),
                discount_percent: p.discount_percent(),
                created_at_ms: p.created_at_ms(),
                image_url: p.image_url().to_owned(),
            })
        })
        .collect()
}

/// FlatBuffers: ours vs the official crate used directly, plus the verifier
/// and in-place reads for scale.
fn flatbuffers(r: &Runner, products: &[Product], p: &Payloads, out: &mut Vec<Ratio>) -> (&'static str, Side, Side) {
    let n = products.len();
    let fbytes: &[u8] = p.flatbuffers.as_deref().unwrap_or(&[]);
    let mut fbb = FlatBufferBuilder::new();
    let direct_len = build::<false>(&mut fbb, products).len();
    let probe = match fb_decode_direct(build::<false>(&mut FlatBufferBuilder::new(), products)) {
        Ok(c) if c == products => Ok(()),
        Ok(_) => Err("the direct build does not read back as the products".into()),
        Err(e) => Err(e),
    };
    let enc = r.group(vec![
        ours_encode(Format::Flatbuffers, products, &p.flatbuffers),
        Case::new(
            format!("Encode/flatbuffers/{n}/crate_direct"),
            direct_len,
            probe,
            || {
                let bytes = build::<false>(&mut fbb, black_box(products));
                assert_eq!(bytes.len(), direct_len);
                black_box(bytes);
            },
        ),
    ]);
    let probe = fb_decode_direct(fbytes).and_then(|c| {
        if c == products {
            Ok(())
        } else {
            Err("different products".into())
        }
    });
    let dec = r.group(vec![
        ours_decode(Format::Flatbuffers, n, &p.flatbuffers),
        Case::new(
            format!("Decode/flatbuffers/{n}/crate_direct"),
            fbytes.len(),
            probe,
            || {
                let c = fb_decode_direct(black_box(fbytes)).expect("direct decode");
                assert_eq!(c.len(), n);
                black_box(c);
            },
        ),
        Case::new(
            format!("Verify/flatbuffers/{n}"),
            fbytes.len(),
            hooks::fb_verify(fbytes),
            || {
                hooks::fb_verify(black_box(fbytes)).expect("verify");
            },
        ),
        Case::new(
            format!("VerifyRead/flatbuffers/{n}"),
            fbytes.len(),
            hooks::fb_read_direct(fbytes).map(drop),
            || {
                black_box(hooks::fb_read_direct(black_box(fbytes)).expect("read_direct"));
            },
        ),
    ]);
    let [oe, de]: [Side; 2] = enc.try_into().expect("two sides");
    let [od, dd, pv, pr]: [Side; 4] = dec.try_into().expect("four sides");
    out.push(Ratio::new(
        "FlatBuffers encode vs the crate used directly (reused builder, from our types)",
        &oe,
        &de,
        Some(1.0),
    ));
    out.push(Ratio::new(
        "FlatBuffers decode vs the crate used directly (`root_as_catalog` + copy into our types)",
        &od,
        &dd,
        Some(1.0),
    ));
    out.push(Ratio::new(
        "FlatBuffers verify + read every field in place vs verifier alone",
        &pr,
        &pv,
        None,
    ));
    ("flatbuffers", oe, od)
}

/// Instrument overhead: the same decode timed by `wirebench codec-bench` (its
/// counting allocator installed, switched off while timing) and by this
/// bench binary under plain `System` (`--system-child`), each in a fresh
/// child process with the same setup before the row, taking turns. Both
/// sides are fresh processes because glibc's malloc tunes its trim and mmap
/// thresholds to what a process has freed before, which moves an allocating
/// loop's time by more than the instrument could: a long-lived process that
/// freed large buffers earlier times the same loop faster than a young one.
fn instrument(r: &Runner, n: usize, out: &mut Vec<Ratio>) {
    for f in [Format::Json, Format::Protobuf] {
        let row = format!("Decode/{f}/{n}");
        let (mut cb, mut sys) = (Vec::new(), Vec::new());
        let mut failed = None;
        for _ in 0..r.cfg.count {
            match codec_bench_ns(f, n, &row, r.cfg.benchtime) {
                Ok((ns, line)) => {
                    println!(
                        "{}",
                        line.replace(&format!("Benchmark{row}-"), &format!("Benchmark{row}/codec_bench-"))
                    );
                    cb.push(ns);
                }
                Err(e) => failed = Some(e),
            }
            match system_child_ns(f, n, r.cfg.benchtime) {
                Ok((ns, line)) => {
                    println!("{line}");
                    sys.push(ns);
                }
                Err(e) => failed = Some(e),
            }
        }
        let side = |v: &[f64]| -> Side {
            match &failed {
                Some(e) => Err(e.clone()),
                None if v.is_empty() => Err("no runs".to_string()),
                None => Ok(Rounds(v.to_vec())),
            }
        };
        let (ours, theirs) = (side(&cb), side(&sys));
        for (what, s) in [("codec_bench", &ours), ("system", &theirs)] {
            if let Ok(r) = s {
                eprintln!("peers: {:<48} {:>12.0} ns/op", format!("{row}/{what}"), r.median());
            }
        }
        out.push(Ratio::new(
            format!(
                "Instrument overhead: {f} decode timed by `wirebench codec-bench` vs the same harness and loop under plain System (fresh processes; target: within 3%)"
            ),
            &ours,
            &theirs,
            Some(0.97),
        ));
    }
}

/// `--system-child FORMAT`: what `wirebench codec-bench --formats FORMAT
/// --counts N --filter Decode/FORMAT/N` does before and for that row (make
/// the products, encode them, hold an encode buffer, probe the decoder, then
/// the harness's `bench`: calibrate, one batch, the counting run), in this
/// binary, under plain `System`; prints the row's Go line.
fn system_child(f: Format, n: usize, benchtime: Duration) -> Result<(), String> {
    let products = wirebench::fixtures::catalog(n).products;
    let bytes = f.encode_to_vec(&products).map_err(|e| e.to_string())?;
    let encode_buf: Vec<u8> = Vec::with_capacity(bytes.len());
    let probe = f.decode(&bytes).map_err(|e| e.to_string())?;
    drop(probe);
    let cfg = Config { benchtime, count: 1 };
    let runs = wirebench::bench::bench(&cfg, 1, || {
        let c = f.decode(black_box(&bytes)).expect("decode");
        assert_eq!(c.products.len(), n);
        black_box(c);
    });
    println!("{}", go_line(&format!("Decode/{f}/{n}/system"), &runs[0], bytes.len()));
    drop(encode_buf);
    Ok(())
}

/// Runs this binary as `--system-child` for one decode row; returns its
/// ns/op and its result line.
fn system_child_ns(f: Format, n: usize, benchtime: Duration) -> Result<(f64, String), String> {
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let output = std::process::Command::new(&exe)
        .args(["--system-child", &f.to_string(), "--counts", &n.to_string()])
        .args(["--benchtime", &format!("{}ms", benchtime.as_millis().max(1))])
        .stderr(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("{}: {e}", exe.display()))?;
    if !output.status.success() {
        return Err(format!(
            "{} --system-child exited with {}",
            exe.display(),
            output.status
        ));
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let line = text
        .lines()
        .find(|l| l.starts_with("BenchmarkDecode/"))
        .ok_or_else(|| "the system child printed no result line".to_string())?;
    Ok((ns_per_op(line)?, line.to_string()))
}

/// The ns/op field of a Go benchmark line.
fn ns_per_op(line: &str) -> Result<f64, String> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    fields
        .windows(2)
        .find(|w| w[1] == "ns/op")
        .and_then(|w| w[0].parse::<f64>().ok())
        .ok_or_else(|| format!("no ns/op in {line:?}"))
}

/// Runs `wirebench codec-bench` for one row, one batch; returns its ns/op and
/// its result line.
fn codec_bench_ns(f: Format, n: usize, row: &str, benchtime: Duration) -> Result<(f64, String), String> {
    let exe = env!("CARGO_BIN_EXE_wirebench");
    let output = std::process::Command::new(exe)
        .args(["codec-bench", "--formats", &f.to_string(), "--counts", &n.to_string()])
        .args([
            "--count",
            "1",
            "--benchtime",
            &format!("{}ms", benchtime.as_millis().max(1)),
        ])
        .args(["--filter", row, "--out", "-", "--env", "none"])
        .stderr(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("{exe}: {e}"))?;
    if !output.status.success() {
        return Err(format!("{exe} codec-bench exited with {}", output.status));
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let prefix = format!("Benchmark{row}-");
    let line = text
        .lines()
        .find(|l| l.starts_with(&prefix))
        .ok_or_else(|| format!("codec-bench printed no {row} line"))?;
    Ok((ns_per_op(line)?, line.to_string()))
}

/// Our view decode (`Format::decode_view`) of `f` as a case.
fn ours_view(f: Format, n: usize, payload: &Result<Vec<u8>, String>) -> Case<'_> {
    let bytes: &[u8] = payload.as_deref().unwrap_or(&[]);
    let probe = payload
        .as_ref()
        .map_err(Clone::clone)
        .and_then(|b| f.decode_view(b).map(|_| ()).map_err(|e| e.to_string()));
    Case::new(format!("DecodeBorrowed/{f}/{n}/ours"), bytes.len(), probe, move || {
        let v = f.decode_view(black_box(bytes)).expect("decode_view");
        assert_eq!(v.len(), n);
        black_box(v);
    })
}

/// Borrowed reads: our view decode against our owned decode (every format)
/// and against serde's borrowed deserialization (`Cow<'a, str>` fields,
/// [`serde_borrowed`]) by serde_json, sonic-rs and rmp-serde. Each group
/// runs interleaved.
fn borrowed(r: &Runner, products: &[Product]) -> Vec<Ratio> {
    let n = products.len();
    let mut out = Vec::new();
    for f in Format::ALL {
        let payload = f.encode_to_vec(products).map_err(|e| e.to_string());
        let [owned, view]: [Side; 2] = r
            .group(vec![ours_decode(f, n, &payload), ours_view(f, n, &payload)])
            .try_into()
            .expect("two sides");
        out.push(Ratio {
            what: format!("{f} decode: borrowed view vs owned (ours; target: borrowed ≤ 0.5× owned)"),
            ours: view,
            peer: owned,
            target: Some(2.0),
        });
    }

    let json = Format::Json.encode_to_vec(products).map_err(|e| e.to_string());
    let bytes: &[u8] = json.as_deref().unwrap_or(&[]);
    // Each peer must read back exactly the fixture.
    let probe = |r: Result<BCatalog<'_>, String>| match r {
        Ok(c) if c.to_catalog().products == products => Ok(()),
        Ok(_) => Err("read back a catalog other than the fixture".to_string()),
        Err(e) => Err(e),
    };
    let sides = r.group(vec![
        ours_view(Format::Json, n, &json),
        Case::new(
            format!("DecodeBorrowed/json/{n}/serde_json"),
            bytes.len(),
            probe(serde_json::from_slice(bytes).map_err(|e| e.to_string())),
            || {
                let c: BCatalog<'_> = serde_json::from_slice(black_box(bytes)).expect("serde_json");
                assert_eq!(c.products.len(), n);
                black_box(c);
            },
        ),
        Case::new(
            format!("DecodeBorrowed/json/{n}/sonic-rs"),
            bytes.len(),
            probe(sonic_rs::from_slice(bytes).map_err(|e| e.to_string())),
            || {
                let c: BCatalog<'_> = sonic_rs::from_slice(black_box(bytes)).expect("sonic-rs");
                assert_eq!(c.products.len(), n);
                black_box(c);
            },
        ),
    ]);
    let [ours, sj, sonic]: [Side; 3] = sides.try_into().expect("three sides");
    out.push(Ratio {
        what: "JSON borrowed: our view decode vs serde_json into borrowed structs".into(),
        ours: ours.clone(),
        peer: sj,
        target: Some(1.2),
    });
    out.push(Ratio {
        what: "JSON borrowed: our view decode vs sonic-rs into borrowed structs".into(),
        ours,
        peer: sonic,
        target: None,
    });

    let msgpack = Format::Msgpack.encode_to_vec(products).map_err(|e| e.to_string());
    let bytes: &[u8] = msgpack.as_deref().unwrap_or(&[]);
    let [ours, rmp]: [Side; 2] = r
        .group(vec![
            ours_view(Format::Msgpack, n, &msgpack),
            Case::new(
                format!("DecodeBorrowed/msgpack/{n}/rmp-serde"),
                bytes.len(),
                probe(rmp_serde::from_slice(bytes).map_err(|e| e.to_string())),
                || {
                    let c: BCatalog<'_> = rmp_serde::from_slice(black_box(bytes)).expect("rmp-serde");
                    assert_eq!(c.products.len(), n);
                    black_box(c);
                },
            ),
        ])
        .try_into()
        .expect("two sides");
    out.push(Ratio {
        what: "MessagePack borrowed: our view decode vs rmp-serde into borrowed structs".into(),
        ours,
        peer: rmp,
        target: Some(1.2),
    });
    out
}
