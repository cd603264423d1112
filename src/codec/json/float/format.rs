//! Shortest round-trip decimal digits of a finite positive double, by
//! Giulietti's Schubfach ("The Schubfach way to render doubles", 2021;
//! the 64-bit layout of the table halves follows Bolz's description in
//! drachennest). For `v = c · 2^q` the rounding interval of `v` (both ends
//! included when `c` is even, as a round-half-even reader reads them) is
//! scaled by `10^-k`, with `k` chosen so the scaled interval is 1 to 10
//! units wide: it then holds at most one multiple of ten and at least one
//! integer. The scaling multiplies by the 128-bit [`super::table::G`] and
//! keeps the top 64 bits rounded to odd, which decides every comparison
//! with an interval end exactly (the paper's section 8). The multiple of
//! ten is taken when it is inside (one digit fewer); otherwise the integer
//! inside that is nearest `v`, ties upward (std's choice).
//!
//! The common case (a normal double that is not a power of two) takes
//! [`one_product`] first: the same answer from one 64×128-bit product in
//! place of Schubfach's three, with the digits split as `d / 10` and its
//! last digit ([`shortest_parts`]); the few values whose decision it
//! cannot make exactly go to [`schubfach`].

use super::table::{G, N_MAX, N_MIN, floor_log2_pow10};

/// `floor(e · log10 2)` for `|e| <= 5_456_721` (Giulietti, section 9).
#[inline]
pub(crate) fn floor_log10_pow2(e: i32) -> i32 {
    ((i64::from(e) * 661_971_961_083) >> 41) as i32
}

/// `floor(e · log10 2 + log10 3/4)` for `|e| <= 2_776_511`.
#[inline]
fn floor_log10_three_quarters_pow2(e: i32) -> i32 {
    ((i64::from(e) * 661_971_961_083 - 274_743_187_321) >> 41) as i32
}

/// `g(n)` of the table, or `None` outside it.
#[inline]
pub(crate) fn pow10(n: i32) -> Option<u128> {
    let i = usize::try_from(n.checked_sub(N_MIN)?).ok()?;
    if n > N_MAX {
        return None;
    }
    G.get(i).copied()
}

/// `floor(g · cp / 2^128)` with its lowest bit set when the discarded part
/// is not (within the table's error) zero: rounding to odd.
#[inline]
fn round_to_odd(g: u128, cp: u64) -> u64 {
    let lo = u128::from(g as u64) * u128::from(cp);
    let hi = u128::from((g >> 64) as u64) * u128::from(cp) + (lo >> 64);
    ((hi >> 64) as u64) | u64::from((hi as u64) > 1)
}

/// The shortest decimal `d · 10^e` that reads back (round half to even) to
/// the finite, positive `v`, with `d` free of trailing zeros: `(d, e)`.
/// `None` only for a value outside that domain (zero, negative, NaN, ∞).
pub fn shortest(v: f64) -> Option<(u64, i32)> {
    let (mut d, mut e) = shortest_raw(v)?;
    // Trailing zeros off, eight, four, two, then one at a time (`d` has
    // up to 17 digits and a short decimal's are mostly zeros).
    for (p, n) in [(100_000_000, 8), (10_000, 4), (100, 2)] {
        if d % p == 0 && d != 0 {
            d /= p;
            e += n;
        }
    }
    while d % 10 == 0 && d != 0 {
        d /= 10;
        e += 1;
    }
    Some((d, e))
}

/// [`shortest`] with its trailing zeros left in `d` (below 10^17).
#[inline]
pub fn shortest_raw(v: f64) -> Option<(u64, i32)> {
    shortest_parts::<false>(v).map(|(head, last, e)| (head * 10 + last, e))
}

