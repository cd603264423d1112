//! `REPORT.md` (the decision on top, [`super::decision`], then the run it
//! comes from) and `DETAILS.md`: every row in plain Markdown, and the charts.
//!
//! DETAILS.md: what the numbers mean → charts → codec tables for every count
//! → owned against borrowed decode → scaling → sizes → HTTP (every file,
//! every count) → CPU per request by side → link cases → the separate runs
//! → the Go workshop's figures as ratios to JSON → environment → inputs.
//! Each figure is a median with its min–max spread.

use super::inputs::{CodecStat, Data, HttpCpuStat, HttpFile, HttpStat, Spread, formats};
use super::parse::ERROR_KINDS;
use super::svg::{self, Series};
use crate::measure::env;
use crate::measure::significance::ci95;
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// The count the headline and charts use (the count of docs/SPEC.md, "Reference figures").
pub const HEADLINE_COUNT: usize = 1000;

/// The reference figures (docs/SPEC.md, "Reference figures") from the Go workshop (Apple M5 Pro, go1.27.1,
/// 1,000 products, median of 5 rounds, HTTP uncompressed at concurrency 8).
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

pub use super::numfmt::{TAIL_MIN, group, num, tail};
use super::numfmt::{head, opt, row};

/// `median (min–max)`, each value scaled by `k`.
pub fn spread(s: &Spread, k: f64) -> String {
    if s.n <= 1 || s.min == s.max {
        num(s.median * k)
    } else {
        format!("{} ({}–{})", num(s.median * k), num(s.min * k), num(s.max * k))
    }
}

/// The 95% median interval of a codec row's `ns/op` batches, in µs ÷ `per`.
fn codec_ci(d: &Data, op: &str, format: &str, count: usize, per: f64) -> Option<(f64, f64)> {
    let v: Vec<f64> = d
        .codec_lines(op, format, count)
        .iter()
        .map(|l| l.ns_per_op / per)
        .collect();
    ci95(&v)
}

/// The 95% median interval of one HTTP case's rounds of `file`, by `get`.
fn http_ci(
    d: &Data,
    file: &str,
    format: &str,
    count: usize,
    get: impl Fn(&super::parse::HttpRow) -> Option<f64>,
) -> Option<(f64, f64)> {
    ci95(&super::verdict::samples(&d.file_rows(file, count), format, get))
}

fn us(s: Option<&CodecStat>) -> Option<f64> {
    s.map(|s| s.ns_per_op.median / 1000.0)
}

/// µs of CPU per operation (`cpu-ns/op`) when recorded, else wall time.
fn cpu_us(s: Option<&CodecStat>) -> Option<f64> {
    s.map(|s| s.cpu_ns_per_op.as_ref().unwrap_or(&s.ns_per_op).median / 1000.0)
}

/// The counts present in the codec results, ascending.
fn codec_counts(d: &Data) -> BTreeSet<usize> {
    d.codec_stats.iter().map(|s| s.count).collect()
}

/// The SVG charts (file name, text) built from `d`.
pub fn charts(d: &Data) -> Vec<(String, String)> {
    let n = HEADLINE_COUNT;
    let cats: Vec<String> = formats().into_iter().map(String::from).collect();
    let per = |g: &dyn Fn(&str) -> Option<f64>| formats().into_iter().map(g).collect::<Vec<_>>();
    let mut out = Vec::new();
    if d.sizes.is_some() {
        out.push((
            "chart-size.svg".to_string(),
            svg::bars(
                &format!("Payload size, {} products (exact bytes: no interval)", group(n as i64)),
                "bytes",
                &cats,
                &[
                    Series::new("raw", per(&|f| d.size(f, n).map(|r| r.raw_bytes as f64))),
                    Series::new("gzip -6", per(&|f| d.size(f, n).map(|r| r.gzip6_bytes as f64))),
                ],
                &[],
            ),
        ));
    }
    if !d.codec_stats.is_empty() {
        out.push((
            "chart-codec.svg".to_string(),
            svg::bars(
                &format!(
                    "Encode and decode time, {} products (median of batches, 95% interval)",
                    group(n as i64)
                ),
                "µs per catalog",
                &cats,
                &[
                    Series::new("encode", per(&|f| us(d.codec_stat("Encode", f, n)))),
                    Series::new("decode", per(&|f| us(d.codec_stat("Decode", f, n)))),
                    Series::new("memcpy", per(&|f| us(d.codec_stat("Memcpy", f, n)))),
                ],
                &["Encode", "Decode", "Memcpy"]
                    .map(|op| formats().into_iter().map(|f| codec_ci(d, op, f, n, 1000.0)).collect()),
            ),
        ));
        let counts = codec_counts(d);
        let xs: Vec<f64> = counts.iter().map(|&c| c as f64).collect();
        for op in ["Encode", "Decode"] {
            let series: Vec<Series> = formats()
                .into_iter()
                .map(|f| {
                    let per_product = |&c: &usize| d.codec_stat(op, f, c).map(|s| s.ns_per_op.median / c as f64);
                    Series::new(f, counts.iter().map(per_product).collect())
                })
                .collect();
            let errors: Vec<Vec<Option<(f64, f64)>>> = formats()
                .into_iter()
                .map(|f| counts.iter().map(|&c| codec_ci(d, op, f, c, c as f64)).collect())
                .collect();
            out.push((
                format!("chart-scaling-{}.svg", op.to_lowercase()),
                svg::lines(
                    &format!("{op} time per product vs catalog size (median of batches, 95% interval)"),
                    "products per catalog (log scale)",
                    "ns per product",
                    &xs,
                    &series,
                    true,
                    &errors,
                ),
            ));
        }
    }
    if !d.http.is_empty() {
        let comp = |file: &str, g: fn(&HttpStat) -> f64| per(&|f| d.http_case(file, f, n).map(g));
        let ci = |file: &str| -> Vec<_> {
            let ci = |f| d.http_case(file, f, n).and_then(|s| s.rps_ci).map(|c| (c.lo, c.hi));
            formats().into_iter().map(ci).collect()
        };
        // Requests/s and p95 latency, without and with gzip, one bar chart each.
        let mut bars = |name: &str, what: &str, of: &str, unit: &str, g: fn(&HttpStat) -> f64, errors: [Vec<_>; 2]| {
            let title = format!(
                "HTTP {what}, {} products, concurrency {} (median of rounds{of}, 95% interval)",
                group(n as i64),
                concurrency(d)
            );
            let series =
                [("none", "http.csv"), ("gzip", "http-gzip.csv")].map(|(name, file)| Series::new(name, comp(file, g)));
            out.push((name.to_string(), svg::bars(&title, unit, &cats, &series, &errors)));
        };
        bars(
            "chart-http-rps.svg",
            "requests/s",
            "",
            "requests per second",
            |s| s.rps.median,
            [ci("http.csv"), ci("http-gzip.csv")],
        );
        bars(
            "chart-http-p95.svg",
            "p95 latency",
            "' p95",
            "ms",
            |s| s.p95_ms.median,
            ["http.csv", "http-gzip.csv"].map(|file| {
                formats()
                    .into_iter()
                    .map(|f| http_ci(d, file, f, n, |r| Some(r.p95_ms)))
                    .collect()
            }),
        );
    }
    // One axis for every format's CPU chart, so bars compare across charts.
    let axis = formats()
        .into_iter()
        .flat_map(|fm| {
            ["http.csv", "http-gzip.csv"]
                .into_iter()
                .filter_map(move |file| Breakdown::of(d, d.http_case(file, fm, n)?))
        })
        .flat_map(|b| {
            [
                b.server,
                b.client,
                Some(b.encode.unwrap_or(0.0) + b.gzip.unwrap_or(0.0) + b.server_rest().unwrap_or(0.0).max(0.0)),
                Some(b.decode.unwrap_or(0.0) + b.client_rest().unwrap_or(0.0).max(0.0)),
            ]
        })
        .flatten()
        .fold(0.0, f64::max);
    for fm in formats() {
        if let Some(svg) = cpu_chart(d, fm, n, axis) {
            out.push((format!("chart-cpu-{fm}.svg"), svg));
        }
    }
    out.extend(super::link_report::chart(d));
    out
}

