//! The statistics benchstat uses, so a reader can tell a difference from
//! noise.
//!
//! - **Median interval** ([`median_ci`]): for `n` sorted values, `[x(k),
//!   x(n+1−k)]` covers the population median with probability `1 −
//!   2·P(B ≤ k−1)`, `B ~ Binomial(n, ½)`, whatever the distribution; the widest
//!   `k` reaching the asked confidence is used (n = 10: `[x(2), x(9)]`, 97.9%).
//!   Below n = 6 even `[min, max]` covers less than 95%; it is used with its
//!   real confidence, which [`MedianCi::confidence`] gives.
//! - **Mann–Whitney U** ([`mann_whitney`]): two-sided, on midranks; exact
//!   (counted by recursion) without ties and with `n1 + n2 ≤` [`EXACT_MAX_N`],
//!   else normal with the tie-corrected variance `n1·n2/12 · ((n+1) −
//!   Σ(t³−t)/(n(n−1)))` and a continuity correction of ½.
//! - **Holm–Bonferroni** ([`holm`]): the `m` p-values sorted ascending, the
//!   i-th times `m − i + 1`, made monotone, capped at one; significant below
//!   [`ALPHA`], so the table's family-wise error rate is at most α.
//!
//! Paired samples (pair `i` from round `i`) are compared on their log ratios
//! `d_i = ln(b_i/a_i)`, so a drift that multiplies both values of a round
//! cancels:
//!
//! - **Wilcoxon signed-rank** ([`signed_rank`]): `W+` = the sum of the ranks
//!   of `|d_i|` over positive `d_i`, two-sided; exact without zeros or ties
//!   and `n ≤` [`EXACT_MAX_PAIRS`], else normal with Pratt's zero handling,
//!   the tie correction `Σ(t³−t)/48` and a continuity correction of ½ (scipy's
//!   `wilcoxon(zero_method="pratt", correction=True, method="approx")`).
//! - **Hodges–Lehmann** ([`hodges_lehmann`]): the median of the `n(n+1)/2`
//!   Walsh averages `(d_i + d_j)/2, i ≤ j`, with the interval `[W(k+1),
//!   W(M−k)]`, `k` the largest with `P(W+ ≤ k) ≤ (1 − confidence)/2` (Hollander
//!   & Wolfe §3.2); below n = 6 [`PairedTest::confidence`] is under 95%.
//! - **[`paired`]**: both as a ratio `b/a` (`exp` of the HL estimate and
//!   interval), the signed-rank p, and the **minimum detectable effect**
//!   `exp(max(ln hi − ln est, ln est − ln lo)) − 1`: a true change that large
//!   moves the interval to touch 1, so "≈" reads "within ±MDE".
//! - **Sign test** ([`sign_test`]): `p = 2·P(B ≤ min(#pos, #neg))` on the same
//!   log ratios, zeros dropped.

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

/// The `(lo, hi)` of [`median_ci`] at [`CONFIDENCE`].
pub fn ci95(values: &[f64]) -> Option<(f64, f64)> {
    median_ci(values, CONFIDENCE).map(|c| (c.lo, c.hi))
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
        let p = exact_p(&u_counts(n1, n2), u);
        return Some(UTest { u, p, exact: true });
    }
    let tie_term: f64 = ties.iter().map(|&t| (t * t * t - t) as f64).sum::<f64>() / (n * (n - 1.0));
    let var = (n1 * n2) as f64 / 12.0 * ((n + 1.0) - tie_term);
    let p = normal_p(u, mu, var);
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

/// Up to this many nonzero pairs without ties the signed-rank test and the
/// HL interval use the exact distribution (2⁵⁰ sign patterns: exact in f64).
pub const EXACT_MAX_PAIRS: usize = 50;

/// Above this many pairs [`paired`] declines (the `n(n+1)/2` Walsh averages
/// would be too many to hold); rounds of a run are far fewer.
pub const MAX_PAIRS: usize = 4000;

/// The number of the `2ⁿ` sign patterns of ranks `1..=n` with each
/// `W+ = 0 ..= n(n+1)/2`: `c_n(w) = c_{n−1}(w) + c_{n−1}(w − n)`.
pub fn signed_rank_counts(n: usize) -> Vec<f64> {
    let max = n * (n + 1) / 2;
    let mut c = vec![0.0; max + 1];
    c[0] = 1.0;
    for k in 1..=n {
        let top = k * (k + 1) / 2;
        for w in (k..=top).rev() {
            c[w] += c[w - k];
        }
    }
    c
}

/// P(W+ ≤ w) under the null hypothesis, exact, for `n` untied nonzero pairs.
pub fn signed_rank_cdf(n: usize, w: usize) -> f64 {
    cdf(&signed_rank_counts(n), w)
}

/// P(X ≤ x) from the null distribution's counts `c`.
fn cdf(c: &[f64], x: usize) -> f64 {
    c.iter().take(x + 1).sum::<f64>() / c.iter().sum::<f64>()
}

