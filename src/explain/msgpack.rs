//! MessagePack annotator: every marker, length and payload byte, named.
//!
//! Written from the MessagePack specification (msgpack/spec.md, "Formats"),
//! not from our encoder: one marker byte says the family and, for the "fix"
//! families, the value or length itself; wider families follow the marker with
//! a 1/2/4/8-byte big-endian length or value.
//!
//! ```text
//! 81                 fixmap, 1 entry          (0x80 | 1)
//! a8 70 72 6f …      fixstr, 8 bytes "products" (0xa0 | 8)
//! 91                 fixarray, 1 item          (0x90 | 1)
//! cd 01 2c           uint16 300
//! ```

use super::span::{Category, ExplainError, FRAMING, Failed, MAX_DEPTH, Span, Walker, plural, static_field};
use super::value::Value;

/// Walks one MessagePack value (the whole payload): a document
/// (`document`, spans owned by JSON paths) or the catalog (by product fields).
pub fn annotate(bytes: &[u8], document: bool) -> Result<(Vec<Span>, Value), Failed> {
    let mut w = if document {
        Walker::document(bytes)
    } else {
        Walker::new(bytes)
    };
    let r = value(&mut w, 0, Role::Value);
    w.finish(r)
}

/// Where a value sits: map keys are categorised as keys; level counting finds
/// the product maps (root map → products array → product map).
#[derive(Clone, Copy, PartialEq)]
enum Role {
    Value,
    Key,
}

fn be(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0u64, |acc, &b| (acc << 8) | u64::from(b))
}

/// Reads the big-endian length that follows a marker.
fn length(w: &mut Walker<'_>, width: usize, what: &str) -> Result<u64, ExplainError> {
    Ok(be(w.take(width, what)?))
}