/// One HTTP case's CPU per request, µs (medians): what the codec benches explain, and the rest.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Breakdown {
    pub server: Option<f64>,
    /// `Encode` row of `codec.txt`.
    pub encode: Option<f64>,
    /// `sizes.csv` for gzip cases (`gzip6_cpu_us`, else `gzip6_us`); 0 for uncompressed ones.
    pub gzip: Option<f64>,
    pub client: Option<f64>,
    /// `Decode` row of `codec.txt`: the client's verifying decode.
    pub decode: Option<f64>,
    /// The load generator's whole process.
    pub process: Option<f64>,
}

impl Breakdown {
    /// None when the case has no CPU columns.
    pub fn of(d: &Data, s: &HttpStat) -> Option<Breakdown> {
        let cpu = s.cpu.as_ref()?;
        let med = |x: &Option<Spread>| x.as_ref().map(|s| s.median);
        Some(Breakdown {
            server: med(&cpu.server_us),
            encode: cpu_us(d.codec_stat("Encode", &s.format, s.count)),
            gzip: match s.compression.as_str() {
                "gzip" | "gzip6" => d
                    .size(&s.format, s.count)
                    .and_then(|r| r.gzip6_cpu_us.or(Some(r.gzip_us?[1]))),
                "gzip1" => d.size(&s.format, s.count).and_then(|r| Some(r.gzip_us?[0])),
                "gzip9" => d.size(&s.format, s.count).and_then(|r| Some(r.gzip_us?[2])),
                _ => Some(0.0),
            },
            client: med(&cpu.client_us),
            // The decode the load generator verified with: the borrowed
            // view unless the rounds say `owned`.
            decode: cpu_us(d.codec_stat(
                if s.verify.contains("owned") {
                    "Decode"
                } else {
                    "DecodeBorrowed"
                },
                &s.format,
                s.count,
            )),
            process: med(&cpu.process_us),
        })
    }

    /// Server CPU not explained by encode and gzip: HTTP parsing and writing,
    /// system calls and the kernel's copies, scheduling.
    pub fn server_rest(&self) -> Option<f64> {
        Some(self.server? - self.encode? - self.gzip?)
    }

    /// Client CPU not explained by the decode: gunzip, HTTP reading, the kernel.
    pub fn client_rest(&self) -> Option<f64> {
        Some(self.client? - self.decode?)
    }

    /// The process's CPU in neither side (with the in-process server).
    pub fn unattributed(&self) -> Option<f64> {
        Some(self.process? - self.server? - self.client?)
    }
}

/// The concurrency of `http.csv`'s first case, `?` without one.
fn concurrency(d: &Data) -> String {
    d.http_file("http.csv")
        .and_then(|f| f.stats.first())
        .map_or("?".to_string(), |s| s.concurrency.to_string())
}

