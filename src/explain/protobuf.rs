//! Protobuf annotator: keys, varints and lengths of a `Catalog` message,
//! walked with the field numbers of schemas/catalog.proto — not with prost.
//!
//! A message is a sequence of fields. Each starts with a key varint,
//! `field_number << 3 | wire_type`; wire type 0 is a varint, 1 eight
//! little-endian bytes, 2 a varint length then that many bytes (strings and
//! nested messages), 5 four bytes. Fields may come in any order and repeat
//! (repeated fields); a field left at its default (0, "", false, empty) is not
//! written at all, so absent means default.
//!
//! ```text
//! 0a 85 04      field 1 (products), length-delimited, 517 bytes
//!   08          field 1 (id), varint
//!   2a          42
//! ```
//!
//! This walker is a second reader, written apart from the decoder on
//! purpose: it reads varints, keys, lengths and values itself, so a mistake
//! in the decoder's wire reader (`codec::protobuf::wire`) shows up as a
//! disagreement between the two instead of being repeated in both. Its
//! errors name the schema field and are kept for display, not typed. It
//! shares only [`WireType`], the names of the wire types, which carry no
//! reading logic.

use crate::codec::protobuf::wire::WireType;

use super::span::{Category, ExplainError, FRAMING, Failed, MAX_DEPTH, Span, Walker, preview};
use super::value::Value;

/// What a field of our schema holds.
#[derive(Clone, Copy)]
enum Kind {
    Int64,
    Int32,
    Bool,
    Double,
    Str,
    Enum,
    Message(&'static [(u64, &'static str, Kind, bool)]),
}

/// (number, name, kind, repeated) per message, from schemas/catalog.proto.
const DIMENSIONS: &[(u64, &str, Kind, bool)] = &[
    (1, "width_mm", Kind::Int32, false),
    (2, "height_mm", Kind::Int32, false),
    (3, "depth_mm", Kind::Int32, false),
    (4, "weight_g", Kind::Int32, false),
];
const VARIANT: &[(u64, &str, Kind, bool)] = &[
    (1, "sku", Kind::Str, false),
    (2, "color", Kind::Str, false),
    (3, "size", Kind::Str, false),
    (4, "price_cents", Kind::Int64, false),
    (5, "stock", Kind::Int32, false),
];
const PRODUCT: &[(u64, &str, Kind, bool)] = &[
    (1, "id", Kind::Int64, false),
    (2, "sku", Kind::Str, false),
    (3, "name", Kind::Str, false),
    (4, "description", Kind::Str, false),
    (5, "price_cents", Kind::Int64, false),
    (6, "currency", Kind::Str, false),
    (7, "rating", Kind::Double, false),
    (8, "review_count", Kind::Int32, false),
    (9, "in_stock", Kind::Bool, false),
    (10, "stock", Kind::Int32, false),
    (11, "status", Kind::Enum, false),
    (12, "tags", Kind::Str, true),
    (13, "dimensions", Kind::Message(DIMENSIONS), false),
    (14, "variants", Kind::Message(VARIANT), true),
    (15, "discount_percent", Kind::Int32, false),
    (16, "created_at_ms", Kind::Int64, false),
    (17, "image_url", Kind::Str, false),
];
const CATALOG: &[(u64, &str, Kind, bool)] = &[(1, "products", Kind::Message(PRODUCT), true)];

/// Walks one Catalog message.
pub fn annotate(bytes: &[u8]) -> Result<(Vec<Span>, Value), Failed> {
    let mut w = Walker::new(bytes);
    let end = bytes.len();
    let r = message(&mut w, CATALOG, end, 0);
    w.finish(r)
}

fn varint(w: &mut Walker<'_>, what: &str) -> Result<u64, ExplainError> {
    let at = w.pos;
    let mut v: u64 = 0;
    for i in 0..10 {
        let b = w.u8(what)?;
        if i == 9 && b > 1 {
            break;
        }
        v |= u64::from(b & 0x7f) << (7 * i);
        if b < 0x80 {
            return Ok(v);
        }
    }
    Err(w.err(at, format!("{what}: varint longer than 64 bits")))
}

