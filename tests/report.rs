//! `wirebench report` on small handmade raw files (`fixtures/report/`):
//! expected medians, spreads, pooled percentiles and tables; malformed raw
//! files give an error naming the file and the line; the SVG is well formed.

use std::path::{Path, PathBuf};
use support::scratch::Scratch;
use wirebench::report::{self, parse};

mod support;

const FIXTURES: &str = "fixtures/report";

/// A fresh copy of `fixtures/report` in a temp dir (report writes beside its inputs).
fn scratch(name: &str) -> Scratch {
    Scratch::copy_of(&format!("report-{name}"), Path::new(FIXTURES))
}

#[test]
fn medians_spreads_and_pooled_percentiles() {
    let d = report::load(Path::new(FIXTURES)).unwrap();
    assert!(d.missing.is_empty(), "{:?}", d.missing);
    assert!(!d.environment_captured_now);

    let codec = |op: &str, f: &str, n: usize| {
        d.codec_stats
            .iter()
            .find(|s| s.op == op && s.format == f && s.count == n)
            .unwrap_or_else(|| panic!("no {op}/{f}/{n}"))
    };
    // Odd number of runs: the middle one; even: the mean of the two middle ones.
    let e = codec("Encode", "json", 1000);
    assert_eq!(
        (e.ns_per_op.median, e.ns_per_op.min, e.ns_per_op.max, e.ns_per_op.n),
        (200_000.0, 100_000.0, 300_000.0, 3)
    );
    assert_eq!((e.bytes_per_op, e.allocs_per_op), (1000.0, 1.0));
    assert_eq!(e.mb_per_s.unwrap().median, 750.0);
    assert_eq!(codec("Decode", "json", 1000).ns_per_op.median, 710_000.0);
    assert_eq!(
        codec("FlatbuffersDirect", "flatbuffers", 1000).ns_per_op.median,
        50_000.0
    );

    let http = &d.http.iter().find(|f| f.name == "http.csv").unwrap().stats;
    let j = http.iter().find(|s| s.format == "json" && s.count == 1000).unwrap();
    assert_eq!((j.rps.median, j.rps.min, j.rps.max, j.rounds), (850.0, 800.0, 900.0, 3));
    assert_eq!((j.p95_ms.median, j.p95_ms.min, j.p95_ms.max), (11.0, 10.0, 12.0));
    assert_eq!(j.requests, 2550);
    assert_eq!(j.errors, [0, 0, 1, 0, 0, 0, 2]);
    // 200 samples pooled from two rounds: rank 190 falls in the bucket
    // [1,998,848, 2,007,040) ns, reported as its midpoint; rank 198 in
    // [8,978,432, 9,043,968), whose midpoint is clamped to the exact max.
    assert_eq!(j.pooled_p95_ms, Some(2.002943));
    assert_eq!(j.pooled_p99_ms, Some(9.000001));
    let a = http.iter().find(|s| s.format == "avro").unwrap();
    assert_eq!(a.pooled_p95_ms, None, "no histogram for avro");
}

