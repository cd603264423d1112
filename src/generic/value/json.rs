//! A generic JSON value tree, read with the catalog parser's lexer: any
//! RFC 8259 text becomes a [`JsonValue`] (objects keep their member order).
//!
//! Used where the shape is not the catalog's, e.g. Avro schemas (`.avsc`).
//! Bounded: nesting deeper than [`MAX_VALUE_DEPTH`] is an error (the reader
//! recurses once per level), and the tree is built only from bytes actually
//! present, so its size is proportional to the input.

use crate::codec::json::lexer::{Lexer, Str, out_of_range};
use crate::codec::{DecodeError, ErrorKind, utf8};

/// Deepest nesting [`parse`] accepts (the outermost value is level 1).
pub const MAX_VALUE_DEPTH: usize = 64;

/// A JSON number: an integer when the text has no fraction or exponent and
/// fits `i64`, otherwise the nearest `f64`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Number {
    Int(i64),
    Float(f64),
}

impl Number {
    /// The value as `f64` (an `Int` rounds to the nearest double).
    pub fn as_f64(self) -> f64 {
        match self {
            Number::Int(i) => i as f64,
            Number::Float(f) => f,
        }
    }
}

/// One JSON value.
#[derive(Clone, Debug, PartialEq)]
pub enum JsonValue {
    Null,
    Bool(bool),
    Number(Number),
    String(String),
    Array(Vec<JsonValue>),
    /// Members in input order; a repeated key is refused by [`parse`].
    Object(Vec<(String, JsonValue)>),
}

impl JsonValue {
    /// The member `key` of an object (`None` for other values).
    pub fn get(&self, key: &str) -> Option<&JsonValue> {
        match self {
            JsonValue::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            JsonValue::String(s) => Some(s),
            _ => None,
        }
    }

    /// What kind of value this is, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            JsonValue::Null => "null",
            JsonValue::Bool(_) => "a boolean",
            JsonValue::Number(_) => "a number",
            JsonValue::String(_) => "a string",
            JsonValue::Array(_) => "an array",
            JsonValue::Object(_) => "an object",
        }
    }
}

type Result<T> = std::result::Result<T, DecodeError>;

/// Parses one whole JSON text (surrounding whitespace allowed, nothing else).
///
/// ```
/// use wirebench::generic::value::json::{parse, JsonValue, Number};
/// let v = parse(br#"{"a": [1, 2.5, "x", null]}"#).unwrap();
/// assert_eq!(v.get("a"), Some(&JsonValue::Array(vec![
///     JsonValue::Number(Number::Int(1)),
///     JsonValue::Number(Number::Float(2.5)),
///     JsonValue::String("x".into()),
///     JsonValue::Null,
/// ])));
/// ```
pub fn parse(bytes: &[u8]) -> Result<JsonValue> {
    let mut lx = Lexer::new(utf8::text(bytes)?);
    let v = value(&mut lx, 1)?;
    lx.finish()?;
    Ok(v)
}

fn string(lx: &mut Lexer<'_>, expected: &'static str) -> Result<String> {
    Ok(match lx.string(expected)? {
        Str::Raw(s) => s.to_string(),
        Str::Escaped => lx.scratch.clone(),
    })
}