fn wire_name(t: u64) -> &'static str {
    match WireType::try_from(t) {
        Ok(WireType::Varint) => "varint",
        Ok(WireType::I64) => "64-bit",
        Ok(WireType::Len) => "length-delimited",
        Ok(WireType::StartGroup) => "start group (deprecated)",
        Ok(WireType::EndGroup) => "end group (deprecated)",
        Ok(WireType::I32) => "32-bit",
        Err(_) => "invalid wire type",
    }
}

/// Walks the fields of one message up to `end`; absent schema fields are Null.
fn message(
    w: &mut Walker<'_>,
    schema: &'static [(u64, &'static str, Kind, bool)],
    end: usize,
    level: usize,
) -> Result<Value, ExplainError> {
    if level > MAX_DEPTH {
        return Err(w.err(w.pos, format!("nesting deeper than {MAX_DEPTH} levels")));
    }
    let is_product = std::ptr::eq(schema, PRODUCT);
    let outer = (w.product, w.field);
    if is_product {
        w.begin_product();
    }
    let mut fields: Vec<(String, Value)> = schema
        .iter()
        .map(|(_, name, _, repeated)| {
            (
                name.to_string(),
                if *repeated {
                    Value::List(Vec::new())
                } else {
                    Value::Null
                },
            )
        })
        .collect();
    while w.pos < end {
        let at = w.pos;
        let key = varint(w, "field key")?;
        let (number, wire) = (key >> 3, key & 7);
        let entry = schema.iter().position(|(n, ..)| *n == number);
        if is_product {
            w.field = entry.map_or(FRAMING, |i| schema[i].1);
        }
        let name = entry.map_or("unknown", |i| schema[i].1);
        w.span(
            at,
            Category::Structure,
            format!("field {number} ({name}), wire type {wire} = {}", wire_name(wire)),
        );
        let v = match entry {
            Some(i) => typed(w, schema[i].1, schema[i].2, wire, end, level, at)?,
            None => {
                skip(w, wire, end, at)?;
                continue;
            }
        };
        let slot = &mut fields[entry.unwrap_or(0)].1;
        match slot {
            Value::List(items) => items.push(v),
            _ => *slot = v,
        }
    }
    if w.pos != end {
        return Err(w.err(w.pos, format!("field runs past the end of its message at byte {end}")));
    }
    if is_product {
        w.end_product(outer);
    }
    Ok(Value::Record(fields))
}

fn expect_wire(w: &Walker<'_>, name: &str, wire: u64, want: WireType, at: usize) -> Result<(), ExplainError> {
    let want = u64::from(want.number());
    if wire != want {
        return Err(w.err(
            at,
            format!("{name} expects wire type {want} ({}), found {wire}", wire_name(want)),
        ));
    }
    Ok(())
}

fn length(w: &mut Walker<'_>, name: &str, end: usize) -> Result<usize, ExplainError> {
    let at = w.pos;
    let n = varint(w, name)?;
    match usize::try_from(n).ok().filter(|&n| n <= end.saturating_sub(w.pos)) {
        Some(n) => Ok(n),
        None => Err(w.err(
            at,
            format!(
                "{name}: length {n} exceeds the {} bytes left",
                end.saturating_sub(w.pos)
            ),
        )),
    }
}

