//! `wirebench compare OLD_DIR NEW_DIR`: did a change help? Row by row, as
//! benchstat prints it.
//!
//! Rows and their samples:
//!
//! | table | row | samples | better |
//! |---|---|---|---|
//! | `codec.txt`, one table per count | op/format/count | `cpu-ns/op` of each batch (when both runs have it, else `ns/op`) | lower |
//! | `sizes.csv` | format/count | raw and gzip -6 bytes: exact, one value | lower |
//! | `http*.csv` | file, format, count | requests/s of each round | higher |
//! | `http*.csv` | file, format, count | server CPU µs per request of each round | lower |
//!
//! For each row: old and new medians with their 95% intervals, the change
//! of the medians with a conservative interval (each new end over the old's
//! opposite end), and the Mann–Whitney U p, Holm–Bonferroni over its table.
//! A change prints `~` unless its adjusted p is below α = 0.05 and its point
//! estimate lies outside ±`--noise-threshold` (default [`NOISE_THRESHOLD`]:
//! two runs of one commit differ by a few percent, docs/MEASUREMENT.md);
//! such a row prints `~ (within ±5%)`. Exact rows (sizes) differ or not. Each
//! table ends with the geomean of the new/old ratios.
//!
//! Warnings: fewer than [`MIN_SAMPLES`] samples, rows on one side only,
//! machines that differ (`environment.json` CPU, kernel, cores; or a
//! significant change of the CPU calibration loop, judged in a table of its
//! own with [`MACHINE_TOLERANCE`]), a directory mixing runs. The pairs of
//! formats the two decision tables order oppositely are listed (an A/A
//! pair should have none). `--fail-over PCT` exits 1 on a significant
//! regression over PCT percent; `--format json` prints one JSON object.

pub mod ab;
pub mod paired;

use crate::cli::Args;
use crate::measure::json::{number as jnum, quote as q};
use crate::measure::significance::{self as sig, ALPHA, CONFIDENCE, MedianCi};
use crate::report::parse;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

const USAGE: &str = "\
wirebench compare OLD_DIR NEW_DIR [--format text|json] [--fail-over PCT] [--noise-threshold PCT]
  compares two results directories row by row: codec rows (cpu-ns/op, one table
  per count), sizes (bytes), HTTP cases (requests/s, server CPU per request):
  medians with 95% intervals, change in percent, Mann-Whitney p-value
  (Holm-Bonferroni per table), `~` where not significant at 0.05 or where the
  change itself lies inside the noise threshold, a geomean per table; runs made
  apart cannot see small changes: `wirebench ab` pairs two builds in one run
  --format F             text (default) or json
  --fail-over PCT        exit 1 when any significant regression exceeds PCT percent
  --noise-threshold PCT  a change counts only when its estimate lies outside
                         +-PCT percent (default 5; 0 turns it off)
  the calibration loops of both runs are compared last (tolerance +-2%), with a
  warning \"the machines differ\" when they moved beyond it
EXIT STATUS: 0 ok, 1 a regression over --fail-over, 2 usage or input error
";

/// A change counts only when its estimate lies outside ± this fraction
/// (docs/MEASUREMENT.md justifies it from an A/A pair of `make bench` runs).
pub const NOISE_THRESHOLD: f64 = 0.05;

/// Fewer samples than this on a side draw a warning.
pub const MIN_SAMPLES: usize = 6;

/// One compared row.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub name: String,
    pub old: Vec<f64>,
    pub new: Vec<f64>,
}

impl Row {
    pub fn new(name: &str, old: &[f64], new: &[f64]) -> Row {
        let (name, old, new) = (name.to_string(), old.to_vec(), new.to_vec());
        Row { name, old, new }
    }
}

/// One table of rows with one unit and one direction.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    pub name: String,
    pub unit: String,
    pub higher_is_better: bool,
    /// Exact values (one sample each): no test, a difference is a difference.
    pub exact: bool,
    pub rows: Vec<Row>,
}

