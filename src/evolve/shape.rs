//! JSON and MessagePack against a shape: a reader for either version of the
//! catalog's self-describing formats, and the v2 writers.
//!
//! JSON and MessagePack carry their keys, so a reader only needs to know
//! which keys it wants. The shape is the version's `.avsc` (field names,
//! types, defaults); [`read`] walks the parsed value tree with it:
//!
//! - unknown keys are skipped (in both modes, as the catalog readers do);
//! - a missing key of a nullable field reads as `null` (both modes);
//! - [`Mode::Strict`]: any other missing key is an error;
//! - [`Mode::Tolerant`]: a missing key reads as the field's default (the
//!   schema's `default`, else the type's zero: 0, `""`, `false`, the first
//!   enum symbol, empty list). A key that is present must hold a value of
//!   the field's type: `null` in a field that cannot be null is an error.
//!
//! Enum symbols match case-insensitively (`"active"` is `ACTIVE`). Values
//! must fit their type: an `int` out of the 32-bit range is an error.

use crate::generic::datum::Datum;
use crate::generic::schema::{Node, NodeId, Schema};
use crate::generic::value::json::{JsonValue, Number};

/// How a reader treats missing keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Strict,
    Tolerant,
}

/// Reads a parsed JSON or MessagePack value as an instance of `schema`.
pub fn read(schema: &Schema, v: &JsonValue, mode: Mode) -> Result<Datum, String> {
    node(schema, schema.root(), v, mode, &schema.root_name())
}

fn nullable(schema: &Schema, id: NodeId) -> Option<u32> {
    match schema.node(id) {
        Node::Null => Some(0),
        Node::Union(b) => b
            .iter()
            .position(|&x| matches!(schema.node(x), Node::Null))
            .map(|i| i as u32),
        _ => None,
    }
}

fn null_datum(schema: &Schema, id: NodeId) -> Option<Datum> {
    match schema.node(id) {
        Node::Null => Some(Datum::Null),
        Node::Union(_) => nullable(schema, id).map(|i| Datum::Union(i, Box::new(Datum::Null))),
        _ => None,
    }
}

/// The zero value of a type (tolerant readers' default without a schema
/// default). Nested records and unions past 4 levels read as `null`: the
/// shape reader only ever sees this repository's catalog schemas.
pub fn zero(schema: &Schema, id: NodeId, depth: usize) -> Datum {
    match schema.node(id) {
        Node::Fixed(f) => Datum::Fixed(vec![0; f.size]),
        Node::Union(b) => match b.first() {
            Some(&x) if depth < 4 => Datum::Union(0, Box::new(zero(schema, x, depth + 1))),
            _ => Datum::Null,
        },
        Node::Record(r) if depth < 4 => Datum::Record(
            r.fields
                .iter()
                .map(|f| {
                    (
                        f.name.clone(),
                        f.default.clone().unwrap_or_else(|| zero(schema, f.ty, depth + 1)),
                    )
                })
                .collect(),
        ),
        Node::Record(_) => Datum::Null,
        leaf => crate::generic::walk::zero_leaf(leaf).unwrap_or(Datum::Null),
    }
}

