//! UTF-8 checks for strings read in place from a payload.
//!
//! A borrowed string sits at whatever offset its length prefix left it, so
//! `std::str::from_utf8` walks a short one byte by byte until it reaches a
//! word boundary. Catalog strings are mostly ASCII, so [`str_at`] first
//! tests them for ASCII with unaligned loads (two for up to 16 bytes) and
//! only runs the full check on the rest. Both paths report an invalid string at the same
//! offset: its first byte that is not part of a valid sequence.
//!
//! A whole text that is mostly ASCII with a few non-ASCII characters
//! scattered through it (a JSON catalog) goes through [`text`]: blocks of
//! [`BLOCK`] bytes tested for ASCII at once, the full check only on the blocks
//! around a non-ASCII byte; the error offset is again the first bad byte.

use super::{DecodeError, ErrorKind};

/// `bytes` as `&str`, or an [`ErrorKind::InvalidUtf8`] at `start` plus the
/// offset of the first byte that is not UTF-8 (`start` is where `bytes`
/// begins in the payload).
#[inline]
#[allow(unsafe_code)]
pub(crate) fn str_at(start: usize, bytes: &[u8]) -> Result<&str, DecodeError> {
    if is_ascii(bytes) {
        // SAFETY: every byte is below 0x80, and a run of ASCII bytes is
        // valid UTF-8 (each byte is a one-byte code point), which is what
        // `from_utf8_unchecked` requires.
        return Ok(unsafe { std::str::from_utf8_unchecked(bytes) });
    }
    std::str::from_utf8(bytes).map_err(|e| DecodeError::new(start + e.valid_up_to(), ErrorKind::InvalidUtf8))
}

/// No byte of `bytes` has its top bit set. `<[u8]>::is_ascii` walks a
/// string shorter than a word byte by byte; catalog strings are mostly that
/// short (a currency, a tag, a size), so this reads at most two overlapping
/// loads for anything up to 16 bytes, and whole words beyond.
#[inline(always)]
fn is_ascii(bytes: &[u8]) -> bool {
    let n = bytes.len();
    let any = match (bytes.first_chunk::<8>(), bytes.last_chunk::<8>()) {
        (Some(first), Some(last)) => {
            let mut any = u64::from_ne_bytes(*first) | u64::from_ne_bytes(*last);
            for word in bytes.get(8..).unwrap_or_default().chunks_exact(8) {
                any |= u64::from_ne_bytes(word.try_into().unwrap_or_default());
            }
            any
        }
        _ => match (bytes.first_chunk::<4>(), bytes.last_chunk::<4>()) {
            (Some(first), Some(last)) => u64::from(u32::from_ne_bytes(*first) | u32::from_ne_bytes(*last)),
            // 0 to 3 bytes: the first, the middle and the last cover them all.
            _ => match (bytes.first(), bytes.get(n / 2), bytes.last()) {
                (Some(a), Some(b), Some(c)) => u64::from(a | b | c),
                _ => 0,
            },
        },
    };
    any & HIGH_BITS == 0
}

/// Bytes per block [`text`] tests for ASCII at once.
const BLOCK: usize = 128;

/// Bytes the full check reads from a non-ASCII byte on.
const WINDOW: usize = 32;

