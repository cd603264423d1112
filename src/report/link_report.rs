//! The link section of `REPORT.md` and `DETAILS.md`, and `chart-link.svg`,
//! from `make bench-link`'s files ([`super::link`]): the measured gzip
//! break-even beside the computed one ([`super::decision::break_even_cell`]
//! on the run's own `link-sizes.csv`, else on `sizes.csv` of another run,
//! said so), their ratio where they disagree, the sweep's own two terms for
//! JSON at 1,000 products, and every link case's medians. Nothing without a
//! link file.

use super::decision::{break_even_cell, break_even_mbps, gzip_levels, gzip_time_kind};
use super::inputs::{Data, formats};
use super::link::{self, BreakEven, Crossing, Link, rate_text};
use super::numfmt::{group, num, opt};
use super::parse::SizeRow;
use super::svg::{self, Series};
use crate::measure::significance::{self as sig, CONFIDENCE};
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// The gzip levels the section compares with `none`: (compression column, label, index in [`gzip_levels`]).
const LEVELS: [(&str, &str, usize); 2] = [("gzip1", "gzip -1", 0), ("gzip", "gzip -6", 1)];

/// The counts the break-even table shows.
const COUNTS: [usize; 2] = [1000, 100];

/// `run ID, machine M, commit C, START – END, load L`.
fn describe(link: &Link) -> String {
    let machine = link
        .files
        .iter()
        .find_map(|f| f.machine.clone())
        .unwrap_or_else(|| "no machine stated".into());
    // The run's span over every link file (the c=8 pass ends last).
    let files: Vec<super::runs::FileRun> = link
        .files
        .iter()
        .map(|f| super::runs::FileRun {
            file: f.name.clone(),
            stamp: f.stamp.clone(),
        })
        .collect();
    match link.stamp().and_then(|s| super::runs::merged(&files, &s.id)) {
        Some(s) => format!("run `{}`, {machine}", s.describe()),
        None => format!("no run stamp, {machine}"),
    }
}

/// The sizes the computed break-even uses, and where they come from.
fn sizes<'a>(d: &'a Data, link: &'a Link) -> Option<(&'a [SizeRow], String)> {
    let id = link.stamp().map(|s| s.id.as_str());
    if let Some((rows, stamp)) = &link.sizes
        && stamp.as_ref().map(|s| s.id.as_str()) == id
    {
        return Some((rows.as_slice(), format!("`{}` of the same run", link::LINK_SIZES)));
    }
    let rows = d.sizes.as_deref()?;
    let other = d
        .runs
        .iter()
        .find(|f| f.file == "sizes.csv")
        .map_or("an unstamped run".into(), |f| format!("run `{}`", f.id()));
    Some((rows, format!("`sizes.csv` of {other}, another run than the sweep")))
}

fn crossing_text(c: Crossing) -> String {
    match c {
        Crossing::Below(r) => format!("< {}", rate_text(r)),
        Crossing::At(r) => num(r),
        Crossing::Above(r) => format!("> {}", rate_text(r)),
    }
}

/// `286.7 [250.1, 320.4]`, or the bound when gzip pays at every rate or none.
pub fn measured_text(be: &BreakEven) -> String {
    let conf = if be.confidence + 1e-12 >= CONFIDENCE {
        String::new()
    } else {
        format!(" ({:.0}% interval)", be.confidence * 100.0)
    };
    match (be.median, be.lo, be.hi) {
        (Crossing::Above(r), Crossing::Above(_), _) => format!("pays at every rate measured, up to {}", rate_text(r)),
        (Crossing::Below(r), _, Crossing::Below(_)) => format!("pays at none, down to {}", rate_text(r)),
        (m, lo, hi) => format!(
            "{} [{}, {}]{conf}",
            crossing_text(m),
            crossing_text(lo),
            crossing_text(hi)
        ),
    }
}