impl Table {
    /// A table of `rows` in `unit`, lower is better, not exact.
    pub fn new(name: impl Into<String>, unit: &str, rows: Vec<Row>) -> Table {
        Table {
            name: name.into(),
            unit: unit.into(),
            higher_is_better: false,
            exact: false,
            rows,
        }
    }
}

/// A row's verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    pub name: String,
    pub old: MedianCi,
    pub new: MedianCi,
    /// new/old − 1 of the medians, and its conservative interval.
    pub delta: f64,
    pub delta_lo: f64,
    pub delta_hi: f64,
    pub p: f64,
    pub p_adjusted: f64,
    /// Adjusted p below α, but the estimate within ± the noise threshold.
    pub within_noise: bool,
    /// Adjusted p below α and the estimate beyond ± the noise threshold
    /// (exact tables: the values differ).
    pub significant: bool,
    /// Significant and in the worse direction.
    pub regression: bool,
}

/// A table's verdicts and geomean.
#[derive(Clone, Debug, PartialEq)]
pub struct TableResult {
    pub table: Table,
    pub verdicts: Vec<Verdict>,
    /// Geometric mean of new/old medians − 1.
    pub geomean_delta: Option<f64>,
}

/// Judges every row of `t` (module docs) with the default noise threshold.
pub fn judge(t: &Table) -> TableResult {
    judge_with(t, NOISE_THRESHOLD)
}

/// Judges every row of `t`: a change counts when its adjusted p-value is
/// below α and its point estimate lies outside ±`noise` (a fraction).
pub fn judge_with(t: &Table, noise: f64) -> TableResult {
    let rows: Vec<&Row> = t
        .rows
        .iter()
        .filter(|r| !r.old.is_empty() && !r.new.is_empty())
        .collect();
    let ps: Vec<f64> = rows
        .iter()
        .map(|r| {
            if t.exact {
                let same = sig::median_ci(&r.old, CONFIDENCE).map(|c| c.median)
                    == sig::median_ci(&r.new, CONFIDENCE).map(|c| c.median);
                if same { 1.0 } else { 0.0 }
            } else {
                sig::mann_whitney(&r.old, &r.new).map_or(1.0, |u| u.p)
            }
        })
        .collect();
    let adjusted = if t.exact { ps.clone() } else { sig::holm(&ps) };
    let mut verdicts = Vec::new();
    let mut log_sum = 0.0;
    let mut log_n = 0usize;
    for ((r, &p), &pa) in rows.iter().zip(&ps).zip(&adjusted) {
        let (Some(old), Some(new)) = (sig::median_ci(&r.old, CONFIDENCE), sig::median_ci(&r.new, CONFIDENCE)) else {
            continue;
        };
        let ratio = |a: f64, b: f64| if b != 0.0 { a / b - 1.0 } else { 0.0 };
        let delta = ratio(new.median, old.median);
        if old.median > 0.0 && new.median > 0.0 {
            log_sum += (new.median / old.median).ln();
            log_n += 1;
        }
        let (delta_lo, delta_hi) = (ratio(new.lo, old.hi), ratio(new.hi, old.lo));
        // The estimate beyond ±noise (the interval's near end may reach inside
        // it: a significant +10% with interval [+4%, +16%] is still a +10%).
        let beyond = t.exact || delta.abs() > noise;
        let significant = pa < ALPHA && beyond;
        let worse = if t.higher_is_better { delta < 0.0 } else { delta > 0.0 };
        verdicts.push(Verdict {
            name: r.name.clone(),
            delta,
            delta_lo,
            delta_hi,
            within_noise: pa < ALPHA && !beyond,
            old,
            new,
            p,
            p_adjusted: pa,
            significant,
            regression: significant && worse,
        });
    }
    TableResult {
        table: t.clone(),
        verdicts,
        geomean_delta: (log_n > 0).then(|| (log_sum / log_n as f64).exp() - 1.0),
    }
}

/// Everything compared between two directories.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Comparison {
    pub tables: Vec<TableResult>,
    pub warnings: Vec<String>,
    /// Pairs of formats the two reports' decision tables order in opposite
    /// directions (each significant in its own run): `question, count: a before b (old), b before a (new)`.
    pub reversals: Vec<String>,
    /// The noise threshold the verdicts used, as a fraction.
    pub noise: f64,
    /// Both runs' calibration loops, judged with [`MACHINE_TOLERANCE`], not
    /// counted among the rows; None when either side has none.
    pub calibration: Option<TableResult>,
}

