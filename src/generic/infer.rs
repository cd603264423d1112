//! An Avro schema inferred from one JSON document (`wirebench schema infer`).
//!
//! Every value at the same place in the document (the same key of the same
//! record, the items of one array, the values of one map) merges into one
//! type. The rules (docs/DATA.md, "Inference"):
//!
//! - numbers: `int` when every value is an integer literal within 32 bits,
//!   `long` within 64 bits, `double` when any has a fraction or exponent
//!   (integers and decimals mixed in one place are `double`); an integer
//!   literal beyond 64 bits or a number beyond `double` is an error;
//! - objects become records, fields in first-seen order, **unless their keys
//!   are data**: a place becomes a `map` when its objects have more than
//!   [`MAX_RECORD_FIELDS`] distinct keys, or when every key is an integer
//!   (`"1"`, `"-7"`, ids); map values merge into one type; a place where
//!   every object is `{}` is a map of `string`, with a warning;
//! - a field is `["null", T]` (with `"default": null`) only where it is
//!   `null` or missing in some object; otherwise it is `T`;
//! - a place holding values of more than one JSON kind is a union, one
//!   branch per kind, `null` first: null, boolean, number, string, array,
//!   object;
//! - an array whose items are never seen (every array at that place is
//!   empty) has `string` items, with a warning;
//! - names: a key that is not a valid name in Avro, `.proto` and `.fbs`
//!   (`[A-Za-z_][A-Za-z0-9_]*`, not a keyword of either) is renamed: every
//!   other character becomes `_`, a leading digit gets a `_` before it, a
//!   keyword gets a `_` after it; the field keeps the original key in its
//!   `"wirebench.key"` attribute, so documents still read, and the mapping is
//!   returned for printing. Two keys of one record that rename to one name
//!   are an error. Record names are the key in PascalCase (`Item` appended
//!   for array items), numbered when taken (`User2`); the root is `Root`.
//!
//! The document is read with its own bounded reader: nesting beyond
//! [`MAX_DEPTH`] is an error, and every error carries the JSON Pointer and
//! byte offset.

use super::error::{GenericError, GenericErrorKind, decoded, nest, nest_index};
use super::walk::MAX_DEPTH;
use crate::codec::json::lexer::{Lexer, Str, describe};
use std::collections::{HashMap, HashSet};

/// Most distinct keys objects at one place may have and still be a record.
pub const MAX_RECORD_FIELDS: usize = 64;

/// Words an inferred name may not be, compared ignoring case: the names no
/// derived type may take ([`super::derive::RESERVED_TYPE_NAMES`]: protoc and
/// flatc keywords and scalar type names), and these (proto3's contextual
/// keywords and Avro's type names).
const RESERVED_EXTRA: &[&str] = &[
    "to", "max", "weak", "public", "boolean", "record", "array", "fixed", "error", "type",
];

fn reserved(name: &str) -> bool {
    super::derive::RESERVED_TYPE_NAMES
        .split(' ')
        .chain(RESERVED_EXTRA.iter().copied())
        .any(|r| r.eq_ignore_ascii_case(name))
}

/// The inferred schema and what the reader should know about it.
#[derive(Debug)]
pub struct Inferred {
    /// The `.avsc` text (pretty-printed JSON).
    pub schema: String,
    /// Assumptions made where the document says nothing (empty arrays, `{}`).
    pub warnings: Vec<String>,
    /// Keys renamed to valid names: (pointer of the record, key, name).
    pub renames: Vec<(String, String, String)>,
}

/// Infers the Avro schema of a JSON document (see the module doc).
pub fn infer(text: &[u8]) -> Result<Inferred, GenericError> {
    let value = parse(text)?;
    let mut shape = Shape::default();
    shape.add(&value);
    let mut e = Emitter {
        names: HashSet::new(),
        warnings: Vec::new(),
        renames: Vec::new(),
    };
    let root = e.emit(&shape, "Root", "")?;
    let mut schema = String::new();
    pretty(&root, 0, &mut schema);
    schema.push('\n');
    Ok(Inferred {
        schema,
        warnings: e.warnings,
        renames: e.renames,
    })
}