fn typed(
    w: &mut Walker<'_>,
    name: &str,
    kind: Kind,
    wire: u64,
    end: usize,
    level: usize,
    key_at: usize,
) -> Result<Value, ExplainError> {
    let at = w.pos;
    match kind {
        Kind::Int64 | Kind::Int32 | Kind::Bool | Kind::Enum => {
            expect_wire(w, name, wire, WireType::Varint, key_at)?;
            let raw = varint(w, name)?;
            let (v, text) = match kind {
                Kind::Int64 => (Value::Int(raw as i64), format!("{name}: int64 {}", raw as i64)),
                Kind::Int32 => {
                    // int32 is written sign-extended to 64 bits; readers truncate.
                    let v = raw as i64;
                    if i32::try_from(v).is_err() {
                        return Err(w.err(at, format!("{name}: {v} does not fit int32")));
                    }
                    (Value::Int(v), format!("{name}: int32 {v}"))
                }
                Kind::Bool => (Value::Bool(raw != 0), format!("{name}: bool {}", raw != 0)),
                _ => {
                    let symbol = ["ACTIVE", "DRAFT", "DISCONTINUED"]
                        .get(raw as usize)
                        .copied()
                        .unwrap_or("unknown value");
                    (Value::Enum(raw as i64), format!("{name}: enum {raw} = {symbol}"))
                }
            };
            w.span(at, Category::Value, format!("{text} (varint)"));
            Ok(v)
        }
        Kind::Double => {
            expect_wire(w, name, wire, WireType::I64, key_at)?;
            let v = f64::from_le_bytes(w.take(8, name)?.try_into().unwrap_or_default());
            w.span(
                at,
                Category::Value,
                format!("{name}: double {v:?} (8 bytes little-endian)"),
            );
            Ok(Value::Float(v))
        }
        Kind::Str => {
            expect_wire(w, name, wire, WireType::Len, key_at)?;
            let n = length(w, name, end)?;
            w.span(at, Category::Structure, format!("length {n}"));
            let body = w.pos;
            let raw = w.take(n, name)?;
            let s = std::str::from_utf8(raw).map_err(|e| w.err(body + e.valid_up_to(), "invalid UTF-8 in string"))?;
            let s = s.to_string();
            w.span(body, Category::Value, format!("{name}: {}", preview(&s)));
            Ok(Value::Str(s))
        }
        Kind::Message(schema) => {
            expect_wire(w, name, wire, WireType::Len, key_at)?;
            let n = length(w, name, end)?;
            w.span(at, Category::Structure, format!("length {n}: embedded message {name}"));
            w.depth += 1;
            let v = message(w, schema, w.pos + n, level + 1)?;
            w.depth -= 1;
            Ok(v)
        }
    }
}

/// Skips a field the schema does not know, annotating its bytes.
fn skip(w: &mut Walker<'_>, wire: u64, end: usize, key_at: usize) -> Result<(), ExplainError> {
    let at = w.pos;
    match WireType::try_from(wire) {
        Ok(WireType::Varint) => {
            varint(w, "unknown varint")?;
        }
        Ok(WireType::I64) => {
            w.take(8, "unknown 64-bit field")?;
        }
        Ok(WireType::I32) => {
            w.take(4, "unknown 32-bit field")?;
        }
        Ok(WireType::Len) => {
            let n = length(w, "unknown field", end)?;
            w.span(at, Category::Structure, format!("length {n}"));
            let body = w.pos;
            w.take(n, "unknown field")?;
            w.span(body, Category::Value, "unknown field's bytes (skipped)");
            return Ok(());
        }
        _ => return Err(w.err(key_at, format!("wire type {wire} is not supported"))),
    }
    w.span(at, Category::Value, "unknown field's value (skipped)");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_and_varint_are_annotated() {
        // products { id: 300 }
        let bytes = [0x0a, 0x03, 0x08, 0xac, 0x02];
        let (spans, v) = annotate(&bytes).unwrap();
        let got: Vec<(usize, &str)> = spans.iter().map(|s| (s.offset, s.meaning.as_str())).collect();
        assert_eq!(
            got,
            [
                (0, "field 1 (products), wire type 2 = length-delimited"),
                (1, "length 3: embedded message products"),
                (2, "field 1 (id), wire type 0 = varint"),
                (3, "id: int64 300 (varint)"),
            ]
        );
        let c = v.to_catalog().unwrap();
        assert_eq!(c.products[0].id, 300);
    }

    #[test]
    fn errors_point_at_the_first_bad_byte() {
        let e = annotate(&[0x0a, 0xff, 0xff, 0xff, 0xff, 0x07]).unwrap_err();
        assert_eq!(
            e.error.to_string(),
            "products: length 2147483647 exceeds the 0 bytes left at byte 1"
        );
        let e = annotate(&[0x09, 0, 0]).unwrap_err();
        assert_eq!(
            e.error.to_string(),
            "products expects wire type 2 (length-delimited), found 1 at byte 0"
        );
    }
}