#[test]
fn report_files_and_tables() {
    let dir = scratch("tables");
    let written = report::write_report(&dir).unwrap();
    let names: Vec<String> = written
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for want in [
        "REPORT.md",
        "medians.json",
        "chart-size.svg",
        "chart-codec.svg",
        "chart-http-rps.svg",
        "chart-http-p95.svg",
        "chart-cpu-json.svg",
    ] {
        assert!(names.iter().any(|n| n == want), "{want} not in {names:?}");
    }
    assert!(
        !names.iter().any(|n| n == "environment.json"),
        "kept the run's environment.json"
    );
    let md = std::fs::read_to_string(dir.join("REPORT.md")).unwrap()
        + &std::fs::read_to_string(dir.join("DETAILS.md")).unwrap();
    for line in [
        // Where the time goes: server 3,000 = encode 200 + gzip 2,500 + rest 300;
        // client 1,500 = decode 710 + rest 790; 4,550 µs × 400/s = 1.82 of 2 cores.
        "### `http-gzip.csv`: 1,000 products, compression gzip",
        "| json | 400.0 | 3,000 | 200.0 | 2,500 | 300.0 | 90% | 1,500 | 710.0 | 790.0 | 80% | 50.00 | 1.20 / 0.600 | server (2.00× the other side's CPU per request); 1.82 of 2 cores busy: CPU-bound |",
        // Codec tables for every count present, including count 1.
        "### 1 product",
        "| json | 2.00 (1.00–3.00) | 0.500 | 512 | 1 | n/a | n/a | n/a | n/a | n/a |",
        "| FlatbuffersDirect (flatbuffers) | 50.00 | 3,600 | 0 | 0 |",
        // HTTP table: median of rounds' p95 beside the pooled one.
        // 850 requests a round: fewer than 10 above each round's p99, so "≥".
        "| json | 850.0 (800.0–900.0) | 800.0–900.0 (±5.9%, only 75% with 3 rounds) | 143.9 | 8.50 (8.00–9.00) | 11.00 | 2.00 | ≥ 13 | 9.00 | 25.00 | 2,550 | read 1, mismatch 2 | 3 |",
        // Sizes with the gzip-vs-encode judgement.
        "| json | 169,241 | 12,000 | 9,653 | 9,500 | 169.2 | 9.7 | 94.3% | 200.0 | 900.0 | 2,500 | 6,000 | n/a | n/a | n/a | 12.50× |",
        // Go reference as ratios to JSON: ours / Go.
        "| avro | 0.63 / 0.63 | 0.70 / 0.70 | 0.45 / 0.37 | n/a / 0.17 | 1.88 / 1.91 | 0.64 / 0.62 |",
        "which is not the p95 of all requests",
        // Owned beside borrowed decode, and the share of decode that is building the catalog.
        "| json | 710.0 (700.0–720.0) | 9,000 | 290.0 (280.0–300.0) | 2 | 0.41 | 59% |",
        // HTTP files without the verify column were verified by the owned decoder.
        "Responses verified by: owned (",
        // Peers: the summary table, not the per-run lines.
        "\n1000 products. ratio = reference time / our time\n",
        "| JSON encode vs serde_json | 100.00 | 200.00 | 2.00× | ≥ 1.5× | yes |",
        // Peers by instruction count: its table, under its own heading.
        "### By instruction count (`peers-instructions.md`)",
        "| `Decode/json/1000/ours` | 13.00M | 4.50M | serde_json `from_slice` | 21.00M | 4.50M | 1.62× | 1.94× | — |",
        "Run 2026-11-29T22:00:00Z on Handmade Test CPU @ 1.00GHz (2 logical cores",
        "; load average at the start 0.10 0.20 0.30.",
    ] {
        assert!(md.contains(line), "REPORT.md lacks {line:?}\n\n{md}");
    }
    assert!(
        !md.contains("BenchmarkEncode/json/1000/ours"),
        "per-run peer lines belong in peers.txt"
    );
    let json = std::fs::read_to_string(dir.join("medians.json")).unwrap();
    assert!(json.contains("\"op\": \"Encode\", \"format\": \"json\", \"count\": 1000, \"ns_per_op\": {\"median\": 200000, \"min\": 100000, \"max\": 300000, \"n\": 3}"), "{json}");
    assert!(
        json.contains("\"pooled_p95_ms\": 2.002943, \"pooled_p99_ms\": 9.000001"),
        "{json}"
    );
    assert!(
        json.contains(
            "\"cpu\": {\"server_cpu_us_per_req\": {\"median\": 3000, \"min\": 3000, \"max\": 3000, \"n\": 1}"
        ),
        "{json}"
    );
    assert!(
        !names.iter().any(|n| n == "chart-cpu-avro.svg"),
        "no CPU chart without CPU columns"
    );
}

