//! Output: one CSV row per (round, format, count), a wrk-like human summary, and
//! histogram files.
//!
//! CSV columns ([`crate::measure::results::HTTP_HEADER`]): `duration_s` is the measured elapsed time of the
//! run; `requests` counts verified responses only; `rps` = requests / duration_s;
//! `bytes_per_s` = wire bytes of verified responses / duration_s; the latency
//! columns are nearest-rank percentiles of the run's histogram in milliseconds
//! (closed loop: service time; open loop: from the intended send time); `err_*`
//! count failures by kind. In `--url` mode `format` is `url` and `count` is 0.

use super::FailureKind;
use super::round::RoundStats;
use crate::measure::histogram::Histogram;
use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Identifies one run in CSV rows and histogram files.
#[derive(Clone, Debug)]
pub struct RunLabel {
    pub round: usize,
    /// A format name, or `url`.
    pub format: String,
    pub count: usize,
    /// `none` or `gzip`.
    pub compression: String,
    pub concurrency: usize,
}

fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

/// One CSV row (no trailing newline) in [`crate::measure::results::HTTP_HEADER`] order.
pub fn csv_row(label: &RunLabel, st: &RoundStats) -> String {
    let h = &st.latency;
    let q = |p: f64| ms(h.value_at_quantile(p));
    let mut row = format!(
        "{},{},{},{},{},{:.3},{},{:.1},{:.0},{:.3},{:.3},{:.3},{:.3},{:.3},{:.3}",
        label.round,
        label.format,
        label.count,
        label.compression,
        label.concurrency,
        st.elapsed.as_secs_f64(),
        st.requests,
        st.rps(),
        st.bytes_per_s(),
        q(0.50),
        q(0.90),
        q(0.95),
        q(0.99),
        q(0.999),
        ms(h.max()),
    );
    for kind in FailureKind::ALL {
        let _ = write!(row, ",{}", st.errors.get(kind));
    }
    row
}

/// `{format}-{count}-{compression}-r{round}.hist` (and `….service-hist` for the
/// open loop's service times, so `*.hist` globs only see the headline latency).
pub fn histogram_path(dir: &Path, label: &RunLabel, service: bool) -> PathBuf {
    let ext = if service { "service-hist" } else { "hist" };
    dir.join(format!(
        "{}-{}-{}-r{}.{ext}",
        label.format, label.count, label.compression, label.round
    ))
}

/// Writes `h` with `#` metadata lines naming the run.
pub fn write_histogram(path: &Path, label: &RunLabel, what: &str, h: &Histogram) -> io::Result<()> {
    let mut out = io::BufWriter::new(std::fs::File::create(path)?);
    writeln!(out, "# wirebench latency histogram ({what})")?;
    writeln!(out, "# format={}", label.format)?;
    writeln!(out, "# count={} (products per response)", label.count)?;
    writeln!(out, "# compression={}", label.compression)?;
    writeln!(out, "# round={}", label.round)?;
    writeln!(out, "# concurrency={}", label.concurrency)?;
    writeln!(out, "# unit=ns")?;
    h.write_text(&mut out)?;
    out.flush()
}

/// A duration in ns as wrk prints it: `812.00us`, `1.23ms`, `2.00s`.
pub fn human_ns(ns: u64) -> String {
    let v = ns as f64;
    if v < 1e3 {
        format!("{ns}ns")
    } else if v < 1e6 {
        format!("{:.2}us", v / 1e3)
    } else if v < 1e9 {
        format!("{:.2}ms", v / 1e6)
    } else {
        format!("{:.2}s", v / 1e9)
    }
}

/// Bytes as wrk prints them: `512.00B`, `1.50KB`, `3.20MB` (1024-based).
pub fn human_bytes(b: f64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let (mut v, mut u) = (b, 0);
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    format!("{v:.2}{}", UNITS[u])
}

/// The wrk-like summary of one run.
pub fn human(url: &str, label: &RunLabel, mode: &str, st: &RoundStats) -> String {
    let h = &st.latency;
    let mut s = String::new();
    let _ = writeln!(s, "Running {:.2}s test @ {url}", st.elapsed.as_secs_f64());
    let _ = writeln!(s, "  {} connections, {mode}", label.concurrency);
    let _ = writeln!(
        s,
        "  Latency   avg {:>10}   max {:>10}",
        human_ns(h.mean() as u64),
        human_ns(h.max())
    );
    let _ = writeln!(s, "  Latency Distribution (nearest rank)");
    for (name, q) in [
        ("50%", 0.5),
        ("75%", 0.75),
        ("90%", 0.9),
        ("99%", 0.99),
        ("99.9%", 0.999),
    ] {
        let svc = st
            .service
            .as_ref()
            .map(|sv| format!("   service {:>10}", human_ns(sv.value_at_quantile(q))))
            .unwrap_or_default();
        let _ = writeln!(s, "  {name:>7} {:>10}{svc}", human_ns(h.value_at_quantile(q)));
    }
    if st.service.is_some() {
        let _ = writeln!(
            s,
            "  Open loop: {} scheduled, {} sent late (>1ms), {} not sent",
            st.scheduled, st.late, st.unsent
        );
    }
    let _ = writeln!(
        s,
        "  {} verified requests in {:.2}s, {} read",
        st.requests,
        st.elapsed.as_secs_f64(),
        human_bytes(st.bytes as f64)
    );
    let errors = st.errors.total();
    let _ = write!(s, "  Errors: {errors}");
    if errors > 0 {
        let parts: Vec<String> = FailureKind::ALL
            .iter()
            .filter(|k| st.errors.get(**k) > 0)
            .map(|k| format!("{} {}", k.name(), st.errors.get(*k)))
            .collect();
        let _ = write!(s, " ({})", parts.join(", "));
    }
    let _ = writeln!(s);
    let _ = writeln!(s, "Requests/sec: {:>10.2}", st.rps());
    let _ = writeln!(s, "Transfer/sec: {:>10}", human_bytes(st.bytes_per_s()));
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn csv_row_matches_header() {
        let mut st = RoundStats::default();
        for v in 1..=100u64 {
            st.latency.record(v * 1_000_000);
        }
        st.requests = 100;
        st.bytes = 1000;
        st.elapsed = Duration::from_secs(2);
        st.errors.add(FailureKind::Timeout);
        let label = RunLabel {
            round: 3,
            format: "json".into(),
            count: 100,
            compression: "gzip".into(),
            concurrency: 8,
        };
        let row = csv_row(&label, &st);
        assert_eq!(
            row.split(',').count(),
            crate::measure::results::HTTP_HEADER.split(',').count()
        );
        // p50 of 1..=100 ms is 50 ms; buckets above 256 ns are ≤ 0.4% wide.
        let cols: Vec<&str> = row.split(',').collect();
        assert_eq!(
            &cols[..9],
            ["3", "json", "100", "gzip", "8", "2.000", "100", "50.0", "500"]
        );
        let p50: f64 = cols[9].parse().unwrap();
        assert!((p50 - 50.0).abs() < 0.5, "{p50}");
        assert_eq!(cols[14], "100.000");
        assert_eq!(&cols[15..], ["0", "0", "0", "1", "0", "0", "0"]);
    }

    #[test]
    fn human_units() {
        assert_eq!(human_ns(812), "812ns");
        assert_eq!(human_ns(812_000), "812.00us");
        assert_eq!(human_ns(1_234_000), "1.23ms");
        assert_eq!(human_bytes(1536.0), "1.50KB");
    }
}
