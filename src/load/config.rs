//! Flags of `wirebench load` and their defaults, parsed into a [`Config`].

use crate::cli::Args;
use crate::codec::Format;
use crate::measure::stats::procs;
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
  --min-requests N     closed loop, one thread per connection: a run goes on
                       past --duration until N responses were verified, for at
                       most --max-duration (default: 0, time only)
  --max-duration D     with --min-requests: the longest a run goes on (default: 10s)
  --concurrency C      connections (default: 8)
  --threads N          0 = one blocking thread per connection
                       (default without --url); N > 0 = N polling threads,
                       each driving C/N non-blocking connections, busy-polling
                       its core (default with --url: the cores we may run on)
  --compression C      none | gzip | gzip1 | gzip9 (gzip: level 6; default: none)
  --warmup N           warm-up requests before every run (default: 20)
  --rate R             open loop: R requests/s from a fixed schedule
  --timeout D          connect/read/write timeout (default: 5s)
  --seed N             seeds the format order rotation (default: 1)
  --url URL            any http:// server and path; 200 + whole body = success;
                       prints a wrk-like summary
  --verify V           borrowed (default) or owned: check each catalog response
                       with the borrowed view decode or build the owned catalog
                       (both validate every byte and the product count). With
                       --url, FORMAT[:borrowed|:owned]: a
                       response counts only when its body decodes as FORMAT
                       (json, msgpack, protobuf, avro, flatbuffers; borrowed
                       view unless :owned); otherwise it is a decode error.
                       Sends Accept: <its type>
  --expect-count N     with --verify: and holds exactly N products (else mismatch)
  --data FILE.json     with --url to /data or /data/{format} of `serve --data`:
                       a response counts only when its body decodes, with the
                       document's schema, to this document (else decode or
                       mismatch); the format is --verify FORMAT's, else the
                       path's
  --schema FILE        with --data: the Avro schema that reads the bodies
                       (default: GET /schemas/data.avsc from the --url server)
  --format text|json   with --url: the summary as wrk-like text (default) or as
                       one JSON object per run
  --server-pid PID     with --url: also account the CPU time of that process,
                       all its threads and its descendants (e.g. nginx's
                       workers) as the server side
  --histograms DIR     also write each run's latency histogram to DIR, as
                       <run>.hist and as an HdrHistogram interval log <run>.hlog
  --fixture FILE       catalog JSON for the in-process server and the checks
  --output FILE        write the CSV there instead of stdout
  --server ADDR        catalog cases against a running `wirebench serve` at ADDR
                       (loopback only) instead of an in-process server: the
                       server-only pass (pin each side with taskset); with
                       --server-pid its CPU is the server side
  --run-id ID          the run the CSV and histogram files belong to
                       (default: $WB_RUN_ID, else a fresh id)
  --link RATE[,RATE...][,RTT]
                       the catalog cases over a veth pair between two network
                       namespaces this run creates, shaped to each RATE (10mbit,
                       100mbit, 1gbit) in both directions, RTT added with netem
                       where the kernel has it; needs root (docs/LOAD.md)
  --link-compressions LIST   with --link (default: none,gzip1,gzip)
  --link-concurrency LIST    with --link (default: 1,8)

EXIT STATUS:
  0  every request succeeded (warm-up included)
  1  the runs completed and at least one request failed
  2  usage error (a bad flag or value), or the runs could not start
";

/// How `--url` mode prints its summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    /// wrk-like text.
    Text,
    /// One JSON object per run, one line each.
    Json,
}

/// `none` or `gzip`, asked through the query string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    None,
    /// gzip at the server's default level (6).
    Gzip,
    /// gzip at level 1 (`compression=gzip1`).
    Gzip1,
    /// gzip at level 9 (`compression=gzip9`).
    Gzip9,
}