/// The calibration table's noise threshold: a CPU loop changing beyond it,
/// significantly, draws the warning "the machines differ".
pub const MACHINE_TOLERANCE: f64 = 0.02;

/// The decision-table pairs `old` and `new` order oppositely.
pub fn reversals(old: &crate::report::Data, new: &crate::report::Data) -> Vec<String> {
    use crate::report::decision::decision_cells;
    let (a, b) = (decision_cells(old), decision_cells(new));
    let mut out = Vec::new();
    for (x, y) in a.iter().zip(&b) {
        let (Ok(rx), Ok(ry)) = (&x.ranking, &y.ranking) else {
            continue;
        };
        for (better, worse) in &rx.ordered {
            if ry.ordered.iter().any(|(b2, w2)| b2 == worse && w2 == better) {
                out.push(format!(
                    "{}, {} products: {better} before {worse} (old), {worse} before {better} (new)",
                    x.question, x.count
                ));
            }
        }
    }
    out
}

impl Comparison {
    /// The significant regressions larger than `pct` percent.
    pub fn regressions_over(&self, pct: f64) -> Vec<(&str, &Verdict)> {
        self.tables
            .iter()
            .flat_map(|t| t.verdicts.iter().map(move |v| (t.table.name.as_str(), v)))
            .filter(|(_, v)| v.regression && v.delta.abs() * 100.0 > pct)
            .collect()
    }

    /// How many rows have evidence of a change that lies within the noise threshold.
    pub fn within_noise_count(&self) -> usize {
        self.tables
            .iter()
            .flat_map(|t| &t.verdicts)
            .filter(|v| v.within_noise)
            .count()
    }

    /// How many rows are marked significant, of how many.
    pub fn significant_count(&self) -> (usize, usize) {
        let all: Vec<&Verdict> = self.tables.iter().flat_map(|t| &t.verdicts).collect();
        (all.iter().filter(|v| v.significant).count(), all.len())
    }
}

/// The samples of one directory, by table name then row name.
#[derive(Default)]
struct Side {
    codec_cpu: BTreeMap<String, Vec<f64>>,
    codec_wall: BTreeMap<String, Vec<f64>>,
    sizes_raw: BTreeMap<String, Vec<f64>>,
    sizes_gzip6: BTreeMap<String, Vec<f64>>,
    rps: BTreeMap<String, Vec<f64>>,
    server_cpu: BTreeMap<String, Vec<f64>>,
    /// `FILE cpu loop` / `FILE memory loop` → µs of each calibration sample.
    calibration: BTreeMap<String, Vec<f64>>,
    env: Option<String>,
}

impl Side {
    fn calibrate(&mut self, file: &str, samples: &[crate::measure::calibration::Sample]) {
        for s in samples {
            self.calibration
                .entry(format!("{file} cpu loop"))
                .or_default()
                .push(s.cpu_us);
            self.calibration
                .entry(format!("{file} memory loop"))
                .or_default()
                .push(s.mem_us);
        }
    }
}

