//! The plumbing of `wirebench load --link`: a pair of network namespaces
//! joined by a veth pair, shaped with `tc`, through iproute2's `ip` and `tc`
//! run by [`std::process::Command`] (no crate, no libc call).
//!
//! # Layout
//!
//! - Names: namespaces `wbl-<pid>-s` (server) and `wbl-<pid>-c` (client),
//!   `<pid>` the process that created them; inside them the veth ends are
//!   `wbl-s` and `wbl-c` (created directly in the namespaces, so no link ever
//!   exists on the host), with `10.<a>.<b>.1/30` and `.2`, `a.b` from the pid.
//! - Shaping: each end's egress gets `tbf` at the rate (so both directions
//!   are limited); with an RTT and a kernel that has `netem`, a root `netem`
//!   of RTT/2 with the `tbf` under it.
//!
//! # Invariants
//!
//! - Nothing outside the two namespaces is changed; deleting them (after
//!   killing the processes inside, [`Namespaces::remove`]) removes all.
//! - Leftovers of dead runs (owner pid gone, or not a `wirebench`) are
//!   removed by [`sweep_leftovers`], which every run calls first.
//! - Output of `ip` is hostile input: [`parse_netns_list`] and
//!   [`parse_pids`] return errors, never panic, and allocate only per line.

use std::process::{Command, Stdio};

/// The prefix of every namespace we create.
pub const PREFIX: &str = "wbl-";

/// A link rate in bits per second.
pub fn parse_rate(s: &str) -> Result<u64, String> {
    let t = s.trim().to_ascii_lowercase();
    let (num, mult) = if let Some(n) = t.strip_suffix("gbit") {
        (n, 1_000_000_000.0)
    } else if let Some(n) = t.strip_suffix("mbit") {
        (n, 1_000_000.0)
    } else if let Some(n) = t.strip_suffix("kbit") {
        (n, 1_000.0)
    } else {
        (t.as_str(), 1_000_000.0)
    };
    let v: f64 = num
        .parse()
        .map_err(|_| format!("expected a rate like 10mbit, 1gbit or 500kbit (a bare number is Mbit/s), found {s:?}"))?;
    let bits = v * mult;
    if !(bits.is_finite() && (100_000.0..=100_000_000_000.0).contains(&bits)) {
        return Err(format!("rate {s:?} is outside 100kbit..100gbit"));
    }
    Ok(bits as u64)
}

/// `ip`/`tc` must be present, and this process must hold CAP_NET_ADMIN and
/// CAP_SYS_ADMIN; otherwise one line saying what is missing and how to run it.
pub fn check_privileges() -> Result<(), String> {
    let sudo = "run it as root, e.g. `sudo target/release/wirebench load --link 10mbit`";
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let caps = cap_eff(&status).unwrap_or(0);
    const NET_ADMIN: u64 = 1 << 12;
    const SYS_ADMIN: u64 = 1 << 21;
    if caps & NET_ADMIN == 0 || caps & SYS_ADMIN == 0 {
        return Err(format!(
            "--link needs root or CAP_NET_ADMIN and CAP_SYS_ADMIN to create network namespaces (effective capabilities here: {caps:#x}); {sudo}"
        ));
    }
    for tool in ["ip", "tc"] {
        let ok = Command::new(tool)
            .arg("-V")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            return Err(format!(
                "--link needs iproute2's `{tool}` in PATH (Debian: apt-get install iproute2)"
            ));
        }
    }
    Ok(())
}

/// The effective capability mask from `/proc/self/status` text.
pub fn cap_eff(status: &str) -> Option<u64> {
    let line = status.lines().find(|l| l.starts_with("CapEff:"))?;
    u64::from_str_radix(line["CapEff:".len()..].trim(), 16).ok()
}

