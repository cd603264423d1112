//! `explain FORMAT --data`: the annotators of a user's document (all five
//! formats) against the schema-driven decoders, on every document in `fixtures/data/`:
//!
//! - the annotator reads the same document as `generic::decode` (both as
//!   plain JSON, `Datum::write_json`'s spelling);
//! - its spans cover every byte exactly once, and the per-member summary
//!   adds up to the payload;
//! - every truncation and a seeded set of byte flips give an error or (a
//!   flip that still parses) the decoders' own reading, never a panic;
//! - so does every bit flip of a document of every derived shape (maps,
//!   unions, wrappers, arrays of arrays) in the formats walked by the schema;
//! - the command prints the dump, the summary and the JSON form.

mod support;
use std::process::Command;
use wirebench::codec::Format;
use wirebench::explain;
use wirebench::generic::{self, input};
use wirebench::prng::Rng;

const FORMATS: [Format; 5] = Format::ALL;

fn documents() -> Vec<(String, input::Data)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/data");
    let mut paths: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    paths.sort();
    assert!(paths.len() >= 8, "fixtures/data holds the public-shape documents");
    paths
        .iter()
        .map(|p| {
            let p = p.to_str().unwrap().to_string();
            let d = input::load(&p, None).unwrap();
            (p, d)
        })
        .collect()
}

fn encode(format: Format, d: &input::Data) -> Vec<u8> {
    let mut out = Vec::new();
    generic::encode(format, &d.schema, &d.datum, &mut out).unwrap();
    out
}

#[test]
fn the_annotators_read_what_the_decoders_read() {
    for (path, d) in documents() {
        for format in FORMATS {
            let bytes = encode(format, &d);
            let ex = explain::annotate(format, &d.schema, None, &bytes)
                .unwrap_or_else(|f| panic!("{path} {format}: {}", f.error));
            let decoded = generic::decode(format, &d.schema, &bytes).unwrap();
            assert_eq!(ex.json, decoded.to_json(), "{path} {format}");
            assert_eq!(ex.json, d.datum.to_json(), "{path} {format}");
            let mut at = 0;
            for s in &ex.spans {
                assert_eq!(s.offset, at, "{path} {format}: spans are contiguous");
                assert!(s.len > 0);
                at += s.len;
            }
            assert_eq!(at, bytes.len(), "{path} {format}: every byte once");
            let members: usize = explain::by_member(&ex).iter().map(|(_, n)| n).sum();
            assert_eq!(members, bytes.len(), "{path} {format}");
        }
    }
}

#[test]
fn the_flatbuffers_summary_names_vtables_and_padding() {
    let (_, d) = documents().into_iter().find(|(p, _)| p.ends_with("rpc.json")).unwrap();
    let rows_of = |format: Format| {
        let ex = explain::annotate(format, &d.schema, None, &encode(format, &d)).unwrap();
        (explain::by_member(&ex), ex)
    };
    let row = |rows: &[(String, usize)], label: &str| rows.iter().find(|(m, _)| m == label).map(|(_, n)| *n);
    let (rows, ex) = rows_of(Format::Flatbuffers);
    let sum = |keep: &dyn Fn(&wirebench::explain::Span) -> bool| -> usize {
        ex.spans
            .iter()
            .filter(|s| s.top.is_none() && keep(s))
            .map(|s| s.len)
            .sum()
    };
    let vtables = sum(&|s| s.meaning.starts_with("vtable"));
    let padding = sum(&|s| s.category == wirebench::explain::Category::Padding);
    assert!(vtables > 0, "rpc's tables have vtables");
    assert_eq!(row(&rows, "(vtables)"), Some(vtables), "{rows:?}");
    assert_eq!(row(&rows, "(padding)").unwrap_or(0), padding, "{rows:?}");
    // What is left to the root is its offset and its table's header: fewer
    // bytes than the vtables the summary used to count with them.
    let framing = row(&rows, "(root framing)").unwrap();
    assert!(framing > 0 && framing < vtables, "{rows:?}");
    assert!(explain::summary_text(&ex).contains("(vtables)"));
    // A format without vtables or padding has neither row (the check above
    // tells the formats apart).
    let (rows, _) = rows_of(Format::Avro);
    assert_eq!(row(&rows, "(vtables)"), None, "{rows:?}");
    assert_eq!(row(&rows, "(padding)"), None, "{rows:?}");
}

