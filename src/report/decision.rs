//! The top of `REPORT.md`: the decision table, the costs per million
//! requests, gzip's break-even link speed, the costs the benchmarks do not
//! measure, and the answers in prose — all computed from the run's raw rows.
//!
//! **Paired partial rankings** ([`paired_ranking`], [`paired_pairs`]): a
//! round pairs the formats measured in it, so drift that moves a whole round
//! cancels. HTTP rows pair by the `round` column ([`super::verdict::by_round`]),
//! codec rows batch `j` of each row (one batch of every row per round). Each
//! pair gets the Wilcoxon signed-rank test on its per-round log ratios,
//! Holm–Bonferroni over the row's pairs (α = 0.05): `<` (cheaper/smaller) or
//! `>` (faster) where supported, else `≈`. The cell is a chain of groups
//! (`a ≈ b < c`) when the ordered pairs are exactly those between groups,
//! else the ordered pairs listed, then the row's minimum detectable effect.
//!
//! **Disturbed rounds**, per format: HTTP rounds with other work or steal on
//! the machine, after a slow calibration sample, or whose CPU per request
//! jumps above [`CPU_JUMP`] × the format's median ([`cpu_jumps`]); codec
//! rounds the calibration marks. A format with more than [`DISTURBED_SHARE`]
//! of its rounds disturbed (rounds disturbed for every format aside) is shown
//! "(disturbed)", the others ranked; below that a disturbed round stays in
//! the pairing (dropping rounds costs power in whole steps).
//!
//! **Break-even link speed** ([`break_even_mbps`]) of a gzip level: bytes
//! saved × 8 ÷ (server compress + client gunzip µs) = Mbit/s; on a slower
//! link gzip pays.

use super::inputs::{Data, formats};
use super::numfmt::{head, opt, row};
use super::parse::HttpRow;
use super::verdict::samples;
use crate::measure::significance::{self as sig, ALPHA, CONFIDENCE};
use std::fmt::Write as _;

/// Interval tolerance of a codec row's own median at 100 and 1,000
/// products (rows beyond it are listed; the rankings do not use it).
pub const CODEC_TOLERANCE: f64 = 0.03;
/// The same at 1 product.
pub const CODEC_TOLERANCE_SMALL: f64 = 0.05;
/// A round whose CPU per request is above this multiple of the format's
/// median is disturbed ([`cpu_jumps`]).
pub const CPU_JUMP: f64 = 1.5;
/// A format with more than this share of its rounds disturbed is left out
/// of the row's ranking (module docs).
pub const DISTURBED_SHARE: f64 = 0.5;

/// A partial ranking of one row (module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct Ranking {
    /// The ranked formats, best first by their median.
    pub formats: Vec<String>,
    /// The pairs the test orders, `(better, worse)`; every other pair of
    /// `formats` is `≈`.
    pub ordered: Vec<(String, String)>,
    /// Formats left out: (format, disturbed rounds, rounds).
    pub disturbed: Vec<(String, usize, usize)>,
    /// The row's minimum detectable effect (a fraction): the largest over
    /// its `≈` pairs (all pairs when every pair is ordered); None when exact.
    pub mde: Option<f64>,
}

/// Ranks exact values (byte counts, one value per format): ordered by
/// value, equal values `≈`. Err "n/a" with fewer than two formats.
pub fn ranking(items: &[(String, Vec<f64>)], lower_is_better: bool) -> Result<Ranking, String> {
    let mut v: Vec<(String, f64)> = items.iter().filter_map(|(f, s)| Some((f.clone(), med(s)?))).collect();
    if v.len() < 2 {
        return Err("n/a".into());
    }
    sort_best(&mut v, lower_is_better);
    let mut ordered = Vec::new();
    for i in 0..v.len() {
        for j in i + 1..v.len() {
            if v[i].1 != v[j].1 {
                ordered.push((v[i].0.clone(), v[j].0.clone()));
            }
        }
    }
    Ok(Ranking {
        formats: v.into_iter().map(|x| x.0).collect(),
        ordered,
        disturbed: Vec::new(),
        mde: None,
    })
}

/// Ranks a row on paired rounds (module docs): `rounds[f][r]` is
/// `names[f]` in round `r` (NaN: missing), `disturbed[f][r]` its flag.
pub fn paired_ranking(
    names: &[String],
    rounds: &[Vec<f64>],
    disturbed: &[Vec<bool>],
    lower_is_better: bool,
) -> Result<Ranking, String> {
    let len = rounds.iter().map(Vec::len).max().unwrap_or(0);
    let mut kept: Vec<(String, Vec<f64>)> = Vec::new();
    let mut out_disturbed = Vec::new();
    for (f, name) in names.iter().enumerate() {
        let mut v = rounds.get(f).cloned().unwrap_or_default();
        v.resize(len, f64::NAN);
        let present: Vec<usize> = (0..len).filter(|&r| v[r].is_finite()).collect();
        if present.is_empty() {
            continue;
        }
        let flag = |g: usize, r: usize| disturbed.get(g).and_then(|d| d.get(r)).copied().unwrap_or(false);
        // A round disturbed for every format present in it is common drift
        // that the pairing cancels: it marks no format.
        let common = |r: usize| {
            (0..names.len())
                .filter(|&g| rounds.get(g).and_then(|v| v.get(r)).is_some_and(|x| x.is_finite()))
                .all(|g| flag(g, r))
        };
        let k = present.iter().filter(|&&r| flag(f, r) && !common(r)).count();
        if k as f64 > DISTURBED_SHARE * present.len() as f64 {
            out_disturbed.push((name.clone(), k, present.len()));
            continue;
        }
        kept.push((name.clone(), v));
    }
    if kept.len() < 2 {
        return Err(if out_disturbed.is_empty() {
            "n/a".into()
        } else {
            format!("n/a{}", disturbed_text(&out_disturbed))
        });
    }
    let matrix: Vec<Vec<f64>> = kept.iter().map(|k| k.1.clone()).collect();
    let pairs = paired_pairs(&matrix);
    let mut ordered = Vec::new();
    for p in &pairs {
        let (a, b) = (kept[p.a].0.clone(), kept[p.b].0.clone());
        // `Less`: b below a; the better one is the lower when lower is better.
        match (p.order, lower_is_better) {
            (std::cmp::Ordering::Equal, _) => {}
            (std::cmp::Ordering::Less, true) | (std::cmp::Ordering::Greater, false) => ordered.push((b, a)),
            _ => ordered.push((a, b)),
        }
    }
    let ties: Vec<f64> = pairs
        .iter()
        .filter(|p| p.order == std::cmp::Ordering::Equal)
        .map(|p| p.test.mde)
        .collect();
    let all: Vec<f64> = pairs.iter().map(|p| p.test.mde).collect();
    let mde = if ties.is_empty() { &all } else { &ties }
        .iter()
        .copied()
        .filter(|m| m.is_finite())
        .reduce(f64::max);
    let mut by_median: Vec<(String, f64)> = kept
        .iter()
        .map(|(f, v)| {
            let finite: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
            (f.clone(), med(&finite).unwrap_or(f64::NAN))
        })
        .collect();
    sort_best(&mut by_median, lower_is_better);
    Ok(Ranking {
        formats: by_median.into_iter().map(|x| x.0).collect(),
        ordered,
        disturbed: out_disturbed,
        mde,
    })
}