/// The exact two-sided p of statistic `x` from the null distribution's counts.
fn exact_p(c: &[f64], x: f64) -> f64 {
    let i = (x.round() as usize).min(c.len() - 1);
    let total: f64 = c.iter().sum();
    let (lower, upper) = (c[..=i].iter().sum::<f64>() / total, c[i..].iter().sum::<f64>() / total);
    (2.0 * lower.min(upper)).min(1.0)
}

/// The two-sided p of `x` under the normal approximation with a continuity
/// correction of ½; 1 when the variance is 0 (every value equal).
fn normal_p(x: f64, mean: f64, var: f64) -> f64 {
    if var <= 0.0 {
        return 1.0;
    }
    let z = ((x - mean).abs() - 0.5).max(0.0) / var.sqrt();
    (2.0 * normal_sf(z)).min(1.0)
}

/// The result of a two-sided Wilcoxon signed-rank test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SignedRank {
    /// The sum of the ranks of the positive differences (Pratt ranks when
    /// zeros are present).
    pub w_plus: f64,
    pub p: f64,
    /// Whether the exact distribution was used (else the normal approximation).
    pub exact: bool,
    /// The number of nonzero differences.
    pub n: usize,
    /// The number of zero differences.
    pub zeros: usize,
}

/// Two-sided Wilcoxon signed-rank test of the differences `d` against 0
/// (module docs). None when `d` is empty or holds a non-finite value.
pub fn signed_rank(d: &[f64]) -> Option<SignedRank> {
    if d.is_empty() || d.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let abs: Vec<f64> = d.iter().map(|x| x.abs()).collect();
    let (ranks, _) = midranks(&abs);
    let zeros = d.iter().filter(|&&x| x == 0.0).count();
    let n = d.len() - zeros;
    let w_plus: f64 = d.iter().zip(&ranks).filter(|(x, _)| **x > 0.0).map(|(_, r)| r).sum();
    if n == 0 {
        return Some(SignedRank {
            w_plus,
            p: 1.0,
            exact: false,
            n,
            zeros,
        });
    }
    // Ties among the nonzero |d| (zeros are one group of their own).
    let nonzero: Vec<f64> = abs.iter().copied().filter(|&x| x != 0.0).collect();
    let (_, ties) = midranks(&nonzero);
    let exact = zeros == 0 && ties.is_empty() && n <= EXACT_MAX_PAIRS;
    let p = if exact {
        exact_p(&signed_rank_counts(n), w_plus)
    } else {
        let (nt, zt) = ((n + zeros) as f64, zeros as f64);
        let mean = (nt * (nt + 1.0) - zt * (zt + 1.0)) / 4.0;
        let tie_term: f64 = ties.iter().map(|&t| (t * t * t - t) as f64).sum::<f64>() / 48.0;
        let var = (nt * (nt + 1.0) * (2.0 * nt + 1.0) - zt * (zt + 1.0) * (2.0 * zt + 1.0)) / 24.0 - tie_term;
        normal_p(w_plus, mean, var)
    };
    Some(SignedRank {
        w_plus,
        p,
        exact,
        n,
        zeros,
    })
}

