//! A generic Avro datum (any schema's value) and its plain-JSON rendering.
//!
//! The JSON follows the Avro specification's "JSON Encoding" section for
//! `bytes` and `fixed` (a string whose code points 0–255 are the bytes) and
//! enums (the symbol), but prints a union's value bare instead of wrapping it
//! in `{"type": value}`: the output is for people and `jq`, not for an Avro
//! JSON decoder. Floats that JSON cannot express print as the strings
//! `"NaN"`, `"Infinity"` and `"-Infinity"`.

use crate::codec::json::write_f64;
use std::fmt;
use std::sync::Arc;

/// A record field's name or an enum's symbol: shared with the schema
/// ([`super::schema::Field::name`], [`super::schema::EnumType::symbols`]),
/// so a decoder clones a pointer per field instead of allocating a string.
/// `"name".into()` makes one.
pub type Name = Arc<str>;

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
    Enum(u32, Name),
    /// Branch index in the schema's union, and the branch's value.
    Union(u32, Box<Datum>),
    Array(Vec<Datum>),
    Map(Vec<(String, Datum)>),
    /// Fields in the schema's order, named by the schema's own names.
    Record(Vec<(Name, Datum)>),
}

impl Datum {
    /// The field `name` of a record.
    pub fn field(&self, name: &str) -> Option<&Datum> {
        match self {
            Datum::Record(fields) => fields.iter().find(|(n, _)| &**n == name).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The variant's name, for "found" in errors.
    pub fn kind(&self) -> &'static str {
        match self {
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
            Datum::String(s) => string_json(s, out),
            Datum::Enum(_, s) => string_json(s, out),
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
            Datum::Map(entries) => object_json(entries.iter().map(|(k, v)| (&**k, v)), out),
            Datum::Record(fields) => object_json(fields.iter().map(|(k, v)| (&**k, v)), out),
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
        write_f64(&mut buf, v);
        out.push_str(&String::from_utf8_lossy(&buf));
    }
}

fn object_json<'a>(entries: impl Iterator<Item = (&'a str, &'a Datum)>, out: &mut String) {
    out.push('{');
    for (i, (k, v)) in entries.enumerate() {
        if i > 0 {
            out.push(',');
        }
        string_json(k, out);
        out.push(':');
        v.write_json(out);
    }
    out.push('}');
}

fn string_json(s: &str, out: &mut String) {
    let mut buf = Vec::with_capacity(s.len() + 2);
    crate::codec::json::write_str(&mut buf, s);
    out.push_str(&String::from_utf8_lossy(&buf));
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
