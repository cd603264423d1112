//! The output buffer of the schema-driven MessagePack and JSON encoders:
//! the `Vec<u8>` being written, kept zero-filled past the bytes written, so
//! that each value is stored with one room check and fixed-width copies (a
//! scalar's 16 bytes, a short string as two overlapping words, digits in
//! place) instead of a capacity check and a `memcpy` call per piece. Bytes
//! a store writes past what it counts are overwritten by the next store, or
//! cut off when the sink is dropped ([`Sink::finish`] keeps what was
//! written, dropping without it restores `out`). Safe code only: every
//! store is a bounds-checked slice of the vector; the zero-fill is one
//! `memset` pass as the vector grows.

use crate::codec::json::DIGIT_PAIRS;

/// Bytes a store may write past the ones it counts (a 16-byte scalar store
/// that counts one byte).
pub const SLACK: usize = 16;

/// Writes at `pos` into `out`, whose bytes from `pos` to its length are
/// scratch (see the module doc).
pub struct Sink<'a> {
    out: &'a mut Vec<u8>,
    /// `out.len()` when the sink was made: where a dropped sink cuts back to.
    start: usize,
    /// End of the bytes written: always `<= out.len()`.
    pos: usize,
}

impl<'a> Sink<'a> {
    /// A sink appending to `out`.
    pub fn new(out: &'a mut Vec<u8>) -> Sink<'a> {
        let start = out.len();
        Sink { out, start, pos: start }
    }

    /// Keeps the bytes written (`out` ends after them).
    pub fn finish(mut self) {
        self.start = self.pos;
    }

    /// Makes room for `n` bytes at the position.
    #[inline(always)]
    pub fn room(&mut self, n: usize) {
        if self.out.len() - self.pos < n {
            self.grow(n);
        }
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self, n: usize) {
        let need = self.pos.saturating_add(n);
        let cap = self.out.capacity();
        // Zero-fill the capacity there is, else at least double it.
        let target = if need <= cap {
            cap
        } else {
            need.max(cap.saturating_mul(2)).max(256)
        };
        self.out.resize(target, 0);
    }

    /// One byte.
    #[inline(always)]
    pub fn byte(&mut self, b: u8) {
        self.room(1);
        self.out[self.pos] = b;
        self.pos += 1;
    }

    /// The first `n` bytes of `bytes` (all `N` are stored).
    #[inline(always)]
    pub fn prefix<const N: usize>(&mut self, bytes: [u8; N], n: usize) {
        debug_assert!(n <= N);
        self.room(N);
        self.out[self.pos..self.pos + N].copy_from_slice(&bytes);
        self.pos += n;
    }

    /// All of `bytes`.
    #[inline(always)]
    pub fn array<const N: usize>(&mut self, bytes: [u8; N]) {
        self.prefix(bytes, N);
    }

    /// `b`, copied as at most two overlapping fixed-width words up to 32
    /// bytes (no `memcpy` call for a short string).
    #[inline(always)]
    pub fn bytes(&mut self, b: &[u8]) {
        let n = b.len();
        self.room(n);
        let dst = &mut self.out[self.pos..self.pos + n];
        if n >= 16 {
            if n <= 32 {
                dst[..16].copy_from_slice(&b[..16]);
                dst[n - 16..].copy_from_slice(&b[n - 16..]);
            } else {
                dst.copy_from_slice(b);
            }
        } else if n >= 8 {
            dst[..8].copy_from_slice(&b[..8]);
            dst[n - 8..].copy_from_slice(&b[n - 8..]);
        } else if n >= 4 {
            dst[..4].copy_from_slice(&b[..4]);
            dst[n - 4..].copy_from_slice(&b[n - 4..]);
        } else if n >= 2 {
            dst[..2].copy_from_slice(&b[..2]);
            dst[n - 2..].copy_from_slice(&b[n - 2..]);
        } else if n == 1 {
            dst[0] = b[0];
        }
        self.pos += n;
    }

    /// The decimal digits of `v` (no sign), written in place two at a time.
    #[inline]
    pub fn decimal(&mut self, mut v: u64) {
        let len = v.checked_ilog10().unwrap_or(0) as usize + 1;
        self.room(20);
        let dst = &mut self.out[self.pos..self.pos + len];
        let mut i = len;
        while v >= 100 {
            let pair = (v % 100) as usize * 2;
            v /= 100;
            i -= 2;
            dst[i..i + 2].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
        }
        if v >= 10 {
            let pair = v as usize * 2;
            dst[..2].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
        } else {
            dst[0] = b'0' + v as u8;
        }
        self.pos += len;
    }

    /// `n` copies of `b`.
    pub fn repeat(&mut self, b: u8, n: usize) {
        self.room(n);
        self.out[self.pos..self.pos + n].fill(b);
        self.pos += n;
    }
}

impl Drop for Sink<'_> {
    fn drop(&mut self) {
        // A finished sink keeps its bytes; an abandoned one (an error)
        // leaves `out` as it was.
        self.out.truncate(self.start.min(self.pos));
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
                    s.repeat(b'0', n % 5);
                    s.decimal(u64::MAX);
                    s.finish();
                    want.push(b'x');
                    want.extend_from_slice(&pattern[..n]);
                    want.push(b'y');
                    want.extend_from_slice((n as u64 * 1_000_003).to_string().as_bytes());
                    want.extend_from_slice(b"ab");
                    want.extend(std::iter::repeat_n(b'0', n % 5));
                    want.extend_from_slice(u64::MAX.to_string().as_bytes());
                    assert_eq!(out, want, "prefix {prefix}, capacity {cap}, {n} bytes");
                }
            }
        }
    }

    #[test]
    fn decimals_are_plain() {
        for v in [0u64, 9, 10, 99, 100, 101, 12_345, 9_999_999_999, u64::MAX] {
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