/// Sorts `(name, value)` best first.
fn sort_best(v: &mut [(String, f64)], lower_is_better: bool) {
    v.sort_by(|a, b| {
        if lower_is_better {
            a.1.total_cmp(&b.1)
        } else {
            b.1.total_cmp(&a.1)
        }
    });
}

fn disturbed_text(v: &[(String, usize, usize)]) -> String {
    v.iter()
        .map(|(f, k, n)| format!("; {f} (disturbed: {k} of {n} rounds, not ranked)"))
        .collect()
}

/// A ranking as text (module docs): `a ≈ b < c` or `a < b, c; d < c;
/// other pairs ≈` (`>` when higher is better), the MDE, the disturbed formats.
pub fn ranking_text(r: &Result<Ranking, String>, lower_is_better: bool) -> String {
    let r = match r {
        Err(e) => return e.clone(),
        Ok(r) => r,
    };
    let sep = if lower_is_better { " < " } else { " > " };
    let s = &r.formats;
    let is_ordered = |x: &str, y: &str| r.ordered.iter().any(|(b, w)| b == x && w == y);
    // Cut between k-1 and k where every pair across the cut is ordered.
    let cuts: Vec<usize> = (1..s.len())
        .filter(|&k| (0..k).all(|i| (k..s.len()).all(|j| is_ordered(&s[i], &s[j]))))
        .collect();
    let mut groups: Vec<&[String]> = Vec::new();
    let mut at = 0;
    for &k in cuts.iter().chain(std::iter::once(&s.len())) {
        groups.push(&s[at..k]);
        at = k;
    }
    let across: usize = (0..groups.len())
        .flat_map(|i| (i + 1..groups.len()).map(move |j| (i, j)))
        .map(|(i, j)| groups[i].len() * groups[j].len())
        .sum();
    let mut text = if across == r.ordered.len() {
        groups.iter().map(|g| g.join(" ≈ ")).collect::<Vec<_>>().join(sep)
    } else {
        let mut parts = Vec::new();
        for f in s {
            let worse: Vec<&str> = s.iter().filter(|w| is_ordered(f, w)).map(String::as_str).collect();
            if !worse.is_empty() {
                parts.push(format!("{f}{sep}{}", worse.join(", ")));
            }
        }
        parts.push("other pairs ≈".into());
        parts.join("; ")
    };
    if let Some(m) = r.mde {
        if r.ordered.len() == s.len() * s.len().saturating_sub(1) / 2 {
            let _ = write!(text, " (every pair ordered; detectable ±{:.1}%)", m * 100.0);
        } else {
            let _ = write!(text, " (≈ within ±{:.1}%)", m * 100.0);
        }
    }
    text + &disturbed_text(&r.disturbed)
}

/// One cell of the decision table.
#[derive(Clone, Debug)]
pub struct DecisionCell {
    pub question: &'static str,
    pub count: usize,
    pub lower_is_better: bool,
    pub ranking: Result<Ranking, String>,
}

/// A round of one HTTP file whose CPU per request jumped ([`CPU_JUMP`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Jump {
    pub format: String,
    pub round: u32,
    /// Its CPU per request ÷ the format's median (the larger of server and client).
    pub factor: f64,
}

/// The rounds of `rows` (one file, one count) whose server or client CPU
/// per request is above [`CPU_JUMP`] × that format's median.
pub fn cpu_jumps(rows: &[&HttpRow]) -> Vec<Jump> {
    let gets: [HttpGet; 2] = [HttpRow::server_cpu, HttpRow::client_cpu];
    let mut out = Vec::new();
    for f in formats() {
        let mine: Vec<&&HttpRow> = rows.iter().filter(|r| r.format == f).collect();
        let medians: Vec<Option<f64>> = gets
            .iter()
            .map(|g| {
                med(&mine
                    .iter()
                    .filter_map(|r| g(r))
                    .filter(|x| x.is_finite())
                    .collect::<Vec<_>>())
            })
            .collect();
        for r in &mine {
            let factor = gets
                .iter()
                .zip(&medians)
                .filter_map(|(g, m)| Some(g(r)? / m.filter(|m| *m > 0.0)?))
                .fold(0.0, f64::max);
            if factor > CPU_JUMP {
                out.push(Jump {
                    format: f.to_string(),
                    round: r.round,
                    factor,
                });
            }
        }
    }
    out
}

/// The disturbed `(format, round)`s of one HTTP file at one count (module docs).
pub fn http_disturbed(d: &Data, file: &str, count: usize) -> Vec<(String, u32)> {
    use crate::measure::calibration::assess;
    let rows = d.file_rows(file, count);
    let mut out: Vec<(String, u32)> = rows
        .iter()
        .filter(|r| r.machine_disturbed())
        .map(|r| (r.format.clone(), r.round))
        .collect();
    if let Some((_, samples)) = d.calibration.iter().find(|(f, _)| f == file) {
        if let Some(a) = assess(samples) {
            let excess = |v: f64, m: f64| if m > 0.0 { v / m - 1.0 } else { 0.0 };
            for s in samples {
                if excess(s.cpu_us, a.cpu.median) <= a.cpu_limit && excess(s.mem_us, a.mem.median) <= a.mem_limit {
                    continue;
                }
                let Some((f, c)) = s.case.as_deref().and_then(|c| c.split_once('/')) else {
                    continue;
                };
                if c.parse() == Ok(count) {
                    out.push((f.to_string(), s.round as u32));
                }
            }
        }
    }
    out.extend(cpu_jumps(&rows).into_iter().map(|j| (j.format, j.round)));
    out.sort();
    out.dedup();
    out
}

/// One HTTP row of the decision table: the formats, their values by round
/// and which are disturbed ([`http_disturbed`]).
pub fn http_matrix(d: &Data, file: &str, count: usize, get: HttpGet) -> (Vec<String>, Vec<Vec<f64>>, Vec<Vec<bool>>) {
    let rows = d.file_rows(file, count);
    let names: Vec<&str> = formats();
    let bad = http_disturbed(d, file, count);
    let is_bad = |r: &HttpRow| bad.iter().any(|(f, n)| *f == r.format && *n == r.round);
    let (values, flags) = paired_rounds(&rows, &names, get, is_bad);
    (names.iter().map(|s| s.to_string()).collect(), values, flags)
}

