//! The statistics benchstat uses, so a reader can tell a difference from
//! noise: the median with a distribution-free confidence interval, the
//! Mann–Whitney U test between two samples, and the Holm–Bonferroni
//! correction across the comparisons of one table.
//!
//! - **Median interval** ([`median_ci`]): order statistics. For `n` sorted
//!   values `x(1) ≤ … ≤ x(n)`, the interval `[x(k), x(n+1−k)]` covers the
//!   population median with probability `1 − 2·P(B ≤ k−1)`, `B ~
//!   Binomial(n, ½)`, whatever the distribution. The widest `k` with
//!   coverage ≥ the asked confidence is used; for n = 10 that is `[x(2),
//!   x(9)]` (97.9%), for n = 20 `[x(6), x(15)]` (95.9%). Below n = 6 even
//!   `[min, max]` covers less than 95% (n = 5: 93.75%); the interval is then
//!   `[min, max]` with its real, lower confidence, and [`MedianCi::confidence`]
//!   says so.
//! - **Mann–Whitney U** ([`mann_whitney`]): two-sided, on midranks. Exact
//!   (the U distribution counted by recursion) when neither sample has ties
//!   across the pooled values and `n1 + n2 ≤ 60`; otherwise the normal
//!   approximation with the tie-corrected variance
//!   `n1·n2/12 · ((n+1) − Σ(t³−t)/(n(n−1)))` and a continuity correction of ½.
//! - **Holm–Bonferroni** ([`holm`]): the `m` p-values of a table sorted
//!   ascending, the i-th multiplied by `m − i + 1`, made monotone, capped at
//!   one. A comparison is significant when its adjusted p-value is below α
//!   ([`ALPHA`] = 0.05); the family-wise error rate of the table is then at
//!   most α.

/// The significance level of every test in the report and `compare`.
pub const ALPHA: f64 = 0.05;

/// The confidence of every median interval.
pub const CONFIDENCE: f64 = 0.95;

/// Above this pooled size (or with ties) the U test uses the normal approximation.
pub const EXACT_MAX_N: usize = 60;

/// A median with its order-statistic interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MedianCi {
    pub median: f64,
    pub lo: f64,
    pub hi: f64,
    /// The interval's real coverage (≥ [`CONFIDENCE`] from n = 6 on).
    pub confidence: f64,
    pub n: usize,
}

impl MedianCi {
    /// The interval's half-width relative to the median: the larger of
    /// `(median − lo)/median` and `(hi − median)/median`.
    pub fn rel_half_width(&self) -> f64 {
        if self.median == 0.0 {
            return if self.lo == self.hi { 0.0 } else { f64::INFINITY };
        }
        ((self.median - self.lo).max(self.hi - self.median) / self.median.abs()).abs()
    }

    /// Whether the interval reaches the asked confidence.
    pub fn full_confidence(&self) -> bool {
        self.confidence + 1e-12 >= CONFIDENCE
    }
}

/// P(B ≤ k) for B ~ Binomial(n, ½), in O(k): each term's ln C(n, i) from
/// the one before it, ln C(n, i + 1) = ln C(n, i) + ln(n − i) − ln(i + 1).
pub fn binomial_half_cdf(n: usize, k: usize) -> f64 {
    let ln_half_n = n as f64 * 0.5f64.ln();
    let mut ln_c = 0.0;
    let mut sum = 0.0;
    for i in 0..=k.min(n) {
        sum += (ln_c + ln_half_n).exp();
        ln_c += ((n - i) as f64).ln() - ((i + 1) as f64).ln();
    }
    sum.min(1.0)
}

/// The coverage of `[x(k), x(n+1−k)]` (1-based k) for the median.
pub fn order_coverage(n: usize, k: usize) -> f64 {
    if k == 0 || 2 * k > n + 1 {
        return 0.0;
    }
    1.0 - 2.0 * binomial_half_cdf(n, k - 1)
}

/// The median of `values` with its distribution-free interval at
/// `confidence` (module docs); None when empty. NaN sorts last.
pub fn median_ci(values: &[f64], confidence: f64) -> Option<MedianCi> {
    let median = super::stats::median(values)?;
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let mut k = 1;
    while order_coverage(n, k + 1) >= confidence {
        k += 1;
    }
    Some(MedianCi {
        median,
        lo: v[k - 1],
        hi: v[n - k],
        confidence: order_coverage(n, k),
        n,
    })
}

