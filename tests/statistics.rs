//! The paired statistics of `src/measure/significance.rs` against references:
//! scipy's `wilcoxon`, numpy's median of Walsh averages and scipy's
//! `binomtest`, written once into `fixtures/stats/scipy-paired.txt` by
//! `tests/stats/scipy_paired.py`; the published critical values of the
//! signed-rank test; and the exact null distribution's own identities. Each
//! comparison has a self-test: a deliberately wrong statistic fails it.

use wirebench::measure::significance::{
    EXACT_MAX_PAIRS, hl_interval_rank, hodges_lehmann, paired, sign_test, signed_rank, signed_rank_cdf,
    signed_rank_counts,
};
use wirebench::prng::Rng;

struct Case {
    exact: bool,
    p: f64,
    w_plus: f64,
    hl: f64,
    sign_p: f64,
    d: Vec<f64>,
}

fn cases() -> Vec<Case> {
    let text = include_str!("../fixtures/stats/scipy-paired.txt");
    let mut out = Vec::new();
    for line in text.lines().filter(|l| l.starts_with("case ")) {
        let (head, values) = line.split_once(" : ").expect("case line has ' : '");
        let f: Vec<&str> = head.split_whitespace().collect();
        let num = |s: &str| s.parse::<f64>().unwrap_or_else(|e| panic!("{s}: {e}"));
        out.push(Case {
            exact: f[1] == "exact",
            p: num(f[2]),
            w_plus: num(f[3]),
            hl: num(f[4]),
            sign_p: num(f[5]),
            d: values.split_whitespace().map(num).collect(),
        });
    }
    out
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 2e-6 + 1e-5 * b.abs()
}

/// The cases where `p_of` disagrees with scipy's p.
fn p_mismatches(p_of: impl Fn(&[f64]) -> f64) -> Vec<String> {
    cases()
        .iter()
        .filter(|c| !close(p_of(&c.d), c.p))
        .map(|c| format!("n {}: {} against scipy {}", c.d.len(), p_of(&c.d), c.p))
        .collect()
}

#[test]
fn signed_rank_matches_scipy() {
    let all = cases();
    assert!(all.len() >= 50, "the fixture holds the cases");
    assert!(all.iter().any(|c| c.exact) && all.iter().any(|c| !c.exact));
    for c in &all {
        let t = signed_rank(&c.d).unwrap();
        assert_eq!(t.w_plus, c.w_plus, "n {}", c.d.len());
        assert_eq!(t.exact, c.exact, "n {}", c.d.len());
    }
    let bad = p_mismatches(|d| signed_rank(d).unwrap().p);
    assert!(bad.is_empty(), "{bad:#?}");

    // Self-test: a wrong statistic fails the comparison. Dropping the
    // continuity correction and the tie correction (the normal approximation
    // everywhere, plain variance) must disagree with scipy on many cases.
    let naive = |d: &[f64]| {
        let t = signed_rank(d).unwrap();
        let n = d.len() as f64;
        let mean = n * (n + 1.0) / 4.0;
        let sd = (n * (n + 1.0) * (2.0 * n + 1.0) / 24.0).sqrt();
        (2.0 * wirebench::measure::significance::normal_sf((t.w_plus - mean).abs() / sd)).min(1.0)
    };
    assert!(p_mismatches(naive).len() > 20, "the comparison catches a wrong p");
    // And a one-sided p.
    assert!(p_mismatches(|d| signed_rank(d).unwrap().p / 2.0).len() > 40);
}

#[test]
fn hodges_lehmann_and_sign_test_match_numpy_and_scipy() {
    for c in cases() {
        let hl = hodges_lehmann(&c.d, 0.95).unwrap();
        assert!(
            (hl.estimate - c.hl).abs() < 1e-12,
            "n {}: {} against {}",
            c.d.len(),
            hl.estimate,
            c.hl
        );
        assert!(hl.lo <= hl.estimate && hl.estimate <= hl.hi);
        let s = sign_test(&c.d).unwrap();
        assert!(
            (s - c.sign_p).abs() < 1e-9,
            "n {}: sign p {s} against {}",
            c.d.len(),
            c.sign_p
        );
    }
    // Self-test: the median of the plain differences is not the HL estimate.
    let differs = cases()
        .iter()
        .filter(|c| {
            let m = wirebench::measure::stats::median(&c.d).unwrap();
            (m - c.hl).abs() > 1e-12
        })
        .count();
    assert!(differs > 40, "the comparison tells the median from HL");
}

