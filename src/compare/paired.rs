//! The verdicts of `wirebench ab` ([`super::ab`]): rows measured in pairs,
//! batch i of BASE beside batch i of NEW in the same round, judged on the
//! per-round ratios NEW/BASE (`significance::paired`, the test the report's
//! decision table uses).
//!
//! For each row, with `d_i = ln(new_i / base_i)` over the rounds:
//!
//! - **change**: `exp(HL(d)) − 1` (Hodges–Lehmann) with its distribution-free
//!   95% interval mapped back the same way;
//! - **p**: the two-sided Wilcoxon signed-rank test on `d`, Holm–Bonferroni
//!   over the rows;
//! - **significant**: adjusted p below α = 0.05 *and* |change| at least the
//!   floor (`--floor`, default [`DEFAULT_FLOOR`]: an A/A of two copies of one
//!   build estimated changes up to 1.7% the test did not separate,
//!   docs/MEASUREMENT.md); a separated row under the floor is shown as such;
//! - **regression**: significant and slower.
//!
//! Both sides' medians come with their own intervals; the table ends with
//! the geomean of the changes. Rows with a sample that is not a positive
//! finite time are left out with a warning.

use crate::measure::significance::{self as sig, ALPHA, CONFIDENCE, MedianCi};
use std::fmt::Write as _;

/// The default floor, as a fraction (module docs).
pub const DEFAULT_FLOOR: f64 = 0.01;

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
    /// new/base − 1 from the HL estimate of the log ratios, and its interval.
    pub change: f64,
    pub lo: f64,
    pub hi: f64,
    /// The interval's real coverage (below 95% for fewer than 6 rounds).
    pub confidence: f64,
    pub p: f64,
    pub p_adjusted: f64,
    /// Adjusted p below α and |change| at least the floor.
    pub significant: bool,
    /// Adjusted p below α, but |change| under the floor.
    pub under_floor: bool,
    /// Significant and slower (lower is better for every `ab` row).
    pub regression: bool,
}

/// The verdicts of one table, its geomean and the rows left out.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PairedTable {
    pub verdicts: Vec<PairedVerdict>,
    /// Geometric mean of the rows' new/base ratios, − 1.
    pub geomean: Option<f64>,
    /// The floor the verdicts were judged with, as a fraction.
    pub floor: f64,
    pub warnings: Vec<String>,
}

/// Judges every row against `floor` (a fraction; module docs).
pub fn judge(rows: &[PairedRow], floor: f64) -> PairedTable {
    let mut out = PairedTable {
        floor,
        ..PairedTable::default()
    };
    let mut kept = Vec::new();
    for r in rows {
        let usable = !r.base.is_empty()
            && r.base.len() == r.new.len()
            && r.base.iter().chain(&r.new).all(|&x| x.is_finite() && x > 0.0);
        let test = usable.then(|| sig::paired(&r.base, &r.new)).flatten();
        match test {
            Some(t) => kept.push((r, t)),
            None => out.warnings.push(format!(
                "{}: left out ({} base and {} new samples, each must be a positive time)",
                r.name,
                r.base.len(),
                r.new.len()
            )),
        }
    }
    let ps: Vec<f64> = kept.iter().map(|(_, t)| t.p).collect();
    let adjusted = sig::holm(&ps);
    let mut log_sum = 0.0;
    for ((r, t), &pa) in kept.iter().zip(&adjusted) {
        let (Some(base), Some(new)) = (sig::median_ci(&r.base, CONFIDENCE), sig::median_ci(&r.new, CONFIDENCE)) else {
            continue;
        };
        log_sum += t.ratio.ln();
        let separated = pa < ALPHA;
        let large = t.change().abs() >= floor;
        out.verdicts.push(PairedVerdict {
            name: r.name.clone(),
            base,
            new,
            change: t.change(),
            lo: t.lo - 1.0,
            hi: t.hi - 1.0,
            confidence: t.confidence,
            p: t.p,
            p_adjusted: pa,
            significant: separated && large,
            under_floor: separated && !large,
            regression: separated && large && t.ratio > 1.0,
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
    let floor = format!("{:.1}%", t.floor * 100.0);
    for v in &t.verdicts {
        let interval = format!("{} [{}, {}]", pct(v.change), pct(v.lo), pct(v.hi));
        let change = if v.significant {
            interval
        } else {
            format!("~ {interval}")
        };
        let note = if v.under_floor {
            format!(" (separated, but under the ±{floor} floor)")
        } else {
            String::new()
        };
        let _ = writeln!(
            o,
            "{:<34} {:>18} {:>18} {:>34} p={:.3} (adj {:.3}) n={}{note}",
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
        "{flagged} of {} rows differ significantly and by at least the ±{floor} floor (`~`: no evidence of a difference that large).",
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
        let t = judge(&[row("slow", &base, &new), row("same", &base, &base)], DEFAULT_FLOOR);
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

    /// A consistent offset of a few tenths of a percent in every round: the
    /// test separates it, the floor keeps it unflagged, and the same samples
    /// judged with no floor are flagged.
    #[test]
    fn a_consistent_offset_under_the_floor_is_shown_but_not_flagged() {
        let base: Vec<f64> = (0..30).map(|i| 100.0 + i as f64).collect();
        let new: Vec<f64> = base
            .iter()
            .enumerate()
            .map(|(i, b)| b * (1.003 + 1e-5 * i as f64))
            .collect();
        let t = judge(&[row("aa", &base, &new)], DEFAULT_FLOOR);
        let v = &t.verdicts[0];
        assert!(
            v.p_adjusted < 0.001 && v.under_floor && !v.significant && !v.regression,
            "{v:?}"
        );
        let text = render("codec rows", &t);
        assert!(text.contains("0 of 1 rows differ significantly"), "{text}");
        assert!(text.contains("under the ±1.0% floor"), "{text}");
        let none = judge(&[row("aa", &base, &new)], 0.0);
        assert!(none.verdicts[0].significant && none.verdicts[0].regression);
        assert!(!none.verdicts[0].under_floor);
        assert_eq!(none.regressions_over(0.2).len(), 1);
    }

    #[test]
    fn holm_spreads_alpha_over_the_rows_and_bad_rows_are_left_out() {
        // 6 of 6 rounds slower, no ties: exact signed-rank p = 2/64 = 0.031
        // alone, 0.0625 over two rows.
        let base = [10.0; 6];
        let new: Vec<f64> = (0..6).map(|i| 11.0 + 0.01 * i as f64).collect();
        let alone = judge(&[row("a", &base, &new)], DEFAULT_FLOOR);
        assert!((alone.verdicts[0].p - 2.0 / 64.0).abs() < 1e-12);
        assert!(alone.verdicts[0].significant);
        let two = judge(&[row("a", &base, &new), row("b", &base, &new)], DEFAULT_FLOOR);
        assert!(two.verdicts.iter().all(|v| !v.significant && v.p_adjusted > 0.05));
        let bad = judge(
            &[row("zero", &[0.0, 1.0], &[1.0, 1.0]), row("short", &[1.0], &[])],
            DEFAULT_FLOOR,
        );
        assert!(bad.verdicts.is_empty() && bad.geomean.is_none());
        assert_eq!(bad.warnings.len(), 2, "{:?}", bad.warnings);
    }
}
