//! A generic MessagePack value tree: any MessagePack object becomes a
//! [`JsonValue`] (maps need string keys; `bin` and `ext` are refused), for
//! readers whose shape is not the catalog's.
//!
//! Bounded like the catalog reader: nesting deeper than
//! [`MAX_VALUE_DEPTH`] is an error, and every length or count is compared
//! with the bytes left (an array item takes at least one byte, a map entry
//! two) before anything is allocated.

use super::json::{JsonValue, Number};
use crate::codec::cursor::Cursor;
use crate::codec::msgpack::marker::{Marker, length};
use crate::codec::{DecodeError, ErrorKind};

/// Deepest nesting [`parse`] accepts (the outermost value is level 1).
pub const MAX_VALUE_DEPTH: usize = 64;

type Result<T> = std::result::Result<T, DecodeError>;

/// Parses one whole MessagePack object (trailing bytes are an error).
///
/// ```
/// use wirebench::generic::value::json::{JsonValue, Number};
/// let v = wirebench::generic::value::msgpack::parse(&[0x81, 0xa1, b'a', 0x92, 0x01, 0xc0]).unwrap();
/// assert_eq!(v.get("a"), Some(&JsonValue::Array(vec![JsonValue::Number(Number::Int(1)), JsonValue::Null])));
/// ```
pub fn parse(bytes: &[u8]) -> Result<JsonValue> {
    let mut c = Cursor::new(bytes);
    let v = value(&mut c, 1)?;
    c.finish()?;
    Ok(v)
}

fn be(c: &mut Cursor<'_>, n: usize, what: &'static str) -> Result<u64> {
    Ok(c.fixed(n, what)?.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b)))
}

/// The string after its marker `m`.
fn string(c: &mut Cursor<'_>, m: Marker) -> Result<String> {
    let len = length(c, m, "a string length")?;
    let at = c.pos();
    let b = c.take(u64::from(len), "string length")?;
    std::str::from_utf8(b)
        .map(str::to_string)
        .map_err(|_| DecodeError::new(at, ErrorKind::InvalidUtf8))
}

fn value(c: &mut Cursor<'_>, depth: usize) -> Result<JsonValue> {
    let at = c.pos();
    let m = Marker::from_u8(c.u8("MessagePack marker")?);
    let container = |n: u64, per: u64, c: &Cursor<'_>| -> Result<usize> {
        if depth >= MAX_VALUE_DEPTH {
            return Err(DecodeError::new(at, ErrorKind::DepthLimit { limit: MAX_VALUE_DEPTH }));
        }
        c.check_count(n, per, "container length")
    };
    Ok(match m {
        Marker::Nil => JsonValue::Null,
        Marker::False => JsonValue::Bool(false),
        Marker::True => JsonValue::Bool(true),
        Marker::FixPos(v) => JsonValue::Number(Number::Int(i64::from(v))),
        Marker::FixNeg(v) => JsonValue::Number(Number::Int(i64::from(v))),
        Marker::U8 => JsonValue::Number(Number::Int(be(c, 1, "u8")? as i64)),
        Marker::U16 => JsonValue::Number(Number::Int(be(c, 2, "u16")? as i64)),
        Marker::U32 => JsonValue::Number(Number::Int(be(c, 4, "u32")? as i64)),
        Marker::U64 => {
            let v = be(c, 8, "u64")?;
            match i64::try_from(v) {
                Ok(v) => JsonValue::Number(Number::Int(v)),
                Err(_) => JsonValue::Number(Number::Float(v as f64)),
            }
        }
        Marker::I8 => JsonValue::Number(Number::Int(i64::from(be(c, 1, "i8")? as u8 as i8))),
        Marker::I16 => JsonValue::Number(Number::Int(i64::from(be(c, 2, "i16")? as u16 as i16))),
        Marker::I32 => JsonValue::Number(Number::Int(i64::from(be(c, 4, "i32")? as u32 as i32))),
        Marker::I64 => JsonValue::Number(Number::Int(be(c, 8, "i64")? as i64)),
        Marker::F32 => JsonValue::Number(Number::Float(f64::from(f32::from_bits(be(c, 4, "f32")? as u32)))),
        Marker::F64 => JsonValue::Number(Number::Float(f64::from_bits(be(c, 8, "f64")?))),
        Marker::FixStr(_) | Marker::Str8 | Marker::Str16 | Marker::Str32 => JsonValue::String(string(c, m)?),
        Marker::FixArray(_) | Marker::Array16 | Marker::Array32 => {
            let n = container(u64::from(length(c, m, "a length")?), 1, c)?;
            let mut items = Vec::with_capacity(n);
            for _ in 0..n {
                items.push(value(c, depth + 1)?);
            }
            JsonValue::Array(items)
        }
        Marker::FixMap(_) | Marker::Map16 | Marker::Map32 => {
            let n = container(u64::from(length(c, m, "a length")?), 2, c)?;
            let mut members: Vec<(String, JsonValue)> = Vec::with_capacity(n);
            for _ in 0..n {
                let key_at = c.pos();
                let JsonValue::String(k) = value(c, depth + 1)? else {
                    return Err(DecodeError::unexpected(key_at, "a string map key", "another type"));
                };
                let v = value(c, depth + 1)?;
                if members.iter().any(|(x, _)| *x == k) {
                    return Err(DecodeError::unexpected(
                        key_at,
                        "a key not seen before in this map",
                        format!("{k:?} again"),
                    ));
                }
                members.push((k, v));
            }
            JsonValue::Object(members)
        }
        other => {
            return Err(DecodeError::unexpected(
                at,
                "a MessagePack value other than bin, ext or 0xc1",
                other.name(),
            ));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_the_catalog_writer_writes() {
        let c = crate::fixtures::catalog(2);
        let bytes = crate::codec::Format::Msgpack.encode_to_vec(&c.products).unwrap();
        let v = parse(&bytes).unwrap();
        let JsonValue::Array(p) = v.get("products").unwrap() else {
            panic!()
        };
        assert_eq!(p[1].get("sku").and_then(JsonValue::as_str), Some("SKU-000002"));
    }

    #[test]
    fn hostile_lengths_and_depth_are_errors() {
        assert!(
            parse(&[0xdd, 0xff, 0xff, 0xff, 0xff])
                .unwrap_err()
                .to_string()
                .contains("exceeds")
        );
        assert!(parse(&[0xdb, 0x7f, 0xff, 0xff, 0xff]).is_err());
        let deep = vec![0x91; 10_000];
        assert_eq!(
            parse(&deep).unwrap_err().kind,
            ErrorKind::DepthLimit { limit: MAX_VALUE_DEPTH }
        );
        assert!(parse(&[0x81, 0x01, 0x02]).is_err(), "non-string key");
        assert!(parse(&[0xc4, 0x00]).is_err(), "bin");
        assert!(parse(&[0xc0, 0xc0]).is_err(), "trailing");
    }
}