#[test]
fn breakdown_prefers_cpu_times_of_the_benches() {
    let dir = scratch("cpu-ns");
    std::fs::write(
        dir.join("codec.txt"),
        "BenchmarkEncode/json/1000-2 10 400000 ns/op 0 B/op 0 allocs/op 150000 cpu-ns/op\n\
         BenchmarkDecode/json/1000-2 10 900000 ns/op 0 B/op 0 allocs/op 700000 cpu-ns/op\n",
    )
    .unwrap();
    let sizes = std::fs::read_to_string(dir.join("sizes.csv")).unwrap();
    let mut lines: Vec<String> = sizes.lines().map(String::from).collect();
    // The fixture's header, from before run stamps, with `gzip6_cpu_us` added.
    lines[0] = "format,count,raw_bytes,gzip1_bytes,gzip6_bytes,gzip9_bytes,bytes_per_product_raw,bytes_per_product_gzip6,gzip1_us,gzip6_us,gzip9_us,encode_us,gzip6_cpu_us".to_string();
    for l in &mut lines[1..] {
        l.push_str(if l.starts_with("json,1000,") { ",2000.000" } else { "," });
    }
    std::fs::write(dir.join("sizes.csv"), lines.join("\n") + "\n").unwrap();
    report::write_report(&dir).unwrap();
    let md = std::fs::read_to_string(dir.join("REPORT.md")).unwrap()
        + &std::fs::read_to_string(dir.join("DETAILS.md")).unwrap();
    // Server 3,000 = encode 150 (CPU, not the 400 µs wall) + gzip 2,000 (CPU,
    // not the 2,500 µs wall) + 850; client 1,500 = decode 700 + 800.
    let row = "| json | 400.0 | 3,000 | 150.0 | 2,000 | 850.0 | 90% | 1,500 | 700.0 | 800.0 | 80% |";
    assert!(md.contains(row), "REPORT.md lacks {row:?}\n\n{md}");
}

#[test]
fn missing_environment_is_captured_and_said() {
    let dir = scratch("noenv");
    std::fs::remove_file(dir.join("environment.json")).unwrap();
    report::write_report(&dir).unwrap();
    assert!(dir.join("environment.json").exists());
    let md = std::fs::read_to_string(dir.join("REPORT.md")).unwrap();
    assert!(md.contains("captured when this report was generated, not when the benchmarks ran"));
}