/// The stacked bars of one format at `count`: server and client, plain and gzip.
fn cpu_chart(d: &Data, fm: &str, count: usize, axis_max: f64) -> Option<String> {
    let cases: Vec<(&str, Breakdown)> = [("", "http.csv"), (" gzip", "http-gzip.csv")]
        .into_iter()
        .filter_map(|(label, file)| Some((label, Breakdown::of(d, d.http_case(file, fm, count)?)?)))
        .collect();
    if cases.is_empty() {
        return None;
    }
    let mut cats = Vec::new();
    let mut measured = Vec::new();
    let mut measured_ci = Vec::new();
    let mut series: Vec<Series> = ["encode", "gzip -6", "server rest", "decode", "client rest"]
        .iter()
        .map(|n| Series::new(*n, Vec::new()))
        .collect();
    for (label, b) in &cases {
        cats.push(format!("server{label}"));
        cats.push(format!("client{label}"));
        measured.extend([b.server, b.client]);
        let file = if label.is_empty() { "http.csv" } else { "http-gzip.csv" };
        measured_ci.extend([
            http_ci(d, file, fm, count, super::parse::HttpRow::server_cpu),
            http_ci(d, file, fm, count, super::parse::HttpRow::client_cpu),
        ]);
        let columns: [[Option<f64>; 2]; 5] = [
            [b.encode, None],
            [b.gzip, None],
            [b.server_rest(), None],
            [None, b.decode],
            [None, b.client_rest()],
        ];
        for (s, v) in series.iter_mut().zip(columns) {
            s.values.extend(v);
        }
    }
    let conc = concurrency(d);
    Some(svg::stacked(
        &format!(
            "{fm}: CPU per request by side, {} products, concurrency {conc} (black line: measured median of rounds, 95% interval; one axis for all formats)",
            group(count as i64)
        ),
        "µs of CPU per request",
        &cats,
        &series,
        &measured,
        &measured_ci,
        Some(axis_max),
    ))
}

const MEANING: &str = "\
## What these numbers measure, and what they do not

- **Codec rows** (`codec.txt`) time one operation on one thread with warm caches: *encode* is what the \
server does per request (our domain types → bytes, including building the FlatBuffers objects); \
*decode* is parse + validation + conversion to our domain types (and dropping them). Each row is \
calibrated to a time budget and repeated; we show the median of the repeats and their min–max. \
Timing runs with allocation counting switched off; B/op and allocs/op come from a separate, untimed \
run of the same operation with the counting global allocator switched on (bytes requested, reallocs included). \
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

/// REPORT.md: what decides, then the run it comes from.
pub fn render(d: &Data, _chart_names: &[&str]) -> String {
    let mut o = String::from("# wirebench report\n\n");
    let envj = d.environment.as_deref().unwrap_or("");
    let f = |k: &str| env::json_string_field(envj, k).unwrap_or_else(|| "unknown".into());
    let cores = env_cores(d).map_or("?".to_string(), |c| c.to_string());
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
    o.push_str("Generated by `wirebench report` from the raw files beside it (`make bench` reruns everything); every row of them, the charts and what each measurement means are in [DETAILS.md](DETAILS.md).\n");
    super::decision::render(&mut o, d);
    super::link_report::section(&mut o, d);
    runs_section(&mut o, d);
    separate_runs(&mut o, d);
    o
}

/// DETAILS.md (module docs).
pub fn render_details(d: &Data, chart_names: &[&str]) -> String {
    let mut o = String::from(
        "# wirebench report: details\n\nEvery row of the run's raw files; the decision and the verdict are in [REPORT.md](REPORT.md).\n\n",
    );
    o.push_str(MEANING);
    if !chart_names.is_empty() {
        o.push_str("\n## Charts\n\n");
        for c in chart_names {
            let _ = writeln!(o, "![{c}]({c})\n");
        }
    }
    codec_tables(&mut o, d);
    borrowed_tables(&mut o, d);
    scaling(&mut o, d);
    sizes(&mut o, d);
    for file in &d.http {
        http_tables(&mut o, file, &d.runs);
    }
    cpu_tables(&mut o, d);
    super::link_report::details(&mut o, d);
    if let Some(p) = d.peers.as_deref().filter(|p| Stamp::of(p).complete()) {
        peers(&mut o, p);
    }
    if let Some(p) = d.peers_instructions.as_deref().filter(|p| Stamp::of(p).complete()) {
        peers_instructions(&mut o, p);
    }
    if let Some(p) = d.server_pressure.as_deref().filter(|p| Stamp::of(p).complete()) {
        server_pressure(&mut o, p);
    }
    go_reference(&mut o, d);
    let envj = d.environment.as_deref().unwrap_or("");
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

/// The machine, commit and date a separately measured file states about
/// itself: `cpu:`, `commit:` (or `Commit:`) and `date:` header lines, or a
/// first line `# <date>T…Z …`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stamp {
    pub machine: Option<String>,
    pub commit: Option<String>,
    pub date: Option<String>,
}

impl Stamp {
    /// Reads the stamp from the first 40 lines of `text`.
    pub fn of(text: &str) -> Stamp {
        let mut s = Stamp::default();
        for (i, line) in text.lines().take(40).enumerate() {
            let l = line.trim();
            let value = |keys: &[&str]| {
                keys.iter()
                    .find_map(|k| l.strip_prefix(k))
                    .map(|v| v.trim().trim_end_matches('.').to_string())
                    .filter(|v| !v.is_empty())
            };
            s.machine = s.machine.take().or_else(|| value(&["cpu:", "machine:"]));
            s.commit = s.commit.take().or_else(|| value(&["commit:", "Commit:"]));
            s.date = s.date.take().or_else(|| value(&["date:"]));
            if i == 0
                && s.date.is_none()
                && let Some(first) = l.strip_prefix("# ").and_then(|r| r.split_whitespace().next())
                && first.len() >= 20
                && first.as_bytes()[4] == b'-'
                && first.ends_with('Z')
            {
                s.date = Some(first.to_string());
            }
        }
        s
    }

    /// Machine, commit and date all stated.
    pub fn complete(&self) -> bool {
        self.machine.is_some() && self.commit.is_some() && self.date.is_some()
    }

    /// `machine M, commit C, date D`, with the missing ones named.
    pub fn describe(&self) -> String {
        let part = |k: &str, v: &Option<String>| v.as_ref().map_or(format!("no {k}"), |v| format!("{k} {v}"));
        format!(
            "{}, {}, {}",
            part("machine", &self.machine),
            part("commit", &self.commit),
            part("date", &self.date)
        )
    }
}

