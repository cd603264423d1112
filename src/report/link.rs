//! The raw files of `make bench-link`: `link.csv` (c=1) and `link-c8.csv`
//! (c=8) from `wirebench load --link` (`crate::load::link`), and
//! `link-sizes.csv`, the same run's `sizes.csv`; and the break-even the
//! report computes from them. Rendered by [`super::link_report`].
//!
//! # Layout
//!
//! `load`'s CSV with `rate_mbps` and `rtt_ms` in front
//! (`crate::load::link::link_header`), its own run stamp, and `# machine:`
//! and `# link:` comment lines. A run of its own: never part of the one-run
//! check ([`super::runs`]), always labelled with its machine, commit, date.
//!
//! # The measured break-even ([`break_even`])
//!
//! Per round, at each rate, `d(rate) = p50(gzip) − p50(none)` at c=1: the
//! CPU gzip adds minus the link time it saves, `d = a − b ÷ rate`. From the
//! slowest rate, the first rate with `d ≥ 0` and the one before bracket the
//! zero crossing, interpolated in 1/rate (exact under that model; never
//! extrapolated). A round where gzip pays at every rate counts as "above the
//! sweep", at none as "below": the median over rounds and its interval are
//! order statistics, so these censored rounds take their place without a value.
//!
//! # Invariants
//!
//! - The parser is strict and total: every malformed line is an error
//!   naming the file and line, never a panic; non-finite or out-of-range
//!   rates, RTTs and latencies are errors.

use super::parse::{self, Error, HttpRow, SizeRow, err, read_optional};
use crate::measure::run::{self, RunStamp};
use crate::measure::significance::{self as sig, CONFIDENCE};

/// The link files the report reads, in order.
pub const LINK_FILES: [&str; 2] = ["link.csv", "link-c8.csv"];

/// The same run's sizes (`make bench-link`).
pub const LINK_SIZES: &str = "link-sizes.csv";

/// One row of a link file: the rate and RTT, then `load`'s row.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkRow {
    pub rate_mbps: f64,
    pub rtt_ms: f64,
    pub http: HttpRow,
}

/// One link file as read.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkFile {
    pub name: String,
    pub stamp: Option<RunStamp>,
    /// The `# machine:` line.
    pub machine: Option<String>,
    /// The `# link:` line (how the link was shaped, the RTT added).
    pub note: Option<String>,
    pub rows: Vec<LinkRow>,
}

/// Everything of one `make bench-link` in a results directory.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Link {
    pub files: Vec<LinkFile>,
    /// `link-sizes.csv` and its stamp, when present.
    pub sizes: Option<(Vec<SizeRow>, Option<RunStamp>)>,
}

/// At most 60 characters of a hostile line, for a message.
fn clip(s: &str) -> String {
    let mut c: String = s.chars().take(60).collect();
    if c.len() < s.len() {
        c.push('…');
    }
    c
}

fn bounded(file: &str, ln: usize, what: &str, s: &str, lo: f64, hi: f64) -> Result<f64, Error> {
    match s.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && (lo..=hi).contains(&v) => Ok(v),
        _ => Err(err(
            file,
            ln,
            format!("{what}: expected a number in {lo}..={hi}, found {:?}", clip(s)),
        )),
    }
}

/// Parses one link file; `file` names it in errors.
pub fn parse(file: &str, text: &str) -> Result<Vec<LinkRow>, Error> {
    let header = crate::load::link::link_header();
    let columns = header.split(',').count();
    let mut rows = Vec::new();
    let mut seen_header = false;
    for (i, line) in text.lines().enumerate() {
        let ln = i + 1;
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        if !seen_header {
            if l != header {
                return Err(err(
                    file,
                    ln,
                    format!("expected the header {header:?}, found {:?}", clip(l)),
                ));
            }
            seen_header = true;
            continue;
        }
        let n = l.split(',').count();
        if n != columns {
            return Err(err(file, ln, format!("expected {columns} columns, found {n}")));
        }
        let mut cells = l.splitn(3, ',');
        let (rate, rtt, rest) = (
            cells.next().unwrap_or(""),
            cells.next().unwrap_or(""),
            cells.next().unwrap_or(""),
        );
        let rate_mbps = bounded(file, ln, "rate_mbps", rate, 0.1, 100_000.0)?;
        let rtt_ms = bounded(file, ln, "rtt_ms", rtt, 0.0, 10_000.0)?;
        let mut http =
            parse::http(file, &format!("{}\n{rest}\n", parse::HTTP_HEADER)).map_err(|e| Error { line: ln, ..e })?;
        let Some(http) = http.pop().filter(|_| http.is_empty()) else {
            return Err(err(file, ln, "expected one row"));
        };
        for (what, v) in [("p50_ms", http.p50_ms), ("rps", http.rps)] {
            if !(v.is_finite() && v >= 0.0) {
                return Err(err(
                    file,
                    ln,
                    format!("{what}: expected a finite number ≥ 0, found {v}"),
                ));
            }
        }
        if http.concurrency == 0 {
            return Err(err(file, ln, "concurrency: expected at least 1"));
        }
        rows.push(LinkRow {
            rate_mbps,
            rtt_ms,
            http,
        });
    }
    if !seen_header {
        return Err(err(file, 0, "empty file: expected a header line"));
    }
    Ok(rows)
}