fn value(w: &mut Walker<'_>, level: usize, role: Role) -> Result<Value, ExplainError> {
    if level > MAX_DEPTH {
        return Err(w.err(w.pos, format!("nesting deeper than {MAX_DEPTH} levels")));
    }
    let start = w.pos;
    let m = w.u8("a marker byte")?;
    match m {
        0x00..=0x7f => {
            w.span(start, Category::Value, format!("positive fixint {m}"));
            Ok(Value::Int(i64::from(m)))
        }
        0xe0..=0xff => {
            let v = m as i8;
            w.span(start, Category::Value, format!("negative fixint {v}"));
            Ok(Value::Int(i64::from(v)))
        }
        0x80..=0x9f | 0xdc..=0xdf => {
            let is_map = matches!(m, 0x80..=0x8f | 0xde | 0xdf);
            let (family, one, many) = if is_map {
                ("map", "entry", "entries")
            } else {
                ("array", "item", "items")
            };
            let (n, label) = if m < 0xa0 {
                let n = u64::from(m & 0x0f);
                (
                    n,
                    format!("fix{family}, {} ({:#04x} | {n})", plural(n, one, many), m & 0xf0),
                )
            } else {
                // dc, de: 16-bit count; dd, df: 32-bit.
                let width = if m & 1 == 0 { 2 } else { 4 };
                let what = if is_map { "a map length" } else { "an array length" };
                let n = length(w, width, what)?;
                (n, format!("{family}{}, {}", width * 8, plural(n, one, many)))
            };
            if is_map {
                map(w, start, n, label, level)
            } else {
                array(w, start, n, label, level)
            }
        }
        0xa0..=0xbf => string(
            w,
            start,
            u64::from(m & 0x1f),
            format!("fixstr, {} bytes (0xa0 | {0})", m & 0x1f),
            role,
        ),
        0xd9..=0xdb => {
            let width = 1usize << (m - 0xd9);
            let n = length(w, width, "a string length")?;
            string(w, start, n, format!("str{}, {n} bytes", width * 8), role)
        }
        0xc0 => {
            w.span(start, Category::Value, "nil");
            Ok(Value::Null)
        }
        0xc1 => Err(w.err(start, "marker 0xc1 is never used by MessagePack")),
        0xc2 | 0xc3 => {
            w.span(start, Category::Value, if m == 0xc3 { "true" } else { "false" });
            Ok(Value::Bool(m == 0xc3))
        }
        0xcc..=0xcf => {
            let width = 1usize << (m - 0xcc);
            w.span(start, Category::Structure, format!("uint{} marker", width * 8));
            let at = w.pos;
            let v = length(w, width, "an unsigned integer")?;
            w.span(at, Category::Value, format!("{v} ({width}-byte big-endian)"));
            Ok(i64::try_from(v).map(Value::Int).unwrap_or(Value::UInt(v)))
        }
        0xd0..=0xd3 => {
            let width = 1usize << (m - 0xd0);
            w.span(start, Category::Structure, format!("int{} marker", width * 8));
            let at = w.pos;
            let raw = length(w, width, "a signed integer")?;
            let shift = 64 - 8 * width as u32;
            let v = ((raw << shift) as i64) >> shift;
            w.span(
                at,
                Category::Value,
                format!("{v} ({width}-byte big-endian two's complement)"),
            );
            Ok(Value::Int(v))
        }
        0xca | 0xcb => {
            let width = if m == 0xca { 4 } else { 8 };
            w.span(start, Category::Structure, format!("float{} marker", width * 8));
            let at = w.pos;
            let raw = length(w, width, "a float")?;
            let v = if width == 4 {
                f64::from(f32::from_bits(raw as u32))
            } else {
                f64::from_bits(raw)
            };
            w.span(at, Category::Value, format!("{v:?} (IEEE 754, big-endian)"));
            Ok(Value::Float(v))
        }
        0xc4..=0xc6 => {
            let width = 1usize << (m - 0xc4);
            let n = length(w, width, "a bin length")?;
            w.span(start, Category::Structure, format!("bin{}, {n} bytes", width * 8));
            let at = w.pos;
            w.take(usize::try_from(n).unwrap_or(usize::MAX), "bin payload")?;
            w.span(at, Category::Value, "binary payload");
            Ok(Value::Null)
        }
        0xc7..=0xc9 | 0xd4..=0xd8 => {
            let n = match m {
                0xd4..=0xd8 => 1u64 << (m - 0xd4),
                _ => length(w, 1usize << (m - 0xc7), "an ext length")?,
            };
            let t = w.u8("an ext type")? as i8;
            w.span(start, Category::Structure, format!("ext, type {t}, {n} bytes"));
            let at = w.pos;
            w.take(usize::try_from(n).unwrap_or(usize::MAX), "ext payload")?;
            w.span(at, Category::Value, "extension payload");
            Ok(Value::Null)
        }
    }
}

fn string(w: &mut Walker<'_>, start: usize, n: u64, header: String, role: Role) -> Result<Value, ExplainError> {
    w.span(start, Category::Structure, header);
    let at = w.pos;
    let raw = w.take(usize::try_from(n).unwrap_or(usize::MAX), "string bytes")?;
    let s = std::str::from_utf8(raw).map_err(|e| w.err(at + e.valid_up_to(), "invalid UTF-8 in string"))?;
    let s = s.to_string();
    match role {
        Role::Key => w.span(at, Category::Key, format!("key {}", super::span::preview(&s))),
        Role::Value => w.span(at, Category::Value, super::span::preview(&s)),
    }
    Ok(Value::Str(s))
}

/// Each of `n` items takes at least `min` bytes: a count beyond the input
/// is an error, not an allocation.
fn fits(w: &Walker<'_>, start: usize, n: u64, min: u64, what: &str) -> Result<(), ExplainError> {
    let left = w.bytes.len() - w.pos;
    if n.saturating_mul(min) > left as u64 {
        return Err(w.err(start, format!("{what} cannot fit in the {left} bytes left")));
    }
    Ok(())
}

fn array(w: &mut Walker<'_>, start: usize, n: u64, header: String, level: usize) -> Result<Value, ExplainError> {
    w.span(start, Category::Structure, header);
    fits(w, start, n, 1, &format!("array of {n} items"))?;
    let mut items = Vec::with_capacity(n as usize);
    w.depth += 1;
    for i in 0..n as usize {
        let saved = w.descend(Err(i));
        items.push(value(w, level + 1, Role::Value)?);
        w.relocate(saved);
    }
    w.depth -= 1;
    Ok(Value::List(items))
}

