//! The verdicts of `wirebench ab` ([`super::ab`]): rows measured in pairs,
//! batch i of BASE beside batch i of NEW in the same round, judged on the
//! per-round ratios NEW/BASE.
//!
//! For each row, with `d_i = ln(new_i / base_i)` over the rounds:
//!
//! - **change**: `exp(median(d)) − 1`, with the distribution-free 95%
//!   interval of that median (`significance::median_ci` on `d`, the sign-test
//!   interval), mapped back the same way;
//! - **p**: the two-sided sign test on `d` (rounds with `d = 0` dropped),
//!   Holm–Bonferroni adjusted over the rows (`significance::holm`);
//! - **significant** when the adjusted p is below α = 0.05, with no noise
//!   threshold: drift between rounds moves both sides of a pair together, so
//!   the pairs carry no run-to-run offset for a threshold to absorb;
//! - **regression** when significant and the change is a slowdown.
//!
//! Each row also shows both sides' medians with their own intervals, and the
//! table ends with the geometric mean of the rows' changes. Rows whose
//! samples are not all positive and finite are left out with a warning: a
//! ratio needs two positive times.

use crate::measure::significance::{self as sig, ALPHA, CONFIDENCE, MedianCi};
use std::fmt::Write as _;

/// One row's paired samples: `base[i]` and `new[i]` come from round i.
#[derive(Clone, Debug, PartialEq)]
pub struct PairedRow {
    pub name: String,
    pub base: Vec<f64>,
    pub new: Vec<f64>,
}

/// A row's verdict (module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct PairedVerdict {
    pub name: String,
    pub base: MedianCi,
    pub new: MedianCi,
    /// new/base − 1 from the median log ratio, and its interval.
    pub change: f64,
    pub lo: f64,
    pub hi: f64,
    /// The interval's real coverage (below 95% for fewer than 6 rounds).
    pub confidence: f64,
    pub p: f64,
    pub p_adjusted: f64,
    pub significant: bool,
    /// Significant and slower (lower is better for every `ab` row).
    pub regression: bool,
}

/// The verdicts of one table, its geomean and the rows left out.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PairedTable {
    pub verdicts: Vec<PairedVerdict>,
    /// Geometric mean of the rows' new/base ratios, − 1.
    pub geomean: Option<f64>,
    pub warnings: Vec<String>,
}

/// The two-sided sign test on `d` (`significance::sign_test`), zeros
/// dropped; 1 when nothing is left to test.
pub fn sign_test(d: &[f64]) -> f64 {
    sig::sign_test(d).unwrap_or(1.0)
}

/// Judges every row (module docs).
pub fn judge(rows: &[PairedRow]) -> PairedTable {
    let mut out = PairedTable::default();
    let mut kept = Vec::new();
    for r in rows {
        let usable = !r.base.is_empty()
            && r.base.len() == r.new.len()
            && r.base.iter().chain(&r.new).all(|&x| x.is_finite() && x > 0.0);
        if usable {
            kept.push(r);
        } else {
            out.warnings.push(format!(
                "{}: left out ({} base and {} new samples, each must be a positive time)",
                r.name,
                r.base.len(),
                r.new.len()
            ));
        }
    }
    let logs: Vec<Vec<f64>> = kept
        .iter()
        .map(|r| r.base.iter().zip(&r.new).map(|(b, n)| (n / b).ln()).collect())
        .collect();
    let ps: Vec<f64> = logs.iter().map(|d| sign_test(d)).collect();
    let adjusted = sig::holm(&ps);
    let mut log_sum = 0.0;
    for (((r, d), &p), &pa) in kept.iter().zip(&logs).zip(&ps).zip(&adjusted) {
        let (Some(base), Some(new), Some(ci)) = (
            sig::median_ci(&r.base, CONFIDENCE),
            sig::median_ci(&r.new, CONFIDENCE),
            sig::median_ci(d, CONFIDENCE),
        ) else {
            continue;
        };
        log_sum += ci.median;
        let significant = pa < ALPHA;
        out.verdicts.push(PairedVerdict {
            name: r.name.clone(),
            base,
            new,
            change: ci.median.exp_m1(),
            lo: ci.lo.exp_m1(),
            hi: ci.hi.exp_m1(),
            confidence: ci.confidence,
            p,
            p_adjusted: pa,
            significant,
            regression: significant && ci.median > 0.0,
        });
    }
    let n = out.verdicts.len();
    out.geomean = (n > 0).then(|| (log_sum / n as f64).exp_m1());
    out
}

impl PairedTable {
    /// The regressions whose change exceeds `pct` percent.
    pub fn regressions_over(&self, pct: f64) -> Vec<&PairedVerdict> {
        self.verdicts
            .iter()
            .filter(|v| v.regression && v.change * 100.0 > pct)
            .collect()
    }
}

fn pct(x: f64) -> String {
    format!("{:+.1}%", x * 100.0)
}

