//! JSON string escapes (RFC 8259 §7), decoded in one place: the lexer
//! decodes each escape with [`escape_at`] while it checks a string, and a
//! view's [`Text`](super::view::Text) holding escapes is read through
//! [`Unescape`], which calls the same function.
//!
//! # Wire format
//!
//! `\" \\ \/ \b \f \n \r \t` stand for one character each; `\uXXXX` (four
//! hex digits, either case) for one UTF-16 unit, a surrogate pair as two
//! `\u` escapes in a row (high `D800..=DBFF`, then low `DC00..=DFFF`). A lone
//! surrogate is an error at its `\`.

use super::error::describe;
use super::{DecodeError, ErrorKind};

/// Decodes the escape whose `\` is at `at`: the character and the offset
/// after the escape, or the error (what was expected, what was found, where).
#[inline]
pub(crate) fn escape_at(bytes: &[u8], at: usize) -> Result<(char, usize), DecodeError> {
    let ch = match bytes.get(at + 1) {
        None => return Err(DecodeError::eof(at + 1, "escape character")),
        Some(b'"') => '"',
        Some(b'\\') => '\\',
        Some(b'/') => '/',
        Some(b'b') => '\u{8}',
        Some(b'f') => '\u{c}',
        Some(b'n') => '\n',
        Some(b'r') => '\r',
        Some(b't') => '\t',
        Some(b'u') => return unicode_escape(bytes, at),
        Some(&other) => {
            return Err(DecodeError::unexpected(
                at + 1,
                "escape character (one of \" \\ / b f n r t u)",
                describe(other),
            ));
        }
    };
    Ok((ch, at + 2))
}

fn unicode_escape(bytes: &[u8], at: usize) -> Result<(char, usize), DecodeError> {
    let unit = hex4(bytes, at + 2)?;
    match unit {
        0xD800..=0xDBFF => {
            // A high surrogate must be followed by `\u` + a low surrogate.
            let next = at + 6;
            if bytes.get(next..next + 2) != Some(b"\\u") {
                return Err(DecodeError::new(at, ErrorKind::LoneSurrogate { unit }));
            }
            let low = hex4(bytes, next + 2)?;
            if !(0xDC00..=0xDFFF).contains(&low) {
                return Err(DecodeError::new(at, ErrorKind::LoneSurrogate { unit }));
            }
            let c = 0x1_0000 + ((u32::from(unit) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
            Ok((char::from_u32(c).unwrap_or('\u{FFFD}'), next + 6)) // always valid
        }
        0xDC00..=0xDFFF => Err(DecodeError::new(at, ErrorKind::LoneSurrogate { unit })),
        _ => Ok((char::from_u32(u32::from(unit)).unwrap_or('\u{FFFD}'), at + 6)), // not a surrogate: valid
    }
}

/// Four hex digits starting at `at`.
fn hex4(bytes: &[u8], at: usize) -> Result<u16, DecodeError> {
    let mut v: u16 = 0;
    for k in at..at + 4 {
        let Some(&b) = bytes.get(k) else {
            return Err(DecodeError::eof(k, "4 hex digits after \\u"));
        };
        let Some(d) = char::from(b).to_digit(16) else {
            return Err(DecodeError::unexpected(k, "4 hex digits after \\u", describe(b)));
        };
        v = (v << 4) | d as u16;
    }
    Ok(v)
}

/// The text of a JSON string as written (between the quotes, checked by the
/// lexer), unescaped into a new `String`: the runs between escapes copied
/// whole, each escape decoded by [`escape_at`] (U+FFFD should one still be
/// malformed, as [`Unescape`] reads it).
#[inline(never)]
pub(crate) fn unescape(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(i) = rest.find('\\') {
        out.push_str(&rest[..i]);
        let mut chars = Unescape::new(&rest[i..]);
        out.extend(chars.next());
        rest = &rest[i + chars.pos..];
    }
    out.push_str(rest);
    out
}

/// The characters of a JSON string's text as written (between the quotes),
/// each escape decoded by [`escape_at`]. The text was checked by the lexer
/// when the view was made; should an escape still be malformed, it reads as
/// U+FFFD (and the two bytes `\x`) rather than failing.
#[derive(Clone)]
pub struct Unescape<'a> {
    raw: &'a str,
    pos: usize,
}

impl<'a> Unescape<'a> {
    pub fn new(raw: &'a str) -> Unescape<'a> {
        Unescape { raw, pos: 0 }
    }
}

impl Iterator for Unescape<'_> {
    type Item = char;

    fn next(&mut self) -> Option<char> {
        let c = self.raw.get(self.pos..)?.chars().next()?;
        if c != '\\' {
            self.pos += c.len_utf8();
            return Some(c);
        }
        let (c, next) = escape_at(self.raw.as_bytes(), self.pos).unwrap_or(('\u{FFFD}', self.pos + 2));
        // `next` is past ASCII bytes only, so it is a char boundary — except
        // after a malformed `\` followed by a multi-byte char; skip to the next.
        self.pos = (next..=self.raw.len())
            .find(|&i| self.raw.is_char_boundary(i))
            .unwrap_or(self.raw.len());
        Some(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_their_errors() {
        let ok = |s: &str| escape_at(s.as_bytes(), 0).map_err(|e| e.to_string());
        assert_eq!(ok(r"\n"), Ok(('\n', 2)));
        assert_eq!(ok(r"\u00e9"), Ok(('é', 6)));
        assert_eq!(ok(r"\ud83d\ude00"), Ok(('😀', 12)));
        assert!(ok(r"\x").unwrap_err().contains("at byte 1"), "{:?}", ok(r"\x"));
        assert!(ok(r"\ud83d").is_err());
        assert!(ok(r"\ude00").is_err());
        assert!(ok(r"\u12g4").unwrap_err().contains("at byte 4"), "{:?}", ok(r"\u12g4"));
    }

    #[test]
    fn unescape_reads_what_escape_at_decodes() {
        for (raw, want) in [
            (r"a\u0062c", "abc"),
            (r"\ud83d\ude00!", "😀!"),
            (r#"tab\tq\""#, "tab\tq\""),
            (r"bad\xé", "bad\u{FFFD}é"),
            ("plain", "plain"),
            (r"\\", "\\"),
            (r"\u00E9\u00e9", "éé"),
        ] {
            assert_eq!(unescape(raw), want, "{raw}");
            assert_eq!(Unescape::new(raw).collect::<String>(), want, "{raw}");
        }
    }
}