fn side(dir: &Path) -> Result<Side, String> {
    let mut s = Side::default();
    let name = |f: &str| dir.join(f).display().to_string();
    let read = |file: &str| parse::read_optional(&dir.join(file));
    if let Some(t) = read("codec.txt")? {
        let f = parse::codec(&name("codec.txt"), &t).map_err(|e| e.to_string())?;
        s.calibrate("codec.txt", &f.calibration);
        for l in &f.lines {
            let key = format!("{}/{}/{}", l.op, l.format, l.count);
            s.codec_wall.entry(key.clone()).or_default().push(l.ns_per_op);
            if let Some(c) = l.cpu_ns_per_op {
                s.codec_cpu.entry(key).or_default().push(c);
            }
        }
    }
    if let Some(t) = read("sizes.csv")? {
        for r in parse::sizes(&name("sizes.csv"), &t).map_err(|e| e.to_string())? {
            let key = format!("{}/{}", r.format, r.count);
            s.sizes_raw.insert(key.clone(), vec![r.raw_bytes as f64]);
            s.sizes_gzip6.insert(key, vec![r.gzip6_bytes as f64]);
        }
    }
    for file in crate::report::HTTP_FILES {
        if let Some(t) = read(file)? {
            let samples = parse::calibration(&name(file), &t).map_err(|e| e.to_string())?;
            s.calibrate(file, &samples);
            for r in parse::http(&name(file), &t).map_err(|e| e.to_string())? {
                let key = format!("{file} {}/{} c={}", r.format, r.count, r.concurrency);
                s.rps.entry(key.clone()).or_default().push(r.rps);
                if let Some(c) = r.server_cpu() {
                    s.server_cpu.entry(key).or_default().push(c);
                }
            }
        }
    }
    s.env = read("environment.json")?;
    Ok(s)
}

fn rows(
    old: &BTreeMap<String, Vec<f64>>,
    new: &BTreeMap<String, Vec<f64>>,
    warnings: &mut Vec<String>,
    table: &str,
) -> Vec<Row> {
    let mut out = Vec::new();
    for (k, o) in old {
        match new.get(k) {
            Some(n) => {
                if !o.is_empty() && (o.len() < MIN_SAMPLES || n.len() < MIN_SAMPLES) && o.len() + n.len() > 2 {
                    warnings.push(format!(
                        "{table} {k}: too few samples ({} old, {} new; fewer than {MIN_SAMPLES} cannot give a 95% interval)",
                        o.len(),
                        n.len()
                    ));
                }
                out.push(Row::new(k, o, n))
            }
            None => warnings.push(format!("{table} {k}: only in the old directory")),
        }
    }
    for k in new.keys().filter(|k| !old.contains_key(*k)) {
        warnings.push(format!("{table} {k}: only in the new directory"));
    }
    out
}

/// Compares two results directories with the default noise threshold.
pub fn compare_dirs(old_dir: &Path, new_dir: &Path) -> Result<Comparison, String> {
    compare_dirs_with(old_dir, new_dir, NOISE_THRESHOLD)
}

/// The rows of `m` whose name ends in `/count`, by count ascending.
fn by_count(m: &BTreeMap<String, Vec<f64>>) -> BTreeMap<usize, BTreeMap<String, Vec<f64>>> {
    let mut out: BTreeMap<usize, BTreeMap<String, Vec<f64>>> = BTreeMap::new();
    for (k, v) in m {
        let count = k.rsplit('/').next().and_then(|c| c.parse().ok()).unwrap_or(0);
        out.entry(count).or_default().insert(k.clone(), v.clone());
    }
    out
}

