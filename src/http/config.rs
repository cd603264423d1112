//! The server's configuration: [`ServerConfig`], its documented defaults, and
//! the `wirebench serve` flags that set it.
//!
//! Two defaults depend on the machine: the in-flight response budget, an
//! eighth of `MemTotal` from `/proc/meminfo` (at least 64 MiB; 1 GiB where
//! `/proc/meminfo` cannot be read), and the listen backlog, the kernel's
//! `net.core.somaxconn` from `/proc/sys/net/core/somaxconn` capped at
//! [`MAX_BACKLOG`] ([`DEFAULT_BACKLOG`] where it cannot be read).

use super::parse::Limits;
use crate::cli::Args;
use std::time::Duration;

/// Everything [`Server::bind_with`](super::Server::bind_with) needs. `Default` gives the documented defaults.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// `host:port`; `127.0.0.1:0` picks an ephemeral port.
    pub addr: String,
    /// Accept-queue capacity asked of `listen(2)`, capped by the kernel at
    /// `net.core.somaxconn`; a connect beyond a full queue is dropped.
    pub backlog: u32,
    /// Open connections (served, queued or parked). At the cap the
    /// longest-idle one idle [`ServerConfig::evict_idle`] is closed for a new
    /// one; else the new one gets 503.
    pub max_connections: usize,
    /// Worker threads of the pool ([`default_threads`]).
    pub threads: usize,
    /// How long a keep-alive connection may sit between requests.
    pub idle_timeout: Duration,
    /// The keep-alive idle time once 75% of `max_connections` are open.
    pub busy_idle_timeout: Duration,
    /// At the cap, a keep-alive connection is evicted only once idle this long.
    pub evict_idle: Duration,
    /// Deadline for a request head (and any body to discard) once it starts;
    /// for the first request, counted from the accept.
    pub header_timeout: Duration,
    /// Deadline for one blocked write.
    pub write_timeout: Duration,
    /// Slowest average rate a client may read a response at: a response of
    /// `n` bytes must be sent within `write_timeout + n / min_send_rate`.
    pub min_send_rate: u64,
    /// Response bytes (encoded and gzipped bodies) held by all requests at
    /// once; beyond it a request waits [`ServerConfig::budget_wait`], then 503.
    pub max_inflight_bytes: usize,
    /// How long a request waits for the in-flight budget before its 503.
    pub budget_wait: Duration,
    /// One line per request on stderr. Off by default.
    pub access_log: bool,
    pub limits: Limits,
    /// Stack size of each worker thread. The deepest path, a small gzip on the
    /// worker, measured at most 64–96 KiB in release and 192–256 KiB in debug
    /// builds (every format at count 1,000, with and without gzip); the default
    /// is twice the debug need, and only the pages touched become resident.
    pub stack_size: usize,
    /// The scheduling class of the server's threads (`--sched`).
    pub sched: SchedClass,
}

/// Which kernel scheduling class the server's threads run in (`--sched`);
/// [`super::pool::Priorities`] says at which priorities.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SchedClass {
    /// The fair class (`SCHED_OTHER`): the workers at the nice value the
    /// server was started with, the acceptor at nice -20.
    Fair,
    /// The real-time round-robin class (`SCHED_RR`): workers, encoders and
    /// poller at [`WORKER_RT`], the acceptor at [`RAISED_RT`]. Ready workers run
    /// in wake order, every fair task on the core behind them (within
    /// `kernel.sched_rt_runtime_us`). Needs `CAP_SYS_NICE` or `RLIMIT_RTPRIO`
    /// ≥ 2; refused, the server runs as `Fair`.
    RoundRobin,
}

/// With `--sched rr`: the real-time priority of the acceptor, above the
/// workers' so that it preempts a worker when it wakes.
pub const RAISED_RT: i32 = 2;
/// With `--sched rr`: the workers' and the encoders' real-time priority.
pub const WORKER_RT: i32 = 1;

