//! Peer benchmark (`make bench-peers` → `results/peers.txt`): our codecs beside
//! the reference crates, on the same catalog, in one run, with our own harness
//! ([`wirebench::bench`]) and counting allocator.
//!
//! | comparison | ours | peer |
//! |---|---|---|
//! | JSON | `Format::Json` encode / decode (+ validation) | `serde_json::to_writer` / `from_slice` into owned serde mirror structs |
//! | MessagePack | `Format::Msgpack` | `rmp_serde::encode::write_named` / `from_slice` (named fields) |
//! | Avro | `Format::Avro` | apache-avro's fastest datum path: `write_avro_datum_ref` (schema-aware serde writer) / `from_avro_datum` + `from_value` (0.21 has no direct serde reader) |
//! | Protobuf | encode from our domain types / decode to them | prost on prebuilt generated messages / decode into generated types only |
//! | FlatBuffers | full decode to domain types | verifier alone; verify + read every field |
//! | memcpy | — | copying each payload: the physical floor |
//!
//! Ratio = peer time ÷ our time = our throughput ÷ peer throughput (> 1: ours
//! is faster), from the medians of `--count` runs. The two sides of a
//! comparison run interleaved (A B A B …) so that a change in machine load
//! during the run cannot favour one of them. Peers encode from their own
//! prebuilt structs (conversion from our types is not charged to them) and
//! their decoders do not validate ranges; ours do.
//!
//! Flags: `--benchtime 300ms --count 5 --counts 1000`.

#[path = "../tests/support/serde_mirror.rs"]
mod serde_mirror;

use serde_mirror::SCatalog;
use std::hint::black_box;
use wirebench::bench::{Config, Line, Run, calibrate_op, hooks, measure};
use wirebench::cli::{Args, parse_duration};
use wirebench::codec::Format;
use wirebench::measure::alloc::CountingAlloc;
use wirebench::measure::stats::median;
use wirebench::model::{Catalog, Product};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc::new();

/// One measured side: median ns/op, or why it could not run.
type Side = Result<f64, String>;

