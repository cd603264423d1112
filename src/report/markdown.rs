//! `results/REPORT.md`: every table, in plain Markdown, plus the charts.
//!
//! Layout: what the numbers mean → headline at 1,000 products → charts →
//! codec tables for every count → scaling → sizes → HTTP (every file, every
//! count) → peers → the Go workshop's reference figures as ratios to JSON →
//! environment → inputs. Each figure is a median with its min–max spread.

use super::parse::ERROR_KINDS;
use super::svg::{self, Series};
use super::{CodecStat, Data, HttpFile, HttpStat, Spread};
use crate::measure::env;
use std::fmt::Write as _;

/// The count the headline and charts use (the count of docs/SPEC.md, "Reference figures").
pub const HEADLINE_COUNT: usize = 1000;

/// The reference figures (docs/SPEC.md, "Reference figures") from the Go workshop (Apple M5 Pro, go1.27.1,
/// 1,000 products, median of 5 rounds, HTTP uncompressed at concurrency 8):
/// format, raw bytes, gzip bytes, encode µs, decode µs, req/s, p50 ms, p95 ms.
pub const GO_REFERENCE: [GoRef; 5] = [
    ("json", 169_241.0, 9_653.0, 237.01, 719.14, 855.89, 9.303, 11.139),
    ("msgpack", 154_013.0, 8_926.0, 196.84, 287.52, 1_284.13, 6.203, 7.726),
    ("protobuf", 111_976.0, 7_396.0, 158.64, 211.03, 1_582.48, 4.996, 6.634),
    ("avro", 106_988.0, 6_766.0, 88.58, 120.32, 1_634.05, 4.836, 6.894),
    (
        "flatbuffers",
        180_056.0,
        17_079.0,
        265.75,
        207.14,
        1_551.10,
        5.100,
        7.131,
    ),
];

/// One row of [`GO_REFERENCE`]: format, raw bytes, gzip bytes, encode µs,
/// decode µs, req/s, p50 ms, p95 ms.
pub type GoRef = (&'static str, f64, f64, f64, f64, f64, f64, f64);

fn formats() -> impl Iterator<Item = &'static str> {
    crate::codec::Format::ALL.into_iter().map(|f| f.name())
}

/// A number with a precision that suits its size.
pub fn num(x: f64) -> String {
    let a = x.abs();
    if !x.is_finite() {
        "n/a".into()
    } else if a >= 1_000.0 {
        group(x.round() as i64)
    } else if a >= 100.0 {
        format!("{x:.1}")
    } else if a >= 1.0 {
        format!("{x:.2}")
    } else {
        format!("{x:.3}")
    }
}

/// An integer with thousands separators: 169241 → "169,241".
pub fn group(n: i64) -> String {
    let s = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 { format!("-{out}") } else { out }
}

/// `median (min–max)`, each value scaled by `k`.
pub fn spread(s: &Spread, k: f64) -> String {
    if s.n <= 1 || s.min == s.max {
        num(s.median * k)
    } else {
        format!("{} ({}–{})", num(s.median * k), num(s.min * k), num(s.max * k))
    }
}

fn find<'a>(d: &'a Data, op: &str, format: &str, count: usize) -> Option<&'a CodecStat> {
    d.codec_stats
        .iter()
        .find(|s| s.op == op && s.format == format && s.count == count)
}

fn us(s: Option<&CodecStat>) -> Option<f64> {
    s.map(|s| s.ns_per_op.median / 1000.0)
}

fn http_file<'a>(d: &'a Data, name: &str) -> Option<&'a HttpFile> {
    d.http.iter().find(|f| f.name == name)
}

fn http_case<'a>(d: &'a Data, file: &str, format: &str, count: usize) -> Option<&'a HttpStat> {
    http_file(d, file)?
        .stats
        .iter()
        .find(|s| s.format == format && s.count == count)
}

fn size_row<'a>(d: &'a Data, format: &str, count: usize) -> Option<&'a super::parse::SizeRow> {
    d.sizes
        .as_ref()?
        .iter()
        .find(|r| r.format == format && r.count == count)
}

fn opt(x: Option<f64>) -> String {
    x.map_or_else(|| "n/a".into(), num)
}

/// The counts present in the codec results, ascending.
fn codec_counts(d: &Data) -> Vec<usize> {
    let mut c: Vec<usize> = d.codec_stats.iter().map(|s| s.count).collect();
    c.sort_unstable();
    c.dedup();
    c
}

