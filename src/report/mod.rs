//! `wirebench report`: turns the raw result files into `REPORT.md`,
//! `medians.json` and SVG charts, in the same directory (default `results/`).
//!
//! Inputs (see [`parse`] for their shapes): `codec.txt`, `sizes.csv`,
//! `http.csv`, `http-gzip.csv`, optionally `http-c1.csv`, `http-c16.csv`,
//! `peers.txt`, `histograms/*.hist` and `environment.json` (written by
//! `codec-bench` when the run started; if it is missing, the report captures
//! one now and says so). A missing input is named in the report; a malformed
//! one stops the report with an error naming the file and line.
//!
//! Aggregation: for every row (codec op × format × count, or HTTP case) the
//! **median across runs/rounds** with the **min–max spread** beside it. Every
//! count present in the raw files gets its table; nothing is dropped. The HTTP
//! p95 shown per case is the median of the rounds' p95s (not the p95 of all
//! requests); the *pooled* p95/p99 beside it come from adding the rounds'
//! histogram counts and taking the nearest rank of the merged distribution
//! (bucket midpoint, as the load generator reports its own percentiles).

pub mod markdown;
pub mod parse;
pub mod svg;

use crate::cli::Args;
pub use crate::measure::stats::Spread;
use parse::{CodecFile, HttpRow, SizeRow};
use std::path::{Path, PathBuf};

/// One codec row across its runs.
#[derive(Clone, Debug, PartialEq)]
pub struct CodecStat {
    pub op: String,
    pub format: String,
    pub count: usize,
    pub ns_per_op: Spread,
    pub mb_per_s: Option<Spread>,
    /// Medians across runs.
    pub bytes_per_op: f64,
    pub allocs_per_op: f64,
}

/// One HTTP case (format × count in one file) across its rounds.
#[derive(Clone, Debug, PartialEq)]
pub struct HttpStat {
    pub format: String,
    pub count: usize,
    pub compression: String,
    pub concurrency: u32,
    pub rounds: usize,
    pub requests: u64,
    pub rps: Spread,
    pub bytes_per_s: Spread,
    pub p50_ms: Spread,
    pub p95_ms: Spread,
    pub p99_ms: Spread,
    pub max_ms: Spread,
    /// Summed over rounds, per [`parse::ERROR_KINDS`].
    pub errors: [u64; 7],
    /// From the merged histograms of all rounds, when present.
    pub pooled_p95_ms: Option<f64>,
    pub pooled_p99_ms: Option<f64>,
}

/// One HTTP raw file and its aggregated cases.
#[derive(Clone, Debug, PartialEq)]
pub struct HttpFile {
    /// File name, e.g. `http-gzip.csv`.
    pub name: String,
    pub stats: Vec<HttpStat>,
}

/// Everything the report is built from.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Data {
    pub codec: Option<CodecFile>,
    pub codec_stats: Vec<CodecStat>,
    pub sizes: Option<Vec<SizeRow>>,
    pub http: Vec<HttpFile>,
    pub peers: Option<String>,
    /// environment.json's text, and whether it was captured at report time.
    pub environment: Option<String>,
    pub environment_captured_now: bool,
    /// Expected inputs that were not found.
    pub missing: Vec<String>,
}

/// HTTP files in report order; the first two are expected, the rest optional.
pub const HTTP_FILES: [&str; 4] = ["http.csv", "http-gzip.csv", "http-c1.csv", "http-c16.csv"];

/// Where a format sorts in tables (field table order: docs/SPEC.md, "Formats"), unknown names last.
pub fn format_rank(name: &str) -> usize {
    crate::codec::Format::ALL
        .iter()
        .position(|f| f.name() == name)
        .unwrap_or(usize::MAX)
}