/// The value of the first `# KEY:` comment line.
fn comment(text: &str, key: &str) -> Option<String> {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix('#'))
        .find_map(|l| l.trim().strip_prefix(key))
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

/// Reads the link files of `dir`; None when there is neither `link.csv`
/// nor `link-c8.csv` (so the report has no link section).
pub fn read(dir: &std::path::Path) -> Result<Option<Link>, String> {
    let mut link = Link::default();
    for name in LINK_FILES {
        let path = dir.join(name);
        let Some(text) = read_optional(&path)? else {
            continue;
        };
        let rows = parse(&path.display().to_string(), &text).map_err(|e| e.to_string())?;
        link.files.push(LinkFile {
            name: name.to_string(),
            stamp: run::read_stamp(&text),
            machine: comment(&text, "machine:"),
            note: comment(&text, "link:"),
            rows,
        });
    }
    if link.files.is_empty() {
        return Ok(None);
    }
    let path = dir.join(LINK_SIZES);
    if let Some(text) = read_optional(&path)? {
        let rows = parse::sizes(&path.display().to_string(), &text).map_err(|e| e.to_string())?;
        link.sizes = Some((rows, run::read_stamp(&text)));
    }
    Ok(Some(link))
}

impl Link {
    /// Every row of every file.
    pub fn rows(&self) -> impl Iterator<Item = &LinkRow> {
        self.files.iter().flat_map(|f| &f.rows)
    }

    /// The swept rates at `concurrency`, ascending.
    pub fn rates(&self, concurrency: u32) -> Vec<f64> {
        let mut r: Vec<f64> = self
            .rows()
            .filter(|r| r.http.concurrency == concurrency)
            .map(|r| r.rate_mbps)
            .collect();
        r.sort_by(f64::total_cmp);
        r.dedup();
        r
    }

    /// The rows of one case at one rate (every round, every format).
    pub fn at(&self, rate: f64, count: usize, compression: &str, concurrency: u32) -> Vec<&HttpRow> {
        self.rows()
            .filter(|r| {
                r.rate_mbps == rate
                    && r.http.count == count
                    && r.http.compression == compression
                    && r.http.concurrency == concurrency
            })
            .map(|r| &r.http)
            .collect()
    }

    /// Failed requests over every row (each `err_*` column).
    pub fn errors(&self) -> u64 {
        self.rows().map(|r| r.http.errors.iter().sum::<u64>()).sum()
    }

    /// The first file's stamp (the run the link section is from).
    pub fn stamp(&self) -> Option<&RunStamp> {
        self.files.iter().find_map(|f| f.stamp.as_ref())
    }
}

/// A rate in Mbit/s as the report prints it: `10`, `1,000`, `0.50`.
pub fn rate_text(r: f64) -> String {
    if r.fract() == 0.0 && r.abs() < 1e15 {
        super::numfmt::group(r as i64)
    } else {
        super::numfmt::num(r)
    }
}

/// Where gzip stops paying in one round.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Crossing {
    /// gzip pays at no swept rate, down to this (the slowest).
    Below(f64),
    /// The zero crossing, Mbit/s.
    At(f64),
    /// gzip pays at every swept rate, up to this (the fastest).
    Above(f64),
}

impl Crossing {
    /// The order value: 0 below the sweep, +∞ above it.
    pub fn rank_value(self) -> f64 {
        match self {
            Crossing::Below(_) => 0.0,
            Crossing::At(r) => r,
            Crossing::Above(_) => f64::INFINITY,
        }
    }
}