/// Published two-sided α = 0.05 critical values of the signed-rank statistic
/// (reject when min(W+, W−) ≤ T): e.g. Wilcoxon, Katti & Wilcox (1970);
/// Hollander & Wolfe table A.4.
const CRITICAL: [(usize, usize); 23] = [
    (6, 0),
    (7, 2),
    (8, 3),
    (9, 5),
    (10, 8),
    (11, 10),
    (12, 13),
    (13, 17),
    (14, 21),
    (15, 25),
    (16, 29),
    (17, 34),
    (18, 40),
    (19, 46),
    (20, 52),
    (21, 58),
    (22, 65),
    (23, 73),
    (24, 81),
    (25, 89),
    (30, 137),
    (40, 264),
    (50, 434),
];

fn matches_table(cdf: impl Fn(usize, usize) -> f64) -> bool {
    CRITICAL
        .iter()
        .all(|&(n, t)| cdf(n, t) <= 0.025 && cdf(n, t + 1) > 0.025)
}

#[test]
fn exact_distribution_matches_the_critical_values() {
    assert!(matches_table(signed_rank_cdf));
    // n = 5: even W+ = 0 has probability 1/32 > 0.025 (no test at 5%).
    assert!(signed_rank_cdf(5, 0) > 0.025);
    // The HL interval leaves out exactly T averages on each side.
    for &(n, t) in &CRITICAL {
        let (k, cover) = hl_interval_rank(n, 0.95);
        assert_eq!(k, t, "n {n}");
        assert!((0.95..0.97).contains(&cover), "n {n}: {cover}");
    }
    // Beyond the exact range, the normal approximation continues the table.
    let (k51, _) = hl_interval_rank(EXACT_MAX_PAIRS + 1, 0.95);
    assert!((445..=470).contains(&k51), "{k51}");
    // Self-test: a distribution off by one rank fails the table.
    assert!(!matches_table(|n, w| signed_rank_cdf(n, w + 1)));
    assert!(!matches_table(|n, w| signed_rank_cdf(n + 1, w)));
}

#[test]
fn exact_counts_sum_to_all_sign_patterns_and_are_symmetric() {
    for n in [0, 1, 2, 3, 7, 20, 50] {
        let c = signed_rank_counts(n);
        assert_eq!(c.len(), n * (n + 1) / 2 + 1);
        assert_eq!(c.iter().sum::<f64>(), 2f64.powi(n as i32), "n {n}");
        for w in 0..c.len() {
            assert_eq!(c[w], c[c.len() - 1 - w], "n {n} w {w}");
        }
    }
    // Brute force over the 2^10 sign patterns.
    let n = 10;
    let mut brute = vec![0.0; n * (n + 1) / 2 + 1];
    for mask in 0u32..(1 << n) {
        let w: usize = (0..n).filter(|i| mask & (1 << i) != 0).map(|i| i + 1).sum();
        brute[w] += 1.0;
    }
    assert_eq!(signed_rank_counts(n), brute);
    // Self-test: the counts for another n are not these.
    assert_ne!(signed_rank_counts(9).len(), brute.len());
}

/// The 95% HL interval covers the true center of a symmetric distribution in
/// about 95% of samples (exact and approximate ranges).
#[test]
fn hl_interval_covers_at_its_level() {
    let mut rng = Rng::new(41);
    for n in [8, 15, 30, 70] {
        let trials = 2000;
        let mut covered = 0;
        for _ in 0..trials {
            let d: Vec<f64> = (0..n).map(|_| rng.unit_f64() + rng.unit_f64() - 1.0 + 0.25).collect();
            let hl = hodges_lehmann(&d, 0.95).unwrap();
            if hl.lo <= 0.25 && 0.25 <= hl.hi {
                covered += 1;
            }
        }
        let rate = covered as f64 / trials as f64;
        assert!((0.93..=0.98).contains(&rate), "n {n}: coverage {rate}");
    }
}

