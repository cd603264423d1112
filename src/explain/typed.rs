//! The self-describing formats (JSON, MessagePack) of a user's document:
//! their annotators ([`super::json`], [`super::msgpack`]) read
//! the names and values from the payload; this module reads that tree by the
//! Avro schema, by the rules the schema-driven codecs document
//! ([`crate::generic::json`], [`crate::generic::msgpack`]): record
//! members by their key in any order, an absent field as its default (else
//! `null` in a union with `null`), unions as the bare value of the first
//! branch that accepts it, maps as objects, enums by symbol. What it read is
//! written as plain JSON ([`super::plain`]), which a test compares with the
//! decoders' datum.

use super::plain;
use super::value::Value;
use crate::generic::schema::{Node, NodeId, Schema};
use crate::generic::walk;

/// The plain JSON of `v` read as `schema`'s root; an error names the value
/// by its place in the document.
pub fn read(schema: &Schema, v: &Value) -> Result<String, String> {
    let mut out = String::new();
    value(schema, schema.root(), v, "$", &mut out, 0)?;
    Ok(out)
}

fn found(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Int(_) | Value::UInt(_) | Value::NegZero => "an integer",
        Value::Float(_) => "a float",
        Value::Str(_) => "a string",
        Value::List(_) => "an array",
        Value::Record(_) => "an object",
    }
}

/// Whether `v` is read by `node` (the union rule: the first branch that accepts it).
fn accepts(schema: &Schema, node: NodeId, v: &Value) -> bool {
    match (schema.node(node), v) {
        (Node::Null, Value::Null) | (Node::Boolean, Value::Bool(_)) => true,
        (Node::Int, Value::Int(i)) => i32::try_from(*i).is_ok(),
        (Node::Long, Value::Int(_)) | (Node::Int | Node::Long, Value::NegZero) => true,
        (Node::Float | Node::Double, Value::Int(_) | Value::UInt(_) | Value::Float(_) | Value::NegZero) => true,
        (Node::String | Node::Bytes, Value::Str(_)) => true,
        (Node::Fixed(f), Value::Str(s)) => s.chars().count() == f.size,
        (Node::Enum(e), Value::Str(s)) => symbol(&e.symbols, s).is_some(),
        (Node::Array(_), Value::List(_)) | (Node::Map(_), Value::Record(_)) => true,
        (Node::Record(r), Value::Record(members)) => members.iter().all(|(k, _)| r.fields.iter().any(|f| f.key() == k)),
        _ => false,
    }
}

/// The symbol `s` names: exactly, else ignoring ASCII case when one symbol matches.
fn symbol<'a>(symbols: &'a [std::sync::Arc<str>], s: &'a str) -> Option<&'a str> {
    if symbols.iter().any(|x| &**x == s) {
        return Some(s);
    }
    let mut it = symbols.iter().filter(|x| x.eq_ignore_ascii_case(s));
    match (it.next(), it.next()) {
        (Some(_), None) => Some(s),
        _ => None,
    }
}