struct Runner {
    cfg: Config,
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

impl Runner {
    /// Measures the cases of one comparison *interleaved*: calibrate each,
    /// then one batch of each in turn, `--count` times (A B A B …), so a
    /// change in machine load during the run hits every side alike. Prints
    /// every batch as a Go line and returns each case's median ns/op.
    fn group(&self, mut cases: Vec<Case<'_>>) -> Vec<Side> {
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
                c.probe.clone()?;
                for r in &runs {
                    println!("{}", Line::from_run(&c.name, r, c.payload));
                }
                let ns: Vec<f64> = runs.iter().map(|r| r.ns_per_op()).collect();
                let med = median(&ns).unwrap_or(f64::NAN);
                eprintln!("peers: {:<44} {med:>12.0} ns/op", c.name);
                Ok(med)
            })
            .collect()
    }

    /// [`Runner::group`] of two cases.
    fn pair(&self, a: Case<'_>, b: Case<'_>) -> (Side, Side) {
        let mut v = self.group(vec![a, b]).into_iter();
        let a = v.next().expect("two sides");
        (a, v.next().expect("two sides"))
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

/// One row of the summary table.
struct Ratio {
    what: String,
    ours: Side,
    peer: Side,
    target: Option<f64>,
}

fn us(s: &Side) -> String {
    match s {
        Ok(ns) => format!("{:.2}", ns / 1000.0),
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
    args.switch("--bench"); // cargo bench passes it
    let benchtime = parse_duration(&args.value("--benchtime")?.unwrap_or("300ms".into()))?;
    let count = args.parse_or("--count", 5usize)?.max(1);
    let counts = args.list::<usize>("--counts")?.unwrap_or(vec![1000]);
    args.finish()?;
    let r = Runner {
        cfg: Config { benchtime, count },
    };
    let env = wirebench::measure::env::capture();
    print!("{}", wirebench::bench::go_header(&env.cpu));
    println!(
        "benchtime: {benchtime:?}\ncount: {count}\ncommit: {}\ndate: {}\nloadavg: {}",
        env.git_commit, env.date_utc, env.load_average
    );
    let schema =
        apache_avro::Schema::parse_str(wirebench::codec::avro::SCHEMA).map_err(|e| format!("avro schema: {e}"))?;
    let mut summary = String::new();
    for n in counts {
        let products = wirebench::fixtures::catalog(n).products;
        let (ratios, floors) = compare(&r, &products, &schema);
        summary += &format!(
            "\n# {n} products. ratio = reference time / our time = our throughput / reference throughput (median of {count} runs; > 1: ours faster)\n| comparison | ours µs | reference µs | ratio | target | met |\n|---|---|---|---|---|---|\n"
        );
        for x in ratios {
            let (ratio, met) = match (&x.ours, &x.peer) {
                (Ok(o), Ok(p)) => {
                    let q = p / o;
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
        summary += &format!(
            "\n# {n} products: our throughput beside memcpy of the same bytes (the physical floor), MB/s\n| format | payload bytes | encode MB/s | decode MB/s | memcpy MB/s | decode ÷ memcpy time |\n|---|---|---|---|---|---|\n"
        );
        for f in floors {
            let mbs = |s: &Side| {
                s.as_ref()
                    .map_or("n/a".into(), |ns| format!("{:.1}", f.bytes as f64 / ns * 1e3))
            };
            let times = match (&f.decode, &f.memcpy) {
                (Ok(d), Ok(m)) => format!("{:.0}×", d / m),
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

/// Our throughput beside the memcpy floor for one format's payload.
struct Floor {
    format: &'static str,
    bytes: usize,
    encode: Side,
    decode: Side,
    memcpy: Side,
}

fn compare(r: &Runner, products: &[Product], schema: &apache_avro::Schema) -> (Vec<Ratio>, Vec<Floor>) {
    let n = products.len();
    let scat = SCatalog::from(&Catalog {
        products: products.to_vec(),
    });
    let ours = |f: Format| f.encode_to_vec(products).map_err(|e| e.to_string());
    let mut out = Vec::new();
    let mut floors: Vec<(&'static str, Side, Side)> = Vec::new();

    // JSON vs serde_json.
    let json = ours(Format::Json);
    let sj = serde_json::to_vec(&scat).expect("serde_json");
    let mut buf = Vec::with_capacity(sj.len());
    let (oe, pe) = r.pair(
        ours_encode(Format::Json, products, &json),
        Case::new(format!("Encode/json/{n}/serde_json"), sj.len(), Ok(()), || {
            buf.clear();
            serde_json::to_writer(&mut buf, black_box(&scat)).expect("serde_json encode");
            assert_eq!(buf.len(), sj.len());
        }),
    );
    let (od, pd) = r.pair(
        ours_decode(Format::Json, n, &json),
        Case::new(format!("Decode/json/{n}/serde_json"), sj.len(), Ok(()), || {
            let c: SCatalog = serde_json::from_slice(black_box(&sj)).expect("serde_json decode");
            assert_eq!(c.products.len(), n);
            black_box(c);
        }),
    );
    floors.push(("json", oe.clone(), od.clone()));
    out.push(Ratio {
        what: "JSON encode vs serde_json".into(),
        ours: oe,
        peer: pe,
        target: Some(1.5),
    });
    out.push(Ratio {
        what: "JSON decode vs serde_json (owned structs)".into(),
        ours: od,
        peer: pd,
        target: Some(1.5),
    });

    // MessagePack vs rmp-serde (named fields).
    let msgpack = ours(Format::Msgpack);
    let mp = rmp_serde::to_vec_named(&scat).expect("rmp_serde");
    let mut buf = Vec::with_capacity(mp.len());
    let (oe, pe) = r.pair(
        ours_encode(Format::Msgpack, products, &msgpack),
        Case::new(format!("Encode/msgpack/{n}/rmp_serde"), mp.len(), Ok(()), || {
            buf.clear();
            rmp_serde::encode::write_named(&mut buf, black_box(&scat)).expect("rmp encode");
            assert_eq!(buf.len(), mp.len());
        }),
    );
    let (od, pd) = r.pair(
        ours_decode(Format::Msgpack, n, &msgpack),
        Case::new(format!("Decode/msgpack/{n}/rmp_serde"), mp.len(), Ok(()), || {
            let c: SCatalog = rmp_serde::from_slice(black_box(&mp)).expect("rmp decode");
            assert_eq!(c.products.len(), n);
            black_box(c);
        }),
    );
    floors.push(("msgpack", oe.clone(), od.clone()));
    out.push(Ratio {
        what: "MessagePack encode vs rmp-serde (named)".into(),
        ours: oe,
        peer: pe,
        target: Some(2.0),
    });
    out.push(Ratio {
        what: "MessagePack decode vs rmp-serde (named)".into(),
        ours: od,
        peer: pd,
        target: Some(2.0),
    });

    // Avro vs apache-avro.
    let avro = ours(Format::Avro);
    let mut av = Vec::new();
    let avro_ok = apache_avro::write_avro_datum_ref(schema, &scat, &mut av)
        .map(|_| ())
        .map_err(|e| format!("apache-avro encode: {e}"));
    if let (Ok(a), Ok(())) = (&avro, &avro_ok) {
        println!(
            "# avro: our datum and apache-avro's are {} ({} vs {} bytes)",
            if *a == av { "identical" } else { "DIFFERENT" },
            a.len(),
            av.len()
        );
    }
    let mut buf = Vec::with_capacity(av.len());
    let (oe, pe) = r.pair(
        ours_encode(Format::Avro, products, &avro),
        Case::new(
            format!("Encode/avro/{n}/apache_avro"),
            av.len(),
            avro_ok.clone(),
            || {
                buf.clear();
                apache_avro::write_avro_datum_ref(schema, black_box(&scat), &mut buf).expect("avro encode");
                assert_eq!(buf.len(), av.len());
            },
        ),
    );
    let avro_decode = |bytes: &[u8]| -> Result<SCatalog, String> {
        let v = apache_avro::from_avro_datum(schema, &mut &bytes[..], None).map_err(|e| e.to_string())?;
        apache_avro::from_value(&v).map_err(|e| e.to_string())
    };
    let probe = avro_ok.and_then(|()| avro_decode(&av).map(|c| assert_eq!(c, scat)));
    let (od, pd) = r.pair(
        ours_decode(Format::Avro, n, &avro),
        Case::new(format!("Decode/avro/{n}/apache_avro"), av.len(), probe, || {
            let c = avro_decode(black_box(&av)).expect("avro decode");
            assert_eq!(c.products.len(), n);
            black_box(c);
        }),
    );
    floors.push(("avro", oe.clone(), od.clone()));
    out.push(Ratio {
        what: "Avro encode vs apache-avro (serde, schema-aware writer)".into(),
        ours: oe,
        peer: pe,
        target: Some(5.0),
    });
    out.push(Ratio {
        what: "Avro decode vs apache-avro (datum → Value → serde)".into(),
        ours: od,
        peer: pd,
        target: Some(3.0),
    });

    // Protobuf: conversion cost apart from wire cost.
    let protobuf = ours(Format::Protobuf);
    let pb: &[u8] = protobuf.as_deref().unwrap_or(&[]);
    let prebuilt = hooks::pb_to_generated(products);
    let empty = hooks::PbCatalog::default();
    let g = prebuilt.as_ref().unwrap_or(&empty);
    let probe = prebuilt
        .as_ref()
        .map_err(Clone::clone)
        .and_then(|g| hooks::pb_encode_generated(g, &mut Vec::new()));
    let mut buf = Vec::with_capacity(pb.len());
    let (oe, pe) = r.pair(
        ours_encode(Format::Protobuf, products, &protobuf),
        Case::new(format!("EncodePrebuilt/protobuf/{n}/prost"), pb.len(), probe, || {
            buf.clear();
            hooks::pb_encode_generated(black_box(g), &mut buf).expect("prost encode");
            assert_eq!(buf.len(), pb.len());
        }),
    );
    let probe = hooks::pb_decode_generated(pb).map(|_| ());
    let (od, pd) = r.pair(
        ours_decode(Format::Protobuf, n, &protobuf),
        Case::new(format!("DecodeGenerated/protobuf/{n}/prost"), pb.len(), probe, || {
            let g = hooks::pb_decode_generated(black_box(pb)).expect("prost decode");
            assert_eq!(hooks::pb_len(&g), n);
            black_box(g);
        }),
    );
    floors.push(("protobuf", oe.clone(), od.clone()));
    out.push(Ratio {
        what: "Protobuf encode: from our types vs prebuilt prost messages (the gap is conversion)".into(),
        ours: oe,
        peer: pe,
        target: None,
    });
    out.push(Ratio {
        what: "Protobuf decode: to our types vs prost generated types only".into(),
        ours: od,
        peer: pd,
        target: None,
    });

    // FlatBuffers: verifier alone, verify + read every field, full decode.
    let flatbuffers = ours(Format::Flatbuffers);
    let fb: &[u8] = flatbuffers.as_deref().unwrap_or(&[]);
    let oe = r
        .group(vec![ours_encode(Format::Flatbuffers, products, &flatbuffers)])
        .remove(0);
    let sides = r.group(vec![
        Case::new(
            format!("Verify/flatbuffers/{n}"),
            fb.len(),
            hooks::fb_verify(fb),
            || {
                hooks::fb_verify(black_box(fb)).expect("verify");
            },
        ),
        Case::new(
            format!("VerifyRead/flatbuffers/{n}"),
            fb.len(),
            hooks::fb_read_direct(fb).map(|_| ()),
            || {
                black_box(hooks::fb_read_direct(black_box(fb)).expect("read_direct"));
            },
        ),
        ours_decode(Format::Flatbuffers, n, &flatbuffers),
    ]);
    let [pv, pr, od]: [Side; 3] = sides.try_into().expect("three sides");
    floors.push(("flatbuffers", oe, od.clone()));
    out.push(Ratio {
        what: "FlatBuffers verify+read every field vs verifier alone".into(),
        ours: pr.clone(),
        peer: pv,
        target: None,
    });
    out.push(Ratio {
        what: "FlatBuffers full decode to our types vs verify+read".into(),
        ours: od,
        peer: pr,
        target: None,
    });

    // memcpy floor beside each payload (peer bytes where ours are missing:
    // JSON, MessagePack and Avro bytes are identical to the peers' by design).
    let payloads: [(&'static str, &[u8]); 5] = [
        ("json", &sj),
        ("msgpack", &mp),
        ("avro", &av),
        ("protobuf", pb),
        ("flatbuffers", fb),
    ];
    let present: Vec<(&'static str, &[u8])> = payloads.into_iter().filter(|(_, b)| !b.is_empty()).collect();
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
        .map(|(&(f, bytes), memcpy)| {
            let (_, encode, decode) = floors
                .iter()
                .find(|x| x.0 == f)
                .cloned()
                .expect("every format measured");
            Floor {
                format: f,
                bytes: bytes.len(),
                encode,
                decode,
                memcpy,
            }
        })
        .collect();
    (out, out_floors)
}