fn map(w: &mut Walker<'_>, start: usize, n: u64, header: String, level: usize) -> Result<Value, ExplainError> {
    // In the catalog, level 2 is a product: root map (0) → products array (1) → product map (2).
    let is_product = level == 2 && w.path.is_none();
    let outer = (w.product, w.field);
    if is_product {
        w.begin_product();
    }
    w.span(start, Category::Structure, header);
    fits(w, start, n, 2, &format!("map of {n} entries"))?;
    let mut fields = Vec::with_capacity(n as usize);
    w.depth += 1;
    for i in 0..n {
        let key_at = w.pos;
        if level == 0 {
            w.top = usize::try_from(i).ok();
        }
        // Peek a string key to attribute its bytes to the field it names
        // (only a string: a nested key would be walked twice per level).
        let mut probe = Walker::new(w.bytes);
        probe.pos = key_at;
        let peeked = match w.bytes.get(key_at) {
            Some(0xa0..=0xbf | 0xd9..=0xdb) => match value(&mut probe, level + 1, Role::Key) {
                Ok(Value::Str(k)) => Some(k),
                _ => None,
            },
            _ => None,
        };
        if is_product {
            w.field = peeked.as_deref().map_or(FRAMING, static_field);
        }
        let saved = peeked.as_deref().and_then(|k| w.descend(Ok(k)));
        let key = match value(w, level + 1, Role::Key)? {
            Value::Str(k) => k,
            other => return Err(w.err(key_at, format!("expected a string key, found {other:?}"))),
        };
        let v = value(w, level + 1, Role::Value)?;
        w.relocate(saved);
        fields.push((key, v));
        if level == 0 {
            w.top = None;
        }
        if is_product {
            w.field = FRAMING;
        }
    }
    w.depth -= 1;
    if is_product {
        w.end_product(outer);
    }
    Ok(Value::Record(fields))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_map_is_annotated_byte_by_byte() {
        // {"id": 300, "ok": true}
        let bytes = [0x82, 0xa2, b'i', b'd', 0xcd, 0x01, 0x2c, 0xa2, b'o', b'k', 0xc3];
        let (spans, v) = annotate(&bytes, false).unwrap();
        assert_eq!(
            crate::explain::span::layout(&spans),
            [
                (0, 1, "fixmap, 2 entries (0x80 | 2)"),
                (1, 1, "fixstr, 2 bytes (0xa0 | 2)"),
                (2, 2, "key \"id\""),
                (4, 1, "uint16 marker"),
                (5, 2, "300 (2-byte big-endian)"),
                (7, 1, "fixstr, 2 bytes (0xa0 | 2)"),
                (8, 2, "key \"ok\""),
                (10, 1, "true"),
            ]
        );
        assert_eq!(
            v,
            Value::Record(vec![("id".into(), Value::Int(300)), ("ok".into(), Value::Bool(true))])
        );
    }

    #[test]
    fn errors_point_at_the_first_bad_byte() {
        let e = annotate(&[0x92, 0x01, 0xc1], true).unwrap_err();
        assert_eq!(
            e.error.to_string(),
            "marker 0xc1 is never used by MessagePack at byte 2"
        );
        assert_eq!(e.spans.len(), 2, "the bytes before the error are still explained");
        let e = annotate(&[0xdb, 0x80, 0, 0, 0], true).unwrap_err();
        assert_eq!(
            e.error.to_string(),
            "string bytes needs 2147483648 bytes but only 0 remain at byte 5"
        );
        let e = annotate(&[0xdd, 0xff, 0xff, 0xff, 0xff], true).unwrap_err();
        assert_eq!(
            e.error.to_string(),
            "array of 4294967295 items cannot fit in the 0 bytes left at byte 0"
        );
    }

    #[test]
    fn signed_widths() {
        let (_, v) = annotate(&[0xd1, 0xff, 0x7f], true).unwrap();
        assert_eq!(v, Value::Int(-129));
        let (_, v) = annotate(&[0xe0], true).unwrap();
        assert_eq!(v, Value::Int(-32));
    }
}
