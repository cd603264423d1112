//! Decimal text → the nearest double (round half to even), by Clinger's
//! exact fast path and Eisel and Lemire's 128-bit product (Lemire, "Number
//! Parsing at a Gigabyte per Second", Software: Practice and Experience
//! 51(8), 2021, section 5). Here the product of the 64-bit normalised
//! significand and the truncated power of ten [`super::table::G`]` - 1` is
//! taken whole (192 bits), so its only uncertainty is the truncation of
//! the power: less than one unit of the lowest 64 bits. Every case that
//! uncertainty could decide (a carry out of the middle word, a value at a
//! rounding midpoint with an inexact power), and every text outside the
//! cheap domain (more than 19 significant digits, an exponent outside the
//! table, a result that is subnormal or overflows), answers `None`: the
//! caller then asks std's correctly rounded parse.

use super::format::pow10;
use super::table::floor_log2_pow10;

/// Exact in a double: 10^0 to 10^22.
const EXACT: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
    1e21, 1e22,
];

/// The double nearest the JSON number `text` (RFC 8259 grammar:
/// `-? int frac? exp?`), or `None` where std's parse must answer.
pub fn parse(text: &[u8]) -> Option<f64> {
    let (neg, rest) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    let mut w: u64 = 0;
    let mut digits = 0u32; // significant digits in `w` (leading zeros skipped)
    let mut frac_digits: i64 = 0;
    let mut i = 0;
    let mut seen_point = false;
    let mut any_digit = false;
    while let Some(&b) = rest.get(i) {
        match b {
            b'0'..=b'9' => {
                any_digit = true;
                if w != 0 || b != b'0' {
                    digits += 1;
                    if digits > 19 {
                        return None;
                    }
                    w = w * 10 + u64::from(b - b'0');
                }
                if seen_point {
                    frac_digits += 1;
                }
            }
            b'.' if !seen_point => seen_point = true,
            _ => break,
        }
        i += 1;
    }
    let exp = exponent(rest, &mut i)?;
    if i != rest.len() || !any_digit {
        return None;
    }
    let q = exp - frac_digits;
    let v = magnitude(w, q)?;
    Some(if neg { -v } else { v })
}

/// The JSON number token starting at `at` in `b` (RFC 8259: `-? int frac?
/// exp?`, no leading zero, the longest such prefix) as the nearest double,
/// and where the token ends: one pass that checks the grammar and gathers
/// the significand. `None` where the token is malformed, has more than 19
/// significant digits or a 6-digit exponent, or [`magnitude`] leaves the
/// value to std: the caller then reads it by the grammar and std's parse,
/// which also names what is wrong.
#[inline]
pub fn json_number(b: &[u8], at: usize) -> Option<(f64, usize)> {
    let neg = b.get(at) == Some(&b'-');
    let mut i = at + usize::from(neg);
    let mut w: u64 = 0;
    let mut digits = 0u32;
    match b.get(i) {
        Some(b'0') => {
            i += 1;
            if let Some(b'0'..=b'9') = b.get(i) {
                return None;
            }
        }
        Some(b'1'..=b'9') => {
            while let Some(&c @ b'0'..=b'9') = b.get(i) {
                digits += 1;
                w = w.wrapping_mul(10).wrapping_add(u64::from(c - b'0'));
                i += 1;
            }
        }
        _ => return None,
    }
    let mut frac: i64 = 0;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let start = i;
        while let Some(&c @ b'0'..=b'9') = b.get(i) {
            // Leading zeros of a fraction below 1 are not significant.
            if w != 0 || c != b'0' {
                digits += 1;
            }
            w = w.wrapping_mul(10).wrapping_add(u64::from(c - b'0'));
            i += 1;
        }
        if i == start {
            return None;
        }
        frac = (i - start) as i64;
    }
    if digits > 19 {
        return None;
    }
    let exp = exponent(b, &mut i)?;
    let v = magnitude(w, exp - frac)?;
    Some((if neg { -v } else { v }, i))
}

/// `w · 10^q` rounded to a double, when it is normal and decided here.
fn magnitude(w: u64, q: i64) -> Option<f64> {
    if w == 0 {
        return Some(0.0);
    }
    // Clinger: both factors exact, one correctly rounded operation.
    if w <= 1 << 53 && (-22..=22).contains(&q) {
        let p = EXACT[q.unsigned_abs() as usize];
        return Some(if q < 0 { w as f64 / p } else { w as f64 * p });
    }
    let q = i32::try_from(q).ok()?;
    let t = pow10(q)? - 1;
    let l = w.leading_zeros();
    let wn = w << l;
    // The 192-bit product wn · t as (hi, mid, lo).
    let p_lo = u128::from(wn) * u128::from(t as u64);
    let p_hi = u128::from(wn) * u128::from((t >> 64) as u64);
    let lo = p_lo as u64;
    let (upper, carry) = p_hi.overflowing_add(p_lo >> 64);
    if carry {
        return None; // cannot happen: wn · t < 2^192
    }
    let hi = (upper >> 64) as u64;
    let mid = upper as u64;
    // The exact product is below (hi, mid, lo) + 2^64 (and equal when the
    // power is exact, 10^0 to 10^55): a carry out of `mid` would change `hi`.
    let exact_power = (0..=55).contains(&q);
    if mid == u64::MAX && !exact_power {
        return None;
    }
    let upperbit = (hi >> 63) as u32;
    let shift = upperbit + 9;
    let m54 = hi >> shift;
    let below = hi & ((1 << shift) - 1);
    let mut m = m54 >> 1;
    if m54 & 1 == 1 {
        // At or above the midpoint between m and m + 1.
        let exactly_half = if below != 0 || mid != 0 {
            false
        } else if exact_power {
            lo == 0
        } else {
            return None;
        };
        if !exactly_half || m & 1 == 1 {
            m += 1;
        }
    }
    let mut biased = i64::from(shift) + 2 + i64::from(floor_log2_pow10(q)) - i64::from(l) + 1075;
    if m == 1 << 53 {
        m >>= 1;
        biased += 1;
    }
    if !(1..=2046).contains(&biased) {
        return None;
    }
    Some(f64::from_bits(((biased as u64) << 52) | (m & ((1 << 52) - 1))))
}

/// The exponent part (`[eE][+-]?digits`, at most 6 digits) at `*i` in `b`,
/// 0 where there is none; `None` where it is malformed or too long.
#[inline]
fn exponent(b: &[u8], i: &mut usize) -> Option<i64> {
    let mut exp: i64 = 0;
    if let Some(b'e' | b'E') = b.get(*i) {
        *i += 1;
        let neg = match b.get(*i) {
            Some(b'-') => {
                *i += 1;
                true
            }
            Some(b'+') => {
                *i += 1;
                false
            }
            _ => false,
        };
        let start = *i;
        while let Some(&c @ b'0'..=b'9') = b.get(*i) {
            if *i - start >= 6 {
                return None;
            }
            exp = exp * 10 + i64::from(c - b'0');
            *i += 1;
        }
        if *i == start {
            return None;
        }
        if neg {
            exp = -exp;
        }
    }
    Some(exp)
}