/// `rows`' values of `get` and their `disturbed` flags, paired by round.
fn paired_rounds(
    rows: &[&HttpRow],
    names: &[&str],
    get: impl Fn(&HttpRow) -> Option<f64>,
    disturbed: impl Fn(&HttpRow) -> bool,
) -> (Vec<Vec<f64>>, Vec<Vec<bool>>) {
    use super::verdict::by_round;
    let flags = by_round(rows, names, |r| Some(f64::from(u8::from(disturbed(r)))))
        .into_iter()
        .map(|v| v.into_iter().map(|x| x == 1.0).collect())
        .collect();
    (by_round(rows, names, get), flags)
}

/// A getter of one HTTP figure.
pub type HttpGet = fn(&HttpRow) -> Option<f64>;

/// The timed questions: question, file, lower is better, getter.
pub const HTTP_QUESTIONS: [(&str, &str, bool, HttpGet); 4] = [
    (
        "cheapest server CPU per request",
        super::verdict::SERVER_SOURCE,
        true,
        HttpRow::server_cpu,
    ),
    (
        "cheapest client CPU per request (verifying decode)",
        super::verdict::CLIENT_SOURCE,
        true,
        HttpRow::client_cpu,
    ),
    (
        "highest server-only throughput (pinned core)",
        super::verdict::SERVER_SOURCE,
        false,
        |r| Some(r.rps),
    ),
    (
        "highest end-to-end throughput (one machine)",
        super::verdict::CLIENT_SOURCE,
        false,
        |r| Some(r.rps),
    ),
];

/// A getter of one size row's bytes.
type SizeGet = fn(&super::parse::SizeRow) -> f64;

/// The exact questions: bytes on the wire.
const BYTES_QUESTIONS: [(&str, SizeGet); 2] = [
    ("smallest on the wire, raw", |r| r.raw_bytes as f64),
    ("smallest on the wire, gzip -6", |r| r.gzip6_bytes as f64),
];

/// The codec questions ([`codec_ranking`]).
const CODEC_QUESTIONS: [(&str, &str); 2] = [
    ("fastest encode (CPU per operation, codec bench)", "Encode"),
    ("fastest decode (CPU per operation, codec bench)", "Decode"),
];

/// One payload's column of the decision table at `count` (a document's is
/// 1); the HTTP questions say "no HTTP run" without HTTP files.
pub fn column_cells(d: &Data, count: usize) -> Vec<DecisionCell> {
    let cell = |question, lower_is_better, ranking| DecisionCell {
        question,
        count,
        lower_is_better,
        ranking,
    };
    let mut out = Vec::new();
    for (question, get) in BYTES_QUESTIONS {
        let items: Vec<(String, Vec<f64>)> = formats()
            .iter()
            .filter_map(|f| Some((f.to_string(), vec![get(d.size(f, count)?)])))
            .collect();
        out.push(cell(question, true, ranking(&items, true)));
    }
    for (question, op) in CODEC_QUESTIONS {
        out.push(cell(question, true, codec_ranking(d, op, count)));
    }
    for (question, file, lower, get) in HTTP_QUESTIONS {
        let ranking = if d.http.is_empty() {
            Err("no HTTP run".into())
        } else {
            let (names, values, flags) = http_matrix(d, file, count, get);
            paired_ranking(&names, &values, &flags, lower)
        };
        out.push(cell(question, lower, ranking));
    }
    out
}

/// Every cell of the catalog's decision table, count by count.
pub fn decision_cells(d: &Data) -> Vec<DecisionCell> {
    COUNTS.iter().flat_map(|&c| column_cells(d, c)).collect()
}

/// The decision table's link rows (`link.csv`, a run of its own): per swept
/// rate, the c=1 p50 without compression, paired by round; a round with
/// other work on the machine is disturbed.
pub fn link_cells(d: &Data) -> Vec<(String, Vec<DecisionCell>)> {
    let Some(link) = &d.link else {
        return Vec::new();
    };
    let names = formats();
    let owned: Vec<String> = names.iter().map(|s| s.to_string()).collect();
    link.rates(1)
        .into_iter()
        .map(|rate| {
            let cells = COUNTS
                .iter()
                .map(|&count| {
                    let rows = link.at(rate, count, "none", 1);
                    let (values, flags) = paired_rounds(&rows, &names, |r| Some(r.p50_ms), HttpRow::machine_disturbed);
                    DecisionCell {
                        question: "fastest end to end on a link",
                        count,
                        lower_is_better: true,
                        ranking: paired_ranking(&owned, &values, &flags, true),
                    }
                })
                .collect();
            (
                format!(
                    "fastest end to end on a {} Mbit/s link, raw (c=1 p50, `link.csv`)",
                    super::link::rate_text(rate)
                ),
                cells,
            )
        })
        .collect()
}

/// Every HTTP file and count with a CPU jump ([`cpu_jumps`]), listed.
pub fn render_jumps(o: &mut String, d: &Data) {
    let mut lines = Vec::new();
    for f in &d.http {
        let counts: std::collections::BTreeSet<usize> = d.http_rows.iter().map(|r| r.count).collect();
        for c in counts {
            let jumps = cpu_jumps(&d.file_rows(&f.name, c));
            if jumps.is_empty() {
                continue;
            }
            let mut per: Vec<String> = Vec::new();
            for fm in formats() {
                let mine: Vec<&Jump> = jumps.iter().filter(|j| j.format == fm).collect();
                if mine.is_empty() {
                    continue;
                }
                let rounds: Vec<String> = mine.iter().map(|j| j.round.to_string()).collect();
                let lo = mine.iter().map(|j| j.factor).fold(f64::INFINITY, f64::min);
                let hi = mine.iter().map(|j| j.factor).fold(0.0, f64::max);
                let span = if format!("{lo:.1}") == format!("{hi:.1}") {
                    format!("{hi:.1}×")
                } else {
                    format!("{lo:.1}–{hi:.1}×")
                };
                per.push(format!(
                    "{fm} round{} {} ({span})",
                    if mine.len() == 1 { "" } else { "s" },
                    rounds.join(", ")
                ));
            }
            lines.push(format!(
                "- `{}`, {}: {}",
                f.name,
                super::numfmt::products(c),
                per.join("; ")
            ));
        }
    }
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(
        o,
        "\nHTTP rounds whose own CPU per request jumped (server or client CPU per request above {CPU_JUMP}× that format's median over the rounds of its file and count; disturbed: a format with more than half its rounds disturbed is left out of its decision-table cell, the rest stay in the pairing):\n\n{}",
        lines.join("\n")
    );
}

/// Break-even link speed in Mbit/s: `saved_bytes × 8 ÷ cpu_us`; None
/// when nothing is saved or the CPU time is not positive.
pub fn break_even_mbps(saved_bytes: f64, cpu_us: f64) -> Option<f64> {
    (saved_bytes > 0.0 && cpu_us > 0.0).then(|| saved_bytes * 8.0 / cpu_us)
}

