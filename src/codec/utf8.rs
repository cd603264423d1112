//! UTF-8 checks for strings read in place from a payload.
//!
//! A borrowed string sits at whatever offset its length prefix left it, so
//! `std::str::from_utf8` walks a short one byte by byte until it reaches a
//! word boundary. Catalog strings are mostly ASCII, and `<[u8]>::is_ascii`
//! reads unaligned words, so [`str_at`] asks that first and only runs the
//! full check on the rest. Both paths report an invalid string at the same
//! offset: its first byte that is not part of a valid sequence.

use super::{DecodeError, ErrorKind};

/// `bytes` as `&str`, or an [`ErrorKind::InvalidUtf8`] at `start` plus the
/// offset of the first byte that is not UTF-8 (`start` is where `bytes`
/// begins in the payload).
#[inline]
#[allow(unsafe_code)]
pub(crate) fn str_at(start: usize, bytes: &[u8]) -> Result<&str, DecodeError> {
    if bytes.is_ascii() {
        // SAFETY: every byte is below 0x80, and a run of ASCII bytes is
        // valid UTF-8 (each byte is a one-byte code point), which is what
        // `from_utf8_unchecked` requires.
        return Ok(unsafe { std::str::from_utf8_unchecked(bytes) });
    }
    std::str::from_utf8(bytes).map_err(|e| DecodeError::new(start + e.valid_up_to(), ErrorKind::InvalidUtf8))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ASCII shortcut and the full check agree: ASCII of every length
    /// around the word size and at every alignment, non-ASCII UTF-8, and
    /// invalid bytes (reported at the first bad byte, offset from `start`).
    #[test]
    fn ascii_goes_fast_and_what_is_not_utf8_is_still_refused() {
        let mut buf = [0u8; 64];
        for shift in 0..8 {
            for n in 0..40 {
                let ascii = &mut buf[shift..shift + n];
                for (i, b) in ascii.iter_mut().enumerate() {
                    *b = b' ' + (i % 95) as u8;
                }
                assert_eq!(str_at(0, ascii).unwrap().as_bytes(), &*ascii);
                let mut bad = ascii.to_vec();
                bad.push(0x80);
                bad.extend_from_slice(b"tail");
                assert_eq!(
                    str_at(7, &bad).unwrap_err(),
                    DecodeError::new(7 + n, ErrorKind::InvalidUtf8)
                );
            }
        }
        assert_eq!(str_at(0, "กาแฟ café 🍵".as_bytes()).unwrap(), "กาแฟ café 🍵");
        assert_eq!(
            str_at(3, b"ab\xe0\x80").unwrap_err(),
            DecodeError::new(5, ErrorKind::InvalidUtf8)
        );
        assert_eq!(str_at(0, b"\x7f").unwrap(), "\u{7f}");
        // Every byte value alone: the shortcut and `from_utf8` agree.
        for b in 0..=255u8 {
            assert_eq!(
                str_at(0, &[b]).is_ok(),
                std::str::from_utf8(&[b]).is_ok(),
                "byte {b:#04x}"
            );
        }
    }
}