/// Compares two results directories; `noise` is the noise threshold as a fraction.
pub fn compare_dirs_with(old_dir: &Path, new_dir: &Path, noise: f64) -> Result<Comparison, String> {
    let (o, n) = (side(old_dir)?, side(new_dir)?);
    let mut c = Comparison {
        noise,
        ..Default::default()
    };
    let w = &mut c.warnings;
    for (dir, label) in [(old_dir, "old"), (new_dir, "new")] {
        if let Ok(d) = crate::report::load(dir) {
            if let Err(e) = crate::report::runs::check(&d.runs, false) {
                w.push(format!(
                    "{label} directory {}: {}",
                    dir.display(),
                    e.lines().next().unwrap_or("")
                ));
            }
        }
    }
    if let (Some(a), Some(b)) = (&o.env, &n.env) {
        let f = crate::measure::env::json_string_field;
        for key in ["cpu", "kernel"] {
            if f(a, key) != f(b, key) {
                w.push(format!(
                    "the machines differ: {key} {:?} (old) vs {:?} (new)",
                    f(a, key).unwrap_or_default(),
                    f(b, key).unwrap_or_default()
                ));
            }
        }
        let cores = |j: &str| {
            j.lines()
                .find(|l| l.trim().starts_with("\"cores\""))
                .map(|l| l.trim().to_string())
        };
        if cores(a) != cores(b) {
            w.push(format!(
                "the machines differ: {:?} (old) vs {:?} (new)",
                cores(a),
                cores(b)
            ));
        }
    }
    let use_cpu = !o.codec_cpu.is_empty() && !n.codec_cpu.is_empty();
    let (co, cn, unit) = if use_cpu {
        (&o.codec_cpu, &n.codec_cpu, "cpu-ns/op")
    } else {
        (&o.codec_wall, &n.codec_wall, "ns/op")
    };
    // One Holm family per count, as the report has one codec table per count.
    let (old_counts, new_counts) = (by_count(co), by_count(cn));
    let empty = BTreeMap::new();
    let counts: std::collections::BTreeSet<usize> = old_counts.keys().chain(new_counts.keys()).copied().collect();
    let mut tables: Vec<Table> = counts
        .iter()
        .map(|count| {
            let (o, n) = (old_counts.get(count), new_counts.get(count));
            let name = format!("codec.txt, {count} product{}", if *count == 1 { "" } else { "s" });
            Table::new(
                name,
                unit,
                rows(o.unwrap_or(&empty), n.unwrap_or(&empty), w, "codec.txt"),
            )
        })
        .collect();
    let exact = |t: Table| Table { exact: true, ..t };
    tables.extend([
        exact(Table::new(
            "sizes.csv raw",
            "bytes",
            rows(&o.sizes_raw, &n.sizes_raw, w, "sizes.csv"),
        )),
        exact(Table::new(
            "sizes.csv gzip -6",
            "bytes",
            rows(&o.sizes_gzip6, &n.sizes_gzip6, w, "sizes.csv"),
        )),
        Table {
            higher_is_better: true,
            ..Table::new("HTTP requests/s", "req/s", rows(&o.rps, &n.rps, w, "http"))
        },
    ]);
    let mut ignore = Vec::new(); // the same warnings as requests/s
    let server = rows(&o.server_cpu, &n.server_cpu, &mut ignore, "http");
    tables.push(Table::new("HTTP server CPU", "µs/req", server));
    c.tables = tables
        .into_iter()
        .filter(|t| !t.rows.is_empty())
        .map(|t| judge_with(&t, noise))
        .collect();
    if let (Ok(a), Ok(b)) = (crate::report::load(old_dir), crate::report::load(new_dir)) {
        c.reversals = reversals(&a, &b);
    }
    c.calibration = machines(&o.calibration, &n.calibration);
    if let Some(t) = &c.calibration {
        c.warnings.extend(machine_warnings(t));
    }
    Ok(c)
}

/// The calibration table of two runs: the rows both have, judged with
/// [`MACHINE_TOLERANCE`]; None when either run has no samples.
fn machines(old: &BTreeMap<String, Vec<f64>>, new: &BTreeMap<String, Vec<f64>>) -> Option<TableResult> {
    if old.is_empty() || new.is_empty() {
        return None;
    }
    let rows = old
        .iter()
        .filter_map(|(k, o)| Some(Row::new(k, o, new.get(k)?)))
        .collect();
    let name = "calibration (a fixed CPU loop and memory loop, not a codec; not counted among the rows)";
    Some(judge_with(&Table::new(name, "µs", rows), MACHINE_TOLERANCE))
}

/// "The machines differ" for every CPU-loop calibration row whose change is
/// significant and beyond [`MACHINE_TOLERANCE`]. The memory loop's rows
/// draw no warning: in the A/A pair of `docs/MEASUREMENT.md` its medians
/// moved by 12–31% while no benchmark row moved beyond the noise threshold.
pub fn machine_warnings(t: &TableResult) -> Vec<String> {
    t.verdicts
        .iter()
        .filter(|v| v.significant && v.name.ends_with("cpu loop"))
        .map(|v| {
            format!(
                "the machines differ: calibration {} {} [{}, {}] (p adj {:.3}): a fixed loop that is no codec ran {} in the new run, so a row flagged above may show the machine, not the code",
                v.name,
                pct(v.delta),
                pct(v.delta_lo),
                pct(v.delta_hi),
                v.p_adjusted,
                if v.delta > 0.0 { "slower" } else { "faster" }
            )
        })
        .collect()
}

