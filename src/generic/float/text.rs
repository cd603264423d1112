//! A finite double (or float) as the schema-driven JSON codec spells it:
//! the shortest round-trip digits ([`super::format::shortest_raw`]; the
//! integer itself below 2^53; a whole number of millionths when one reads
//! back, [`micros`]) in serde_json's layout (the table of
//! `crate::codec::json::number`: fixed notation for a first-digit weight
//! `x` from -5 to 15, else `d.ddde±x`). The digits are made eight at a
//! time ([`digits8`]) into one 16-byte word, whose zero bytes count the
//! leading and trailing zeros, and laid out in a padded buffer by
//! fixed-width copies: no division per digit, no text buffer copied twice.

use super::format::{shortest_f32_raw, shortest_raw};
use crate::codec::json::{ASCII_ZEROS, DIGIT_PAIRS, digits8};

/// The longest spelling is 25 bytes (`-2.2250738585072014e-308`); the
/// layout's fixed-width copies reach byte 35.
pub const TEXT_BUF: usize = 40;

/// The JSON spelling of finite `v` (see the module doc): a padded buffer
/// and how many of its bytes count. A non-finite `v` has no spelling and
/// gives length 0.
#[inline(always)]
pub fn double(v: f64) -> ([u8; TEXT_BUF], usize) {
    let a = v.abs();
    // Integers below 2^53 (zero included) are their own digits (the signed
    // cast is the cheaper one; `a` is in its range).
    let (d, e) = if a < 9_007_199_254_740_992.0 && a as i64 as f64 == a {
        (a as i64 as u64, 0)
    } else if let Some(n) = micros(a) {
        (n, -6)
    } else {
        match shortest_raw(a) {
            Some(de) => de,
            None => return ([0; TEXT_BUF], 0),
        }
    };
    lay_out(v.is_sign_negative(), d, e)
}

/// For a non-integer `a` from 10^-6 to 2^30, the `n` with `n · 10^-6`
/// reading back to `a`, if there is one: then `n` (trailing zeros aside)
/// is `a`'s shortest digits. Reading back is the check: `n / 10^6`, both
/// exact in a double and the quotient correctly rounded, is the double a
/// reader makes of the decimal. Below 2^30 a double's gap is under 10^-6,
/// so no other multiple of 10^-6 reads back to `a`, and a decimal with
/// more than six decimals has more significant digits (no integer reads
/// back to a non-integer, so every one has `a`'s integer part; below 1,
/// its leading zeros). The nearest `n` is `a · 10^6` rounded: its error
/// is below 0.25 in this range.
#[inline(always)]
fn micros(a: f64) -> Option<u64> {
    if !(1e-6..1_073_741_824.0).contains(&a) {
        return None;
    }
    let n = (a * 1e6 + 0.5) as i64;
    (n as f64 / 1e6 == a).then_some(n as u64)
}

/// The JSON spelling of finite `v`: the shortest digits that read back to
/// the same `f32`, laid out as [`double`] lays out a double with those
/// digits (`0.1f32` is `0.1`, `16777216f32` is `16777216.0`).
#[inline]
pub fn float(v: f32) -> ([u8; TEXT_BUF], usize) {
    let a = v.abs();
    let (d, e) = if a < 16_777_216.0 && a as i32 as f32 == a {
        (a as i32 as u64, 0)
    } else {
        match shortest_f32_raw(a) {
            Some(de) => de,
            None => return ([0; TEXT_BUF], 0),
        }
    };
    lay_out(v.is_sign_negative(), d, e)
}

