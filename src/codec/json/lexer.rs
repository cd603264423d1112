//! The JSON tokenizer: whitespace, punctuation, strings (every escape,
//! surrogate pairs; the text arrives already checked as UTF-8), numbers
//! (integer and float grammar of RFC 8259 §6) and skipping whole unknown
//! values with an explicit depth limit.
//!
//! Our own output is the common input, so the hot paths ([`Lexer::member`],
//! [`Lexer::integer`], [`Lexer::float`]) first try what our writer emits and
//! fall back to the general grammar for anything else. Each fast path
//! accepts only text the general path reads to the same value, so results
//! and errors are the general path's by construction.
//!
//! Every error carries the byte offset where it was detected. Nothing here
//! recurses: [`Lexer::skip_value`] walks nested arrays and objects with a
//! 128-bit stack of "object or array" flags, so 100,000 nested `[` cost one
//! `DepthLimit` error, not a stack overflow.

use super::tables::find_special;
pub use crate::codec::error::describe;
use crate::codec::escape::escape_at;
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

/// A short byte string (at most [`Token::MAX`] bytes) matched in place by
/// [`Lexer::eat`]: an object key as our writer spells it, `"name":`, or a
/// literal such as `"active"`.
///
/// It is stored as three little-endian 8-byte words plus a mask of the
/// bytes that count, so a match is three XOR/AND pairs on the next 24 input
/// bytes and one test — no byte loop, no call to `memcmp`, whatever the
/// length.
#[derive(Clone, Copy, Debug)]
pub struct Token {
    /// The bytes, little-endian, zero past `len`.
    words: [u64; 3],
    /// 0xFF at each byte position below `len`, 0 above.
    masks: [u64; 3],
    len: usize,
}

impl Token {
    /// Longest token: three words.
    pub const MAX: usize = 24;

    /// The concatenation of `parts` (compile-time; too long fails the build).
    pub const fn new(parts: &[&[u8]]) -> Token {
        let mut t = Token {
            words: [0; 3],
            masks: [0; 3],
            len: 0,
        };
        let mut p = 0;
        while p < parts.len() {
            let mut i = 0;
            while i < parts[p].len() {
                assert!(t.len < Token::MAX, "token longer than 24 bytes");
                let shift = 8 * (t.len % 8);
                t.words[t.len / 8] |= (parts[p][i] as u64) << shift;
                t.masks[t.len / 8] |= 0xFF << shift;
                t.len += 1;
                i += 1;
            }
            p += 1;
        }
        t
    }

    /// `"name":`, an object key followed by its colon.
    pub const fn key(name: &str) -> Token {
        Token::new(&[b"\"", name.as_bytes(), b"\":"])
    }

    /// Whether `window` (the next 24 input bytes, zero-padded) starts with
    /// this token; `available` is how many of them are real input.
    #[inline(always)]
    fn matches(&self, window: &[u8; Token::MAX], available: usize) -> bool {
        let word = |k: usize| u64::from_le_bytes(std::array::from_fn(|j| window[8 * k + j]));
        let diff = ((word(0) ^ self.words[0]) & self.masks[0])
            | ((word(1) ^ self.words[1]) & self.masks[1])
            | ((word(2) ^ self.words[2]) & self.masks[2]);
        diff == 0 && available >= self.len
    }
}

/// The keys of one kind of record in field order: each name, and each as
/// the [`Token`] `"name":`. Field `i` of the record is entry `i`.
pub struct Keys {
    pub names: &'static [&'static str],
    pub tokens: &'static [Token],
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