/// The top bit of each byte of a word.
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// The whole of `bytes` as `&str`, or an [`ErrorKind::InvalidUtf8`] at
/// the first byte that is not part of a valid sequence: the offset
/// `std::str::from_utf8(bytes)` reports.
///
/// ASCII blocks of [`BLOCK`] bytes are skipped after one test each, then
/// ASCII words up to the first non-ASCII byte. From there (or from the last
/// few bytes) the full check runs on a window of [`WINDOW`] bytes: what it
/// finds valid is skipped, except a sequence cut by the window's end, which
/// the next window starts with. Every window starts on a character
/// boundary (after ASCII bytes or a complete sequence), so a sequence is
/// never split between two checks, and the first invalid byte a window
/// finds is the first of the text.
#[allow(unsafe_code)]
pub(crate) fn text(bytes: &[u8]) -> Result<&str, DecodeError> {
    let mut i = 0;
    loop {
        let rest = bytes.get(i..).unwrap_or_default();
        i += BLOCK
            * rest
                .chunks_exact(BLOCK)
                .take_while(|block| is_ascii_block(block))
                .count();
        // To the first non-ASCII byte, a word at a time.
        while let Some(word) = bytes.get(i..).and_then(|rest| rest.first_chunk::<8>()) {
            let high = u64::from_le_bytes(*word) & HIGH_BITS;
            if high != 0 {
                i += (high.trailing_zeros() / 8) as usize;
                break;
            }
            i += 8;
        }
        let end = bytes.len().min(i + WINDOW);
        let window = bytes.get(i..end).unwrap_or_default();
        match std::str::from_utf8(window) {
            Ok(_) if end == bytes.len() => break,
            Ok(_) => i = end,
            // Cut at the window's end (a sequence is at most 4 bytes, the
            // window longer, so this still moves forward).
            Err(e) if e.error_len().is_none() && end < bytes.len() => i += e.valid_up_to(),
            Err(e) => return Err(DecodeError::new(i + e.valid_up_to(), ErrorKind::InvalidUtf8)),
        }
    }
    // SAFETY: the loop above ends at `break` only once `0..bytes.len()` is
    // covered by ASCII blocks and windows that `from_utf8` accepted, each
    // ending on a character boundary where the next one starts; valid UTF-8
    // strings laid end to end are valid UTF-8, which `from_utf8_unchecked`
    // requires.
    Ok(unsafe { std::str::from_utf8_unchecked(bytes) })
}

/// No byte of `block` has its top bit set (the OR of its eight words does
/// not), so every byte is ASCII.
#[inline(always)]
fn is_ascii_block(block: &[u8]) -> bool {
    let mut any = 0u64;
    for word in block.chunks_exact(8) {
        any |= u64::from_ne_bytes(word.try_into().unwrap_or_default());
    }
    any & HIGH_BITS == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`text`] accepts what `from_utf8` accepts and reports the same
    /// offset: ASCII of every length around the block size, multi-byte
    /// characters at every position around block and window edges, cut
    /// sequences, and bad bytes anywhere.
    #[test]
    fn whole_text_check_agrees_with_from_utf8() {
        let check = |bytes: &[u8]| {
            let want = std::str::from_utf8(bytes).map_err(|e| e.valid_up_to());
            let got = text(bytes).map_err(|e| {
                assert_eq!(e.kind, ErrorKind::InvalidUtf8);
                e.offset
            });
            assert_eq!(got, want, "{bytes:?}");
        };
        let inserts: [&[u8]; 9] = [
            "é".as_bytes(),
            "€".as_bytes(),
            "😀".as_bytes(),
            b"\x80",
            b"\xc3",
            b"\xf0\x9f\x98",
            b"\xed\xa0\x80",
            b"\xff",
            b"\xc0\xaf",
        ];
        for len in [0, 1, 63, 64, 65, 127, 128, 129, 191, 192, 193, 300] {
            let ascii = vec![b'a'; len];
            check(&ascii);
            for at in 0..=len {
                for insert in inserts {
                    let mut bytes = ascii.clone();
                    bytes.splice(at..at, insert.iter().copied());
                    check(&bytes);
                    // A second non-ASCII character further on.
                    let mut twice = bytes.clone();
                    twice.extend_from_slice(&ascii);
                    twice.extend_from_slice("é".as_bytes());
                    check(&twice);
                }
            }
        }
        check("กาแฟ café 🍵".repeat(40).as_bytes());
    }

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
        // The word check agrees with `<[u8]>::is_ascii` with one high byte
        // at any position of any length around the word sizes.
        for n in 0..40 {
            let ascii = vec![b'a'; n];
            assert!(is_ascii(&ascii), "{n}");
            for at in 0..n {
                let mut high = ascii.clone();
                high[at] = 0x80;
                assert!(!is_ascii(&high), "{n} {at}");
            }
        }
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