/// Runs a command, returning its stdout, or an error naming the command and its stderr.
pub fn run(cmd: &[&str]) -> Result<String, String> {
    let (prog, args) = cmd.split_first().ok_or("empty command")?;
    let out = Command::new(prog)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("`{}`: {e}", cmd.join(" ")))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(format!("`{}` failed ({}): {}", cmd.join(" "), out.status, err.trim()));
    }
    String::from_utf8(out.stdout).map_err(|_| format!("`{}`: output is not UTF-8", cmd.join(" ")))
}

/// Names in `ip netns list` output (`NAME` or `NAME (id: N)` per line).
pub fn parse_netns_list(text: &str) -> Result<Vec<String>, String> {
    let mut names = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let Some(name) = line.split_whitespace().next() else {
            continue;
        };
        if name.len() > 255 || !name.bytes().all(|b| b.is_ascii_graphic() && b != b'/') {
            return Err(format!(
                "`ip netns list` line {}: not a namespace name: {line:?}",
                i + 1
            ));
        }
        names.push(name.to_string());
    }
    Ok(names)
}

/// Pids in `ip netns pids NS` output (one decimal pid per line).
pub fn parse_pids(text: &str) -> Result<Vec<u32>, String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .enumerate()
        .map(|(i, l)| {
            l.parse::<u32>()
                .map_err(|_| format!("`ip netns pids` line {}: not a pid: {l:?}", i + 1))
        })
        .collect()
}

/// The owner pid of one of our namespace names (`wbl-<pid>-s|c`).
pub fn owner_of(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(PREFIX)?;
    let (pid, side) = rest.rsplit_once('-')?;
    (side == "s" || side == "c").then_some(())?;
    pid.parse().ok()
}

/// Whether `pid` is a live `wirebench` process (so its namespaces are in use).
fn alive_wirebench(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c.trim_end().starts_with("wirebench"))
        || std::fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|p| {
            p.file_name()
                .is_some_and(|f| f.to_string_lossy().starts_with("wirebench"))
        })
}

/// Our namespaces that exist now.
pub fn ours() -> Result<Vec<String>, String> {
    Ok(parse_netns_list(&run(&["ip", "netns", "list"])?)?
        .into_iter()
        .filter(|n| owner_of(n).is_some())
        .collect())
}

/// Kills every process inside namespace `ns` and deletes it. Errors are
/// collected, not stopped at, so as much as possible is removed.
pub fn delete_namespace(ns: &str) -> Result<(), String> {
    let mut errors = Vec::new();
    match run(&["ip", "netns", "pids", ns]).and_then(|t| parse_pids(&t)) {
        Ok(pids) => {
            for pid in pids {
                let _ = Command::new("kill")
                    .args(["-KILL", &pid.to_string()])
                    .stderr(Stdio::null())
                    .status();
            }
        }
        Err(e) => errors.push(e),
    }
    if let Err(e) = run(&["ip", "netns", "del", ns]) {
        errors.push(e);
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("; "))
    }
}

/// Removes namespaces of runs whose process is gone; returns their names.
pub fn sweep_leftovers() -> Result<Vec<String>, String> {
    let mut removed = Vec::new();
    for ns in ours()? {
        let Some(pid) = owner_of(&ns) else { continue };
        if pid != std::process::id() && !alive_wirebench(pid) {
            // The dead run's watcher may be removing it at this moment: an
            // error counts only while the namespace is still there.
            if let Err(e) = delete_namespace(&ns)
                && ours()?.contains(&ns)
            {
                return Err(e);
            }
            removed.push(ns);
        }
    }
    Ok(removed)
}

/// Whether this process runs in the client namespace of a `--link` run
/// (`/run/netns/wbl-<pid>-c`): where `--in-link` may reach a non-loopback server.
pub fn in_private_netns() -> bool {
    use std::os::unix::fs::MetadataExt;
    let Ok(me) = std::fs::metadata("/proc/self/ns/net") else {
        return false;
    };
    let Ok(dir) = std::fs::read_dir("/run/netns") else {
        return false;
    };
    dir.flatten().any(|e| {
        let name = e.file_name().to_string_lossy().into_owned();
        owner_of(&name).is_some()
            && name.ends_with("-c")
            && std::fs::metadata(e.path()).is_ok_and(|m| m.ino() == me.ino() && m.dev() == me.dev())
    })
}