#[test]
fn paired_ratio_cancels_a_common_drift() {
    let mut rng = Rng::new(7);
    let n = 20;
    let a: Vec<f64> = (0..n).map(|_| 100.0 * (1.0 + 0.02 * rng.unit_f64())).collect();
    let drift: Vec<f64> = (0..n).map(|_| 0.7 + 0.6 * rng.unit_f64()).collect();
    let b: Vec<f64> = a
        .iter()
        .map(|x| x * 1.10 * (1.0 + 0.01 * (rng.unit_f64() - 0.5)))
        .collect();
    let a_d: Vec<f64> = a.iter().zip(&drift).map(|(x, k)| x * k).collect();
    let b_d: Vec<f64> = b.iter().zip(&drift).map(|(x, k)| x * k).collect();
    let t = paired(&a_d, &b_d).unwrap();
    assert!((t.ratio - 1.10).abs() < 0.01, "{t:?}");
    assert!(t.lo > 1.08 && t.hi < 1.12, "{t:?}");
    assert!(t.p < 1e-5 && t.exact && t.n == n, "{t:?}");
    assert!(t.mde > 0.0 && t.mde < 0.02, "{t:?}");
    // The same samples unpaired: the ±30% drift hides the 10%.
    let u = wirebench::measure::significance::mann_whitney(&a_d, &b_d).unwrap();
    assert!(u.p > 0.05, "{u:?}");
    // No difference: not significant, ratio near 1.
    let t = paired(&a_d, &a_d.iter().map(|x| x * 1.0).collect::<Vec<_>>()).unwrap();
    assert_eq!((t.ratio, t.p), (1.0, 1.0));
    // Unusable input: declined, never a panic.
    assert_eq!(paired(&[1.0, 2.0], &[1.0]), None);
    assert_eq!(paired(&[0.0, -1.0], &[1.0, 2.0]), None);
    assert_eq!(paired(&[], &[]), None);
    let t = paired(&[1.0, f64::NAN, 2.0, 3.0], &[2.0, 1.0, 4.0, 6.0]).unwrap();
    assert_eq!(t.n, 3);
    assert!(signed_rank(&[f64::INFINITY]).is_none() && sign_test(&[0.0]).is_none());
}

/// The pairing against a simulation: five formats at known ratios, each
/// round multiplied by a common drift of ±30%. The paired ranking orders
/// every pair the right way; Mann–Whitney on the same raw samples (Holm over
/// the pairs) loses the close pairs to the drift.
#[test]
fn a_common_drift_leaves_the_paired_ranking_and_breaks_the_unpaired_one() {
    use wirebench::report::decision::paired_pairs;
    let ratios = [1.0, 1.08, 1.18, 1.3, 1.6];
    for seed in 1..=5 {
        let mut rng = Rng::new(seed);
        let rounds = 20;
        let mut samples = vec![Vec::new(); ratios.len()];
        for _ in 0..rounds {
            let drift = 0.7 + 0.6 * rng.unit_f64();
            for (f, r) in ratios.iter().enumerate() {
                let noise = 1.0 + 0.04 * (rng.unit_f64() - 0.5);
                samples[f].push(1000.0 * r * drift * noise);
            }
        }
        let pairs = paired_pairs(&samples);
        assert_eq!(pairs.len(), 10);
        for p in &pairs {
            assert_eq!(p.order, std::cmp::Ordering::Greater, "seed {seed}: {p:?}");
            let want = ratios[p.b] / ratios[p.a];
            assert!((p.test.ratio / want - 1.0).abs() < 0.02, "seed {seed}: {p:?}");
            assert!(p.test.mde < 0.05, "seed {seed}: {p:?}");
        }
        // Unpaired: the same samples, Mann–Whitney, Holm over the 10 pairs.
        let mut ps = Vec::new();
        for a in 0..5 {
            for b in a + 1..5 {
                ps.push(
                    wirebench::measure::significance::mann_whitney(&samples[a], &samples[b])
                        .unwrap()
                        .p,
                );
            }
        }
        let ordered = wirebench::measure::significance::holm(&ps)
            .iter()
            .filter(|&&p| p < 0.05)
            .count();
        assert!(
            ordered < 10,
            "seed {seed}: the drift hides some pairs from the unpaired test"
        );
        // Self-test: without the drift the unpaired test orders neighbours too,
        // so the loss above is the drift's doing.
        let steady: Vec<Vec<f64>> = ratios
            .iter()
            .map(|r| {
                (0..rounds)
                    .map(|_| 1000.0 * r * (1.0 + 0.04 * (rng.unit_f64() - 0.5)))
                    .collect()
            })
            .collect();
        let ps: Vec<f64> = (0..5)
            .flat_map(|a| (a + 1..5).map(move |b| (a, b)))
            .map(|(a, b)| {
                wirebench::measure::significance::mann_whitney(&steady[a], &steady[b])
                    .unwrap()
                    .p
            })
            .collect();
        assert!(
            wirebench::measure::significance::holm(&ps).iter().all(|&p| p < 0.05),
            "seed {seed}"
        );
    }
    // No difference at all: every pair is ≈.
    let mut rng = Rng::new(9);
    let same: Vec<Vec<f64>> = (0..3)
        .map(|_| (0..20).map(|_| 1000.0 * (1.0 + 0.04 * rng.unit_f64())).collect())
        .collect();
    assert!(paired_pairs(&same).iter().all(|p| p.order == std::cmp::Ordering::Equal));
}

