//! A finite double (or float) as the schema-driven JSON codec spells it:
//! the shortest round-trip digits ([`super::format::shortest_parts`]; the
//! integer itself below 2^53; a whole number of millionths when one reads
//! back, [`micros`]) in serde_json's layout (the table of
//! `crate::codec::json::number`: fixed notation for a first-digit weight
//! `x` from -5 to 15, else `d.ddde±x`). The digits are made eight at a
//! time ([`digits8`]) into one 16-byte word held in a register, whose zero
//! bytes count the leading and trailing zeros, and the layout is a few
//! fixed-width stores of shifted words into the destination
//! ([`double_into`]): no division per digit, and no load of bytes just
//! stored (it would wait for those stores).

use super::format::{shortest_f32_raw, shortest_parts};
use crate::codec::json::DIGIT_PAIRS;

/// The longest spelling is 25 bytes (`-2.2250738585072014e-308`); the
/// layout's fixed-width stores reach byte 35.
pub const TEXT_BUF: usize = 40;

/// The JSON spelling of finite `v` (see the module doc): a padded buffer
/// and how many of its bytes count. A non-finite `v` has no spelling and
/// gives length 0.
#[inline]
pub fn double(v: f64) -> ([u8; TEXT_BUF], usize) {
    let mut buf = [b'0'; TEXT_BUF];
    let len = double_into(v, &mut buf);
    (buf, len)
}

/// [`double`] stored into `buf` (whatever it holds): how many of its
/// first bytes are the spelling; the bytes after them are scratch.
#[inline(always)]
pub fn double_into(v: f64, buf: &mut [u8; TEXT_BUF]) -> usize {
    let a = v.abs();
    // Integers below 2^52 (zero included) are their own digits. Adding
    // 2^52 rounds `a` to an integer (the sum's unit is 1) and leaves that
    // integer as the sum's significand: no conversion instruction. (Those
    // from 2^52 to 2^53 take the shortest digits, which are theirs too.)
    const TWO52: f64 = 4_503_599_627_370_496.0;
    let (head, last, e) = if a < TWO52 && (a + TWO52) - TWO52 == a {
        let n = (a + TWO52).to_bits() - TWO52.to_bits();
        if n < 100_000_000 {
            return integer8(v.is_sign_negative(), n as u32, buf);
        }
        (n / 10, n % 10, 0)
    } else if let Some(n) = micros(a).filter(|&n| n >= 10) {
        return millionths(v.is_sign_negative(), n, buf);
    } else {
        match shortest_parts::<true>(a) {
            Some(parts) => parts,
            None => return 0,
        }
    };
    lay_out(v.is_sign_negative(), head, last, e, buf)
}

/// [`lay_out`] of an integer `n` below 10^8 (zero included): its digits
/// from one word (no seventeen-digit split), then `.0`.
#[inline(always)]
fn integer8(negative: bool, n: u32, buf: &mut [u8; TEXT_BUF]) -> usize {
    let s = usize::from(negative);
    buf[0] = b'-';
    let w = digits8(n);
    // Leading zeros are the low zero bytes; the last digit stays (zero is `0`).
    let lead = ((w | 1 << 56).trailing_zeros() / 8) as usize;
    put8(buf, s, (w + ASCII_ZEROS) >> (8 * lead));
    let end = s + 8 - lead;
    put8(buf, end, u64::from_le_bytes(*b".0\0\0\0\0\0\0"));
    end + 2
}