/// The separate runs: each in DETAILS.md with its own stamp, or left out, saying why.
fn separate_runs(o: &mut String, d: &Data) {
    let files = [
        ("peers.txt", d.peers.as_deref()),
        ("peers-instructions.md", d.peers_instructions.as_deref()),
        ("server-pressure.txt", d.server_pressure.as_deref()),
    ];
    let present: Vec<(&str, Stamp)> = files.iter().filter_map(|(n, t)| Some((*n, Stamp::of((*t)?)))).collect();
    if present.is_empty() {
        return;
    }
    o.push_str("\n## Separate runs\n\nMeasured by their own commands at their own time, never mixed into the tables above; shown in DETAILS.md only when the file states its machine, commit and date.\n\n");
    for (name, s) in present {
        let _ = writeln!(
            o,
            "- `{name}`: {}: {}.",
            s.describe(),
            if s.complete() { "in DETAILS.md" } else { "left out" }
        );
    }
}

/// A stamped `server-pressure.txt`: its section headings and tables.
fn server_pressure(o: &mut String, text: &str) {
    o.push_str("\n## Server under pressure (`server-pressure.txt`)\n\nIts own run (`benches/server-pressure.sh`); the raw lines stay in the file.\n");
    for line in text.lines() {
        if let Some(h) = line.strip_prefix("## ") {
            let _ = writeln!(o, "\n### {h}\n");
        } else if line.starts_with('|') {
            let _ = writeln!(o, "{line}");
        }
    }
}

/// Which run the report's tables come from (one, or several with
/// `--allow-mixed`), and how many HTTP rounds other work disturbed.
fn runs_section(o: &mut String, d: &Data) {
    let ids = super::runs::ids(&d.runs);
    o.push_str("\n## Run and calibration\n\n");
    match ids.len() {
        0 => o.push_str("No raw file was found."),
        1 => {
            let stamp = super::runs::merged(&d.runs, &ids[0]);
            match stamp {
                Some(s) => {
                    let _ = write!(o, "Every table below comes from one run, `{}`.", s.describe());
                }
                None => o.push_str(
                    "The raw files carry no run stamp (written before stamps): nothing shows they come from one run.",
                ),
            }
        }
        n => {
            let _ = write!(
                o,
                "**These tables mix {n} runs** (`--allow-mixed`); every table names its run, and a figure computed across tables (the CPU breakdown, the decision table) may combine runs:"
            );
            for id in &ids {
                let files: Vec<&str> = d
                    .runs
                    .iter()
                    .filter(|f| f.id() == id)
                    .map(|f| f.file.as_str())
                    .collect();
                let _ = write!(o, "\n- run `{id}`: {}", files.join(", "));
            }
        }
    }
    o.push('\n');
    let rows: Vec<&super::parse::HttpRow> = d.http_rows.iter().collect();
    let measured = rows.iter().filter(|r| r.other_cores.is_some()).count();
    if measured > 0 {
        let disturbed = rows.iter().filter(|r| r.machine_disturbed()).count();
        let _ = writeln!(
            o,
            "\nHTTP rounds disturbed by other work on the machine (more than {} of a core of other CPU, or more than {} of a core stolen, from `/proc/stat`): {disturbed} of {measured}.",
            crate::measure::machine::DISTURBED_OTHER_CORES,
            crate::measure::machine::DISTURBED_STEAL_CORES
        );
    }
    super::decision::render_jumps(o, d);
    calibration_section(o, d);
}

/// The calibration samples of every file (`crate::measure::calibration`):
/// medians, the slowest sample, the rounds marked disturbed; and whether the
/// machine's state moved within or between files.
fn calibration_section(o: &mut String, d: &Data) {
    use crate::measure::calibration::{DISTURBED_SLOWER, assess};
    let assessed: Vec<(&str, &[crate::measure::calibration::Sample], _)> = d
        .calibration
        .iter()
        .filter_map(|(f, s)| Some((f.as_str(), s.as_slice(), assess(s)?)))
        .collect();
    if assessed.is_empty() {
        return;
    }
    let limit = pct0(DISTURBED_SLOWER);
    let _ = writeln!(
        o,
        "\nCalibration (`src/measure/calibration.rs`): a fixed CPU loop and a fixed memory loop, no codec, timed between codec batches and before every HTTP run. A sample slower than its file's median by more than the loop's limit marks its round (codec) or its run (HTTP) disturbed. The limit is {limit}, or three robust standard deviations of that loop's samples in the file where they spread wider (the limit column), so a loop that varies from sample to sample on a quiet machine flags only its outliers; no figure is divided by it.\n"
    );
    o.push_str("| file | samples | CPU loop µs (median, 95% interval) | memory loop µs | limit CPU / memory | slowest sample | disturbed |\n|---|---|---|---|---|---|---|\n");
    let ci = |m: &crate::measure::significance::MedianCi| format!("{} [{}, {}]", num(m.median), num(m.lo), num(m.hi));
    let mut moved = Vec::new();
    for (file, samples, a) in &assessed {
        let disturbed = if a.slow_samples == 0 {
            "none".to_string()
        } else if *file == "codec.txt" || *file == "data-codec.txt" {
            let rounds: Vec<String> = a.disturbed_rounds.iter().map(usize::to_string).collect();
            let batches = if *file == "codec.txt" {
                codec_batches_in(d, &a.disturbed_rounds)
            } else {
                None
            };
            let rounds_total = samples.iter().map(|s| s.round).max().unwrap_or(0);
            let b = batches
                .map(|(k, n)| format!("; {k} of {n} batches"))
                .unwrap_or_default();
            moved.push(format!(
                "in `{file}`, {} of {} samples ran a loop slower than the file's median by more than its limit (rounds {}), and the batches of those rounds are marked disturbed",
                a.slow_samples,
                a.samples,
                rounds.join(", ")
            ));
            format!("rounds {} of {rounds_total}{b}", rounds.join(", "))
        } else {
            moved.push(format!(
                "in `{file}`, {} of {} runs followed a sample slower than the file's median by more than its limit",
                a.slow_samples, a.samples
            ));
            format!("{} of {} runs", a.slow_samples, a.samples)
        };
        let _ = writeln!(
            o,
            "| `{file}` | {} | {} | {} | {} / {} | {:+.1}% | {disturbed} |",
            a.samples,
            ci(&a.cpu),
            ci(&a.mem),
            pct0(a.cpu_limit),
            pct0(a.mem_limit),
            a.worst * 100.0
        );
    }
    // Between files: each loop's median against the first file's, beyond
    // the wider of the two files' limits for that loop.
    let (first, _, base) = &assessed[0];
    for (file, _, a) in &assessed[1..] {
        for (what, x, b, lim) in [
            ("CPU", a.cpu.median, base.cpu.median, a.cpu_limit.max(base.cpu_limit)),
            ("memory", a.mem.median, base.mem.median, a.mem_limit.max(base.mem_limit)),
        ] {
            if b > 0.0 && (x / b - 1.0).abs() > lim {
                moved.push(format!(
                    "the {what} loop's median is {:+.1}% in `{file}` against `{first}`",
                    (x / b - 1.0) * 100.0
                ));
            }
        }
    }
    if moved.is_empty() {
        o.push_str("\nNo calibration sample ran slower than its file's median by more than its loop's limit, and the files' medians agree within those limits: the machine held one state through the run.\n");
    } else {
        let _ = writeln!(
            o,
            "\n**The machine's state moved during this run**: {}. Rows measured then may show the machine, not the code; compare such a run with another (`wirebench compare`) before concluding.",
            moved.join("; ")
        );
    }
}

