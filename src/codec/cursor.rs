//! A bounds-checked reader over untrusted bytes: the one place where lengths
//! read from the wire meet slices of the input.
//!
//! Every read either returns the bytes it promised or an [`ErrorKind::Eof`] /
//! [`ErrorKind::LengthExceedsInput`] error carrying the offset. A length is
//! compared with what remains *before* anything is sliced or allocated, so a
//! prefix of 2^63 costs nothing but an error.

use super::error::{DecodeError, ErrorKind};

/// A position in an input slice.
#[derive(Clone, Debug)]
pub struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    pub fn new(bytes: &'a [u8]) -> Cursor<'a> {
        Cursor { bytes, pos: 0 }
    }

    /// Offset of the next unread byte.
    #[inline]
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// The whole input (for error context and annotators).
    pub fn input(&self) -> &'a [u8] {
        self.bytes
    }

    /// Bytes not yet read.
    #[inline]
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.pos
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    /// The next byte without consuming it.
    #[inline]
    pub fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// One byte; `expected` names what it should have been.
    #[inline]
    pub fn u8(&mut self, expected: &'static str) -> Result<u8, DecodeError> {
        match self.bytes.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok(b)
            }
            None => Err(DecodeError::eof(self.pos, expected)),
        }
    }

    /// Exactly `N` bytes as an array.
    #[inline]
    pub fn array<const N: usize>(&mut self, expected: &'static str) -> Result<[u8; N], DecodeError> {
        let s = self.fixed(N, expected)?;
        let mut out = [0u8; N];
        out.copy_from_slice(s);
        Ok(out)
    }

    /// Exactly `n` bytes whose size the grammar fixes (not read from the wire):
    /// running out is an `Eof`.
    #[inline]
    pub fn fixed(&mut self, n: usize, expected: &'static str) -> Result<&'a [u8], DecodeError> {
        match self.bytes.get(self.pos..).and_then(|rest| rest.get(..n)) {
            Some(s) => {
                self.pos += n;
                Ok(s)
            }
            None => Err(DecodeError::eof(self.bytes.len(), expected)),
        }
    }

    /// `len` bytes whose length came from the wire: a length beyond the input
    /// is a `LengthExceedsInput` error reported at the current offset.
    #[inline]
    pub fn take(&mut self, len: u64, what: &'static str) -> Result<&'a [u8], DecodeError> {
        let remaining = self.remaining();
        match usize::try_from(len) {
            Ok(n) if n <= remaining => {
                let s = &self.bytes[self.pos..self.pos + n];
                self.pos += n;
                Ok(s)
            }
            _ => Err(DecodeError::length_exceeds(self.pos, what, len, remaining)),
        }
    }

    /// Checks that a count read from the wire could fit in what remains when
    /// each item takes at least `min_item_bytes`; use before `Vec::with_capacity`.
    #[inline]
    pub fn check_count(&self, count: u64, min_item_bytes: u64, what: &'static str) -> Result<usize, DecodeError> {
        let remaining = self.remaining();
        match count.checked_mul(min_item_bytes.max(1)) {
            Some(need) if need <= remaining as u64 => Ok(count as usize),
            _ => Err(DecodeError::length_exceeds(self.pos, what, count, remaining)),
        }
    }

    /// Moves back or forward to an absolute offset within the input.
    pub fn seek(&mut self, pos: usize) {
        self.pos = pos.min(self.bytes.len());
    }

    /// Error unless the input is fully consumed.
    pub fn finish(&self) -> Result<(), DecodeError> {
        if self.is_empty() {
            Ok(())
        } else {
            Err(DecodeError::new(
                self.pos,
                ErrorKind::TrailingBytes {
                    count: self.remaining(),
                },
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn huge_lengths_are_errors_not_allocations() {
        let mut c = Cursor::new(&[1, 2, 3]);
        c.u8("x").unwrap();
        for len in [1u64 << 31, 1 << 63, u64::MAX, 3] {
            let e = c.take(len, "string length").unwrap_err();
            assert_eq!(e.offset, 1);
            assert!(matches!(e.kind, ErrorKind::LengthExceedsInput { remaining: 2, .. }));
        }
        assert_eq!(c.take(2, "s").unwrap(), &[2, 3]);
        assert!(c.finish().is_ok());
    }

    #[test]
    fn counts_are_checked_against_minimum_item_size() {
        let c = Cursor::new(&[0; 10]);
        assert_eq!(c.check_count(5, 2, "array").unwrap(), 5);
        assert!(c.check_count(6, 2, "array").is_err());
        assert!(c.check_count(u64::MAX, 2, "array").is_err());
    }

    #[test]
    fn eof_names_what_was_expected() {
        let mut c = Cursor::new(&[]);
        assert_eq!(
            c.u8("a marker byte").unwrap_err().to_string(),
            "unexpected end of input, expected a marker byte at byte 0"
        );
        assert!(c.array::<4>("u32").is_err());
    }
}