/// The SVG charts (file name, text) built from `d`.
pub fn charts(d: &Data) -> Vec<(String, String)> {
    let n = HEADLINE_COUNT;
    let cats: Vec<String> = formats().map(String::from).collect();
    let per = |g: &dyn Fn(&str) -> Option<f64>| formats().map(g).collect::<Vec<_>>();
    let mut out = Vec::new();
    if d.sizes.is_some() {
        out.push((
            "chart-size.svg".to_string(),
            svg::bars(
                &format!("Payload size, {} products", group(n as i64)),
                "bytes",
                &cats,
                &[
                    Series {
                        name: "raw".into(),
                        values: per(&|f| size_row(d, f, n).map(|r| r.raw_bytes as f64)),
                    },
                    Series {
                        name: "gzip -6".into(),
                        values: per(&|f| size_row(d, f, n).map(|r| r.gzip6_bytes as f64)),
                    },
                ],
            ),
        ));
    }
    if !d.codec_stats.is_empty() {
        out.push((
            "chart-codec.svg".to_string(),
            svg::bars(
                &format!("Encode and decode time, {} products (median)", group(n as i64)),
                "µs per catalog",
                &cats,
                &[
                    Series {
                        name: "encode".into(),
                        values: per(&|f| us(find(d, "Encode", f, n))),
                    },
                    Series {
                        name: "decode".into(),
                        values: per(&|f| us(find(d, "Decode", f, n))),
                    },
                    Series {
                        name: "memcpy".into(),
                        values: per(&|f| us(find(d, "Memcpy", f, n))),
                    },
                ],
            ),
        ));
        let counts = codec_counts(d);
        let xs: Vec<f64> = counts.iter().map(|&c| c as f64).collect();
        for op in ["Encode", "Decode"] {
            let series: Vec<Series> = formats()
                .map(|f| Series {
                    name: f.into(),
                    values: counts
                        .iter()
                        .map(|&c| find(d, op, f, c).map(|s| s.ns_per_op.median / c as f64))
                        .collect(),
                })
                .collect();
            out.push((
                format!("chart-scaling-{}.svg", op.to_lowercase()),
                svg::lines(
                    &format!("{op} time per product vs catalog size"),
                    "products per catalog (log scale)",
                    "ns per product",
                    &xs,
                    &series,
                    true,
                ),
            ));
        }
    }
    if !d.http.is_empty() {
        let comp = |file: &str, g: fn(&HttpStat) -> f64| per(&|f| http_case(d, file, f, n).map(g));
        out.push((
            "chart-http-rps.svg".to_string(),
            svg::bars(
                &format!("HTTP requests/s, {} products (median of rounds)", group(n as i64)),
                "requests per second",
                &cats,
                &[
                    Series {
                        name: "none".into(),
                        values: comp("http.csv", |s| s.rps.median),
                    },
                    Series {
                        name: "gzip".into(),
                        values: comp("http-gzip.csv", |s| s.rps.median),
                    },
                ],
            ),
        ));
        out.push((
            "chart-http-p95.svg".to_string(),
            svg::bars(
                &format!("HTTP p95 latency, {} products (median of rounds' p95)", group(n as i64)),
                "ms",
                &cats,
                &[
                    Series {
                        name: "none".into(),
                        values: comp("http.csv", |s| s.p95_ms.median),
                    },
                    Series {
                        name: "gzip".into(),
                        values: comp("http-gzip.csv", |s| s.p95_ms.median),
                    },
                ],
            ),
        ));
    }
    out
}

const MEANING: &str = "\
## What these numbers measure, and what they do not

- **Codec rows** (`codec.txt`) time one operation on one thread with warm caches: *encode* is what the \
server does per request (our domain types → bytes, including building prost/FlatBuffers objects); \
*decode* is parse + validation + conversion to our domain types (and dropping them). Each row is \
calibrated to a time budget and repeated; we show the median of the repeats and their min–max. \
B/op and allocs/op come from a counting global allocator (bytes requested, reallocs included). \
MB/s is the payload size of that format divided by the time. *Memcpy* copies the same number of \
bytes: the physical floor, not a codec. They do not measure I/O, contention, cold caches or other machines.
- **Sizes** (`sizes.csv`) are exact byte counts. The gzip times are single-threaded medians on this \
machine, shown beside the encode time so you can judge whether the bytes saved are worth the CPU.
- **HTTP** (`http*.csv`) is a *closed loop*: a fixed number of keep-alive connections each sends the next \
request only after the previous response was read, gunzipped if asked, decoded and counted; so a slow \
server lowers the request rate instead of building a queue, and latency under overload is understated \
(an open-loop run, `--rate`, answers capacity questions). Client and server share **one machine** and its \
cores (here the CPU count in the environment below), talk over **loopback** (no network latency, no \
bandwidth limit), with **no TLS**. Requests/s is verified responses per second of the round. \
**The p95 shown per case is the median of the rounds' p95s, which is not the p95 of all requests**; \
the *pooled* p95/p99 beside it are computed from the rounds' histograms merged by adding counts \
(nearest rank, bucket midpoint, within 1% of the true value).
- Nothing here was cherry-picked: every row in the raw files appears below, every count gets its table.
";