fn value(schema: &Schema, node: NodeId, v: &Value, path: &str, out: &mut String, depth: usize) -> Result<(), String> {
    if depth > super::span::MAX_DEPTH {
        return Err(format!("{path}: nesting deeper than the annotators follow"));
    }
    let mismatch = || format!("{path}: expected {}, found {}", schema.describe(node), found(v));
    match (schema.node(node), v) {
        (Node::Null, Value::Null) => out.push_str("null"),
        (Node::Boolean, Value::Bool(b)) => out.push_str(if *b { "true" } else { "false" }),
        (Node::Int, Value::Int(i)) if i32::try_from(*i).is_ok() => out.push_str(&i.to_string()),
        (Node::Long, Value::Int(i)) => out.push_str(&i.to_string()),
        (Node::Int | Node::Long, Value::NegZero) => out.push('0'),
        (Node::Double, Value::NegZero) => plain::double(-0.0, out),
        (Node::Float, Value::NegZero) => plain::float(-0.0, out),
        (Node::Double, Value::Int(i)) => plain::double(*i as f64, out),
        (Node::Double, Value::UInt(u)) => plain::double(*u as f64, out),
        (Node::Double, Value::Float(f)) => plain::double(*f, out),
        (Node::Float, Value::Int(i)) => plain::float(*i as f32, out),
        (Node::Float, Value::UInt(u)) => plain::float(*u as f32, out),
        (Node::Float, Value::Float(f)) if f.is_finite() && (*f as f32).is_finite() => plain::float(*f as f32, out),
        (Node::String, Value::Str(s)) => plain::string(s, out),
        (Node::Bytes | Node::Fixed(_), Value::Str(s)) if accepts(schema, node, v) => plain::string(s, out),
        (Node::Enum(e), Value::Str(s)) => match symbol(&e.symbols, s) {
            Some(sym) => plain::string(sym, out),
            None => return Err(format!("{path}: {s:?} is not a symbol of {}", schema.describe(node))),
        },
        (Node::Union(branches), _) => match branches.iter().find(|&&b| accepts(schema, b, v)) {
            Some(&b) => value(schema, b, v, path, out, depth + 1)?,
            None => return Err(mismatch()),
        },
        (Node::Array(item), Value::List(items)) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                value(schema, *item, x, &format!("{path}[{i}]"), out, depth + 1)?;
            }
            out.push(']');
        }
        (Node::Map(item), Value::Record(entries)) => {
            out.push('{');
            for (i, (k, x)) in entries.iter().enumerate() {
                if entries[..i].iter().any(|(p, _)| p == k) {
                    return Err(format!("{path}: key {k:?} repeated"));
                }
                if i > 0 {
                    out.push(',');
                }
                plain::string(k, out);
                out.push(':');
                value(schema, *item, x, &format!("{path}.{k}"), out, depth + 1)?;
            }
            out.push('}');
        }
        (Node::Record(r), Value::Record(members)) => {
            for (i, (k, _)) in members.iter().enumerate() {
                if !r.fields.iter().any(|f| f.key() == k) {
                    return Err(format!("{path}: {} has no field with key {k:?}", schema.describe(node)));
                }
                if members[..i].iter().any(|(p, _)| p == k) {
                    return Err(format!("{path}: key {k:?} repeated"));
                }
            }
            out.push('{');
            for (i, f) in r.fields.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                plain::string(&f.name, out);
                out.push(':');
                let child = if path == "$" {
                    format!("$.{}", f.key())
                } else {
                    format!("{path}.{}", f.key())
                };
                match members.iter().find(|(k, _)| k == f.key()) {
                    Some((_, x)) => value(schema, f.ty, x, &child, out, depth + 1)?,
                    None => match walk::absent_field(schema, f) {
                        Some(d) => d.write_json(out),
                        None => return Err(format!("{child}: missing (no default, not nullable)")),
                    },
                }
            }
            out.push('}');
        }
        _ => return Err(mismatch()),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCHEMA: &str = r#"{"type":"record","name":"R","fields":[
        {"name":"id","type":"long"},
        {"name":"kind","type":{"type":"enum","name":"K","symbols":["A","B"]}},
        {"name":"score","type":["null","double"]},
        {"name":"tags","type":{"type":"map","values":"int"}},
        {"name":"type_","type":"string","wirebench.key":"type"}]}"#;

    fn check(json: &str, expected: Result<&str, &str>) {
        let schema = Schema::parse(SCHEMA.as_bytes()).unwrap();
        let (_, value) = super::super::json::annotate(json.as_bytes(), true).unwrap();
        match (read(&schema, &value), expected) {
            (Ok(got), Ok(want)) => assert_eq!(got, want, "{json}"),
            (Err(got), Err(want)) => assert!(got.contains(want), "{json}: {got}"),
            (got, want) => panic!("{json}: got {got:?}, expected {want:?}"),
        }
    }

    /// `-0` keeps its sign where the schema reads a double (the decoders
    /// read -0.0) and is 0 where it reads an integer.
    #[test]
    fn minus_zero_is_minus_zero_in_a_double() {
        check(
            r#"{"id":-0,"kind":"A","score":-0,"tags":{"x":-0},"type":""}"#,
            Ok(r#"{"id":0,"kind":"A","score":-0.0,"tags":{"x":0},"type_":""}"#),
        );
        check(
            r#"{"id":0,"kind":"A","score":0,"tags":{},"type":""}"#,
            Ok(r#"{"id":0,"kind":"A","score":0.0,"tags":{},"type_":""}"#),
        );
        let schema = Schema::parse(br#"{"type":"array","items":"double"}"#).unwrap();
        let read_back = |text: &str| {
            let (_, value) = super::super::json::annotate(text.as_bytes(), true).unwrap();
            read(&schema, &value).unwrap()
        };
        assert_eq!(read_back("[-0,-0.0,0]"), "[-0.0,-0.0,0.0]");
        let d = crate::generic::json::decode(&schema, b"[-0,-0.0,0]").unwrap();
        let mut decoded = String::new();
        d.write_json(&mut decoded);
        assert_eq!(read_back("[-0,-0.0,0]"), decoded);
    }

    #[test]
    fn the_tree_is_read_by_the_schema() {
        check(
            r#"{"type":"t","tags":{"x":1},"kind":"b","id":7}"#,
            Ok(r#"{"id":7,"kind":"b","score":null,"tags":{"x":1},"type_":"t"}"#),
        );
        check(
            r#"{"id":-1,"kind":"A","score":2,"tags":{},"type":""}"#,
            Ok(r#"{"id":-1,"kind":"A","score":2.0,"tags":{},"type_":""}"#),
        );
        check(
            r#"{"id":1.5,"kind":"A","tags":{},"type":""}"#,
            Err("$.id: expected long, found a float"),
        );
        check(
            r#"{"id":1,"kind":"C","tags":{},"type":""}"#,
            Err(r#""C" is not a symbol"#),
        );
        check(
            r#"{"id":1,"kind":"A","tags":{},"type":"","x":0}"#,
            Err(r#"no field with key "x""#),
        );
        check(r#"{"id":1,"kind":"A","tags":{}}"#, Err("$.type: missing"));
        check(
            r#"{"id":1,"kind":"A","tags":{"a":1,"a":2},"type":""}"#,
            Err(r#"key "a" repeated"#),
        );
        check(
            r#"{"id":1,"kind":"A","score":"x","tags":{},"type":""}"#,
            Err("$.score: expected union"),
        );
    }
}