fn node(schema: &Schema, id: NodeId, v: &JsonValue, mode: Mode, path: &str) -> Result<Datum, String> {
    let bad = || format!("{path}: expected {}, found {}", schema.describe(id), v.kind());
    Ok(match (schema.node(id), v) {
        (Node::Null, JsonValue::Null) => Datum::Null,
        (Node::Boolean, JsonValue::Bool(b)) => Datum::Boolean(*b),
        (Node::Int, JsonValue::Number(Number::Int(i))) => {
            Datum::Int(i32::try_from(*i).map_err(|_| format!("{path}: {i} does not fit int (32 bits)"))?)
        }
        (Node::Long, JsonValue::Number(Number::Int(i))) => Datum::Long(*i),
        (Node::Float, JsonValue::Number(n)) => Datum::Float(n.as_f64() as f32),
        (Node::Double, JsonValue::Number(n)) => Datum::Double(n.as_f64()),
        (Node::String, JsonValue::String(s)) => Datum::String(s.clone()),
        (Node::Bytes, JsonValue::String(s)) => Datum::Bytes(s.as_bytes().to_vec()),
        (Node::Enum(e), JsonValue::String(s)) => match e.symbols.iter().position(|x| x.eq_ignore_ascii_case(s)) {
            Some(i) => Datum::Enum(i as u32, e.symbols[i].clone()),
            None => return Err(format!("{path}: unknown {} symbol {s:?}", e.name.short())),
        },
        (Node::Array(items), JsonValue::Array(values)) => Datum::Array(
            values
                .iter()
                .enumerate()
                .map(|(i, x)| node(schema, *items, x, mode, &format!("{path}[{i}]")))
                .collect::<Result<_, _>>()?,
        ),
        (Node::Map(values), JsonValue::Object(members)) => Datum::Map(
            members
                .iter()
                .map(|(k, x)| Ok((k.clone(), node(schema, *values, x, mode, &format!("{path}.{k}"))?)))
                .collect::<Result<_, String>>()?,
        ),
        (Node::Union(branches), _) => {
            if let (JsonValue::Null, Some(d)) = (v, null_datum(schema, id)) {
                return Ok(d);
            }
            let mut last = bad();
            for (i, &b) in branches.iter().enumerate() {
                match node(schema, b, v, mode, path) {
                    Ok(d) => return Ok(Datum::Union(i as u32, Box::new(d))),
                    Err(e) => last = e,
                }
            }
            return Err(last);
        }
        (Node::Record(r), JsonValue::Object(members)) => {
            let mut out = Vec::with_capacity(r.fields.len());
            for f in &r.fields {
                let fpath = format!("{path}.{}", f.name);
                let present = members.iter().find(|(k, _)| **k == *f.name).map(|(_, x)| x);
                let d = match present {
                    Some(x) => node(schema, f.ty, x, mode, &fpath)?,
                    None => match (null_datum(schema, f.ty), mode) {
                        (Some(d), _) => d,
                        (None, Mode::Tolerant) => f.default.clone().unwrap_or_else(|| zero(schema, f.ty, 0)),
                        (None, Mode::Strict) => return Err(format!("{fpath}: missing field `{}`", f.name)),
                    },
                };
                out.push((f.name.clone(), d));
            }
            Datum::record(out)
        }
        _ => return Err(bad()),
    })
}

/// A catalog datum as the self-describing formats spell it: enum symbols in
/// lowercase (`"active"`), unions bare.
pub fn json_text(d: &Datum) -> Vec<u8> {
    lowercase_enums(d).to_json().into_bytes()
}

fn lowercase_enums(d: &Datum) -> Datum {
    match d {
        Datum::Enum(i, s) => Datum::Enum(*i, s.to_ascii_lowercase().into()),
        Datum::Union(i, v) => Datum::Union(*i, Box::new(lowercase_enums(v))),
        Datum::Array(items) => Datum::Array(items.iter().map(lowercase_enums).collect()),
        Datum::Map(m) => Datum::Map(m.iter().map(|(k, v)| (k.clone(), lowercase_enums(v))).collect()),
        Datum::Record(f) => Datum::Record(f.iter().map(|(k, v)| (k.clone(), lowercase_enums(v))).collect()),
        other => other.clone(),
    }
}

