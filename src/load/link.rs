//! `wirebench load --link RATE[,RATE...][,RTT]`: the catalog cases over a
//! rate-limited link between two network namespaces ([`super::netns`]).
//!
//! # What one run does
//!
//! 1. Refuses at once (exit 2, one line) without CAP_NET_ADMIN + CAP_SYS_ADMIN.
//! 2. Removes leftovers of dead runs, creates `wbl-<pid>-s` / `wbl-<pid>-c`
//!    and a cleanup watcher: this binary again (`load --link-reaper`), in its
//!    own process group so Ctrl-C does not reach it, reading a pipe from us;
//!    when we exit by any means (Ctrl-C, SIGTERM, SIGKILL) the pipe closes and
//!    it deletes both namespaces with everything in them.
//! 3. Starts `serve` in the server namespace (`ip netns exec`).
//! 4. Per round: per rate (the rates rotated by round), the link shaped to
//!    it; per compression (rotated by round), at every concurrency, one
//!    `load --in-link --server ... --rounds 1 --seed ROUND` in the client
//!    namespace (formats rotated within, as `load` does), its CSV rows
//!    prefixed by the rate and RTT. So one round measures every rate and
//!    compression close together in time: the report pairs them by round
//!    (`crate::report::link`). Each run is bounded by `--duration`,
//!    `--min-requests` and `--max-duration` (a 619 KB body takes half a
//!    second at 10 Mbit/s).
//! 5. Removes both namespaces; the watcher then finds nothing left.
//!
//! # Output
//!
//! CSV ([`link_header`]): `rate_mbps,rtt_ms,` then `load`'s own columns
//! ([`crate::measure::results::HTTP_HEADER`]), `round` being the link
//! round. `rtt_ms` is the RTT added (0 when rate-only). Run stamp header and
//! footer as in every other CSV, and a `# machine:` line: a link file is a
//! run of its own, which the report labels with its machine, commit and
//! date (`crate::report::link`).

use super::cases::rotated;
use super::config::{Compression, Config};
use super::netns::{self, Namespaces};
use crate::cli::Args;
use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

/// The columns of `link.csv`.
pub fn link_header() -> String {
    format!("rate_mbps,rtt_ms,{}", crate::measure::results::HTTP_HEADER)
}

/// The server's port inside its namespace (the namespace is ours alone).
const PORT: u16 = 8090;

/// What `--link` asks for.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkPlan {
    /// Rates in bits/s, ascending.
    pub rates: Vec<u64>,
    /// Round-trip time to add, ms (0: none).
    pub rtt_ms: f64,
    pub compressions: Vec<Compression>,
    pub concurrencies: Vec<usize>,
}

/// `--link 10mbit,100mbit,20ms`: rates and at most one RTT (a duration).
pub fn parse_link(v: &str) -> Result<(Vec<u64>, f64), String> {
    let mut rates = Vec::new();
    let mut rtt = None;
    for item in v.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        if item.ends_with("ms") || item.ends_with("us") || (item.ends_with('s') && !item.ends_with("bits")) {
            if rtt.is_some() {
                return Err(format!("--link: at most one RTT, found a second one {item:?}"));
            }
            let d = crate::cli::parse_duration(item).map_err(|e| format!("--link: RTT {item:?}: {e}"))?;
            if d > Duration::from_secs(10) {
                return Err(format!("--link: RTT {item:?} is over 10s"));
            }
            rtt = Some(d.as_secs_f64() * 1e3);
        } else {
            rates.push(netns::parse_rate(item).map_err(|e| format!("--link: {e}"))?);
        }
    }
    if rates.is_empty() {
        return Err(format!(
            "--link: expected RATE[,RATE...][,RTT] such as 10mbit,100mbit,20ms, found {v:?}"
        ));
    }
    rates.sort_unstable();
    rates.dedup();
    Ok((rates, rtt.unwrap_or(0.0)))
}

