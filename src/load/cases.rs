//! The plan of a `wirebench load` invocation: which runs, in which order, and
//! where their numbers go.
//!
//! Catalog mode (no `--url`): the fixture is prepared first (`--fixture FILE` or
//! the deterministic catalog), then the server is started in this process on
//! `127.0.0.1:0`. Each round runs the counts in ascending order, and for each
//! count every format back to back, so the runs a paired comparison sets side
//! by side (two formats, one count, one round) are neighbours in time. The
//! format order rotates — round `r` starts at format `(seed + r - 1) mod n` —
//! so each format takes each position equally often over `n` rounds. Every run
//! is preceded by `--warmup` sequential requests on one extra connection; the
//! first warm-up response of every run is compared field by field with the
//! fixture. Warm-up failures (and a fixture difference, as `mismatch`) are added
//! to that run's error columns and explained on stderr; warm-up successes are not
//! counted. Before every run, with no request in flight, the calibration
//! workload is timed (`crate::measure::calibration`) and written as a
//! `# calibration:` comment line before that run's row.
//!
//! `--url` mode: one target, `--rounds` runs (default 1), a wrk-like summary on
//! stdout per run; CSV rows only with `--output FILE`.
//!
//! Note: the in-process server shares the machine (and its cores) with the load
//! threads. For server-only numbers, run `wirebench serve` pinned to its own core
//! and point `--url` at it.

use super::closed;
use super::config::{Compression, Config};
use super::failure::{Errors, FailureKind};
use super::round::RoundStats;
use super::summary::{self, RunLabel};
use super::verify::{self, Check, Target};
use super::{client, open};
use crate::codec::Format;
use crate::model::Product;
use crate::payload::Payload;
use std::fs;
use std::io::{self, Write};
use std::net::SocketAddr;

/// Runs everything `config` asks for; returns how many requests failed
/// (warm-up included) over all runs.
pub fn run(config: &Config) -> Result<u64, String> {
    if let Some(dir) = &config.histograms {
        fs::create_dir_all(dir).map_err(|e| format!("--histograms {}: {e}", dir.display()))?;
    }
    let mut csv: Box<dyn Write> = match &config.output {
        Some(p) => Box::new(io::BufWriter::new(
            fs::File::create(p).map_err(|e| format!("--output {}: {e}", p.display()))?,
        )),
        None if config.url.is_some() => Box::new(io::sink()),
        None => Box::new(io::stdout()),
    };
    let csv_err = |e: io::Error| format!("writing CSV: {e}");
    write!(csv, "{}", config.run.header("# ")).map_err(csv_err)?;
    writeln!(csv, "{}", crate::measure::results::HTTP_HEADER).map_err(csv_err)?;
    let failed = match &config.url {
        Some(url) => run_url(config, url, &mut csv)?,
        None => run_catalog(config, &mut csv)?,
    };
    write!(csv, "{}", crate::measure::run::RunStamp::footer("# ")).map_err(csv_err)?;
    csv.flush().map_err(csv_err)?;
    Ok(failed)
}

/// One measured run (closed or open loop, per `config.rate`).
fn measure(config: &Config, target: &Target) -> Result<RoundStats, String> {
    match config.rate {
        Some(rate) if config.threads > 0 => {
            super::mux::run_open(target, config.concurrency, config.threads, config.duration, rate)
        }
        Some(rate) => open::run(target, config.concurrency, config.duration, rate),
        None if config.threads > 0 => super::mux::run(target, config.concurrency, config.threads, config.duration),
        None => closed::run_bounded(
            target,
            config.concurrency,
            &closed::Bound {
                duration: config.duration,
                min_requests: config.min_requests,
                max_duration: config.max_duration,
            },
        ),
    }
}

fn mode(config: &Config) -> String {
    match config.rate {
        Some(r) if config.threads > 0 => format!("open loop at {r} requests/s, {} polling threads", config.threads),
        Some(r) => format!("open loop at {r} requests/s, one thread per connection"),
        None if config.threads > 0 => format!("closed loop, {} polling threads", config.threads),
        None => "closed loop, one thread per connection".to_string(),
    }
}

/// Writes the CSV row and the histogram files of one run.
fn record(config: &Config, csv: &mut dyn Write, label: &RunLabel, st: &RoundStats) -> Result<(), String> {
    writeln!(csv, "{}", summary::csv_row(label, st)).map_err(|e| format!("writing CSV: {e}"))?;
    csv.flush().map_err(|e| format!("writing CSV: {e}"))?;
    if let Some(dir) = &config.histograms {
        let what = if config.rate.is_some() {
            "open loop, from the intended send time"
        } else {
            "closed loop, service time"
        };
        summary::write_histograms(dir, &config.run, label, what, st)?;
    }
    Ok(())
}

