//! Output: one CSV row per (round, format, count), a wrk-like human summary, and
//! histogram files (our text form and HdrHistogram interval logs).
//!
//! CSV columns ([`crate::measure::results::HTTP_HEADER`], which says what
//! each holds): `duration_s` is the measured elapsed time of the run;
//! `requests` counts verified responses only; `rps` and `bytes_per_s` divide
//! by `duration_s`; the latency columns are nearest-rank percentiles of the
//! run's histogram in milliseconds (closed loop: service time; open loop:
//! from the intended send time). The CPU columns divide each side's CPU time
//! over the round ([`super::round::RoundCpu`]) by the verified requests. In
//! `--url` mode `format` is `url` and `count` is 0. The file opens with the
//! run stamp as `# key: value` lines and closes with its end lines
//! ([`crate::measure::run`]).

use super::failure::FailureKind;
use super::round::RoundStats;
use crate::measure::histogram::Histogram;
use crate::measure::run::RunStamp;
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
    /// How responses were verified: `borrowed` or `owned` (catalog mode),
    /// `status` (`--url` mode: status 200 and the whole body).
    pub verify: String,
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
    for cell in cpu_cells(st) {
        let _ = write!(row, ",{cell}");
    }
    let _ = write!(row, ",{}", label.verify);
    match st.machine {
        Some(m) => {
            let _ = write!(row, ",{:.3},{:.3}", m.other_cores, m.steal_cores);
        }
        None => row.push_str(",,"),
    }
    row
}

/// The CPU columns of one run: µs per verified request with 2 decimals, user
/// shares with 3; empty when not measured (or no request was verified).
fn cpu_cells(st: &RoundStats) -> [String; 5] {
    let per_req = |ns: u64| format!("{:.2}", ns as f64 / 1e3 / st.requests as f64);
    let share = |s: Option<f64>| s.map_or(String::new(), |s| format!("{s:.3}"));
    match st.cpu {
        Some(cpu) if st.requests > 0 => [
            cpu.server.map_or(String::new(), |s| per_req(s.ns)),
            share(cpu.server.and_then(|s| s.user_share())),
            per_req(cpu.client.ns),
            share(cpu.client.user_share()),
            per_req(cpu.process.ns),
        ],
        _ => Default::default(),
    }
}

/// `{format}-{count}-{compression}-r{round}.{ext}`: `hist` (the headline
/// latency), `service-hist` (the open loop's service times, so `*.hist` globs
/// see only the headline) and `hlog` (both as an HdrHistogram interval log).
pub fn run_path(dir: &Path, label: &RunLabel, ext: &str) -> PathBuf {
    dir.join(format!(
        "{}-{}-{}-r{}.{ext}",
        label.format, label.count, label.compression, label.round
    ))
}

/// Writes one run's histogram files into `dir` ([`run_path`]); `what` says
/// what the latency is.
pub fn write_histograms(
    dir: &Path,
    run: &RunStamp,
    label: &RunLabel,
    what: &str,
    st: &RoundStats,
) -> Result<(), String> {
    let write = |ext: &str, w: &dyn Fn(&Path) -> io::Result<()>| {
        let path = run_path(dir, label, ext);
        w(&path).map_err(|e| format!("{}: {e}", path.display()))
    };
    write("hist", &|p| write_histogram(p, run, label, what, &st.latency))?;
    if let Some(service) = &st.service {
        write("service-hist", &|p| {
            write_histogram(p, run, label, "open loop, service time", service)
        })?;
    }
    write("hlog", &|p| write_hlog(p, run, label, what, st))
}