/// The two namespaces of one run and the addresses on their veth pair.
#[derive(Debug)]
pub struct Namespaces {
    pub server: String,
    pub client: String,
    pub server_ip: std::net::Ipv4Addr,
    pub client_ip: std::net::Ipv4Addr,
    /// Whether the netem root qdisc is in place (RTT added).
    pub netem: bool,
    /// netem was tried and is absent: not tried again, not said again.
    netem_absent: bool,
    removed: bool,
}

/// The veth end in the server / client namespace.
pub const VETH_S: &str = "wbl-s";
pub const VETH_C: &str = "wbl-c";

impl Namespaces {
    /// Creates both namespaces for `pid`, the veth pair and its addresses; on
    /// any error removes what it created.
    pub fn create(pid: u32) -> Result<Namespaces, String> {
        // 10.<a>.<b>.<4k+1, 4k+2>: a /30 per run, from the pid.
        let n = pid % (200 * 256 * 64);
        let (a, b, k) = (20 + n / (256 * 64), (n / 64) % 256, n % 64);
        let server_ip = std::net::Ipv4Addr::new(10, a as u8, b as u8, (4 * k + 1) as u8);
        let client_ip = std::net::Ipv4Addr::new(10, a as u8, b as u8, (4 * k + 2) as u8);
        let mut ns = Namespaces {
            server: format!("{PREFIX}{pid}-s"),
            client: format!("{PREFIX}{pid}-c"),
            server_ip,
            client_ip,
            netem: false,
            netem_absent: false,
            removed: false,
        };
        if let Err(e) = ns.build() {
            let _ = ns.remove();
            return Err(e);
        }
        Ok(ns)
    }

    fn build(&self) -> Result<(), String> {
        let (s, c) = (self.server.as_str(), self.client.as_str());
        run(&["ip", "netns", "add", s])?;
        run(&["ip", "netns", "add", c])?;
        run(&[
            "ip", "link", "add", VETH_S, "netns", s, "type", "veth", "peer", "name", VETH_C, "netns", c,
        ])?;
        for (ns, dev, ip) in [(s, VETH_S, self.server_ip), (c, VETH_C, self.client_ip)] {
            run(&["ip", "-n", ns, "addr", "add", &format!("{ip}/30"), "dev", dev])?;
            run(&["ip", "-n", ns, "link", "set", "dev", dev, "up"])?;
            run(&["ip", "-n", ns, "link", "set", "dev", "lo", "up"])?;
        }
        Ok(())
    }