/// Measured, computed, and their ratio when computed is outside measured's interval.
fn pair(link: &Link, sizes: Option<&[SizeRow]>, format: &str, count: usize, level: (&str, &str, usize)) -> [String; 3] {
    let be = link::break_even(link, format, count, level.0);
    let row = sizes.and_then(|s| s.iter().find(|r| r.format == format && r.count == count));
    let computed = row.map(|r| {
        let kind = gzip_time_kind(sizes.unwrap_or_default());
        let (_, saved, srv, gunzip) = gzip_levels(r, kind)[level.2];
        let cpu = srv + gunzip.unwrap_or(0.0);
        let ci = r.gzip_cpu_ci[level.2]
            .filter(|_| kind == "on-CPU")
            .map(|(lo, hi)| (lo, hi, gunzip.unwrap_or(0.0)));
        (
            break_even_cell(r.raw_bytes, saved, cpu, ci),
            break_even_mbps(saved, cpu),
        )
    });
    let ratio = match (&be, &computed) {
        (Some(b), Some((_, Some(c)))) if *c < b.lo.rank_value() || *c > b.hi.rank_value() => match b.median {
            Crossing::At(m) => format!("{:.2}×", m / c),
            Crossing::Above(_) => "measured above".into(),
            Crossing::Below(_) => "measured below".into(),
        },
        (Some(_), Some((_, Some(_)))) => "within".into(),
        _ => String::new(),
    };
    [
        be.as_ref().map_or("n/a".into(), measured_text),
        computed.map_or("n/a".into(), |c| c.0),
        ratio,
    ]
}

/// The section of `REPORT.md` (module docs); nothing without a link file.
pub fn section(o: &mut String, d: &Data) {
    let Some(link) = &d.link else { return };
    let rates: Vec<String> = link.rates(1).into_iter().map(rate_text).collect();
    let c1_rounds: BTreeSet<u32> = link
        .rows()
        .filter(|r| r.http.concurrency == 1)
        .map(|r| r.http.round)
        .collect();
    let note = link.files.iter().find_map(|f| f.note.clone()).unwrap_or_default();
    let src = sizes(d, link);
    let _ = writeln!(
        o,
        "\n### Off loopback: gzip's break-even measured on a rate-limited link (`link.csv`)\n\n\
Its own run (`make bench-link`), {}: {note}. Rates {} Mbit/s, {} paired rounds at c=1; failed requests in every link file: {}. \
Measured: per round, gzip's p50 minus the raw p50 at each rate, the zero crossing interpolated in 1/rate between the two rates that bracket it; \
the median over rounds with its interval (order statistics; a round where gzip pays at every rate counts as above the sweep). \
Computed: bytes saved × 8 ÷ (compress + gunzip CPU), {}. \"measured ÷ computed\" where the computed median is outside the measured interval.\n",
        describe(link),
        rates.join(", "),
        c1_rounds.len(),
        link.errors(),
        src.as_ref().map_or("no sizes file".to_string(), |s| s.1.clone())
    );
    o.push_str("| products | format | gzip -1 measured, Mbit/s | computed | measured ÷ computed | gzip -6 measured, Mbit/s | computed | measured ÷ computed |\n|---|---|---|---|---|---|---|---|\n");
    let sizes_rows = src.as_ref().map(|s| s.0);
    for count in COUNTS {
        if !link.rows().any(|r| r.http.count == count && r.http.concurrency == 1) {
            continue;
        }
        for f in formats() {
            let cells: Vec<String> = LEVELS
                .iter()
                .flat_map(|&l| pair(link, sizes_rows, f, count, l))
                .collect();
            let _ = writeln!(o, "| {} | {f} | {} |", group(count as i64), cells.join(" | "));
        }
    }
    explain(o, link, sizes_rows);
}

/// JSON at 1,000 products, gzip -6: the sweep's CPU and saving terms
/// against the arithmetic's, and what a gap in each means.
fn explain(o: &mut String, link: &Link, sizes: Option<&[SizeRow]>) {
    let Some(r) = sizes.and_then(|s| s.iter().find(|r| r.format == "json" && r.count == 1000)) else {
        return;
    };
    let Some((a, b)) = link::fit(link, "json", 1000, "gzip") else {
        return;
    };
    let kind = gzip_time_kind(sizes.unwrap_or_default());
    let (_, saved, srv, gunzip) = gzip_levels(r, kind)[1];
    let cpu_ms = (srv + gunzip.unwrap_or(0.0)) / 1e3;
    let saved_kbit = saved * 8.0 / 1e3;
    let (ra, rb) = (a / cpu_ms, b / saved_kbit);
    let mut why = Vec::new();
    if ra > 1.2 {
        why.push(format!(
            "gzip adds {ra:.1}× the CPU time `sizes` measured on one idle thread to each request's latency (here server and client share the machine's cores with whatever else runs)"
        ));
    } else if ra < 0.8 {
        why.push(format!("gzip adds only {ra:.1}× the CPU time `sizes` measured"));
    }
    if rb > 1.1 {
        why.push(format!(
            "each byte saved saves {rb:.2}× the link time bytes × 8 ÷ rate gives: TCP/IP and Ethernet headers add about 5% at full frames, the rest is TCP's window and slow start, which the arithmetic leaves out"
        ));
    } else if rb < 0.9 {
        why.push(format!(
            "each byte saved saves only {rb:.2}× the link time bytes × 8 ÷ rate gives (part of the transfer overlaps with the server's work)"
        ));
    }
    let _ = writeln!(
        o,
        "\nThe sweep's own terms for JSON at 1,000 products, gzip -6 (median over rounds of a least-squares fit of gzip − raw = a − b ÷ rate): a = {} ms against {} ms of compress + gunzip CPU; b = {} kbit of link time saved against {} kbit of body bytes saved; break-even = b ÷ a = {} Mbit/s. {}",
        num(a),
        num(cpu_ms),
        num(b),
        num(saved_kbit),
        if a > 0.0 { num(b / a) } else { "n/a".into() },
        if why.is_empty() {
            "Both terms are within 20% / 10% of the arithmetic's.".to_string()
        } else {
            format!("So {}.", why.join("; and "))
        }
    );
}