/// [`lay_out`] of `n · 10^-6` for an `n` from 10 to 10^16 - 1 that is not
/// a multiple of 10^6 (a [`micros`] answer from 10^-5 up: fixed notation,
/// the point before the last six digits): the sixteen digits of `n` (eight
/// when `n < 10^8`), their leading zeros cut down to one integer digit and
/// their trailing zeros dropped.
#[inline(always)]
fn millionths(negative: bool, n: u64, buf: &mut [u8; TEXT_BUF]) -> usize {
    const E8: u64 = 100_000_000;
    let s = usize::from(negative);
    buf[0] = b'-';
    if n < E8 {
        // Two integer digits, then six decimals (not all zero).
        let w = digits8(n as u32);
        let lead = ((w.trailing_zeros() / 8) as usize).min(1);
        let int = 2 - lead;
        let t = w + ASCII_ZEROS;
        put8(buf, s, t >> (8 * lead));
        put8(buf, s + int + 1, t >> 16);
        buf[s + int] = b'.';
        s + int + 7 - (w.leading_zeros() / 8) as usize
    } else {
        // Ten integer digits, then six decimals.
        let w = digits16(n);
        let lead = ((w.trailing_zeros() / 8) as usize).min(9);
        let int = 10 - lead;
        let t = w + ASCII_ZEROS16;
        put16(buf, s, t >> (8 * lead));
        put8(buf, s + int + 1, (t >> 80) as u64);
        buf[s + int] = b'.';
        s + int + 7 - (w.leading_zeros() / 8) as usize
    }
}

/// For a non-integer `a` from 10^-6 to 2^30, the `n` with `n · 10^-6`
/// reading back to `a`, if there is one: then `n` (trailing zeros aside)
/// is `a`'s shortest digits. Below 2^30 a double's gap is under 10^-6, so
/// no other multiple of 10^-6 reads back to `a`, and a decimal with more
/// than six decimals has more significant digits (no integer reads back to
/// a non-integer, so every one has `a`'s integer part; below 1, its
/// leading zeros). The nearest `n` is `a · 10^6` rounded: its error is
/// below 0.25 in this range. Whether it reads back is decided exactly in
/// integers, with no division: for `a = c · 2^q`, `n / 10^6` rounds to `a` when it is within
/// half of `a`'s gaps, `|n · 2^-q - c · 10^6| < 10^6 / 2` (`2^-q · 10^6`
/// times both sides); the gap below a power of two is half the one above.
/// No decimal here is a tie: both products are multiples of 64 (`-q >= 23`),
/// and neither half-gap, `2^5 · 5^6` or `2^4 · 5^6`, is.
#[inline(always)]
fn micros(a: f64) -> Option<u64> {
    if !(1e-6..1_073_741_824.0).contains(&a) {
        return None;
    }
    // Below 2^50 here: the signed conversion (one instruction and its
    // saturation check) gives what the unsigned one would.
    let n = (a * 1e6 + 0.5) as i64 as u64;
    let bits = a.to_bits();
    let c = bits & ((1 << 52) - 1) | 1 << 52;
    // `-q` is 23 to 72 in this range; `n < 2^50`, so the shift fits.
    let minus_q = 1075 - (bits >> 52) as u32;
    let scaled = u128::from(n) << minus_q;
    let exact = u128::from(c) * 1_000_000;
    let half = if scaled < exact && c == 1 << 52 {
        250_000
    } else {
        500_000
    };
    (scaled.abs_diff(exact) < half).then_some(n)
}

/// The JSON spelling of finite `v`: the shortest digits that read back to
/// the same `f32`, laid out as [`double`] lays out a double with those
/// digits (`0.1f32` is `0.1`, `16777216f32` is `16777216.0`).
#[inline]
pub fn float(v: f32) -> ([u8; TEXT_BUF], usize) {
    let mut buf = [b'0'; TEXT_BUF];
    let len = float_into(v, &mut buf);
    (buf, len)
}

/// [`float`] stored into `buf`, as [`double_into`] stores a double.
#[inline]
pub fn float_into(v: f32, buf: &mut [u8; TEXT_BUF]) -> usize {
    let a = v.abs();
    let (d, e) = if a < 16_777_216.0 && a as i32 as f32 == a {
        (a as i32 as u64, 0)
    } else {
        match shortest_f32_raw(a) {
            Some(de) => de,
            None => return 0,
        }
    };
    lay_out(v.is_sign_negative(), d / 10, d % 10, e, buf)
}

