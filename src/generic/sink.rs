//! The output buffer of the schema-driven MessagePack and JSON encoders:
//! appends to a `Vec<u8>` in fixed-width stores, so that no piece costs a
//! `memcpy` call: a value of `n` bytes padded to `N` is stored whole and
//! counts `n` ([`Sink::prefix`]), a string up to 64 bytes is copied as
//! overlapping words ([`Sink::bytes`]), digits are made eight at a time
//! in a padded word. The stores are [`crate::codec::spare`]'s
//! `push_prefix` and `push_bytes` (safe functions, one capacity check
//! each). [`Sink::finish`] keeps what was written; a sink dropped without
//! it (an encoder's error) restores `out`. A new sink makes room for
//! [`FIRST_ROOM`] bytes at once: a document of a few kilobytes is not
//! copied through its 8-, 16-, 32-… byte sizes.

use crate::codec::json::float::text::{ASCII_ZEROS16, digits16};
use crate::codec::json::{ASCII_ZEROS, digits8};
use crate::codec::spare::{push_bytes, push_padded, push_prefix};

/// The room a new [`Sink`] makes in its vector.
pub const FIRST_ROOM: usize = 1024;

/// Appends to `out` (see the module doc).
pub struct Sink<'a> {
    out: &'a mut Vec<u8>,
    /// `out.len()` when the sink was made: where a dropped sink cuts back to.
    start: usize,
    /// Whether [`Sink::finish`] was called.
    done: bool,
}

