//! Number text for the JSON writer: integers (eight digits at a time, see
//! [`digits8`]) and f64 in exactly the spelling serde_json produces.
//!
//! serde_json 1.0.154 formats f64 with the `zmij` crate (Schubfach-based; older
//! releases used `ryu`, which lays digits out the same way but wrote exponents
//! as `e21`, not `e+21`). Its digits are the shortest that read back to the
//! same bits, except that ties are broken its own way, so we decide them by
//! zmij's rule (see [`write_shortest_general`]) with std's exact expansion
//! and parse as the arithmetic; two fast paths cover integers and values with
//! up to three decimals (every rating of the canonical fixture). With
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
/// [`short_decimal`]'s fast paths, else the general case.
pub fn write_f64(out: &mut Vec<u8>, v: f64) {
    debug_assert!(v.is_finite());
    if v.is_sign_negative() {
        out.push(b'-');
    }
    let a = v.abs();
    let Some((int, frac, decimals)) = short_decimal(a) else {
        return write_shortest_general(out, a);
    };
    write_u64(out, int);
    if decimals == 0 {
        out.extend_from_slice(b".0");
    } else {
        // The last `decimals` of the eight digits of `frac`.
        out.push(b'.');
        out.extend_from_slice(&(digits8(frac) + ASCII_ZEROS).to_le_bytes()[8 - decimals..]);
    }
}

/// `a` (finite, not negative) as an integer part, a fraction and its
/// number of decimals (0 for `.0`) when it takes one of [`write_f64`]'s
/// fast paths, which decide the digits: 0; integers below 2^53; below
/// 10^9, a value equal to the nearest `n / 10^d` for the first `d` in 1..=3
/// with one (a last digit of 0 cannot happen; it would go to the general
/// case). `None` for everything else. The catalog writer takes the same
/// paths, so the two spell every rating alike.
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

/// `'0'` in every byte: added to eight digits 0..=9, their ASCII.
pub(crate) const ASCII_ZEROS: u64 = 0x3030_3030_3030_3030;

/// The eight decimal digits of `v` (below 10^8), leading zeros included,
/// one per byte with the most significant in the lowest byte: the
/// little-endian bytes are the digits in writing order.
///
/// Divisions by multiply and shift, in lanes: `v` splits into two 4-digit
/// halves (32-bit lanes), each half into two 2-digit pairs (16-bit lanes:
/// `x / 100 == x * 10486 >> 20` for `x < 10^4`), each pair into two digits
/// (8-bit lanes: `x / 10 == x * 103 >> 10` for `x < 100`). No lane's
/// product reaches the next lane, and the mask keeps each quotient's bits
/// out of the one below.
#[inline(always)]
pub(crate) fn digits8(v: u32) -> u64 {
    debug_assert!(v < 100_000_000);
    let x = u64::from(v / 10_000) | u64::from(v % 10_000) << 32;
    let q = ((x * 10_486) >> 20) & 0x0000_007F_0000_007F;
    let x = q | (x - q * 100) << 16;
    let q = ((x * 103) >> 10) & 0x000F_000F_000F_000F;
    q | (x - q * 10) << 8
}

