//! `wirebench compare` on small synthetic results directories: an A/A pair
//! (two independent draws of the same noise) marks nothing, a copy with one
//! codec row 10% slower flags that row and no other (power), and
//! `--fail-over` sets the exit code. The same power check runs on the
//! committed `results/` (a real run's raw files), one row made 10% slower,
//! where `--fail-over 5` exits 1.

use std::path::{Path, PathBuf};
use std::process::Command;
use wirebench::compare;
use wirebench::prng::Rng;

const ROWS: [&str; 6] = [
    "Encode/json/100",
    "Decode/json/100",
    "Encode/avro/100",
    "Decode/avro/100",
    "Encode/protobuf/1000",
    "Decode/protobuf/1000",
];

/// A results dir with a `codec.txt` of every row in [`ROWS`], 10 batches
/// each, ±3% uniform noise from `seed`; `slow` names a row made `factor` slower.
fn results_dir(name: &str, seed: u64, slow: Option<(&str, f64)>) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("wirebench-compare-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut rng = Rng::new(seed);
    let mut text = format!("run: {name}\ncommit: abc\n");
    for (i, row) in ROWS.iter().enumerate() {
        let base = 10_000.0 * (i + 1) as f64;
        let factor = slow.filter(|(r, _)| r == row).map_or(1.0, |(_, f)| f);
        for _ in 0..10 {
            let u = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            let v = base * factor * (0.97 + 0.06 * u);
            text += &format!("Benchmark{row}-2 100 {v:.0} ns/op 0 B/op 0 allocs/op {v:.0} cpu-ns/op\n");
        }
    }
    std::fs::write(dir.join("codec.txt"), text).unwrap();
    dir
}

/// The rows marked significant, over every table.
fn flagged(c: &compare::Comparison) -> Vec<&str> {
    c.tables
        .iter()
        .flat_map(|t| &t.verdicts)
        .filter(|v| v.significant)
        .map(|v| v.name.as_str())
        .collect()
}

/// The `ns/op` and `cpu-ns/op` of every line of `row` in a `codec.txt`
/// multiplied by `factor` (what docs/MEASUREMENT.md's `perl` line does).
fn slow_down(codec: &str, row: &str, factor: f64) -> String {
    let prefix = format!("Benchmark{row}-");
    let mut out = String::new();
    for line in codec.lines() {
        if line.starts_with(&prefix) {
            let fields: Vec<&str> = line.split('\t').collect();
            let scaled: Vec<String> = fields
                .iter()
                .map(|f| {
                    let t = f.trim();
                    match t.split_once(' ') {
                        Some((v, unit @ ("ns/op" | "cpu-ns/op"))) => {
                            format!("{:.0} {unit}", v.parse::<f64>().unwrap() * factor)
                        }
                        _ => f.to_string(),
                    }
                })
                .collect();
            out += &scaled.join("\t");
        } else {
            out += line;
        }
        out.push('\n');
    }
    out
}