/// The MessagePack of a catalog datum, spelled as [`json_text`] spells JSON:
/// records and maps as maps with string keys, integers in their smallest
/// form, doubles as float 64, enums as lowercase strings.
pub fn msgpack_bytes(d: &Datum) -> Result<Vec<u8>, String> {
    use crate::codec::msgpack::write as w;
    fn go(d: &Datum, out: &mut Vec<u8>) -> Result<(), String> {
        let e = |e: crate::codec::EncodeError| e.to_string();
        match d {
            Datum::Null => w::write_nil(out),
            Datum::Boolean(b) => w::write_bool(out, *b),
            Datum::Int(i) => w::write_int(out, i64::from(*i)),
            Datum::Long(i) => w::write_int(out, *i),
            Datum::Float(f) => w::write_f64(out, f64::from(*f)),
            Datum::Double(f) => w::write_f64(out, *f),
            Datum::String(s) => w::write_str(out, s).map_err(e)?,
            Datum::Enum(_, s) => w::write_str(out, &s.to_ascii_lowercase()).map_err(e)?,
            Datum::Bytes(b) | Datum::Fixed(b) => {
                let s: String = b.iter().map(|&x| char::from(x)).collect();
                w::write_str(out, &s).map_err(e)?
            }
            Datum::Union(_, v) => go(v, out)?,
            Datum::Scalars(items) => go(&Datum::Array(items.to_datums()), out)?,
            Datum::Array(items) => {
                w::write_array_len(out, items.len(), "array").map_err(e)?;
                for i in items {
                    go(i, out)?;
                }
            }
            Datum::Map(m) => pairs(m.iter().map(|(k, v)| (k.as_str(), v)), m.len(), out)?,
            Datum::Record(m) => pairs(m.iter().map(|(k, v)| (&**k, v)), m.len(), out)?,
        }
        Ok(())
    }
    fn pairs<'a>(m: impl Iterator<Item = (&'a str, &'a Datum)>, len: usize, out: &mut Vec<u8>) -> Result<(), String> {
        w::write_map_len(out, len, "map").map_err(|e| e.to_string())?;
        for (k, v) in m {
            w::write_str(out, k).map_err(|e| e.to_string())?;
            go(v, out)?;
        }
        Ok(())
    }
    let mut out = Vec::new();
    go(d, &mut out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::Format;

    #[test]
    fn v1_bytes_of_both_formats_read_as_the_catalog_datum() {
        let c = crate::fixtures::catalog(3);
        let want = crate::evolve::catalog_datum(&c).unwrap();
        let s = crate::evolve::v1_schema();
        let json = crate::generic::value::json::parse(&Format::Json.encode_to_vec(&c.products).unwrap()).unwrap();
        let mp = crate::generic::value::msgpack::parse(&Format::Msgpack.encode_to_vec(&c.products).unwrap()).unwrap();
        for mode in [Mode::Strict, Mode::Tolerant] {
            assert_eq!(read(&s, &json, mode).unwrap(), want);
            assert_eq!(read(&s, &mp, mode).unwrap(), want);
        }
        // And the writers produce what the production decoders read.
        assert_eq!(Format::Json.decode(&json_text(&want)).unwrap(), c);
        assert_eq!(Format::Msgpack.decode(&msgpack_bytes(&want).unwrap()).unwrap(), c);
    }

    #[test]
    fn strict_refuses_missing_keys_tolerant_defaults_them() {
        let s = Schema::parse(
            br#"{"type":"record","name":"R","fields":[{"name":"a","type":"int"},{"name":"b","type":"string","default":"d"},{"name":"n","type":["null","int"]}]}"#,
        )
        .unwrap();
        let v = crate::generic::value::json::parse(br#"{"x":1}"#).unwrap();
        assert_eq!(read(&s, &v, Mode::Strict).unwrap_err(), "R.a: missing field `a`");
        assert_eq!(
            read(&s, &v, Mode::Tolerant).unwrap().to_json(),
            r#"{"a":0,"b":"d","n":null}"#
        );
        let big = crate::generic::value::json::parse(br#"{"a":5000000000,"b":"","n":1}"#).unwrap();
        assert_eq!(
            read(&s, &big, Mode::Tolerant).unwrap_err(),
            "R.a: 5000000000 does not fit int (32 bits)"
        );
    }
}