#[test]
fn a_different_document_reads_differently() {
    // The self-test of the comparison above: one changed value shows.
    let (path, d) = documents().into_iter().find(|(p, _)| p.ends_with("jobs.json")).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let changed = text.replacen("\"job-0\"", "\"job-X\"", 1);
    assert_ne!(changed, text, "jobs.json has a job-0");
    let other = generic::json::decode(&d.schema, changed.as_bytes()).unwrap();
    for format in FORMATS {
        let mut bytes = Vec::new();
        generic::encode(format, &d.schema, &other, &mut bytes).unwrap();
        let ex = explain::annotate(format, &d.schema, None, &bytes).unwrap();
        assert_ne!(ex.json, d.datum.to_json(), "{format}");
        assert_eq!(ex.json, other.to_json(), "{format}");
    }
}

// One test per format, so the test threads share the walk.
#[test]
fn json_truncations_and_flips_are_errors_never_panics() {
    truncations_and_flips_are_errors_never_panics(Format::Json);
}

#[test]
fn msgpack_truncations_and_flips_are_errors_never_panics() {
    truncations_and_flips_are_errors_never_panics(Format::Msgpack);
}

#[test]
fn avro_truncations_and_flips_are_errors_never_panics() {
    truncations_and_flips_are_errors_never_panics(Format::Avro);
}

#[test]
fn protobuf_truncations_and_flips_are_errors_never_panics() {
    truncations_and_flips_are_errors_never_panics(Format::Protobuf);
}

#[test]
fn flatbuffers_truncations_and_flips_are_errors_never_panics() {
    truncations_and_flips_are_errors_never_panics(Format::Flatbuffers);
}

fn truncations_and_flips_are_errors_never_panics(format: Format) {
    let mut rng = Rng::new(25 + FORMATS.iter().position(|&f| f == format).unwrap() as u64);
    for (path, d) in documents() {
        {
            let bytes = encode(format, &d);
            // Every cut of the first 64 bytes, then every 97th.
            for cut in (0..bytes.len()).filter(|&c| c < 64 || c % 97 == 0) {
                let r = explain::annotate(format, &d.schema, None, &bytes[..cut]);
                let decoded = generic::decode(format, &d.schema, &bytes[..cut]);
                match (r, decoded) {
                    (Err(f), _) => assert!(f.error.offset <= cut, "{path} {format} cut {cut}: {}", f.error),
                    (Ok(ex), Ok(datum)) => assert_eq!(ex.json, datum.to_json(), "{path} {format} cut {cut}"),
                    (Ok(_), Err(e)) => {
                        panic!("{path} {format} cut {cut}: the annotator read what the decoder refuses: {e}")
                    }
                }
            }
            for _ in 0..50 {
                let mut b = bytes.clone();
                let i = (rng.next_u64() % b.len() as u64) as usize;
                b[i] ^= 1 << (rng.next_u64() % 8);
                if let (Ok(ex), Ok(datum)) = (
                    explain::annotate(format, &d.schema, None, &b),
                    generic::decode(format, &d.schema, &b),
                ) {
                    assert_eq!(ex.json, datum.to_json(), "{path} {format} flip at {i}");
                }
            }
        }
    }
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_wirebench"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_command_prints_dump_summary_and_json() {
    let doc = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/data/rpc.json");
    let (code, out, err) = run(&["explain", "avro", "--data", doc]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("# avro payload, "), "{out}");
    assert!(out.contains("$.jsonrpc: string length"), "{out}");
    assert!(out.contains("by member of the root"), "{out}");
    let (code, out, _) = run(&["explain", "msgpack", "--data", doc, "--summary"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("where the bytes go (msgpack"), "{out}");
    let (code, out, _) = run(&["explain", "json", "--data", doc, "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["format"], "json");
    assert!(v["by_member"]["jsonrpc"].as_u64().unwrap() > 0, "{out}");
    assert_eq!(v["document"]["jsonrpc"], "2.0");
    // A payload that is not the document's: the dump of what read, then the error.
    let scratch = support::scratch::Scratch::new("explain-data");
    let bad = scratch.file("bad.avro", [0x02, 0x41, 0xff]);
    let (code, _, err) = run(&["explain", "avro", "--data", doc, "--file", bad.to_str().unwrap()]);
    assert_ne!(code, 0);
    assert!(err.contains("not valid avro of the schema"), "{err}");
    let (code, out, err) = run(&["explain", "protobuf", "--data", doc]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("$.jsonrpc: string length 3"), "{out}");
    let (code, out, err) = run(&["explain", "flatbuffers", "--data", doc]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("$: offset to the root table at"), "{out}");
    assert!(out.contains("$.jsonrpc: string length 3"), "{out}");
}

/// Every shape the derived schemas have: nullable scalars and arrays, a
/// map, unions with and without null, arrays of arrays, of unions and of
/// nullable items, an enum, fixed, bytes, floats, a nested record.
const SHAPES: &str = r#"{"type":"record","name":"Doc","fields":[
    {"name":"id","type":"long"},
    {"name":"nothing","type":"null"},
    {"name":"note","type":["null","string"]},
    {"name":"score","type":["null","double"]},
    {"name":"tags","type":{"type":"array","items":"string"}},
    {"name":"grid","type":{"type":"array","items":{"type":"array","items":"float"}}},
    {"name":"maybe","type":{"type":"array","items":["null","int"]}},
    {"name":"counts","type":{"type":"map","values":"long"}},
    {"name":"key","type":["long","string","null"]},
    {"name":"pick","type":["boolean",{"type":"record","name":"Inner","fields":[{"name":"b","type":"bytes"}]}]},
    {"name":"kind","type":{"type":"enum","name":"Kind","symbols":["A","B","C"]}},
    {"name":"kinds","type":{"type":"array","items":"Kind"}},
    {"name":"hash","type":{"type":"fixed","name":"H","size":3}},
    {"name":"last","type":["null",{"type":"array","items":"int"}]},
    {"name":"nested","type":{"type":"map","values":{"type":"array","items":"Inner"}}}
]}"#;

const SHAPES_DOC: &str = r#"{"id":-5,"nothing":null,"note":"hi","score":null,"tags":["a",""],
    "grid":[[1.5],[],[-0.0,2]],"maybe":[null,3,0],"counts":{"x":1,"y":0},"key":"k",
    "pick":{"b":"\u0001\u0002"},"kind":"B","kinds":["C","A"],"hash":"abc","last":[0,-1],
    "nested":{"n":[{"b":""}],"m":[]}}"#;

