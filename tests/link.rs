//! `wirebench load --link`: the rate is real, nothing is left behind, the
//! refusal without privileges, the rate-only line without netem. Needs root
//! (run by `.ci/run`); skipped with a printed reason otherwise, except the refusal.

use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_wirebench");

fn root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| wirebench::load::netns::cap_eff(&s))
        .is_some_and(|c| c & (1 << 12) != 0 && c & (1 << 21) != 0)
}

fn ours() -> Vec<String> {
    wirebench::load::netns::ours().unwrap()
}

#[test]
fn link_rate_is_real_cleanup_and_netem_line() {
    if !root() {
        eprintln!("skipped: needs root (CAP_NET_ADMIN + CAP_SYS_ADMIN) to create network namespaces");
        return;
    }
    let out = Command::new(BIN)
        .args([
            "load",
            "--link",
            "10mbit,20ms",
            "--formats",
            "json",
            "--counts",
            "1000",
            "--rounds",
            "1",
        ])
        .args([
            "--duration",
            "100ms",
            "--warmup",
            "1",
            "--link-compressions",
            "none",
            "--link-concurrency",
            "1",
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let csv = String::from_utf8_lossy(&out.stdout);
    let row = csv.lines().find(|l| l.starts_with("10,")).expect("a data row");
    let cells: Vec<&str> = row.split(',').collect();
    // rate_mbps,rtt_ms,round,format,count,compression,concurrency,duration_s,requests,rps,bytes_per_s,p50_ms
    let p50: f64 = cells[11].parse().unwrap();
    let body = wirebench::codec::Format::Json
        .encode_to_vec(&wirebench::fixtures::catalog(1000).products)
        .unwrap()
        .len() as f64;
    let ideal_ms = body * 8.0 / 10e6 * 1e3;
    assert!(
        p50 >= ideal_ms && p50 <= ideal_ms * 1.15,
        "p50 {p50} ms vs size×8÷rate {ideal_ms} ms"
    );
    let netem_absent = err.lines().filter(|l| l.contains("netem is absent")).count();
    assert!(
        netem_absent == 1 || cells[1] == "20",
        "one rate-only line or 20 ms added: {err}"
    );
    assert!(ours().is_empty(), "left behind: {:?}", ours());
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