/// The crossing of one round from `(rate_mbps, d_ms)` points (module docs);
/// None with fewer than two distinct finite rates.
pub fn crossing(points: &[(f64, f64)]) -> Option<Crossing> {
    let mut p: Vec<(f64, f64)> = points
        .iter()
        .copied()
        .filter(|(r, d)| r.is_finite() && *r > 0.0 && d.is_finite())
        .collect();
    p.sort_by(|a, b| a.0.total_cmp(&b.0));
    p.dedup_by(|a, b| a.0 == b.0);
    if p.len() < 2 {
        return None;
    }
    if p[0].1 >= 0.0 {
        return Some(Crossing::Below(p[0].0));
    }
    for w in p.windows(2) {
        let ((r0, d0), (r1, d1)) = (w[0], w[1]);
        if d1 >= 0.0 {
            // d0 < 0 ≤ d1; interpolate in x = 1/rate.
            let (x0, x1) = (1.0 / r0, 1.0 / r1);
            let x = x1 + d1 * (x0 - x1) / (d1 - d0);
            return Some(Crossing::At(1.0 / x));
        }
    }
    Some(Crossing::Above(p[p.len() - 1].0))
}

/// A median over rounds of [`Crossing`]s with its interval, each end
/// possibly censored.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BreakEven {
    pub median: Crossing,
    pub lo: Crossing,
    pub hi: Crossing,
    /// The interval's real coverage.
    pub confidence: f64,
    /// Rounds.
    pub n: usize,
}

/// The median and interval of per-round crossings (module docs); None when empty.
pub fn summarize(rounds: &[Crossing]) -> Option<BreakEven> {
    let mut v: Vec<Crossing> = rounds.to_vec();
    v.sort_by(|a, b| a.rank_value().total_cmp(&b.rank_value()));
    let ci = sig::median_ci(&v.iter().map(|c| c.rank_value()).collect::<Vec<_>>(), CONFIDENCE)?;
    let n = v.len();
    let pick = |x: f64| *v.iter().find(|c| c.rank_value() == x).unwrap_or(&v[0]);
    let median = if n % 2 == 1 {
        v[n / 2]
    } else {
        match (v[n / 2 - 1], v[n / 2]) {
            (Crossing::At(a), Crossing::At(b)) => Crossing::At((a + b) / 2.0),
            // A censored middle: the median is beyond the other middle.
            (Crossing::At(a), Crossing::Above(_)) => Crossing::Above(a),
            (Crossing::Below(_), Crossing::At(b)) => Crossing::Below(b),
            (a, _) => a,
        }
    };
    Some(BreakEven {
        median,
        lo: pick(ci.lo),
        hi: pick(ci.hi),
        confidence: ci.confidence,
        n,
    })
}

/// Per round, the points `(rate, gzip p50 − raw p50)` of `format` at
/// `count` for gzip `level` (`gzip1`, `gzip`, `gzip9`) at c=1.
fn round_differences(link: &Link, format: &str, count: usize, level: &str) -> Vec<Vec<(f64, f64)>> {
    let rows: Vec<&LinkRow> = link
        .rows()
        .filter(|r| r.http.concurrency == 1 && r.http.format == format && r.http.count == count)
        .collect();
    let rounds: std::collections::BTreeSet<u32> = rows.iter().map(|r| r.http.round).collect();
    let p50 = |round: u32, rate: f64, comp: &str| {
        rows.iter()
            .find(|r| r.http.round == round && r.rate_mbps == rate && r.http.compression == comp)
            .map(|r| r.http.p50_ms)
    };
    let rates = link.rates(1);
    rounds
        .into_iter()
        .map(|round| {
            rates
                .iter()
                .filter_map(|&rate| Some((rate, p50(round, rate, level)? - p50(round, rate, "none")?)))
                .collect()
        })
        .collect()
}

/// The per-round crossings of `format` at `count` for gzip `level` against
/// `none`, at c=1 ([`round_differences`]).
pub fn crossings(link: &Link, format: &str, count: usize, level: &str) -> Vec<Crossing> {
    round_differences(link, format, count, level)
        .iter()
        .filter_map(|points| crossing(points))
        .collect()
}

/// The measured break-even of `format` at `count` for gzip `level`.
pub fn break_even(link: &Link, format: &str, count: usize, level: &str) -> Option<BreakEven> {
    summarize(&crossings(link, format, count, level))
}

