//! The Avro binary writer for a generic [`Datum`]: any schema, following
//! the Avro specification's "Binary Encoding" section. Used to write the
//! evolution steps' v2 payloads and by tests; the catalog's own encoder is
//! the handwritten `write.rs`.

use super::datum::Datum;
use super::schema::{Node, NodeId, Schema};
use crate::codec::varint;
use std::fmt;

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

pub(crate) fn datum_kind(d: &Datum) -> &'static str {
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
