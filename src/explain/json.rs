//! JSON annotator: every token of the payload, named.
//!
//! Written from RFC 8259, not from our parser. JSON has no lengths and no
//! types on the wire: structure is punctuation (`{ } [ ] : ,`), every field
//! name is spelled out in every record, and numbers are decimal text. A
//! string token is shown whole, quotes included, and counted as a key or a
//! value; whitespace (none in our compact output) is counted as padding.
//!
//! ```text
//! 7b              {  object
//! 22 69 64 22     key "id"
//! 3a              :
//! 34 32           number 42
//! 7d              }  end of object
//! ```

use super::span::{Category, ExplainError, FRAMING, Failed, MAX_DEPTH, Span, Walker, preview, static_field};
use super::value::Value;

/// Walks one JSON text: a document (`document`, spans owned by JSON paths)
/// or the catalog (spans owned by product fields).
pub fn annotate(bytes: &[u8], document: bool) -> Result<(Vec<Span>, Value), Failed> {
    let mut w = if document {
        Walker::document(bytes)
    } else {
        Walker::new(bytes)
    };
    let r = (|| {
        whitespace(&mut w);
        let v = value(&mut w, 0)?;
        whitespace(&mut w);
        Ok(v)
    })();
    w.finish(r)
}

fn whitespace(w: &mut Walker<'_>) {
    let start = w.pos;
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = w.bytes.get(w.pos) {
        w.pos += 1;
    }
    w.span(start, Category::Padding, "whitespace");
}

fn punct(w: &mut Walker<'_>, expected: u8, meaning: &str) -> Result<(), ExplainError> {
    let at = w.pos;
    match w.bytes.get(at) {
        Some(&b) if b == expected => {
            w.pos += 1;
            w.span(at, Category::Structure, meaning);
            Ok(())
        }
        Some(&b) => Err(w.err(at, format!("expected '{}', found {:?}", expected as char, b as char))),
        None => Err(w.err(at, format!("expected '{}', found end of input", expected as char))),
    }
}

fn value(w: &mut Walker<'_>, level: usize) -> Result<Value, ExplainError> {
    if level > MAX_DEPTH {
        return Err(w.err(w.pos, format!("nesting deeper than {MAX_DEPTH} levels")));
    }
    let at = w.pos;
    match w.bytes.get(at) {
        Some(b'{') => object(w, level),
        Some(b'[') => array(w, level),
        Some(b'"') => {
            let s = string(w)?;
            w.span(at, Category::Value, format!("string {}", preview(&s)));
            Ok(Value::Str(s))
        }
        Some(b't') => literal(w, "true", Value::Bool(true)),
        Some(b'f') => literal(w, "false", Value::Bool(false)),
        Some(b'n') => literal(w, "null", Value::Null),
        Some(b'-' | b'0'..=b'9') => number(w),
        Some(&b) => Err(w.err(at, format!("expected a value, found {:?}", b as char))),
        None => Err(w.err(at, "expected a value, found end of input")),
    }
}

fn literal(w: &mut Walker<'_>, word: &str, v: Value) -> Result<Value, ExplainError> {
    let at = w.pos;
    if w.bytes.get(at..at + word.len()) != Some(word.as_bytes()) {
        return Err(w.err(at, format!("expected `{word}`")));
    }
    w.pos += word.len();
    w.span(at, Category::Value, format!("literal {word}"));
    Ok(v)
}