fn pct(x: f64) -> String {
    format!("{:+.1}%", x * 100.0)
}

use crate::report::numfmt::{num as value, pct_plain};

/// One line per verdict of `t`: both medians ± their intervals' relative
/// half widths (`digits` decimals), the change (`~` unless significant
/// beyond `noise`), the p-values.
fn verdict_lines(o: &mut String, t: &TableResult, noise: f64, digits: usize) {
    let exact = t.table.exact;
    for v in &t.verdicts {
        let side = |m: &MedianCi| {
            if exact {
                value(m.median)
            } else {
                format!("{} ±{:.digits$}%", value(m.median), m.rel_half_width() * 100.0)
            }
        };
        let delta = if v.within_noise {
            format!("~ (within ±{}%)", pct_plain(noise))
        } else if !v.significant {
            "~".to_string()
        } else if exact {
            pct(v.delta)
        } else {
            format!("{} [{}, {}]", pct(v.delta), pct(v.delta_lo), pct(v.delta_hi))
        };
        let p = if exact {
            String::new()
        } else {
            format!("p={:.3} (adj {:.3}) n={}+{}", v.p, v.p_adjusted, v.old.n, v.new.n)
        };
        let _ = writeln!(
            o,
            "{:<40} {:>24} {:>24} {:>28} {p}",
            v.name,
            side(&v.old),
            side(&v.new),
            delta
        );
    }
}

/// The benchstat-like text.
pub fn render_text(c: &Comparison) -> String {
    let mut o = String::new();
    for t in &c.tables {
        let tt = &t.table;
        let _ = writeln!(
            o,
            "{} ({}, {} is better; {})",
            tt.name,
            tt.unit,
            if tt.higher_is_better { "higher" } else { "lower" },
            if tt.exact {
                "exact values, no test".to_string()
            } else {
                format!(
                    "medians with 95% intervals, Mann-Whitney U, Holm-Bonferroni over {} rows, alpha = {ALPHA}, noise threshold ±{}%",
                    t.verdicts.len(),
                    pct_plain(c.noise)
                )
            }
        );
        let _ = writeln!(o, "{:<40} {:>24} {:>24} {:>28} p", "row", "old", "new", "delta");
        verdict_lines(&mut o, t, c.noise, 0);
        if let Some(g) = t.geomean_delta {
            let _ = writeln!(o, "{:<40} {:>24} {:>24} {:>28}", "geomean", "", "", pct(g));
        }
        o.push('\n');
    }
    if let Some(t) = &c.calibration {
        let _ = writeln!(
            o,
            "{} (µs, lower is faster; Mann-Whitney U, Holm-Bonferroni over {} rows, tolerance ±{}%)",
            t.table.name,
            t.verdicts.len(),
            pct_plain(MACHINE_TOLERANCE)
        );
        verdict_lines(&mut o, t, MACHINE_TOLERANCE, 1);
        o.push('\n');
    }
    let (s, n) = c.significant_count();
    let _ = writeln!(
        o,
        "{s} of {n} rows differ significantly and by more than ±{}%; {} more are significant but within it.",
        pct_plain(c.noise),
        c.within_noise_count()
    );
    o.push_str("Runs made apart differ by a few percent on every row, so this comparison cannot see small changes; `wirebench ab BASE_BIN NEW_BIN` measures two builds in the same rounds and tests the paired ratios.\n");
    let _ = writeln!(
        o,
        "Decision-table pairs ordered in opposite directions by the two runs: {}.",
        c.reversals.len()
    );
    for r in &c.reversals {
        let _ = writeln!(o, "reversed: {r}");
    }
    for w in &c.warnings {
        let _ = writeln!(o, "warning: {w}");
    }
    o
}