impl Compression {
    const ALL: [Compression; 4] = [
        Compression::None,
        Compression::Gzip,
        Compression::Gzip1,
        Compression::Gzip9,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Gzip1 => "gzip1",
            Compression::Gzip9 => "gzip9",
        }
    }

    /// The compression [`Compression::name`] names.
    pub fn from_name(name: &str) -> Option<Compression> {
        Compression::ALL.into_iter().find(|c| c.name() == name)
    }

    /// Whether responses come gzipped.
    pub fn gzipped(self) -> bool {
        self != Compression::None
    }
}

/// Everything `wirebench load` was asked to do.
#[derive(Clone, Debug)]
pub struct Config {
    pub formats: Vec<Format>,
    pub counts: Vec<usize>,
    pub rounds: usize,
    pub duration: Duration,
    /// `--min-requests`: a closed-loop run goes on past `duration` until
    /// this many verified responses, up to `max_duration` (0: time only).
    pub min_requests: u64,
    /// `--max-duration` (with `--min-requests`).
    pub max_duration: Duration,
    pub concurrency: usize,
    /// 0: one blocking thread per connection; N: N polling threads ([`super::mux`]).
    pub threads: usize,
    pub compression: Compression,
    /// How catalog responses are verified.
    pub verify: super::verify::Verify,
    pub warmup: usize,
    pub url: Option<String>,
    /// `--server-pid`: the `--url` server's process on this machine, for CPU accounting.
    pub server_pid: Option<u32>,
    pub rate: Option<f64>,
    pub timeout: Duration,
    pub seed: u64,
    pub histograms: Option<PathBuf>,
    pub fixture: Option<PathBuf>,
    pub output: Option<PathBuf>,
    /// `--verify FORMAT[:owned|:borrowed]` (`--url` only): decode every body as
    /// this format, with the decoder in [`Config::verify`].
    pub verify_format: Option<Format>,
    /// `--expect-count N` (with `--verify`).
    pub expect_count: Option<usize>,
    /// `--data FILE.json` (`--url` only): the document every body must be.
    pub data: Option<PathBuf>,
    /// `--schema S.avsc` (with `--data`): the schema that reads the bodies.
    pub schema: Option<PathBuf>,
    /// `--format` (`--url` only).
    pub output_format: OutputFormat,
    /// `--server ADDR`: catalog cases against this external server.
    pub server_addr: Option<std::net::SocketAddr>,
    /// The run stamp written into every output file (`--run-id`, `$WB_RUN_ID`).
    pub run: crate::measure::run::RunStamp,
    /// `--in-link` (internal, set by `--link`): the client side inside its
    /// namespace, where `--server` may be the peer's non-loopback address.
    pub in_link: bool,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            formats: Format::ALL.to_vec(),
            counts: vec![1, 100, 1000],
            rounds: 5,
            duration: Duration::from_secs(1),
            min_requests: 0,
            max_duration: Duration::from_secs(10),
            concurrency: 8,
            threads: 0,
            compression: Compression::None,
            verify: super::verify::Verify::Borrowed,
            warmup: 20,
            url: None,
            server_pid: None,
            rate: None,
            timeout: Duration::from_secs(5),
            seed: 1,
            histograms: None,
            fixture: None,
            output: None,
            verify_format: None,
            expect_count: None,
            data: None,
            schema: None,
            output_format: OutputFormat::Text,
            server_addr: None,
            run: crate::measure::run::RunStamp::default(),
            in_link: false,
        }
    }
}

/// Most connections accepted (one thread each).
pub const MAX_CONCURRENCY: usize = 10_000;

