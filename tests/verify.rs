//! `wirebench load --url URL --verify FORMAT [--expect-count N] --format json`,
//! run as the binary against a test server: decode errors and count
//! mismatches are counted by kind, the JSON summary carries the figures, and
//! the exit status says 0 (all succeeded), 1 (some failed) or 2 (usage).

mod support;
use std::process::{Command, Output};
use support::server;

/// Runs `wirebench load` with short, bounded runs plus `args`.
fn load(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wirebench"))
        .args([
            "load",
            "--duration",
            "300ms",
            "--concurrency",
            "2",
            "--threads",
            "1",
            "--warmup",
            "2",
        ])
        .args(args)
        .output()
        .expect("run wirebench")
}

/// The one JSON summary line on stdout.
fn summary(out: &Output) -> serde_json::Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 1, "one JSON object per run: {stdout}");
    serde_json::from_str(lines[0]).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

#[test]
fn msgpack_verified_as_msgpack_has_no_errors() {
    let s = server::start();
    let url = format!("http://{}/catalog/msgpack?count=5", s.local_addr());
    let out = load(&[
        "--url",
        &url,
        "--verify",
        "msgpack",
        "--expect-count",
        "5",
        "--format",
        "json",
    ]);
    let j = summary(&out);
    assert_eq!(out.status.code(), Some(0), "{j}");
    assert_eq!(j["errors"]["total"], 0, "{j}");
    assert!(j["requests"].as_u64().unwrap() > 0, "{j}");
    assert!(j["requests_per_s"].as_f64().unwrap() > 0.0);
    for key in ["mean", "max", "p50", "p75", "p90", "p99", "p99_9"] {
        assert!(j["latency_ns"][key].as_u64().is_some(), "latency_ns.{key}: {j}");
    }
    assert_eq!(j["connections"], 2);
}

#[test]
fn json_verified_as_msgpack_is_all_decode_errors() {
    let s = server::start();
    let url = format!("http://{}/catalog/json?count=5", s.local_addr());
    let out = load(&["--url", &url, "--verify", "msgpack", "--format", "json"]);
    let j = summary(&out);
    assert_eq!(out.status.code(), Some(1), "{j}");
    assert_eq!(j["requests"], 0, "no response counts: {j}");
    let decode = j["errors"]["decode"].as_u64().unwrap();
    assert!(decode > 2, "{j}");
    assert_eq!(
        j["errors"]["total"].as_u64().unwrap(),
        decode,
        "every failure is a decode error: {j}"
    );
}

#[test]
fn wrong_count_is_a_mismatch() {
    let s = server::start();
    let url = format!("http://{}/catalog/avro?count=5", s.local_addr());
    let out = load(&[
        "--url",
        &url,
        "--verify",
        "avro",
        "--expect-count",
        "6",
        "--format",
        "json",
    ]);
    let j = summary(&out);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(j["requests"], 0);
    assert_eq!(j["errors"]["mismatch"], j["errors"]["total"], "{j}");
}

#[test]
fn negotiated_catalog_is_asked_for_in_the_verified_format() {
    let s = server::start();
    let url = format!("http://{}/catalog?count=3", s.local_addr());
    let out = load(&[
        "--url",
        &url,
        "--verify",
        "protobuf",
        "--expect-count",
        "3",
        "--format",
        "json",
    ]);
    let j = summary(&out);
    assert_eq!(out.status.code(), Some(0), "{j}");
    assert_eq!(j["errors"]["total"], 0);
}

#[test]
fn text_summary_and_unverified_urls_still_work() {
    let s = server::start();
    let url = format!("http://{}/ping", s.local_addr());
    let out = load(&["--url", &url]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Requests/sec:") && text.contains("Errors: 0"), "{text}");
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &["--url", "http://127.0.0.1:9/", "--verify", "xml"][..],
        &["--url", "http://127.0.0.1:9/", "--expect-count", "3"],
        &["--url", "http://127.0.0.1:9/", "--format", "yaml"],
        &["--verify", "json"],
        &["--no-such-flag"],
    ] {
        let out = load(args);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let help = Command::new(env!("CARGO_BIN_EXE_wirebench"))
        .args(["load", "--help"])
        .output()
        .unwrap();
    assert_eq!(help.status.code(), Some(0));
    let text = String::from_utf8_lossy(&help.stderr);
    assert!(
        text.contains("EXIT STATUS") && text.contains("--verify V") && text.contains("FORMAT[:borrowed|:owned]"),
        "{text}"
    );
}