fn read_optional(path: &Path) -> Result<Option<String>, String> {
    match std::fs::read_to_string(path) {
        Ok(t) => Ok(Some(t)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

/// Reads and aggregates every raw file in `dir`.
pub fn load(dir: &Path) -> Result<Data, String> {
    let mut d = Data::default();
    let name = |f: &str| dir.join(f).display().to_string();

    match read_optional(&dir.join("codec.txt"))? {
        Some(t) => {
            let f = parse::codec(&name("codec.txt"), &t).map_err(|e| e.to_string())?;
            d.codec_stats = codec_stats(&f);
            d.codec = Some(f);
        }
        None => d.missing.push("codec.txt".into()),
    }
    match read_optional(&dir.join("sizes.csv"))? {
        Some(t) => {
            let mut rows = parse::sizes(&name("sizes.csv"), &t).map_err(|e| e.to_string())?;
            rows.sort_by_key(|r| (r.count, format_rank(&r.format)));
            d.sizes = Some(rows);
        }
        None => d.missing.push("sizes.csv".into()),
    }
    for (i, file) in HTTP_FILES.iter().enumerate() {
        match read_optional(&dir.join(file))? {
            Some(t) => {
                let rows = parse::http(&name(file), &t).map_err(|e| e.to_string())?;
                // Histogram file names carry no concurrency, so only the two
                // main files (the default concurrency) are pooled.
                let hist_dir = (i < 2).then(|| dir.join("histograms"));
                let stats = http_stats(&rows, hist_dir.as_deref())?;
                d.http.push(HttpFile {
                    name: file.to_string(),
                    stats,
                });
            }
            None if i < 2 => d.missing.push(file.to_string()),
            None => {}
        }
    }
    d.peers = read_optional(&dir.join("peers.txt"))?;
    d.environment = read_optional(&dir.join("environment.json"))?;
    if d.environment.is_none() {
        d.environment = Some(crate::measure::env::capture().to_json());
        d.environment_captured_now = true;
    }
    Ok(d)
}

/// Groups codec lines by (op, format, count), in first-seen op order,
/// then format and count.
pub fn codec_stats(f: &CodecFile) -> Vec<CodecStat> {
    let mut keys: Vec<(String, String, usize)> = Vec::new();
    for l in &f.lines {
        let k = (l.op.clone(), l.format.clone(), l.count);
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    let op_rank = |op: &str| keys.iter().position(|k| k.0 == op).unwrap_or(0);
    let mut stats: Vec<CodecStat> = keys
        .iter()
        .filter_map(|(op, format, count)| {
            let ls: Vec<_> = f
                .lines
                .iter()
                .filter(|l| &l.op == op && &l.format == format && l.count == *count)
                .collect();
            let pick = |g: &dyn Fn(&parse::CodecLine) -> f64| ls.iter().map(|l| g(l)).collect::<Vec<f64>>();
            let mbs: Vec<f64> = ls.iter().filter_map(|l| l.mb_per_s).collect();
            Some(CodecStat {
                op: op.clone(),
                format: format.clone(),
                count: *count,
                ns_per_op: Spread::of(&pick(&|l| l.ns_per_op))?,
                mb_per_s: Spread::of(&mbs),
                bytes_per_op: crate::measure::stats::median(&pick(&|l| l.bytes_per_op))?,
                allocs_per_op: crate::measure::stats::median(&pick(&|l| l.allocs_per_op))?,
            })
        })
        .collect();
    stats.sort_by_key(|s| (op_rank(&s.op), format_rank(&s.format), s.count));
    stats
}

/// Groups HTTP rows by case; pools histograms from `hist_dir` when given.
pub fn http_stats(rows: &[HttpRow], hist_dir: Option<&Path>) -> Result<Vec<HttpStat>, String> {
    let mut keys: Vec<(String, usize, String, u32)> = Vec::new();
    for r in rows {
        let k = (r.format.clone(), r.count, r.compression.clone(), r.concurrency);
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys.sort_by_key(|k| (k.1, format_rank(&k.0), k.2.clone(), k.3));
    let mut out = Vec::new();
    for (format, count, compression, concurrency) in keys {
        let rs: Vec<&HttpRow> = rows
            .iter()
            .filter(|r| {
                r.format == format && r.count == count && r.compression == compression && r.concurrency == concurrency
            })
            .collect();
        let s =
            |g: fn(&HttpRow) -> f64| Spread::of(&rs.iter().map(|r| g(r)).collect::<Vec<_>>()).expect("non-empty group");
        let mut errors = [0u64; 7];
        for r in &rs {
            for (e, x) in errors.iter_mut().zip(r.errors) {
                *e += x;
            }
        }
        let pooled = match hist_dir {
            Some(dir) => pooled_histogram(dir, &format, count, &compression)?,
            None => parse::Histogram::default(),
        };
        let q = |q: f64| (pooled.count() > 0).then(|| pooled.value_at_quantile(q) as f64 / 1e6);
        out.push(HttpStat {
            rounds: rs.len(),
            requests: rs.iter().map(|r| r.requests).sum(),
            rps: s(|r| r.rps),
            bytes_per_s: s(|r| r.bytes_per_s),
            p50_ms: s(|r| r.p50_ms),
            p95_ms: s(|r| r.p95_ms),
            p99_ms: s(|r| r.p99_ms),
            max_ms: s(|r| r.max_ms),
            errors,
            pooled_p95_ms: q(0.95),
            pooled_p99_ms: q(0.99),
            format,
            count,
            compression,
            concurrency,
        });
    }
    Ok(out)
}

/// Every `{format}-{count}-{compression}-r*.hist` in `dir`, merged.
fn pooled_histogram(dir: &Path, format: &str, count: usize, compression: &str) -> Result<parse::Histogram, String> {
    let prefix = format!("{format}-{count}-{compression}-r");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(parse::Histogram::default());
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n.strip_prefix(&prefix)
                    .and_then(|r| r.strip_suffix(".hist"))
                    .is_some_and(|r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_digit()))
            })
        })
        .collect();
    paths.sort();
    let mut all = parse::Histogram::default();
    for p in paths {
        let text = std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))?;
        all.merge(&parse::histogram(&p.display().to_string(), &text).map_err(|e| e.to_string())?);
    }
    Ok(all)
}