/// How many of `codec.txt`'s batches ran in `rounds` (batch `j` of every
/// row runs in round `j + 1`: `crate::bench::interleave`), of how many.
fn codec_batches_in(d: &Data, rounds: &[usize]) -> Option<(usize, usize)> {
    let c = d.codec.as_ref()?;
    let mut seen: std::collections::HashMap<(&str, &str, usize), usize> = std::collections::HashMap::new();
    let mut hit = 0;
    for l in &c.lines {
        let j = seen.entry((l.op.as_str(), l.format.as_str(), l.count)).or_insert(0);
        *j += 1;
        if rounds.contains(j) {
            hit += 1;
        }
    }
    Some((hit, c.lines.len()))
}

fn pct0(x: f64) -> String {
    format!("{}%", super::numfmt::pct_plain(x))
}

/// The machine's logical cores, from `environment.json`.
fn env_cores(d: &Data) -> Option<usize> {
    d.environment
        .as_deref()?
        .lines()
        .find_map(|l| l.trim().strip_prefix("\"cores\": "))
        .and_then(|v| v.trim_end_matches(',').trim().parse().ok())
}

/// Which side limited a closed-loop run on shared cores: the side spending
/// more CPU per request, when the rounds separate the two.
pub fn bound_by(cpu: &HttpCpuStat, cores: Option<usize>, concurrency: u32) -> String {
    let (Some(server), Some(client)) = (cpu.server_us.as_ref(), cpu.client_us.as_ref()) else {
        return "n/a (one side not measured)".into();
    };
    let busy = cpu
        .process_cores
        .as_ref()
        .map(|s| s.median)
        .or_else(|| Some(cpu.server_cores.as_ref()?.median + cpu.client_cores.as_ref()?.median));
    if concurrency == 1 {
        return format!(
            "one request at a time (concurrency 1: a serial closed loop keeps at most one side busy at once{})",
            busy.map_or(String::new(), |b| format!(", {} cores busy", num(b)))
        );
    }
    // The rounds' ranges overlap: this run cannot say which side costs more.
    if server.min <= client.max && client.min <= server.max {
        return "neither side clearly (their CPU per request overlaps across rounds)".into();
    }
    let (heavy, ratio) = if client.median >= server.median {
        ("client", client.median / server.median.max(f64::MIN_POSITIVE))
    } else {
        ("server", server.median / client.median.max(f64::MIN_POSITIVE))
    };
    let load = match (busy, cores) {
        (Some(b), Some(n)) if b >= 0.75 * n as f64 => format!("; {} of {n} cores busy: CPU-bound", num(b)),
        (Some(b), Some(n)) => format!("; {} of {n} cores busy", num(b)),
        _ => String::new(),
    };
    format!("{heavy} ({}× the other side's CPU per request){load}", num(ratio))
}

/// Opens the section `title` over the payloads with rows in `file`
/// (`codec.txt`, `sizes.csv`, or its `data-` twin), then `text` (and
/// `document_text` with a document); returns those payloads.
fn payload_section<'a>(
    o: &mut String,
    d: &'a Data,
    (file, has): (&str, fn(&Data) -> bool),
    title: &str,
    text: &str,
    document_text: &str,
) -> Vec<&'a Data> {
    let ps: Vec<&Data> = d.payloads().filter(|p| has(p)).collect();
    let files: Vec<String> = ps
        .iter()
        .map(|p| format!("`{}{file}`", p.payload.file_prefix()))
        .collect();
    if !ps.is_empty() {
        let extra = if d.document.is_some() { document_text } else { "" };
        let _ = writeln!(o, "\n## {title} ({})\n\n{text}{extra}", files.join(", "));
    }
    ps
}