/// On a link of `link_mbps`, the µs gzip saves per response: sending time
/// saved − CPU spent.
pub fn net_saving_us(saved_bytes: f64, cpu_us: f64, link_mbps: f64) -> f64 {
    saved_bytes * 8.0 / link_mbps - cpu_us
}

use crate::measure::stats::median as med;

/// The per-batch samples of one codec row (`cpu-ns/op` when recorded, else `ns/op`).
pub fn codec_samples(d: &Data, op: &str, format: &str, count: usize) -> Vec<f64> {
    d.codec_lines(op, format, count)
        .iter()
        .map(|l| l.cpu_ns_per_op.unwrap_or(l.ns_per_op))
        .collect()
}

/// The rounds (1-based) the calibration of the payload's codec file marks.
fn codec_disturbed_rounds(d: &Data) -> Vec<usize> {
    d.calibration
        .iter()
        .find(|(f, _)| *f == format!("{}codec.txt", d.payload.file_prefix()))
        .and_then(|(_, s)| crate::measure::calibration::assess(s))
        .map(|a| a.disturbed_rounds)
        .unwrap_or_default()
}

/// One codec op at one count ranked on its batches paired by round.
pub fn codec_ranking(d: &Data, op: &str, count: usize) -> Result<Ranking, String> {
    let bad = codec_disturbed_rounds(d);
    let names: Vec<String> = formats().iter().map(|f| f.to_string()).collect();
    let values: Vec<Vec<f64>> = names.iter().map(|f| codec_samples(d, op, f, count)).collect();
    let flags: Vec<Vec<bool>> = values
        .iter()
        .map(|v| (1..=v.len()).map(|j| bad.contains(&j)).collect())
        .collect();
    paired_ranking(&names, &values, &flags, true)
}

/// Below the codec table of one count: encode and decode ranked on paired
/// batches, and the rows whose own median interval is wide.
pub fn codec_rankings(o: &mut String, d: &Data, count: usize) {
    let tol = if count >= 100 {
        CODEC_TOLERANCE
    } else {
        CODEC_TOLERANCE_SMALL
    };
    for op in ["Encode", "Decode", "DecodeBorrowed"] {
        if formats()
            .iter()
            .filter(|f| !codec_samples(d, op, f, count).is_empty())
            .count()
            >= 2
        {
            let _ = writeln!(
                o,
                "
{op}, fastest first (CPU per operation; batches paired by round, disturbed rounds kept; `<`: significant, `≈`: not): {}.",
                ranking_text(&codec_ranking(d, op, count), true)
            );
        }
    }
    let noisy: Vec<String> = d
        .codec_stats
        .iter()
        .filter(|s| s.count == count)
        .filter_map(|s| {
            let ci = sig::median_ci(&codec_samples(d, &s.op, &s.format, count), CONFIDENCE)?;
            (ci.rel_half_width() > tol).then(|| format!("{}/{} ±{:.1}%", s.op, s.format, ci.rel_half_width() * 100.0))
        })
        .collect();
    if !noisy.is_empty() {
        let _ = writeln!(
            o,
            "
Rows whose own 95% median interval exceeds ±{:.0}% (their absolute figures are loose; the paired rankings above cancel what moves every row of a round): {}.",
            tol * 100.0,
            noisy.join(", ")
        );
    }
}

/// The counts of the decision table.
pub const COUNTS: [usize; 3] = [1, 100, 1000];

/// The decision section: the table, the verdict, the unmeasured costs, the
/// cost per million requests, the gzip break-even, the prose.
pub fn render(o: &mut String, d: &Data) {
    o.push_str("\n## Decision table\n\n");
    let _ = writeln!(
        o,
        "Best first, a partial order: each pair of formats is compared on its per-round paired ratios (Wilcoxon signed-rank, Holm over the row's pairs); `<` / `>`: a significant difference; `≈`: this run cannot tell them apart, within the row's minimum detectable effect (\"≈ within ±X%\"). A format with more than half its rounds disturbed (other work on the machine, a slow calibration sample, or its CPU per request above {CPU_JUMP}× its median) while another format of the round was not is marked \"(disturbed)\" and left out; other disturbed rounds stay in the pairing, where each is one rank among the row's rounds. Server CPU per request and server-only throughput: `{}` (server pinned to one core, load generator on the other); client CPU and end-to-end throughput: `{}` (both on one machine, concurrency 8, no compression).\n",
        super::verdict::SERVER_SOURCE,
        super::verdict::CLIENT_SOURCE
    );
    // One column per payload: the catalog at each count, then the document.
    let mut columns: Vec<(String, Vec<DecisionCell>)> = COUNTS
        .iter()
        .map(|&c| (d.payload.heading(c), column_cells(d, c)))
        .collect();
    if let Some(doc) = &d.document {
        let _ = writeln!(
            o,
            "The last column is {}: `make bench DATA=…` measured it through the schema-driven codecs (`data-codec.txt`, `data-sizes.csv`), with no HTTP run; its bytes are the whole document's.\n",
            doc.payload.heading(1)
        );
        columns.push((doc.payload.heading(1), column_cells(doc, 1)));
    }
    head(
        o,
        std::iter::once("question").chain(columns.iter().map(|c| c.0.as_str())),
    );
    for c in &columns[0].1 {
        let cells = columns.iter().map(|(_, cells)| {
            let r = cells.iter().find(|x| x.question == c.question).map(|x| &x.ranking);
            r.map_or("n/a".into(), |r| ranking_text(r, c.lower_is_better))
        });
        row(o, std::iter::once(c.question.to_string()).chain(cells));
    }
    for (q, cells) in link_cells(d) {
        let texts = cells.iter().map(|c| ranking_text(&c.ranking, c.lower_is_better));
        let doc = d.document.as_ref().map(|_| "no link run".to_string());
        row(o, std::iter::once(q).chain(texts).chain(doc));
    }
    let payloads = COUNTS
        .iter()
        .map(|&c| (d, c))
        .chain(d.document.as_deref().map(|doc| (doc, 1)));
    let per_product = payloads.map(|(p, c)| {
        let cells: Vec<String> = formats()
            .iter()
            .filter_map(|f| {
                let r = p.size(f, c)?;
                Some(format!(
                    "{f} {:.0}/{:.0}",
                    r.bytes_per_product_raw, r.bytes_per_product_gzip6
                ))
            })
            .collect();
        if cells.is_empty() {
            "n/a".into()
        } else {
            cells.join(", ")
        }
    });
    row(
        o,
        std::iter::once("bytes per product, raw / gzip -6".to_string()).chain(per_product),
    );
    let gzip = d.sizes.as_ref().and_then(|sizes| {
        let big = COUNTS
            .iter()
            .copied()
            .filter(|c| sizes.iter().any(|r| r.count == *c))
            .max()?;
        level_that_pays(sizes.iter().find(|r| r.format == "json" && r.count == big)?)
    });
    super::verdict::render(o, d, &COUNTS, gzip);
    unmeasured(o);
    costs(o, d);
    gzip_pays(o, d);
    prose(o, d);
}