/// `--warmup` sequential requests on one connection. The first response
/// that passes, and the first that fails, are compared with the payload
/// ([`Check::difference`]: a catalog field by field, a document by its
/// JSON); returns the failures and that first difference, if any (a
/// passing first response that differs counts as a mismatch).
pub fn warm_up(target: &Target, n: usize) -> (Errors, Option<String>) {
    let mut errors = Errors::default();
    let mut difference = None;
    let mut client = client::Client::new(target.addr, target.timeout);
    for i in 0..n {
        match client.send(&target.request) {
            Ok(resp) => {
                let verdict = target.check.verify(&resp);
                if let Err(kind) = verdict {
                    errors.add(kind);
                }
                if difference.is_none() && (i == 0 || verdict.is_err()) {
                    difference = target.check.difference(&resp);
                    if verdict.is_ok() && difference.is_some() {
                        errors.add(FailureKind::Mismatch);
                    }
                }
            }
            Err(kind) => errors.add(kind),
        }
    }
    (errors, difference)
}

fn run_url(config: &Config, url: &str, csv: &mut dyn Write) -> Result<u64, String> {
    let check = match (&config.data, config.verify_format) {
        (Some(data), verify) => verify::document_check(
            url,
            &data.to_string_lossy(),
            config.schema.as_deref().map(|p| p.to_string_lossy()).as_deref(),
            verify,
            config.timeout,
        )?,
        (None, Some(format)) => Check::Decode {
            format,
            expect_count: config.expect_count,
            decoder: config.verify,
        },
        (None, None) => Check::Status200,
    };
    let mut target = Target::from_url(url, check, config.timeout)?;
    let mut failed = 0;
    if let Some(pid) = config.server_pid {
        let tree = crate::measure::cpu::process_tree(pid).map_err(|e| format!("--server-pid: {e}"))?;
        eprintln!(
            "load: server CPU from process {pid} and its descendants (now {} processes)",
            tree.len()
        );
        target.server_pid = Some(pid);
    }
    for round in 1..=config.rounds {
        let (warm_errors, difference) = warm_up(&target, config.warmup);
        if let Some(d) = difference {
            eprintln!("load: {url}: {d}");
        }
        let mut st = measure(config, &target)?;
        st.errors.add_all(&warm_errors);
        let label = RunLabel {
            round,
            format: "url".into(),
            count: 0,
            compression: config.compression.name().into(),
            concurrency: config.concurrency,
            verify: match (&target.check, config.verify_format) {
                (Check::Payload { format, .. }, _) => format!("data:{}", format.name()),
                (_, Some(f)) => format!("{}:{}", f.name(), config.verify.name()),
                (_, None) => "status".into(),
            },
        };
        match config.output_format {
            super::config::OutputFormat::Text => print!("{}", summary::human(url, &label, &mode(config), &st)),
            super::config::OutputFormat::Json => println!("{}", summary::json(url, &label, &mode(config), &st)),
        }
        failed += st.errors.total();
        record(config, csv, &label, &st)?;
    }
    Ok(failed)
}

/// `items` rotated left by `by` (mod their number): over `len` consecutive
/// values of `by`, each item takes each position once.
pub fn rotated<T: Copy>(items: &[T], by: u64) -> Vec<T> {
    let k = (by % items.len().max(1) as u64) as usize;
    items[k..].iter().chain(&items[..k]).copied().collect()
}

/// Formats of round `round` (1-based): `formats` rotated left by `(seed + round - 1) mod n`.
pub fn round_order(formats: &[Format], seed: u64, round: usize) -> Vec<Format> {
    rotated(formats, seed.wrapping_add(round as u64 - 1))
}

/// The path of one catalog case.
pub fn catalog_path(format: Format, count: usize, compression: Compression) -> String {
    format!(
        "/catalog/{}?count={count}&compression={}",
        format.name(),
        compression.name()
    )
}