/// The result of a two-sided Mann–Whitney U test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UTest {
    /// U of the first sample (the number of pairs where it is larger, ties ½).
    pub u: f64,
    pub p: f64,
    /// Whether the exact distribution was used (else the normal approximation).
    pub exact: bool,
}

/// Midranks (1-based) of `pooled`, and the tie-group sizes.
fn midranks(pooled: &[f64]) -> (Vec<f64>, Vec<usize>) {
    let mut idx: Vec<usize> = (0..pooled.len()).collect();
    idx.sort_by(|&a, &b| pooled[a].total_cmp(&pooled[b]));
    let mut ranks = vec![0.0; pooled.len()];
    let mut ties = Vec::new();
    let mut i = 0;
    while i < idx.len() {
        let mut j = i;
        while j + 1 < idx.len() && pooled[idx[j + 1]] == pooled[idx[i]] {
            j += 1;
        }
        let r = (i + j + 2) as f64 / 2.0;
        for &k in &idx[i..=j] {
            ranks[k] = r;
        }
        if j > i {
            ties.push(j - i + 1);
        }
        i = j + 1;
    }
    (ranks, ties)
}

/// Number of arrangements of `n1` and `n2` values with each U = 0 ..= n1·n2,
/// as f64 (exact up to 2⁵³, far beyond [`EXACT_MAX_N`]'s counts' precision needs).
pub fn u_counts(n1: usize, n2: usize) -> Vec<f64> {
    // f[m][u] for the current n2 column, built by f(m, n, u) = f(m−1, n, u−n) + f(m, n−1, u).
    let max = n1 * n2;
    // table[m][n] as vectors of length m*n+1
    let mut prev: Vec<Vec<f64>> = (0..=n1).map(|_| vec![1.0]).collect(); // n = 0: one arrangement, U = 0
    for n in 1..=n2 {
        let mut cur: Vec<Vec<f64>> = Vec::with_capacity(n1 + 1);
        cur.push(vec![1.0]); // m = 0
        for m in 1..=n1 {
            let mut f = vec![0.0; m * n + 1];
            for (u, slot) in f.iter_mut().enumerate() {
                let a = if u >= n {
                    cur[m - 1].get(u - n).copied().unwrap_or(0.0)
                } else {
                    0.0
                };
                let b = prev[m].get(u).copied().unwrap_or(0.0);
                *slot = a + b;
            }
            cur.push(f);
        }
        prev = cur;
    }
    let mut out = prev.swap_remove(n1);
    out.resize(max + 1, 0.0);
    out
}

/// P(U ≤ u) under the null hypothesis, exact.
pub fn u_cdf(n1: usize, n2: usize, u: usize) -> f64 {
    let c = u_counts(n1, n2);
    let total: f64 = c.iter().sum();
    c.iter().take(u + 1).sum::<f64>() / total
}

/// The standard normal's upper tail, 1 − Φ(z) (Numerical Recipes' erfc,
/// relative error below 1.2·10⁻⁷).
pub fn normal_sf(z: f64) -> f64 {
    0.5 * erfc(z / std::f64::consts::SQRT_2)
}

fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let r = t
        * (-z * z - 1.265_512_23
            + t * (1.000_023_68
                + t * (0.374_091_96
                    + t * (0.096_784_18
                        + t * (-0.186_288_06
                            + t * (0.278_868_07
                                + t * (-1.135_203_98
                                    + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77)))))))))
            .exp();
    if x >= 0.0 { r } else { 2.0 - r }
}