/// What a body needs to be read without its schema, and the command.
const DEBUG: [(&str, &str); 5] = [
    ("json", "yes: text (`curl URL \\| jq .`)"),
    (
        "msgpack",
        "field names yes, with a tool: `wirebench decode msgpack FILE`",
    ),
    (
        "protobuf",
        "numbers and wire types only (`protoc --decode_raw < FILE`); names need the .proto",
    ),
    (
        "avro",
        "no: the writer's schema is needed (`wirebench decode avro --writer-schema S FILE`)",
    ),
    (
        "flatbuffers",
        "no: offsets only; the .fbs is needed (`flatc --json --raw-binary`)",
    ),
];

/// (silent damage, refusals, cells) of one format and direction of the
/// evolution matrix.
pub fn rollout_counts(
    cells: &[crate::evolve::Cell],
    format: &str,
    dir: crate::evolve::Direction,
) -> (usize, usize, usize) {
    let mine: Vec<_> = cells
        .iter()
        .filter(|c| c.row.name() == format && c.direction == dir)
        .collect();
    let silent = mine.iter().filter(|c| c.outcome.is_silent_damage()).count();
    let refused = mine
        .iter()
        .filter(|c| matches!(c.outcome, crate::evolve::Outcome::Refuses(_)))
        .count();
    (silent, refused, mine.len())
}

/// The costs the benchmarks do not measure, from facts the project has.
fn unmeasured(o: &mut String) {
    use crate::evolve::Direction;
    o.push_str("\n### Costs the benchmarks do not measure\n\n");
    o.push_str("Schema rollout: the evolution matrix's changes (`wirebench evolve`, docs/EVOLUTION.md) with today's reader of each format; a change breaks a rollout when the reader **silently** drops or misreads data, or **refuses** the body. Every encoder here writes the same bytes for the same catalog (golden-file tests), so `ETag`s and shared caches work for all five.\n\n");
    o.push_str("| format | v1 writer → v2 reader: silent / refused | v2 writer → v1 reader: silent / refused | changes that break a rollout | readable without the schema |\n|---|---|---|---|---|\n");
    let cells = crate::evolve::matrix().ok();
    for (f, debug) in DEBUG {
        let (dirs, broken) = match &cells {
            None => (["n/a".to_string(), "n/a".to_string()], "n/a".to_string()),
            Some(cells) => {
                let (s1, r1, n1) = rollout_counts(cells, f, Direction::OldToNew);
                let (s2, r2, n2) = rollout_counts(cells, f, Direction::NewToOld);
                (
                    [format!("{s1} / {r1} of {n1}"), format!("{s2} / {r2} of {n2}")],
                    format!("{} of {}", s1 + r1 + s2 + r2, n1 + n2),
                )
            }
        };
        let _ = writeln!(o, "| {f} | {} | {} | {broken} | {debug} |", dirs[0], dirs[1]);
    }
    super::verdict::library_table(o);
}

/// `on-CPU` when every row records compress and gunzip CPU for all three
/// levels, else `wall` (never a mix).
pub fn gzip_time_kind(sizes: &[super::parse::SizeRow]) -> &'static str {
    if !sizes.is_empty() && sizes.iter().all(|r| r.gzip_cpu().is_some() && r.gunzip_cpu().is_some()) {
        "on-CPU"
    } else {
        "wall"
    }
}

/// The [`GzipLevel`]s of one size row, times of `kind` ([`gzip_time_kind`]).
pub fn gzip_levels(r: &super::parse::SizeRow, kind: &str) -> Vec<GzipLevel> {
    let raw = r.raw_bytes as f64;
    let (t, g) = match (kind, r.gzip_cpu(), r.gunzip_cpu()) {
        ("on-CPU", Some(c), Some(u)) => (c, u.map(Some)),
        // A document's row has no gzip times: NaN, never a made-up figure (the
        // gzip tables read the catalog's rows only).
        _ => (r.gzip_us.unwrap_or([f64::NAN; 3]), r.gunzip_us),
    };
    vec![
        (1, raw - r.gzip1_bytes as f64, t[0], g[0]),
        (6, raw - r.gzip6_bytes as f64, t[1], g[1]),
        (9, raw - r.gzip9_bytes as f64, t[2], g[2]),
    ]
}

/// Cost per million requests, one source per quantity (`verdict`).
fn costs(o: &mut String, d: &Data) {
    use super::verdict::{CLIENT_SOURCE, SERVER_SOURCE};
    o.push_str("\n### Cost per million requests\n\n");
    let kind = d.sizes.as_deref().map_or("wall", gzip_time_kind);
    let _ = writeln!(
        o,
        "Median CPU per verified request × 10⁶, in core-seconds: server from `{SERVER_SOURCE}` (pinned, server only), client from `{CLIENT_SOURCE}` (end-to-end, its verifying decode included); compress: what gzip adds on the server, `sizes.csv`'s single-thread {kind} µs per body × 10⁶; egress: the exact body × 10⁶ (headers not counted). The end-to-end gzip runs are in DETAILS.md, not mixed in here.\n"
    );
    o.push_str("| products | format | server core-s | client core-s | + compress, gzip -1 | + compress, gzip -6 | egress raw | egress gzip -1 | egress gzip -6 |\n|---|---|---|---|---|---|---|---|---|\n");
    let gb = |b: u64| format!("{:.2} GB", b as f64 * 1e6 / 1e9);
    for c in COUNTS {
        let srv_rows = d.file_rows(SERVER_SOURCE, c);
        let cli_rows = d.file_rows(CLIENT_SOURCE, c);
        for f in formats() {
            let srv = med(&samples(&srv_rows, f, HttpRow::server_cpu));
            let cli = med(&samples(&cli_rows, f, HttpRow::client_cpu));
            let s = d.size(f, c);
            if srv.is_none() && cli.is_none() && s.is_none() {
                continue;
            }
            let levels = s.map(|r| gzip_levels(r, kind));
            let _ = writeln!(
                o,
                "| {c} | {f} | {} | {} | {} | {} | {} | {} | {} |",
                opt(srv),
                opt(cli),
                opt(levels.as_ref().map(|l| l[0].2)),
                opt(levels.as_ref().map(|l| l[1].2)),
                s.map_or("n/a".into(), |r| gb(r.raw_bytes)),
                s.map_or("n/a".into(), |r| gb(r.gzip1_bytes)),
                s.map_or("n/a".into(), |r| gb(r.gzip6_bytes)),
            );
        }
    }
}