/// Writes `h` with `#` metadata lines naming the run (its stamp first,
/// [`crate::measure::run`]).
fn write_histogram(path: &Path, run: &RunStamp, label: &RunLabel, what: &str, h: &Histogram) -> io::Result<()> {
    let mut out = io::BufWriter::new(std::fs::File::create(path)?);
    write!(out, "{}", run.header("# "))?;
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

/// Writes the run as an HdrHistogram interval log ([`crate::measure::hlog`]):
/// one interval tagged `latency` (what `what` says) and, for the open loop,
/// one tagged `service`. The start time is the run's start on the wall clock
/// (now minus the elapsed time, to the millisecond). The run stamp comes
/// first, as comment lines `#run: ID`, `#commit: …`, `#start: …`, `#load: …`.
fn write_hlog(path: &Path, run: &RunStamp, label: &RunLabel, what: &str, st: &RoundStats) -> io::Result<()> {
    use crate::measure::hlog::{WriteInterval, write_log};
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let start = now.saturating_sub(st.elapsed).as_secs_f64();
    let length_s = st.elapsed.as_secs_f64();
    let mut intervals = vec![WriteInterval {
        tag: "latency",
        start_s: 0.0,
        length_s,
        histogram: &st.latency,
    }];
    if let Some(service) = &st.service {
        intervals.push(WriteInterval {
            tag: "service",
            start_s: 0.0,
            length_s,
            histogram: service,
        });
    }
    let mut comments = run.lines();
    comments.extend([
        format!(
            "wirebench load: format={} count={} compression={} round={} concurrency={}",
            label.format, label.count, label.compression, label.round, label.concurrency
        ),
        format!("values in ns; Tag=latency: {what}; Tag=service: open loop service time"),
    ]);
    std::fs::write(path, write_log(&comments, start, &intervals))
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

/// The quantiles of the summaries: the text's name, the JSON key, q.
const QUANTILES: [(&str, &str, f64); 5] = [
    ("50%", "p50", 0.5),
    ("75%", "p75", 0.75),
    ("90%", "p90", 0.9),
    ("99%", "p99", 0.99),
    ("99.9%", "p99_9", 0.999),
];

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
    for (name, _, q) in QUANTILES {
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
    if let Some(cpu) = st.cpu.filter(|_| st.requests > 0) {
        let per_req = |ns: u64| ns as f64 / 1e3 / st.requests as f64;
        let user = |t: crate::measure::cpu::CpuTime| {
            t.user_share()
                .map_or(String::new(), |u| format!(" ({:.0}% user)", u * 100.0))
        };
        let server = cpu.server.map_or("not measured (--server-pid PID)".to_string(), |t| {
            format!("{:.2}us{}", per_req(t.ns), user(t))
        });
        let _ = writeln!(
            s,
            "  CPU per request: server {server}, client {:.2}us{}, this process {:.2}us",
            per_req(cpu.client.ns),
            user(cpu.client),
            per_req(cpu.process.ns)
        );
    }
    let _ = writeln!(s, "Requests/sec: {:>10.2}", st.rps());
    let _ = writeln!(s, "Transfer/sec: {:>10}", human_bytes(st.bytes_per_s()));
    s
}

/// The figures of [`human`] as one JSON object on one line (durations in
/// ns, rates per second, byte counts in bytes).
pub fn json(url: &str, label: &RunLabel, mode: &str, st: &RoundStats) -> String {
    use crate::measure::json::{number, quote};
    let latency = |h: &Histogram, with_mean: bool| {
        let mut s = String::from("{");
        if with_mean {
            let _ = write!(s, "\"mean\":{},\"max\":{},", number(h.mean().round()), h.max());
        }
        let parts: Vec<String> = QUANTILES
            .iter()
            .map(|(_, key, q)| format!("\"{key}\":{}", h.value_at_quantile(*q)))
            .collect();
        s.push_str(&parts.join(","));
        s.push('}');
        s
    };
    let mut errors = format!("{{\"total\":{}", st.errors.total());
    for kind in FailureKind::ALL {
        let _ = write!(errors, ",\"{}\":{}", kind.name(), st.errors.get(kind));
    }
    errors.push('}');
    let open_loop = if st.service.is_some() {
        format!(
            "{{\"scheduled\":{},\"late\":{},\"unsent\":{}}}",
            st.scheduled, st.late, st.unsent
        )
    } else {
        "null".to_string()
    };
    format!(
        "{{\"url\":{},\"round\":{},\"duration_s\":{},\"connections\":{},\"mode\":{},\"latency_ns\":{},\"service_ns\":{},\"open_loop\":{},\"requests\":{},\"bytes\":{},\"errors\":{errors},\"requests_per_s\":{},\"bytes_per_s\":{}}}",
        quote(url),
        label.round,
        number(st.elapsed.as_secs_f64()),
        label.concurrency,
        quote(mode),
        latency(&st.latency, true),
        st.service.as_ref().map_or("null".to_string(), |h| latency(h, false)),
        open_loop,
        st.requests,
        st.bytes,
        number((st.rps() * 100.0).round() / 100.0),
        number(st.bytes_per_s().round()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::round::RoundCpu;
    use crate::measure::cpu::CpuTime;
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
            verify: "borrowed".into(),
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
        assert_eq!(&cols[15..22], ["0", "0", "0", "1", "0", "0", "0"]);
        assert_eq!(&cols[22..], ["", "", "", "", "", "borrowed", "", ""], "no CPU measured");
        st.cpu = Some(RoundCpu {
            server: Some(CpuTime {
                ns: 25_000_000,
                user_ticks: 3,
                system_ticks: 1,
            }),
            client: CpuTime {
                ns: 50_000_000,
                user_ticks: 5,
                system_ticks: 0,
            },
            process: CpuTime::from_ticks(8, 1, 100),
            server_in_process: true,
        });
        st.machine = Some(crate::measure::machine::MachineLoad {
            other_cores: 0.125,
            steal_cores: 0.0,
        });
        let row = csv_row(&label, &st);
        let cols: Vec<&str> = row.split(',').collect();
        assert_eq!(
            &cols[22..],
            [
                "250.00", "0.750", "500.00", "1.000", "900.00", "borrowed", "0.125", "0.000"
            ]
        );
    }

    #[test]
    fn human_units() {
        assert_eq!(human_ns(812), "812ns");
        assert_eq!(human_ns(812_000), "812.00us");
        assert_eq!(human_ns(1_234_000), "1.23ms");
        assert_eq!(human_bytes(1536.0), "1.50KB");
    }
}
