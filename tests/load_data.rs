//! `wirebench load --url …/data… --data FILE.json` over real loopback
//! sockets: a document served by `serve --data` is loaded and every body
//! verified against it (schema fetched from `/schemas/data.avsc`, or given),
//! and a server that serves something else (a truncated body, another
//! document) has every response counted as a failure. Runs are bounded
//! (100 ms, 2 connections) and go to 127.0.0.1 only.

mod support;

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::thread;
use std::time::Duration;
use support::server::start_with;
use wirebench::codec::Format;
use wirebench::generic::{self, infer, schema::Schema};
use wirebench::load::verify::{self, Check, Target};
use wirebench::load::{FailureKind, closed};

const DOC: &str = r#"{"events":[{"id":7,"kind":"push","repo":{"name":"a/b","stars":12},"tags":["x","y"]},
{"id":8,"kind":"fork","repo":{"name":"c/d","stars":0},"tags":[],"public":false}],"next":null}"#;
/// The same shape, one value changed (`stars` 12 → 13).
const OTHER: &str = r#"{"events":[{"id":7,"kind":"push","repo":{"name":"a/b","stars":13},"tags":["x","y"]},
{"id":8,"kind":"fork","repo":{"name":"c/d","stars":0},"tags":[],"public":false}],"next":null}"#;

const RUN: Duration = Duration::from_millis(100);

fn check(url: &str, doc: &Path, schema: Option<&PathBuf>, verify: Option<Format>) -> Check {
    let schema = schema.map(|p| p.to_str().unwrap().to_string());
    verify::document_check(
        url,
        doc.to_str().unwrap(),
        schema.as_deref(),
        verify,
        Duration::from_secs(5),
    )
    .unwrap()
}

fn run(url: &str, check: Check) -> wirebench::load::round::RoundStats {
    let target = Target::from_url(url, check, Duration::from_secs(5)).unwrap();
    closed::run(&target, 2, RUN).unwrap()
}

#[test]
fn a_served_document_loads_and_verifies_in_every_format() {
    let scratch = support::scratch::Scratch::new("load-data-a_served_document_loads_");
    let doc = scratch.file("served.json", DOC);
    let server = start_with(|c| c.data = Some((doc.clone(), None)));
    let addr = server.local_addr();
    for format in Format::ALL {
        let url = format!("http://{addr}/data/{}", format.name());
        let st = run(&url, check(&url, &doc, None, None));
        assert!(st.requests > 0, "{url}");
        assert_eq!(st.errors.total(), 0, "{url}: {:?}", st.errors);
    }
    // `/data` negotiated by the Accept that --verify FORMAT sends.
    let url = format!("http://{addr}/data");
    let st = run(&url, check(&url, &doc, None, Some(Format::Avro)));
    assert!(st.requests > 0);
    assert_eq!(st.errors.total(), 0, "{:?}", st.errors);
    // Another document of the same shape is not what is served: every response a mismatch.
    let other = scratch.file("other.json", OTHER);
    let url = format!("http://{addr}/data/msgpack");
    let st = run(&url, check(&url, &other, None, None));
    assert_eq!(st.requests, 0);
    assert!(st.errors.get(FailureKind::Mismatch) > 0);
    assert_eq!(
        st.errors.total(),
        st.errors.get(FailureKind::Mismatch),
        "{:?}",
        st.errors
    );
}

/// A server that serves `/schemas/data.avsc` right and `body` under every other path.
fn fake_server(avsc: String, body: Vec<u8>) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    thread::spawn(move || {
        for conn in listener.incoming() {
            let Ok(conn) = conn else { continue };
            let (avsc, body) = (avsc.clone(), body.clone());
            thread::spawn(move || {
                conn.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
                let mut writer = conn.try_clone().unwrap();
                let mut reader = BufReader::new(conn);
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let path = line.split(' ').nth(1).unwrap_or("/").to_string();
                    loop {
                        let mut h = String::new();
                        if reader.read_line(&mut h).unwrap_or(0) == 0 {
                            return;
                        }
                        if h == "\r\n" {
                            break;
                        }
                    }
                    let b = if path == "/schemas/data.avsc" {
                        avsc.as_bytes()
                    } else {
                        &body[..]
                    };
                    let mut r = format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", b.len()).into_bytes();
                    r.extend_from_slice(b);
                    if writer.write_all(&r).is_err() {
                        return;
                    }
                }
            });
        }
    });
    addr
}

#[test]
fn corrupted_bodies_are_counted_as_failures() {
    let scratch = support::scratch::Scratch::new("load-data-corrupted_bodies_are_cou");
    let doc = scratch.file("corrupt.json", DOC);
    let avsc = infer::infer(DOC.as_bytes()).unwrap().schema;
    let schema = Schema::parse(avsc.as_bytes()).unwrap();
    let datum = generic::json::decode(&schema, DOC.as_bytes()).unwrap();
    for format in Format::ALL {
        let mut good = Vec::new();
        generic::encode(format, &schema, &datum, &mut good).unwrap();
        // The self-test: the uncorrupted body passes through the same server.
        for (what, body, kind) in [
            ("intact", good.clone(), None),
            (
                "cut in half",
                good[..good.len() / 2].to_vec(),
                Some(FailureKind::Decode),
            ),
        ] {
            let addr = fake_server(avsc.clone(), body);
            let url = format!("http://{addr}/data/{}", format.name());
            let st = run(&url, check(&url, &doc, None, None));
            match kind {
                None => {
                    assert!(st.requests > 0, "{format:?} {what}");
                    assert_eq!(st.errors.total(), 0, "{format:?} {what}: {:?}", st.errors);
                }
                Some(kind) => {
                    assert_eq!(st.requests, 0, "{format:?} {what}");
                    assert!(st.errors.get(kind) > 0, "{format:?} {what}");
                    assert_eq!(
                        st.errors.total(),
                        st.errors.get(kind),
                        "{format:?} {what}: {:?}",
                        st.errors
                    );
                }
            }
        }
    }
}

#[test]
fn the_command_verifies_with_a_given_schema_and_exits_1_on_failures() {
    let scratch = support::scratch::Scratch::new("load-data-the_command_verifies_wit");
    let doc = scratch.file("cli.json", DOC);
    let avsc = scratch.file("cli.avsc", &infer::infer(DOC.as_bytes()).unwrap().schema);
    let server = start_with(|c| c.data = Some((doc.clone(), None)));
    let url = format!("http://{}/data/protobuf", server.local_addr());
    let load = |doc: &PathBuf| {
        Command::new(env!("CARGO_BIN_EXE_wirebench"))
            .args(["load", "--url", &url, "--data", doc.to_str().unwrap()])
            .args(["--schema", avsc.to_str().unwrap()])
            .args([
                "--duration",
                "100ms",
                "--concurrency",
                "2",
                "--threads",
                "1",
                "--warmup",
                "2",
            ])
            .args(["--format", "json"])
            .output()
            .unwrap()
    };
    let out = load(&doc);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains(r#""errors":{"total":0,"#), "{stdout}");
    assert!(!stdout.contains(r#""requests":0,"#), "{stdout}");
    let out = load(&scratch.file("cli-other.json", OTHER));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("decodes to a different document"), "{stderr}");
}

#[test]
fn data_flags_are_checked() {
    let load = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_wirebench"))
            .arg("load")
            .args(args)
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (code, err) = load(&["--data", "x.json"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--data applies to --url runs only"), "{err}");
    let (code, err) = load(&["--url", "http://127.0.0.1:1/data/json", "--schema", "s.avsc"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("--schema needs --data"), "{err}");
}