/// A JSON value as inference needs it.
#[derive(Debug)]
enum Value {
    Null,
    Bool,
    Int(i64),
    Float,
    String,
    Array(Vec<Value>),
    Object(Vec<(String, Value)>),
}

/// Reads any JSON text, bounded, numbers checked against `long`/`double`.
fn parse(text: &[u8]) -> Result<Value, GenericError> {
    let text = std::str::from_utf8(text).map_err(|e| GenericError::invalid_utf8(e.valid_up_to()))?;
    let mut lx = Lexer::new(text);
    let v = any(&mut lx, 0)?;
    lx.skip_ws();
    if lx.pos < text.len() {
        return Err(GenericError::trailing(lx.pos, text.len() - lx.pos));
    }
    Ok(v)
}

fn any(lx: &mut Lexer<'_>, depth: usize) -> Result<Value, GenericError> {
    let at = lx.peek().map(|_| lx.pos).unwrap_or(lx.pos);
    let deeper = || GenericError::depth_limit(MAX_DEPTH, Some(at));
    match lx.peek() {
        Some(b'{') => {
            if depth >= MAX_DEPTH {
                return Err(deeper());
            }
            lx.pos += 1;
            let mut members: Vec<(String, Value)> = Vec::new();
            // Keys seen, for the duplicate check once an object is large
            // (a scan of `members` below that).
            let mut seen: Option<std::collections::HashSet<String>> = None;
            let mut first = true;
            while decoded(lx.next_member(&mut first))? {
                let key_at = lx.pos;
                let key = match decoded(lx.string("object key"))? {
                    Str::Raw(s) => s.to_string(),
                    Str::Escaped => lx.scratch.clone(),
                };
                // A document with a repeated key is refused here as the
                // reader refuses it, so a schema is never inferred from a
                // document it cannot read.
                let repeated = match &mut seen {
                    Some(set) => !set.insert(key.clone()),
                    None if members.len() >= 16 => {
                        let mut set: std::collections::HashSet<String> =
                            members.iter().map(|(k, _)| k.clone()).collect();
                        let repeated = !set.insert(key.clone());
                        seen = Some(set);
                        repeated
                    }
                    None => members.iter().any(|(k, _)| *k == key),
                };
                if repeated {
                    return Err(GenericError::duplicate(key, key_at));
                }
                decoded(lx.expect(b':', "':' after object key"))?;
                let v = any(lx, depth + 1).map_err(|e| nest(e, &key))?;
                members.push((key, v));
            }
            Ok(Value::Object(members))
        }
        Some(b'[') => {
            if depth >= MAX_DEPTH {
                return Err(deeper());
            }
            lx.pos += 1;
            let mut items = Vec::new();
            let mut first = true;
            while decoded(lx.next_element(&mut first))? {
                let i = items.len();
                items.push(any(lx, depth + 1).map_err(|e| nest_index(e, i))?);
            }
            Ok(Value::Array(items))
        }
        Some(b'"') => {
            decoded(lx.string("string"))?;
            Ok(Value::String)
        }
        Some(b't' | b'f') => {
            decoded(lx.boolean("true or false"))?;
            Ok(Value::Bool)
        }
        Some(b'n') if lx.null() => Ok(Value::Null),
        Some(b'-' | b'0'..=b'9') => {
            let (s, e, integer) = decoded(lx.number_token("number"))?;
            if let Some(b'0'..=b'9') = lx.bytes.get(e) {
                return Err(GenericError::unexpected(
                    "",
                    Some(e),
                    "end of number (JSON forbids leading zeros)",
                    describe(lx.bytes[e]),
                ));
            }
            lx.pos = e;
            let t = &lx.text[s..e];
            let range = |what: &str| GenericError::out_of_range(Some(s), what, t);
            if integer {
                t.parse::<i64>().map(Value::Int).map_err(|_| range("long"))
            } else {
                match t.parse::<f64>() {
                    Ok(v) if v.is_finite() => Ok(Value::Float),
                    _ => Err(range("double")),
                }
            }
        }
        Some(b) => Err(GenericError::unexpected("", Some(at), "a JSON value", describe(b))),
        None => Err(GenericError::at(
            "",
            at,
            GenericErrorKind::Eof {
                expected: "a JSON value".into(),
            },
        )),
    }
}