/// The break-even of one level, or why there is none (one packet:
/// `verdict::ONE_PACKET`). `ci` = (compress lo, hi, gunzip median) gives
/// the break-even's interval.
pub fn break_even_cell(raw_bytes: u64, saved: f64, cpu_us: f64, ci: Option<(f64, f64, f64)>) -> String {
    if raw_bytes <= super::verdict::ONE_PACKET {
        return "no: one packet either way".into();
    }
    let num = super::numfmt::num;
    match (break_even_mbps(saved, cpu_us), ci) {
        (None, _) => "never".into(),
        (Some(m), Some((lo, hi, gunzip))) => {
            match (break_even_mbps(saved, hi + gunzip), break_even_mbps(saved, lo + gunzip)) {
                (Some(a), Some(b)) => format!("{} [{}, {}] Mbit/s", num(m), num(a), num(b)),
                _ => format!("{} Mbit/s", num(m)),
            }
        }
        (Some(m), None) => format!("{} Mbit/s", num(m)),
    }
}

/// (level, bytes saved, server compress µs, client gunzip µs): [`gzip_levels`].
pub type GzipLevel = (u8, f64, f64, Option<f64>);

/// The level that saves the most bytes per µs of CPU (compress + gunzip).
fn best_level(levels: &[GzipLevel]) -> Option<&GzipLevel> {
    let cpu = |l: &GzipLevel| l.2 + l.3.unwrap_or(0.0);
    levels
        .iter()
        .filter(|l| l.1 > 0.0 && cpu(l) > 0.0)
        .max_by(|a, b| (a.1 / cpu(a)).total_cmp(&(b.1 / cpu(b))))
}

/// The level that pays for one size row ([`best_level`]) beside gzip -6's
/// saving and CPU; None when none saves or the body fits in one packet.
pub fn level_that_pays(r: &super::parse::SizeRow) -> Option<String> {
    if r.raw_bytes <= super::verdict::ONE_PACKET {
        return None;
    }
    let kind = gzip_time_kind(std::slice::from_ref(r));
    let levels = gzip_levels(r, kind);
    let cpu = |l: &GzipLevel| l.2 + l.3.unwrap_or(0.0);
    let best = best_level(&levels)?;
    let six = &levels[1];
    let bytes = |l: u8| match l {
        1 => r.gzip1_bytes,
        6 => r.gzip6_bytes,
        _ => r.gzip9_bytes,
    };
    let mut s = format!(
        "for {} at {} products, gzip -{} saves the most bytes per µs of CPU: {} bytes for {} µs ({kind}, compress + gunzip)",
        r.format,
        super::numfmt::group(r.count as i64),
        best.0,
        super::numfmt::group(bytes(best.0) as i64),
        super::numfmt::num(cpu(best))
    );
    if best.0 != 6 && six.1 > 0.0 && cpu(six) > 0.0 {
        let _ = write!(
            s,
            " against gzip -6's {} bytes for {} µs: {:.0}% of -6's saving at {:.0}% of its CPU",
            super::numfmt::group(r.gzip6_bytes as i64),
            super::numfmt::num(cpu(six)),
            100.0 * best.1 / six.1,
            100.0 * cpu(best) / cpu(six)
        );
    }
    Some(s)
}

/// Break-even link speeds, the level that pays, and the verdict for `--link-mbps`.
fn gzip_pays(o: &mut String, d: &Data) {
    let Some(sizes) = &d.sizes else { return };
    let kind = gzip_time_kind(sizes);
    o.push_str("\n### Does gzip pay? Break-even link speed\n\n");
    let _ = writeln!(
        o,
        "Per response: bytes saved × 8 ÷ (server compress µs + client gunzip µs), `sizes.csv`'s single-thread {kind} medians for every level. On a slower link gzip pays (per server core and client core); on a faster one it costs more than it saves. A body of at most {} bytes fits in one packet raw, so gzip saves no round trip: \"one packet\". {}\n",
        super::numfmt::group(super::verdict::ONE_PACKET as i64),
        if kind == "on-CPU" && sizes.iter().all(|r| r.gzip_cpu_ci.iter().all(|c| c.is_some())) {
            "Each break-even carries the interval that its compress time's 95% interval over `sizes.csv`'s batches gives."
        } else {
            "`sizes.csv` records one median per level, so these figures carry no interval."
        }
    );
    o.push_str(
        "| products | format | gzip -1 | gzip -6 | gzip -9 | the level that pays |\n|---|---|---|---|---|---|\n",
    );
    for r in sizes.iter().filter(|r| COUNTS.contains(&r.count)) {
        let levels = gzip_levels(r, kind);
        let cells: Vec<String> = levels
            .iter()
            .zip(r.gzip_cpu_ci)
            .map(|(&(_, saved, srv, cli), ci)| {
                let gunzip = cli.unwrap_or(0.0);
                let ci = ci.filter(|_| kind == "on-CPU").map(|(lo, hi)| (lo, hi, gunzip));
                break_even_cell(r.raw_bytes, saved, srv + gunzip, ci)
            })
            .collect();
        let pays = match best_level(&levels) {
            _ if r.raw_bytes <= super::verdict::ONE_PACKET => "none: one packet".to_string(),
            Some(l) => format!("gzip -{}", l.0),
            None => "none".into(),
        };
        let _ = writeln!(o, "| {} | {} | {} | {pays} |", r.count, r.format, cells.join(" | "));
    }
    if let Some(link) = d.link_mbps {
        let _ = writeln!(o, "\nOn a {link} Mbit/s link (`--link-mbps`), per response:\n");
        for r in sizes.iter().filter(|r| COUNTS.contains(&r.count)) {
            let best = gzip_levels(r, kind)
                .into_iter()
                .map(|(l, saved, srv, cli)| (l, net_saving_us(saved, srv + cli.unwrap_or(0.0), link)))
                .max_by(|a, b| a.1.total_cmp(&b.1));
            let verdict = match best {
                _ if r.raw_bytes <= super::verdict::ONE_PACKET => "one packet: send it raw".into(),
                Some((l, net)) if net > 0.0 => {
                    format!("gzip -{l} pays most: saves {} µs per response", super::numfmt::num(net))
                }
                _ => "no level pays: send it raw".into(),
            };
            let _ = writeln!(o, "- {} × {}: {verdict}", r.count, r.format);
        }
    }
}