/// The same as one JSON object.
pub fn render_json(c: &Comparison) -> String {
    let ci = |m: &MedianCi| {
        format!(
            "{{\"median\": {}, \"lo\": {}, \"hi\": {}, \"confidence\": {}, \"n\": {}}}",
            jnum(m.median),
            jnum(m.lo),
            jnum(m.hi),
            jnum(m.confidence),
            m.n
        )
    };
    let table_json = |t: &TableResult| {
        let rows: Vec<String> = t
            .verdicts
            .iter()
            .map(|v| {
                format!(
                    "{{\"row\": {}, \"old\": {}, \"new\": {}, \"delta\": {}, \"delta_lo\": {}, \"delta_hi\": {}, \"p\": {}, \"p_adjusted\": {}, \"within_noise\": {}, \"significant\": {}, \"regression\": {}}}",
                    q(&v.name),
                    ci(&v.old),
                    ci(&v.new),
                    jnum(v.delta),
                    jnum(v.delta_lo),
                    jnum(v.delta_hi),
                    jnum(v.p),
                    jnum(v.p_adjusted),
                    v.within_noise,
                    v.significant,
                    v.regression
                )
            })
            .collect();
        format!(
            "{{\"table\": {}, \"unit\": {}, \"higher_is_better\": {}, \"exact\": {}, \"geomean_delta\": {}, \"rows\": [{}]}}",
            q(&t.table.name),
            q(&t.table.unit),
            t.table.higher_is_better,
            t.table.exact,
            t.geomean_delta.map_or("null".into(), jnum),
            rows.join(", ")
        )
    };
    let tables: Vec<String> = c.tables.iter().map(table_json).collect();
    let calibration = c.calibration.as_ref().map_or("null".into(), table_json);
    let warnings: Vec<String> = c.warnings.iter().map(|w| q(w)).collect();
    let reversals: Vec<String> = c.reversals.iter().map(|w| q(w)).collect();
    let (s, n) = c.significant_count();
    format!(
        "{{\"alpha\": {ALPHA}, \"correction\": \"holm-bonferroni per table\", \"noise_threshold\": {}, \"significant\": {s}, \"within_noise\": {}, \"rows\": {n}, \"tables\": [{}], \"reversals\": [{}], \"calibration\": {calibration}, \"warnings\": [{}]}}\n",
        jnum(c.noise),
        c.within_noise_count(),
        tables.join(", "),
        reversals.join(", "),
        warnings.join(", ")
    )
}