/// Every kind of value seen at one place, merged.
#[derive(Default, Debug)]
struct Shape {
    null: bool,
    boolean: bool,
    number: Option<Numbers>,
    string: bool,
    /// Items of every array here; `None` inside when no item was ever seen.
    array: Option<Option<Box<Shape>>>,
    object: Option<Objects>,
}

#[derive(Clone, Copy, Debug)]
struct Numbers {
    integers_only: bool,
    min: i64,
    max: i64,
}

impl Numbers {
    /// Adds `n` to what `into` saw.
    fn merge(into: &mut Option<Numbers>, n: Numbers) {
        match into {
            Some(m) => {
                m.integers_only &= n.integers_only;
                m.min = m.min.min(n.min);
                m.max = m.max.max(n.max);
            }
            None => *into = Some(n),
        }
    }
}

#[derive(Default, Debug)]
struct Objects {
    /// How many objects merged here.
    count: usize,
    /// Keys in first-seen order with their values' shape and how many
    /// objects had them.
    fields: Vec<(String, Shape, usize)>,
    index: HashMap<String, usize>,
}

impl Objects {
    /// The entry of key `k`, added (unseen, in no object yet) if new.
    fn field(&mut self, k: &str) -> &mut (String, Shape, usize) {
        let i = match self.index.get(k) {
            Some(&i) => i,
            None => {
                self.fields.push((k.to_string(), Shape::default(), 0));
                self.index.insert(k.to_string(), self.fields.len() - 1);
                self.fields.len() - 1
            }
        };
        &mut self.fields[i]
    }
}

impl Shape {
    fn add(&mut self, v: &Value) {
        match v {
            Value::Null => self.null = true,
            Value::Bool => self.boolean = true,
            Value::String => self.string = true,
            Value::Int(i) => Numbers::merge(
                &mut self.number,
                Numbers {
                    integers_only: true,
                    min: *i,
                    max: *i,
                },
            ),
            Value::Float => Numbers::merge(
                &mut self.number,
                Numbers {
                    integers_only: false,
                    min: 0,
                    max: 0,
                },
            ),
            Value::Array(items) => {
                let slot = self.array.get_or_insert(None);
                for item in items {
                    slot.get_or_insert_with(Box::default).add(item);
                }
            }
            Value::Object(members) => {
                let o = self.object.get_or_insert_with(Objects::default);
                o.count += 1;
                for (k, v) in members {
                    let f = o.field(k);
                    f.1.add(v);
                    f.2 += 1;
                }
            }
        }
    }
}