/// The whole REPORT.md.
pub fn render(d: &Data, chart_names: &[&str]) -> String {
    let mut o = String::from("# wirebench report\n\n");
    let envj = d.environment.as_deref().unwrap_or("");
    let f = |k: &str| env::json_string_field(envj, k).unwrap_or_else(|| "unknown".into());
    let cores = envj
        .lines()
        .find_map(|l| l.trim().strip_prefix("\"cores\": "))
        .map_or("?".to_string(), |v| v.trim_end_matches(',').to_string());
    let _ = writeln!(
        o,
        "Run {} on {} ({} logical cores, {}), {}, kernel {}, {}, commit `{}`; load average at the start {}.{}\n",
        f("date_utc"),
        f("cpu"),
        cores,
        f("memory"),
        f("os"),
        f("kernel"),
        f("rustc"),
        f("git_commit"),
        f("load_average"),
        if d.environment_captured_now {
            " (environment.json was missing and was captured when this report was generated, not when the benchmarks ran.)"
        } else {
            ""
        }
    );
    o.push_str("Generated by `wirebench report` from the raw files beside it (`make bench` reruns everything).\n\n");
    o.push_str(MEANING);
    headline(&mut o, d);
    if !chart_names.is_empty() {
        o.push_str("\n## Charts\n\n");
        for c in chart_names {
            let _ = writeln!(o, "![{c}]({c})\n");
        }
    }
    codec_tables(&mut o, d);
    scaling(&mut o, d);
    sizes(&mut o, d);
    for file in &d.http {
        http_tables(&mut o, file);
    }
    if let Some(p) = &d.peers {
        peers(&mut o, p);
    }
    go_reference(&mut o, d);
    o.push_str("\n## Environment (`environment.json`)\n\n```json\n");
    o.push_str(envj.trim_end());
    o.push_str("\n```\n\n## Inputs\n\n");
    if d.missing.is_empty() {
        o.push_str("All expected raw files were present.\n");
    } else {
        let _ = writeln!(o, "Missing (their sections are empty): {}.", d.missing.join(", "));
    }
    if let Some(c) = &d.codec {
        let h: Vec<String> = c.header.iter().map(|(k, v)| format!("{k}: {v}")).collect();
        let _ = writeln!(o, "\ncodec.txt header: {}.", h.join("; "));
    }
    o
}

fn headline(o: &mut String, d: &Data) {
    let n = HEADLINE_COUNT;
    let _ = writeln!(
        o,
        "\n## Headline: {} products\n\nMedians (min–max). HTTP at the default concurrency, uncompressed unless marked gzip.\n",
        group(n as i64)
    );
    o.push_str("| format | raw / gzip-6 bytes | encode µs | decode µs | HTTP req/s | p50 / p95 ms | gzip req/s | gzip p50 / p95 ms |\n|---|---|---|---|---|---|---|---|\n");
    for fm in formats() {
        let size = size_row(d, fm, n).map_or("n/a".into(), |r| {
            format!("{} / {}", group(r.raw_bytes as i64), group(r.gzip6_bytes as i64))
        });
        let enc = find(d, "Encode", fm, n).map_or("n/a".into(), |s| spread(&s.ns_per_op, 1e-3));
        let dec = find(d, "Decode", fm, n).map_or("n/a".into(), |s| spread(&s.ns_per_op, 1e-3));
        let h = |file| http_case(d, file, fm, n);
        let rps = |s: Option<&HttpStat>| s.map_or("n/a".into(), |s| spread(&s.rps, 1.0));
        let lat = |s: Option<&HttpStat>| {
            s.map_or("n/a".into(), |s| {
                format!("{} / {}", num(s.p50_ms.median), num(s.p95_ms.median))
            })
        };
        let _ = writeln!(
            o,
            "| {fm} | {size} | {enc} | {dec} | {} | {} | {} | {} |",
            rps(h("http.csv")),
            lat(h("http.csv")),
            rps(h("http-gzip.csv")),
            lat(h("http-gzip.csv"))
        );
    }
}

