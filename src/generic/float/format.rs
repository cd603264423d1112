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

use super::table::{G, N_MAX, N_MIN};

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

/// `floor(e · log2 10)` for `|e| <= 6_432_162`.
#[inline]
pub(crate) fn floor_log2_pow10(e: i32) -> i32 {
    ((i64::from(e) * 913_124_641_741) >> 38) as i32
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

/// [`shortest`] with its trailing zeros left in `d` (below 10^17), for a
/// writer that finds them in its digits.
#[inline]
pub fn shortest_raw(v: f64) -> Option<(u64, i32)> {
    let bits = v.to_bits();
    // Finite, positive and not zero: the bit patterns 1 to `f64::MAX`'s.
    if bits.wrapping_sub(1) >= f64::MAX.to_bits() {
        return None;
    }
    let fraction = bits & ((1 << 52) - 1);
    let biased = (bits >> 52) as i32;
    let (c, q) = if biased == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1 << 52), biased - 1075)
    };
    schubfach(c, q, fraction == 0 && biased > 1)
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
    schubfach(c, q, fraction == 0 && biased > 1)
}

/// The shortest digits of `c · 2^q` (`0 < c < 2^53`), trailing zeros
/// left in; `irregular` when `c` is a power of two whose gap below is half
/// the gap above (not the smallest normal).
#[inline(always)]
fn schubfach(c: u64, q: i32, irregular: bool) -> Option<(u64, i32)> {
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
            if u_in != w_in {
                break 'pick (if u_in { sp10 } else { tp10 }, k);
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
        (if vb < mid { s } else { t }, k)
    };
    Some(pick)
}
