//! The JSON tokenizer: whitespace, punctuation, strings (every escape,
//! surrogate pairs; the text arrives already checked as UTF-8), numbers
//! (integer and float grammar of RFC 8259 §6) and skipping whole unknown
//! values with an explicit depth limit.
//!
//! Every error carries the byte offset where it was detected. Nothing here
//! recurses: [`Lexer::skip_value`] walks nested arrays and objects with a
//! 128-bit stack of "object or array" flags, so 100,000 nested `[` cost one
//! `DepthLimit` error, not a stack overflow.

use super::tables::{HEX_VALUE, find_special};
use crate::codec::{DecodeError, ErrorKind};

/// Deepest nesting accepted, counting the catalog object as level 1
/// (serde_json's default `remaining_depth` is 128 too).
pub const MAX_DEPTH: usize = 128;

type Result<T> = std::result::Result<T, DecodeError>;

/// A string just read: borrowed from the input when it held no escape,
/// otherwise decoded into [`Lexer::scratch`].
pub enum Str<'a> {
    Raw(&'a str),
    Escaped,
}

/// Bounds of one integer field: names for messages and the allowed range.
pub struct IntField {
    /// `expected` text of an `Unexpected` error, e.g. "integer for `stock`".
    pub expected: &'static str,
    /// `what` of an `OutOfRange` error, e.g. "`stock` (i32)".
    pub what: &'static str,
    pub min: i64,
    pub max: i64,
}

/// Position in the input plus a reusable buffer for escaped strings.
///
/// The input arrives as `&str`: RFC 8259 §8.1 makes the whole JSON text
/// UTF-8, so the caller checks it once, up front (one pass, error at the
/// first bad byte), and every string value is then an O(1) slice of `text`
/// between two ASCII delimiters — no per-string validation.
pub struct Lexer<'a> {
    pub text: &'a str,
    pub bytes: &'a [u8],
    pub pos: usize,
    pub scratch: String,
}

/// How a byte is shown in an error: `'x'` for printable ASCII, else hex.
#[cold]
pub fn describe(b: u8) -> String {
    if b.is_ascii_graphic() || b == b' ' {
        format!("'{}'", b as char)
    } else {
        format!("byte 0x{b:02x}")
    }
}

impl<'a> Lexer<'a> {
    pub fn new(text: &'a str) -> Lexer<'a> {
        Lexer {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            scratch: String::new(),
        }
    }

    /// RFC 8259 §2 whitespace: space, tab, line feed, carriage return.
    #[inline]
    pub fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    /// The next non-whitespace byte, not consumed.
    #[inline]
    pub fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.bytes.get(self.pos).copied()
    }

    /// The error for "wanted `expected` here" at the current position.
    #[cold]
    pub fn error_here(&self, expected: &'static str) -> DecodeError {
        match self.bytes.get(self.pos) {
            Some(&b) => DecodeError::unexpected(self.pos, expected, describe(b)),
            None => DecodeError::eof(self.pos, expected),
        }
    }