/// The general case: zmij's digit choice, decided exactly.
///
/// zmij (Schubfach) works at two decimal scales fixed by the binary exponent
/// `e` of the 53-bit significand: a fine unit `10^k` with
/// `k = floor(log10(2^e))` (for an exact power of two, `floor(log10(¾·2^e))`)
/// and a coarse unit `10^(k+1)`. If the coarse candidate above the value
/// reads back to the same f64 it wins, else the one below does; otherwise the
/// result is the value rounded to the fine unit, ties to even (the nearest
/// such value that reads back, which differs only for powers of two). std's shortest
/// `{:e}` agrees almost always but breaks ties differently, so we follow the
/// rule itself: std's exact expansion (`{:.800e}` prints every digit of any
/// f64) gives the candidates, std's correctly rounded parse decides "reads
/// back". Trailing zeros are then dropped. Verified against serde_json over
/// every power of two (and its neighbours), powers of ten and 100,000 seeded values in tests/reference_json.rs.
#[cold]
fn write_shortest_general(out: &mut Vec<u8>, a: f64) {
    let bits = a.to_bits();
    let raw_exp = ((bits >> 52) & 0x7FF) as i32;
    let mantissa = bits & ((1 << 52) - 1);
    let bin_exp = if raw_exp == 0 { -1074 } else { raw_exp - 1075 };
    let irregular = mantissa == 0 && raw_exp > 1;
    // floor(e·log10 2) (or of ¾·2^e), zmij's fixed-point formula.
    let k = (bin_exp * 315_653 - i32::from(irregular) * 131_072) >> 20;

    let exact = format!("{a:.800e}");
    let (mantissa_text, exp_text) = exact.split_once('e').unwrap_or((&exact, "0"));
    let top: i32 = exp_text.parse().unwrap_or(0); // weight of the first digit
    let all: Vec<u8> = mantissa_text.bytes().filter(u8::is_ascii_digit).collect();
    // The integer made of the digits weighing at least 10^unit.
    let prefix = |unit: i32| -> u64 {
        let n = (top - unit + 1).max(0) as usize;
        all.iter().take(n).fold(0u64, |acc, &d| acc * 10 + u64::from(d - b'0'))
    };
    let reads_back =
        |digits: u64, unit: i32| -> bool { digits != 0 && format!("{digits}e{unit}").parse::<f64>() == Ok(a) };

    let s = prefix(k + 1);
    let (mut digits, mut unit) = if reads_back(s + 1, k + 1) {
        (s + 1, k + 1)
    } else if reads_back(s, k + 1) {
        (s, k + 1)
    } else {
        let r = prefix(k);
        let at = (top - k + 1).max(0) as usize; // first digit below the fine unit
        let rest = all.get(at..).unwrap_or(&[]);
        let up = match rest.first() {
            Some(&d) if d > b'5' => true,
            Some(b'5') => rest[1..].iter().any(|&d| d != b'0') || r % 2 == 1,
            _ => false,
        };
        let r = r + u64::from(up);
        // Only for an exact power of two (its gap below is half the gap
        // above) can the nearest fine candidate fall outside the interval;
        // zmij then takes the nearest one inside.
        let r = [r, r + 1, r.saturating_sub(1)]
            .into_iter()
            .find(|&c| reads_back(c, k))
            .unwrap_or(r);
        (r, k)
    };
    while digits % 10 == 0 && digits != 0 {
        digits /= 10;
        unit += 1;
    }
    let mut text = Vec::with_capacity(20);
    write_u64(&mut text, digits);
    let n = text.len() as i32;
    let x = unit + n - 1; // weight of the first digit
    if (-5..=15).contains(&x) {
        if n - 1 <= x {
            out.extend_from_slice(&text);
            out.extend(std::iter::repeat_n(b'0', (x + 1 - n) as usize));
            out.extend_from_slice(b".0");
        } else if x >= 0 {
            let int = (x + 1) as usize;
            out.extend_from_slice(&text[..int]);
            out.push(b'.');
            out.extend_from_slice(&text[int..]);
        } else {
            out.extend_from_slice(b"0.");
            out.extend(std::iter::repeat_n(b'0', (-x - 1) as usize));
            out.extend_from_slice(&text);
        }
        return;
    }
    out.push(text[0]);
    if n > 1 {
        out.push(b'.');
        out.extend_from_slice(&text[1..]);
    }
    out.push(b'e');
    out.push(if x < 0 { b'-' } else { b'+' });
    write_u64(out, u64::from(x.unsigned_abs()));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every value below 10^8 in steps that touch each digit position,
    /// split into its digits exactly.
    #[test]
    fn digits8_is_exact() {
        let mut v = 0u32;
        while v < 100_000_000 {
            let want: Vec<u8> = format!("{v:08}").bytes().map(|b| b - b'0').collect();
            assert_eq!(digits8(v).to_le_bytes().to_vec(), want, "{v}");
            v += if v < 200_000 { 1 } else { 997 };
        }
        assert_eq!(digits8(99_999_999), u64::from_le_bytes([9; 8]));
    }

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