    /// Shapes both directions to `rate_bits` per second, with `rtt_ms` of
    /// round trip (half on each side) when netem exists. Returns a one-line
    /// note the first time an RTT was asked and netem is absent (rate-only).
    pub fn shape(&mut self, rate_bits: u64, rtt_ms: f64) -> Result<Option<String>, String> {
        let mut note = None;
        let sides = [(self.server.clone(), VETH_S), (self.client.clone(), VETH_C)];
        if rtt_ms > 0.0 && !self.netem && !self.netem_absent {
            let delay = format!("{}us", (rtt_ms * 500.0).round() as u64);
            let mut failed = None;
            for (ns, dev) in &sides {
                // Any earlier root qdisc goes first; "no qdisc" errors are fine.
                let _ = run(&["tc", "-n", ns, "qdisc", "del", "dev", dev, "root"]);
                if let Err(e) = run(&[
                    "tc", "-n", ns, "qdisc", "add", "dev", dev, "root", "handle", "1:", "netem", "delay", &delay,
                    "limit", "100000",
                ]) {
                    failed = Some(e);
                    break;
                }
            }
            match failed {
                None => self.netem = true,
                Some(e) => {
                    self.netem_absent = true;
                    for (ns, dev) in &sides {
                        let _ = run(&["tc", "-n", ns, "qdisc", "del", "dev", dev, "root"]);
                    }
                    let why = e.lines().last().unwrap_or("").chars().take(160).collect::<String>();
                    note = Some(format!(
                        "link: netem is absent from this kernel ({why}); running rate-only, no added RTT"
                    ));
                }
            }
        }
        let rate = format!("{rate_bits}bit");
        // 2 ms of the rate, at least two full frames: small against the bodies
        // (so the first request is not much faster), big enough for the timer.
        let burst = (rate_bits / 8 / 500).max(2 * 1514).to_string();
        for (ns, dev) in &sides {
            let parent: &[&str] = if self.netem {
                &["parent", "1:1", "handle", "10:"]
            } else {
                &["root", "handle", "10:"]
            };
            let mut cmd = vec!["tc", "-n", ns, "qdisc", "replace", "dev", dev];
            cmd.extend_from_slice(parent);
            cmd.extend_from_slice(&["tbf", "rate", &rate, "burst", &burst, "latency", "100ms"]);
            run(&cmd)?;
        }
        Ok(note)
    }

    /// Kills the processes in both namespaces and deletes them (idempotent).
    pub fn remove(&mut self) -> Result<(), String> {
        if self.removed {
            return Ok(());
        }
        self.removed = true;
        let a = delete_namespace_if_present(&self.server);
        let b = delete_namespace_if_present(&self.client);
        a.and(b)
    }
}

fn delete_namespace_if_present(ns: &str) -> Result<(), String> {
    if ours()?.iter().any(|n| n == ns) {
        delete_namespace(ns)
    } else {
        Ok(())
    }
}

impl Drop for Namespaces {
    fn drop(&mut self) {
        if let Err(e) = self.remove() {
            eprintln!("link: cleanup of {} / {}: {e}", self.server, self.client);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_parse_and_bad_ones_are_errors() {
        assert_eq!(parse_rate("10mbit"), Ok(10_000_000));
        assert_eq!(parse_rate("1gbit"), Ok(1_000_000_000));
        assert_eq!(parse_rate("500kbit"), Ok(500_000));
        assert_eq!(parse_rate("100"), Ok(100_000_000));
        for bad in ["", "fast", "10xbit", "-5mbit", "1kbit", "nanmbit", "1e30gbit"] {
            assert!(parse_rate(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn hostile_ip_output_is_an_error_not_a_panic() {
        assert_eq!(
            parse_netns_list("wbl-12-s (id: 3)\nother\n\n").unwrap(),
            vec!["wbl-12-s".to_string(), "other".to_string()]
        );
        assert!(parse_netns_list("a/b\n").is_err());
        assert!(parse_netns_list("\u{7f}x\n").is_err());
        assert_eq!(parse_pids("12\n 34 \n\n").unwrap(), vec![12, 34]);
        assert!(parse_pids("12\nx\n").is_err());
        assert!(parse_pids("99999999999\n").is_err());
        assert_eq!(owner_of("wbl-42-s"), Some(42));
        assert_eq!(owner_of("wbl-42-c"), Some(42));
        for not_ours in ["wbl-42-x", "wbl--s", "wb-42-s", "wbl-4a-c", "wbl-"] {
            assert_eq!(owner_of(not_ours), None, "{not_ours}");
        }
    }

    #[test]
    fn capability_mask_is_read_from_status() {
        assert_eq!(cap_eff("Name:\tx\nCapEff:\t000001ffffffffff\n"), Some(0x1ff_ffff_ffff));
        assert_eq!(cap_eff("CapEff:\tzz\n"), None);
        assert_eq!(cap_eff(""), None);
    }
}
