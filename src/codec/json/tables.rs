//! Byte tables of the JSON codec: which bytes a string must escape (and how),
//! the hex digits of `\u00XX`, and the eight-bytes-at-a-time test for them.
//!
//! RFC 8259 §7: inside a string, `"`, `\` and the control characters
//! U+0000..=U+001F must be escaped; everything else (including `/`, DEL and
//! all non-ASCII) may appear raw. The writer escapes exactly that set, with
//! the same spelling serde_json uses, so the two produce identical bytes; the
//! parser stops at exactly that set too (a raw control byte is an error).

/// The letter after `\` of the one escape that has no short form:
/// `\u00XX` (lowercase hex), every control character without a letter.
pub const UU: u8 = b'u';

/// `ESCAPE[b]` is the letter after `\` that byte `b` is written as inside a
/// JSON string, or 0 if `b` is copied as is: `\b \t \n \f \r \" \\`,
/// [`UU`] for every other control character 0x00..=0x1F. It doubles as the
/// parser's "stop scanning" set: a string run ends at the first byte with a
/// non-zero entry (`"` closes, `\` escapes, a raw control byte is an error).
pub static ESCAPE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = UU;
        b += 1;
    }
    // Pairs: the byte, then the letter of its short escape.
    let short = b"\x08b\x09t\x0an\x0cf\x0dr\"\"\\\\";
    let mut i = 0;
    while i < short.len() {
        t[short[i] as usize] = short[i + 1];
        i += 2;
    }
    t
};

/// Lowercase hex digits of `\u00XX` escapes (serde_json's spelling).
pub static HEX_DIGITS: [u8; 16] = *b"0123456789abcdef";

/// `00`, `01`, … `99`: two decimal digits per entry, for writers that lay
/// numbers out two digits at a time (the schema-driven JSON and MessagePack
/// encoders in `generic`).
pub static DIGIT_PAIRS: [u8; 200] = {
    let mut t = [0u8; 200];
    let mut i = 0;
    while i < 100 {
        t[2 * i] = b'0' + (i / 10) as u8;
        t[2 * i + 1] = b'0' + (i % 10) as u8;
        i += 1;
    }
    t
};

const LO: u64 = 0x0101_0101_0101_0101;
/// The top bit of each byte of a word.
pub const HI: u64 = 0x8080_8080_8080_8080;

/// For each byte of `w` that [`ESCAPE`] marks (below 0x20, `"`, `\`), the
/// top bit of that byte or of one above it set in the result (a borrow can
/// flag a byte above a marked one, never a word without one); before the
/// final `& HI`, so results can be or-ed and masked once. Zero after
/// `& HI` exactly when no byte is marked.
#[inline(always)]
pub fn marked(w: u64) -> u64 {
    // Some byte < 0x20 (exact for thresholds <= 0x80).
    let ctrl = w.wrapping_sub(LO * 0x20) & !w;
    // Some byte equal to `"` / `\`: xor makes it zero, then "has a zero byte".
    let q = w ^ (LO * u64::from(b'"'));
    let quote = q.wrapping_sub(LO) & !q;
    let b = w ^ (LO * u64::from(b'\\'));
    let backslash = b.wrapping_sub(LO) & !b;
    ctrl | quote | backslash
}

/// Index of the first byte of `s[from..]` that [`ESCAPE`] marks, or `s.len()`.
///
/// Eight bytes at a time (SWAR, [`marked`]), the lowest flag marking the
/// first special byte; the last < 8 bytes of the input go through the table
/// one by one. Both the writer (runs to copy) and the parser (runs to
/// validate) use it, so they agree on the set by construction.
#[inline]
pub fn find_special(s: &[u8], mut i: usize) -> usize {
    while let Some(chunk) = s.get(i..i + 8) {
        let hits = marked(u64::from_le_bytes(chunk.try_into().expect("8 bytes"))) & HI;
        if hits != 0 {
            // The lowest flagged byte is exact (a false flag can only sit
            // above a true one, where a borrow ran on): little-endian, so it
            // is the first special byte of the chunk.
            return i + (hits.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(&b) = s.get(i) {
        if ESCAPE[b as usize] != 0 {
            return i;
        }
        i += 1;
    }
    s.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digit_pairs_spell_every_pair() {
        for i in 0..100 {
            assert_eq!(&DIGIT_PAIRS[2 * i..2 * i + 2], format!("{i:02}").as_bytes());
        }
    }

    #[test]
    fn escape_set_is_rfc_8259_section_7() {
        for b in 0..=255u8 {
            let must = b < 0x20 || b == b'"' || b == b'\\';
            assert_eq!(ESCAPE[b as usize] != 0, must, "byte {b:#04x}");
        }
        let letters: Vec<String> = (0..256)
            .filter(|&b| ESCAPE[b] > 0 && ESCAPE[b] != UU)
            .map(|b| format!("{b:02x}{}", ESCAPE[b] as char))
            .collect();
        assert_eq!(letters.join(" "), r#"08b 09t 0an 0cf 0dr 22" 5c\"#);
        assert_eq!(ESCAPE[0x1F], UU);
        assert_eq!(ESCAPE[0x7F], 0, "DEL is written raw, as serde_json does");
        assert_eq!(ESCAPE[b'/' as usize], 0);
    }

    /// The SWAR scan agrees with the byte-at-a-time definition at every
    /// position of every special byte, including chunk boundaries.
    #[test]
    fn find_special_matches_the_table() {
        for special in 0..=255u8 {
            for at in 0..20 {
                let mut s = vec![b'a'; 20];
                s.extend_from_slice("é€😀".as_bytes());
                s[at] = special;
                for from in 0..=at {
                    let want = (from..s.len()).find(|&i| ESCAPE[s[i] as usize] != 0).unwrap_or(s.len());
                    assert_eq!(find_special(&s, from), want, "byte {special:#04x} at {at} from {from}");
                }
            }
        }
    }
}