/// A user's document (`data-codec.txt`, `data-sizes.csv`: `make bench
/// DATA=`) is one more payload of the same tables: a column of the decision
/// table (bytes and codec rows ranked by the catalog's rules; no HTTP run)
/// and its own rows in DETAILS.md's codec and size tables. Without its
/// files no table names it.
#[test]
fn a_document_fills_the_same_tables_as_the_catalog() {
    let dir = scratch("document");
    report::write_report(&dir).unwrap();
    let md = std::fs::read_to_string(dir.join("REPORT.md")).unwrap()
        + &std::fs::read_to_string(dir.join("DETAILS.md")).unwrap();
    assert!(!md.contains("your document"), "no document, no column");
    let mut codec = String::from("data: fixtures/data/rpc.json\n");
    for i in 0..10 {
        for (f, ns) in [("json", 4000 + i * 10), ("avro", 2000 + i * 10)] {
            codec +=
                &format!("BenchmarkData/{f}/encode-2\t100\t{ns} ns/op\t1 MB/s\t0 B/op\t0 allocs/op\t{ns} cpu-ns/op\n");
        }
    }
    std::fs::write(dir.join("data-codec.txt"), codec).unwrap();
    let sizes = format!(
        "{}\njson,7424,3401,3312,3312,7.5,33.2\navro,5318,2976,3060,3060,3.4,14.5\n",
        parse::DOCUMENT_SIZES_HEADER
    );
    std::fs::write(dir.join("data-sizes.csv"), sizes).unwrap();
    report::write_report(&dir).unwrap();
    let report = std::fs::read_to_string(dir.join("REPORT.md")).unwrap();
    let details = std::fs::read_to_string(dir.join("DETAILS.md")).unwrap();
    let last_cell = |question: &str| {
        let row = report
            .lines()
            .find(|l| l.starts_with(&format!("| {question}")))
            .unwrap_or_else(|| panic!("no row {question:?}\n{report}"));
        row.trim_end_matches(" |").rsplit(" | ").next().unwrap().to_string()
    };
    assert!(
        report.contains("| 1,000 products | your document (`fixtures/data/rpc.json`) |\n"),
        "{report}"
    );
    assert_eq!(last_cell("smallest on the wire, raw"), "avro < json");
    assert_eq!(last_cell("smallest on the wire, gzip -6"), "avro < json");
    let encode = last_cell("fastest encode");
    assert!(encode.starts_with("avro < json (every pair ordered"), "{encode}");
    assert_eq!(last_cell("fastest decode"), "n/a");
    assert_eq!(last_cell("cheapest server CPU per request"), "no HTTP run");
    assert_eq!(last_cell("bytes per product"), "json 7424/3312, avro 5318/3060");
    assert_eq!(
        details
            .matches("\n### your document (`fixtures/data/rpc.json`)\n")
            .count(),
        2
    );
    for line in [
        "## Codec microbenchmarks (`codec.txt`, `data-codec.txt`)",
        "| json | 4.04 (4.00–4.09) | 1.00 | 0 | 0 | n/a | n/a | n/a | n/a | n/a |",
        "| avro | 5,318 | 2,976 | 3,060 | 3,060 | 5318.0 | 3060.0 | 42.5% | 2.04 | n/a | n/a | n/a | n/a | n/a | n/a | n/a |",
    ] {
        assert!(details.contains(line), "DETAILS.md lacks {line:?}\n\n{details}");
    }
}

/// Writes `text` over `file` in a scratch copy and expects `report` to fail
/// with `path:line: message` (`path: message` when `line` is 0).
fn check_malformed(case: usize, file: &str, text: &str, line: usize, message: &str) {
    let dir = scratch(&format!("malformed-{case}"));
    std::fs::write(dir.join(file), text).unwrap();
    let err = report::write_report(&dir).unwrap_err();
    let path = dir.join(file).display().to_string();
    let want = if line == 0 {
        format!("{path}: {message}")
    } else {
        format!("{path}:{line}: {message}")
    };
    assert_eq!(err, want, "case {case}");
}