/// The digits of `d` (below 10^17, trailing zeros allowed) times `10^e`,
/// `-` first when `negative`, in serde_json's layout.
#[inline(always)]
fn lay_out(negative: bool, d: u64, e: i32) -> ([u8; TEXT_BUF], usize) {
    let mut buf = [b'0'; TEXT_BUF];
    if negative {
        buf[0] = b'-';
    }
    let s = usize::from(negative);
    if d == 0 {
        buf[s + 1] = b'.';
        return (buf, s + 3);
    }
    let (buf17, from, n, m) = digits17(d);
    let digits = &buf17[from..from + 32];
    // The weight of the first digit.
    let x = e + n as i32 - 1;
    let len = if (0..=15).contains(&x) {
        let int = x as usize + 1;
        buf[s..s + 16].copy_from_slice(&digits[..16]);
        if m <= int {
            // Digits, zeros up to the point (the word's padding), `.0`.
            buf[s + int] = b'.';
            buf[s + int + 1] = b'0';
            s + int + 2
        } else {
            buf[s + int] = b'.';
            buf[s + int + 1..s + int + 17].copy_from_slice(&digits[int..int + 16]);
            s + m + 1
        }
    } else if (-5..0).contains(&x) {
        // `0.`, -x-1 zeros (the buffer's), the digits.
        buf[s + 1] = b'.';
        let at = s + 1 + x.unsigned_abs() as usize;
        buf[at..at + 17].copy_from_slice(&digits[..17]);
        at + m
    } else {
        buf[s] = digits[0];
        let mut at = s + 1;
        if m > 1 {
            buf[at] = b'.';
            buf[at + 1..at + 17].copy_from_slice(&digits[1..17]);
            at += m;
        }
        let (word, k) = exponent(x);
        buf[at..at + 8].copy_from_slice(&word);
        at + k
    };
    (buf, len)
}

/// `e±x` as a padded word and its length (`|x|` is at most 324).
#[inline(always)]
fn exponent(x: i32) -> ([u8; 8], usize) {
    let mut w = [b'e', if x < 0 { b'-' } else { b'+' }, 0, 0, 0, 0, 0, 0];
    let u = x.unsigned_abs() as usize;
    if u < 10 {
        w[2] = b'0' + u as u8;
        (w, 3)
    } else if u < 100 {
        w[2..4].copy_from_slice(&DIGIT_PAIRS[2 * u..2 * u + 2]);
        (w, 4)
    } else {
        let (h, r) = (u / 100 % 10, u % 100);
        w[2] = b'0' + h as u8;
        w[3..5].copy_from_slice(&DIGIT_PAIRS[2 * r..2 * r + 2]);
        (w, 5)
    }
}