/// `'0'` in every byte: added to eight digits 0..=9, their ASCII.
pub const ASCII_ZEROS: u64 = 0x3030_3030_3030_3030;

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
pub fn digits8(v: u32) -> u64 {
    debug_assert!(v < 100_000_000);
    let x = u64::from(v / 10_000) | u64::from(v % 10_000) << 32;
    let q = ((x * 10_486) >> 20) & 0x0000_007F_0000_007F;
    let x = q | (x - q * 100) << 16;
    let q = ((x * 103) >> 10) & 0x000F_000F_000F_000F;
    q | (x - q * 10) << 8
}

/// `ASCII_ZEROS` in both halves of a [`digits16`] word.
pub(crate) const ASCII_ZEROS16: u128 = (ASCII_ZEROS as u128) << 64 | ASCII_ZEROS as u128;

/// The sixteen decimal digits of `v` (below 10^16, leading zeros kept) as
/// [`digits8`] makes eight: the most significant in the lowest byte, each
/// a value 0–9 ([`ASCII_ZEROS16`] added makes them text).
#[inline(always)]
pub(crate) fn digits16(v: u64) -> u128 {
    const E8: u64 = 100_000_000;
    u128::from(digits8((v / E8) as u32)) | u128::from(digits8((v % E8) as u32)) << 64
}

/// `w` stored at `buf[at..at + 16]`.
#[inline(always)]
fn put16(buf: &mut [u8; TEXT_BUF], at: usize, w: u128) {
    buf[at..at + 16].copy_from_slice(&w.to_le_bytes());
}

/// `w` stored at `buf[at..at + 8]`.
#[inline(always)]
fn put8(buf: &mut [u8; TEXT_BUF], at: usize, w: u64) {
    buf[at..at + 8].copy_from_slice(&w.to_le_bytes());
}

/// The digits of `d = head · 10 + last` (`head` below 10^16, `last` a
/// digit, trailing zeros allowed) times `10^e`, `-` first when `negative`,
/// in serde_json's layout, stored into `buf`: the spelling's length. Every
/// store is of a register (a word of digits shifted into place, a
/// constant); none reads `buf`.
#[inline(always)]
fn lay_out(negative: bool, head: u64, last: u64, e: i32, buf: &mut [u8; TEXT_BUF]) -> usize {
    let s = usize::from(negative);
    buf[0] = b'-';
    if head == 0 && last == 0 {
        // `0.0` (after the sign) and scratch.
        put8(buf, s, u64::from_le_bytes(*b"0.000000"));
        return s + 3;
    }
    let Digits { hi, last, n, m } = digits17(head, last);
    // The weight of the first digit.
    let x = e + n as i32 - 1;
    if (0..=15).contains(&x) {
        let int = x as usize + 1;
        put16(buf, s, hi);
        if m <= int {
            // Digits, zeros up to the point (the word's padding), `.0`.
            buf[s + int] = b'.';
            buf[s + int + 1] = b'0';
            s + int + 2
        } else {
            // The digits from `int` on: the word's upper bytes, then the
            // seventeenth digit (`int` is 1 to 16).
            let frac = hi.checked_shr(8 * int as u32).unwrap_or(0) | u128::from(last) << (8 * (16 - int));
            put16(buf, s + int + 1, frac);
            buf[s + int] = b'.';
            s + m + 1
        }
    } else if (-5..0).contains(&x) {
        // `0.`, -x-1 zeros, the digits.
        put8(buf, s, u64::from_le_bytes(*b"0.000000"));
        let at = s + 1 + x.unsigned_abs() as usize;
        put16(buf, at, hi);
        buf[at + 16] = last;
        at + m
    } else {
        // The digits from `s + 1`, then the first moved down before a `.`.
        put16(buf, s + 1, hi);
        buf[s + 17] = last;
        buf[s] = hi as u8;
        buf[s + 1] = b'.';
        let at = s + 1 + if m > 1 { m } else { 0 };
        let (word, k) = exponent(x);
        put8(buf, at, word);
        at + k
    }
}