#[test]
fn malformed_raw_files_name_file_and_line() {
    let http_header = parse::HTTP_HEADER;
    let sizes_header = wirebench::measure::results::SIZES_HEADER;
    let hist = "histograms/json-1000-none-r2.hist";
    let cases: Vec<(&str, String, usize, String)> = vec![
        (
            "codec.txt",
            "goos: linux\n\nBenchmarkEncode/json/abc-2 10 5 ns/op\n".into(),
            3,
            "product count in the name: expected a number, found \"abc\"".into(),
        ),
        (
            "codec.txt",
            "goos: linux\nhello world\n".into(),
            2,
            "expected a `Benchmark…` result or a `key: value` line, found \"hello world\"".into(),
        ),
        (
            "codec.txt",
            "BenchmarkEncode/json/1-2 10 5 ns/op 7\n".into(),
            1,
            "expected `value unit` pairs after the iteration count".into(),
        ),
        (
            "codec.txt",
            "BenchmarkEncode/json/1-2 10 12 B/op\n".into(),
            1,
            "missing `ns/op` value".into(),
        ),
        (
            "codec.txt",
            "BenchmarkEncode-2 10 12 ns/op\n".into(),
            1,
            "benchmark name \"Encode-2\": expected Benchmark<Op>/<format>/<count>-<procs>".into(),
        ),
        (
            "sizes.csv",
            format!("{sizes_header}\njson,1,2\n"),
            2,
            format!("expected {} columns, found 3", sizes_header.split(',').count()),
        ),
        (
            "sizes.csv",
            "format,count\n".into(),
            1,
            format!("expected the header {sizes_header:?} (or an older one starting like it), found \"format,count\""),
        ),
        (
            "data-codec.txt",
            "data: d.json\nBenchmarkData/json/encode-2 10 x ns/op\n".into(),
            2,
            "ns/op: expected a number, found \"x\"".into(),
        ),
        (
            "data-sizes.csv",
            format!("{}\njson,12,-3,5,5,1.0,1.0\n", parse::DOCUMENT_SIZES_HEADER),
            2,
            "gzip1_bytes: expected a number, found \"-3\"".into(),
        ),
        (
            "http.csv",
            format!("{http_header}\n1,json,1000,none,8,1.0,800,fast,1,1,1,1,1,1,1,0,0,0,0,0,0,0,,,,,,borrowed,,\n"),
            2,
            "rps: expected a number, found \"fast\"".into(),
        ),
        (
            "http-gzip.csv",
            String::new(),
            0,
            "empty file: expected a header line".into(),
        ),
        (
            hist,
            "# ok\n0 1 5\n10 20\n".into(),
            3,
            "expected `low_ns high_ns count`, found \"10 20\"".into(),
        ),
        (
            hist,
            "20 10 5\n".into(),
            1,
            "[20, 10) is not a bucket of this layout (expected [20, 21))".into(),
        ),
        (
            hist,
            "# max_ns=lots\n".into(),
            1,
            "max_ns: expected a number, found \"lots\"".into(),
        ),
    ];
    for (case, (file, text, line, message)) in cases.iter().enumerate() {
        check_malformed(case, file, text, *line, message);
    }
}

/// Every `<tag …>` is closed by `</tag>` or is self-closing, in order.
fn assert_balanced(svg: &str) {
    assert!(svg.starts_with("<svg "), "{svg}");
    assert!(svg.trim_end().ends_with("</svg>"));
    let mut stack: Vec<String> = Vec::new();
    let mut rest = svg;
    while let Some(i) = rest.find('<') {
        let end = rest[i..].find('>').expect("unclosed <") + i;
        let tag = &rest[i + 1..end];
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop().as_deref(), Some(name), "mismatched </{name}>");
        } else if !tag.ends_with('/') {
            stack.push(tag.split_whitespace().next().unwrap().to_string());
        }
        assert!(!tag.contains('<'), "< inside a tag: {tag}");
        rest = &rest[end + 1..];
    }
    assert!(stack.is_empty(), "unclosed: {stack:?}");
}

#[test]
fn svg_is_well_formed() {
    use report::svg::{Series, bars, lines};
    let s = Series::new;
    let cats = vec!["json".to_string(), "a<b&c".to_string()];
    assert_balanced(&bars(
        "Size <raw> & \"gzip\"",
        "bytes",
        &cats,
        &[s("raw", vec![Some(10.0), None]), s("gz", vec![Some(1.0), Some(0.0)])],
        &[],
    ));
    assert_balanced(&bars("empty", "x", &[], &[], &[]));
    assert_balanced(&lines(
        "t",
        "x",
        "y",
        &[1.0, 100.0, 10_000.0],
        &[s("e", vec![Some(3.0), Some(2.0), None])],
        true,
        &[],
    ));
    let dir = scratch("svg");
    for p in report::write_report(&dir).unwrap() {
        if p.extension().is_some_and(|e| e == "svg") {
            assert_balanced(&std::fs::read_to_string(&p).unwrap());
        }
    }
}