fn codec_tables(o: &mut String, d: &Data) {
    let payloads = payload_section(
        o,
        d,
        ("codec.txt", |p| !p.codec_stats.is_empty()),
        "Codec microbenchmarks",
        "Per catalog: µs per operation, median (min–max) of the runs; MB/s of payload; allocator bytes and calls per operation.",
        " Your document's rows are per document.",
    );
    for (d, count) in payloads
        .iter()
        .flat_map(|p| codec_counts(p).into_iter().map(move |c| (*p, c)))
    {
        let _ = writeln!(o, "\n### {}\n", d.payload.heading(count));
        o.push_str("| format | encode µs | enc MB/s | enc B/op | enc allocs | decode µs | dec MB/s | dec B/op | dec allocs | memcpy µs |\n|---|---|---|---|---|---|---|---|---|---|\n");
        for fm in formats() {
            let e = d.codec_stat("Encode", fm, count);
            let de = d.codec_stat("Decode", fm, count);
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
                opt(us(d.codec_stat("Memcpy", fm, count)))
            );
        }
        super::decision::codec_rankings(o, d, count);
        let others: Vec<&CodecStat> = d
            .codec_stats
            .iter()
            .filter(|s| s.count == count && !["Encode", "Decode", "DecodeBorrowed", "Memcpy"].contains(&s.op.as_str()))
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

/// Owned decode beside the borrowed view decode (`DecodeBorrowed`).
fn borrowed_tables(o: &mut String, d: &Data) {
    let counts: Vec<usize> = codec_counts(d)
        .into_iter()
        .filter(|&c| {
            formats()
                .into_iter()
                .any(|fm| d.codec_stat("DecodeBorrowed", fm, c).is_some())
        })
        .collect();
    if counts.is_empty() {
        return;
    }
    o.push_str("\n## Owned against borrowed decode\n\nBoth validate every byte (same errors, same offsets); the borrowed view decode builds no `String` or `Vec` and hands out strings that point into the payload. **Allocation share** = (owned − borrowed) ÷ owned: the part of an owned decode spent building, copying and freeing the owned catalog. Medians.\n");
    for count in counts {
        let _ = writeln!(o, "\n### {}\n", super::numfmt::products(count));
        o.push_str("| format | owned µs | owned allocs | borrowed µs | borrowed allocs | borrowed ÷ owned | allocation share |\n|---|---|---|---|---|---|---|\n");
        for fm in formats() {
            let (Some(owned), Some(borrowed)) = (
                d.codec_stat("Decode", fm, count),
                d.codec_stat("DecodeBorrowed", fm, count),
            ) else {
                continue;
            };
            let ratio = borrowed.ns_per_op.median / owned.ns_per_op.median;
            let _ = writeln!(
                o,
                "| {fm} | {} | {} | {} | {} | {:.2} | {:.0}% |",
                spread(&owned.ns_per_op, 1e-3),
                group(owned.allocs_per_op as i64),
                spread(&borrowed.ns_per_op, 1e-3),
                group(borrowed.allocs_per_op as i64),
                ratio,
                (1.0 - ratio) * 100.0
            );
        }
    }
}

fn scaling(o: &mut String, d: &Data) {
    let counts = codec_counts(d);
    if counts.len() < 2 {
        return;
    }
    o.push_str("\n## Scaling: time per product against catalog size\n\nMedian ns per product (time per catalog ÷ products). Linear cost = a flat row; the 1-product column also carries the fixed per-catalog overhead.\n\n");
    let counts_text = counts.iter().map(|&c| group(c as i64));
    head(o, ["format".to_string(), "op".into()].into_iter().chain(counts_text));
    for op in ["Encode", "Decode"] {
        for fm in formats() {
            let cells = counts
                .iter()
                .map(|&c| opt(d.codec_stat(op, fm, c).map(|s| s.ns_per_op.median / c as f64)));
            row(o, [fm.to_string(), op.to_lowercase()].into_iter().chain(cells));
        }
    }
}

fn sizes(o: &mut String, d: &Data) {
    let payloads = payload_section(
        o,
        d,
        ("sizes.csv", |p| p.sizes.is_some()),
        "Payload sizes and the cost of gzip",
        "Bytes are exact. Times are single-threaded medians in µs per catalog. The encode time is measured once, by `codec.txt`'s `Encode` row of the same run (its median ns/op), and referenced here; `gzip -6 ÷ encode` is how many encodes one gzip -6 costs. gunzip is the client's side of the same bytes.",
        " Your document's bytes per product are the whole document's; `data-sizes.csv` times no gzip.",
    );
    for d in payloads {
        let rows = d.sizes.as_deref().unwrap_or_default();
        let counts: BTreeSet<usize> = rows.iter().map(|r| r.count).collect();
        for count in counts {
            let _ = writeln!(o, "\n### {}\n", d.payload.heading(count));
            let _ = writeln!(
                o,
                "| format | raw | gzip -1 | gzip -6 | gzip -9 | B/product raw | B/product gzip -6 | gzip -6 saves | encode µs ({}codec.txt) | gzip -1 µs | gzip -6 µs | gzip -9 µs | gunzip -1 µs | gunzip -6 µs | gunzip -9 µs | gzip -6 ÷ encode |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
                d.payload.file_prefix()
            );
            for r in rows.iter().filter(|r| r.count == count) {
                let saves = if r.raw_bytes > 0 {
                    100.0 * (1.0 - r.gzip6_bytes as f64 / r.raw_bytes as f64)
                } else {
                    0.0
                };
                let encode = d
                    .codec_stat("Encode", &r.format, r.count)
                    .map(|s| s.ns_per_op.median / 1e3)
                    .or(r.encode_us);
                let _ = writeln!(
                    o,
                    "| {} | {} | {} | {} | {} | {:.1} | {:.1} | {saves:.1}% | {} | {} | {} | {} | {} | {} | {} | {} |",
                    r.format,
                    group(r.raw_bytes as i64),
                    group(r.gzip1_bytes as i64),
                    group(r.gzip6_bytes as i64),
                    group(r.gzip9_bytes as i64),
                    r.bytes_per_product_raw,
                    r.bytes_per_product_gzip6,
                    opt(encode),
                    opt(r.gzip_us.map(|g| g[0])),
                    opt(r.gzip_us.map(|g| g[1])),
                    opt(r.gzip_us.map(|g| g[2])),
                    opt(r.gunzip_us[0]),
                    opt(r.gunzip_us[1]),
                    opt(r.gunzip_us[2]),
                    match (r.gzip_us, encode) {
                        (Some(g), Some(e)) if e > 0.0 => format!("{}×", num(g[1] / e)),
                        _ => "n/a".into(),
                    }
                );
            }
        }
    }
}

fn http_tables(o: &mut String, file: &HttpFile, runs: &[super::runs::FileRun]) {
    let _ = writeln!(o, "\n## HTTP: `{}`{}", file.name, super::runs::label(runs, &file.name));
    if let Some(s) = file.stats.first() {
        let mut verify: Vec<&str> = file.stats.iter().map(|s| s.verify.as_str()).collect();
        verify.sort_unstable();
        verify.dedup();
        let _ = writeln!(
            o,
            "\nCompression {}, concurrency {}, medians (min–max) across rounds. Responses verified by: {} (`borrowed` = the view decode, `owned` = the owned decoder; both validate every byte and the product count).",
            s.compression,
            s.concurrency,
            verify.join(", "),
        );
    }
    let counts: BTreeSet<usize> = file.stats.iter().map(|s| s.count).collect();
    for count in counts {
        let _ = writeln!(o, "\n### {}\n", super::numfmt::products(count));
        o.push_str("| format | req/s | req/s 95% interval | MB/s | p50 ms | p95 ms (median of rounds) | pooled p95 ms | p99 ms (median of rounds) | pooled p99 ms | max ms | requests | errors | rounds |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for s in file.stats.iter().filter(|s| s.count == count) {
            let errs: Vec<String> = ERROR_KINDS
                .iter()
                .zip(s.errors)
                .filter(|(_, n)| *n > 0)
                .map(|(k, n)| format!("{k} {n}"))
                .collect();
            let per_round = s.requests / s.rounds.max(1) as u64;
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                s.format,
                spread(&s.rps, 1.0),
                s.rps_ci.map_or("n/a".into(), |c| format!(
                    "{}–{} (±{:.1}%{})",
                    num(c.lo),
                    num(c.hi),
                    c.rel_half_width() * 100.0,
                    if c.full_confidence() {
                        String::new()
                    } else {
                        format!(", only {:.0}% with {} rounds", c.confidence * 100.0, c.n)
                    }
                )),
                num(s.bytes_per_s.median / 1e6),
                spread(&s.p50_ms, 1.0),
                tail(Some(s.p95_ms.median), 0.95, per_round),
                tail(s.pooled_p95_ms, 0.95, s.requests),
                tail(Some(s.p99_ms.median), 0.99, per_round),
                tail(s.pooled_p99_ms, 0.99, s.requests),
                num(s.max_ms.max),
                group(s.requests as i64),
                if errs.is_empty() { "0".into() } else { errs.join(", ") },
                s.rounds
            );
        }
    }
}

