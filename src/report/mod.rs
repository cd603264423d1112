//! `wirebench report`: turns the raw result files into `REPORT.md`,
//! `medians.json` and SVG charts, in the same directory (`--dir`, required).
//!
//! Inputs ([`parse`] gives their shapes): `codec.txt`, `sizes.csv`,
//! `http*.csv` ([`HTTP_FILES`]), `data-codec.txt` and `data-sizes.csv` (a
//! user's document, a second [`Payload`] filling the same tables), the
//! separate runs `peers.txt`, `peers-instructions.md`, `server-pressure.txt`
//! and `link*.csv` ([`link`]), `histograms/*.hist` (or `*.hlog` for rounds
//! without one) and `environment.json` (if missing, the report captures
//! one now and says so). A missing input is named in the report; a malformed one stops
//! it with an error naming the file and line. One report is one run:
//! [`load_checked`] refuses mixed run ids ([`runs`]) unless `--allow-mixed`.
//!
//! Layout: [`inputs`] reads and aggregates, [`decision`] and [`verdict`]
//! write the top of REPORT.md, [`markdown`] the rest and DETAILS.md, [`svg`]
//! the charts. Every row is the **median across runs/rounds** with its
//! **min–max spread**; every count gets its table. The HTTP p95 per case is
//! the median of the rounds' p95s; the *pooled* p95/p99 are the nearest rank
//! of the rounds' histograms merged by adding counts (bucket midpoint).

pub mod decision;
pub mod hlogs;
pub mod inputs;
pub mod link;
pub mod link_report;
pub mod markdown;
pub mod numfmt;
pub mod parse;
pub mod runs;
pub mod svg;
pub mod verdict;

use crate::cli::Args;
pub use inputs::{
    CodecStat, Data, HTTP_FILES, HttpCpuStat, HttpFile, HttpStat, Payload, Spread, codec_stats, format_rank,
    http_stats, load, load_checked, medians_json,
};
use std::path::{Path, PathBuf};

const USAGE: &str = "\
wirebench report --dir DIR [--allow-mixed] [--link-mbps N]
  reads DIR/{codec.txt,sizes.csv,http.csv,http-gzip.csv} (+ the other http-*.csv,
  peers.txt, peers-instructions.md, server-pressure.txt, link*.csv, histograms/,
  environment.json when present) and writes DIR/REPORT.md, DIR/medians.json, DIR/*.svg (and
  DIR/environment.json if missing)
  --allow-mixed   accept raw files from different runs (every table names its run);
                  without it, files from different runs are refused, naming them
  --link-mbps N   say, for a link of N Mbit/s, which gzip level pays
wirebench report --clear-run DIR
  removes the files of a `make bench` run from DIR (raw files, histograms, the report
  and its charts), keeping separate runs (peers*.txt, server-pressure*.txt, link*.csv, notes):
  the first step of `make bench`, so the new run's directory holds that run only
wirebench report --hlogs DIR|FILE,FILE [--run-id ID] [--locust-csv FILE] [--out FILE]
  merges the .hlog files of several machines (one run: --run-id or WB_RUN_ID) by tag into
  one percentile table, beside Locust's figures from a stats CSV in Locust's layout
  (locustfile.py --wb-stats FILE, or Locust's own --csv PREFIX_stats.csv)
";

/// `wirebench report`.
pub fn cli_main(args: &mut Args) -> Result<(), String> {
    if args.switch("--help") {
        print!("{USAGE}");
        return Ok(());
    }
    if let Some(spec) = args.value("--hlogs")? {
        return hlogs::cli_main(&spec, args);
    }
    if let Some(dir) = args.value("--clear-run")? {
        args.finish()?;
        let removed = runs::clear(Path::new(&dir))?;
        eprintln!(
            "report: --clear-run removed {} files of an earlier run from {dir} (separate runs such as peers.txt and server-pressure*.txt stay)",
            removed.len()
        );
        return Ok(());
    }
    let dir = PathBuf::from(args.value("--dir")?.ok_or(
        "report: --dir DIR is required (the run's directory, e.g. --dir results; the report is written there)",
    )?);
    let options = Options {
        allow_mixed: args.switch("--allow-mixed"),
        link_mbps: args.parse("--link-mbps")?,
    };
    args.finish()?;
    if options.link_mbps.is_some_and(|m: f64| !(m > 0.0 && m.is_finite())) {
        return Err("--link-mbps: expected a positive number".into());
    }
    let written = write_report_with(&dir, &options)?;
    for w in &written {
        eprintln!("report: wrote {}", w.display());
    }
    Ok(())
}

/// What `wirebench report` was asked beyond the directory.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Options {
    /// `--allow-mixed`: accept files from different runs.
    pub allow_mixed: bool,
    /// `--link-mbps N`: the link the gzip verdict is for.
    pub link_mbps: Option<f64>,
}

/// [`write_report_with`] with the default options (one run only).
pub fn write_report(dir: &Path) -> Result<Vec<PathBuf>, String> {
    write_report_with(dir, &Options::default())
}

/// Reads `dir`, writes every output into it, returns the paths written.
pub fn write_report_with(dir: &Path, options: &Options) -> Result<Vec<PathBuf>, String> {
    let mut d = load_checked(dir, options.allow_mixed)?;
    d.link_mbps = options.link_mbps;
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
    put("DETAILS.md", &markdown::render_details(&d, &names))?;
    Ok(written)
}
