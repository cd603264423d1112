//! A generic Avro datum (any schema's value), its plain-JSON rendering and a
//! schema-driven binary writer.
//!
//! The JSON follows the Avro specification's "JSON Encoding" section for
//! `bytes` and `fixed` (a string whose code points 0–255 are the bytes) and
//! enums (the symbol), but prints a union's value bare instead of wrapping it
//! in `{"type": value}`: the output is for people and `jq`, not for an Avro
//! JSON decoder. Floats that JSON cannot express print as the strings
//! `"NaN"`, `"Infinity"` and `"-Infinity"`.

use super::schema::{Node, NodeId, Schema};
use crate::codec::json::write_f64;
use crate::codec::varint;
use std::fmt;

/// One value of some Avro schema. Records and maps keep their order.
#[derive(Clone, Debug, PartialEq)]
pub enum Datum {
    Null,
    Boolean(bool),
    Int(i32),
    Long(i64),
    Float(f32),
    Double(f64),
    Bytes(Vec<u8>),
    String(String),
    Fixed(Vec<u8>),
    /// Index into the schema's symbols, and the symbol.
    Enum(u32, String),
    /// Branch index in the schema's union, and the branch's value.
    Union(u32, Box<Datum>),
    Array(Vec<Datum>),
    Map(Vec<(String, Datum)>),
    /// Fields in the schema's order.
    Record(Vec<(String, Datum)>),
}

impl Datum {
    /// The field `name` of a record.
    pub fn field(&self, name: &str) -> Option<&Datum> {
        match self {
            Datum::Record(fields) => fields.iter().find(|(n, _)| n == name).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The value with every union wrapper removed (a union's value is bare).
    pub fn unwrapped(&self) -> &Datum {
        let mut d = self;
        while let Datum::Union(_, inner) = d {
            d = inner;
        }
        d
    }

    /// Appends the plain JSON of this datum to `out` (see the module doc).
    pub fn write_json(&self, out: &mut String) {
        match self {
            Datum::Null => out.push_str("null"),
            Datum::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
            Datum::Int(i) => out.push_str(&i.to_string()),
            Datum::Long(i) => out.push_str(&i.to_string()),
            Datum::Float(f) => float_json(f64::from(*f), Some(*f), out),
            Datum::Double(f) => float_json(*f, None, out),
            Datum::Bytes(b) | Datum::Fixed(b) => {
                let s: String = b.iter().map(|&byte| char::from(byte)).collect();
                string_json(&s, out);
            }
            Datum::String(s) | Datum::Enum(_, s) => string_json(s, out),
            Datum::Union(_, v) => v.write_json(out),
            Datum::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write_json(out);
                }
                out.push(']');
            }
            Datum::Map(entries) | Datum::Record(entries) => {
                out.push('{');
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    string_json(k, out);
                    out.push(':');
                    v.write_json(out);
                }
                out.push('}');
            }
        }
    }

    /// The plain JSON as a fresh string.
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        self.write_json(&mut out);
        out
    }
}

impl fmt::Display for Datum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_json())
    }
}

fn float_json(v: f64, single: Option<f32>, out: &mut String) {
    if v.is_nan() {
        out.push_str("\"NaN\"");
    } else if v.is_infinite() {
        out.push_str(if v > 0.0 { "\"Infinity\"" } else { "\"-Infinity\"" });
    } else if let Some(f) = single {
        // The shortest digits that read back to the same f32.
        let s = f.to_string();
        out.push_str(&s);
        if !s.contains(['.', 'e']) {
            out.push_str(".0");
        }
    } else {
        let mut buf = Vec::new();
        write_f64(v, &mut buf);
        out.push_str(&String::from_utf8_lossy(&buf));
    }
}

fn string_json(s: &str, out: &mut String) {
    let mut buf = Vec::with_capacity(s.len() + 2);
    crate::codec::json::write_str(s, &mut buf);
    out.push_str(&String::from_utf8_lossy(&buf));
}

/// Why a datum could not be written with a schema.
#[derive(Clone, Debug, PartialEq)]
pub struct WriteError {
    /// Where in the datum, e.g. `Catalog.products[0].stock`.
    pub path: String,
    pub message: String,
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

impl std::error::Error for WriteError {}

/// Appends the Avro binary encoding ("Binary Encoding" section) of `datum`
/// as an instance of `schema`'s root type. Arrays and maps are written as one
/// positive-count block each.
pub fn write(schema: &Schema, datum: &Datum, out: &mut Vec<u8>) -> Result<(), WriteError> {
    write_node(schema, schema.root(), datum, out, &mut schema.root_name())
}

fn mismatch(path: &str, schema: &Schema, node: NodeId, datum: &Datum) -> WriteError {
    WriteError {
        path: path.to_string(),
        message: format!(
            "a {} datum does not fit schema type {}",
            datum_kind(datum),
            schema.describe(node)
        ),
    }
}

fn datum_kind(d: &Datum) -> &'static str {
    match d {
        Datum::Null => "null",
        Datum::Boolean(_) => "boolean",
        Datum::Int(_) => "int",
        Datum::Long(_) => "long",
        Datum::Float(_) => "float",
        Datum::Double(_) => "double",
        Datum::Bytes(_) => "bytes",
        Datum::String(_) => "string",
        Datum::Fixed(_) => "fixed",
        Datum::Enum(..) => "enum",
        Datum::Union(..) => "union",
        Datum::Array(_) => "array",
        Datum::Map(_) => "map",
        Datum::Record(_) => "record",
    }
}