fn value(lx: &mut Lexer<'_>, depth: usize) -> Result<JsonValue> {
    match lx.peek() {
        Some(b'{' | b'[') if depth > MAX_VALUE_DEPTH => Err(DecodeError::new(
            lx.pos,
            ErrorKind::DepthLimit { limit: MAX_VALUE_DEPTH },
        )),
        Some(b'{') => {
            lx.pos += 1;
            let mut members: Vec<(String, JsonValue)> = Vec::new();
            let mut first = true;
            while lx.next_member(&mut first)? {
                let key_at = lx.pos;
                let key = string(lx, "object key")?;
                lx.expect(b':', "':' after object key")?;
                let v = value(lx, depth + 1)?;
                if members.iter().any(|(k, _)| *k == key) {
                    return Err(DecodeError::unexpected(
                        key_at,
                        "a key not seen before in this object",
                        format!("{key:?} again"),
                    ));
                }
                members.push((key, v));
            }
            Ok(JsonValue::Object(members))
        }
        Some(b'[') => {
            lx.pos += 1;
            let mut items = Vec::new();
            let mut first = true;
            while lx.next_element(&mut first)? {
                items.push(value(lx, depth + 1)?);
            }
            Ok(JsonValue::Array(items))
        }
        Some(b'"') => Ok(JsonValue::String(string(lx, "string")?)),
        Some(b'-' | b'0'..=b'9') => number(lx).map(JsonValue::Number),
        Some(b't' | b'f') => lx.boolean("true or false").map(JsonValue::Bool),
        Some(b'n') if lx.null() => Ok(JsonValue::Null),
        _ => Err(lx.error_here("JSON value")),
    }
}

/// RFC 8259 §6, scanned by [`Lexer::number_token`]: an integer when the
/// text has no fraction or exponent and fits `i64`, else the nearest f64.
fn number(lx: &mut Lexer<'_>) -> Result<Number> {
    let start = lx.pos;
    let first = start + usize::from(lx.bytes.get(start) == Some(&b'-'));
    if !lx.bytes.get(first).is_some_and(u8::is_ascii_digit) {
        lx.pos = first;
        return Err(lx.error_here("digit"));
    }
    let (_, i, integer) = lx.number_token("digit")?;
    let text = &lx.text[start..i];
    lx.pos = i;
    if integer && let Ok(v) = text.parse::<i64>() {
        return Ok(Number::Int(v));
    }
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(Number::Float(v)),
        _ => Err(out_of_range(start, "JSON number (f64)", text.as_bytes())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_kind_and_keeps_member_order() {
        let v = parse(br#" {"z":true,"a":{"b":[]},"n":-0,"f":1e2,"s":"\u00e9\n"} "#).unwrap();
        let JsonValue::Object(m) = &v else { panic!() };
        let keys: Vec<&str> = m.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(keys, ["z", "a", "n", "f", "s"]);
        assert_eq!(v.get("n"), Some(&JsonValue::Number(Number::Int(0))));
        assert_eq!(v.get("f"), Some(&JsonValue::Number(Number::Float(100.0))));
        assert_eq!(v.get("s").and_then(JsonValue::as_str), Some("é\n"));
        assert_eq!(
            parse(b"99999999999999999999").unwrap(),
            JsonValue::Number(Number::Float(1e20))
        );
    }

    #[test]
    fn refuses_bad_text_with_offsets() {
        let cases: [(&[u8], &str); 7] = [
            (b"[1,]", "expected JSON value, found ']' at byte 3"),
            (b"01", "1 trailing bytes after the root value at byte 1"),
            (
                b"{\"a\":1,\"a\":2}",
                "expected a key not seen before in this object, found \"a\" again at byte 7",
            ),
            (b"1.", "unexpected end of input, expected digit after '.' at byte 2"),
            (b"-", "unexpected end of input, expected digit at byte 1"),
            (b"1e999", "JSON number (f64) out of range: 1e999 at byte 0"),
            (b"\xff", "invalid UTF-8 in string at byte 0"),
        ];
        for (input, want) in cases {
            assert_eq!(
                parse(input).unwrap_err().to_string(),
                want,
                "{:?}",
                String::from_utf8_lossy(input)
            );
        }
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let deep = "[".repeat(100_000);
        let e = parse(deep.as_bytes()).unwrap_err();
        assert_eq!(e.kind, ErrorKind::DepthLimit { limit: MAX_VALUE_DEPTH });
        let ok = format!("{}{}", "[".repeat(MAX_VALUE_DEPTH), "]".repeat(MAX_VALUE_DEPTH));
        assert!(parse(ok.as_bytes()).is_ok());
    }
}