    /// Consumes `want` after optional whitespace.
    #[inline]
    pub fn expect(&mut self, want: u8, expected: &'static str) -> Result<()> {
        if self.peek() == Some(want) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.error_here(expected))
        }
    }

    /// Before each object member: `true` if a member follows (its key is
    /// next), `false` once the closing `}` is consumed. `first` tracks whether
    /// a `,` is required.
    #[inline]
    pub fn next_member(&mut self, first: &mut bool) -> Result<bool> {
        self.next_in(first, b'}', "',' or '}' after object member")
    }

    /// Before each array element: like [`Lexer::next_member`] with `]`.
    #[inline]
    pub fn next_element(&mut self, first: &mut bool) -> Result<bool> {
        self.next_in(first, b']', "',' or ']' after array element")
    }

    /// The shared step of both: `,` continues, `close` ends; before the first
    /// item only `close` may end and no `,` is allowed.
    #[inline(always)]
    fn next_in(&mut self, first: &mut bool, close: u8, expected: &'static str) -> Result<bool> {
        let b = self.peek();
        if std::mem::take(first) {
            if b == Some(close) {
                self.pos += 1;
                return Ok(false);
            }
            return Ok(true);
        }
        match b {
            Some(b',') => {
                self.pos += 1;
                Ok(true)
            }
            Some(c) if c == close => {
                self.pos += 1;
                Ok(false)
            }
            _ => Err(self.error_here(expected)),
        }
    }

    /// `text[from..to]`. Both ends sit next to ASCII delimiters (or the end),
    /// so they are character boundaries and this cannot fail on input that
    /// reached the lexer; the error keeps it total all the same.
    #[inline]
    fn slice(&self, from: usize, to: usize) -> Result<&'a str> {
        self.text
            .get(from..to)
            .ok_or_else(|| DecodeError::new(from, ErrorKind::InvalidUtf8))
    }

    /// Reads a string (after optional whitespace), `expected` naming it in
    /// errors: borrowed when it has no escapes, else decoded into `scratch`.
    pub fn string(&mut self, expected: &'static str) -> Result<Str<'a>> {
        if self.peek() != Some(b'"') {
            return Err(self.error_here(expected));
        }
        let bytes = self.bytes;
        let mut run = self.pos + 1;
        let mut escaped = false;
        loop {
            let i = find_special(bytes, run);
            let text = self.slice(run, i)?;
            match bytes.get(i) {
                None => return Err(DecodeError::eof(i, "closing '\"' of string")),
                Some(b'"') => {
                    self.pos = i + 1;
                    if !escaped {
                        return Ok(Str::Raw(text));
                    }
                    self.scratch.push_str(text);
                    return Ok(Str::Escaped);
                }
                Some(b'\\') => {
                    if !escaped {
                        escaped = true;
                        self.scratch.clear();
                    }
                    self.scratch.push_str(text);
                    run = self.escape(i)?;
                }
                Some(&b) => {
                    return Err(DecodeError::unexpected(
                        i,
                        "string character (control characters must be escaped)",
                        describe(b),
                    ));
                }
            }
        }
    }

    /// Decodes the escape whose `\` is at `at` into `scratch`; returns the
    /// offset after it. RFC 8259 §7: `\" \\ \/ \b \f \n \r \t \uXXXX`, and a
    /// UTF-16 surrogate pair as two `\u` escapes.
    fn escape(&mut self, at: usize) -> Result<usize> {
        let c = match self.bytes.get(at + 1) {
            None => return Err(DecodeError::eof(at + 1, "escape character")),
            Some(&c) => c,
        };
        let ch = match c {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => return self.unicode_escape(at),
            other => {
                return Err(DecodeError::unexpected(
                    at + 1,
                    "escape character (one of \" \\ / b f n r t u)",
                    describe(other),
                ));
            }
        };
        self.scratch.push(ch);
        Ok(at + 2)
    }

    fn unicode_escape(&mut self, at: usize) -> Result<usize> {
        let unit = self.hex4(at + 2)?;
        let ch = match unit {
            0xD800..=0xDBFF => {
                // A high surrogate must be followed by `\u` + a low surrogate.
                let next = at + 6;
                if self.bytes.get(next..next + 2) != Some(b"\\u") {
                    return Err(DecodeError::new(at, ErrorKind::LoneSurrogate { unit }));
                }
                let low = self.hex4(next + 2)?;
                if !(0xDC00..=0xDFFF).contains(&low) {
                    return Err(DecodeError::new(at, ErrorKind::LoneSurrogate { unit }));
                }
                let c = 0x1_0000 + ((u32::from(unit) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
                self.scratch.push(char::from_u32(c).unwrap_or('\u{FFFD}')); // always valid
                return Ok(next + 6);
            }
            0xDC00..=0xDFFF => return Err(DecodeError::new(at, ErrorKind::LoneSurrogate { unit })),
            _ => char::from_u32(u32::from(unit)).unwrap_or('\u{FFFD}'), // not a surrogate: valid
        };
        self.scratch.push(ch);
        Ok(at + 6)
    }

    /// Four hex digits starting at `at`.
    fn hex4(&self, at: usize) -> Result<u16> {
        let mut v: u16 = 0;
        for k in at..at + 4 {
            let Some(&b) = self.bytes.get(k) else {
                return Err(DecodeError::eof(k, "4 hex digits after \\u"));
            };
            let d = HEX_VALUE[b as usize];
            if d > 15 {
                return Err(DecodeError::unexpected(k, "4 hex digits after \\u", describe(b)));
            }
            v = (v << 4) | u16::from(d);
        }
        Ok(v)
    }

    /// Scans a number per RFC 8259 §6 from the current (non-whitespace)
    /// position; returns (start, end, is_integer_syntax).
    fn number_token(&mut self, expected: &'static str) -> Result<(usize, usize, bool)> {
        let bytes = self.bytes;
        let start = self.pos;
        let mut i = start;
        if bytes.get(i) == Some(&b'-') {
            i += 1;
        }
        match bytes.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => {
                while let Some(b'0'..=b'9') = bytes.get(i) {
                    i += 1;
                }
            }
            _ => {
                self.pos = i;
                return Err(self.error_here(if i == start { expected } else { "digit after '-'" }));
            }
        }
        let mut integer = true;
        if bytes.get(i) == Some(&b'.') {
            integer = false;
            i += 1;
            i = self.digits(i, "digit after '.'")?;
        }
        if let Some(b'e' | b'E') = bytes.get(i) {
            integer = false;
            i += 1;
            if let Some(b'+' | b'-') = bytes.get(i) {
                i += 1;
            }
            i = self.digits(i, "digit in exponent")?;
        }
        Ok((start, i, integer))
    }

    /// One or more digits from `i`; returns the offset after them.
    fn digits(&mut self, mut i: usize, expected: &'static str) -> Result<usize> {
        let first = i;
        while let Some(b'0'..=b'9') = self.bytes.get(i) {
            i += 1;
        }
        if i == first {
            self.pos = i;
            return Err(self.error_here(expected));
        }
        Ok(i)
    }

    /// An integer within `f`'s range. `1.0` or `1e3` is refused even though
    /// it names an integer: the field is an integer, so the text must be one.
    #[inline]
    pub fn integer(&mut self, f: &IntField) -> Result<i64> {
        self.skip_ws();
        let bytes = self.bytes;
        let start = self.pos;
        // Fast path: 1 to 18 plain digits (no leading zero, no fraction or
        // exponent) cannot overflow, so accumulate first and check after.
        let neg = bytes.get(start) == Some(&b'-');
        let first = start + usize::from(neg);
        let mut i = first;
        let mut v: u64 = 0;
        while let Some(&b) = bytes.get(i) {
            let d = b.wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            v = v.wrapping_mul(10).wrapping_add(u64::from(d));
            i += 1;
        }
        let n = i - first;
        let simple = (1..=18).contains(&n)
            && (n == 1 || bytes[first] != b'0')
            && !matches!(bytes.get(i), Some(b'.' | b'e' | b'E'));
        if simple {
            let v = if neg { -(v as i64) } else { v as i64 };
            if v < f.min || v > f.max {
                return Err(out_of_range(start, f.what, &bytes[start..i]));
            }
            self.pos = i;
            return Ok(v);
        }
        self.integer_slow(f)
    }

    #[cold]
    fn integer_slow(&mut self, f: &IntField) -> Result<i64> {
        let (start, end, integer) = self.number_token(f.expected)?;
        let text = &self.bytes[start..end];
        // `number_token` accepted `0` then stopped: `01` leaves a digit behind.
        if let Some(b'0'..=b'9') = self.bytes.get(end) {
            return Err(DecodeError::unexpected(
                end,
                "end of number (JSON forbids leading zeros)",
                describe(self.bytes[end]),
            ));
        }
        if !integer {
            return Err(DecodeError::unexpected(
                start,
                f.expected,
                format!(
                    "{} (a fraction or exponent is not an integer)",
                    String::from_utf8_lossy(text)
                ),
            ));
        }
        // Grammar-checked ASCII digits: parse as i128 so 20+ digits still
        // report as out of range rather than failing to parse.
        let value = std::str::from_utf8(text)
            .ok()
            .and_then(|s| s.parse::<i128>().ok())
            .filter(|v| (i128::from(f.min)..=i128::from(f.max)).contains(v));
        match value {
            Some(v) => {
                self.pos = end;
                Ok(v as i64)
            }
            None => Err(out_of_range(start, f.what, text)),
        }
    }

    /// A finite f64 (RFC 8259 number grammar; std's correctly rounded parse).
    pub fn float(&mut self, expected: &'static str, what: &'static str) -> Result<f64> {
        self.skip_ws();
        let (start, end, _) = self.number_token(expected)?;
        let text = self.slice(start, end)?;
        match text.parse::<f64>() {
            Ok(v) if v.is_finite() => {
                self.pos = end;
                Ok(v)
            }
            _ => Err(out_of_range(start, what, text.as_bytes())),
        }
    }

    /// `true` or `false`.
    #[inline]
    pub fn boolean(&mut self, expected: &'static str) -> Result<bool> {
        self.skip_ws();
        let rest = &self.bytes[self.pos..];
        if rest.starts_with(b"true") {
            self.pos += 4;
            Ok(true)
        } else if rest.starts_with(b"false") {
            self.pos += 5;
            Ok(false)
        } else {
            Err(self.error_here(expected))
        }
    }

    /// Consumes `null` if it is next.
    #[inline]
    pub fn null(&mut self) -> bool {
        self.skip_ws();
        if self.bytes[self.pos..].starts_with(b"null") {
            self.pos += 4;
            true
        } else {
            false
        }
    }

    /// Skips one whole JSON value of any shape whose container is at nesting
    /// level `depth`, validating it as fully as if it were read. Iterative: a
    /// 128-bit stack records whether each open container is an object.
    pub fn skip_value(&mut self, depth: usize) -> Result<()> {
        let mut objects: u128 = 0; // bit k: level depth+1+k is an object
        let mut open = 0usize;
        'value: loop {
            match self.peek() {
                Some(c @ (b'{' | b'[')) => {
                    if depth + open + 1 > MAX_DEPTH {
                        return Err(DecodeError::new(self.pos, ErrorKind::DepthLimit { limit: MAX_DEPTH }));
                    }
                    self.pos += 1;
                    let is_object = c == b'{';
                    let close = if is_object { b'}' } else { b']' };
                    if self.peek() == Some(close) {
                        self.pos += 1;
                    } else {
                        objects = (objects & !(1 << open)) | (u128::from(is_object) << open);
                        open += 1;
                        if is_object {
                            self.member_key()?;
                        }
                        continue 'value;
                    }
                }
                Some(b'"') => {
                    self.string("string")?;
                }
                Some(b'-' | b'0'..=b'9') => {
                    let (_, end, _) = self.number_token("number")?;
                    self.pos = end;
                }
                Some(b't') if self.bytes[self.pos..].starts_with(b"true") => self.pos += 4,
                Some(b'f') if self.bytes[self.pos..].starts_with(b"false") => self.pos += 5,
                Some(b'n') if self.bytes[self.pos..].starts_with(b"null") => self.pos += 4,
                _ => return Err(self.error_here("JSON value")),
            }
            // After a complete value: close containers or move to the next item.
            loop {
                if open == 0 {
                    return Ok(());
                }
                let is_object = objects & (1 << (open - 1)) != 0;
                match self.peek() {
                    Some(b',') => {
                        self.pos += 1;
                        if is_object {
                            self.member_key()?;
                        }
                        continue 'value;
                    }
                    Some(b'}') if is_object => {
                        self.pos += 1;
                        open -= 1;
                    }
                    Some(b']') if !is_object => {
                        self.pos += 1;
                        open -= 1;
                    }
                    _ => {
                        return Err(self.error_here(if is_object {
                            "',' or '}' after object member"
                        } else {
                            "',' or ']' after array element"
                        }));
                    }
                }
            }
        }
    }

    /// `"key" :` inside a skipped object.
    fn member_key(&mut self) -> Result<()> {
        self.string("string (object key)")?;
        self.expect(b':', "':' after object key")
    }
}

#[cold]
fn out_of_range(at: usize, what: &'static str, text: &[u8]) -> DecodeError {
    DecodeError::new(
        at,
        ErrorKind::OutOfRange {
            what,
            value: String::from_utf8_lossy(text).into_owned(),
        },
    )
}