/// Concurrency, and what the figures do not mean.
fn prose(o: &mut String, d: &Data) {
    o.push_str("\n### What the data says\n\n");
    let stat = |file: &str, f: &str| {
        let s = d
            .http
            .iter()
            .find(|x| x.name == file)?
            .stats
            .iter()
            .find(|s| s.format == f && s.count == 1000)?;
        Some((s.concurrency, s.rps_ci?, s.p50_ms.median))
    };
    let pairs = [("http-c1.csv", "http.csv"), ("http.csv", "http-c16.csv")];
    let mut claims = Vec::new();
    for f in formats() {
        for (lo, hi) in pairs {
            if let (Some(a), Some(b)) = (stat(lo, f), stat(hi, f)) {
                claims.push(format!(
                    "{} (p50 {} → {} ms)",
                    super::verdict::concurrency_claim(f, (a.0, &a.1), (b.0, &b.1)),
                    super::numfmt::num(a.2),
                    super::numfmt::num(b.2)
                ));
            }
        }
    }
    if !claims.is_empty() {
        let _ = writeln!(
            o,
            "- **Concurrency** at 1,000 products (`http-c1.csv`, `http.csv`, `http-c16.csv`; \"flat\" when the two 95% intervals of requests/s overlap): {}. With client and server on the same cores, connections beyond what keeps them busy add queueing (p50 ≈ c ÷ requests/s).",
            claims.join("; ")
        );
    }
    o.push_str("- **What these figures do not mean.** The HTTP runs are loopback on one machine: no network latency, bandwidth limit or TLS, and the client shares the server's cores (only `http-server.csv` isolates the server). They are closed loops: latency is service time, not what users see under a fixed arrival rate. The catalog is synthetic (docs/SPEC.md); other data changes the sizes and the speeds. A `≈` means this run cannot tell the formats apart, not that they are equal.\n");
}

/// One pair of a row ranked on its per-round paired ratios.
#[derive(Clone, Debug, PartialEq)]
pub struct PairOrder {
    /// Indices into the row's formats; `ratio` is `b/a`.
    pub a: usize,
    pub b: usize,
    pub test: sig::PairedTest,
    /// The signed-rank p, Holm-adjusted over the pairs of the row.
    pub p_adjusted: f64,
    /// `Less`: `b` reliably below `a`; `Greater`: above; `Equal`: `≈`.
    pub order: std::cmp::Ordering,
}

