//! `wirebench load --link` and the report's link section.
//!
//! As root (`.ci/run`): the rate is real (the median of several 1,000-product
//! JSON bodies at 10 Mbit/s takes at least size × 8 ÷ rate and at most 15%
//! more), the rate-only line without netem, and nothing of ours is left in
//! `ip netns list` or `ip link` after a run, after a run that fails once its
//! namespaces exist, after a run killed with SIGKILL (its watcher cleans up),
//! and after one whose watcher was killed too (the next run sweeps it).
//! Without root those are skipped with a printed reason; the refusal without
//! privileges and the report tests run everywhere. The link tests share one
//! lock: they run one at a time, so their timings and cleanup checks are
//! their own.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};
use support::scratch::Scratch;
use wirebench::load::netns;

mod support;

const BIN: &str = env!("CARGO_BIN_EXE_wirebench");

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// The link tests' lock, when this process may make namespaces; `None`
/// (the test skips, and says so) otherwise.
fn serial_as_root() -> Option<MutexGuard<'static, ()>> {
    let lock = serial();
    if root() {
        Some(lock)
    } else {
        eprintln!("skipped: needs root");
        None
    }
}

fn root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| netns::cap_eff(&s))
        .is_some_and(|c| c & (1 << 12) != 0 && c & (1 << 21) != 0)
}

/// Our namespaces owned by process `pid`.
fn ours_of(pid: u32) -> Vec<String> {
    netns::ours()
        .unwrap()
        .into_iter()
        .filter(|n| netns::owner_of(n) == Some(pid))
        .collect()
}

/// Processes whose command line holds `needle` (e.g. a run's server address).
fn processes_with(needle: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        if pid == std::process::id() {
            continue;
        }
        let cmd = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        if cmd.contains(needle) {
            out.push(pid);
        }
    }
    out
}

/// Nothing of run `pid` is left: no namespace, no veth on the host, no
/// watcher, no process of its server (`server_ip`, when known).
fn nothing_left_of(pid: u32, server_ip: Option<&str>) {
    assert_eq!(ours_of(pid), Vec::<String>::new(), "namespaces of run {pid} left");
    let links = netns::run(&["ip", "-o", "link"]).unwrap();
    assert!(!links.contains(netns::PREFIX), "a link of ours on the host: {links}");
    assert!(
        wait_until(10, || processes_with(&format!("{}{pid}-", netns::PREFIX)).is_empty()),
        "the watcher of run {pid} is left"
    );
    if let Some(ip) = server_ip {
        assert!(
            wait_until(10, || processes_with(&format!("--addr {ip}:")).is_empty()),
            "the server of run {pid} at {ip} is left"
        );
    }
}

/// Whether process `pid` is gone (or a zombie waiting for its reaper).
fn gone(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(s) => s.rsplit(')').next().is_some_and(|r| r.trim_start().starts_with('Z')),
    }
}