/// One report is one run: files stamped with two run ids are refused, each
/// run named with its files; `--allow-mixed` accepts them and labels tables.
#[test]
fn report_refuses_files_from_different_runs() {
    let dir = scratch("mixed");
    let stamp = |file: &str, prefix: &str, id: &str| {
        let p = dir.join(file);
        let text = std::fs::read_to_string(&p).unwrap();
        std::fs::write(&p, format!("{prefix}run: {id}\n{prefix}commit: c0ffee\n{text}")).unwrap();
    };
    stamp("codec.txt", "", "run-A");
    stamp("sizes.csv", "# ", "run-A");
    stamp("http.csv", "# ", "run-B");
    let err = report::write_report(&dir).unwrap_err();
    assert!(err.contains("different runs"), "{err}");
    assert!(err.contains("run run-A: codec.txt, sizes.csv"), "{err}");
    assert!(err.contains("run run-B: http.csv"), "{err}");
    assert!(
        err.contains("run (no run stamp): histograms/json-1000-none-r1.hist, http-gzip.csv"),
        "{err}"
    );
    assert!(!dir.join("REPORT.md").exists(), "nothing written on refusal");

    let opts = report::Options {
        allow_mixed: true,
        ..Default::default()
    };
    report::write_report_with(&dir, &opts).unwrap();
    let md = std::fs::read_to_string(dir.join("REPORT.md")).unwrap()
        + &std::fs::read_to_string(dir.join("DETAILS.md")).unwrap();
    assert!(md.contains("**These tables mix"), "{md}");
    assert!(md.contains("## HTTP: `http.csv` (run `run-B`)"), "{md}");

    // Self-test: the same files stamped with one id are one run.
    let one = scratch("one-run");
    for (file, prefix) in [
        ("codec.txt", ""),
        ("sizes.csv", "# "),
        ("http.csv", "# "),
        ("http-gzip.csv", "# "),
    ] {
        let p = one.join(file);
        let text = std::fs::read_to_string(&p).unwrap();
        std::fs::write(&p, format!("{prefix}run: R\n{text}")).unwrap();
    }
    for h in std::fs::read_dir(one.join("histograms")).unwrap() {
        let p = h.unwrap().path();
        let text = std::fs::read_to_string(&p).unwrap();
        std::fs::write(&p, format!("# run: R\n{text}")).unwrap();
    }
    report::write_report(&one).unwrap();
    let md = std::fs::read_to_string(one.join("REPORT.md")).unwrap();
    assert!(md.contains("Every table below comes from one run, `R"), "{md}");
}

/// Every chart of a real run's report carries its 95% intervals (sizes are
/// exact and say so), the HTTP and CPU charts name their concurrency, and
/// the report's run span ends at the latest end of any file.
#[test]
fn charts_carry_intervals_and_concurrency() {
    let results = Path::new(env!("CARGO_MANIFEST_DIR")).join("results");
    let dir = Scratch::new("report-charts");
    for f in ["codec.txt", "sizes.csv", "environment.json"]
        .iter()
        .chain(wirebench::report::HTTP_FILES.iter())
    {
        if let Ok(t) = std::fs::read_to_string(results.join(f)) {
            std::fs::write(dir.join(f), t).unwrap();
        }
    }
    let written = wirebench::report::write_report(&dir).unwrap();
    let charts: Vec<&PathBuf> = written
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "svg"))
        .collect();
    assert!(charts.len() >= 8, "{charts:?}");
    for p in charts {
        let svg = std::fs::read_to_string(p).unwrap();
        let name = p.file_name().unwrap().to_string_lossy();
        if name == "chart-size.svg" {
            assert!(svg.contains("exact bytes: no interval"), "{name}");
        } else {
            assert!(svg.contains("<title>95% interval"), "{name} draws no interval");
        }
        if name.starts_with("chart-http") || name.starts_with("chart-cpu") {
            assert!(svg.contains("concurrency 8"), "{name} names no concurrency");
        }
    }
    let report = std::fs::read_to_string(dir.join("REPORT.md")).unwrap();
    // One screen decides: at most 300 lines, the decision table first, then
    // a verdict that names where JSON is still the right answer.
    assert!(report.lines().count() <= 300, "{} lines", report.lines().count());
    let first = report.lines().position(|l| l.starts_with("## ")).unwrap();
    assert_eq!(report.lines().nth(first), Some("## Decision table"));
    assert!(report.contains("## Verdict") && report.contains("**Where JSON is still the right answer**"));
    let ends: Vec<String> = ["codec.txt", "sizes.csv", "http.csv", "http-server.csv"]
        .iter()
        .filter_map(|f| std::fs::read_to_string(dir.join(f)).ok())
        .filter_map(|t| wirebench::measure::run::read_stamp(&t)?.end)
        .collect();
    let latest = ends.iter().max().unwrap();
    assert!(report.contains(&format!("– {latest}")), "the run ends at {latest}");
}