fn codec_tables(o: &mut String, d: &Data) {
    if d.codec_stats.is_empty() {
        return;
    }
    o.push_str("\n## Codec microbenchmarks (`codec.txt`)\n\nPer catalog: µs per operation, median (min–max) of the runs; MB/s of payload; allocator bytes and calls per operation.\n");
    for count in codec_counts(d) {
        let _ = writeln!(
            o,
            "\n### {} product{}\n",
            group(count as i64),
            if count == 1 { "" } else { "s" }
        );
        o.push_str("| format | encode µs | enc MB/s | enc B/op | enc allocs | decode µs | dec MB/s | dec B/op | dec allocs | memcpy µs |\n|---|---|---|---|---|---|---|---|---|---|\n");
        for fm in formats() {
            let e = find(d, "Encode", fm, count);
            let de = find(d, "Decode", fm, count);
            if e.is_none() && de.is_none() {
                continue;
            }
            let cells = |s: Option<&CodecStat>| match s {
                None => "n/a | n/a | n/a | n/a".to_string(),
                Some(s) => format!(
                    "{} | {} | {} | {}",
                    spread(&s.ns_per_op, 1e-3),
                    s.mb_per_s.map_or("n/a".into(), |m| num(m.median)),
                    group(s.bytes_per_op as i64),
                    group(s.allocs_per_op as i64)
                ),
            };
            let _ = writeln!(
                o,
                "| {fm} | {} | {} | {} |",
                cells(e),
                cells(de),
                opt(us(find(d, "Memcpy", fm, count)))
            );
        }
        let others: Vec<&CodecStat> = d
            .codec_stats
            .iter()
            .filter(|s| s.count == count && !["Encode", "Decode", "Memcpy"].contains(&s.op.as_str()))
            .collect();
        if !others.is_empty() {
            o.push_str("\nWire cost apart from conversion cost:\n\n| row | µs | MB/s | B/op | allocs/op |\n|---|---|---|---|---|\n");
            for s in others {
                let _ = writeln!(
                    o,
                    "| {} ({}) | {} | {} | {} | {} |",
                    s.op,
                    s.format,
                    spread(&s.ns_per_op, 1e-3),
                    s.mb_per_s.map_or("n/a".into(), |m| num(m.median)),
                    group(s.bytes_per_op as i64),
                    group(s.allocs_per_op as i64)
                );
            }
        }
    }
}

fn scaling(o: &mut String, d: &Data) {
    let counts = codec_counts(d);
    if counts.len() < 2 {
        return;
    }
    o.push_str("\n## Scaling: time per product against catalog size\n\nMedian ns per product (time per catalog ÷ products). Linear cost = a flat row; the 1-product column also carries the fixed per-catalog overhead.\n\n| format | op |");
    for c in &counts {
        let _ = write!(o, " {} |", group(*c as i64));
    }
    o.push_str("\n|---|---|");
    o.push_str(&"---|".repeat(counts.len()));
    o.push('\n');
    for op in ["Encode", "Decode"] {
        for fm in formats() {
            let _ = write!(o, "| {fm} | {} |", op.to_lowercase());
            for &c in &counts {
                let _ = write!(
                    o,
                    " {} |",
                    opt(find(d, op, fm, c).map(|s| s.ns_per_op.median / c as f64))
                );
            }
            o.push('\n');
        }
    }
}

fn sizes(o: &mut String, d: &Data) {
    let Some(rows) = &d.sizes else { return };
    o.push_str("\n## Payload sizes and the cost of gzip (`sizes.csv`)\n\nBytes are exact. Times are single-threaded medians in µs per catalog; the last column is how many encodes one gzip -6 costs.\n");
    let mut counts: Vec<usize> = rows.iter().map(|r| r.count).collect();
    counts.dedup();
    for count in counts {
        let _ = writeln!(
            o,
            "\n### {} product{}\n",
            group(count as i64),
            if count == 1 { "" } else { "s" }
        );
        o.push_str("| format | raw | gzip -1 | gzip -6 | gzip -9 | B/product raw | B/product gzip -6 | gzip -6 saves | encode µs | gzip -1 µs | gzip -6 µs | gzip -9 µs | gzip -6 ÷ encode |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for r in rows.iter().filter(|r| r.count == count) {
            let saves = if r.raw_bytes > 0 {
                100.0 * (1.0 - r.gzip6_bytes as f64 / r.raw_bytes as f64)
            } else {
                0.0
            };
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} | {:.1} | {:.1} | {saves:.1}% | {} | {} | {} | {} | {}× |",
                r.format,
                group(r.raw_bytes as i64),
                group(r.gzip1_bytes as i64),
                group(r.gzip6_bytes as i64),
                group(r.gzip9_bytes as i64),
                r.bytes_per_product_raw,
                r.bytes_per_product_gzip6,
                num(r.encode_us),
                num(r.gzip1_us),
                num(r.gzip6_us),
                num(r.gzip9_us),
                if r.encode_us > 0.0 {
                    num(r.gzip6_us / r.encode_us)
                } else {
                    "n/a".into()
                }
            );
        }
    }
}