/// Every pair of the row's formats (`rounds[f][r]`: format `f` in round
/// `r`) with the signed-rank test, Holm over the pairs; a pair with no
/// round where both are positive is left out.
pub fn paired_pairs(rounds: &[Vec<f64>]) -> Vec<PairOrder> {
    let mut pairs = Vec::new();
    for a in 0..rounds.len() {
        for b in a + 1..rounds.len() {
            let n = rounds[a].len().min(rounds[b].len());
            if let Some(t) = sig::paired(&rounds[a][..n], &rounds[b][..n]) {
                pairs.push((a, b, t));
            }
        }
    }
    let adjusted = sig::holm(&pairs.iter().map(|(_, _, t)| t.p).collect::<Vec<_>>());
    pairs
        .into_iter()
        .zip(adjusted)
        .map(|((a, b, test), p_adjusted)| PairOrder {
            a,
            b,
            test,
            p_adjusted,
            order: if p_adjusted >= ALPHA || test.ratio == 1.0 {
                std::cmp::Ordering::Equal
            } else if test.ratio > 1.0 {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Less
            },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The arithmetic: gzip -1 on JSON at 1,000 products saves
    /// 491,992 bytes for 2.86 ms of server CPU → about 1.4 Gbit/s.
    #[test]
    fn break_even_arithmetic() {
        let m = break_even_mbps(491_992.0, 2_860.0).unwrap();
        assert!((m - 1376.2).abs() < 0.1, "{m}");
        // gzip -6: 536,501 bytes for 17.3 ms → about 250 Mbit/s.
        let m = break_even_mbps(536_501.0, 17_300.0).unwrap();
        assert!((m - 248.1).abs() < 0.1, "{m}");
        assert_eq!(break_even_mbps(0.0, 10.0), None);
        assert_eq!(break_even_mbps(10.0, 0.0), None);
        // On a 100 Mbit/s link, 1,000 bytes take 80 µs: 30 µs of CPU pays by 50 µs.
        assert!((net_saving_us(1000.0, 30.0, 100.0) - 50.0).abs() < 1e-9);
        assert!(net_saving_us(1000.0, 30.0, 1000.0) < 0.0);
    }

    /// 80 requests leave fewer than 10 above the p95 or p99: "≥", two digits.
    #[test]
    fn tail_percentiles_say_what_the_sample_supports() {
        use super::super::numfmt::tail;
        assert_eq!(tail(Some(12.3456), 0.99, 80), "≥ 12");
        assert_eq!(tail(Some(1.2345), 0.95, 80), "≥ 1.2");
        assert_eq!(tail(Some(12.3456), 0.99, 100_000), "12.35");
        assert_eq!(tail(None, 0.99, 10), "n/a");
    }

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn exact_values_rank_by_value() {
        let exact = vec![
            ("a".to_string(), vec![3.0]),
            ("b".to_string(), vec![3.0]),
            ("c".to_string(), vec![1.0]),
        ];
        let r = ranking(&exact, true);
        assert_eq!(ranking_text(&r, true), "c < a ≈ b");
        assert_eq!(r.as_ref().unwrap().ordered.len(), 2);
        assert_eq!(ranking_text(&ranking(&exact[..1], true), true), "n/a");
    }

    /// Three formats at 1 : 1 : 1.3 with a ±30% drift per round: a chain
    /// `a ≈ b < c`; the same as throughput reads `c > b ≈ a`.
    #[test]
    fn paired_rows_render_a_chain_of_groups_with_the_mde() {
        let drift = |r: usize| 1.0 + 0.3 * ((r * 7919) % 13) as f64 / 13.0;
        // a and b: mirrored noise around the same value (log ratios symmetric about 0).
        let e = |r: usize| 0.01 * ((r % 5) as f64 - 2.0) / 2.0;
        let wobble = |r: usize, f: usize| if f == 1 { 1.0 - e(r) } else { 1.0 + e(r) };
        let base = [1.0, 1.0, 1.3];
        let v: Vec<Vec<f64>> = (0..3)
            .map(|f| (0..20).map(|r| 100.0 * base[f] * drift(r) * wobble(r, f)).collect())
            .collect();
        let n = names(&["a", "b", "c"]);
        let r = paired_ranking(&n, &v, &[], true);
        let text = ranking_text(&r, true);
        assert!(
            text.starts_with("a ≈ b < c (≈ within ±") || text.starts_with("b ≈ a < c (≈ within ±"),
            "{text}"
        );
        let up = ranking_text(&paired_ranking(&n, &v, &[], false), false);
        assert!(up.starts_with("c > "), "{up}");
        // Nothing but noise: every pair ≈, never a refusal.
        let flat: Vec<Vec<f64>> = (0..3)
            .map(|f| (0..20).map(|r| 100.0 * drift(r) * wobble(r, f)).collect())
            .collect();
        let t = ranking_text(&paired_ranking(&n, &flat, &[], true), true);
        assert!(t.contains(" ≈ ") && !t.contains('<') && t.contains("within ±"), "{t}");
    }

    /// Pairs that are not a chain of groups are listed, never forced into one.
    #[test]
    fn a_partial_order_that_is_no_chain_is_listed() {
        let r = Ranking {
            formats: names(&["a", "b", "c"]),
            ordered: vec![("a".into(), "c".into())],
            disturbed: Vec::new(),
            mde: Some(0.04),
        };
        assert_eq!(ranking_text(&Ok(r), true), "a < c; other pairs ≈ (≈ within ±4.0%)");
    }

    /// A format disturbed in more than half its rounds is marked and left
    /// out, the others still ranked; at half or less it is ranked. Rounds
    /// disturbed for every format alike (a codec round the calibration
    /// marks) are drift the pairing cancels: 7 of 12 mark no format, while
    /// the same flags on one format alone mark it.
    #[test]
    fn disturbed_formats_are_marked_and_the_rest_ranked() {
        let first = |n: usize, k: usize| -> Vec<bool> { (0..n).map(|r| r < k).collect() };
        for (n, flags, out) in [
            (10, [first(10, 0), first(10, 0), first(10, 6)], Some(6)),
            (10, [first(10, 0), first(10, 0), first(10, 5)], None),
            (12, [first(12, 7), first(12, 7), first(12, 7)], None),
            (12, [first(12, 0), first(12, 0), first(12, 7)], Some(7)),
        ] {
            let v: Vec<Vec<f64>> = (0..3)
                .map(|f| (0..n).map(|r| (100 + 50 * f + r) as f64).collect())
                .collect();
            let r = paired_ranking(&names(&["a", "b", "c"]), &v, &flags, true).unwrap();
            let want: Vec<(String, usize, usize)> = out.map(|k| ("c".to_string(), k, n)).into_iter().collect();
            assert_eq!(r.disturbed, want, "{flags:?}");
            assert_eq!(r.formats.len(), 3 - want.len(), "{r:?}");
            assert_eq!(r.ordered.len(), if out.is_some() { 1 } else { 3 }, "{r:?}");
            if let Some(k) = out {
                let text = ranking_text(&Ok(r), true);
                let tail = format!("; c (disturbed: {k} of {n} rounds, not ranked)");
                assert!(text.starts_with("a < b") && text.ends_with(&tail), "{text}");
            }
        }
    }

    /// Disturbed rounds below the share stay in the pairing: 12 rounds, b
    /// 30% above a in every round, 5 of b's rounds disturbed (one of them
    /// wildly off). Kept, the pair is ordered; dropped (the self-test: the
    /// same values with those rounds removed), the 7 left cannot reach
    /// Holm's threshold over 10 pairs and nothing is ordered.
    #[test]
    fn disturbed_rounds_below_the_share_stay_in_the_pairing() {
        let fmts = ["a", "b", "c", "d", "e"];
        let mut v: Vec<Vec<f64>> = (0..5)
            .map(|f| (0..12).map(|r| (100.0 + r as f64) * (1.0 + 0.3 * f as f64)).collect())
            .collect();
        v[1][3] *= 4.0;
        let mut flags = vec![vec![false; 12]; 5];
        for r in [0, 3, 5, 7, 9] {
            flags[1][r] = true;
        }
        let r = paired_ranking(&names(&fmts), &v, &flags, true).unwrap();
        assert!(r.disturbed.is_empty());
        assert!(r.ordered.contains(&("a".to_string(), "b".to_string())), "{r:?}");
        let mut dropped = v.clone();
        for (x, &bad) in dropped[1].iter_mut().zip(&flags[1]) {
            if bad {
                *x = f64::NAN;
            }
        }
        let r = paired_ranking(&names(&fmts), &dropped, &[], true).unwrap();
        assert!(!r.ordered.contains(&("a".to_string(), "b".to_string())), "{r:?}");
    }

    fn row(round: u32, format: &str, server: f64) -> HttpRow {
        let cpu = super::super::parse::HttpCpu {
            server_us_per_req: Some(server),
            ..Default::default()
        };
        HttpRow {
            round,
            format: format.into(),
            cpu: Some(cpu),
            ..Default::default()
        }
    }

    /// A round at 1.6× the format's median is a jump; 1.4× is not.
    #[test]
    fn cpu_jumps_beyond_the_stated_factor() {
        let mut rows: Vec<HttpRow> = (1..=9).map(|r| row(r, "json", 300.0)).collect();
        rows.push(row(10, "json", 480.0));
        rows.push(row(11, "json", 420.0));
        rows.extend((1..=11).map(|r| row(r, "avro", 200.0)));
        let refs: Vec<&HttpRow> = rows.iter().collect();
        let j = cpu_jumps(&refs);
        assert_eq!(j.len(), 1, "{j:?}");
        assert_eq!((j[0].format.as_str(), j[0].round), ("json", 10));
        assert!((j[0].factor - 1.6).abs() < 1e-9);
    }

    /// gzip times: all on-CPU with intervals when every level records
    /// compress and gunzip CPU; a file with gunzip wall times only falls back
    /// to wall for everything; the break-even interval brackets its median.
    #[test]
    fn gzip_times_are_one_kind_and_the_break_even_carries_an_interval() {
        let header = crate::measure::results::SIZES_HEADER;
        let row = "json,100,62600,12000,9500,9000,626.0,95.0,300,1500,4000,1400,100,120,130,280,3900,270,290,1300,1500,3800,4100,90,110,120";
        let text = format!("{header}\n{row}\n");
        let sizes = super::super::parse::sizes("sizes.csv", &text).unwrap();
        assert_eq!(gzip_time_kind(&sizes), "on-CPU");
        let levels = gzip_levels(&sizes[0], "on-CPU");
        assert_eq!((levels[1].2, levels[1].3), (1400.0, Some(110.0)));
        let (lo, hi) = sizes[0].gzip_cpu_ci[1].unwrap();
        let cell = break_even_cell(62600, levels[1].1, 1510.0, Some((lo, hi, 110.0)));
        let m = break_even_mbps(levels[1].1, 1510.0).unwrap();
        let (a, b) = (
            break_even_mbps(levels[1].1, hi + 110.0).unwrap(),
            break_even_mbps(levels[1].1, lo + 110.0).unwrap(),
        );
        assert!(a < m && m < b, "{a} {m} {b}");
        assert!(cell.contains('[') && cell.ends_with("] Mbit/s"), "{cell}");
        assert_eq!(
            break_even_cell(600, 100.0, 10.0, Some((9.0, 11.0, 1.0))),
            "no: one packet either way"
        );
        // Without the gunzip CPU columns: wall for every time, compress and gunzip.
        let old_header: Vec<&str> = header.split(',').take(15).collect();
        let old_row: Vec<&str> = row.split(',').take(15).collect();
        let old = format!("{}\n{}\n", old_header.join(","), old_row.join(","));
        let sizes = super::super::parse::sizes("sizes.csv", &old).unwrap();
        assert_eq!(gzip_time_kind(&sizes), "wall");
        let levels = gzip_levels(&sizes[0], "wall");
        assert_eq!((levels[1].2, levels[1].3), (1500.0, Some(120.0)));
    }
}
