//! The data a report is built from: every raw file of one results
//! directory read ([`load`]), aggregated per row ([`codec_stats`],
//! [`http_stats`]), and `medians.json`. The renderers and `wirebench
//! compare` read these types; this module imports none of them.

use super::parse::{self, CodecFile, HttpRow, SizeRow, read_optional};
use super::runs;
pub use crate::measure::stats::Spread;
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
    /// On-CPU ns per operation across runs, when `codec.txt` has `cpu-ns/op`.
    pub cpu_ns_per_op: Option<Spread>,
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
    /// The rounds' median requests/s with its 95% order-statistic interval.
    pub rps_ci: Option<crate::measure::significance::MedianCi>,
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
    /// How the responses were verified (`borrowed`, `owned`, `status`);
    /// rounds that differ are joined with `+`.
    pub verify: String,
    /// CPU per request, when the raw file has the CPU columns.
    pub cpu: Option<HttpCpuStat>,
}

/// CPU time of one HTTP case across its rounds; each None when no round measured it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HttpCpuStat {
    /// On-CPU µs per verified request.
    pub server_us: Option<Spread>,
    pub client_us: Option<Spread>,
    /// The load generator's whole process (both sides with the in-process server).
    pub process_us: Option<Spread>,
    /// Fraction of the side's clock ticks in user mode.
    pub server_user_share: Option<Spread>,
    pub client_user_share: Option<Spread>,
    /// Cores kept busy: µs per request × requests/s ÷ 10⁶, per round.
    pub server_cores: Option<Spread>,
    pub client_cores: Option<Spread>,
    pub process_cores: Option<Spread>,
}

impl HttpCpuStat {
    /// Aggregates the CPU columns of one case's rounds; None when no row has them.
    pub fn of(rows: &[&HttpRow]) -> Option<HttpCpuStat> {
        let cpus: Vec<(f64, parse::HttpCpu)> = rows.iter().filter_map(|r| Some((r.rps, r.cpu?))).collect();
        if cpus.is_empty() {
            return None;
        }
        let spread = |g: fn(&parse::HttpCpu) -> Option<f64>| {
            Spread::of(&cpus.iter().filter_map(|(_, c)| g(c)).collect::<Vec<_>>())
        };
        let cores = |g: fn(&parse::HttpCpu) -> Option<f64>| {
            Spread::of(
                &cpus
                    .iter()
                    .filter_map(|(rps, c)| Some(g(c)? * rps / 1e6))
                    .collect::<Vec<_>>(),
            )
        };
        Some(HttpCpuStat {
            server_us: spread(|c| c.server_us_per_req),
            client_us: spread(|c| c.client_us_per_req),
            process_us: spread(|c| c.process_us_per_req),
            server_user_share: spread(|c| c.server_user_share),
            client_user_share: spread(|c| c.client_user_share),
            server_cores: cores(|c| c.server_us_per_req),
            client_cores: cores(|c| c.client_us_per_req),
            process_cores: cores(|c| c.process_us_per_req),
        })
    }
}

/// One HTTP raw file, aggregated.
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
    /// `peers-instructions.md`: the same comparisons by instruction count.
    pub peers_instructions: Option<String>,
    /// environment.json's text, and whether it was captured at report time.
    pub environment: Option<String>,
    pub environment_captured_now: bool,
    /// Expected inputs that were not found.
    pub missing: Vec<String>,
    /// Every input and the run it belongs to ([`runs`]).
    pub runs: Vec<runs::FileRun>,
    /// `server-pressure.txt`: its own run, shown apart.
    pub server_pressure: Option<String>,
    /// The payload these files measured.
    pub payload: Payload,
    /// A user's document (`data-codec.txt`, `data-sizes.csv`), read as the
    /// catalog's files are: a second payload filling the same tables.
    pub document: Option<Box<Data>>,
    /// `report --link-mbps`.
    pub link_mbps: Option<f64>,
    /// Every HTTP round of every file, as read, in the order of [`Data::http`].
    pub http_rows: Vec<HttpRow>,
    /// How many of [`Data::http_rows`] each file of [`Data::http`] holds.
    pub http_row_counts: Vec<usize>,
    /// The calibration samples of every raw file that has them, in read order.
    pub calibration: Vec<(String, Vec<crate::measure::calibration::Sample>)>,
    /// `make bench-link`'s files: a run of its own, outside [`Data::runs`].
    pub link: Option<super::link::Link>,
}

/// Which payload a [`Data`] holds the measurements of.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Payload {
    /// The catalog, at every count its files hold.
    #[default]
    Catalog,
    /// A user's document, its file when `data-codec.txt` names it.
    Document(Option<String>),
}