/// Two-sided Mann–Whitney U test of `a` against `b` (module docs); None
/// when either is empty.
pub fn mann_whitney(a: &[f64], b: &[f64]) -> Option<UTest> {
    let (n1, n2) = (a.len(), b.len());
    if n1 == 0 || n2 == 0 {
        return None;
    }
    let pooled: Vec<f64> = a.iter().chain(b).copied().collect();
    let (ranks, ties) = midranks(&pooled);
    let r1: f64 = ranks[..n1].iter().sum();
    let u = r1 - (n1 * (n1 + 1)) as f64 / 2.0;
    let n = (n1 + n2) as f64;
    let mu = (n1 * n2) as f64 / 2.0;
    if ties.is_empty() && n1 + n2 <= EXACT_MAX_N {
        let c = u_counts(n1, n2);
        let total: f64 = c.iter().sum();
        let ui = u.round() as usize;
        let lower: f64 = c[..=ui].iter().sum::<f64>() / total;
        let upper: f64 = c[ui..].iter().sum::<f64>() / total;
        return Some(UTest {
            u,
            p: (2.0 * lower.min(upper)).min(1.0),
            exact: true,
        });
    }
    let tie_term: f64 = ties.iter().map(|&t| (t * t * t - t) as f64).sum::<f64>() / (n * (n - 1.0));
    let var = (n1 * n2) as f64 / 12.0 * ((n + 1.0) - tie_term);
    let p = if var <= 0.0 {
        1.0 // every value equal: no evidence of a difference
    } else {
        let z = ((u - mu).abs() - 0.5).max(0.0) / var.sqrt();
        (2.0 * normal_sf(z)).min(1.0)
    };
    Some(UTest { u, p, exact: false })
}

/// Holm–Bonferroni adjusted p-values, in the order given.
pub fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut idx: Vec<usize> = (0..m).collect();
    idx.sort_by(|&a, &b| p[a].total_cmp(&p[b]));
    let mut out = vec![0.0; m];
    let mut running: f64 = 0.0;
    for (i, &k) in idx.iter().enumerate() {
        running = running.max(((m - i) as f64 * p[k]).min(1.0));
        out[k] = running;
    }
    out
}

#[cfg(test)]
mod tests {

    /// The direct sum, each ln C(n, i) from three factorials: the oracle of
    /// the running recurrence in `binomial_half_cdf`.
    fn direct_cdf(n: usize, k: usize) -> f64 {
        let ln_factorial = |n: usize| (2..=n).map(|i| (i as f64).ln()).sum::<f64>();
        (0..=k.min(n))
            .map(|i| (ln_factorial(n) - ln_factorial(i) - ln_factorial(n - i) + n as f64 * 0.5f64.ln()).exp())
            .sum::<f64>()
            .min(1.0)
    }

    #[test]
    fn the_binomial_recurrence_is_the_direct_sum() {
        // Exact: P(B <= 2) for n = 10 is (1 + 10 + 45) / 1024.
        assert!((binomial_half_cdf(10, 2) - 56.0 / 1024.0).abs() < 1e-15);
        assert!((binomial_half_cdf(10, 10) - 1.0).abs() < 1e-12);
        for n in [1, 2, 5, 20, 63, 200, 1000] {
            for k in [0, 1, n / 3, n / 2, n - 1, n] {
                let (a, b) = (binomial_half_cdf(n, k), direct_cdf(n, k));
                assert!((a - b).abs() <= 1e-12 + 1e-9 * b, "n {n} k {k}: {a} against {b}");
            }
        }
        // Self-test: the oracle tells a shifted k apart.
        assert!((binomial_half_cdf(20, 7) - direct_cdf(20, 8)).abs() > 1e-3);
    }
    use super::*;

    /// Published table: 95% order-statistic intervals of the median are ranks
    /// (2, 9) for n = 10, (6, 15) for n = 20, (1, 6) for n = 6 (e.g. Conover,
    /// Practical Nonparametric Statistics, table A3; Hollander & Wolfe).
    #[test]
    fn median_interval_ranks_match_the_table() {
        for (n, k, coverage) in [
            (6, 1, 0.96875),
            (10, 2, 0.978_515_625),
            (20, 6, 0.958_610_534_667_968_8),
            (30, 10, 0.957_226_33),
        ] {
            let v: Vec<f64> = (1..=n).map(|i| i as f64).collect();
            let ci = median_ci(&v, 0.95).unwrap();
            assert_eq!((ci.lo, ci.hi), (k as f64, (n + 1 - k) as f64), "n = {n}");
            assert!((ci.confidence - coverage).abs() < 1e-6, "n = {n}: {}", ci.confidence);
            assert!(ci.full_confidence());
        }
        // n = 5: [min, max] covers only 1 − 2/32.
        let ci = median_ci(&[5.0, 1.0, 4.0, 2.0, 3.0], 0.95).unwrap();
        assert_eq!((ci.median, ci.lo, ci.hi), (3.0, 1.0, 5.0));
        assert!((ci.confidence - 0.9375).abs() < 1e-12);
        assert!(!ci.full_confidence());
        assert_eq!(median_ci(&[], 0.95), None);
        assert!((ci.rel_half_width() - 2.0 / 3.0).abs() < 1e-12);
    }