impl LinkPlan {
    /// Reads `--link`, `--link-compressions` and `--link-concurrency`; None without `--link`.
    pub fn from_args(args: &mut Args) -> Result<Option<LinkPlan>, String> {
        let comps = args.list::<String>("--link-compressions")?;
        let conc = args.list::<usize>("--link-concurrency")?;
        let Some(v) = args.value("--link")? else {
            if comps.is_some() || conc.is_some() {
                return Err("--link-compressions and --link-concurrency need --link".into());
            }
            return Ok(None);
        };
        let (rates, rtt_ms) = parse_link(&v)?;
        let compressions = match comps {
            None => vec![Compression::None, Compression::Gzip1, Compression::Gzip],
            Some(l) => l
                .iter()
                .map(|s| {
                    Compression::from_name(s)
                        .ok_or_else(|| format!("--link-compressions: expected none, gzip1, gzip or gzip9, found {s:?}"))
                })
                .collect::<Result<_, _>>()?,
        };
        let concurrencies = conc.unwrap_or_else(|| vec![1, 8]);
        if compressions.is_empty() || concurrencies.is_empty() {
            return Err("--link-compressions and --link-concurrency need at least one value".into());
        }
        if let Some(c) = concurrencies.iter().find(|&&c| !(1..=1000).contains(&c)) {
            return Err(format!("--link-concurrency: each must be 1..=1000, found {c}"));
        }
        Ok(Some(LinkPlan {
            rates,
            rtt_ms,
            compressions,
            concurrencies,
        }))
    }
}