/// [`shortest_raw`]'s `d` as `d / 10` and its last digit `d % 10`, as
/// the fast path finds them: for a writer that lays the two out apart
/// (no division of the 17-digit `d`). With `ZMIJ`, the rare exact ties
/// are broken as serde_json's formatter (zmij) breaks them, not as std's
/// (see [`schubfach`]).
#[inline(always)]
pub fn shortest_parts<const ZMIJ: bool>(v: f64) -> Option<(u64, u64, i32)> {
    let bits = v.to_bits();
    // Finite, positive and not zero: the bit patterns 1 to `f64::MAX`'s.
    if bits.wrapping_sub(1) >= f64::MAX.to_bits() {
        return None;
    }
    let fraction = bits & ((1 << 52) - 1);
    let biased = (bits >> 52) as i32;
    if biased == 0 {
        return exact::<ZMIJ>(fraction, -1074, false);
    }
    let (c, q) = (fraction | (1 << 52), biased - 1075);
    if fraction == 0 && biased > 1 {
        return exact::<ZMIJ>(c, q, true);
    }
    match one_product(c, q) {
        Some(parts) => Some(parts),
        None => exact::<ZMIJ>(c, q, false),
    }
}

/// [`schubfach`] out of line, for the values [`one_product`] leaves:
/// subnormals, powers of two and the few it cannot decide.
#[cold]
#[inline(never)]
fn exact<const ZMIJ: bool>(c: u64, q: i32, irregular: bool) -> Option<(u64, u64, i32)> {
    schubfach::<ZMIJ>(c, q, irregular).map(|(d, e)| (d / 10, d % 10, e))
}

/// [`schubfach`]'s answer for a normal, regular `c · 2^q` (`2^52 <= c <
/// 2^53`, `c` not a power of two), from one product, as Xiang JunBo's
/// scaling in zmij computes it (zmij 1.0.23, `to_decimal`): `v` scaled by
/// `10^(-k-1)`, one unit coarser than Schubfach's, so the integral part is
/// the shorter candidate and the 64-bit fraction `f` tells the rest:
/// whether the candidate below (`f` under half a gap) or above (`f` plus
/// half a gap past one) reads back, and else the extra digit, `f · 10`
/// rounded (ties upward, as [`schubfach`] breaks them). The product takes
/// the truncated power (`g - 1`) and drops the low word of its second
/// half, so the computed fraction is under 2 units below the exact one and
/// the computed half gap under 2 units below its own; a decision whose
/// sides are that close is not taken here: `None` sends the value to
/// [`schubfach`], which decides every case exactly. Those are exact or
/// nearly exact ties, mostly at binary exponents near zero (0.15% of the
/// values of a 20M-case run of the test below, which bounds the share).
#[inline(always)]
fn one_product(c: u64, q: i32) -> Option<(u64, u64, i32)> {
    one_product_rounding::<true>(c, q)
}

/// [`one_product`], whose extra digit is `f · 10` rounded (`ROUND`) or,
/// for the test that shows the comparison catches a wrong digit, cut.
#[inline(always)]
fn one_product_rounding<const ROUND: bool>(c: u64, q: i32) -> Option<(u64, u64, i32)> {
    const MARGIN: u64 = 8;
    let k = floor_log10_pow2(q);
    let n = -k - 1;
    let p = pow10(n)? - 1;
    // `v · 10^n = c · p · 2^(q + L - 127)` with `L = floor(log2 10^n)`;
    // `y = c << shift` puts the product's bit 70 at the units: `q + L` is
    // -4 to -1 (`10^n · 2^q` is 0.1 to 1), so `shift` is 3 to 6.
    let shift = u32::try_from(q + floor_log2_pow10(n) + 7)
        .ok()
        .filter(|s| (3..=6).contains(s))?;
    let y = c << shift;
    let (hi, lo) = ((p >> 64) as u64, p as u64);
    let prod = u128::from(hi) * u128::from(y) + ((u128::from(lo) * u128::from(y)) >> 64);
    let integral = (prod >> 70) as u64;
    let f = (prod >> 6) as u64;
    // Half of `v`'s gap at the same scale: `p · 2^(q + L - 64)`.
    let half = hi >> (7 - shift);
    if f > u64::MAX - MARGIN {
        // The exact fraction may have carried into the units; either way
        // the candidate above is inside (`half` is at least 1/20 of 2^64).
        return Some((integral + 1, 0, k));
    }
    if f.abs_diff(half) <= MARGIN {
        return None;
    }
    if f < half {
        return Some((integral, 0, k));
    }
    // `f + half` against 2^64: the carry says which side, the wrapped sum
    // how near (`half` is 1/20 to 1/2 of 2^64, so a sum within `MARGIN`
    // of 2^64 wraps to one of the `2 · MARGIN + 1` words around zero).
    let (sum, past) = f.overflowing_add(half);
    if sum.wrapping_add(MARGIN) <= 2 * MARGIN {
        return None;
    }
    if past {
        return Some((integral + 1, 0, k));
    }
    // The extra digit: `f · 10` in units of 2^-64, nearest, ties upward.
    let tenths = u128::from(f) * 10;
    let (digit, rest) = ((tenths >> 64) as u64, tenths as u64);
    // Near a whole tenth the nearest digit is the same on both sides;
    // near a half the side decides it.
    if rest.abs_diff(1 << 63) <= 4 * MARGIN {
        return None;
    }
    let last = digit + u64::from(ROUND && rest > 1 << 63);
    // `integral` is below 2^53, so one more stays below 10^16.
    Some(if last == 10 {
        (integral + 1, 0, k)
    } else {
        (integral, last, k)
    })
}