/// The decimal digits of `d` (1 to 10^17 - 1), first digit first, from
/// the returned offset of a buffer padded with `'0'` (at least 32 bytes
/// from it); how many digits `d` has, and how many are left without its
/// trailing zeros.
#[inline(always)]
fn digits17(d: u64) -> ([u8; 48], usize, usize, usize) {
    const E8: u64 = 100_000_000;
    const E16: u64 = E8 * E8;
    const ZEROS: u128 = (ASCII_ZEROS as u128) << 64 | ASCII_ZEROS as u128;
    let mut out = [b'0'; 48];
    let first = d / E16;
    let rest = d % E16;
    // Sixteen digits, the most significant in the lowest byte (the first
    // eight all zero below 10^8).
    let w = if rest < E8 {
        u128::from(digits8(rest as u32)) << 64
    } else {
        u128::from(digits8((rest / E8) as u32)) | u128::from(digits8((rest % E8) as u32)) << 64
    };
    out[1..17].copy_from_slice(&(w + ZEROS).to_le_bytes());
    // Trailing zeros are the word's high zero bytes.
    let trailing = (w.leading_zeros() / 8) as usize;
    if first > 0 {
        out[0] = b'0' + (first % 10) as u8;
        (out, 0, 17, 17 - trailing)
    } else {
        // Leading zeros are the low zero bytes (`w > 0`: at most 15).
        let lead = (w.trailing_zeros() / 8) as usize;
        (out, 1 + lead, 16 - lead, 16 - lead - trailing)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prng::Rng;

    /// serde_json's layout of `v`, from std's shortest digits (`{:e}`):
    /// the reference the writer is compared with.
    fn reference(v: f64, digits: &str, x: i32) -> String {
        let sign = if v.is_sign_negative() { "-" } else { "" };
        let n = digits.len() as i32;
        let body = if digits == "0" {
            "0.0".to_string()
        } else if (-5..0).contains(&x) {
            format!("0.{}{digits}", "0".repeat((-x - 1) as usize))
        } else if (0..=15).contains(&x) && n - 1 <= x {
            format!("{digits}{}.0", "0".repeat((x + 1 - n) as usize))
        } else if (0..=15).contains(&x) {
            format!("{}.{}", &digits[..x as usize + 1], &digits[x as usize + 1..])
        } else {
            let frac = if n > 1 {
                format!(".{}", &digits[1..])
            } else {
                String::new()
            };
            format!("{}{frac}e{}{}", &digits[..1], if x < 0 { '-' } else { '+' }, x.abs())
        };
        format!("{sign}{body}")
    }

    /// `{:e}` of a float as its digits and first-digit weight.
    fn std_digits(t: &str) -> (String, i32) {
        let t = t.trim_start_matches('-');
        let (m, x) = t.split_once('e').unwrap();
        (m.replace('.', ""), x.parse().unwrap())
    }

    fn ours(text: ([u8; TEXT_BUF], usize)) -> String {
        String::from_utf8(text.0[..text.1].to_vec()).unwrap()
    }

    /// Where `write` and the reference disagree among `values` (at most 5).
    fn double_disagreements(values: &[f64], write: impl Fn(f64) -> String) -> Vec<String> {
        values
            .iter()
            .filter_map(|&v| {
                let (digits, x) = std_digits(&format!("{v:e}"));
                let want = reference(v, &digits, x);
                let got = write(v);
                (got != want).then(|| format!("{v:e} ({:#x}): want {want}, got {got}", v.to_bits()))
            })
            .take(5)
            .collect()
    }

    fn test_doubles() -> Vec<f64> {
        let mut rng = Rng::new(0x7E47);
        let mut v = vec![
            0.0,
            -0.0,
            1.0,
            5.0,
            1200.0,
            4.25,
            0.001,
            0.00001,
            0.000001,
            1e15,
            1e16,
            1e21,
            9007199254740991.0,
            9007199254740992.0,
            9007199254740993.0,
            123456789012345680.0,
            99999999999999999.0,
            1e17,
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::from_bits(1),
            15.709551,
            -44.7092,
            5.5251406440042005e-120,
            -2.1322503863672714e+47,
        ];
        for e in -330..=310 {
            for m in [1.0, 1.5, 9.999999999999999, 1.2345678901234567, 7.0] {
                if let Ok(x) = format!("{m}e{e}").parse::<f64>() {
                    v.push(x);
                }
            }
        }
        for e in -1074..=1023 {
            v.push(2f64.powi(e));
        }
        for _ in 0..200_000 {
            v.push(f64::from_bits(rng.next_u64()));
            // Decimals of 1 to 17 digits at every weight near fixed notation.
            let digits = rng.range_i64(1, 17) as u32;
            let n = rng.next_u64() % 10u64.pow(digits);
            if let Ok(x) = format!("{n}e{}", rng.range_i64(-25, 20)).parse::<f64>() {
                v.push(if rng.chance(50) { -x } else { x });
            }
        }
        v.retain(|x| x.is_finite());
        v
    }

    #[test]
    fn doubles_are_std_digits_in_serde_json_layout() {
        let bad = double_disagreements(&test_doubles(), |v| ours(double(v)));
        assert!(bad.is_empty(), "{bad:#?}");
    }

    /// The comparison above fails on a layout that drops a trailing zero
    /// of an integer or writes the exponent without its sign.
    #[test]
    fn the_double_check_catches_a_wrong_layout() {
        let values = test_doubles();
        let no_zero = |v: f64| ours(double(v)).replace("00.0", "0.0");
        assert!(!double_disagreements(&values, no_zero).is_empty());
        let unsigned = |v: f64| ours(double(v)).replace("e+", "e");
        assert!(!double_disagreements(&values, unsigned).is_empty());
    }

    /// [`micros`] agrees with the shortest digits wherever it answers, and
    /// answers for most decimals of up to six places (the check is not
    /// vacuous); without its read-back check it would not agree.
    #[test]
    fn millionths_are_the_shortest_digits() {
        let strip = |(mut d, mut e): (u64, i32)| {
            while d % 10 == 0 && d != 0 {
                d /= 10;
                e += 1;
            }
            (d, e)
        };
        let check = |f: &dyn Fn(f64) -> Option<u64>| {
            let (mut hits, mut wrong) = (0, 0);
            for a in test_doubles().into_iter().map(f64::abs) {
                if let Some(n) = f(a) {
                    hits += 1;
                    wrong += usize::from(Some(strip((n, -6))) != super::super::format::shortest(a));
                }
            }
            (hits, wrong)
        };
        let (hits, wrong) = check(&micros);
        assert_eq!(wrong, 0);
        assert!(hits > 20_000, "{hits}");
        let unchecked = |a: f64| (1e-6..1_073_741_824.0).contains(&a).then_some((a * 1e6 + 0.5) as u64);
        assert!(check(&unchecked).1 > 0);
    }

    #[test]
    fn non_finite_values_have_no_spelling() {
        for v in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert_eq!(double(v).1, 0);
            assert_eq!(float(v as f32).1, 0);
        }
    }

    /// Every float of the hard and random bit patterns, against std's
    /// shortest `f32` digits (`{:e}` of the `f32`) in the same layout.
    #[test]
    fn floats_are_std_f32_digits_in_serde_json_layout() {
        let mut rng = Rng::new(0xF32);
        let mut values: Vec<f32> = vec![
            0.0,
            -0.0,
            0.1,
            0.3,
            1.0 / 3.0,
            16_777_215.0,
            16_777_216.0,
            16_777_217.0,
            1e7,
            1e-7,
            f32::MAX,
            f32::MIN_POSITIVE,
            f32::EPSILON,
            f32::from_bits(1),
            f32::from_bits(0x7F_FFFF),
        ];
        for e in -149..=127 {
            let p = 2f32.powi(e);
            values.extend([
                p,
                f32::from_bits(p.to_bits() + 1),
                f32::from_bits(p.to_bits().saturating_sub(1)),
            ]);
        }
        for e in -45..=38 {
            if let Ok(x) = format!("1e{e}").parse::<f32>() {
                values.extend([
                    x,
                    f32::from_bits(x.to_bits() + 1),
                    f32::from_bits(x.to_bits().saturating_sub(1)),
                ]);
            }
        }
        for _ in 0..400_000 {
            values.push(f32::from_bits(rng.next_u64() as u32));
        }
        // Every float of a few whole binades.
        for bits in (0x3F80_0000u32..0x3F88_0000).chain(0x0000_0001..0x0001_0000) {
            values.push(f32::from_bits(bits));
        }
        let bad = float_disagreements(&values, |v| ours(float(v)));
        assert!(bad.is_empty(), "{bad:#?}");
        // A writer that formats the float's double fails the comparison.
        let widened = |v: f32| ours(double(f64::from(v)));
        assert!(!float_disagreements(&values, widened).is_empty());
    }

    fn float_disagreements(values: &[f32], write: impl Fn(f32) -> String) -> Vec<String> {
        values
            .iter()
            .filter(|v| v.is_finite())
            .filter_map(|&v| {
                let (digits, x) = std_digits(&format!("{v:e}"));
                let want = reference(f64::from(v), &digits, x);
                let got = write(v);
                (got != want).then(|| format!("{v:e} ({:#x}): want {want}, got {got}", v.to_bits()))
            })
            .take(5)
            .collect()
    }
}