/// `e±x` as a little-endian word and its length (`|x|` is at most 324).
#[inline(always)]
fn exponent(x: i32) -> (u64, usize) {
    let head = u64::from(b'e') | u64::from(if x < 0 { b'-' } else { b'+' }) << 8;
    let u = x.unsigned_abs() as usize;
    // Two digits from the table (static bytes: no recent store to wait for).
    let pair = |r: usize| u64::from(u16::from_le_bytes([DIGIT_PAIRS[2 * r], DIGIT_PAIRS[2 * r + 1]]));
    if u < 10 {
        (head | (0x30 + u as u64) << 16, 3)
    } else if u < 100 {
        (head | pair(u) << 16, 4)
    } else {
        (head | (0x30 + (u / 100 % 10) as u64) << 16 | pair(u % 100) << 24, 5)
    }
}

/// The decimal digits of a `d` from 1 to 10^17 - 1, as [`digits17`]
/// gives them.
struct Digits {
    /// The first sixteen digits, first digit in the lowest byte, padded
    /// with `'0'` when there are fewer.
    hi: u128,
    /// The seventeenth digit, `'0'` when there are fewer.
    last: u8,
    /// How many digits `d` has.
    n: usize,
    /// How many are left without its trailing zeros.
    m: usize,
}

/// The digits of `d = head · 10 + last` (`head` below 10^16, `last` a
/// digit, `d` not zero), all in registers: `head`'s sixteen (one
/// [`digits16`] word, leading zeros cut), then `last`.
#[inline(always)]
fn digits17(head: u64, last: u64) -> Digits {
    // Sixteen digits, the most significant in the lowest byte.
    let w = digits16(head);
    // Trailing zeros of `d`: `head`'s (the word's high zero bytes) after a
    // zero `last`; none after another.
    let trailing = if last == 0 {
        1 + (w.leading_zeros() / 8) as usize
    } else {
        0
    };
    if w as u8 != 0 {
        // Seventeen digits.
        Digits {
            hi: w + ASCII_ZEROS16,
            last: last as u8 + b'0',
            n: 17,
            m: 17 - trailing,
        }
    } else {
        // Leading zeros are the low zero bytes (all 16 when `head` is 0;
        // then `last` is not, and it is the one digit).
        let lead = (w.trailing_zeros() / 8) as usize;
        let n = 17 - lead;
        Digits {
            hi: (w.checked_shr(8 * lead as u32).unwrap_or(0) | u128::from(last) << (8 * (16 - lead))) + ASCII_ZEROS16,
            last: b'0',
            n,
            m: n - trailing,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::disagreements;
    use super::*;
    use crate::prng::Rng;

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

    /// Where `write` and serde_json disagree among `values` (at most 5).
    fn double_disagreements(values: &[f64], write: impl Fn(f64) -> String) -> Vec<String> {
        disagreements(values, |&&v| serde_json::to_string(&v).unwrap(), |&&v| write(v))
    }

    /// [`micros`] agrees with the shortest digits wherever it answers, and
    /// answers for most decimals of up to six places (the check is not
    /// vacuous); without its read-back check it would not agree.
    #[test]
    fn millionths_are_the_shortest_digits() {
        // Random bit patterns, and decimals of 1 to 17 digits at every
        // weight near fixed notation, which have up to six decimals or more.
        let mut rng = Rng::new(0x7E47);
        let mut values = Vec::new();
        for _ in 0..200_000 {
            values.push(f64::from_bits(rng.next_u64() & !(1 << 63)));
            let digits = rng.range_i64(1, 17) as u32;
            let n = rng.next_u64() % 10u64.pow(digits);
            values.extend(format!("{n}e{}", rng.range_i64(-25, 20)).parse::<f64>());
        }
        values.retain(|a| a.is_finite());
        let strip = |(mut d, mut e): (u64, i32)| {
            while d % 10 == 0 && d != 0 {
                d /= 10;
                e += 1;
            }
            (d, e)
        };
        let check = |f: &dyn Fn(f64) -> Option<u64>| {
            let (mut hits, mut wrong) = (0, 0);
            for &a in &values {
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

    /// The values at the edges of [`micros`]: whole millionths near both
    /// ends of its range, near each power of two inside it (where a gap
    /// halves), random ones, and each one's neighbours one and two bits
    /// away (which are not millionths and must go to Schubfach).
    fn micros_edges() -> Vec<f64> {
        let top = 1_073_741_824_000_000u64;
        let mut ns: Vec<u64> = (1..3000).chain(top - 3000..top + 3000).collect();
        for k in -20..=30 {
            let p = (2f64.powi(k) * 1e6) as u64;
            ns.extend(p.saturating_sub(50).max(1)..p + 50);
        }
        let mut rng = Rng::new(0x1E6);
        ns.extend((0..100_000).map(|_| 1 + rng.next_u64() % top));
        let mut v = Vec::new();
        for n in ns {
            let a: f64 = format!("{n}e-6").parse().unwrap();
            let b = a.to_bits();
            v.extend([
                a,
                f64::from_bits(b - 1),
                f64::from_bits(b + 1),
                f64::from_bits(b - 2),
                f64::from_bits(b + 2),
            ]);
        }
        v.extend([1e-6, 0.999_999e-6, 1_073_741_824.0, 1_073_741_823.999_999]);
        v
    }

    /// Where `f` and the shortest digits disagree among [`micros_edges`]
    /// (at most 5): `f` must answer exactly for the values in range whose
    /// shortest digits have at most six decimals, with those digits.
    fn micros_disagreements(f: impl Fn(f64) -> Option<u64>) -> Vec<String> {
        let want = |&a: &f64| {
            let in_range = (1e-6..1_073_741_824.0).contains(&a);
            let shortest = super::super::format::shortest(a).filter(|&(_, e)| in_range && e >= -6);
            shortest.map(|(d, e)| d * 10u64.pow((e + 6) as u32))
        };
        disagreements(micros_edges(), want, |&a| f(a))
    }

    /// Whole millionths at the edges of [`micros`] and their neighbours,
    /// both signs, spelled as the reference spells them (the layout of
    /// [`millionths`], and of [`lay_out`] below 10^-5).
    #[test]
    fn millionths_are_laid_out_as_serde_json_lays_them_out() {
        let values: Vec<f64> = micros_edges().into_iter().flat_map(|a| [a, -a]).collect();
        let bad = double_disagreements(&values, |v| ours(double(v)));
        assert!(bad.is_empty(), "{bad:#?}");
        // The comparison fails on a layout that keeps one trailing zero.
        let kept_zero = |v: f64| {
            let t = ours(double(v));
            if t.contains('.') && !t.contains('e') && !t.ends_with(".0") {
                t + "0"
            } else {
                t
            }
        };
        assert!(!double_disagreements(&values, kept_zero).is_empty());
    }

    #[test]
    fn millionths_hand_over_at_their_edges() {
        let bad = micros_disagreements(micros);
        assert!(bad.is_empty(), "{bad:#?}");
        // The comparison fails on a check one bit too loose, on a range
        // cut short at either end, and on no check at all.
        let loose = |a: f64| micros(a).or_else(|| micros(f64::from_bits(a.to_bits() - 1)));
        assert!(!micros_disagreements(loose).is_empty());
        let short_low = |a: f64| if a < 2e-6 { None } else { micros(a) };
        assert!(!micros_disagreements(short_low).is_empty());
        let short_high = |a: f64| if a > 1_073_741_000.0 { None } else { micros(a) };
        assert!(!micros_disagreements(short_high).is_empty());
        let unchecked = |a: f64| (1e-6..1_073_741_824.0).contains(&a).then_some((a * 1e6 + 0.5) as u64);
        assert!(!micros_disagreements(unchecked).is_empty());
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
        let want = |&&v: &&f32| {
            let (digits, x) = std_digits(&format!("{v:e}"));
            reference(f64::from(v), &digits, x)
        };
        disagreements(values.iter().filter(|v| v.is_finite()), want, |&&v| write(v))
    }
}
