//! `wirebench report --hlogs` on logs written by another HdrHistogram
//! implementation: `fixtures/report/hlogs/` holds three logs that
//! `locust/wbhlog.py` wrote with the Python `hdrhistogram` package (two
//! workers of run `run1`, one of `run2`). Worker a recorded 1..=900 µs under
//! `json-100-none` and 500 × 250 µs under `msgpack-1-gzip`, worker b
//! 901..=1000 µs, run 2 seven × 5 ms.

use std::path::Path;
use std::process::Command;
use wirebench::report::hlogs::{files_of, pool, table};

const DIR: &str = "fixtures/report/hlogs";

fn close(got: u64, want: f64) {
    assert!((got as f64 - want).abs() <= want * 0.002, "{got} vs {want}");
}

#[test]
fn logs_of_two_workers_merge_into_one_distribution() {
    let files = files_of(DIR).unwrap();
    assert_eq!(files.len(), 3);
    let p = pool(&files, Some("run1")).unwrap();
    assert_eq!((p.files.len(), p.skipped.len()), (2, 1));
    let json = &p.tags["json-100-none"];
    assert_eq!((json.count(), json.files), (1000, 2));
    // The merged p99 (990 µs) is in worker b's log only; worker a alone would say 891 µs.
    close(json.quantile_ns(0.5).unwrap(), 500_000.0);
    close(json.quantile_ns(0.99).unwrap(), 990_000.0);
    close(json.quantile_ns(1.0).unwrap(), 1_000_000.0);
    let msgpack = &p.tags["msgpack-1-gzip"];
    assert_eq!((msgpack.count(), msgpack.files), (500, 1));
    close(msgpack.quantile_ns(0.5).unwrap(), 250_000.0);
    let t = table(&p, None);
    assert!(t.contains("| all | 2 | 1500 |"), "{t}");
    // Without a run id, two runs are an error, never a pool.
    assert!(pool(&files, None).unwrap_err().contains("2 runs (run1, run2)"));
}

#[test]
fn the_command_takes_the_run_id_from_the_environment() {
    let bin = env!("CARGO_BIN_EXE_wirebench");
    let out = Command::new(bin)
        .args(["report", "--hlogs", DIR])
        .env("WB_RUN_ID", "run2")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("Run run2: 1 .hlog files merged, 2 of other runs left out."),
        "{text}"
    );
    // 5 ms reads back as its HdrHistogram slot's midpoint (slots of 4,096 ns there).
    assert!(text.contains("| json-100-none | 1 | 7 | 4.999 |"), "{text}");
    let out = Command::new(bin)
        .args(["report", "--hlogs", DIR])
        .env_remove("WB_RUN_ID")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("choose one with --run-id or WB_RUN_ID"));
    assert!(Path::new(DIR).join("run2-a-3.hlog").exists());
}