/// The five formats in table order (docs/SPEC.md, "Formats").
pub fn formats() -> Vec<&'static str> {
    crate::codec::Format::ALL.iter().map(|f| f.name()).collect()
}

/// The lookups every renderer makes.
impl Data {
    /// This payload, then the document beside it.
    pub fn payloads(&self) -> impl Iterator<Item = &Data> {
        std::iter::once(self).chain(self.document.as_deref())
    }

    /// The size row of `format` at `count`.
    pub fn size(&self, format: &str, count: usize) -> Option<&SizeRow> {
        self.sizes
            .as_ref()?
            .iter()
            .find(|r| r.format == format && r.count == count)
    }

    /// One codec row, aggregated.
    pub fn codec_stat(&self, op: &str, format: &str, count: usize) -> Option<&CodecStat> {
        self.codec_stats
            .iter()
            .find(|s| s.op == op && s.format == format && s.count == count)
    }

    /// One codec row's batches, as read.
    pub fn codec_lines(&self, op: &str, format: &str, count: usize) -> Vec<&parse::CodecLine> {
        let lines = self.codec.as_ref().map_or(&[][..], |c| &c.lines);
        lines
            .iter()
            .filter(|l| l.op == op && l.format == format && l.count == count)
            .collect()
    }

    /// The HTTP file `name`, aggregated.
    pub fn http_file(&self, name: &str) -> Option<&HttpFile> {
        self.http.iter().find(|f| f.name == name)
    }

    /// One HTTP case of `file`, aggregated.
    pub fn http_case(&self, file: &str, format: &str, count: usize) -> Option<&HttpStat> {
        self.http_file(file)?
            .stats
            .iter()
            .find(|s| s.format == format && s.count == count)
    }

    /// The rounds of one HTTP file at one count (rows are stored file by file).
    pub fn file_rows(&self, file: &str, count: usize) -> Vec<&HttpRow> {
        let mut at = 0;
        for (f, n) in self.http.iter().zip(&self.http_row_counts) {
            let end = (at + n).min(self.http_rows.len());
            if f.name == file {
                return self.http_rows[at..end].iter().filter(|r| r.count == count).collect();
            }
            at = end;
        }
        Vec::new()
    }
}

impl Payload {
    /// What its raw files' names start with: `codec.txt`, `data-codec.txt`.
    pub fn file_prefix(&self) -> &'static str {
        match self {
            Payload::Catalog => "",
            Payload::Document(_) => "data-",
        }
    }

    /// `1,000 products`, or `your document (`FILE`)`.
    pub fn heading(&self, count: usize) -> String {
        match self {
            Payload::Catalog => super::numfmt::products(count),
            Payload::Document(source) => format!(
                "your document{}",
                source.as_deref().map_or(String::new(), |s| format!(" (`{s}`)"))
            ),
        }
    }
}

pub use super::runs::HTTP_FILES;

/// Where a format sorts in tables (field table order: docs/SPEC.md, "Formats"), unknown names last.
pub fn format_rank(name: &str) -> usize {
    crate::codec::Format::ALL
        .iter()
        .position(|f| f.name() == name)
        .unwrap_or(usize::MAX)
}

fn file_run(file: &str, text: &str) -> runs::FileRun {
    runs::FileRun {
        file: file.to_string(),
        stamp: crate::measure::run::read_stamp(text),
    }
}

/// One payload's codec and sizes files (`codec.txt`, `sizes.csv`, or their
/// `data-` twins) with stamps and calibration; missing files are named.
fn read_payload(dir: &Path, payload: Payload) -> Result<Data, String> {
    let mut d = Data {
        payload,
        ..Data::default()
    };
    let prefix = d.payload.file_prefix();
    let (codec_file, sizes_file) = (format!("{prefix}codec.txt"), format!("{prefix}sizes.csv"));
    let name = |f: &str| dir.join(f).display().to_string();
    match read_optional(&dir.join(&codec_file))? {
        Some(t) => {
            d.runs.push(file_run(&codec_file, &t));
            let f = parse::codec(&name(&codec_file), &t).map_err(|e| e.to_string())?;
            d.codec_stats = codec_stats(&f);
            if !f.calibration.is_empty() {
                d.calibration.push((codec_file.clone(), f.calibration.clone()));
            }
            if let Payload::Document(source) = &mut d.payload {
                *source = f.header.iter().find(|(k, _)| k == "data").map(|(_, v)| v.clone());
            }
            d.codec = Some(f);
        }
        None => d.missing.push(codec_file),
    }
    match read_optional(&dir.join(&sizes_file))? {
        Some(t) => {
            d.runs.push(file_run(&sizes_file, &t));
            let mut rows = parse::sizes(&name(&sizes_file), &t).map_err(|e| e.to_string())?;
            rows.sort_by_key(|r| (r.count, format_rank(&r.format)));
            d.sizes = Some(rows);
        }
        None => d.missing.push(sizes_file),
    }
    Ok(d)
}