#[test]
fn every_bit_flip_of_every_shape_is_an_error_or_the_decoders_reading() {
    let schema = generic::schema::Schema::parse(SHAPES.as_bytes()).unwrap();
    let doc = generic::json::decode(&schema, SHAPES_DOC.as_bytes()).unwrap();
    // The formats whose annotators walk the bytes by the schema.
    for format in [Format::Avro, Format::Protobuf, Format::Flatbuffers] {
        let mut bytes = Vec::new();
        generic::encode(format, &schema, &doc, &mut bytes).unwrap();
        let ex = explain::annotate(format, &schema, None, &bytes).unwrap_or_else(|f| panic!("{format}: {}", f.error));
        assert_eq!(ex.json, doc.to_json(), "{format}");
        let (mut agree, mut refused) = (0, 0);
        for i in 0..bytes.len() {
            for bit in 0..8 {
                let mut b = bytes.clone();
                b[i] ^= 1 << bit;
                match (
                    explain::annotate(format, &schema, None, &b),
                    generic::decode(format, &schema, &b),
                ) {
                    (Ok(ex), Ok(datum)) => {
                        assert_eq!(ex.json, datum.to_json(), "{format} flip {i}.{bit}");
                        agree += 1;
                    }
                    (Ok(ex), Err(e)) => panic!("{format} flip {i}.{bit}: read {} where the decoder says {e}", ex.json),
                    (Err(f), _) => {
                        assert!(f.error.offset <= b.len(), "{format} flip {i}.{bit}: {}", f.error);
                        refused += 1;
                    }
                }
            }
        }
        // Both outcomes occur: the comparison is not vacuous.
        assert!(agree > 0 && refused > 0, "{format}: {agree} agreed, {refused} refused");
    }
}

/// A reader that closes the pipe after a few bytes (`explain … | head`) gets
/// a quiet exit: the broken pipe ends the output, with no panic on stderr.
/// Self-test: the same dump read to the end is longer than what was read,
/// so the pipe really was closed while output was still coming.
#[test]
fn a_closed_pipe_ends_the_dump_quietly() {
    use std::io::Read;
    use std::process::Stdio;
    let full = Command::new(env!("CARGO_BIN_EXE_wirebench"))
        .args(["explain", "json", "--count", "200"])
        .output()
        .expect("run wirebench");
    assert!(full.status.success());
    let mut child = Command::new(env!("CARGO_BIN_EXE_wirebench"))
        .args(["explain", "json", "--count", "200"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn wirebench");
    let mut head = [0u8; 64];
    let mut stdout = child.stdout.take().expect("stdout");
    stdout.read_exact(&mut head).expect("the first 64 bytes");
    drop(stdout);
    let out = child.wait_with_output().expect("wait");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        full.stdout.len() > 1 << 20,
        "the dump is larger than any pipe buffer: {}",
        full.stdout.len()
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(out.status.success(), "status {:?}, stderr {stderr}", out.status);
}