/// `n` calibration samples, `per_round` per round, after `prefix`; the
/// rounds in `slow` ran the CPU loop 10% slower.
fn calibration(prefix: &str, n: usize, per_round: usize, slow: &[usize]) -> String {
    (0..n)
        .map(|i| {
            let round = i / per_round + 1;
            let factor = if slow.contains(&round) { 1.10 } else { 1.0 };
            wirebench::measure::calibration::Sample {
                round,
                case: (prefix == "# ").then(|| "json/1000".to_string()),
                at_s: i as f64 * 0.5,
                cpu_us: (1500.0 + (i % 7) as f64) * factor,
                mem_us: 800.0 + (i % 5) as f64,
            }
            .line(prefix)
        })
        .collect()
}

/// The report's calibration paragraph: a quiet run says the machine held one
/// state; a run whose round 2 ran the loop 10% slower says the state moved,
/// names the round and counts its codec batches; HTTP comment lines are read
/// too; a malformed calibration line names its file and line.
#[test]
fn calibration_is_reported_and_a_moved_machine_is_said() {
    let report_of = |name: &str, codec_slow: &[usize], http_slow: &[usize]| {
        let dir = scratch(name);
        let codec = std::fs::read_to_string(dir.join("codec.txt")).unwrap();
        std::fs::write(dir.join("codec.txt"), codec + &calibration("", 12, 4, codec_slow)).unwrap();
        let http = std::fs::read_to_string(dir.join("http.csv")).unwrap();
        std::fs::write(dir.join("http.csv"), calibration("# ", 10, 1, http_slow) + &http).unwrap();
        report::write_report(&dir).unwrap();
        std::fs::read_to_string(dir.join("REPORT.md")).unwrap()
    };
    let quiet = report_of("cal-quiet", &[], &[]);
    assert!(quiet.contains("Calibration (`src/measure/calibration.rs`)"), "{quiet}");
    assert!(quiet.contains("| `codec.txt` | 12 | "), "{quiet}");
    assert!(quiet.contains("| `http.csv` | 10 | "), "{quiet}");
    assert!(quiet.contains("the machine held one state through the run"), "{quiet}");
    assert!(
        !quiet.contains("calibration: round="),
        "samples stay out of the codec header"
    );

    let moved = report_of("cal-moved", &[2], &[4]);
    assert!(
        moved.contains("**The machine's state moved during this run**"),
        "{moved}"
    );
    assert!(moved.contains("rounds 2 of 3; 4 of 13 batches"), "{moved}");
    assert!(moved.contains("(rounds 2)"), "{moved}");
    assert!(moved.contains("| 1 of 10 runs |"), "{moved}");
    assert!(!moved.contains("held one state"));

    check_malformed(
        90,
        "codec.txt",
        "goos: linux\ncalibration: round=1 at=0 cpu_us=fast mem_us=1\n",
        2,
        "calibration: cpu_us: expected a number ≥ 0, found \"fast\"",
    );
}