/// The `.avsc` JSON being built.
enum J {
    Str(String),
    Null,
    Array(Vec<J>),
    Object(Vec<(&'static str, J)>),
}

fn s(x: &str) -> J {
    J::Str(x.to_string())
}

struct Emitter {
    names: HashSet<String>,
    warnings: Vec<String>,
    renames: Vec<(String, String, String)>,
}

fn shown(pointer: &str) -> &str {
    if pointer.is_empty() { "(root)" } else { pointer }
}

impl Emitter {
    /// The Avro type of `shape` at `pointer`, named after `name` if a record.
    fn emit(&mut self, shape: &Shape, name: &str, pointer: &str) -> Result<J, GenericError> {
        let mut branches = Vec::new();
        if shape.null {
            branches.push(s("null"));
        }
        if shape.boolean {
            branches.push(s("boolean"));
        }
        if let Some(n) = &shape.number {
            branches.push(s(if !n.integers_only {
                "double"
            } else if i32::try_from(n.min).is_ok() && i32::try_from(n.max).is_ok() {
                "int"
            } else {
                "long"
            }));
        }
        if shape.string {
            branches.push(s("string"));
        }
        if let Some(items) = &shape.array {
            let items = match items {
                Some(items) => self.emit(items, &format!("{name}Item"), &format!("{pointer}/*"))?,
                None => {
                    self.warnings.push(format!(
                        "{}: every array here is empty; items assumed \"string\"",
                        shown(pointer)
                    ));
                    s("string")
                }
            };
            branches.push(J::Object(vec![("type", s("array")), ("items", items)]));
        }
        if let Some(o) = &shape.object {
            branches.push(self.object(o, name, pointer)?);
        }
        Ok(match branches.len() {
            // Nothing but nothing: a place that never held a value.
            0 => s("null"),
            1 => branches.pop().unwrap_or(J::Null),
            _ => J::Array(branches),
        })
    }

    fn object(&mut self, o: &Objects, name: &str, pointer: &str) -> Result<J, GenericError> {
        let keys_are_data = o.fields.len() > MAX_RECORD_FIELDS
            || (!o.fields.is_empty() && o.fields.iter().all(|(k, _, _)| is_integer(k)));
        if o.fields.is_empty() || keys_are_data {
            let mut merged = Shape::default();
            for (_, shape, _) in &o.fields {
                merge(&mut merged, shape);
            }
            let values = if o.fields.is_empty() {
                self.warnings.push(format!(
                    "{}: every object here is empty; a map of \"string\" assumed",
                    shown(pointer)
                ));
                s("string")
            } else {
                self.emit(&merged, &format!("{name}Value"), &format!("{pointer}/*"))?
            };
            return Ok(J::Object(vec![("type", s("map")), ("values", values)]));
        }
        let record_name = self.record_name(name);
        let mut taken: HashMap<String, &str> = HashMap::new();
        let mut fields = Vec::new();
        for (key, shape, present) in &o.fields {
            let fname = field_name(key);
            if let Some(other) = taken.insert(fname.clone(), key) {
                return Err(GenericError::new(
                    pointer,
                    None,
                    GenericErrorKind::Unsupported {
                        what: format!("keys {other:?} and {key:?} both rename to the field name {fname:?}"),
                    },
                ));
            }
            let mut child = String::from(pointer);
            super::error::push_token(&mut child, key);
            let mut ty = self.emit(shape, &pascal(key), &child)?;
            let nullable = *present < o.count || shape.null;
            if nullable && !shape.null {
                ty = match ty {
                    // A type in array form is already a union.
                    J::Array(mut b) => {
                        b.insert(0, s("null"));
                        J::Array(b)
                    }
                    other => J::Array(vec![s("null"), other]),
                };
            }
            let mut f = vec![("name", J::Str(fname.clone())), ("type", ty)];
            if nullable {
                f.push(("default", J::Null));
            }
            if fname != *key {
                self.renames
                    .push((shown(pointer).to_string(), key.clone(), fname.clone()));
                f.push(("wirebench.key", J::Str(key.clone())));
            }
            fields.push(J::Object(f));
        }
        Ok(J::Object(vec![
            ("type", s("record")),
            ("name", J::Str(record_name)),
            ("fields", J::Array(fields)),
        ]))
    }

    fn record_name(&mut self, base: &str) -> String {
        let mut name = base.to_string();
        let mut n = 2;
        while reserved(&name) || !self.names.insert(name.clone()) {
            name = format!("{base}{n}");
            n += 1;
        }
        name
    }
}

/// Adds everything `from` saw into `into`.
fn merge(into: &mut Shape, from: &Shape) {
    into.null |= from.null;
    into.boolean |= from.boolean;
    into.string |= from.string;
    if let Some(n) = from.number {
        Numbers::merge(&mut into.number, n);
    }
    if let Some(items) = &from.array {
        let slot = into.array.get_or_insert(None);
        if let Some(items) = items {
            merge(slot.get_or_insert_with(Box::default), items);
        }
    }
    if let Some(o) = &from.object {
        let into_o = into.object.get_or_insert_with(Objects::default);
        into_o.count += o.count;
        for (k, shape, present) in &o.fields {
            let f = into_o.field(k);
            merge(&mut f.1, shape);
            f.2 += present;
        }
    }
}

/// `"123"`, `"-7"`: a key that is an integer.
fn is_integer(k: &str) -> bool {
    let digits = k.strip_prefix('-').unwrap_or(k);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// The valid field name for a key (see the module doc).
pub fn field_name(key: &str) -> String {
    let mut out: String = key
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' })
        .collect();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    if reserved(&out) {
        out.push('_');
    }
    out
}

/// `user_mentions` → `UserMentions`; a valid type name in every language.
fn pascal(key: &str) -> String {
    let mut out = String::new();
    for part in key.split(|c: char| !c.is_ascii_alphanumeric()) {
        let mut chars = part.chars();
        if let Some(c) = chars.next() {
            out.push(c.to_ascii_uppercase());
            out.extend(chars);
        }
    }
    if out.is_empty() {
        out.push_str("Record");
    } else if out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'R');
    }
    out
}

/// JSON with two-space indentation; arrays of strings and objects of
/// scalars on one line.
fn pretty(j: &J, indent: usize, out: &mut String) {
    let pad = |n: usize, out: &mut String| out.extend(std::iter::repeat_n(' ', n));
    match j {
        J::Null => out.push_str("null"),
        J::Str(x) => {
            let mut b = Vec::new();
            crate::codec::json::write_str(&mut b, x);
            out.push_str(&String::from_utf8_lossy(&b));
        }
        J::Array(items) if items.iter().all(|i| matches!(i, J::Str(_))) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                pretty(item, indent, out);
            }
            out.push(']');
        }
        J::Array(items) => {
            out.push_str("[\n");
            for (i, item) in items.iter().enumerate() {
                pad(indent + 2, out);
                pretty(item, indent + 2, out);
                out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
            }
            pad(indent, out);
            out.push(']');
        }
        J::Object(members) if members.iter().all(|(_, v)| matches!(v, J::Str(_) | J::Null)) => {
            out.push('{');
            for (i, (k, v)) in members.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                pretty(&J::Str((*k).to_string()), 0, out);
                out.push_str(": ");
                pretty(v, indent, out);
            }
            out.push('}');
        }
        J::Object(members) => {
            out.push_str("{\n");
            for (i, (k, v)) in members.iter().enumerate() {
                pad(indent + 2, out);
                pretty(&J::Str((*k).to_string()), 0, out);
                out.push_str(": ");
                pretty(v, indent + 2, out);
                out.push_str(if i + 1 < members.len() { ",\n" } else { "\n" });
            }
            pad(indent, out);
            out.push('}');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generic::json;
    use crate::generic::schema::Schema;

    fn infer_ok(text: &str) -> (Schema, Inferred) {
        let inf = infer(text.as_bytes()).unwrap();
        let schema = Schema::parse(inf.schema.as_bytes()).unwrap_or_else(|e| panic!("{e}\n{}", inf.schema));
        // The document reads with the schema inferred from it.
        json::decode(&schema, text.as_bytes()).unwrap_or_else(|e| panic!("{e}\n{}", inf.schema));
        (schema, inf)
    }

    #[test]
    fn records_numbers_nulls_and_unions() {
        let (s, _) = infer_ok(
            r#"{"users":[{"id":1,"score":2,"tag":"a","x":null},
                         {"id":3000000000,"score":2.5,"x":true,"mixed":[1,"b"]}]}"#,
        );
        assert_eq!(s.describe(s.root()), "record Root");
        let root = match s.node(s.root()) {
            crate::generic::schema::Node::Record(r) => r,
            _ => panic!(),
        };
        let users = root.fields[0].ty;
        assert_eq!(s.describe(users), "array<record UsersItem>");
        let crate::generic::schema::Node::Array(item) = s.node(users) else {
            panic!()
        };
        let crate::generic::schema::Node::Record(u) = s.node(*item) else {
            panic!()
        };
        let types: Vec<(String, String)> = u
            .fields
            .iter()
            .map(|f| (f.name.to_string(), s.describe(f.ty)))
            .collect();
        assert_eq!(
            types,
            [
                ("id".into(), "long".into()),
                ("score".into(), "double".into()),
                ("tag".into(), "union[null,string]".into()),
                ("x".into(), "union[null,boolean]".into()),
                ("mixed".into(), "union[null,array<union[int,string]>]".into()),
            ]
        );
    }

    #[test]
    fn keys_that_are_data_make_maps() {
        let (s, _) = infer_ok(r#"{"byId":{"138":{"n":1},"139":{"n":2}}}"#);
        let text = s.describe(s.root());
        assert_eq!(text, "record Root");
        let crate::generic::schema::Node::Record(r) = s.node(s.root()) else {
            panic!()
        };
        assert_eq!(
            s.describe(r.fields[0].ty),
            "map<record ById>".replace("ById", "ByIdValue")
        );
        let many: String = (0..=MAX_RECORD_FIELDS)
            .map(|i| format!("\"k{i}\":{i}"))
            .collect::<Vec<_>>()
            .join(",");
        let (s, _) = infer_ok(&format!("{{{many}}}"));
        assert_eq!(s.describe(s.root()), "map<int>");
        let fewer: String = (0..MAX_RECORD_FIELDS)
            .map(|i| format!("\"k{i}\":{i}"))
            .collect::<Vec<_>>()
            .join(",");
        let (s, _) = infer_ok(&format!("{{{fewer}}}"));
        assert_eq!(s.describe(s.root()), "record Root");
    }

    #[test]
    fn names_are_made_valid_and_shown() {
        let (s, inf) = infer_ok(r#"{"user-name":"a","2fa":true,"message":1,"ok":{"a b":1}}"#);
        let crate::generic::schema::Node::Record(r) = s.node(s.root()) else {
            panic!()
        };
        let names: Vec<&str> = r.fields.iter().map(|f| &*f.name).collect();
        assert_eq!(names, ["user_name", "_2fa", "message_", "ok"]);
        assert_eq!(r.fields[0].key(), "user-name");
        assert_eq!(inf.renames.len(), 4);
        assert_eq!(
            inf.renames[3],
            ("/ok".to_string(), "a b".to_string(), "a_b".to_string())
        );
    }

    #[test]
    fn bad_documents_are_clear_errors() {
        let e = infer(br#"{"a-b":1,"a_b":2}"#).unwrap_err();
        assert_eq!(
            e.to_string(),
            r#"(root): unsupported: keys "a-b" and "a_b" both rename to the field name "a_b""#
        );
        let e = infer(br#"{"n":[1,99999999999999999999]}"#).unwrap_err();
        assert_eq!(e.to_string(), "/n/1: long out of range: 99999999999999999999 at byte 8");
        let e = infer(br#"{"n":1e400}"#).unwrap_err();
        assert_eq!(e.to_string(), "/n: double out of range: 1e400 at byte 5");
        let e = infer(br#"{"n":[1,}"#).unwrap_err();
        assert!(e.offset == Some(8), "{e}");
        let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
        let e = infer(deep.as_bytes()).unwrap_err();
        assert!(matches!(e.kind, GenericErrorKind::DepthLimit { .. }), "{e}");
    }

    #[test]
    fn empty_collections_warn() {
        let (s, inf) = infer_ok(r#"{"xs":[],"o":{}}"#);
        let crate::generic::schema::Node::Record(r) = s.node(s.root()) else {
            panic!()
        };
        assert_eq!(s.describe(r.fields[0].ty), "array<string>");
        assert_eq!(s.describe(r.fields[1].ty), "map<string>");
        assert_eq!(
            inf.warnings,
            [
                "/xs: every array here is empty; items assumed \"string\"",
                "/o: every object here is empty; a map of \"string\" assumed"
            ]
        );
    }

    #[test]
    fn a_repeated_key_is_refused_small_and_large() {
        let e = infer(br#"{"a":{"x":1,"x":2}}"#).unwrap_err();
        assert!(
            matches!(e.kind, GenericErrorKind::DuplicateField { ref field } if field == "x"),
            "{e}"
        );
        assert_eq!(e.pointer, "/a");
        let mut big = String::from("{");
        for i in 0..40 {
            big.push_str(&format!("\"k{i}\":{i},"));
        }
        big.push_str("\"k7\":0}");
        let e = infer(big.as_bytes()).unwrap_err();
        assert!(
            matches!(e.kind, GenericErrorKind::DuplicateField { ref field } if field == "k7"),
            "{e}"
        );
    }
}