fn http_tables(o: &mut String, file: &HttpFile) {
    let _ = writeln!(o, "\n## HTTP: `{}`", file.name);
    if let Some(s) = file.stats.first() {
        let _ = writeln!(
            o,
            "\nCompression {}, concurrency {}, medians (min–max) across rounds.",
            s.compression, s.concurrency
        );
    }
    let mut counts: Vec<usize> = file.stats.iter().map(|s| s.count).collect();
    counts.dedup();
    for count in counts {
        let _ = writeln!(
            o,
            "\n### {} product{}\n",
            group(count as i64),
            if count == 1 { "" } else { "s" }
        );
        o.push_str("| format | req/s | MB/s | p50 ms | p95 ms (median of rounds) | pooled p95 ms | p99 ms (median of rounds) | pooled p99 ms | max ms | requests | errors | rounds |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for s in file.stats.iter().filter(|s| s.count == count) {
            let errs: Vec<String> = ERROR_KINDS
                .iter()
                .zip(s.errors)
                .filter(|(_, n)| *n > 0)
                .map(|(k, n)| format!("{k} {n}"))
                .collect();
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                s.format,
                spread(&s.rps, 1.0),
                num(s.bytes_per_s.median / 1e6),
                spread(&s.p50_ms, 1.0),
                spread(&s.p95_ms, 1.0),
                opt(s.pooled_p95_ms),
                spread(&s.p99_ms, 1.0),
                opt(s.pooled_p99_ms),
                num(s.max_ms.max),
                group(s.requests as i64),
                if errs.is_empty() { "0".into() } else { errs.join(", ") },
                s.rounds
            );
        }
    }
}

/// The summary tables of `peers.txt` (its `#` headings and `|` rows); the
/// per-run Go lines stay in the raw file.
fn peers(o: &mut String, text: &str) {
    o.push_str("\n## Peer implementations (`peers.txt`)\n\nOur codecs beside serde_json, rmp-serde and apache-avro on the same catalog, in one run (`make bench-peers`); every run's line is in `peers.txt`.\n");
    for line in text.lines() {
        if let Some(h) = line.strip_prefix("# ") {
            let _ = writeln!(o, "\n{h}\n");
        } else if line.starts_with('|') {
            let _ = writeln!(o, "{line}");
        }
    }
}

fn go_reference(o: &mut String, d: &Data) {
    let n = HEADLINE_COUNT;
    o.push_str("\n## Beside the Go workshop's reference figures\n\nSPEC's figures (Apple M5 Pro, go1.27.1, 1,000 products, a smaller product record, HTTP uncompressed at concurrency 8) were measured elsewhere, so only **ratios to JSON** are comparable: ours / Go.\n\n| format | raw bytes | gzip bytes | encode time | decode time | req/s | p95 |\n|---|---|---|---|---|---|---|\n");
    let json = GO_REFERENCE[0];
    let ours = |fm: &str| -> [Option<f64>; 6] {
        [
            size_row(d, fm, n).map(|r| r.raw_bytes as f64),
            size_row(d, fm, n).map(|r| r.gzip6_bytes as f64),
            us(find(d, "Encode", fm, n)),
            us(find(d, "Decode", fm, n)),
            http_case(d, "http.csv", fm, n).map(|s| s.rps.median),
            http_case(d, "http.csv", fm, n).map(|s| s.p95_ms.median),
        ]
    };
    let base = ours("json");
    for r in GO_REFERENCE {
        let go = [
            r.1 / json.1,
            r.2 / json.2,
            r.3 / json.3,
            r.4 / json.4,
            r.5 / json.5,
            r.7 / json.7,
        ];
        let mine = ours(r.0);
        let cells: Vec<String> = (0..6)
            .map(|i| {
                let ours = match (mine[i], base[i]) {
                    (Some(a), Some(b)) if b > 0.0 => format!("{:.2}", a / b),
                    _ => "n/a".into(),
                };
                format!("{ours} / {:.2}", go[i])
            })
            .collect();
        let _ = writeln!(o, "| {} | {} |", r.0, cells.join(" | "));
    }
}