fn run_catalog(config: &Config, csv: &mut dyn Write) -> Result<u64, String> {
    let max_count = config.counts.iter().copied().max().unwrap_or(1);
    let catalog = match &config.fixture {
        Some(path) => crate::fixtures::load_file(path)?,
        None => crate::fixtures::catalog(max_count),
    };
    if catalog.products.len() < max_count {
        return Err(format!(
            "--counts asks for {max_count} products but the fixture has {}",
            catalog.products.len()
        ));
    }
    if let Some(addr) = config.server_addr {
        eprintln!("bench: server at {addr} (external), {}", mode(config));
        return run_cases(config, csv, addr, &catalog.products);
    }
    let server = start_server(config, max_count)?;
    let addr = server.local_addr();
    eprintln!("bench: in-process server on {addr}, {}", mode(config));
    let result = run_cases(config, csv, addr, &catalog.products);
    server.shutdown();
    result
}

/// Every case and round of catalog mode against the catalog server at `addr`
/// (normally the in-process one), checking against `products` (the fixture).
/// Returns the number of failed requests. One progress line per case goes to
/// stderr with the elapsed time and an estimate of what is left.
pub fn run_cases(config: &Config, csv: &mut dyn Write, addr: SocketAddr, products: &[Product]) -> Result<u64, String> {
    let host = addr.to_string();
    let payload = Payload::catalog(std::sync::Arc::new(products.to_vec()));
    let mut failed = 0;
    let mut progress =
        crate::measure::progress::Progress::new(config.rounds * config.formats.len() * config.counts.len());
    let mut probe = crate::measure::calibration::Probe::new();
    for round in 1..=config.rounds {
        for &count in &config.counts {
            for format in round_order(&config.formats, config.seed, round) {
                let path = catalog_path(format, count, config.compression);
                // The machine's state before this run, while no request is in flight.
                let sample = probe.sample(round, Some(&format!("{}/{count}", format.name())));
                csv.write_all(sample.line("# ").as_bytes())
                    .map_err(|e| format!("writing CSV: {e}"))?;
                let target = Target {
                    addr,
                    url: format!("http://{host}{path}"),
                    request: client::get_request(&host, &path),
                    check: Check::Payload {
                        payload: payload
                            .with_count(count)
                            .ok_or("the fixture is shorter than --counts")?,
                        format,
                        gzip: Some(config.compression.gzipped()),
                        verify: config.verify,
                    },
                    timeout: config.timeout,
                    server_pid: config.server_pid,
                };
                let (warm_errors, difference) = warm_up(&target, config.warmup);
                if let Some(d) = difference {
                    eprintln!("bench: {} differs from the fixture: {d}", target.url);
                }
                let mut st = measure(config, &target)?;
                st.errors.add_all(&warm_errors);
                let label = RunLabel {
                    round,
                    format: format.name().into(),
                    count,
                    compression: config.compression.name().into(),
                    concurrency: config.concurrency,
                    verify: config.verify.name().into(),
                };
                failed += st.errors.total();
                eprintln!(
                    "{} round {round}/{} {:<11} count={count:<5} {:.0} req/s  p50 {}  p99 {}  max {}  errors {}",
                    progress.step(),
                    config.rounds,
                    format.name(),
                    st.rps(),
                    summary::human_ns(st.latency.value_at_quantile(0.5)),
                    summary::human_ns(st.latency.value_at_quantile(0.99)),
                    summary::human_ns(st.latency.max()),
                    st.errors.total(),
                );
                record(config, csv, &label, &st)?;
            }
        }
    }
    Ok(failed)
}

/// Starts `wirebench serve`'s application on 127.0.0.1:0, after the fixture was prepared,
/// with room for the load connections plus the warm-up connection.
fn start_server(config: &Config, max_count: usize) -> Result<crate::http::server::Server, String> {
    crate::serve::routes::start(&crate::serve::Config {
        server: crate::http::ServerConfig {
            addr: "127.0.0.1:0".into(),
            max_connections: config.concurrency + 16,
            ..Default::default()
        },
        max_count,
        fixture: config.fixture.clone(),
        ..Default::default()
    })
    .map_err(|e| format!("cannot start the in-process server: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_gives_every_format_every_position() {
        let f = Format::ALL;
        let mut first = std::collections::HashSet::new();
        for round in 1..=5 {
            let order = round_order(&f, 1, round);
            assert_eq!(order.len(), 5);
            first.insert(order[0]);
        }
        assert_eq!(first.len(), 5);
        assert_eq!(round_order(&f, 0, 1), f);
        assert_eq!(round_order(&f, 0, 2)[0], Format::Msgpack);
        assert_eq!(rotated(&[1, 2, 3], 1), [2, 3, 1]);
        assert_eq!(rotated(&[1, 2, 3], 3), [1, 2, 3]);
        assert_eq!(rotated::<u8>(&[], 3), Vec::<u8>::new());
    }
}