/// `wirebench compare`: Ok(true) when `--fail-over` was exceeded.
pub fn cli_main(args: &mut Args) -> Result<bool, String> {
    if args.switch("--help") {
        print!("{USAGE}");
        return Ok(false);
    }
    let format = args.value("--format")?.unwrap_or("text".into());
    let fail_over: Option<f64> = args.parse("--fail-over")?;
    let noise_pct: f64 = args.parse_or("--noise-threshold", NOISE_THRESHOLD * 100.0)?;
    let dirs = args.positional();
    args.finish()?;
    if format != "text" && format != "json" {
        return Err(format!("--format: expected text or json, found {format:?}"));
    }
    if fail_over.is_some_and(|p| !(p >= 0.0 && p.is_finite())) {
        return Err("--fail-over: expected a percentage ≥ 0".into());
    }
    if !(noise_pct >= 0.0 && noise_pct.is_finite()) {
        return Err("--noise-threshold: expected a percentage ≥ 0".into());
    }
    let [old, new] = dirs.as_slice() else {
        return Err(format!(
            "expected OLD_DIR NEW_DIR, found {} arguments\n\n{USAGE}",
            dirs.len()
        ));
    };
    let c = compare_dirs_with(Path::new(old), Path::new(new), noise_pct / 100.0)?;
    if c.tables.is_empty() {
        return Err(format!("no raw files to compare in {old} and {new}"));
    }
    print!(
        "{}",
        if format == "json" {
            render_json(&c)
        } else {
            render_text(&c)
        }
    );
    let Some(limit) = fail_over else { return Ok(false) };
    let over = c.regressions_over(limit);
    for (t, v) in &over {
        eprintln!("compare: {t} {}: {} regression (over {limit}%)", v.name, pct(v.delta));
    }
    Ok(!over.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(rows: Vec<Row>) -> Table {
        Table::new("t", "ns/op", rows)
    }

    fn comparison(t: TableResult) -> Comparison {
        let noise = NOISE_THRESHOLD;
        Comparison {
            tables: vec![t],
            noise,
            ..Default::default()
        }
    }

    #[test]
    fn separated_samples_are_significant_and_a_regression() {
        let old: Vec<f64> = (0..10).map(|i| 100.0 + i as f64 * 0.1).collect();
        let slower: Vec<f64> = old.iter().map(|v| v * 1.1).collect();
        let t = judge(&table(vec![Row::new("a", &old, &slower), Row::new("b", &old, &old)]));
        let (a, b) = (&t.verdicts[0], &t.verdicts[1]);
        assert!(a.significant && a.regression, "{a:?}");
        assert!((a.delta - 0.1).abs() < 1e-9);
        assert!(a.delta_lo <= a.delta && a.delta <= a.delta_hi);
        assert!(!b.significant && !b.regression, "{b:?}");
        assert!(a.p_adjusted >= a.p, "Holm never lowers a p-value");
        let c = comparison(t);
        assert_eq!(c.regressions_over(5.0).len(), 1);
        assert!(c.regressions_over(20.0).is_empty());
        let text = render_text(&c);
        assert!(text.contains(" ~ ") && text.contains("+10.0%"), "{text}");
        assert!(render_json(&c).contains("\"regression\": true"));
    }

    /// A clear but small change (3%, tight samples) has evidence but lies
    /// within the default ±5% threshold; with the threshold off it counts.
    #[test]
    fn a_change_inside_the_noise_threshold_is_not_counted() {
        let old: Vec<f64> = (0..10).map(|i| 1000.0 + i as f64 * 0.5).collect();
        let new: Vec<f64> = old.iter().map(|v| v * 1.03).collect();
        let t = table(vec![Row::new("small", &old, &new)]);
        let v = &judge(&t).verdicts[0];
        assert!(v.within_noise && !v.significant && !v.regression, "{v:?}");
        let v = &judge_with(&t, 0.0).verdicts[0];
        assert!(!v.within_noise && v.significant && v.regression, "{v:?}");
        let v = &judge_with(&t, 0.02).verdicts[0];
        assert!(v.significant, "interval [+2.9%, +3.1%] lies outside ±2%: {v:?}");
        let c = comparison(judge(&t));
        assert!(render_text(&c).contains("~ (within ±5%)"), "{}", render_text(&c));
        assert_eq!(c.within_noise_count(), 1);
    }

    /// The failure mode of the interval rule: a significant +10% whose
    /// interval reaches inside ±5% is flagged, not printed as `~ (within ±5%)`.
    #[test]
    fn a_significant_change_beyond_the_threshold_is_flagged_when_its_interval_reaches_inside() {
        let old: Vec<f64> = (0..10).map(|i| 1000.0 * (1.0 + 0.012 * i as f64)).collect();
        let new: Vec<f64> = old.iter().map(|v| v * 1.10).collect();
        let t = table(vec![Row::new("ten", &old, &new)]);
        let v = &judge(&t).verdicts[0];
        assert!(v.delta_lo < NOISE_THRESHOLD, "the interval reaches inside ±5%: {v:?}");
        assert!(
            v.p_adjusted < ALPHA && v.significant && v.regression && !v.within_noise,
            "{v:?}"
        );
        // Self-test: the old rule (both interval ends beyond the threshold) hid it.
        assert!(!(v.delta_lo > NOISE_THRESHOLD || v.delta_hi < -NOISE_THRESHOLD));
        let c = comparison(judge(&t));
        assert_eq!(c.regressions_over(5.0).len(), 1);
        let text = render_text(&c);
        assert!(!text.contains("within ±5%") && text.contains("wirebench ab"), "{text}");
    }

    #[test]
    fn higher_is_better_flips_the_direction() {
        let old: Vec<f64> = (0..10).map(|i| 1000.0 + i as f64).collect();
        let faster: Vec<f64> = old.iter().map(|v| v * 1.2).collect();
        let mut t = table(vec![Row::new("rps", &old, &faster)]);
        t.higher_is_better = true;
        let r = judge(&t);
        assert!(r.verdicts[0].significant && !r.verdicts[0].regression);
    }
}