fn number(w: &mut Walker<'_>) -> Result<Value, ExplainError> {
    let at = w.pos;
    let digits = |w: &mut Walker<'_>| {
        let s = w.pos;
        while w.bytes.get(w.pos).is_some_and(u8::is_ascii_digit) {
            w.pos += 1;
        }
        w.pos - s
    };
    if w.bytes.get(w.pos) == Some(&b'-') {
        w.pos += 1;
    }
    let int_digits = digits(w);
    if int_digits == 0 {
        return Err(w.err(w.pos, "expected a digit"));
    }
    let mut integer = true;
    if w.bytes.get(w.pos) == Some(&b'.') {
        w.pos += 1;
        integer = false;
        if digits(w) == 0 {
            return Err(w.err(w.pos, "expected a digit after '.'"));
        }
    }
    if let Some(b'e' | b'E') = w.bytes.get(w.pos) {
        w.pos += 1;
        integer = false;
        if let Some(b'+' | b'-') = w.bytes.get(w.pos) {
            w.pos += 1;
        }
        if digits(w) == 0 {
            return Err(w.err(w.pos, "expected a digit in the exponent"));
        }
    }
    // The grammar above admits only ASCII, so this cannot fail.
    let text = std::str::from_utf8(&w.bytes[at..w.pos]).unwrap_or_default();
    let v = if integer {
        match text.parse::<i64>() {
            Ok(0) if text.starts_with('-') => Value::NegZero,
            Ok(v) => Value::Int(v),
            Err(_) => return Err(w.err(at, format!("integer {text} does not fit in 64 bits"))),
        }
    } else {
        Value::Float(
            text.parse::<f64>()
                .map_err(|_| w.err(at, format!("bad number {text}")))?,
        )
    };
    let kind = if integer { "integer" } else { "number" };
    w.span(at, Category::Value, format!("{kind} {text}"));
    Ok(v)
}

fn hex4(w: &mut Walker<'_>) -> Result<u16, ExplainError> {
    let at = w.pos;
    let digits = w.take(4, "\\u escape")?;
    let text = std::str::from_utf8(digits).map_err(|_| w.err(at, "expected 4 hex digits"))?;
    u16::from_str_radix(text, 16).map_err(|_| w.err(at, "expected 4 hex digits"))
}

/// Reads a string token (quotes included) and returns its unescaped text.
fn string(w: &mut Walker<'_>) -> Result<String, ExplainError> {
    w.pos += 1; // opening quote, checked by the caller
    let mut out = String::new();
    loop {
        let run = w.pos;
        while let Some(&b) = w.bytes.get(w.pos) {
            if b == b'"' || b == b'\\' || b < 0x20 {
                break;
            }
            w.pos += 1;
        }
        let text = std::str::from_utf8(&w.bytes[run..w.pos])
            .map_err(|e| w.err(run + e.valid_up_to(), "invalid UTF-8 in string"))?;
        out.push_str(text);
        let at = w.pos;
        match w.u8("closing quote")? {
            b'"' => return Ok(out),
            b'\\' => {
                let c = match w.u8("escape character")? {
                    b'"' => '"',
                    b'\\' => '\\',
                    b'/' => '/',
                    b'b' => '\u{8}',
                    b'f' => '\u{c}',
                    b'n' => '\n',
                    b'r' => '\r',
                    b't' => '\t',
                    b'u' => {
                        let hi = hex4(w)?;
                        let code = if (0xD800..0xDC00).contains(&hi) {
                            if w.bytes.get(w.pos..w.pos + 2) != Some(b"\\u") {
                                return Err(w.err(at, format!("lone surrogate \\u{hi:04X}")));
                            }
                            w.pos += 2;
                            let lo = hex4(w)?;
                            if !(0xDC00..0xE000).contains(&lo) {
                                return Err(w.err(at, format!("lone surrogate \\u{hi:04X}")));
                            }
                            0x10000 + ((u32::from(hi) - 0xD800) << 10) + (u32::from(lo) - 0xDC00)
                        } else {
                            u32::from(hi)
                        };
                        char::from_u32(code).ok_or_else(|| w.err(at, format!("lone surrogate \\u{hi:04X}")))?
                    }
                    other => return Err(w.err(at, format!("unknown escape \\{}", other as char))),
                };
                out.push(c);
            }
            b => return Err(w.err(at, format!("control character 0x{b:02x} must be escaped"))),
        }
    }
}