/// The shortest decimal `d · 10^e` that reads back (round half to even) to
/// the finite, positive `f32` `v`, trailing zeros left in `d` (below
/// 10^10): the same scaling as a double's, with the float's significand.
#[inline]
pub fn shortest_f32_raw(v: f32) -> Option<(u64, i32)> {
    if !(v.is_finite() && v > 0.0) {
        return None;
    }
    let bits = v.to_bits();
    let fraction = u64::from(bits & ((1 << 23) - 1));
    let biased = (bits >> 23) as i32;
    let (c, q) = if biased == 0 {
        (fraction, -149)
    } else {
        (fraction | (1 << 23), biased - 150)
    };
    schubfach::<false>(c, q, fraction == 0 && biased > 1)
}

/// The shortest digits of `c · 2^q` (`0 < c < 2^53`), trailing zeros
/// left in; `irregular` when `c` is a power of two whose gap below is half
/// the gap above (not the smallest normal). Where two candidates both read
/// back, std's rule (and so this one's by default) takes the nearer, at a
/// tie the larger; with `ZMIJ`, zmij's rule (serde_json's formatter): of
/// the two shorter candidates the one above, and at a tie of the longer
/// ones the even.
#[inline(always)]
fn schubfach<const ZMIJ: bool>(c: u64, q: i32, irregular: bool) -> Option<(u64, i32)> {
    let k = if irregular {
        floor_log10_three_quarters_pow2(q)
    } else {
        floor_log10_pow2(q)
    };
    let h = q + floor_log2_pow10(-k) + 1;
    let g = pow10(-k)?;
    let shift = u32::try_from(h).ok().filter(|&h| (1..=4).contains(&h))?;
    let cb = c << 2;
    let cbl = cb - 2 + u64::from(irregular);
    let cbr = cb + 2;
    let vb = round_to_odd(g, cb << shift);
    let vbl = round_to_odd(g, cbl << shift);
    let vbr = round_to_odd(g, cbr << shift);
    // Odd `c`: the interval's ends are excluded.
    let out = c & 1;
    let lower = vbl + out;
    let upper = vbr - out;
    let s = vb >> 2;
    let pick = 'pick: {
        if s >= 10 {
            let sp10 = s / 10 * 10;
            let tp10 = sp10 + 10;
            let u_in = lower <= sp10 << 2;
            let w_in = tp10 << 2 <= upper;
            if u_in != w_in || (ZMIJ && u_in) {
                break 'pick (if w_in { tp10 } else { sp10 }, k);
            }
        }
        let t = s + 1;
        let u_in = lower <= s << 2;
        let w_in = t << 2 <= upper;
        if u_in != w_in {
            break 'pick (if u_in { s } else { t }, k);
        }
        // Both inside: the nearer to `v` (4s + 2 is the midpoint); at a tie
        // the larger, as std's shortest digits round (the paper takes the
        // even one).
        let mid = (s << 2) + 2;
        (
            if vb < mid || (ZMIJ && vb == mid && s % 2 == 0) {
                s
            } else {
                t
            },
            k,
        )
    };
    Some(pick)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prng::Rng;

    /// How many random values the comparison draws: 1 000 000 by default
    /// (300 000 000 took 86 to 162 s in the test profile, with other work
    /// on the machine).
    fn cases() -> usize {
        super::super::test_cases(1_000_000)
    }

    /// Significand and exponent of the normal, regular doubles the fast
    /// path takes: random bit patterns, 17-digit decimals, every
    /// binade's ends, and the values with two bits below the point from
    /// 2^50 up (their 17-digit candidates tie at the fine scale).
    fn regular_cases(rng: &mut Rng) -> Vec<(u64, i32)> {
        let mut v: Vec<f64> = Vec::new();
        for e in -1022..=1023 {
            let p = 2f64.powi(e);
            v.extend([
                f64::from_bits(p.to_bits() + 1),
                f64::from_bits(p.to_bits() + 3),
                p * 1.5,
            ]);
            v.push(f64::from_bits(p.to_bits() | ((1 << 52) - 1)));
        }
        for i in 1..4000u64 {
            v.push((1u64 << 50) as f64 + i as f64 / 4.0);
            v.push((1u64 << 51) as f64 + i as f64 / 2.0);
            v.push((1u64 << 49) as f64 + i as f64 / 8.0);
        }
        for _ in 0..cases() {
            v.push(f64::from_bits(rng.next_u64() & !(1 << 63)));
            let d = rng.range_i64(10_000_000_000_000_000, 99_999_999_999_999_999);
            if let Ok(x) = format!("{d}e{}", rng.range_i64(-330, 300)).parse::<f64>() {
                v.push(x);
            }
        }
        v.into_iter()
            .filter(|x| x.is_finite() && *x >= f64::MIN_POSITIVE)
            .map(f64::to_bits)
            .filter(|b| b & ((1 << 52) - 1) != 0)
            .map(|b| ((b & ((1 << 52) - 1)) | 1 << 52, (b >> 52) as i32 - 1075))
            .collect()
    }

    /// Where `fast` answers and its answer is not [`schubfach`]'s (at most
    /// 5), and how many values it left to [`schubfach`].
    fn fast_disagreements(
        cases: &[(u64, i32)],
        fast: impl Fn(u64, i32) -> Option<(u64, u64, i32)>,
    ) -> (Vec<String>, usize) {
        let mut left = 0;
        let mut bad = Vec::new();
        for &(c, q) in cases {
            match fast(c, q) {
                None => left += 1,
                Some((head, last, e)) => {
                    assert!(last < 10, "c={c} q={q}: last digit {last}");
                    let got = (head * 10 + last, e);
                    let want = schubfach::<false>(c, q, false);
                    if Some(got) != want && bad.len() < 5 {
                        bad.push(format!("c={c} q={q}: schubfach {want:?}, one product {got:?}"));
                    }
                }
            }
        }
        (bad, left)
    }

    #[test]
    fn one_product_answers_as_schubfach_or_not_at_all() {
        let cases = regular_cases(&mut Rng::new(0x0E_9D0C));
        let (bad, left) = fast_disagreements(&cases, one_product);
        assert!(bad.is_empty(), "{bad:#?}");
        // Left to Schubfach: exact ties (the 2^50 + i/4 values, binary
        // exponents near zero) and powers beyond the table's 10^-292.
        assert!(
            left > 0 && left < cases.len() / 200,
            "left to schubfach: {left} of {}",
            cases.len()
        );
    }

    /// The comparison above fails on a fast path that cuts its extra digit.
    #[test]
    fn the_one_product_check_catches_a_cut_digit() {
        let mut rng = Rng::new(7);
        let cases: Vec<(u64, i32)> = regular_cases(&mut rng).into_iter().take(20_000).collect();
        let (bad, _) = fast_disagreements(&cases, one_product_rounding::<false>);
        assert!(!bad.is_empty());
    }
}