/// The standard normal quantile Φ⁻¹(q) for 0 < q < 1, by bisection on
/// [`normal_sf`] (its precision, ~10⁻⁷, is all the intervals need).
pub fn normal_quantile(q: f64) -> f64 {
    let (mut lo, mut hi) = (-40.0f64, 40.0f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if 1.0 - normal_sf(mid) < q {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// The Hodges–Lehmann estimate of a location shift with its interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HodgesLehmann {
    /// The median of the Walsh averages.
    pub estimate: f64,
    pub lo: f64,
    pub hi: f64,
    /// The interval's coverage (exact for n ≤ [`EXACT_MAX_PAIRS`], the
    /// normal approximation's beyond; below the asked one only for n < 6).
    pub confidence: f64,
    pub n: usize,
}

/// The HL interval for `n` pairs at `confidence` (module docs): `k`, the
/// sorted Walsh averages left out on each side, and the coverage `1 −
/// 2·P(W+ ≤ k)`; for n < 6 no `k` qualifies and `k = 0` covers less.
pub fn hl_interval_rank(n: usize, confidence: f64) -> (usize, f64) {
    let m = n * (n + 1) / 2;
    let tail = (1.0 - confidence) / 2.0;
    if n <= EXACT_MAX_PAIRS {
        let c = signed_rank_counts(n);
        let total: f64 = c.iter().sum();
        let mut cum = 0.0;
        let mut k = 0;
        for (w, &cw) in c.iter().enumerate() {
            cum += cw / total;
            if cum > tail * (1.0 + 1e-12) {
                break;
            }
            k = w;
        }
        let k = k.min(m.saturating_sub(1) / 2);
        return (k, 1.0 - 2.0 * c[..=k].iter().sum::<f64>() / total);
    }
    let sd = ((n * (n + 1) * (2 * n + 1)) as f64 / 24.0).sqrt();
    let z = normal_quantile(1.0 - tail);
    let k = (m as f64 / 2.0 - z * sd - 0.5).floor().max(0.0) as usize;
    let cover = 1.0 - 2.0 * normal_sf((m as f64 / 2.0 - k as f64 - 0.5) / sd);
    (k, cover.clamp(0.0, 1.0))
}

/// The Hodges–Lehmann estimate of `d`'s center with its distribution-free
/// interval at `confidence` (module docs); None when empty, larger than
/// [`MAX_PAIRS`] or holding a non-finite value.
pub fn hodges_lehmann(d: &[f64], confidence: f64) -> Option<HodgesLehmann> {
    let n = d.len();
    if n == 0 || n > MAX_PAIRS || d.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let mut walsh = Vec::with_capacity(n * (n + 1) / 2);
    for i in 0..n {
        for j in i..n {
            walsh.push((d[i] + d[j]) / 2.0);
        }
    }
    walsh.sort_by(f64::total_cmp);
    let m = walsh.len();
    let estimate = if m % 2 == 1 {
        walsh[m / 2]
    } else {
        (walsh[m / 2 - 1] + walsh[m / 2]) / 2.0
    };
    let (k, cover) = hl_interval_rank(n, confidence);
    Some(HodgesLehmann {
        estimate,
        lo: walsh[k],
        hi: walsh[m - 1 - k],
        confidence: cover,
        n,
    })
}

/// The two-sided sign test of `d` against 0, zeros dropped; None when every
/// value is zero, non-finite or `d` is empty.
pub fn sign_test(d: &[f64]) -> Option<f64> {
    if d.iter().any(|x| !x.is_finite()) {
        return None;
    }
    let pos = d.iter().filter(|&&x| x > 0.0).count();
    let neg = d.iter().filter(|&&x| x < 0.0).count();
    if pos + neg == 0 {
        return None;
    }
    Some((2.0 * binomial_half_cdf(pos + neg, pos.min(neg))).min(1.0))
}

/// A paired comparison of `b` against `a` as a ratio `b/a` (module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairedTest {
    /// `exp` of the HL estimate of the log ratios: the typical `b/a`.
    pub ratio: f64,
    /// The ratio's interval at [`CONFIDENCE`].
    pub lo: f64,
    pub hi: f64,
    /// The interval's real coverage (below [`CONFIDENCE`] only for n < 6).
    pub confidence: f64,
    /// The signed-rank test's two-sided p (unadjusted: apply [`holm`] over a table).
    pub p: f64,
    /// Whether p came from the exact distribution.
    pub exact: bool,
    /// The number of usable pairs.
    pub n: usize,
    /// The minimum detectable effect as a fraction (0.05 = 5%): the larger
    /// half-width of the ratio interval, `exp(max(ln hi − ln r, ln r − ln lo)) − 1`.
    pub mde: f64,
}

impl PairedTest {
    /// Whether `b` differs from `a` at [`ALPHA`] by this test alone (a table
    /// of several pairs adjusts with [`holm`] first).
    pub fn significant(&self) -> bool {
        self.p < ALPHA
    }

    /// The change `b/a − 1` as a fraction.
    pub fn change(&self) -> f64 {
        self.ratio - 1.0
    }
}

/// The per-pair log ratios `ln(b_i/a_i)` of the pairs where both values are
/// positive and finite (a zero or failed sample cannot form a ratio).
pub fn log_ratios(a: &[f64], b: &[f64]) -> Vec<f64> {
    a.iter()
        .zip(b)
        .filter(|(x, y)| x.is_finite() && y.is_finite() && **x > 0.0 && **y > 0.0)
        .map(|(x, y)| (y / x).ln())
        .collect()
}

/// Compares `b[i]` with `a[i]`, measured in the same round `i` (module
/// docs). Pairs with a non-positive or non-finite value are skipped; None
/// when the lengths differ, no pair is usable or there are more than [`MAX_PAIRS`].
pub fn paired(a: &[f64], b: &[f64]) -> Option<PairedTest> {
    if a.len() != b.len() {
        return None;
    }
    let d = log_ratios(a, b);
    let hl = hodges_lehmann(&d, CONFIDENCE)?;
    let t = signed_rank(&d)?;
    let half = (hl.hi - hl.estimate).max(hl.estimate - hl.lo);
    Some(PairedTest {
        ratio: hl.estimate.exp(),
        lo: hl.lo.exp(),
        hi: hl.hi.exp(),
        confidence: hl.confidence,
        p: t.p,
        exact: t.exact,
        n: d.len(),
        mde: half.exp() - 1.0,
    })
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
            assert!(2.0 * cdf(&u_counts(n, n), crit) <= 0.05, "n = {n}");
            assert!(2.0 * cdf(&u_counts(n, n), crit + 1) > 0.05, "n = {n}");
        }
        // 5 and 5: C(10, 5) = 252 arrangements; U ≤ 2 in 4 of them.
        assert_eq!(u_counts(5, 5).iter().sum::<f64>(), 252.0);
        assert!((cdf(&u_counts(5, 5), 2) - 4.0 / 252.0).abs() < 1e-12);
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
