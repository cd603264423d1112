//! Flags of `wirebench load` and their defaults, parsed into a [`Config`].

use crate::cli::{Args, parse_duration};
use crate::codec::Format;
use std::path::PathBuf;
use std::time::Duration;

/// `wirebench load --help`.
pub const USAGE: &str = "\
wirebench load — HTTP load generator (closed loop; open loop with --rate)

Without --url: starts the catalog server in this process on 127.0.0.1:0 and runs
every case (format x count) --rounds times, format order rotated between rounds.
Raw per-round rows go to stdout as CSV (or --output FILE), progress to stderr.

FLAGS (both --flag value and --flag=value):
  --formats LIST       json,msgpack,protobuf,avro,flatbuffers (default: all)
  --counts LIST        products per response (default: 1,100,1000)
  --rounds N           measured runs per case (default: 5; 1 with --url)
  --duration D         per run, e.g. 300ms, 1s, 10s (default: 1s)
  --concurrency C      connections (default: 8)
  --threads N          0 = one blocking thread per connection
                       (default without --url); N > 0 = N polling threads,
                       each driving C/N non-blocking connections, busy-polling
                       its core (default with --url: the cores we may run on)
  --compression C      none | gzip (default: none)
  --warmup N           warm-up requests before every run (default: 20)
  --rate R             open loop: R requests/s from a fixed schedule
  --timeout D          connect/read/write timeout (default: 5s)
  --seed N             seeds the format order rotation (default: 1)
  --url URL            any http:// server and path; 200 + whole body = success;
                       prints a wrk-like summary
  --histograms DIR     also write each run's latency histogram to DIR
  --fixture FILE       catalog JSON for the in-process server and the checks
  --output FILE        write the CSV there instead of stdout
";

/// `none` or `gzip`, asked through the query string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    Gzip,
}

impl Compression {
    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
        }
    }
}

/// Everything `wirebench load` was asked to do.
#[derive(Clone, Debug)]
pub struct Config {
    pub formats: Vec<Format>,
    pub counts: Vec<usize>,
    pub rounds: usize,
    pub duration: Duration,
    pub concurrency: usize,
    /// 0: one blocking thread per connection; N: N polling threads ([`super::mux`]).
    pub threads: usize,
    pub compression: Compression,
    pub warmup: usize,
    pub url: Option<String>,
    pub rate: Option<f64>,
    pub timeout: Duration,
    pub seed: u64,
    pub histograms: Option<PathBuf>,
    pub fixture: Option<PathBuf>,
    pub output: Option<PathBuf>,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            formats: Format::ALL.to_vec(),
            counts: vec![1, 100, 1000],
            rounds: 5,
            duration: Duration::from_secs(1),
            concurrency: 8,
            threads: 0,
            compression: Compression::None,
            warmup: 20,
            url: None,
            rate: None,
            timeout: Duration::from_secs(5),
            seed: 1,
            histograms: None,
            fixture: None,
            output: None,
        }
    }
}

/// The polling threads of `--url` mode by default: the CPUs this process may
/// run on (respects `taskset`), at least 1.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Most connections accepted (one thread each).
pub const MAX_CONCURRENCY: usize = 10_000;

impl Config {
    /// Reads every flag of `wirebench load`; errors name the flag and what is allowed.
    pub fn from_args(args: &mut Args) -> Result<Config, String> {
        let d = Config::default();
        let url = args.value("--url")?;
        let formats = match args.list::<String>("--formats")? {
            None => d.formats,
            Some(names) => names
                .iter()
                .map(|n| {
                    Format::from_name(n).ok_or_else(|| {
                        format!("--formats: unknown format {n:?}; allowed: json, msgpack, protobuf, avro, flatbuffers")
                    })
                })
                .collect::<Result<_, _>>()?,
        };
        let counts: Vec<usize> = args.list("--counts")?.unwrap_or(d.counts);
        if counts.is_empty() || counts.contains(&0) {
            return Err("--counts: each count must be at least 1".into());
        }
        let rounds = args.parse_or("--rounds", if url.is_some() { 1 } else { d.rounds })?;
        let duration = match args.value("--duration")? {
            Some(v) => parse_duration(&v).map_err(|e| format!("--duration: {e}"))?,
            None => d.duration,
        };
        let timeout = match args.value("--timeout")? {
            Some(v) => parse_duration(&v).map_err(|e| format!("--timeout: {e}"))?,
            None => d.timeout,
        };
        let concurrency: usize = args.parse_or("--concurrency", d.concurrency)?;
        if !(1..=MAX_CONCURRENCY).contains(&concurrency) {
            return Err(format!(
                "--concurrency must be 1..={MAX_CONCURRENCY}, found {concurrency}"
            ));
        }
        let compression = match args.value("--compression")?.as_deref() {
            None | Some("none") => Compression::None,
            Some("gzip") => Compression::Gzip,
            Some(other) => return Err(format!("--compression: expected none or gzip, found {other:?}")),
        };
        if rounds == 0 || formats.is_empty() || timeout.is_zero() || duration.is_zero() {
            return Err("--rounds, --formats, --duration and --timeout must be non-empty / non-zero".into());
        }
        Ok(Config {
            formats,
            counts,
            rounds,
            duration,
            concurrency,
            threads: args.parse_or("--threads", if url.is_some() { default_threads() } else { d.threads })?,
            compression,
            warmup: args.parse_or("--warmup", d.warmup)?,
            url,
            rate: args.parse("--rate")?,
            timeout,
            seed: args.parse_or("--seed", d.seed)?,
            histograms: args.value("--histograms")?.map(PathBuf::from),
            fixture: args.value("--fixture")?.map(PathBuf::from),
            output: args.value("--output")?.map(PathBuf::from),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_in_both_forms() {
        let mut a = Args::new([
            "--formats=json,avro",
            "--counts",
            "1,10",
            "--duration=300ms",
            "--concurrency",
            "16",
            "--compression=gzip",
            "--rate",
            "500",
        ]);
        let c = Config::from_args(&mut a).unwrap();
        a.finish().unwrap();
        assert_eq!(c.formats, [Format::Json, Format::Avro]);
        assert_eq!(c.counts, [1, 10]);
        assert_eq!(c.duration, Duration::from_millis(300));
        assert_eq!(
            (c.concurrency, c.compression, c.rate, c.rounds),
            (16, Compression::Gzip, Some(500.0), 5)
        );
    }

    #[test]
    fn errors_name_the_flag() {
        for (argv, msg) in [
            (&["--formats", "xml"][..], "--formats: unknown format \"xml\""),
            (&["--compression=br"], "--compression: expected none or gzip"),
            (&["--concurrency=0"], "--concurrency must be 1..="),
            (&["--counts=0"], "--counts: each count"),
            (&["--duration=fast"], "--duration: invalid duration"),
        ] {
            let err = Config::from_args(&mut Args::new(argv.iter().copied())).unwrap_err();
            assert!(err.starts_with(msg), "{argv:?}: {err}");
        }
    }
}
