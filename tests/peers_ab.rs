//! `benches/peers-ab.sh --summarize`: the paired old/new summary of an A/B
//! run of the peer benchmark, on made-up Benchmark lines (no timing). A case
//! 3% faster reads "faster", 1% slower with tight rounds "within 3%", 3.5%
//! slower "not shown", and fewer than 6 rounds give no interval.

use std::fmt::Write as _;
use std::process::Command;
use wirebench::prng::Rng;

/// `rounds` rounds of old then new lines for each `(case, new ÷ old)`, every
/// batch `base` ns times uniform noise of ±`noise`.
fn lines(cases: &[(&str, f64)], rounds: usize, noise: f64, seed: u64) -> String {
    let mut rng = Rng::new(seed);
    let mut out = String::new();
    for _ in 0..rounds {
        for (side, new) in [("old", false), ("new", true)] {
            for (case, factor) in cases {
                let f = if new { *factor } else { 1.0 };
                let jitter = 1.0 + noise * (2.0 * rng.unit_f64() - 1.0);
                let ns = (1_000_000.0 * f * jitter) as u64;
                writeln!(out, "{side} Benchmark{case}-1 \t 100\t {ns} ns/op\t 600.00 MB/s").unwrap();
            }
        }
    }
    out
}

/// The summary's table rows by case: (pairs, verdict).
fn summarize(text: &str) -> Vec<(String, usize, String)> {
    let path = std::env::temp_dir().join(format!("wirebench-peers-ab-{}-{}", std::process::id(), text.len()));
    std::fs::write(&path, text).unwrap();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/peers-ab.sh");
    let out = Command::new("sh")
        .args([script, "--summarize"])
        .arg(&path)
        .output()
        .unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("| Benchmark"))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            (cells[1].to_string(), cells[4].parse().unwrap(), cells[7].to_string())
        })
        .collect()
}

fn verdict<'a>(rows: &'a [(String, usize, String)], case: &str) -> &'a str {
    &rows
        .iter()
        .find(|r| r.0.contains(case))
        .unwrap_or_else(|| panic!("{case} in {rows:?}"))
        .2
}

#[test]
fn verdicts_follow_the_interval_of_the_paired_ratio() {
    let cases = [
        ("Decode/fast/1000/ours", 0.97),
        ("Decode/same/1000/ours", 1.01),
        ("Decode/slow/1000/ours", 1.035),
    ];
    let rows = summarize(&lines(&cases, 15, 0.004, 7));
    assert_eq!(rows.len(), 3, "{rows:?}");
    assert!(rows.iter().all(|r| r.1 == 15), "{rows:?}");
    assert_eq!(verdict(&rows, "fast"), "faster");
    assert_eq!(verdict(&rows, "same"), "within 3%");
    assert_eq!(verdict(&rows, "slow"), "not shown");
}

/// Self-test: the same 1% case under ±20% noise cannot be shown within 3%,
/// and 5 rounds give no interval at all.
#[test]
fn noise_and_too_few_rounds_show_nothing() {
    let noisy = summarize(&lines(&[("Decode/same/1000/ours", 1.01)], 15, 0.20, 7));
    assert_eq!(verdict(&noisy, "same"), "not shown");
    let short = summarize(&lines(&[("Decode/same/1000/ours", 1.01)], 5, 0.004, 7));
    assert_eq!(verdict(&short, "same"), "-");
}