impl std::str::FromStr for SchedClass {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "fair" => Ok(SchedClass::Fair),
            "rr" => Ok(SchedClass::RoundRobin),
            _ => Err(format!("expected fair or rr, found {s:?}")),
        }
    }
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            addr: "127.0.0.1:8090".into(),
            backlog: default_backlog(),
            max_connections: 2048,
            threads: default_threads(),
            idle_timeout: Duration::from_secs(30),
            busy_idle_timeout: Duration::from_secs(2),
            evict_idle: Duration::from_secs(1),
            header_timeout: Duration::from_secs(10),
            write_timeout: Duration::from_secs(10),
            min_send_rate: 128 * 1024,
            max_inflight_bytes: default_inflight_bytes(),
            budget_wait: Duration::from_millis(250),
            access_log: false,
            limits: Limits::default(),
            stack_size: 512 * 1024,
            sched: SchedClass::Fair,
        }
    }
}

/// Four workers per core this process may run on (its CPU affinity): a
/// worker blocked on a slow client or an encoder leaves others to serve.
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()) * 4
}

/// The largest default backlog: a queued connection holds a kernel socket
/// (a few KiB plus its request bytes), so the default stays bounded.
pub const MAX_BACKLOG: u32 = 16_384;

/// The default backlog where `/proc/sys/net/core/somaxconn` cannot be read
/// (Linux's own default `somaxconn` since 5.4).
pub const DEFAULT_BACKLOG: u32 = 4096;

/// The kernel's cap on any backlog, `net.core.somaxconn`, if readable.
pub fn somaxconn() -> Option<u32> {
    std::fs::read_to_string("/proc/sys/net/core/somaxconn")
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// The default backlog: `somaxconn`, at most [`MAX_BACKLOG`].
pub fn default_backlog() -> u32 {
    somaxconn().map_or(DEFAULT_BACKLOG, |n| n.clamp(1, MAX_BACKLOG))
}

/// The default in-flight budget: an eighth of the machine's memory.
pub fn default_inflight_bytes() -> usize {
    const FLOOR: usize = 64 << 20;
    const UNKNOWN: usize = 1 << 30;
    let total = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| mem_total(&text));
    match total {
        Some(bytes) => (bytes / 8).max(FLOOR),
        None => UNKNOWN,
    }
}

/// `MemTotal` in bytes from the text of `/proc/meminfo` (`MemTotal:  24730000 kB`).
pub fn mem_total(meminfo: &str) -> Option<usize> {
    let line = meminfo.lines().find(|l| l.starts_with("MemTotal:"))?;
    let mut words = line.split_whitespace().skip(1);
    let n: usize = words.next()?.parse().ok()?;
    match words.next() {
        Some("kB") => n.checked_mul(1024),
        None => Some(n),
        Some(_) => None,
    }
}

/// The server's flags, one per line as `--help` shows them; the
/// application's usage prints them after its own.
pub const FLAGS: &str = "\
  --addr HOST:PORT          listen address [127.0.0.1:8090]
  --backlog N               accept-queue capacity passed to listen(2); the kernel
                            caps it at net.core.somaxconn [somaxconn, at most 16384]
  --max-connections N       open connections (served, queued or parked); at the cap the
                            longest-idle connection is closed for a new one, once
                            idle --evict-idle, else 503 [2048]
  --threads N               worker threads of the pool [4 per core]
  --idle-timeout D          keep-alive idle time before closing [30s]
  --busy-idle-timeout D     keep-alive idle time at 75% of --max-connections [2s]
  --evict-idle D            idle time before a connection may be evicted at the cap [1s]
  --header-timeout D        deadline for a request head once started [10s]
  --write-timeout D         deadline for one blocked write [10s]
  --min-send-rate BYTES     slowest average read rate of a response, per second [131072]
  --max-inflight-bytes N    response bytes held at once; beyond: wait, then 503
                            [MemTotal/8 from /proc/meminfo]
  --budget-wait D           how long a request waits for that budget [250ms]
  --max-request-line BYTES  longer request lines get 414 [8192]
  --max-header-bytes BYTES  larger header blocks get 431 [16384]
  --max-headers N           more header lines get 431 [64]
  --max-body BYTES          larger request bodies get 413 [16384]
  --stack-size BYTES        worker thread stack [524288]
  --sched CLASS             fair: the kernel's fair class, acceptor at nice -20;
                            rr: real-time round-robin, workers in wake order
                            (needs CAP_SYS_NICE; docs/HTTP.md) [fair]
  --access-log              one line per request on stderr (off by default)