const CPU_MEANING: &str = "\
Every HTTP round also reads the CPU time of each thread (`/proc`, see docs/MEASUREMENT.md): the \
server's threads (acceptor and workers) and the load generator's client threads, divided by the \
verified requests. The codec benches explain part of each side: the server *encodes* (`codec.txt` \
Encode) and, for gzip, *compresses* (`sizes.csv` gzip -6); the client runs the *verifying decode* \
(`codec.txt` DecodeBorrowed, or Decode for rounds verified with `--verify owned`). The *rest* is everything else: HTTP parsing and writing, system calls and the \
kernel's copies, gunzip on the client, scheduling. The codec figures come from a warm single-thread \
loop: encode and decode are its CPU time per operation (`cpu-ns/op`) when `codec.txt` records it, \
otherwise its wall time; gzip -6 likewise (`sizes.csv` `gzip6_cpu_us`, else `gzip6_us`). A wall \
time on a busy machine includes waiting for a core, which CPU time does not, and on the HTTP path caches are colder, so a rest can come out \
small or even negative. \
*Unattributed* is the load generator's process time in neither side (its main thread, tick rounding). \
*Cores busy* = CPU µs per request × requests/s. Client and server share the machine's cores in a \
closed loop, so the run is bound by whichever side saturates them: *bound by* names the side that \
spends more CPU per request, and says whether the cores were saturated.\n";