impl<'a> Sink<'a> {
    pub fn new(out: &'a mut Vec<u8>) -> Sink<'a> {
        out.reserve(FIRST_ROOM);
        let start = out.len();
        Sink {
            out,
            start,
            done: false,
        }
    }

    /// Keeps the bytes written (`out` ends after them).
    pub fn finish(mut self) {
        self.done = true;
    }

    /// Makes room for `n` more bytes (one growth for the pieces that
    /// follow, instead of one in the middle of them).
    #[inline(always)]
    pub fn room(&mut self, n: usize) {
        self.out.reserve(n);
    }

    #[inline(always)]
    pub fn byte(&mut self, b: u8) {
        self.out.push(b);
    }

    /// The first `n` bytes of `bytes` (`n <= N`).
    #[inline(always)]
    pub fn prefix<const N: usize>(&mut self, bytes: [u8; N], n: usize) {
        debug_assert!(n <= N);
        push_prefix(self.out, &bytes, n);
    }

    #[inline(always)]
    pub fn array<const N: usize>(&mut self, bytes: [u8; N]) {
        push_prefix(self.out, &bytes, N);
    }

    #[inline(always)]
    pub fn bytes(&mut self, b: &[u8]) {
        push_bytes(self.out, b);
    }

    /// The spelling `write` stores into a padded buffer of `N` bytes
    /// (returning how many of its first bytes count), stored straight into
    /// `out`: the buffer is `out`'s next `N` bytes, zero-filled, cut back
    /// to the count. Nothing is copied after it is written (a copy of a
    /// buffer just written in pieces would wait for those stores).
    #[inline(always)]
    pub fn padded<const N: usize>(&mut self, write: impl FnOnce(&mut [u8; N]) -> usize) {
        push_padded(self.out, write);
    }

    /// The decimal digits of `v` (no sign): groups of eight digits made at
    /// once ([`digits8`]), leading zeros shifted out of the word: one
    /// store below 10^16, three into [`Sink::padded`]'s buffer above.
    #[inline]
    pub fn decimal(&mut self, v: u64) {
        const E8: u64 = 100_000_000;
        if v < E8 {
            let (word, n) = leading_group(v as u32);
            self.prefix(word.to_le_bytes(), n);
            return;
        }
        if v < E8 * E8 {
            // Sixteen digits in one word, their leading zeros (at most
            // seven) shifted out: one store.
            let w = digits16(v);
            let lead = w.trailing_zeros() / 8;
            self.prefix(((w + ASCII_ZEROS16) >> (8 * lead)).to_le_bytes(), 16 - lead as usize);
            return;
        }
        // 17 to 20 digits: up to four, then sixteen.
        let (word, n) = leading_group((v / (E8 * E8)) as u32);
        let w0 = digits8((v / E8 % E8) as u32) + ASCII_ZEROS;
        let w1 = digits8((v % E8) as u32) + ASCII_ZEROS;
        self.padded::<24>(|buf| {
            buf[..8].copy_from_slice(&word.to_le_bytes());
            buf[n..n + 8].copy_from_slice(&w0.to_le_bytes());
            buf[n + 8..n + 16].copy_from_slice(&w1.to_le_bytes());
            n + 16
        });
    }
}

/// The digits of `v` (below 10^8) without leading zeros (`0` is `0`), as
/// a little-endian word, and how many there are.
#[inline(always)]
fn leading_group(v: u32) -> (u64, usize) {
    let d = digits8(v);
    // Leading zero digits are the low zero bytes; the top bit keeps at
    // least the last digit.
    let zeros = (d | (1 << 63)).trailing_zeros() / 8;
    ((d + ASCII_ZEROS) >> (8 * zeros), 8 - zeros as usize)
}

impl Drop for Sink<'_> {
    fn drop(&mut self) {
        if !self.done {
            // An abandoned sink (an error) leaves `out` as it was.
            self.out.truncate(self.start);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every store at every starting capacity and prefix appends exactly
    /// its bytes, and the scratch past them never shows.
    #[test]
    fn stores_append_exactly_their_bytes() {
        let pattern: Vec<u8> = (0..80u8).map(|i| i.wrapping_mul(7) | 1).collect();
        for prefix in [0usize, 3] {
            for cap in [0usize, 1, 7, 17, 40] {
                for n in 0..pattern.len() {
                    let mut out = Vec::with_capacity(cap);
                    out.extend(std::iter::repeat_n(b'p', prefix));
                    let mut want = out.clone();
                    let mut s = Sink::new(&mut out);
                    s.prefix([b'x'; 16], 1);
                    s.bytes(&pattern[..n]);
                    s.byte(b'y');
                    s.decimal(n as u64 * 1_000_003);
                    s.array(*b"ab");
                    s.decimal(u64::MAX);
                    s.finish();
                    want.push(b'x');
                    want.extend_from_slice(&pattern[..n]);
                    want.push(b'y');
                    want.extend_from_slice((n as u64 * 1_000_003).to_string().as_bytes());
                    want.extend_from_slice(b"ab");
                    want.extend_from_slice(u64::MAX.to_string().as_bytes());
                    assert_eq!(out, want, "prefix {prefix}, capacity {cap}, {n} bytes");
                }
            }
        }
    }

    #[test]
    fn decimals_are_plain() {
        let mut values = vec![0u64, 9, 10, 99, 100, 101, 12_345, 9_999_999_999, u64::MAX];
        for p in 0..20 {
            let t = 10u64.pow(p);
            values.extend([t - 1, t, t + 1, t.saturating_mul(7).saturating_add(3)]);
        }
        for v in values {
            let mut out = Vec::new();
            let mut s = Sink::new(&mut out);
            s.decimal(v);
            s.finish();
            assert_eq!(out, v.to_string().as_bytes());
        }
    }

    /// A sink dropped without `finish` (an encoder's error) leaves `out`
    /// exactly as it was.
    #[test]
    fn an_unfinished_sink_restores_out() {
        let mut out = b"kept".to_vec();
        {
            let mut s = Sink::new(&mut out);
            s.bytes(&[9; 300]);
        }
        assert_eq!(out, b"kept");
        let mut s = Sink::new(&mut out);
        s.byte(b'!');
        s.finish();
        assert_eq!(out, b"kept!");
    }
}