/// `medians.json`: every aggregated row, machine-readable.
pub fn medians_json(d: &Data) -> String {
    use crate::measure::json::{number as n, opt, quote as q};
    let sp = |s: &Spread| {
        format!(
            "{{\"median\": {}, \"min\": {}, \"max\": {}, \"n\": {}}}",
            n(s.median),
            n(s.min),
            n(s.max),
            s.n
        )
    };
    let mut codec = Vec::new();
    for s in &d.codec_stats {
        codec.push(format!(
            "    {{\"op\": {}, \"format\": {}, \"count\": {}, \"ns_per_op\": {}, \"mb_per_s\": {}, \"bytes_per_op\": {}, \"allocs_per_op\": {}}}",
            q(&s.op),
            q(&s.format),
            s.count,
            sp(&s.ns_per_op),
            s.mb_per_s.as_ref().map_or("null".into(), sp),
            n(s.bytes_per_op),
            n(s.allocs_per_op)
        ));
    }
    let mut sizes = Vec::new();
    for r in d.sizes.iter().flatten() {
        sizes.push(format!(
            "    {{\"format\": {}, \"count\": {}, \"raw_bytes\": {}, \"gzip1_bytes\": {}, \"gzip6_bytes\": {}, \"gzip9_bytes\": {}, \"gzip1_us\": {}, \"gzip6_us\": {}, \"gzip9_us\": {}, \"encode_us\": {}}}",
            q(&r.format),
            r.count,
            r.raw_bytes,
            r.gzip1_bytes,
            r.gzip6_bytes,
            r.gzip9_bytes,
            n(r.gzip1_us),
            n(r.gzip6_us),
            n(r.gzip9_us),
            n(r.encode_us)
        ));
    }
    let mut http = Vec::new();
    for f in &d.http {
        for s in &f.stats {
            let errors: Vec<String> = parse::ERROR_KINDS
                .iter()
                .zip(s.errors)
                .map(|(k, v)| format!("{}: {v}", q(k)))
                .collect();
            http.push(format!(
                "    {{\"file\": {}, \"format\": {}, \"count\": {}, \"compression\": {}, \"concurrency\": {}, \"rounds\": {}, \"requests\": {}, \"rps\": {}, \"bytes_per_s\": {}, \"p50_ms\": {}, \"p95_ms_median_of_rounds\": {}, \"p99_ms_median_of_rounds\": {}, \"max_ms\": {}, \"pooled_p95_ms\": {}, \"pooled_p99_ms\": {}, \"errors\": {{{}}}}}",
                q(&f.name),
                q(&s.format),
                s.count,
                q(&s.compression),
                s.concurrency,
                s.rounds,
                s.requests,
                sp(&s.rps),
                sp(&s.bytes_per_s),
                sp(&s.p50_ms),
                sp(&s.p95_ms),
                sp(&s.p99_ms),
                sp(&s.max_ms),
                opt(s.pooled_p95_ms),
                opt(s.pooled_p99_ms),
                errors.join(", ")
            ));
        }
    }
    format!(
        "{{\n  \"codec\": [\n{}\n  ],\n  \"sizes\": [\n{}\n  ],\n  \"http\": [\n{}\n  ]\n}}\n",
        codec.join(",\n"),
        sizes.join(",\n"),
        http.join(",\n")
    )
}

const USAGE: &str = "\
wirebench report [--dir results]
  reads DIR/{codec.txt,sizes.csv,http.csv,http-gzip.csv} (+ http-c1.csv, http-c16.csv,
  peers.txt, histograms/, environment.json when present) and writes
  DIR/REPORT.md, DIR/medians.json, DIR/*.svg (and DIR/environment.json if missing)
";

/// `wirebench report`.
pub fn cli_main(args: &mut Args) -> Result<(), String> {
    if args.switch("--help") {
        print!("{USAGE}");
        return Ok(());
    }
    let dir = PathBuf::from(args.value("--dir")?.unwrap_or("results".into()));
    args.finish()?;
    let written = write_report(&dir)?;
    for w in &written {
        eprintln!("report: wrote {}", w.display());
    }
    Ok(())
}

/// Reads `dir`, writes every output into it, returns the paths written.
pub fn write_report(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let d = load(dir)?;
    let mut written = Vec::new();
    let mut put = |name: &str, text: &str| -> Result<(), String> {
        let p = dir.join(name);
        std::fs::write(&p, text).map_err(|e| format!("{}: {e}", p.display()))?;
        written.push(p);
        Ok(())
    };
    if d.environment_captured_now {
        put("environment.json", d.environment.as_deref().unwrap_or(""))?;
    }
    let charts = markdown::charts(&d);
    for (name, svg) in &charts {
        put(name, svg)?;
    }
    put("medians.json", &medians_json(&d))?;
    let names: Vec<&str> = charts.iter().map(|(n, _)| n.as_str()).collect();
    put("REPORT.md", &markdown::render(&d, &names))?;
    Ok(written)
}
