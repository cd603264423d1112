//! CPU accounting over real loopback rounds: the sides add up to the
//! process's own CPU time, a server-heavy case lands on the server, and
//! `--server-pid` reads another process's threads.
//!
//! The process total is read by the whole test binary, so the rounds run one
//! at a time (one lock) and nothing else in this file runs beside them. Each
//! round is 1 s; the whole file stays within a few seconds of load.

mod support;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::Duration;
use wirebench::codec::Format;
use wirebench::load::round::{RoundCpu, RoundStats};
use wirebench::load::verify::{Check, Target};
use wirebench::load::{client, closed};
use wirebench::payload::Payload;

/// Rounds read process-wide totals: one at a time.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

const ROUND: Duration = Duration::from_secs(1);

/// One tick of `/proc/self/stat` (the process total's resolution; each of its
/// two reads truncates), from the `USER_HZ` the code reads from the
/// auxiliary vector.
fn tick_ns() -> f64 {
    1e9 / wirebench::measure::cpu::ticks_per_second() as f64
}

fn catalog_target(addr: SocketAddr, format: Format, count: usize, gzip: bool) -> Target {
    let host = addr.to_string();
    let path = format!(
        "/catalog/{}?count={count}&compression={}",
        format.name(),
        if gzip { "gzip" } else { "none" }
    );
    Target {
        addr,
        url: format!("http://{host}{path}"),
        request: client::get_request(&host, &path),
        check: Check::Payload {
            payload: Payload::fixture(count),
            format,
            gzip: Some(gzip),
            verify: wirebench::load::verify::Verify::Borrowed,
        },
        timeout: Duration::from_secs(30),
        server_pid: None,
    }
}

fn cpu_of(st: &RoundStats, what: &str) -> RoundCpu {
    assert_eq!(st.errors.total(), 0, "{what}: {:?}", st.errors);
    assert!(st.requests > 0, "{what}: no request completed");
    st.cpu.unwrap_or_else(|| panic!("{what}: no CPU accounting"))
}

/// server + client = the process's own CPU time, within 5% (plus the total's
/// tick resolution); returns (server ns, client ns).
fn assert_adds_up(cpu: &RoundCpu, what: &str) -> (f64, f64) {
    assert!(cpu.server_in_process, "{what}");
    let server = cpu
        .server
        .unwrap_or_else(|| panic!("{what}: no server threads found"))
        .ns as f64;
    let client = cpu.client.ns as f64;
    let process = cpu.process.ns as f64;
    eprintln!(
        "{what}: server {:.1} ms, client {:.1} ms, process {:.1} ms, unattributed {:.1} ms",
        server / 1e6,
        client / 1e6,
        process / 1e6,
        cpu.unattributed_ns() as f64 / 1e6
    );
    assert!(server > 0.0 && client > 0.0, "{what}: both sides ran");
    let gap = (process - (server + client)).abs();
    assert!(
        gap <= 0.05 * process + 2.0 * tick_ns(),
        "{what}: server {server} + client {client} ns is not within 5% of the process's {process} ns"
    );
    (server, client)
}

#[test]
fn sides_add_up_and_a_gzip_case_is_charged_to_the_server() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let server = support::server::start();
    let addr = server.local_addr();

    // Many small requests: much of the time is kernel work (syscalls, loopback TCP).
    let st = closed::run(&catalog_target(addr, Format::Protobuf, 10, false), 8, ROUND).unwrap();
    let cpu = cpu_of(&st, "protobuf count=10");
    assert_adds_up(&cpu, "protobuf count=10");
    for (side, t) in [("server", cpu.server.unwrap()), ("client", cpu.client)] {
        let user = t.user_share().expect("ticks were counted");
        assert!((0.0..=1.0).contains(&user), "{side} user share {user}");
    }

    // gzip -6 of 1,000 products is the heaviest thing the server does per
    // request. Against the same case uncompressed, the extra CPU per request
    // must land on the server (deflate), not on the client (inflate, about a
    // fifth of deflate's work). Compared as a difference because this test
    // binary is unoptimized: the client's decode of 1,000 products costs more
    // here than in a release build and would blur a plain ratio.
    let per_req = |what: &str, gzip: bool| {
        let st = closed::run(&catalog_target(addr, Format::Avro, 1000, gzip), 4, ROUND).unwrap();
        let (s, c) = assert_adds_up(&cpu_of(&st, what), what);
        (s / st.requests as f64, c / st.requests as f64)
    };
    let (plain_server, plain_client) = per_req("avro count=1000", false);
    let (gzip_server, gzip_client) = per_req("avro count=1000 gzip", true);
    let (extra_server, extra_client) = (gzip_server - plain_server, (gzip_client - plain_client).max(0.0));
    eprintln!(
        "avro count=1000, ns per request: server {plain_server:.0} → {gzip_server:.0} with gzip, client {plain_client:.0} → {gzip_client:.0}"
    );
    assert!(
        extra_server >= 2.0 * extra_client && gzip_server >= 2.0 * plain_server,
        "gzip's CPU should be charged to the server: server {plain_server:.0} → {gzip_server:.0} ns per request, \
         client {plain_client:.0} → {gzip_client:.0}"
    );
    server.shutdown();
}

/// `wirebench serve` as a separate process, killed when dropped.
struct ChildServer {
    child: Child,
    addr: SocketAddr,
}

impl ChildServer {
    fn start() -> ChildServer {
        let mut child = Command::new(env!("CARGO_BIN_EXE_wirebench"))
            .args(["serve", "--addr", "127.0.0.1:0", "--max-count", "10"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("wirebench serve starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|r| r.split_whitespace().next())
            .and_then(|a| a.parse().ok())
            .unwrap_or_else(|| panic!("no address in {line:?}"));
        ChildServer { child, addr }
    }
}

impl Drop for ChildServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn server_pid_reads_the_other_process() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let child = ChildServer::start();
    let mut target = Target::from_url(
        &format!("http://{}/catalog/json?count=10", child.addr),
        Check::Status200,
        Duration::from_secs(10),
    )
    .unwrap();
    target.server_pid = Some(child.child.id());
    let st = closed::run(&target, 4, ROUND).unwrap();
    let cpu = cpu_of(&st, "--server-pid");
    assert!(!cpu.server_in_process);
    let server = cpu.server.expect("the other process was read");
    eprintln!(
        "--server-pid: server {:.1} ms, client {:.1} ms, this process {:.1} ms over {} requests",
        server.ns as f64 / 1e6,
        cpu.client.ns as f64 / 1e6,
        cpu.process.ns as f64 / 1e6,
        st.requests
    );
    assert!(server.ns > 0, "the server process served {} requests", st.requests);
    // This process holds the client only: its total is the client's.
    let gap = (cpu.process.ns as f64 - cpu.client.ns as f64).abs();
    assert!(gap <= 0.05 * cpu.process.ns as f64 + 2.0 * tick_ns(), "{cpu:?}");
}