/// "Where the time goes": the CPU breakdown of every case that has CPU columns.
fn cpu_tables(o: &mut String, d: &Data) {
    let files: Vec<&HttpFile> = d
        .http
        .iter()
        .filter(|f| f.stats.iter().any(|s| s.cpu.is_some()))
        .collect();
    if files.is_empty() {
        return;
    }
    let cores = env_cores(d);
    o.push_str("\n## Where the time goes: CPU per request, server and client\n\n");
    o.push_str(CPU_MEANING);
    for file in files {
        let counts: BTreeSet<usize> = file.stats.iter().filter(|s| s.cpu.is_some()).map(|s| s.count).collect();
        for count in counts {
            let compression = file
                .stats
                .iter()
                .find(|s| s.count == count)
                .map_or("?", |s| s.compression.as_str());
            let _ = writeln!(
                o,
                "\n### `{}`: {}, compression {compression}\n",
                file.name,
                super::numfmt::products(count),
            );
            o.push_str("µs of CPU per request, medians of rounds (server and client with their min–max).\n\n| format | req/s | server | = encode | + gzip -6 | + rest | server user % | client | = decode | + rest | client user % | unattributed | cores busy: server / client | bound by |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
            for s in file.stats.iter().filter(|s| s.count == count) {
                let (Some(cpu), Some(b)) = (s.cpu.as_ref(), Breakdown::of(d, s)) else {
                    continue;
                };
                let pct = |x: &Option<Spread>| x.as_ref().map_or("n/a".into(), |s| format!("{:.0}%", s.median * 100.0));
                let med = |x: &Option<Spread>| x.as_ref().map(|s| s.median);
                let _ = writeln!(
                    o,
                    "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} / {} | {} |",
                    s.format,
                    num(s.rps.median),
                    cpu.server_us.as_ref().map_or("n/a".into(), |c| spread(c, 1.0)),
                    opt(b.encode),
                    if s.compression.starts_with("gzip") {
                        opt(b.gzip)
                    } else {
                        "—".into()
                    },
                    opt(b.server_rest()),
                    pct(&cpu.server_user_share),
                    cpu.client_us.as_ref().map_or("n/a".into(), |c| spread(c, 1.0)),
                    opt(b.decode),
                    opt(b.client_rest()),
                    pct(&cpu.client_user_share),
                    opt(b.unattributed()),
                    opt(med(&cpu.server_cores)),
                    opt(med(&cpu.client_cores)),
                    bound_by(cpu, cores, s.concurrency)
                );
            }
        }
    }
}

/// `peers.txt`'s `#` headings, `|` rows, `profile:` and `allocator:` lines
/// and byte-identity notes; the per-run lines stay in the raw file.
fn peers(o: &mut String, text: &str) {
    o.push_str(
        "\n## Peer implementations (`peers.txt`)\n\nOur codecs beside the reference crates on their fastest paths, on the same catalog, in one run (`make bench-peers`, pinned to one core, the cases of each comparison interleaved): \
serde_json, sonic-rs and simd-json (JSON); rmp-serde with named fields (MessagePack); apache-avro's schema-aware serde path \
(`GenericDatumWriter::write_ser` / `GenericDatumReader::read_deser`) and its `Value` path (Avro); prost from our domain types \
(build the generated messages, then encode; decode, then convert) and prost alone (prebuilt messages; generated types only) (Protobuf); \
the flatbuffers crate used directly (a reused builder filled from our types; `root_as_catalog` and a copy into our types) (FlatBuffers). \
Each row names the path it compares against; every run's line is in `peers.txt`.\n\n",
    );
    let _ = writeln!(o, "Its own run: {}.\n", Stamp::of(text).describe());
    for line in text.lines() {
        for key in ["profile: ", "allocator: "] {
            if let Some(v) = line.strip_prefix(key) {
                let _ = writeln!(o, "- {}: {v}", key.trim_end_matches(": "));
            }
        }
        if let Some(h) = line.strip_prefix("# ") {
            if h.contains(": our bytes and the reference's are") {
                let _ = writeln!(o, "- {h}");
            } else {
                let _ = writeln!(o, "\n{h}\n");
            }
        } else if line.starts_with('|') {
            let _ = writeln!(o, "{line}");
        }
    }
}

/// The table of `peers-instructions.md` (`benches/peers-instructions.sh`):
/// the peer comparisons by instruction count, the allocator's share apart.
fn peers_instructions(o: &mut String, text: &str) {
    o.push_str(
        "\n### By instruction count (`peers-instructions.md`)\n\nThe same cases counted by callgrind, which machine load does not move \
(cache misses and memory stalls are not counted). \"malloc\" is what glibc's allocator ran inside the operation: for an owned decode, \
the floor both sides share, since both build the same strings and lists; \"without malloc\" is the ratio of the rest. \
Ratio = peer instructions ÷ ours (> 1: ours runs fewer).\n\n",
    );
    let _ = writeln!(o, "Its own run: {}.\n", Stamp::of(text).describe());
    for line in text.lines().filter(|l| l.starts_with('|')) {
        let _ = writeln!(o, "{line}");
    }
}

fn go_reference(o: &mut String, d: &Data) {
    let n = HEADLINE_COUNT;
    o.push_str("\n## Beside the Go workshop's reference figures\n\nSPEC's figures (Apple M5 Pro, go1.27.1, 1,000 products, a smaller product record, HTTP uncompressed at concurrency 8) were measured elsewhere, so only **ratios to JSON** are comparable: ours / Go.\n\n| format | raw bytes | gzip bytes | encode time | decode time | req/s | p95 |\n|---|---|---|---|---|---|---|\n");
    let json = GO_REFERENCE[0];
    let ours = |fm: &str| -> [Option<f64>; 6] {
        [
            d.size(fm, n).map(|r| r.raw_bytes as f64),
            d.size(fm, n).map(|r| r.gzip6_bytes as f64),
            us(d.codec_stat("Encode", fm, n)),
            us(d.codec_stat("Decode", fm, n)),
            d.http_case("http.csv", fm, n).map(|s| s.rps.median),
            d.http_case("http.csv", fm, n).map(|s| s.p95_ms.median),
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

#[cfg(test)]
mod tests {
    use super::*;

    /// "Bound by" names a side only when the rounds separate the two, and
    /// never for a serial closed loop.
    #[test]
    fn bound_by_says_only_what_the_rounds_support() {
        let sp = |median: f64, min: f64, max: f64| Some(crate::measure::stats::Spread { median, min, max, n: 3 });
        let mut cpu = HttpCpuStat {
            server_us: sp(786.0, 700.0, 900.0),
            client_us: sp(713.0, 650.0, 800.0),
            ..Default::default()
        };
        assert!(bound_by(&cpu, Some(2), 8).starts_with("neither side clearly"));
        assert!(bound_by(&cpu, Some(2), 1).starts_with("one request at a time"));
        cpu.server_us = sp(1600.0, 1500.0, 1700.0);
        assert!(
            bound_by(&cpu, Some(2), 8).starts_with("server (2.24×"),
            "{}",
            bound_by(&cpu, Some(2), 8)
        );
    }
}