/// Polls (every 20 ms, at most `secs`) until `done`; false on timeout.
fn wait_until(secs: u64, mut done: impl FnMut() -> bool) -> bool {
    let end = Instant::now() + Duration::from_secs(secs);
    while Instant::now() < end {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    done()
}

/// A link run's arguments: JSON at `count` products for `duration`, one
/// compression, c=1, one round.
fn link_args(rate: &str, count: &str, duration: &str) -> Vec<String> {
    [
        "load",
        "--link",
        rate,
        "--formats",
        "json",
        "--counts",
        count,
        "--rounds",
        "1",
        "--duration",
        duration,
        "--warmup",
        "1",
        "--link-compressions",
        "none",
        "--link-concurrency",
        "1",
    ]
    .map(String::from)
    .to_vec()
}

/// The server address a run printed (`link: namespaces wbl-P-s (10.a.b.c) …`).
fn server_ip(stderr: &str) -> String {
    let line = stderr
        .lines()
        .find(|l| l.starts_with("link: namespaces"))
        .unwrap_or_else(|| panic!("no namespaces line: {stderr}"));
    let open = line.find('(').unwrap();
    let close = line[open..].find(')').unwrap();
    line[open + 1..open + close].to_string()
}

/// The bound: at least size × 8 ÷ rate, and within 15% of it.
fn link_is_real(p50_ms: f64, ideal_ms: f64) -> bool {
    p50_ms >= ideal_ms && p50_ms <= ideal_ms * 1.15
}

/// Column `name` of the first data row of a `load` CSV (optionally with the link columns).
fn cell(csv: &str, header: &str, name: &str) -> f64 {
    let at = header.split(',').position(|c| c == name).unwrap();
    let row = csv
        .lines()
        .find(|l| !l.starts_with('#') && *l != header && !l.is_empty())
        .expect("a data row");
    row.split(',').nth(at).unwrap().parse().unwrap()
}

#[test]
fn link_rate_is_real_and_the_rate_only_line() {
    let _lock = serial();
    let body = wirebench::codec::Format::Json
        .encode_to_vec(&wirebench::fixtures::catalog(1000).products)
        .unwrap()
        .len() as f64;
    let ideal_ms = body * 8.0 / 10e6 * 1e3;
    // Self-test, without root: on loopback the same body is far faster than
    // the link bound, so the check below can fail.
    let out = Command::new(BIN)
        .args(["load", "--formats", "json", "--counts", "1000", "--rounds", "1"])
        .args(["--duration", "100ms", "--warmup", "1", "--concurrency", "1"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let csv = String::from_utf8_lossy(&out.stdout);
    let loopback = cell(&csv, wirebench::measure::results::HTTP_HEADER, "p50_ms");
    assert!(!link_is_real(loopback, ideal_ms), "loopback p50 {loopback} ms");
    if !root() {
        eprintln!("skipped: needs root (CAP_NET_ADMIN + CAP_SYS_ADMIN) to create network namespaces");
        return;
    }
    let child = Command::new(BIN)
        .args(["load", "--link", "10mbit,20ms", "--formats", "json", "--counts", "1000"])
        .args(["--rounds", "1", "--duration", "100ms", "--min-requests", "5"])
        .args(["--max-duration", "20s", "--timeout", "30s", "--warmup", "1"])
        .args(["--link-compressions", "none", "--link-concurrency", "1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let csv = String::from_utf8_lossy(&out.stdout);
    let header = wirebench::load::link::link_header();
    // The median of at least five requests, so one slow request on a busy machine moves nothing.
    let requests = cell(&csv, &header, "requests");
    assert!(requests >= 5.0, "{requests} requests");
    let p50 = cell(&csv, &header, "p50_ms");
    assert!(link_is_real(p50, ideal_ms), "p50 {p50} ms vs size×8÷rate {ideal_ms} ms");
    let netem_absent = err.lines().filter(|l| l.contains("netem is absent")).count();
    let rtt = cell(&csv, &header, "rtt_ms");
    assert!(
        (netem_absent == 1 && rtt == 0.0) || (netem_absent == 0 && rtt == 20.0),
        "one rate-only line (rtt 0) or 20 ms added: rtt {rtt}, {err}"
    );
    assert!(csv.contains("# machine: "), "{csv}");
    nothing_left_of(pid, Some(&server_ip(&err)));
}

#[test]
fn a_run_that_fails_after_its_namespaces_exist_leaves_nothing() {
    let Some(_lock) = serial_as_root() else {
        return;
    };
    // The output file cannot be created: found after the namespaces and the server exist.
    let child = Command::new(BIN)
        .args(link_args("100mbit", "1", "50ms"))
        .args(["--output", "/nonexistent-wirebench-dir/link.csv"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--output") && err.contains(&format!("{}{pid}-s", netns::PREFIX)),
        "{err}"
    );
    nothing_left_of(pid, Some(&server_ip(&err)));
}

/// Starts a long link run, waits until its namespaces exist with the
/// server and the client running in them; returns it and their pids.
fn start_long_run() -> (Child, u32, Vec<u32>) {
    let child = Command::new(BIN)
        .args(link_args("100mbit", "1000", "20s"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    // Self-test of the cleanup checks: they see a live run's namespaces.
    assert!(wait_until(30, || ours_of(pid).len() == 2), "namespaces of {pid}");
    let inside = |side: &str| {
        netns::run(&["ip", "netns", "pids", &format!("{}{pid}-{side}", netns::PREFIX)])
            .and_then(|t| netns::parse_pids(&t))
            .unwrap_or_default()
    };
    assert!(
        wait_until(30, || !inside("s").is_empty() && !inside("c").is_empty()),
        "server and client of {pid}"
    );
    let mut pids = inside("s");
    pids.extend(inside("c"));
    assert!(!pids.iter().any(|&p| gone(p)), "the check sees live processes");
    (child, pid, pids)
}

#[test]
fn a_run_killed_with_sigkill_is_cleaned_by_its_watcher() {
    let Some(_lock) = serial_as_root() else {
        return;
    };
    let (mut child, pid, inside) = start_long_run();
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    assert!(
        wait_until(20, || ours_of(pid).is_empty()),
        "watcher left {:?}",
        ours_of(pid)
    );
    assert!(
        wait_until(20, || inside.iter().all(|&p| gone(p))),
        "{inside:?} still run"
    );
    nothing_left_of(pid, None);
}

#[test]
fn a_leftover_of_a_killed_run_is_removed_by_the_next_run() {
    let Some(_lock) = serial_as_root() else {
        return;
    };
    let (mut child, pid, inside) = start_long_run();
    // Kill the watcher first, then the run: its namespaces stay behind.
    let watchers = processes_with(&format!("--link-reaper {}{pid}-s", netns::PREFIX));
    assert_eq!(watchers.len(), 1, "one watcher");
    let st = Command::new("kill")
        .args(["-KILL", &watchers[0].to_string()])
        .status()
        .unwrap();
    assert!(st.success());
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(wait_until(10, || watchers.iter().all(|&p| gone(p))));
    assert_eq!(ours_of(pid).len(), 2, "the leftover exists");
    let next = Command::new(BIN)
        .args(link_args("100mbit", "1", "50ms"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let next_pid = next.id();
    let out = next.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("removed leftovers of dead runs") && err.contains(&format!("{}{pid}-s", netns::PREFIX)),
        "{err}"
    );
    assert!(
        wait_until(20, || inside.iter().all(|&p| gone(p))),
        "{inside:?} still run"
    );
    nothing_left_of(pid, None);
    nothing_left_of(next_pid, Some(&server_ip(&err)));
}

#[test]
fn refusal_without_privileges() {
    // setpriv drops every capability; without setpriv and without root, the plain call refuses too.
    let mut cmd = if root() {
        let mut c = Command::new("setpriv");
        c.args(["--inh-caps=-all", "--bounding-set=-all", BIN]);
        c
    } else {
        Command::new(BIN)
    };
    let out = cmd.args(["load", "--link", "10mbit"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("CAP_NET_ADMIN") && err.contains("sudo"), "{err}");
}

// ---------------------------------------------------------------------------
// The report's link section, from synthetic link files (no root needed)

fn scratch(name: &str) -> Scratch {
    Scratch::copy_of(&format!("link-{name}"), Path::new("fixtures/report"))
}

/// A `link.csv` of run `L`: every format at 1 and 1,000 products, 9
/// rounds, rates 10/100/1,000 Mbit/s, from `p50 = 1 + kB × 8 ÷ rate (+ CPU
/// for gzip)`; the format's raw size grows with its index.
fn link_csv() -> String {
    let mut t = format!(
        "# run: L\n# commit: feedbee\n# start: 2026-12-06T20:00:00Z\n# load: 1.5 1.4 1.3\n# machine: test box, 2 logical cores\n# link: veth, rate-only\n{}\n",
        wirebench::load::link::link_header()
    );
    for round in 1..=9u32 {
        let w = 1.0 + 0.01 * (round % 4) as f64;
        for rate in [10.0, 100.0, 1000.0] {
            for (i, f) in ["json", "msgpack", "protobuf", "avro", "flatbuffers"]
                .iter()
                .enumerate()
            {
                for count in [1usize, 1000] {
                    let raw = if count == 1 { 0.5 } else { 600.0 - 80.0 * i as f64 };
                    for (comp, cpu, kb) in [("none", 0.0, raw), ("gzip1", 2.0, raw / 4.0), ("gzip", 15.0, raw / 7.0)] {
                        // Distinct in every round, so the signed-rank test meets no ties.
                        let jitter = 1.0 + 0.003 * (f64::from(round) * 1.618 + i as f64 * 2.9).sin();
                        let p50 = w * jitter * (1.0 + cpu + kb * 8.0 / rate);
                        t += &format!(
                            "{rate},0,{round},{f},{count},{comp},1,1.0,10,10,1000,{p50},{p50},{p50},{p50},{p50},{p50},0,0,0,0,0,0,0,,,,,,borrowed,,\n"
                        );
                    }
                }
            }
        }
    }
    t + "# end: 2026-12-06T20:09:00Z\n"
}

#[test]
fn the_report_reads_a_link_run_as_a_run_of_its_own() {
    let dir = scratch("report");
    wirebench::report::write_report(&dir).unwrap();
    let plain = std::fs::read_to_string(dir.join("REPORT.md")).unwrap();
    assert!(
        !plain.contains("Off loopback") && !plain.contains("Mbit/s link"),
        "no empty section"
    );
    std::fs::write(dir.join("link.csv"), link_csv()).unwrap();
    // Beside a run of another id (the fixtures are unstamped): no --allow-mixed needed.
    wirebench::report::write_report(&dir).unwrap();
    let md = std::fs::read_to_string(dir.join("REPORT.md")).unwrap();
    for want in [
        "| fastest end to end on a 10 Mbit/s link, raw (c=1 p50, `link.csv`) |",
        "| fastest end to end on a 1,000 Mbit/s link, raw",
        "### Off loopback",
        "run `L (commit feedbee, 2026-12-06T20:00:00Z – 2026-12-06T20:09:00Z",
        "test box",
        "failed requests in every link file: 0",
        "another run than the sweep",
    ] {
        assert!(md.contains(want), "{want:?} in\n{md}");
    }
    // The raw bodies shrink with the format's index: at 10 Mbit/s every pair is ordered.
    assert!(
        md.contains("| fastest end to end on a 10 Mbit/s link, raw (c=1 p50, `link.csv`) | ")
            && md.contains("flatbuffers < avro < protobuf < msgpack < json (every pair ordered"),
        "{md}"
    );
    // The measured break-even of json at 1,000, gzip -6: (600 − 600/7) × 8 ÷ 15 = 274.3 Mbit/s.
    let data = wirebench::report::load(&dir).unwrap();
    let be = wirebench::report::link::break_even(data.link.as_ref().unwrap(), "json", 1000, "gzip").unwrap();
    assert!(matches!(be.median, wirebench::report::link::Crossing::At(_)), "{be:?}");
    assert!((be.median.rank_value() / 274.2857 - 1.0).abs() < 0.01, "{be:?}");
    let text = wirebench::report::link_report::measured_text(&be);
    let json_row = md
        .lines()
        .find(|l| l.starts_with("| 1,000 | json |"))
        .expect("the json row");
    assert!(json_row.contains(&text), "{text} in {json_row}");
    let section: Vec<&str> = md
        .lines()
        .skip_while(|l| !l.starts_with("### Off loopback"))
        .take_while(|l| !l.starts_with("## "))
        .collect();
    assert!(section.len() <= 25, "{} lines", section.len());
    let details = std::fs::read_to_string(dir.join("DETAILS.md")).unwrap();
    assert!(details.contains("## Off loopback: every link case") && details.contains("chart-link.svg"));
    assert!(
        std::fs::read_to_string(dir.join("chart-link.svg"))
            .unwrap()
            .contains("95% interval")
    );
    // `make bench`'s first step keeps the link run.
    wirebench::report::runs::clear(&dir).unwrap();
    assert!(dir.join("link.csv").exists() && !dir.join("REPORT.md").exists());
}

#[test]
fn a_malformed_link_file_stops_the_report_naming_file_and_line() {
    let dir = scratch("malformed");
    let text = link_csv().replacen(",borrowed,,\n", ",borrowed,,,\n", 3);
    std::fs::write(dir.join("link.csv"), text).unwrap();
    let e = wirebench::report::write_report(&dir).unwrap_err();
    assert!(e.contains("link.csv:8:") && e.contains("columns"), "{e}");
}
