//! Number text for the JSON writer: integers (eight digits at a time, see
//! [`digits8`]) and f64 in exactly the spelling serde_json produces.
//!
//! serde_json 1.0.154 formats f64 with the `zmij` crate (Schubfach-based; older
//! releases used `ryu`, which lays digits out the same way but wrote exponents
//! as `e21`, not `e+21`). Its digits are the shortest that read back to the
//! same bits, ties broken its own way; [`write_f64`] is [`float::text`]'s
//! writer, which follows it. The catalog writer's ratings take
//! [`short_decimal`]'s two fast paths first (integers and values with up to
//! three decimals: every rating of the canonical fixture). With
//! `d₁d₂…dₙ` the digits and `x` the decimal exponent of `d₁`
//! (value = d₁.d₂…dₙ × 10^x), the layout (`write` in zmij's lib.rs,
//! `FIXED_DEC_EXP = -5..=15`) is:
//!
//! | condition | layout | example |
//! |---|---|---|
//! | value is 0 | `0.0` (`-0.0`) | `0.0` |
//! | -5 ≤ x ≤ 15 and n-1 ≤ x | digits, zeros up to x+1 places, `.0` | `5.0`, `1200.0` |
//! | 0 ≤ x ≤ 15 and n-1 > x | digits with `.` after x+1 of them | `4.25` |
//! | -5 ≤ x < 0 | `0.`, -x-1 zeros, digits | `0.001` |
//! | otherwise, n = 1 | `d e±x` | `1e+16`, `5e-324` |
//! | otherwise | `d.ddd e±x` | `1.2345e-7` |
//!
//! A negative value gets a leading `-`. Non-finite values have no JSON
//! spelling; the encoder refuses them before calling [`write_f64`].

use super::float::{
    self,
    text::{ASCII_ZEROS, digits8},
};

/// Appends the decimal digits of `v` (no sign): its groups of eight digits
/// ([`digits8`]), the first without its leading zeros.
#[inline]
pub fn write_u64(out: &mut Vec<u8>, v: u64) {
    const E8: u64 = 100_000_000;
    let groups = [v / (E8 * E8), v / E8 % E8, v % E8];
    let first = if v < E8 { 2 } else { usize::from(v < E8 * E8) };
    let d = digits8(groups[first] as u32);
    // Leading zero digits are the low zero bytes; the top bit keeps at
    // least the last digit.
    let zeros = ((d | (1 << 63)).trailing_zeros() / 8) as usize;
    out.extend_from_slice(&(d + ASCII_ZEROS).to_le_bytes()[zeros..]);
    for &g in &groups[first + 1..] {
        out.extend_from_slice(&(digits8(g as u32) + ASCII_ZEROS).to_le_bytes());
    }
}

/// Appends `v` in decimal, `-` first when negative (`i64::MIN` included).
#[inline]
pub fn write_i64(out: &mut Vec<u8>, v: i64) {
    if v < 0 {
        out.push(b'-');
    }
    write_u64(out, v.unsigned_abs());
}

/// Appends finite `v` exactly as serde_json would (see the module table):
/// the one double writer, [`float::text::double`].
pub fn write_f64(out: &mut Vec<u8>, v: f64) {
    debug_assert!(v.is_finite());
    let (buf, len) = float::text::double(v);
    out.extend_from_slice(&buf[..len]);
}

/// `a` (finite, not negative) as an integer part, a fraction and its
/// number of decimals (0 for `.0`) when it takes one of [`write_f64`]'s
/// fast paths, which decide the digits: 0; integers below 2^53; below
/// 10^9, a value equal to the nearest `n / 10^d` for the first `d` in 1..=3
/// with one (a last digit of 0 cannot happen; it would go to the general
/// case). `None` for everything else.
#[inline(always)]
pub(super) fn short_decimal(a: f64) -> Option<(u64, u32, usize)> {
    const POW10: [f64; 4] = [1.0, 10.0, 100.0, 1000.0];
    if a < 9_007_199_254_740_992.0 {
        // Exact below 2^53: the cast truncates, so equal means integral
        // (0 included).
        let int = a as u64;
        if int as f64 == a {
            return Some((int, 0, 0));
        }
    }
    if a < 1e9 {
        for d in 1..=3 {
            // Adding one half and truncating is the nearest `n` except where
            // the fraction of `a * 10^d` is within an ulp of one half, far
            // from any `n / 10^d` that could equal `a`.
            let n = (a * POW10[d] + 0.5) as u64;
            if n as f64 / POW10[d] == a {
                if n % 10 == 0 {
                    return None;
                }
                let p = [1, 10, 100, 1000][d];
                return Some((n / p, (n % p) as u32, d));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One case per row of the module table, plus each fast path's edges.
    #[test]
    fn floats_follow_the_layout_table() {
        #[rustfmt::skip]
        let cases = [
            (0.0, "0.0"), (-0.0, "-0.0"), (5.0, "5.0"), (1200.0, "1200.0"), (4.3, "4.3"), (4.25, "4.25"),
            (0.001, "0.001"), (0.1, "0.1"), (1.0 / 3.0, "0.3333333333333333"), (0.00001, "0.00001"),
            (0.000001, "1e-6"), (0.0000012, "1.2e-6"), (1e15, "1000000000000000.0"),
            (9007199254740993.0, "9007199254740992.0"), (1e16, "1e+16"), (1.5e16, "1.5e+16"),
            (123456789.125, "123456789.125"), (1e21, "1e+21"), (f64::MAX, "1.7976931348623157e+308"),
            (f64::MIN_POSITIVE, "2.2250738585072014e-308"), (f64::from_bits(1), "5e-324"), (-2.5, "-2.5"),
        ];
        for (v, want) in cases {
            let mut out = Vec::new();
            write_f64(&mut out, v);
            assert_eq!(String::from_utf8(out).unwrap(), want, "{v:e}");
        }
    }
}