    /// Published critical values of U (two-sided α = 0.05): 2 for n1 = n2 = 5,
    /// 23 for 10 and 10, 127 for 20 and 20: P(U ≤ crit)·2 ≤ 0.05 < P(U ≤ crit+1)·2.
    #[test]
    fn u_distribution_matches_the_critical_values() {
        for (n, crit) in [(5, 2), (8, 13), (10, 23), (20, 127)] {
            assert!(2.0 * u_cdf(n, n, crit) <= 0.05, "n = {n}");
            assert!(2.0 * u_cdf(n, n, crit + 1) > 0.05, "n = {n}");
        }
        // 5 and 5: C(10, 5) = 252 arrangements; U ≤ 2 in 4 of them.
        assert_eq!(u_counts(5, 5).iter().sum::<f64>(), 252.0);
        assert!((u_cdf(5, 5, 2) - 4.0 / 252.0).abs() < 1e-12);
        assert_eq!(u_counts(2, 3), vec![1.0, 1.0, 2.0, 2.0, 2.0, 1.0, 1.0]);
    }

    #[test]
    fn u_test_exact_and_approximate() {
        let a = [1.0, 2.0, 3.0, 4.0, 5.0];
        let b = [6.0, 7.0, 8.0, 9.0, 10.0];
        let t = mann_whitney(&a, &b).unwrap();
        assert!(t.exact);
        assert_eq!(t.u, 0.0);
        assert!((t.p - 2.0 / 252.0).abs() < 1e-12, "{t:?}");
        assert_eq!(mann_whitney(&b, &a).unwrap().p, t.p, "symmetric");
        // Interleaved samples: no evidence.
        let t = mann_whitney(&[1.0, 3.0, 5.0, 7.0, 9.0], &[2.0, 4.0, 6.0, 8.0, 10.0]).unwrap();
        assert!(t.p > 0.5, "{t:?}");
        // Ties → normal approximation; all equal → p = 1.
        let t = mann_whitney(&[1.0, 1.0, 2.0], &[1.0, 2.0, 2.0]).unwrap();
        assert!(!t.exact && t.p > 0.3);
        assert_eq!(mann_whitney(&[3.0; 4], &[3.0; 4]).unwrap().p, 1.0);
        assert_eq!(mann_whitney(&[], &[1.0]), None);
        // The approximation agrees with the exact value on a large tie-free case.
        let x: Vec<f64> = (0..25).map(|i| (i * 2) as f64).collect();
        let y: Vec<f64> = (0..25).map(|i| (i * 2 + 11) as f64).collect();
        let exact = mann_whitney(&x, &y).unwrap();
        let y_tied: Vec<f64> = y.iter().chain(&[1000.0]).copied().collect();
        let x_tied: Vec<f64> = x.iter().chain(&[1000.0]).copied().collect();
        let approx = mann_whitney(&x_tied, &y_tied).unwrap();
        assert!(exact.exact && !approx.exact);
        assert!((exact.p - approx.p).abs() < 0.02, "{exact:?} {approx:?}");
        // Φ: the upper tail at 1.96 is 0.025.
        assert!((normal_sf(1.959_964) - 0.025).abs() < 1e-6);
        assert!((normal_sf(-1.0) - 0.841_344_746).abs() < 1e-6);
    }

    /// Holm's worked example: p = (0.01, 0.04, 0.03, 0.005) → (0.03, 0.06, 0.06, 0.02).
    #[test]
    fn holm_adjusts_in_order() {
        let adj = holm(&[0.01, 0.04, 0.03, 0.005]);
        let want = [0.03, 0.06, 0.06, 0.02];
        for (a, w) in adj.iter().zip(want) {
            assert!((a - w).abs() < 1e-12, "{adj:?}");
        }
        assert_eq!(holm(&[0.9, 0.8]), vec![1.0, 1.0]);
        assert!(holm(&[]).is_empty());
    }
}