/// The [`IntField`] of field `$name` of Rust type `$ty`: "integer for
/// `stock`", "`stock` (i32)" and the type's range.
macro_rules! int_field {
    ($name:literal, $ty:ty) => {
        $crate::codec::json::lexer::IntField {
            expected: concat!("integer for `", $name, "`"),
            what: concat!("`", $name, "` (", stringify!($ty), ")"),
            min: <$ty>::MIN as i64,
            max: <$ty>::MAX as i64,
        }
    };
}
pub(crate) use int_field;

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

    /// After the root value: nothing but whitespace may follow.
    pub fn finish(&mut self) -> Result<()> {
        self.skip_ws();
        match self.bytes.len() - self.pos {
            0 => Ok(()),
            count => Err(DecodeError::new(self.pos, ErrorKind::TrailingBytes { count })),
        }
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

    /// Consumes `t` if the input continues with exactly its bytes.
    #[inline(always)]
    pub fn eat(&mut self, t: &Token) -> bool {
        self.eat_at(self.pos, t)
    }

    /// [`Lexer::eat`] at offset `at`: on a match the position moves past it.
    #[inline(always)]
    fn eat_at(&mut self, at: usize, t: &Token) -> bool {
        let rest = self.bytes.get(at..).unwrap_or_default();
        let hit = match rest.first_chunk::<{ Token::MAX }>() {
            Some(window) => t.matches(window, Token::MAX),
            None => {
                // The last few bytes of the input: compare a padded copy.
                let mut window = [0; Token::MAX];
                window[..rest.len()].copy_from_slice(rest);
                t.matches(&window, rest.len())
            }
        };
        if hit {
            self.pos = at + t.len;
        }
        hit
    }

    /// Steps to the next member of an object and reads its key and `:`.
    /// `None` once the closing `}` is consumed; otherwise the key's index in
    /// `keys` (`None`: a key not in it) and the offset of its opening quote.
    /// `first` is as for [`Lexer::next_member`].
    ///
    /// Fast path: `hint` names the key expected next (the field after the
    /// last one read). Spelled as our writer spells it — `,` unless it is
    /// the first member, then `"name":`, no whitespace — it is matched in
    /// place by one [`Token`] compare, skipping the separator step, the
    /// string scan and the key lookup. A `}` right here closes the object
    /// (after the last key, or at once in `{}`). Any other bytes
    /// (whitespace, another key, escapes in the key) take
    /// [`Lexer::member_general`], which reads the same bytes to the same
    /// answer.
    #[inline(always)]
    pub fn member(&mut self, first: &mut bool, keys: &Keys, hint: usize) -> Result<Option<(Option<usize>, usize)>> {
        if let Some(t) = keys.tokens.get(hint) {
            let at = self.pos + usize::from(!*first);
            if (*first || self.bytes.get(self.pos) == Some(&b',')) && self.eat_at(at, t) {
                *first = false;
                return Ok(Some((Some(hint), at)));
            }
        }
        if self.bytes.get(self.pos) == Some(&b'}') {
            self.pos += 1;
            *first = false;
            return Ok(None);
        }
        self.member_general(first, keys)
    }

    /// [`Lexer::member`] by the grammar: separator, any whitespace, the key
    /// as a string (escapes decoded), `:`.
    #[inline(never)]
    fn member_general(&mut self, first: &mut bool, keys: &Keys) -> Result<Option<(Option<usize>, usize)>> {
        if !self.next_member(first)? {
            return Ok(None);
        }
        self.skip_ws();
        let at = self.pos;
        let key = match self.string("string (object key)")? {
            Str::Raw(s) => s,
            Str::Escaped => &self.scratch,
        };
        let found = keys.names.iter().position(|n| *n == key);
        self.expect(b':', "':' after object key")?;
        Ok(Some((found, at)))
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
    ///
    /// Fast path, inlined into each caller: the `"` is right here and the
    /// first byte [`find_special`] stops at is the closing `"` — a string
    /// without escapes, the common case — so it is a slice of the text.
    /// Anything else continues in [`Lexer::string_general`] from where the
    /// scan stopped.
    #[inline(always)]
    pub fn string(&mut self, expected: &'static str) -> Result<Str<'a>> {
        if self.bytes.get(self.pos) != Some(&b'"') {
            return self.string_general(expected); // whitespace first, or an error
        }
        let start = self.pos + 1;
        let end = find_special(self.bytes, start);
        if self.bytes.get(end) == Some(&b'"')
            && let Some(text) = self.text.get(start..end)
        {
            self.pos = end + 1;
            return Ok(Str::Raw(text));
        }
        self.string_from(start, end)
    }

    /// [`Lexer::string`] after whitespace, by the grammar.
    #[inline(never)]
    fn string_general(&mut self, expected: &'static str) -> Result<Str<'a>> {
        if self.peek() != Some(b'"') {
            return Err(self.error_here(expected));
        }
        let start = self.pos + 1;
        self.string_from(start, find_special(self.bytes, start))
    }

    /// The rest of a string whose text starts at `run`, the first special
    /// byte (quote, backslash or control byte) at or after it being at `i`:
    /// escapes decode into `scratch`, a control byte or the end of the input
    /// is an error.
    #[inline(never)]
    fn string_from(&mut self, mut run: usize, mut i: usize) -> Result<Str<'a>> {
        let bytes = self.bytes;
        let mut escaped = false;
        loop {
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
                    let (ch, next) = escape_at(bytes, i)?;
                    self.scratch.push(ch);
                    run = next;
                    i = find_special(bytes, run);
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

    /// Scans a number per RFC 8259 §6 from the current (non-whitespace)
    /// position; returns (start, end, is_integer_syntax).
    pub fn number_token(&mut self, expected: &'static str) -> Result<(usize, usize, bool)> {
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
    ///
    /// Fast path ([`plain_digits`]): 1 to 15 digits without a leading zero,
    /// read eight at a time, cannot overflow, so the range is checked after.
    /// Everything else (16+ digits, a fraction or exponent, a leading zero,
    /// fewer than eight bytes left in the input, bad syntax) is read by
    /// [`Lexer::integer_slow`], which gives every error.
    #[inline(always)]
    pub fn integer(&mut self, f: &IntField) -> Result<i64> {
        self.skip_ws();
        let bytes = self.bytes;
        let start = self.pos;
        let neg = bytes.get(start) == Some(&b'-');
        if let Some((v, end)) = plain_digits(bytes, start + usize::from(neg)) {
            let v = if neg { -(v as i64) } else { v as i64 };
            if v < f.min || v > f.max {
                return Err(out_of_range(start, f.what, &bytes[start..end]));
            }
            self.pos = end;
            return Ok(v);
        }
        self.integer_slow(f)
    }

    #[cold]
    #[inline(never)]
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

    /// A finite f64 (RFC 8259 number grammar; correctly rounded).
    ///
    /// Fast path ([`plain_decimal`]): digits, optionally `.` and digits, no
    /// exponent and at most 14 digits in all, such as `4.5`: that is an
    /// integer `m < 2^53` over `10^k` with `k <= 7`, both exact in f64, so
    /// one IEEE division rounds correctly (Clinger's fast path) — the value
    /// std's parse returns. Anything else is scanned by the grammar and
    /// parsed by std.
    #[inline]
    pub fn float(&mut self, expected: &'static str, what: &'static str) -> Result<f64> {
        self.skip_ws();
        let start = self.pos;
        let neg = self.bytes.get(start) == Some(&b'-');
        if let Some((v, end)) = plain_decimal(self.bytes, start + usize::from(neg)) {
            self.pos = end;
            return Ok(if neg { -v } else { v });
        }
        self.float_general(expected, what)
    }

    /// [`Lexer::float`]'s word-at-a-time fast path alone: `None`, nothing
    /// consumed, where it does not apply (the schema-driven reader then
    /// tries its own scan before [`Lexer::float`]).
    #[inline]
    pub fn plain_float(&mut self) -> Option<f64> {
        self.skip_ws();
        let start = self.pos;
        let neg = self.bytes.get(start) == Some(&b'-');
        let (v, end) = plain_decimal(self.bytes, start + usize::from(neg))?;
        self.pos = end;
        Some(if neg { -v } else { v })
    }

    /// [`Lexer::float`] by the grammar and std's parse.
    #[inline(never)]
    fn float_general(&mut self, expected: &'static str, what: &'static str) -> Result<f64> {
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
                    if self.next_in(&mut true, if is_object { b'}' } else { b']' }, "")? {
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
            while open > 0 {
                let is_object = objects & (1 << (open - 1)) != 0;
                let more = if is_object {
                    self.next_member(&mut false)?
                } else {
                    self.next_element(&mut false)?
                };
                if more {
                    if is_object {
                        self.member_key()?;
                    }
                    continue 'value;
                }
                open -= 1;
            }
            return Ok(());
        }
    }

    /// `"key" :` inside a skipped object.
    fn member_key(&mut self) -> Result<()> {
        self.string("string (object key)")?;
        self.expect(b':', "':' after object key")
    }
}

/// The eight bytes at `i` as a little-endian word (first byte lowest), if
/// the input has eight there.
#[inline(always)]
fn word_at(bytes: &[u8], i: usize) -> Option<u64> {
    let w = bytes.get(i..)?.first_chunk::<8>()?;
    Some(u64::from_le_bytes(*w))
}

/// The run of ASCII digits that starts word `w`: how many (0..=8), and `w`
/// with each digit byte turned into its value 0..=9.
///
/// XOR with `'0'` maps the digits to 0..=9; a byte is then a non-digit
/// exactly when it is >= 10 (adding 0x76 sets its top bit) or >= 0x80 (its
/// top bit is set already). A carry out of a byte only comes from a byte
/// that is itself flagged, so the lowest flag is exact.
#[inline(always)]
fn digit_run(w: u64) -> (usize, u64) {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let t = w ^ (ONES * u64::from(b'0'));
    let non_digit = (t.wrapping_add(ONES * 0x76) | t) & (ONES * 0x80);
    ((non_digit.trailing_zeros() / 8) as usize, t)
}

/// The number the first `n` (1..=8) digit values of `t` spell, the first
/// one most significant: shifted up so that `8 - n` zero digits lead, then
/// pairs, quads and octets are combined by three multiplications (each
/// multiplier adds a lane times 10, 100 or 10,000 to its neighbour).
#[inline(always)]
fn digits_value(t: u64, n: usize) -> u64 {
    let t = t.checked_shl(8 * (8 - n as u32)).unwrap_or(0);
    let t = (t & 0x0F0F_0F0F_0F0F_0F0F).wrapping_mul(10 << 8 | 1) >> 8;
    let t = (t & 0x00FF_00FF_00FF_00FF).wrapping_mul(100 << 16 | 1) >> 16;
    (t & 0x0000_FFFF_0000_FFFF).wrapping_mul(10_000 << 32 | 1) >> 32
}

const POW10_U64: [u64; 9] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000];

/// The integer fast path: the digits at `i` (after any `-`) when they are
/// 1 to 15 digits, with no leading zero (`0` alone is fine) and neither
/// `.`, `e` nor `E` after them, read a word at a time; their value and end.
/// `None` sends the caller to the general path, as does an input with
/// fewer than eight bytes left at either word.
#[inline(always)]
fn plain_digits(bytes: &[u8], i: usize) -> Option<(u64, usize)> {
    let (n, t) = digit_run(word_at(bytes, i)?);
    if n == 0 || (n > 1 && t & 0xFF == 0) {
        return None; // no digit, or a leading zero
    }
    let mut v = digits_value(t, n);
    let mut end = i + n;
    if n == 8 {
        let (m, t) = digit_run(word_at(bytes, end)?);
        if m == 8 {
            return None; // 16 digits or more
        }
        if m > 0 {
            v = v * POW10_U64.get(m)? + digits_value(t, m);
            end += m;
        }
    }
    if let Some(b'.' | b'e' | b'E') = bytes.get(end) {
        return None;
    }
    Some((v, end))
}

const POW10_F64: [f64; 8] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7];

/// The float fast path: at `i` (after any `-`), 1 to 7 integer digits
/// without a leading zero, optionally `.` and 1 to 7 digits, and no
/// exponent after them, read a word at a time; the value (`m / 10^k`, see
/// [`Lexer::float`]) and the end. `None` sends the caller to the general
/// path, as does an input with fewer than eight bytes left at either word.
#[inline(always)]
fn plain_decimal(bytes: &[u8], i: usize) -> Option<(f64, usize)> {
    let (n, t) = digit_run(word_at(bytes, i)?);
    if n == 0 || n == 8 || (n > 1 && t & 0xFF == 0) {
        return None; // no digit, too many, or a leading zero
    }
    let mut m = digits_value(t, n);
    let mut end = i + n;
    let mut k = 0;
    if bytes.get(end) == Some(&b'.') {
        let (f, t) = digit_run(word_at(bytes, end + 1)?);
        if f == 0 || f == 8 {
            return None;
        }
        m = m * POW10_U64.get(f)? + digits_value(t, f);
        end += 1 + f;
        k = f;
    }
    if let Some(b'e' | b'E') = bytes.get(end) {
        return None;
    }
    Some((m as f64 / *POW10_F64.get(k)?, end))
}

#[cold]
pub(crate) fn out_of_range(at: usize, what: &'static str, text: &[u8]) -> DecodeError {
    DecodeError::new(
        at,
        ErrorKind::OutOfRange {
            what,
            value: String::from_utf8_lossy(text).into_owned(),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prng::Rng;

    const STOCK: IntField = int_field!("stock", i32);
    const ID: IntField = int_field!("id", i64);

    /// Each fast path is tried at the end of the input (fewer than eight or
    /// 24 bytes left) and with room after it.
    fn placements(text: &str) -> [String; 3] {
        [
            text.to_string(),
            format!("{text},"),
            format!("{text},\"next\":[1,2,3],\"rest\":0}}"),
        ]
    }

    /// Every placement of every text read by the fast path (`true`) and the
    /// general one: the same result (std's parse, for floats), the same end.
    fn agree<T: PartialEq + std::fmt::Debug>(texts: &[String], read: impl Fn(&mut Lexer<'_>, bool) -> Result<T>) {
        for input in texts.iter().flat_map(|t| placements(t)) {
            let (mut fast, mut general) = (Lexer::new(&input), Lexer::new(&input));
            assert_eq!(read(&mut fast, true), read(&mut general, false), "{input:?}");
            assert_eq!(fast.pos, general.pos, "{input:?}");
        }
    }

    #[test]
    fn digit_runs_are_exact_for_every_byte() {
        for len in 0..8 {
            for b in 0..=255u8 {
                let mut w = *b"12345678";
                w[len] = b;
                let (n, t) = digit_run(u64::from_le_bytes(w));
                let want = w.iter().take_while(|c| c.is_ascii_digit()).count();
                assert_eq!(n, want, "{w:?}");
                if n > 0 {
                    let text = std::str::from_utf8(&w[..n]).unwrap();
                    assert_eq!(digits_value(t, n), text.parse::<u64>().unwrap(), "{text}");
                }
            }
        }
    }

    #[test]
    fn integer_fast_path_agrees_with_the_general_path() {
        #[rustfmt::skip]
        let mut texts: Vec<String> = [
            "0", "-0", "7", "-7", "01", "-01", "00", "-", "", "x", "1.0", "1e3", "1E3", "-1.5", "12345678",
            "123456789", "1234567812345678", "123456781234567", "9223372036854775807", "9223372036854775808",
            "-9223372036854775808", "2147483647", "2147483648", "-2147483648", "-2147483649", "1234567a",
            "12345678.5", "123456789e1", "1728401303288",
        ]
        .map(String::from)
        .to_vec();
        let mut rng = Rng::new(11);
        for _ in 0..2000 {
            let digits = 1 + rng.below(19) as u32;
            let v = rng.next_u64() % 10u64.pow(digits);
            texts.push(if rng.below(4) == 0 {
                format!("-{v}")
            } else {
                v.to_string()
            });
        }
        for f in [&STOCK, &ID] {
            agree(&texts, |lx, fast| if fast { lx.integer(f) } else { lx.integer_slow(f) });
        }
    }

    #[test]
    fn float_fast_path_agrees_with_the_general_path() {
        #[rustfmt::skip]
        let mut texts: Vec<String> = [
            "0", "-0", "0.0", "-0.0", "4.5", "0.1", "0.3", "2.675", "1234567.1234567", "9999999.9999999",
            "12345678.5", "1.12345678", "1.", "1.e5", "01.5", "-", ".5", "1e5", "4.5e0", "5", "1234567",
            "123456789012345", "1234567890123456", "12345678901234.5", "1234567890123.45", "123456789012345.5",
            "12345678.1234567", "12345678.12345678",
        ]
        .map(String::from)
        .to_vec();
        let mut rng = Rng::new(12);
        for _ in 0..5000 {
            let int = rng.next_u64() % 10u64.pow(1 + rng.below(8) as u32);
            let k = rng.below(9) as usize;
            let frac = rng.next_u64() % 10u64.pow(k as u32);
            let sign = if rng.below(4) == 0 { "-" } else { "" };
            texts.push(if k == 0 {
                format!("{sign}{int}")
            } else {
                format!("{sign}{int}.{frac:0k$}")
            });
        }
        agree(&texts, |lx, fast| {
            let v = if fast {
                lx.float("number", "`rating`")
            } else {
                lx.float_general("number", "`rating`")
            };
            v.map(f64::to_bits)
        });
    }

    #[test]
    fn tokens_match_exactly_their_bytes() {
        let token = Token::key("discount_percent");
        let want = b"\"discount_percent\":";
        assert_eq!(token.len, want.len());
        // Every single-byte change, at every distance from the end.
        for pad in 0..30 {
            for at in 0..want.len() {
                for b in [0u8, b'x', b'"', 0xFF] {
                    let mut input = want.to_vec();
                    input[at] = b;
                    input.extend(std::iter::repeat_n(b' ', pad));
                    let text = String::from_utf8_lossy(&input).into_owned();
                    let mut lx = Lexer::new(&text);
                    let hit = lx.eat(&token);
                    assert_eq!(hit, text.as_bytes().starts_with(want), "{text:?}");
                    assert_eq!(lx.pos, if hit { want.len() } else { 0 });
                }
            }
            // A truncated token never matches, however short the rest is.
            for cut in 0..want.len() {
                let text = String::from_utf8_lossy(&want[..cut]).into_owned();
                assert!(!Lexer::new(&text).eat(&token), "{text:?}");
            }
            let text = format!("{}{}", String::from_utf8_lossy(want), " ".repeat(pad));
            assert!(Lexer::new(&text).eat(&token));
        }
    }

    /// The members of one object read with every hint (so the fast path
    /// fires, or not, anywhere) give the general path's answers.
    #[test]
    fn member_fast_path_agrees_with_the_general_path() {
        const KEYS: Keys = Keys {
            names: &["a", "bb", "ccc"],
            tokens: &[Token::key("a"), Token::key("bb"), Token::key("ccc")],
        };
        #[rustfmt::skip]
        let inputs = [
            r#"{"a":1,"bb":2,"ccc":3}"#, r#"{"bb":2,"a":1}"#, r#"{ "a" :1 , "bb":2}"#, r#"{"\u0061":1,"bb":2}"#,
            r#"{"zz":1,"a":2}"#, r#"{}"#, r#"{ }"#, r#"{"a":1,}"#, r#"{"a":1"bb":2}"#, r#"{"a":1,"bb""#,
            r#"{"a":1,"bb"#, r#"{"a""#, r#"{,"a":1}"#,
        ];
        for input in inputs {
            for hint in 0..=KEYS.names.len() {
                let (mut fast, mut general) = (Lexer::new(input), Lexer::new(input));
                fast.pos = 1;
                general.pos = 1;
                let (mut first_fast, mut first_general) = (true, true);
                loop {
                    let got = fast.member(&mut first_fast, &KEYS, hint);
                    let want = general.member_general(&mut first_general, &KEYS);
                    assert_eq!(got, want, "{input} hint {hint}");
                    assert_eq!(fast.pos, general.pos, "{input} hint {hint}");
                    match got {
                        Ok(Some(_)) => {
                            // Skip the value: one digit in every input here.
                            let _ = fast.integer(&STOCK);
                            let _ = general.integer(&STOCK);
                        }
                        _ => break,
                    }
                }
            }
        }
    }
}