fn array(w: &mut Walker<'_>, level: usize) -> Result<Value, ExplainError> {
    punct(w, b'[', "[  array")?;
    w.depth += 1;
    let mut items = Vec::new();
    whitespace(w);
    if w.bytes.get(w.pos) != Some(&b']') {
        loop {
            let saved = w.descend(Err(items.len()));
            items.push(value(w, level + 1)?);
            w.relocate(saved);
            if !comma(w)? {
                break;
            }
        }
    }
    w.depth -= 1;
    punct(w, b']', &format!("]  end of array ({} items)", items.len()))?;
    Ok(Value::List(items))
}

/// After an array item or object member: the comma and the whitespace
/// around it (`true`: another follows), or just the whitespace (`false`).
fn comma(w: &mut Walker<'_>) -> Result<bool, ExplainError> {
    whitespace(w);
    if w.bytes.get(w.pos) != Some(&b',') {
        return Ok(false);
    }
    punct(w, b',', ",")?;
    whitespace(w);
    Ok(true)
}

fn object(w: &mut Walker<'_>, level: usize) -> Result<Value, ExplainError> {
    // In the catalog, level 2 is a product: root object (0) → products array (1) → product (2).
    let is_product = level == 2 && w.path.is_none();
    let outer = (w.product, w.field);
    if is_product {
        w.begin_product();
    }
    punct(w, b'{', "{  object")?;
    w.depth += 1;
    let mut fields = Vec::new();
    whitespace(w);
    if w.bytes.get(w.pos) != Some(&b'}') {
        loop {
            let at = w.pos;
            if w.bytes.get(at) != Some(&b'"') {
                return Err(w.err(at, "expected a string key"));
            }
            let key = string(w)?;
            let saved = w.descend(Ok(&key));
            if is_product {
                w.field = static_field(&key);
            }
            if level == 0 {
                w.top = Some(fields.len());
            }
            w.span(at, Category::Key, format!("key {}", preview(&key)));
            whitespace(w);
            punct(w, b':', ":")?;
            whitespace(w);
            let v = value(w, level + 1)?;
            w.relocate(saved);
            fields.push((key, v));
            if level == 0 {
                w.top = None;
            }
            if is_product {
                w.field = FRAMING;
            }
            if !comma(w)? {
                break;
            }
        }
    }
    w.depth -= 1;
    punct(w, b'}', "}  end of object")?;
    w.end_product(outer);
    Ok(Value::Record(fields))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_annotated() {
        let (spans, v) = annotate(br#"{"id":42,"s":"a\nb"}"#, false).unwrap();
        assert_eq!(
            crate::explain::span::layout(&spans),
            [
                (0, 1, "{  object"),
                (1, 4, "key \"id\""),
                (5, 1, ":"),
                (6, 2, "integer 42"),
                (8, 1, ","),
                (9, 3, "key \"s\""),
                (12, 1, ":"),
                (13, 6, "string \"a\\nb\""),
                (19, 1, "}  end of object"),
            ]
        );
        assert_eq!(
            v,
            Value::Record(vec![
                ("id".into(), Value::Int(42)),
                ("s".into(), Value::Str("a\nb".into()))
            ])
        );
    }

    #[test]
    fn errors_point_at_the_first_bad_byte() {
        for (input, msg) in [
            (&br#"{"a":tru}"#[..], "expected `true` at byte 5"),
            (br#"{"a":"\ud800"}"#, "lone surrogate \\uD800 at byte 6"),
            (br#"[1,]"#, "expected a value, found ']' at byte 3"),
            (b"[1] x", "1 trailing bytes after the root value at byte 4"),
        ] {
            assert_eq!(annotate(input, true).unwrap_err().error.to_string(), msg);
        }
        let deep = "[".repeat(100_000);
        assert!(
            annotate(deep.as_bytes(), true)
                .unwrap_err()
                .error
                .message
                .contains("nesting deeper")
        );
    }
}