/// [`load`], refusing files from different runs unless `allow_mixed`.
pub fn load_checked(dir: &Path, allow_mixed: bool) -> Result<Data, String> {
    let d = load(dir)?;
    runs::check(&d.runs, allow_mixed)?;
    Ok(d)
}

/// Reads and aggregates every raw file in `dir`, whatever runs it holds.
pub fn load(dir: &Path) -> Result<Data, String> {
    let mut d = read_payload(dir, Payload::Catalog)?;
    let doc = read_payload(dir, Payload::Document(None))?;
    if doc.codec.is_some() || doc.sizes.is_some() {
        d.runs.extend(doc.runs.iter().cloned());
        d.calibration.extend(doc.calibration.iter().cloned());
        d.document = Some(Box::new(doc));
    }
    let name = |f: &str| dir.join(f).display().to_string();
    for (i, file) in HTTP_FILES.iter().enumerate() {
        match read_optional(&dir.join(file))? {
            Some(t) => {
                d.runs.push(file_run(file, &t));
                let rows = parse::http(&name(file), &t).map_err(|e| e.to_string())?;
                let samples = parse::calibration(&name(file), &t).map_err(|e| e.to_string())?;
                if !samples.is_empty() {
                    d.calibration.push((file.to_string(), samples));
                }
                // Histogram file names carry no concurrency, so only the two
                // main files (the default concurrency) are pooled.
                let hist_dir = (i < 2).then(|| dir.join("histograms"));
                let stats = http_stats(&rows, hist_dir.as_deref())?;
                d.http_rows.extend(rows.iter().cloned());
                d.http_row_counts.push(rows.len());
                d.http.push(HttpFile {
                    name: file.to_string(),
                    stats,
                });
            }
            None if i < 2 => d.missing.push(file.to_string()),
            None => {}
        }
    }
    // Every histogram file, whichever round or case it names: all are pooled.
    d.runs.extend(runs::histogram_runs(&dir.join("histograms"))?);
    d.peers = read_optional(&dir.join("peers.txt"))?;
    d.peers_instructions = read_optional(&dir.join("peers-instructions.md"))?;
    d.server_pressure = read_optional(&dir.join("server-pressure.txt"))?;
    d.link = super::link::read(dir)?;
    d.environment = read_optional(&dir.join("environment.json"))?;
    if let Some(t) = &d.environment {
        // Written before run stamps: no `run_id` key, no run to compare.
        if let Some(s) = crate::measure::run::read_stamp(t).filter(|s| s.id != "unknown") {
            d.runs.push(runs::FileRun {
                file: "environment.json".into(),
                stamp: Some(s),
            });
        }
    }
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
            let cpus: Vec<f64> = ls.iter().filter_map(|l| l.cpu_ns_per_op).collect();
            Some(CodecStat {
                op: op.clone(),
                format: format.clone(),
                count: *count,
                ns_per_op: Spread::of(&pick(&|l| l.ns_per_op))?,
                mb_per_s: Spread::of(&mbs),
                cpu_ns_per_op: Spread::of(&cpus),
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
        let mut verify: Vec<&str> = rs.iter().map(|r| r.verify.as_str()).collect();
        verify.sort_unstable();
        verify.dedup();
        out.push(HttpStat {
            verify: verify.join("+"),
            rounds: rs.len(),
            requests: rs.iter().map(|r| r.requests).sum(),
            rps: s(|r| r.rps),
            rps_ci: crate::measure::significance::median_ci(
                &rs.iter().map(|r| r.rps).collect::<Vec<_>>(),
                crate::measure::significance::CONFIDENCE,
            ),
            bytes_per_s: s(|r| r.bytes_per_s),
            p50_ms: s(|r| r.p50_ms),
            p95_ms: s(|r| r.p95_ms),
            p99_ms: s(|r| r.p99_ms),
            max_ms: s(|r| r.max_ms),
            errors,
            pooled_p95_ms: q(0.95),
            pooled_p99_ms: q(0.99),
            cpu: HttpCpuStat::of(&rs),
            format,
            count,
            compression,
            concurrency,
        });
    }
    Ok(out)
}

/// Every round of `{format}-{count}-{compression}` in `dir`, merged: each
/// round's `-r{N}.hist`, else its `-r{N}.hlog` (intervals tagged `latency`
/// or untagged).
fn pooled_histogram(dir: &Path, format: &str, count: usize, compression: &str) -> Result<parse::Histogram, String> {
    let prefix = format!("{format}-{count}-{compression}-r");
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(parse::Histogram::default());
    };
    // round → (.hist path, .hlog path)
    let mut rounds: std::collections::BTreeMap<u64, (Option<PathBuf>, Option<PathBuf>)> = Default::default();
    for p in entries.filter_map(|e| e.ok().map(|e| e.path())) {
        let Some(rest) = p
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_prefix(&prefix))
        else {
            continue;
        };
        let round_of = |r: &str| {
            (!r.is_empty() && r.bytes().all(|b| b.is_ascii_digit()))
                .then(|| r.parse::<u64>().ok())
                .flatten()
        };
        if let Some(r) = rest.strip_suffix(".hist").and_then(round_of) {
            rounds.entry(r).or_default().0 = Some(p);
        } else if let Some(r) = rest.strip_suffix(".hlog").and_then(round_of) {
            rounds.entry(r).or_default().1 = Some(p);
        }
    }
    let mut all = parse::Histogram::default();
    for (hist, hlog) in rounds.into_values() {
        let (p, is_hlog) = match (hist, hlog) {
            (Some(p), _) => (p, false),
            (None, Some(p)) => (p, true),
            (None, None) => continue,
        };
        let text = std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))?;
        if is_hlog {
            let log = crate::measure::hlog::read_log(&text).map_err(|e| format!("{}: {e}", p.display()))?;
            for iv in log
                .intervals
                .iter()
                .filter(|iv| iv.tag.as_deref().is_none_or(|t| t == "latency"))
            {
                all.merge(&iv.hdr.to_histogram());
            }
        } else {
            all.merge(&parse::histogram(&p.display().to_string(), &text).map_err(|e| e.to_string())?);
        }
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
            "    {{\"op\": {}, \"format\": {}, \"count\": {}, \"ns_per_op\": {}, \"mb_per_s\": {}, \"bytes_per_op\": {}, \"allocs_per_op\": {}, \"cpu_ns_per_op\": {}}}",
            q(&s.op),
            q(&s.format),
            s.count,
            sp(&s.ns_per_op),
            s.mb_per_s.as_ref().map_or("null".into(), sp),
            n(s.bytes_per_op),
            n(s.allocs_per_op),
            s.cpu_ns_per_op.as_ref().map_or("null".into(), sp)
        ));
    }
    let mut sizes = Vec::new();
    for r in d.sizes.iter().flatten() {
        sizes.push(format!(
            "    {{\"format\": {}, \"count\": {}, \"raw_bytes\": {}, \"gzip1_bytes\": {}, \"gzip6_bytes\": {}, \"gzip9_bytes\": {}, \"gzip1_us\": {}, \"gzip6_us\": {}, \"gzip9_us\": {}, \"encode_us\": {}, \"gzip6_cpu_us\": {}}}",
            q(&r.format),
            r.count,
            r.raw_bytes,
            r.gzip1_bytes,
            r.gzip6_bytes,
            r.gzip9_bytes,
            opt(r.gzip_us.map(|g| g[0])),
            opt(r.gzip_us.map(|g| g[1])),
            opt(r.gzip_us.map(|g| g[2])),
            opt(r.encode_us),
            opt(r.gzip6_cpu_us)
        ));
    }
    let osp = |s: &Option<Spread>| s.as_ref().map_or("null".into(), sp);
    let mut http = Vec::new();
    for f in &d.http {
        for s in &f.stats {
            let cpu = s.cpu.as_ref().map_or("null".into(), |c| {
                format!(
                    "{{\"server_cpu_us_per_req\": {}, \"client_cpu_us_per_req\": {}, \"process_cpu_us_per_req\": {}, \"server_user_share\": {}, \"client_user_share\": {}, \"server_cores\": {}, \"client_cores\": {}, \"process_cores\": {}}}",
                    osp(&c.server_us),
                    osp(&c.client_us),
                    osp(&c.process_us),
                    osp(&c.server_user_share),
                    osp(&c.client_user_share),
                    osp(&c.server_cores),
                    osp(&c.client_cores),
                    osp(&c.process_cores)
                )
            });
            let errors: Vec<String> = parse::ERROR_KINDS
                .iter()
                .zip(s.errors)
                .map(|(k, v)| format!("{}: {v}", q(k)))
                .collect();
            http.push(format!(
                "    {{\"file\": {}, \"format\": {}, \"count\": {}, \"compression\": {}, \"concurrency\": {}, \"rounds\": {}, \"requests\": {}, \"rps\": {}, \"bytes_per_s\": {}, \"p50_ms\": {}, \"p95_ms_median_of_rounds\": {}, \"p99_ms_median_of_rounds\": {}, \"max_ms\": {}, \"pooled_p95_ms\": {}, \"pooled_p99_ms\": {}, \"errors\": {{{}}}, \"cpu\": {}}}",
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
                errors.join(", "),
                cpu
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