/// Client side: waits (≤ 10 s) until the server in the other namespace accepts.
pub fn wait_ready(addr: std::net::SocketAddr) -> Result<(), String> {
    let start = Instant::now();
    loop {
        match std::net::TcpStream::connect_timeout(&addr, Duration::from_millis(500)) {
            Ok(_) => return Ok(()),
            Err(e) if start.elapsed() > Duration::from_secs(10) => {
                return Err(format!(
                    "--in-link: the server at {addr} did not accept within 10 s: {e}"
                ));
            }
            Err(_) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
}

/// `load --link-reaper NS,NS`: waits for stdin to close (its parent exited,
/// however), then deletes those namespaces (ours only) and what runs in them.
pub fn reaper(names: &str) -> Result<(), String> {
    let names: Vec<&str> = names.split(',').filter(|n| netns::owner_of(n).is_some()).collect();
    let mut sink = [0u8; 64];
    let mut stdin = std::io::stdin();
    while matches!(stdin.read(&mut sink), Ok(n) if n > 0) {}
    let present = netns::ours()?;
    for n in names.iter().filter(|n| present.iter().any(|p| p == *n)) {
        netns::delete_namespace(n)?;
    }
    Ok(())
}

/// Kills and reaps a child on drop.
struct Reaped(Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Entry point of `load --link`: the number of failed requests.
pub fn run(config: &Config, plan: &LinkPlan) -> Result<u64, String> {
    if config.url.is_some()
        || config.server_addr.is_some()
        || config.rate.is_some()
        || config.data.is_some()
        || config.fixture.is_some()
        || config.histograms.is_some()
    {
        return Err(
            "--link runs the catalog cases itself: it excludes --url, --server, --rate, --data, --fixture and --histograms"
                .into(),
        );
    }
    netns::check_privileges()?;
    let exe = std::env::current_exe().map_err(|e| format!("--link: where is this binary: {e}"))?;
    let exe = exe
        .to_str()
        .ok_or("--link: the binary's path is not UTF-8")?
        .to_string();
    let removed = netns::sweep_leftovers()?;
    if !removed.is_empty() {
        eprintln!("link: removed leftovers of dead runs: {}", removed.join(", "));
    }
    let pid = std::process::id();
    let mut ns = Namespaces::create(pid)?;
    // The watcher: its own process group (Ctrl-C goes to ours only); our end of its stdin.
    let mut watcher = {
        use std::os::unix::process::CommandExt;
        Command::new(&exe)
            .args(["load", "--link-reaper", &format!("{},{}", ns.server, ns.client)])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .process_group(0)
            .spawn()
            .map_err(|e| format!("--link: starting the cleanup watcher: {e}"))?
    };
    let pipe: Option<ChildStdin> = watcher.stdin.take();
    eprintln!(
        "link: namespaces {} ({}) and {} ({}), cleanup watcher pid {}",
        ns.server,
        ns.server_ip,
        ns.client,
        ns.client_ip,
        watcher.id()
    );
    let result = measure(config, plan, &mut ns, &exe);
    let cleanup = ns.remove();
    drop(pipe);
    let _ = watcher.wait();
    let failed = result?;
    cleanup?;
    Ok(failed)
}

fn measure(config: &Config, plan: &LinkPlan, ns: &mut Namespaces, exe: &str) -> Result<u64, String> {
    let max_count = config.counts.iter().copied().max().unwrap_or(1).to_string();
    let server_addr = format!("{}:{PORT}", ns.server_ip);
    let server = Command::new("ip")
        .args([
            "netns",
            "exec",
            &ns.server,
            exe,
            "serve",
            "--addr",
            &server_addr,
            "--max-count",
            &max_count,
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("--link: starting the server: {e}"))?;
    let mut server = Reaped(server);
    let server_pid = server.0.id().to_string();

    let mut out: Box<dyn Write> = match &config.output {
        Some(p) => Box::new(std::fs::File::create(p).map_err(|e| format!("--output {}: {e}", p.display()))?),
        None => Box::new(std::io::stdout()),
    };
    let werr = |e: std::io::Error| format!("writing the link CSV: {e}");
    write!(out, "{}", config.run.header("# ")).map_err(werr)?;
    let env = crate::measure::env::capture();
    writeln!(
        out,
        "# machine: {}, {} logical cores, kernel {}",
        env.cpu, env.cores, env.kernel
    )
    .map_err(werr)?;
    let mut failed = 0;
    let mut rtt_applied = 0.0;
    let mut first = true;
    let total = plan.rates.len() * config.rounds * plan.compressions.len() * plan.concurrencies.len();
    let mut done = 0;
    let started = Instant::now();
    for round in 1..=config.rounds {
        for rate in rotated(&plan.rates, round as u64 - 1) {
            if let Some(note) = ns.shape(rate, plan.rtt_ms)? {
                eprintln!("{note}");
            }
            if ns.netem {
                rtt_applied = plan.rtt_ms;
            }
            if first {
                writeln!(
                    out,
                    "# link: veth between two namespaces, tbf on both ends; rtt asked {} ms, added {} ms ({})",
                    plan.rtt_ms,
                    rtt_applied,
                    if ns.netem {
                        "netem"
                    } else if plan.rtt_ms > 0.0 {
                        "netem absent: rate-only"
                    } else {
                        "none asked"
                    }
                )
                .map_err(werr)?;
                writeln!(out, "{}", link_header()).map_err(werr)?;
                first = false;
            }
            let mbps = rate as f64 / 1e6;
            for comp in rotated(&plan.compressions, round as u64 - 1) {
                for &c in &plan.concurrencies {
                    if let Ok(Some(st)) = server.0.try_wait() {
                        return Err(format!("--link: the server exited ({st})"));
                    }
                    let rows = client(config, ns, exe, &server_addr, &server_pid, round, comp, c)?;
                    for row in rows {
                        failed += errors_in(&row);
                        writeln!(
                            out,
                            "{mbps},{rtt_applied},{round}{}",
                            &row[row.find(',').unwrap_or(0)..]
                        )
                        .map_err(werr)?;
                    }
                    out.flush().map_err(werr)?;
                    done += 1;
                    eprintln!(
                        "link: [{done}/{total}] round {round} {mbps} Mbit/s {} c={c} ({:.0} s elapsed)",
                        comp.name(),
                        started.elapsed().as_secs_f64()
                    );
                }
            }
        }
    }
    write!(out, "{}", crate::measure::run::RunStamp::footer("# ")).map_err(werr)?;
    Ok(failed)
}

/// The sum of the `err_*` columns of one `load` CSV row (0 if unreadable:
/// [`data_rows`] has checked the shape).
fn errors_in(row: &str) -> u64 {
    let header: Vec<&str> = crate::measure::results::HTTP_HEADER.split(',').collect();
    let cells: Vec<&str> = row.split(',').collect();
    header
        .iter()
        .zip(&cells)
        .filter(|(h, _)| h.starts_with("err_"))
        .map(|(_, c)| c.parse::<u64>().unwrap_or(0))
        .sum()
}

/// The data rows of a `load` CSV (comments and the header dropped); an
/// error when a row has the wrong number of cells.
pub fn data_rows(text: &str) -> Result<Vec<String>, String> {
    let want = crate::measure::results::HTTP_HEADER.split(',').count();
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.is_empty() || line == crate::measure::results::HTTP_HEADER {
            continue;
        }
        let n = line.split(',').count();
        if n != want {
            return Err(format!("client CSV line {}: {n} cells, expected {want}", i + 1));
        }
        rows.push(line.to_string());
    }
    Ok(rows)
}

#[allow(clippy::too_many_arguments)]
fn client(
    config: &Config,
    ns: &Namespaces,
    exe: &str,
    server_addr: &str,
    server_pid: &str,
    round: usize,
    comp: Compression,
    c: usize,
) -> Result<Vec<String>, String> {
    let formats: Vec<&str> = config.formats.iter().map(|f| f.name()).collect();
    let counts: Vec<String> = config.counts.iter().map(|c| c.to_string()).collect();
    let mut args: Vec<String> = [
        "netns",
        "exec",
        &ns.client,
        exe,
        "load",
        "--in-link",
        "--server",
        server_addr,
        "--server-pid",
        server_pid,
        "--formats",
        &formats.join(","),
        "--counts",
        &counts.join(","),
        "--rounds",
        "1",
        "--duration",
        &format!("{}ms", config.duration.as_millis()),
        "--timeout",
        &format!("{}ms", config.timeout.as_millis()),
        "--warmup",
        &config.warmup.to_string(),
        "--min-requests",
        &config.min_requests.to_string(),
        "--seed",
        &(config.seed + round as u64).to_string(),
        "--concurrency",
        &c.to_string(),
        "--compression",
        comp.name(),
        "--verify",
        config.verify.name(),
        "--run-id",
        &config.run.id,
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    if config.min_requests > 0 {
        args.extend([
            "--max-duration".into(),
            format!("{}ms", config.max_duration.as_millis()),
        ]);
    }
    let out = Command::new("ip")
        .args(&args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("--link: starting the client: {e}"))?;
    let code = out.status.code();
    if !matches!(code, Some(0) | Some(1)) {
        return Err(format!(
            "--link: the client failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    if code == Some(1) {
        eprint!("{}", String::from_utf8_lossy(&out.stderr));
    }
    data_rows(&String::from_utf8_lossy(&out.stdout))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_specs_parse() {
        assert_eq!(parse_link("10mbit"), Ok((vec![10_000_000], 0.0)));
        assert_eq!(
            parse_link("100mbit,10mbit,20ms"),
            Ok((vec![10_000_000, 100_000_000], 20.0))
        );
        assert!(parse_link("").is_err());
        assert!(parse_link("20ms").is_err());
        assert!(parse_link("10mbit,20ms,30ms").is_err());
        assert!(parse_link("10mbit,99s").is_err());
        assert!(parse_link("10zbit").is_err());
    }

    #[test]
    fn client_rows_are_checked() {
        let h = crate::measure::results::HTTP_HEADER;
        let n = h.split(',').count();
        let row = vec!["1"; n].join(",");
        let text = format!("# run: x\n{h}\n# machine\n{row}\n");
        assert_eq!(data_rows(&text).unwrap(), vec![row.clone()]);
        assert!(data_rows("1,2,3\n").is_err());
        // err_* columns: seven of them, each 1 here.
        assert_eq!(errors_in(&row), 7);
    }
}
