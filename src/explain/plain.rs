//! Plain JSON as the data annotators write what they read: the spelling of
//! [`Datum::write_json`] (record fields under their schema names, unions
//! bare, enums as their symbol, bytes as code points 0–255, floats as their
//! shortest round-trip digits, NaN and infinities as strings), so the
//! annotators' reading and the schema-driven decoders' compare as text. The
//! scalars are spelled by `write_json` itself, through one-value datums; the
//! annotators build no tree of them. [`absent`] spells what a Protobuf or
//! FlatBuffers field that is not written reads as.

use super::span::MAX_DEPTH;
use crate::generic::datum::Datum;
use crate::generic::schema::{Node, NodeId, Schema};

pub fn string(s: &str, out: &mut String) {
    Datum::String(s.to_string()).write_json(out);
}

pub fn bytes(b: &[u8], out: &mut String) {
    Datum::Bytes(b.to_vec()).write_json(out);
}

pub fn double(v: f64, out: &mut String) {
    Datum::Double(v).write_json(out);
}

pub fn float(v: f32, out: &mut String) {
    Datum::Float(v).write_json(out);
}

/// The JSON of a value of type `ty` that is not written (Protobuf, FlatBuffers):
/// false, 0, "", the first symbol, [], {}, the record of absent fields, null
/// for a union with a null branch. Errors for a `fixed` of nonzero size and a
/// union without null, which have no default.
pub fn absent(s: &Schema, ty: NodeId, path: &str, out: &mut String, depth: usize) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!("{path}: nesting deeper than {MAX_DEPTH} levels"));
    }
    match s.node(ty) {
        Node::Null => out.push_str("null"),
        Node::Boolean => out.push_str("false"),
        Node::Int | Node::Long => out.push('0'),
        Node::Float => float(0.0, out),
        Node::Double => double(0.0, out),
        Node::String | Node::Bytes => out.push_str("\"\""),
        Node::Fixed(f) if f.size == 0 => out.push_str("\"\""),
        Node::Fixed(f) => return Err(format!("{path}: absent, but {} needs {} bytes", s.describe(ty), f.size)),
        Node::Enum(e) => string(e.symbols.first().map_or("", |x| &**x), out),
        Node::Record(rec) => {
            out.push('{');
            for (i, f) in rec.fields.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                string(&f.name, out);
                out.push(':');
                absent(s, f.ty, &format!("{path}.{}", f.name), out, depth + 1)?;
            }
            out.push('}');
        }
        Node::Array(_) => out.push_str("[]"),
        Node::Map(_) => out.push_str("{}"),
        Node::Union(branches) => {
            if branches.iter().any(|&b| matches!(s.node(b), Node::Null)) {
                out.push_str("null");
            } else {
                return Err(format!("{path}: absent, but {} has no null branch", s.describe(ty)));
            }
        }
    }
    Ok(())
}