/// The committed run (`results/`), loaded as `report` loads it.
fn committed() -> wirebench::report::Data {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("results");
    wirebench::report::load(&dir).expect("results/ loads")
}

/// The pairs of `(names, values)` whose medians (all rounds) differ by at
/// least `by` (a fraction), as (better, worse) for the row's direction.
fn far_apart(names: &[String], values: &[Vec<f64>], lower: bool, by: f64) -> Vec<(String, String)> {
    let median = |v: &[f64]| {
        let v: Vec<f64> = v.iter().copied().filter(|x| x.is_finite()).collect();
        wirebench::measure::stats::median(&v)
    };
    let m: Vec<Option<f64>> = values.iter().map(|v| median(v)).collect();
    let mut out = Vec::new();
    for a in 0..names.len() {
        for b in 0..names.len() {
            let (Some(x), Some(y)) = (m[a], m[b]) else { continue };
            // a better than b by at least `by`.
            let better = if lower {
                y >= x * (1.0 + by)
            } else {
                x >= y * (1.0 + by)
            };
            if better {
                out.push((names[a].clone(), names[b].clone()));
            }
        }
    }
    out
}

/// The target on the committed run: at 100 and 1,000 products every
/// pair of formats whose medians differ by 15% or more in the CPU and
/// throughput rows is ordered, the right way round (unless one of the two
/// is marked disturbed), and no cell refuses to rank.
#[test]
fn the_committed_decision_table_orders_every_pair_fifteen_percent_apart() {
    use wirebench::report::decision::{HTTP_QUESTIONS, decision_cells, http_matrix, ranking_text};
    let d = committed();
    let cells = decision_cells(&d);
    let mut checked = 0;
    let mut missed = Vec::new();
    let mut reversed: Vec<String> = Vec::new();
    for (question, file, lower, get) in HTTP_QUESTIONS {
        for count in [100, 1000] {
            let cell = cells
                .iter()
                .find(|c| c.question == question && c.count == count)
                .expect("a cell per question and count");
            let text = ranking_text(&cell.ranking, lower);
            assert!(!text.contains("too noisy"), "{question} at {count}: {text}");
            let r = cell
                .ranking
                .as_ref()
                .unwrap_or_else(|e| panic!("{question} at {count}: {e}"));
            let (names, values, _) = http_matrix(&d, file, count, get);
            for (better, worse) in far_apart(&names, &values, lower, 0.15) {
                if r.disturbed.iter().any(|(f, _, _)| *f == better || *f == worse) {
                    continue;
                }
                checked += 1;
                if r.ordered.contains(&(worse.clone(), better.clone())) {
                    reversed.push(format!("{question} at {count}: {worse} before {better}"));
                } else if !r.ordered.contains(&(better.clone(), worse.clone())) {
                    missed.push(format!(
                        "{question} at {count}: {better} vs {worse} not ordered: {text}"
                    ));
                }
            }
        }
    }
    // A pair whose per-round values are bimodal (each format's slot on its
    // own) can split its per-round log ratios so that no paired test supports
    // an order although the medians lie 15% apart: it is `≈`, never reversed.
    // At most one such miss is allowed.
    eprintln!("15% target: {} of {checked} pairs missed: {missed:?}", missed.len());
    assert!(
        missed.len() <= 1,
        "{} of {checked} pairs:\n{}",
        missed.len(),
        missed.join("\n")
    );
    assert!(reversed.is_empty(), "ordered against the medians: {reversed:?}");
    assert!(
        checked >= 10,
        "the committed run has pairs 15% apart to check ({checked})"
    );
    // Self-test: the checker finds a pair 15% apart that a ranking leaves `≈`.
    let names: Vec<String> = ["a", "b"].iter().map(|s| s.to_string()).collect();
    let values = vec![vec![100.0; 5], vec![120.0; 5]];
    assert_eq!(
        far_apart(&names, &values, true, 0.15),
        [("a".to_string(), "b".to_string())]
    );
    assert!(far_apart(&names, &values, true, 0.25).is_empty());
}

