//! The Python helpers of `benches/` that compute what the docs quote,
//! checked against the crate's own statistics.
//!
//! `benches/server-pressure.py ratios` summarises a run's per-round ratios
//! as a median with a distribution-free interval; it must pick the same
//! order statistics as `measure::significance::median_ci`, which the
//! report uses. Skipped (with a message) where `python3` is missing.

use std::process::Command;
use wirebench::measure::significance::median_ci;
use wirebench::prng::Rng;

/// The helper's `median CONFIDENCE X...`: (median, lo, hi, coverage).
fn helper_median(confidence: f64, xs: &[f64]) -> Option<(f64, f64, f64, f64)> {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/server-pressure.py");
    let out = match Command::new("python3")
        .arg(script)
        .arg("median")
        .arg(confidence.to_string())
        .args(xs.iter().map(f64::to_string))
        .output()
    {
        Ok(out) => out,
        Err(e) => {
            eprintln!("skipped: python3 not runnable ({e})");
            return None;
        }
    };
    assert!(
        out.status.success(),
        "helper failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let v: Vec<f64> = text.split_whitespace().map(|t| t.parse().unwrap()).collect();
    assert_eq!(v.len(), 4, "expected 'median lo hi coverage', got {text:?}");
    Some((v[0], v[1], v[2], v[3]))
}

/// Deterministic, unsorted samples with ties: n values on a grid of 50.
fn sample(n: usize, seed: u64) -> Vec<f64> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| rng.below(50) as f64 / 20.0 + 0.3).collect()
}

fn agree(confidence: f64, xs: &[f64]) -> Option<bool> {
    let (median, lo, hi, coverage) = helper_median(confidence, xs)?;
    let ours = median_ci(xs, confidence).unwrap();
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(1.0);
    Some(close(median, ours.median) && close(lo, ours.lo) && close(hi, ours.hi) && close(coverage, ours.confidence))
}

#[test]
fn the_ratio_helper_picks_the_order_statistics_median_ci_picks() {
    for n in 1..=25 {
        for seed in [1, 7, 42] {
            let xs = sample(n, seed);
            match agree(0.95, &xs) {
                None => return,
                Some(ok) => assert!(ok, "n={n} seed={seed}: helper and median_ci differ on {xs:?}"),
            }
        }
    }
}

/// Self-test: the comparison sees a different interval. At n = 10 a 95%
/// interval is x(2)..x(9) and a 99% one x(1)..x(10), so asking the helper
/// for 99% must disagree with median_ci at 95%.
#[test]
fn the_comparison_fails_on_a_different_interval() {
    let xs = sample(10, 3);
    let Some((_, lo, hi, _)) = helper_median(0.99, &xs) else {
        return;
    };
    let ours = median_ci(&xs, 0.95).unwrap();
    assert!(
        lo != ours.lo || hi != ours.hi,
        "a 99% and a 95% interval of 10 values should differ: {xs:?}"
    );
}
