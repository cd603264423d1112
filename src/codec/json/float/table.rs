//! The 617 128-bit powers of ten that the shortest formatter
//! ([`super::format`]) and the decimal parser ([`super::parse`]) scale by:
//! entry `i` is `g(n)` for `n = i - 292` (10^-292 to 10^324), where
//! `g(n) = floor(10^n / 2^r) + 1` and `r = floor(log2 10^n) - 127`, so
//! `2^127 <= g(n) < 2^128` and `g(n) - 1 <= 10^n / 2^r < g(n)` (Giulietti,
//! "The Schubfach way to render doubles", 2021, section 9). The parser
//! takes `g(n) - 1`, the truncated power of Lemire's "Number Parsing at a
//! Gigabyte per Second" (2021).
//!
//! The table is computed exactly at compile time. With `10^n = 5^n · 2^n`,
//! `10^n / 2^r = 5^n · 2^(n - r)`: for `n >= 0` that is `5^n` shifted (its
//! top 128 bits when it is longer); for `n = -m < 0` it is
//! `2^(n - r) / 5^m`, the top bits of `floor(2^S / 5^m)` for a fixed
//! `S >= n - r`, which one division by 5 per step gives exactly
//! (`floor(floor(a / b) / c) = floor(a / bc)`). Integers are little-endian
//! `u64` words. The test `table_entries_bound_the_powers_of_ten` rechecks
//! every entry against the definition by multiplication.

/// The smallest `n` in [`G`].
pub const N_MIN: i32 = -292;
/// The largest `n` in [`G`].
pub const N_MAX: i32 = 324;

/// `floor(e · log2 10)` for `|e| <= 6_432_162`.
#[inline]
pub(crate) const fn floor_log2_pow10(e: i32) -> i32 {
    ((e as i64 * 913_124_641_741) >> 38) as i32
}

/// `g(n)` for `n` in `N_MIN..=N_MAX`, in order.
pub static G: [u128; 617] = table();

/// Words of the compile-time integers: 896 bits, room for `2^S`.
const W: usize = 14;
/// The numerator's exponent for `n < 0`; `n - r` is at most 806 there.
const S: i32 = 832;

const fn table() -> [u128; 617] {
    let mut g = [0u128; 617];
    let mut big = [0u64; W];
    big[0] = 1; // 5^n
    let mut n = 0;
    while n <= N_MAX {
        let s = n - (floor_log2_pow10(n) - 127);
        g[(n - N_MIN) as usize] = 1 + if s >= 0 {
            // 5^n < 2^128: the power is exact.
            (big[0] as u128 | (big[1] as u128) << 64) << s
        } else {
            bits(&big, -s)
        };
        let mut carry = 0u128;
        let mut w = 0;
        while w < W {
            let x = big[w] as u128 * 5 + carry;
            big[w] = x as u64;
            carry = x >> 64;
            w += 1;
        }
        n += 1;
    }
    big = [0u64; W];
    big[S as usize / 64] = 1 << (S % 64); // floor(2^S / 5^-n)
    n = -1;
    while n >= N_MIN {
        let mut rem = 0u128;
        let mut w = W;
        while w > 0 {
            w -= 1;
            let x = rem << 64 | big[w] as u128;
            big[w] = (x / 5) as u64;
            rem = x % 5;
        }
        let s = n - (floor_log2_pow10(n) - 127);
        g[(n - N_MIN) as usize] = 1 + bits(&big, S - s);
        n -= 1;
    }
    g
}

/// Bits `shift..shift + 128` of `b`.
const fn bits(b: &[u64; W], shift: i32) -> u128 {
    let (w, o) = (shift as usize / 64, shift % 64);
    let lo = word(b, w) | word(b, w + 1) << 64;
    if o == 0 {
        lo
    } else {
        lo >> o | word(b, w + 2) << (128 - o)
    }
}

const fn word(b: &[u64; W], i: usize) -> u128 {
    if i < W { b[i] as u128 } else { 0 }
}
