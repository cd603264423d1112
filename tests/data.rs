//! `--data` end to end: `wirebench schema infer`, `encode`, `decode --schema`
//! as processes, and `serve --data` over a real loopback socket (`/data`,
//! `/data/{format}`, `/schemas/data.avsc`, `Link`, `Accept`).

mod support;

use std::process::Command;
use support::server::{Client, start_with};

const DOC: &str = r#"{"orders":[{"id":1,"customer-id":"c1","total":9.5,"lines":[{"sku":"a","qty":2}],"note":null},
{"id":2,"customer-id":"c2","total":12,"lines":[],"gift":true}],"by_region":{"1":3,"2":4}}"#;

fn run(args: &[&str]) -> (i32, Vec<u8>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_wirebench"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn plain(json: &[u8]) -> serde_json::Value {
    serde_json::from_slice(json).unwrap()
}

#[test]
fn infer_encode_decode_round_trip_the_document() {
    let scratch = support::scratch::Scratch::new("data-infer_encode_decode_roun");
    let doc = scratch.file("doc.json", DOC.as_bytes());
    let doc = doc.to_str().unwrap();
    let (code, schema, err) = run(&["schema", "infer", doc]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains(r#"key "customer-id" is field "customer_id""#), "{err}");
    let avsc = scratch.file("doc.avsc", &schema);
    let avsc = avsc.to_str().unwrap();
    for format in ["json", "msgpack", "avro"] {
        let out = scratch.join(format!("doc.{format}"));
        let out = out.to_str().unwrap();
        let (code, _, err) = run(&["encode", format, "--data", doc, "--schema", avsc, "-o", out]);
        assert_eq!(code, 0, "{format}: {err}");
        let (code, json, err) = run(&["decode", format, out, "--schema", avsc]);
        assert_eq!(code, 0, "{format}: {err}");
        // Up to the conventions: an absent nullable field reads as null, a
        // double is written with its fraction (12 → 12.0).
        let mut want = plain(DOC.as_bytes());
        want["orders"][1]["total"] = serde_json::json!(12.0);
        want["orders"][1]["note"] = serde_json::Value::Null;
        want["orders"][0]["gift"] = serde_json::Value::Null;
        assert_eq!(plain(&json), want, "{format}");
    }
}

#[test]
fn bad_documents_and_schemas_are_clear_errors() {
    let scratch = support::scratch::Scratch::new("data-bad_documents_and_schema");
    let cases: [(&str, &str); 4] = [
        (r#"{"a":[1,2"#, "input ended"),
        (r#"{"a":123456789012345678901234}"#, "/a: long out of range"),
        (r#"{"a-b":1,"a_b":2}"#, r#"keys "a-b" and "a_b" both rename"#),
        (r#"{"a":1e999}"#, "/a: double out of range"),
    ];
    for (text, want) in cases {
        let p = scratch.file("bad.json", text.as_bytes());
        let (code, _, err) = run(&["schema", "infer", p.to_str().unwrap()]);
        assert_eq!(code, 2, "{text}: {err}");
        assert!(err.contains(want), "{text}: {err}");
    }
    let schema = scratch.file(
        "s.avsc",
        br#"{"type":"record","name":"R","fields":[{"name":"a","type":"int"}]}"#,
    );
    let data = scratch.file("d.json", br#"{"a":"x"}"#);
    let (code, _, err) = run(&[
        "encode",
        "avro",
        "--data",
        data.to_str().unwrap(),
        "--schema",
        schema.to_str().unwrap(),
        "-o",
        "-",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains(r#"/a: expected int, found string "x" at byte 5"#), "{err}");
}

#[test]
fn serve_data_routes_negotiate_and_link_their_schema() {
    let scratch = support::scratch::Scratch::new("data-serve_data_routes_negoti");
    let doc = scratch.file("served.json", DOC.as_bytes());
    let server = start_with(|c| c.data = Some((doc.clone(), None)));
    let mut client = Client::connect(server.local_addr());
    let r = client.get("/data/json");
    assert_eq!(r.status, 200, "{}", r.text());
    assert_eq!(r.header("link"), Some(r#"</schemas/data.avsc>; rel="describedby""#));
    let served = plain(&r.body);
    assert_eq!(served["orders"][0]["customer-id"], "c1");
    let avsc = client.get("/schemas/data.avsc");
    assert_eq!(avsc.status, 200);
    let schema = wirebench::generic::schema::Schema::parse(&avsc.body).unwrap();
    for (ext, needle) in [("proto", "syntax = \"proto3\""), ("fbs", "root_type")] {
        let r = client.get(&format!("/schemas/data.{ext}"));
        assert_eq!(r.status, 200, "{ext}");
        assert!(r.text().contains(needle), "{ext}: {}", r.text());
    }
    let r = client.get("/data/protobuf");
    assert_eq!(r.header("link"), Some(r#"</schemas/data.proto>; rel="describedby""#));
    for format in wirebench::codec::Format::ALL {
        let r = client.get(&format!("/data/{}", format.name()));
        assert_eq!(r.status, 200);
        let d = wirebench::generic::decode(format, &schema, &r.body).unwrap();
        let mut json = Vec::new();
        wirebench::generic::json::encode(&schema, &d, &mut json).unwrap();
        assert_eq!(plain(&json), served, "{}", format.name());
    }
    client.send(b"GET /data HTTP/1.1\r\nHost: t\r\nAccept: application/vnd.msgpack\r\n\r\n");
    let r = client.read_response(false);
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("application/vnd.msgpack"));
    assert_eq!(r.header("vary"), Some("Accept"));
    client.send(b"GET /data HTTP/1.1\r\nHost: t\r\nAccept: image/png\r\n\r\n");
    assert_eq!(client.read_response(false).status, 406);
    assert_eq!(client.get("/data/xml").status, 404);
    assert_eq!(client.get("/data/json?count=2").status, 400);
    // The catalog routes are unchanged beside it.
    assert_eq!(client.get("/catalog/json?count=1").status, 200);
}

#[test]
fn data_routes_without_data_say_which_flag_serves_them() {
    let server = start_with(|_| {});
    let mut client = Client::connect(server.local_addr());
    let r = client.get("/data/json");
    assert_eq!(r.status, 404);
    assert!(r.text().contains("serve --data"), "{}", r.text());
}

#[test]
fn sizes_and_codec_bench_measure_the_document_in_every_format() {
    let scratch = support::scratch::Scratch::new("data-sizes_and_codec_bench_me");
    let doc = scratch.file("measured.json", DOC.as_bytes());
    let doc = doc.to_str().unwrap();
    let (code, csv, err) = run(&["sizes", "--data", doc, "--out", "-", "--reps", "1", "--batch", "1ms"]);
    assert_eq!(code, 0, "{err}");
    let csv = String::from_utf8(csv).unwrap();
    // The run stamp's `# key: value` comment lines come first and last.
    assert!(csv.starts_with("# run: "), "{csv}");
    let mut lines = csv.lines().filter(|l| !l.starts_with('#'));
    assert_eq!(
        lines.next(),
        Some("format,raw_bytes,gzip1_bytes,gzip6_bytes,gzip9_bytes,encode_us,decode_us")
    );
    // Raw sizes are exact: each equals the bytes `encode` writes.
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 5, "{csv}");
    for row in rows {
        let cols: Vec<&str> = row.split(',').collect();
        let (code, bytes, err) = run(&["encode", cols[0], "--data", doc, "-o", "-"]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(cols[1].parse::<usize>().unwrap(), bytes.len(), "{row}");
    }
    let (code, out, err) = run(&[
        "codec-bench",
        "--data",
        doc,
        "--out",
        "-",
        "--benchtime",
        "1ms",
        "--count",
        "1",
    ]);
    assert_eq!(code, 0, "{err}");
    let out = String::from_utf8(out).unwrap();
    for f in wirebench::codec::Format::ALL {
        for op in ["encode", "decode"] {
            let name = format!("BenchmarkData/{}/{op}-", f.name());
            assert!(
                out.lines().any(|l| l.starts_with(&name) && l.contains(" ns/op")),
                "{name}\n{out}"
            );
        }
    }
}