/// Median p50 (c=1) or requests/s (c=8) of one link case over its rounds.
fn median_of(link: &Link, rate: f64, count: usize, format: &str, comp: &str, c: u32, rps: bool) -> Option<f64> {
    let v: Vec<f64> = link
        .at(rate, count, comp, c)
        .iter()
        .filter(|r| r.format == format)
        .map(|r| if rps { r.rps } else { r.p50_ms })
        .collect();
    crate::measure::stats::median(&v)
}

/// `DETAILS.md`: every link case's medians over its rounds.
pub fn details(o: &mut String, d: &Data) {
    let Some(link) = &d.link else { return };
    let files: Vec<String> = link
        .files
        .iter()
        .map(|f| format!("`{}` ({} rows)", f.name, f.rows.len()))
        .collect();
    let _ = writeln!(
        o,
        "\n## Off loopback: every link case ({})\n\nIts own run, {}. Medians over rounds: c=1 p50 latency (ms) and c=8 requests/s, per compression.\n",
        files.join(", "),
        describe(link)
    );
    o.push_str("| Mbit/s | products | format | c=1 p50 none | gzip -1 | gzip -6 | c=8 req/s none | gzip -1 | gzip -6 |\n|---|---|---|---|---|---|---|---|---|\n");
    let mut rates: Vec<f64> = link.rows().map(|r| r.rate_mbps).collect();
    rates.sort_by(f64::total_cmp);
    rates.dedup();
    let counts: BTreeSet<usize> = link.rows().map(|r| r.http.count).collect();
    for &rate in &rates {
        for &count in &counts {
            for f in formats() {
                let cells: Vec<String> = [(1, false), (8, true)]
                    .iter()
                    .flat_map(|&(c, rps)| {
                        ["none", "gzip1", "gzip"].map(|comp| opt(median_of(link, rate, count, f, comp, c, rps)))
                    })
                    .collect();
                let _ = writeln!(
                    o,
                    "| {} | {} | {f} | {} |",
                    rate_text(rate),
                    group(count as i64),
                    cells.join(" | ")
                );
            }
        }
    }
}

/// `chart-link.svg`: c=1 p50 at 1,000 products against the link rate, raw
/// and gzip -6 per format, with each median's 95% interval over rounds.
pub fn chart(d: &Data) -> Option<(String, String)> {
    let link = d.link.as_ref()?;
    let rates = link.rates(1);
    if rates.is_empty() {
        return None;
    }
    let mut series = Vec::new();
    let mut errors = Vec::new();
    for f in formats() {
        for (comp, label) in [("none", "raw"), ("gzip", "gzip -6")] {
            let per_rate: Vec<Vec<f64>> = rates
                .iter()
                .map(|&r| {
                    link.at(r, 1000, comp, 1)
                        .iter()
                        .filter(|x| x.format == f)
                        .map(|x| x.p50_ms)
                        .collect()
                })
                .collect();
            if per_rate.iter().all(Vec::is_empty) {
                continue;
            }
            series.push(Series::new(
                format!("{f} {label}"),
                per_rate.iter().map(|v| crate::measure::stats::median(v)).collect(),
            ));
            errors.push(per_rate.iter().map(|v| sig::ci95(v)).collect());
        }
    }
    if series.is_empty() {
        return None;
    }
    Some((
        "chart-link.svg".into(),
        svg::lines(
            "c=1 latency against link rate, 1,000 products (median of rounds' p50, 95% interval)",
            "link rate, Mbit/s (log scale)",
            "ms",
            &rates,
            &series,
            true,
            &errors,
        ),
    ))
}