fn write_len(out: &mut Vec<u8>, n: usize) {
    varint::write_i64_zigzag(out, n as i64);
}

fn write_node(
    schema: &Schema,
    node: NodeId,
    datum: &Datum,
    out: &mut Vec<u8>,
    path: &mut String,
) -> Result<(), WriteError> {
    match (schema.node(node), datum) {
        (Node::Null, Datum::Null) => {}
        (Node::Boolean, Datum::Boolean(b)) => out.push(u8::from(*b)),
        (Node::Int, Datum::Int(i)) => varint::write_i64_zigzag(out, i64::from(*i)),
        (Node::Long, Datum::Long(i)) => varint::write_i64_zigzag(out, *i),
        (Node::Float, Datum::Float(f)) => out.extend_from_slice(&f.to_le_bytes()),
        (Node::Double, Datum::Double(f)) => out.extend_from_slice(&f.to_le_bytes()),
        (Node::Bytes, Datum::Bytes(b)) => {
            write_len(out, b.len());
            out.extend_from_slice(b);
        }
        (Node::String, Datum::String(s)) => {
            write_len(out, s.len());
            out.extend_from_slice(s.as_bytes());
        }
        (Node::Fixed(f), Datum::Fixed(b)) if b.len() == f.size => out.extend_from_slice(b),
        (Node::Enum(e), Datum::Enum(_, symbol)) => match e.symbols.iter().position(|s| s == symbol) {
            Some(i) => varint::write_i64_zigzag(out, i as i64),
            None => {
                return Err(WriteError {
                    path: path.clone(),
                    message: format!("symbol {symbol:?} is not in enum {}", e.name.fullname),
                });
            }
        },
        (Node::Union(branches), Datum::Union(i, inner)) if (*i as usize) < branches.len() => {
            varint::write_i64_zigzag(out, i64::from(*i));
            write_node(schema, branches[*i as usize], inner, out, path)?;
        }
        (Node::Array(items), Datum::Array(values)) => {
            if !values.is_empty() {
                write_len(out, values.len());
                for (i, v) in values.iter().enumerate() {
                    let len = path.len();
                    path.push_str(&format!("[{i}]"));
                    write_node(schema, *items, v, out, path)?;
                    path.truncate(len);
                }
            }
            out.push(0);
        }
        (Node::Map(values), Datum::Map(entries)) => {
            if !entries.is_empty() {
                write_len(out, entries.len());
                for (k, v) in entries {
                    write_len(out, k.len());
                    out.extend_from_slice(k.as_bytes());
                    let len = path.len();
                    path.push_str(&format!("[{k:?}]"));
                    write_node(schema, *values, v, out, path)?;
                    path.truncate(len);
                }
            }
            out.push(0);
        }
        (Node::Record(r), Datum::Record(fields)) => {
            for f in &r.fields {
                let len = path.len();
                path.push('.');
                path.push_str(&f.name);
                let value = fields.iter().find(|(n, _)| *n == f.name).map(|(_, v)| v);
                match value {
                    Some(v) => write_node(schema, f.ty, v, out, path)?,
                    None => {
                        return Err(WriteError {
                            path: path.clone(),
                            message: "the datum has no such field".to_string(),
                        });
                    }
                }
                path.truncate(len);
            }
        }
        _ => return Err(mismatch(path, schema, node, datum)),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_plain() {
        let d = Datum::Record(vec![
            ("u".into(), Datum::Union(1, Box::new(Datum::Long(-3)))),
            ("b".into(), Datum::Bytes(vec![0, 0x41, 0xff])),
            ("e".into(), Datum::Enum(2, "C".into())),
            ("f".into(), Datum::Float(0.1)),
            ("d".into(), Datum::Double(1e20)),
            ("n".into(), Datum::Double(f64::NAN)),
            (
                "m".into(),
                Datum::Map(vec![("k\"".into(), Datum::Array(vec![Datum::Null]))]),
            ),
        ]);
        assert_eq!(
            d.to_json(),
            r#"{"u":-3,"b":"\u0000Aÿ","e":"C","f":0.1,"d":1e+20,"n":"NaN","m":{"k\"":[null]}}"#
        );
    }
}