/// The medians over rounds of each round's least-squares fit of
/// `d = a − b ÷ rate` (`a` in ms, `b` in kbit): the sweep's CPU and saving terms.
pub fn fit(link: &Link, format: &str, count: usize, level: &str) -> Option<(f64, f64)> {
    let (mut a_s, mut b_s) = (Vec::new(), Vec::new());
    for points in round_differences(link, format, count, level) {
        let pts: Vec<(f64, f64)> = points.iter().map(|&(rate, d)| (1.0 / rate, d)).collect();
        if let Some((a, b)) = least_squares(&pts) {
            a_s.push(a);
            b_s.push(-b);
        }
    }
    Some((
        crate::measure::stats::median(&a_s)?,
        crate::measure::stats::median(&b_s)?,
    ))
}

/// `y = a + b·x` by least squares; None with fewer than two distinct x.
pub fn least_squares(pts: &[(f64, f64)]) -> Option<(f64, f64)> {
    let n = pts.len() as f64;
    if pts.len() < 2 {
        return None;
    }
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    if sxx <= 0.0 || !sxx.is_finite() {
        return None;
    }
    let b = sxy / sxx;
    Some((my - b * mx, b))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A link file from rows `(rate, round, format, count, compression, p50)`.
    fn file(rows: &[(f64, u32, &str, usize, &str, f64)]) -> String {
        let mut t = format!("# run: L\n# machine: test box\n{}\n", crate::load::link::link_header());
        let tail = ",0,0,0,0,0,0,0,,,,,,borrowed,,";
        for (rate, round, f, n, comp, p50) in rows {
            t += &format!(
                "{rate},0,{round},{f},{n},{comp},1,1.0,10,10,1000,{p50},{p50},{p50},{p50},{p50},{p50}{tail}\n"
            );
        }
        t
    }

    /// Synthetic rounds from the model `p50(none) = t0 + raw×8/rate`,
    /// `p50(gzip) = t0 + cpu + gz×8/rate` (ms, bytes in kB so kB×8/Mbit/s
    /// = ms), with a per-round wobble; the break-even is (raw−gz)×8 ÷ cpu.
    fn model(rates: &[f64], cpu_ms: f64, raw_kb: f64, gz_kb: f64) -> Link {
        let mut rows = Vec::new();
        for round in 1..=9u32 {
            let w = 1.0 + 0.02 * ((round * 7) % 5) as f64 / 5.0;
            for &rate in rates {
                rows.push((rate, round, "json", 1000, "none", 1.0 + w * raw_kb * 8.0 / rate));
                rows.push((
                    rate,
                    round,
                    "json",
                    1000,
                    "gzip",
                    1.0 + w * (cpu_ms + gz_kb * 8.0 / rate),
                ));
            }
        }
        let text = file(&rows);
        Link {
            files: vec![LinkFile {
                name: "link.csv".into(),
                stamp: None,
                machine: None,
                note: None,
                rows: parse("link.csv", &text).unwrap(),
            }],
            sizes: None,
        }
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a / b - 1.0).abs() <= tol
    }

    /// JSON at 1,000 products, gzip -6: 536.5 kB saved for 15 ms of CPU →
    /// 286 Mbit/s, bracketed by 100 and 1,000 Mbit/s; the estimator finds it
    /// within 1%, and the fit recovers both terms.
    #[test]
    fn the_break_even_of_a_known_model_is_found() {
        let link = model(&[10.0, 100.0, 1000.0], 15.0, 619.4, 82.9);
        let truth = (619.4 - 82.9) * 8.0 / 15.0;
        let be = break_even(&link, "json", 1000, "gzip").unwrap();
        let Crossing::At(m) = be.median else { panic!("{be:?}") };
        assert!(close(m, truth, 0.01), "{m} vs {truth}");
        assert_eq!(be.n, 9);
        assert!(be.confidence >= CONFIDENCE, "{be:?}");
        let (a, b) = fit(&link, "json", 1000, "gzip").unwrap();
        assert!(close(a, 15.0, 0.03) && close(b, (619.4 - 82.9) * 8.0, 0.03), "{a} {b}");
    }

    /// The self-test: interpolating in the rate instead of 1/rate (a wrong
    /// estimator) misses the same model's answer by far more than the
    /// tolerance above, so that check can fail.
    #[test]
    fn a_wrong_estimator_fails_the_same_check() {
        let link = model(&[10.0, 100.0, 1000.0], 15.0, 619.4, 82.9);
        let truth = (619.4 - 82.9) * 8.0 / 15.0;
        let wrong: Vec<f64> = (1..=9u32)
            .map(|round| {
                let p = |rate: f64, comp: &str| {
                    link.rows()
                        .find(|r| r.http.round == round && r.rate_mbps == rate && r.http.compression == comp)
                        .unwrap()
                        .http
                        .p50_ms
                };
                let (d0, d1) = (
                    p(100.0, "gzip") - p(100.0, "none"),
                    p(1000.0, "gzip") - p(1000.0, "none"),
                );
                100.0 + (0.0 - d0) * (1000.0 - 100.0) / (d1 - d0)
            })
            .collect();
        let m = crate::measure::stats::median(&wrong).unwrap();
        assert!(!close(m, truth, 0.01), "{m} vs {truth}");
    }

    /// Outside the sweep: paying at every rate, or at none, is said as a
    /// bound, never extrapolated; an even count with a censored middle is a bound.
    #[test]
    fn censored_rounds_are_bounds() {
        // 2 ms of CPU saves 536 kB: break-even 2,146 Mbit/s, above 1,000.
        let fast = model(&[10.0, 100.0, 1000.0], 2.0, 619.4, 82.9);
        assert_eq!(
            break_even(&fast, "json", 1000, "gzip").unwrap().median,
            Crossing::Above(1000.0)
        );
        // 1 s of CPU: 4.3 Mbit/s, below 10.
        let slow = model(&[10.0, 100.0, 1000.0], 1000.0, 619.4, 82.9);
        assert_eq!(
            break_even(&slow, "json", 1000, "gzip").unwrap().median,
            Crossing::Below(10.0)
        );
        let s = summarize(&[Crossing::At(200.0), Crossing::Above(1000.0)]).unwrap();
        assert_eq!(s.median, Crossing::Above(200.0));
        let s = summarize(&[Crossing::Below(10.0), Crossing::At(50.0)]).unwrap();
        assert_eq!(s.median, Crossing::Below(50.0));
        assert_eq!(crossing(&[(10.0, -1.0)]), None, "one rate brackets nothing");
        assert_eq!(crossing(&[(10.0, -1.0), (10.0, 1.0)]), None);
        assert_eq!(summarize(&[]), None);
    }

    /// Hostile link files: every malformed line is an error naming the
    /// file and line, never a panic.
    #[test]
    fn hostile_link_files_are_errors_with_file_and_line() {
        let good = file(&[(10.0, 1, "json", 1000, "none", 500.0)]);
        assert_eq!(parse("l.csv", &good).unwrap().len(), 1);
        let row = good.lines().last().unwrap();
        let header = crate::load::link::link_header();
        let one_row = |from: &str, to: &str| format!("{header}\n{}\n", row.replacen(from, to, 1));
        let mut cases: Vec<(String, usize, &str)> = [
            ("10,", "nan,", "rate_mbps"),
            ("10,", "1e300,", "rate_mbps"),
            ("10,0,", "10,-5,", "rtt_ms"),
            (",500,", ",x,", "expected a number"),
            (",500,", ",NaN,", "p50_ms"),
            (",none,1,", ",none,0,", "concurrency"),
        ]
        .map(|(from, to, msg)| (one_row(from, to), 2, msg))
        .to_vec();
        cases.extend([
            (String::new(), 0, "empty file"),
            ("# only comments\n".into(), 0, "empty file"),
            ("rate,rtt\n".into(), 1, "expected the header"),
            (format!("{header}\n1,2,3\n"), 2, "columns"),
            (format!("# run: x\n{header}\n{row}\n{row},\n"), 4, "columns"),
            (format!("{header}\n{}\n", "é,".repeat(10_000)), 2, "columns"),
        ]);
        for (text, line, msg) in cases {
            let e = parse("l.csv", &text).unwrap_err();
            assert_eq!(e.line, line, "{text:.80}: {e}");
            assert!(e.to_string().starts_with("l.csv:"), "{e}");
            assert!(e.message.contains(msg), "{text:.80}: {e}");
        }
        // Every truncation of a good file is a result, never a panic.
        for cut in (0..good.len()).filter(|&i| good.is_char_boundary(i)) {
            let _ = parse("l.csv", &good[..cut]);
        }
    }
}