/// `--verify V`: `borrowed` or `owned` (which decoder checks catalog
/// responses), or `FORMAT[:borrowed|:owned]` (`--url` runs: decode every body
/// as FORMAT, with the borrowed view unless `:owned`).
fn parse_verify(v: &str) -> Result<(super::verify::Verify, Option<Format>), String> {
    use super::verify::Verify;
    let bad = || {
        format!(
            "expected borrowed, owned or a format (json, msgpack, protobuf, avro, flatbuffers) optionally followed by :borrowed or :owned, found {v:?}"
        )
    };
    if let Some(d) = Verify::from_name(v) {
        return Ok((d, None));
    }
    let (name, decoder) = match v.split_once(':') {
        Some((n, d)) => (n, Verify::from_name(d).ok_or_else(bad)?),
        None => (v, Verify::Borrowed),
    };
    let format = Format::from_name(name).ok_or_else(bad)?;
    Ok((decoder, Some(format)))
}

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
        let duration = args.duration_or("--duration", d.duration)?;
        let min_requests: u64 = args.parse_or("--min-requests", d.min_requests)?;
        let max_duration = match args.value("--max-duration")? {
            Some(_) if min_requests == 0 => return Err("--max-duration needs --min-requests N".into()),
            Some(v) => crate::cli::parse_duration(&v).map_err(|e| format!("--max-duration: {e}"))?,
            None => d.max_duration,
        };
        if min_requests > 0 && max_duration < duration {
            return Err(format!(
                "--max-duration ({max_duration:?}) must be at least --duration ({duration:?})"
            ));
        }
        let timeout = args.duration_or("--timeout", d.timeout)?;
        let concurrency: usize = args.parse_or("--concurrency", d.concurrency)?;
        if !(1..=MAX_CONCURRENCY).contains(&concurrency) {
            return Err(format!(
                "--concurrency must be 1..={MAX_CONCURRENCY}, found {concurrency}"
            ));
        }
        let compression = match args.value("--compression")? {
            None => Compression::None,
            Some(v) => Compression::from_name(&v)
                .ok_or_else(|| format!("--compression: expected none, gzip, gzip1 or gzip9, found {v:?}"))?,
        };
        let (verify, verify_format) = match args.value("--verify")? {
            None => (d.verify, None),
            Some(v) => parse_verify(&v).map_err(|e| format!("--verify: {e}"))?,
        };
        let expect_count: Option<usize> = args.parse("--expect-count")?;
        let output_format = match args.value("--format")?.as_deref() {
            None | Some("text") => OutputFormat::Text,
            Some("json") => OutputFormat::Json,
            Some(other) => return Err(format!("--format: expected text or json, found {other:?}")),
        };
        if url.is_none() && (verify_format.is_some() || output_format == OutputFormat::Json) {
            return Err(
                "--verify FORMAT and --format json apply to --url runs only (catalog runs always verify as their format)"
                    .into(),
            );
        }
        if expect_count.is_some() && verify_format.is_none() {
            return Err("--expect-count needs --verify FORMAT".into());
        }
        let data = args.value("--data")?.map(PathBuf::from);
        let schema = args.value("--schema")?.map(PathBuf::from);
        if data.is_some() && url.is_none() {
            return Err("--data applies to --url runs only (a server started with `serve --data FILE.json`)".into());
        }
        if schema.is_some() && data.is_none() {
            return Err("--schema needs --data FILE.json".into());
        }
        if data.is_some() && expect_count.is_some() {
            return Err("--expect-count counts catalog products; with --data the check is the whole document".into());
        }
        let server_pid: Option<u32> = args.parse("--server-pid")?;
        let in_link = args.switch("--in-link");
        if in_link && !super::netns::in_private_netns() {
            return Err("--in-link is internal to --link: it runs only inside the run's own network namespace".into());
        }
        let server_addr = match args.value("--server")? {
            None => None,
            Some(v) => {
                let a: std::net::SocketAddr = v
                    .parse()
                    .map_err(|_| format!("--server: expected IP:PORT, found {v:?}"))?;
                if !a.ip().is_loopback() && !in_link {
                    return Err(format!("--server: load runs go to loopback only, found {a}"));
                }
                if url.is_some() {
                    return Err("--server and --url exclude each other".into());
                }
                Some(a)
            }
        };
        if server_pid.is_some() && url.is_none() && server_addr.is_none() {
            return Err("--server-pid needs --url or --server (without them the server runs in this process and is accounted by its thread names)".into());
        }
        let run = crate::measure::run::RunStamp::from_flag(args.value("--run-id")?)?;
        if rounds == 0 || formats.is_empty() || timeout.is_zero() || duration.is_zero() {
            return Err("--rounds, --formats, --duration and --timeout must be non-empty / non-zero".into());
        }
        // `--url` mode polls with one thread per CPU this process may run on (respects `taskset`).
        let threads = args.parse_or("--threads", if url.is_some() { procs() } else { d.threads })?;
        let rate: Option<f64> = args.parse("--rate")?;
        if min_requests > 0 && (threads > 0 || rate.is_some()) {
            return Err("--min-requests applies to the closed loop with one thread per connection (not --rate, not --threads N)".into());
        }
        Ok(Config {
            formats,
            counts,
            rounds,
            duration,
            min_requests,
            max_duration,
            concurrency,
            threads,
            compression,
            verify,
            warmup: args.parse_or("--warmup", d.warmup)?,
            url,
            server_pid,
            rate,
            timeout,
            seed: args.parse_or("--seed", d.seed)?,
            histograms: args.value("--histograms")?.map(PathBuf::from),
            fixture: args.value("--fixture")?.map(PathBuf::from),
            output: args.value("--output")?.map(PathBuf::from),
            verify_format,
            expect_count,
            data,
            schema,
            output_format,
            server_addr,
            run,
            in_link,
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
        assert_eq!(c.verify, super::super::verify::Verify::Borrowed);
        let o = Config::from_args(&mut Args::new(["--verify", "owned"])).unwrap();
        assert_eq!(o.verify, super::super::verify::Verify::Owned);
        assert_eq!(
            (c.concurrency, c.compression, c.rate, c.rounds),
            (16, Compression::Gzip, Some(500.0), 5)
        );
    }

    #[test]
    fn errors_name_the_flag() {
        for (argv, msg) in [
            (&["--formats", "xml"][..], "--formats: unknown format \"xml\""),
            (
                &["--compression=br"],
                "--compression: expected none, gzip, gzip1 or gzip9",
            ),
            (&["--concurrency=0"], "--concurrency must be 1..="),
            (&["--counts=0"], "--counts: each count"),
            (&["--duration=fast"], "--duration: invalid duration"),
            (&["--verify=full"], "--verify: expected borrowed, owned or a format"),
            (
                &["--url=http://h/", "--verify=xml"],
                "--verify: expected borrowed, owned or a format",
            ),
            (
                &["--verify=json"],
                "--verify FORMAT and --format json apply to --url runs only",
            ),
            (
                &["--url=http://h/", "--expect-count=3"],
                "--expect-count needs --verify",
            ),
            (&["--url=http://h/", "--format=yaml"], "--format: expected text or json"),
            (&["--server-pid=1"], "--server-pid needs --url or --server"),
            (&["--server=10.0.0.1:80"], "--server: load runs go to loopback only"),
            (&["--server=nowhere"], "--server: expected IP:PORT"),
            (&["--run-id=a b"], "run id \"a b\""),
            (&["--max-duration=5s"], "--max-duration needs --min-requests"),
            (
                &["--min-requests=5", "--duration=2s", "--max-duration=1s"],
                "--max-duration (1s) must be at least",
            ),
            (
                &["--min-requests=5", "--rate=10"],
                "--min-requests applies to the closed loop",
            ),
            (
                &["--min-requests=5", "--threads=2"],
                "--min-requests applies to the closed loop",
            ),
            (
                &["--url=http://127.0.0.1:1/", "--server-pid=x"],
                "--server-pid: invalid value",
            ),
        ] {
            let err = Config::from_args(&mut Args::new(argv.iter().copied())).unwrap_err();
            assert!(err.starts_with(msg), "{argv:?}: {err}");
        }
    }
}