/// Pairs two rankings order in opposite directions.
fn opposite(
    x: &wirebench::report::decision::Ranking,
    y: &wirebench::report::decision::Ranking,
) -> Vec<(String, String)> {
    x.ordered
        .iter()
        .filter(|(b, w)| y.ordered.contains(&(w.clone(), b.clone())))
        .cloned()
        .collect()
}

/// What, formats, values by round, disturbed flags, lower is better.
type Row = (String, Vec<String>, Vec<Vec<f64>>, Vec<Vec<bool>>, bool);

/// Every ranked timed row of a run: the decision table's HTTP rows and the
/// codec rankings, at 1, 100 and 1,000 products.
fn ranked_rows(d: &wirebench::report::Data) -> Vec<Row> {
    use wirebench::report::decision::{HTTP_QUESTIONS, codec_samples, http_matrix};
    let mut rows: Vec<Row> = Vec::new();
    for (question, file, lower, get) in HTTP_QUESTIONS {
        for count in [1, 100, 1000] {
            let (names, values, flags) = http_matrix(d, file, count, get);
            rows.push((format!("{question} at {count}"), names, values, flags, lower));
        }
    }
    let formats: Vec<String> = wirebench::codec::Format::ALL
        .iter()
        .map(|f| f.name().to_string())
        .collect();
    for op in ["Encode", "Decode", "DecodeBorrowed"] {
        for count in [1, 100, 1000] {
            let values: Vec<Vec<f64>> = formats.iter().map(|f| codec_samples(d, op, f, count)).collect();
            rows.push((format!("{op} at {count}"), formats.clone(), values, Vec::new(), true));
        }
    }
    rows
}

/// A/A: the committed run (`results/`) and a second `make bench` of the same
/// commit (`fixtures/aa/`, its raw files) never order a pair in opposite
/// directions, in any HTTP row of the decision table or codec ranking, and
/// at least 80% of the pairs one run orders the other orders the same way.
/// Self-test: one run with its best format made twice as costly reverses.
#[test]
fn two_runs_of_one_commit_never_order_a_pair_oppositely() {
    use wirebench::report::decision::paired_ranking;
    let a = ranked_rows(&committed());
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/aa");
    let b = ranked_rows(&wirebench::report::load(&dir).expect("fixtures/aa loads"));
    assert_eq!(a.len(), b.len());
    let (mut ordered, mut same) = (0, 0);
    let mut first: Option<(usize, wirebench::report::decision::Ranking)> = None;
    for (i, (ra, rb)) in a.iter().zip(&b).enumerate() {
        let (Ok(x), Ok(y)) = (
            paired_ranking(&ra.1, &ra.2, &ra.3, ra.4),
            paired_ranking(&rb.1, &rb.2, &rb.3, rb.4),
        ) else {
            continue;
        };
        assert!(opposite(&x, &y).is_empty(), "{}: {:?}", ra.0, opposite(&x, &y));
        for pair in x.ordered.iter() {
            ordered += 1;
            same += usize::from(y.ordered.contains(pair));
        }
        for pair in y.ordered.iter() {
            ordered += 1;
            same += usize::from(x.ordered.contains(pair));
        }
        if first.is_none() && !x.ordered.is_empty() {
            first = Some((i, x));
        }
    }
    eprintln!("A/A: {same} of {ordered} ordered pairs are ordered the same way in the other run");
    assert!(
        ordered > 20,
        "the runs order pairs, so the check is not trivial ({ordered})"
    );
    assert!(
        same * 10 >= ordered * 8,
        "{same} of {ordered} ordered pairs are ordered the same way in the other run"
    );
    // Self-test: the check fails when, in the other run, the best format of
    // a row the first run orders is made twice as costly (or half as fast).
    let (i, x) = first.expect("a row the first run orders");
    let (_, names, values, flags, lower) = &b[i];
    let mut values = values.clone();
    let f = names.iter().position(|n| *n == x.ordered[0].0).unwrap();
    values[f].iter_mut().for_each(|v| *v *= if *lower { 2.0 } else { 0.5 });
    let y = paired_ranking(names, &values, flags, *lower).unwrap();
    assert!(!opposite(&x, &y).is_empty(), "a reversed format is caught: {x:?} {y:?}");
}