/// The compare-style table: `title` first, then one line per row, the
/// geomean, a count of the rows that differ, and the warnings.
pub fn render(title: &str, t: &PairedTable) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "{title}");
    let _ = writeln!(
        o,
        "{:<34} {:>18} {:>18} {:>34} p",
        "row", "base", "new", "change [95% interval]"
    );
    let side = |m: &MedianCi| {
        format!(
            "{} ±{:.1}%",
            crate::report::numfmt::num(m.median),
            m.rel_half_width() * 100.0
        )
    };
    for v in &t.verdicts {
        let interval = format!("{} [{}, {}]", pct(v.change), pct(v.lo), pct(v.hi));
        let change = if v.significant {
            interval
        } else {
            format!("~ {interval}")
        };
        let _ = writeln!(
            o,
            "{:<34} {:>18} {:>18} {:>34} p={:.3} (adj {:.3}) n={}",
            v.name,
            side(&v.base),
            side(&v.new),
            change,
            v.p,
            v.p_adjusted,
            v.base.n
        );
    }
    if let Some(g) = t.geomean {
        let _ = writeln!(o, "{:<34} {:>18} {:>18} {:>34}", "geomean", "", "", pct(g));
    }
    let flagged = t.verdicts.iter().filter(|v| v.significant).count();
    let _ = writeln!(
        o,
        "{flagged} of {} rows differ significantly (`~`: no evidence of a difference).",
        t.verdicts.len()
    );
    for w in &t.warnings {
        let _ = writeln!(o, "warning: {w}");
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, base: &[f64], new: &[f64]) -> PairedRow {
        PairedRow {
            name: name.into(),
            base: base.to_vec(),
            new: new.to_vec(),
        }
    }

    /// A 3% slowdown under a drift that moves each round by up to ±40%: the
    /// pairs see it, the unpaired samples could not (their ranges overlap).
    #[test]
    fn a_small_change_under_a_large_common_drift_is_found() {
        let mut rng = crate::prng::Rng::new(7);
        let mut base = Vec::new();
        let mut new = Vec::new();
        for _ in 0..20 {
            let drift = 1.0 + 0.8 * (rng.unit_f64() - 0.5);
            let noise = |rng: &mut crate::prng::Rng| 1.0 + 0.01 * (rng.unit_f64() - 0.5);
            base.push(100.0 * drift * noise(&mut rng));
            new.push(103.0 * drift * noise(&mut rng));
        }
        let t = judge(&[row("slow", &base, &new), row("same", &base, &base)]);
        let v = &t.verdicts[0];
        assert!(v.significant && v.regression, "{v:?}");
        assert!(v.lo > 0.02 && v.hi < 0.04 && (v.change - 0.03).abs() < 0.006, "{v:?}");
        assert!(!t.verdicts[1].significant && t.verdicts[1].p == 1.0);
        assert_eq!(t.regressions_over(2.0).len(), 1);
        assert!(t.regressions_over(5.0).is_empty());
        // The unpaired view of the same samples cannot tell them apart.
        let u = sig::mann_whitney(&base, &new).unwrap();
        assert!(u.p > 0.05, "{u:?}");
        let text = render("codec rows", &t);
        assert!(text.contains("1 of 2 rows differ significantly"), "{text}");
        assert!(
            text.lines().any(|l| l.starts_with("same") && l.contains(" ~ ")),
            "{text}"
        );
        assert!(
            text.lines().any(|l| l.starts_with("slow") && !l.contains(" ~ ")),
            "{text}"
        );
    }

    #[test]
    fn sign_test_matches_the_binomial_table() {
        // 10 of 10 positive: 2 · 2^-10.
        assert!((sign_test(&[1.0; 10]) - 2.0 / 1024.0).abs() < 1e-12);
        // 8 of 10: 2 · (1 + 10 + 45) / 1024 = 0.109375.
        let d = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, -1.0, -1.0, 0.0];
        assert!((sign_test(&d) - 0.109375).abs() < 1e-12);
        assert_eq!(sign_test(&[0.0, 0.0]), 1.0);
        assert_eq!(sign_test(&[1.0, -1.0]), 1.0);
    }

    #[test]
    fn holm_spreads_alpha_over_the_rows_and_bad_rows_are_left_out() {
        // 6 of 6 rounds slower: p = 2/64 = 0.031 alone, 0.0625 over two rows.
        let base = [10.0; 6];
        let new = [11.0; 6];
        let alone = judge(&[row("a", &base, &new)]);
        assert!(alone.verdicts[0].significant);
        let two = judge(&[row("a", &base, &new), row("b", &base, &new)]);
        assert!(two.verdicts.iter().all(|v| !v.significant && v.p_adjusted > 0.05));
        let bad = judge(&[row("zero", &[0.0, 1.0], &[1.0, 1.0]), row("short", &[1.0], &[])]);
        assert!(bad.verdicts.is_empty() && bad.geomean.is_none());
        assert_eq!(bad.warnings.len(), 2, "{:?}", bad.warnings);
    }
}
