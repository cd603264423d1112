"""Writes fixtures/stats/scipy-paired.txt: the reference values that
tests/statistics.rs checks src/measure/significance.rs against.

Run once, from the repository root:
    python3 -m venv target/scipy-venv
    target/scipy-venv/bin/pip install scipy numpy
    target/scipy-venv/bin/python tests/stats/scipy_paired.py > fixtures/stats/scipy-paired.txt

Each case line: `case <exact|approx> <p> <w_plus> <hl> <sign_p> : d1 d2 ...`
- p, w_plus: scipy.stats.wilcoxon(d, zero_method="pratt", correction=True),
  method="exact" when there are no zeros, no ties and n <= 50, else "approx";
  w_plus is scipy's r_plus (the sum of the ranks of the positive d).
- hl: numpy's median of the Walsh averages (d_i + d_j)/2, i <= j.
- sign_p: scipy.stats.binomtest(#pos, #pos + #neg, 0.5).pvalue (zeros dropped).
"""

import numpy as np
import scipy
from scipy import stats


def r_plus(d):
    d = np.asarray(d, dtype=float)
    ranks = stats.rankdata(np.abs(d))
    return float(ranks[d > 0].sum())


def case(d):
    d = np.asarray(d, dtype=float)
    nz = d[d != 0]
    ties = len(np.unique(np.abs(nz))) < len(nz)
    zeros = int((d == 0).sum())
    exact = zeros == 0 and not ties and len(nz) <= 50
    res = stats.wilcoxon(d, zero_method="pratt", correction=True, method="exact" if exact else "approx")
    i, j = np.triu_indices(len(d))
    hl = float(np.median((d[i] + d[j]) / 2.0))
    pos, neg = int((d > 0).sum()), int((d < 0).sum())
    sign_p = stats.binomtest(pos, pos + neg, 0.5).pvalue
    kind = "exact" if exact else "approx"
    vals = " ".join(repr(float(x)) for x in d)
    print(f"case {kind} {float(res.pvalue)!r} {r_plus(d)!r} {hl!r} {float(sign_p)!r} : {vals}")


def main():
    print(f"# scipy {scipy.__version__}, numpy {np.__version__}; written by tests/stats/scipy_paired.py")
    rng = np.random.default_rng(41)
    # Untied, no zeros: the exact distribution, n from 6 to 50, shifts from none to clear.
    for n in [6, 7, 8, 10, 12, 15, 20, 25, 30, 40, 50]:
        for shift in [0.0, 0.3, 1.0]:
            case(rng.normal(shift, 1.0, n))
    # Beyond the exact range.
    for n in [60, 80, 120]:
        for shift in [0.0, 0.2]:
            case(rng.normal(shift, 1.0, n))
    # Ties (rounded values) and zeros: the normal approximation with corrections.
    for n in [10, 15, 20, 30, 60]:
        for shift in [0.0, 0.5]:
            case(np.round(rng.normal(shift, 1.0, n), 1))
        d = rng.normal(0.4, 1.0, n)
        d[: max(1, n // 7)] = 0.0
        case(d)
    # Log ratios of timings: a 5% slowdown under 10% noise.
    for n in [9, 20, 40]:
        a = rng.lognormal(0.0, 0.1, n)
        case(np.log(a * 1.05 * rng.lognormal(0.0, 0.03, n) / a))


main()