/// Power on a real run: the committed `results/` against a copy with one
/// codec row 10% slower flags that row and nothing else; the copy of the
/// same files against themselves flags nothing. The row slowed is the run's
/// steadiest codec row (the narrowest interval of its median), so the check
/// holds for any run with one row steady enough to show a 10% change, and
/// fails, naming the narrowest interval, for a run that has none.
#[test]
fn a_real_run_with_one_row_ten_percent_slower_flags_that_row_alone() {
    let results = Path::new(env!("CARGO_MANIFEST_DIR")).join("results");
    let copy = |name: &str| {
        let dir = std::env::temp_dir().join(format!("wirebench-compare-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        for f in ["codec.txt", "sizes.csv", "environment.json"]
            .iter()
            .chain(wirebench::report::HTTP_FILES.iter())
        {
            if let Ok(t) = std::fs::read_to_string(results.join(f)) {
                std::fs::write(dir.join(f), t).unwrap();
            }
        }
        dir
    };
    let (old, slow) = (copy("real-old"), copy("real-slow"));
    let same = compare::compare_dirs(&old, &old).unwrap();
    assert_eq!(same.significant_count().0, 0, "{}", compare::render_text(&same));
    let codec = std::fs::read_to_string(old.join("codec.txt")).unwrap();
    // The codec tables' rows (those whose lines are in codec.txt), steadiest first.
    let mut rows: Vec<(f64, &str)> = same
        .tables
        .iter()
        .filter(|t| !t.table.exact)
        .flat_map(|t| &t.verdicts)
        .filter(|v| codec.contains(&format!("Benchmark{}-", v.name)))
        .map(|v| (v.old.rel_half_width(), v.name.as_str()))
        .collect();
    rows.sort_by(|a, b| a.0.total_cmp(&b.0));
    let &(width, row) = rows.first().expect("results/codec.txt has codec rows");
    let slowed = slow_down(&codec, row, 1.10);
    assert_ne!(slowed, codec, "{row} is in results/codec.txt");
    std::fs::write(slow.join("codec.txt"), slowed).unwrap();

    let ab = compare::compare_dirs(&old, &slow).unwrap();
    assert_eq!(
        flagged(&ab),
        [row],
        "the run's steadiest row, {row} (±{:.1}%), 10% slower: {}",
        width * 100.0,
        compare::render_text(&ab)
    );
    let v = ab
        .tables
        .iter()
        .flat_map(|t| &t.verdicts)
        .find(|v| v.significant)
        .unwrap();
    assert!(v.regression && (v.delta - 0.10).abs() < 0.005, "{v:?}");
    // Self-test: a threshold above the change hides it (the row is then within the noise).
    let hidden = compare::compare_dirs_with(&old, &slow, 0.15).unwrap();
    assert!(flagged(&hidden).is_empty(), "{}", compare::render_text(&hidden));
    // The binary on the committed run: `--fail-over 5` exits 1 for the slowed
    // copy and 0 for the run against itself, and points to `wirebench ab`.
    let (code, text) = bin(&[&old, &slow], &["--fail-over", "5"]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("wirebench ab"), "{text}");
    assert_eq!(bin(&[&old, &old], &["--fail-over", "5"]).0, 0);
    for d in [old, slow] {
        std::fs::remove_dir_all(d).unwrap();
    }
}

fn bin(args: &[&Path], extra: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_wirebench"))
        .arg("compare")
        .args(args)
        .args(extra)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn a_a_marks_nothing_and_one_slower_row_is_flagged_alone() {
    let old = results_dir("old", 1, None);
    let same = results_dir("same", 2, None);
    let slow = results_dir("slow", 2, Some(("Decode/avro/100", 1.10)));

    let aa = compare::compare_dirs(&old, &same).unwrap();
    assert_eq!(aa.significant_count(), (0, ROWS.len()), "{}", compare::render_text(&aa));

    let ab = compare::compare_dirs(&old, &slow).unwrap();
    assert_eq!(flagged(&ab), ["Decode/avro/100"], "{}", compare::render_text(&ab));
    let v = ab
        .tables
        .iter()
        .flat_map(|t| &t.verdicts)
        .find(|v| v.significant)
        .unwrap();
    assert!(v.regression && (v.delta - 0.10).abs() < 0.03, "{v:?}");

    // Exit codes: 0 without --fail-over or under it, 1 over it, 2 on bad input.
    assert_eq!(bin(&[&old, &slow], &[]).0, 0);
    assert_eq!(bin(&[&old, &slow], &["--fail-over", "20"]).0, 0);
    let (code, text) = bin(&[&old, &slow], &["--fail-over", "5"]);
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("Decode/avro/100"));
    assert_eq!(bin(&[&old, &same], &["--fail-over", "1"]).0, 0, "A/A never fails");
    let (code, json) = bin(&[&old, &slow], &["--format", "json"]);
    assert_eq!(code, 0);
    assert!(
        json.starts_with("{\"alpha\": 0.05") && json.contains("\"regression\": true"),
        "{json}"
    );
    assert_eq!(bin(&[&old], &[]).0, 2, "one directory is a usage error");
    // Faster is never a regression, however large.
    assert_eq!(bin(&[&slow, &old], &["--fail-over", "1"]).0, 0);
    for d in [old, same, slow] {
        std::fs::remove_dir_all(d).unwrap();
    }
}

/// Two runs whose decision tables order a pair oppositely are reported;
/// the same order twice is not.
#[test]
fn decision_table_reversals_are_listed() {
    let write = |name: &str, json: u64, avro: u64| {
        let dir = std::env::temp_dir().join(format!("wirebench-compare-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let row = |f: &str, b: u64| format!("{f},1,{b},{b},{b},{b},{b}.0,{b}.0,1.0,1.0,1.0,,,,,,,,,,,,,,,\n");
        let text = format!(
            "# run: {name}\n{}\n{}{}",
            wirebench::measure::results::SIZES_HEADER,
            row("json", json),
            row("avro", avro)
        );
        std::fs::write(dir.join("sizes.csv"), text).unwrap();
        dir
    };
    let a = write("rev-a", 100, 200);
    let b = write("rev-b", 200, 100);
    let c = write("rev-c", 150, 300);
    let ab = compare::compare_dirs(&a, &b).unwrap();
    assert_eq!(ab.reversals.len(), 2, "raw and gzip -6: {:?}", ab.reversals);
    assert!(
        ab.reversals[0].contains("json before avro (old), avro before json (new)"),
        "{:?}",
        ab.reversals
    );
    assert!(compare::render_text(&ab).contains("opposite directions by the two runs: 2."));
    assert!(compare::compare_dirs(&a, &c).unwrap().reversals.is_empty());
    for d in [a, b, c] {
        std::fs::remove_dir_all(d).unwrap();
    }
}

/// `calibration:` lines (`wirebench::measure::calibration`): `n` samples of each loop, ±0.5% uniform noise
/// from `seed`, the CPU loop scaled by `cpu` and the memory loop by `mem`.
fn calibration_lines(seed: u64, n: usize, cpu: f64, mem: f64) -> String {
    let mut rng = Rng::new(seed);
    let mut u = || 0.995 + 0.01 * ((rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64);
    (0..n)
        .map(|i| {
            let s = wirebench::measure::calibration::Sample {
                round: i / 4 + 1,
                case: None,
                at_s: i as f64,
                cpu_us: 1500.0 * cpu * u(),
                mem_us: 800.0 * mem * u(),
            };
            s.line("")
        })
        .collect()
}

/// The calibration of two runs: no warning for two draws of one machine,
/// "the machines differ" naming the loop for a copy whose CPU loop runs 6%
/// slower, nothing for a 1% shift (inside the tolerance) or for a memory
/// loop 30% slower (shown, not warned about), and never a flagged row: the
/// calibration is not among the rows.
#[test]
fn a_doctored_calibration_warns_that_the_machines_differ() {
    let with = |name: &str, seed: u64, cpu: f64, mem: f64| {
        let dir = results_dir(name, 1, None);
        let codec = std::fs::read_to_string(dir.join("codec.txt")).unwrap();
        std::fs::write(dir.join("codec.txt"), codec + &calibration_lines(seed, 40, cpu, mem)).unwrap();
        dir
    };
    let old = with("cal-old", 10, 1.0, 1.0);
    let same = with("cal-same", 11, 1.0, 1.0);
    let slow = with("cal-slow", 11, 1.06, 1.0);
    let nudged = with("cal-nudged", 11, 1.0, 1.01);
    let machine = |c: &compare::Comparison| -> Vec<String> {
        c.warnings
            .iter()
            .filter(|w| w.starts_with("the machines differ: calibration"))
            .cloned()
            .collect()
    };

    let aa = compare::compare_dirs(&old, &same).unwrap();
    assert!(machine(&aa).is_empty(), "{}", compare::render_text(&aa));
    let cal = aa.calibration.as_ref().expect("both runs have calibration lines");
    assert_eq!(cal.verdicts.len(), 2);
    assert_eq!(aa.significant_count(), (0, ROWS.len()));

    let ab = compare::compare_dirs(&old, &slow).unwrap();
    let w = machine(&ab);
    assert_eq!(w.len(), 1, "{}", compare::render_text(&ab));
    assert!(w[0].contains("codec.txt cpu loop +6."), "{}", w[0]);
    assert!(w[0].contains("slower in the new run"), "{}", w[0]);
    assert_eq!(ab.significant_count(), (0, ROWS.len()), "the calibration is no row");
    let text = compare::render_text(&ab);
    assert!(text.contains("calibration (a fixed CPU loop") && text.contains("warning: the machines differ"));
    let (code, json) = bin(&[&old, &slow], &["--format", "json"]);
    assert_eq!(code, 0);
    assert!(
        json.contains("\"calibration\": {\"table\"") && json.contains("the machines differ"),
        "{json}"
    );

    // The memory loop 30% slower is shown in the table, never warned about.
    let mem = with("cal-mem", 11, 1.0, 1.30);
    let am = compare::compare_dirs(&old, &mem).unwrap();
    assert!(machine(&am).is_empty(), "{}", compare::render_text(&am));
    let mrow = am
        .calibration
        .as_ref()
        .unwrap()
        .verdicts
        .iter()
        .find(|v| v.name.ends_with("memory loop"))
        .unwrap();
    assert!(
        mrow.significant && mrow.delta > 0.25,
        "the change is measured: {}",
        mrow.delta
    );
    std::fs::remove_dir_all(mem).unwrap();

    let small = compare::compare_dirs(&old, &nudged).unwrap();
    assert!(
        machine(&small).is_empty(),
        "1% is inside the tolerance: {}",
        compare::render_text(&small)
    );
    // Without calibration lines on one side there is nothing to compare.
    let bare = results_dir("cal-bare", 3, None);
    assert!(compare::compare_dirs(&bare, &slow).unwrap().calibration.is_none());
    for d in [old, same, slow, nudged, bare] {
        std::fs::remove_dir_all(d).unwrap();
    }
}