";

/// Parses the server's flags into a config; the caller parses its own first
/// and calls [`Args::finish`] after.
pub fn config_from_args(args: &mut Args) -> Result<ServerConfig, String> {
    let d = ServerConfig::default();
    let max_connections = args.parse_or("--max-connections", d.max_connections)?;
    if max_connections == 0 {
        return Err("--max-connections must be at least 1".into());
    }
    let config = ServerConfig {
        addr: args.value("--addr")?.unwrap_or(d.addr),
        backlog: args.parse_or("--backlog", d.backlog)?,
        max_connections,
        threads: args.parse_or("--threads", d.threads)?,
        idle_timeout: args.duration_or("--idle-timeout", d.idle_timeout)?,
        busy_idle_timeout: args.duration_or("--busy-idle-timeout", d.busy_idle_timeout)?,
        evict_idle: args.duration_or("--evict-idle", d.evict_idle)?,
        header_timeout: args.duration_or("--header-timeout", d.header_timeout)?,
        write_timeout: args.duration_or("--write-timeout", d.write_timeout)?,
        min_send_rate: args.parse_or("--min-send-rate", d.min_send_rate)?,
        max_inflight_bytes: args.parse_or("--max-inflight-bytes", d.max_inflight_bytes)?,
        budget_wait: args.duration_or("--budget-wait", d.budget_wait)?,
        access_log: args.switch("--access-log"),
        limits: Limits {
            max_request_line: args.parse_or("--max-request-line", d.limits.max_request_line)?,
            max_header_bytes: args.parse_or("--max-header-bytes", d.limits.max_header_bytes)?,
            max_headers: args.parse_or("--max-headers", d.limits.max_headers)?,
            max_body: args.parse_or("--max-body", d.limits.max_body)?,
        },
        stack_size: args.parse_or("--stack-size", d.stack_size)?,
        sched: match args.value("--sched")? {
            Some(v) => v.parse().map_err(|e| format!("--sched: {e}"))?,
            None => d.sched,
        },
    };
    if config.backlog == 0 {
        return Err("--backlog must be at least 1".into());
    }
    if config.min_send_rate == 0 {
        return Err("--min-send-rate must be at least 1 byte per second".into());
    }
    if config.threads == 0 {
        return Err("--threads must be at least 1".into());
    }
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mem_total_reads_kilobytes() {
        let text = "MemTotal:       24730876 kB\nMemFree:         1 kB\n";
        assert_eq!(mem_total(text), Some(24_730_876 * 1024));
        assert_eq!(mem_total("MemFree: 1 kB\n"), None);
        assert_eq!(mem_total("MemTotal: lots kB\n"), None);
        assert_eq!(mem_total("MemTotal: 5 MB\n"), None);
    }

    #[test]
    fn sched_takes_fair_or_rr() {
        let parse = |v: &str| config_from_args(&mut Args::new(["--sched", v])).map(|c| c.sched);
        assert_eq!(parse("rr"), Ok(SchedClass::RoundRobin));
        assert_eq!(parse("fair"), Ok(SchedClass::Fair));
        let e = parse("fifo").unwrap_err();
        assert!(e.contains("--sched: expected fair or rr, found \"fifo\""), "{e}");
        assert_eq!(
            config_from_args(&mut Args::new(Vec::<String>::new())).unwrap().sched,
            SchedClass::Fair
        );
    }

    #[test]
    fn threads_set_the_pool_and_must_be_at_least_one() {
        let mut args = Args::new(["--threads", "3"]);
        assert_eq!(config_from_args(&mut args).unwrap().threads, 3);
        let e = config_from_args(&mut Args::new(["--threads", "0"])).unwrap_err();
        assert!(e.contains("--threads"), "{e}");
        assert!(default_threads() >= 4);
    }
}
