//! Protobuf annotator: one proto3 message of the schema
//! [`crate::generic::derive`] derives from the Avro schema — the catalog's
//! (schemas/catalog.proto has the same wire: its messages number their
//! fields in the order of schemas/catalog.avsc) or a user's document's —
//! walked by that schema (the bytes carry field numbers and
//! wire types, never names or Avro types). A key is a varint
//! `number << 3 | wire type`; 0 = varint, 1 = 8 bytes LE, 2 = a varint
//! length then that many bytes, 5 = 4 bytes LE.
//!
//! ```text
//! 0a            $.products[0]: field 1, wire type 2 = length-delimited
//! 9d 02         $.products[0]: record wirebench.Product of 285 bytes
//! 08            $.products[0].id: field 1, wire type 0 = varint
//! 01            $.products[0].id: long 1
//! ```
//!
//! Field *i* of a record starts after the numbers of fields `0..i` (a
//! `oneof` takes one per non-null branch, [`proto_width`]); a non-record
//! root, an array item, map value or union member that cannot stand alone
//! ([`crate::generic::derive::proto_direct`]) sits in a wrapper message with one field `value` at
//! number 1; a map entry is a message with the key at 1 and the value at 2;
//! numbers and enums in an array are one packed length-delimited field.
//!
//! Every key, length and value is a span named by its place in the document
//! (`$.events[0].id`) and its schema type. A field that is absent reads as
//! proto3's default (false, 0, "", the first symbol, an empty record, null
//! for an `optional` or `oneof`). Unknown field numbers are skipped by wire
//! type, as proto3 readers do. Stricter than a proto3 reader: a field that
//! is not repeated seen twice, a second `oneof` member, a repeated map key
//! and groups are errors (the schema-driven encoder writes none of them).
//!
//! Independent of [`crate::generic::protobuf`]: it reads keys, varints and
//! lengths itself and writes what it read as plain JSON ([`super::plain`]),
//! which a test compares with that decoder's datum.

use super::plain;
use super::span::{Category, ExplainError, MAX_DEPTH, Walker, preview};
use crate::generic::derive::{Shape, proto_width, shape};
use crate::generic::schema::{Node, NodeId, Schema};
use std::collections::HashSet;

/// Walks `bytes` as one message of `schema`; the plain JSON of what it read.
pub(crate) fn annotate(w: &mut Walker<'_>, schema: &Schema) -> Result<(String, Vec<String>), ExplainError> {
    let r = Reader { schema };
    let end = w.bytes.len();
    let root = schema.root();
    match schema.node(root) {
        Node::Record(rec) => {
            let fields: Vec<(Option<&str>, NodeId)> = rec.fields.iter().map(|f| (Some(&*f.name), f.ty)).collect();
            let json = r.message(w, &fields, end, "$", 0, true, Some(root))?;
            Ok((json, rec.fields.iter().map(|f| f.name.to_string()).collect()))
        }
        _ => Ok((r.message(w, &[(None, root)], end, "$", 0, false, None)?, Vec::new())),
    }
}

/// What one field of a message collected.
enum Slot {
    Empty,
    /// A leaf, record, `optional` or `oneof` member: its JSON.
    One(String),
    List(Vec<String>),
    Entries(Vec<(String, String)>, HashSet<String>),
}

/// The wire types of proto3.
const VARINT: u64 = 0;
const I64: u64 = 1;
const LEN: u64 = 2;
const I32: u64 = 5;

fn wire_name(t: u64) -> &'static str {
    match t {
        VARINT => "varint",
        I64 => "i64",
        LEN => "length-delimited",
        3 => "start group",
        4 => "end group",
        I32 => "i32",
        _ => "invalid",
    }
}

/// A varint ending before `end`.
fn varint(w: &mut Walker<'_>, end: usize, what: &str) -> Result<u64, ExplainError> {
    let at = w.pos;
    let mut v: u64 = 0;
    for i in 0..10 {
        if w.pos >= end {
            return Err(w.err(at, format!("{what}: varint runs past the end of its message")));
        }
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

/// `n` bytes ending no later than `end`.
fn take<'a>(w: &mut Walker<'a>, n: usize, end: usize, what: &str) -> Result<&'a [u8], ExplainError> {
    if n > end - w.pos {
        return Err(w.err(
            w.pos,
            format!(
                "{what}: {n} bytes do not fit in the {} left of its message",
                end - w.pos
            ),
        ));
    }
    w.take(n, what)
}

/// A length varint and the end of the bytes it counts (within `end`).
fn length(w: &mut Walker<'_>, end: usize, what: &str) -> Result<usize, ExplainError> {
    let at = w.pos;
    let n = varint(w, end, what)?;
    let left = end - w.pos;
    match usize::try_from(n) {
        Ok(n) if n <= left => Ok(w.pos + n),
        _ => Err(w.err(
            at,
            format!("{what}: length {n} does not fit in the {left} bytes left of its message"),
        )),
    }
}

/// Where a field sits: its path, the span of its key, and its wire type.
struct Key<'p> {
    path: &'p str,
    at: usize,
    len: usize,
    number: u64,
    wire: u64,
}

impl Key<'_> {
    /// Records the key's bytes: `$.id: field 1, wire type 0 = varint`.
    fn span(&self, w: &mut Walker<'_>) {
        w.span_at(
            self.at,
            self.len,
            Category::Structure,
            format!(
                "{}: field {}, wire type {} = {}",
                self.path,
                self.number,
                self.wire,
                wire_name(self.wire)
            ),
        );
    }
}

struct Reader<'s> {
    schema: &'s Schema,
}

impl Reader<'_> {
    /// Reads the fields of one message up to `end`; a record's JSON object,
    /// or for a wrapper (one unnamed field) the field's value. `record` is
    /// the record type the message holds (its fields name the spans of an
    /// entry, [`Walker::name_field`]).
    #[allow(clippy::too_many_arguments)]
    fn message(
        &self,
        w: &mut Walker<'_>,
        fields: &[(Option<&str>, NodeId)],
        end: usize,
        path: &str,
        depth: usize,
        root: bool,
        record: Option<NodeId>,
    ) -> Result<String, ExplainError> {
        if depth > MAX_DEPTH {
            return Err(w.err(w.pos, format!("{path}: nesting deeper than {MAX_DEPTH} levels")));
        }
        let s = self.schema;
        let paths: Vec<String> = fields
            .iter()
            .map(|(name, _)| match name {
                None => path.to_string(),
                Some(n) if path == "$" => format!("$.{n}"),
                Some(n) => format!("{path}.{n}"),
            })
            .collect();
        let mut slots: Vec<Slot> = fields.iter().map(|_| Slot::Empty).collect();
        while w.pos < end {
            let at = w.pos;
            let key = varint(w, end, &format!("{path}: a field key"))?;
            let (number, wire) = (key >> 3, key & 7);
            if key > u64::from(u32::MAX) || number == 0 {
                return Err(w.err(at, format!("{path}: field key {key} has no valid field number")));
            }
            if !matches!(wire, VARINT | I64 | LEN | I32) {
                return Err(w.err(
                    at,
                    format!(
                        "{path}: field {number} has wire type {wire} ({}), which this reader does not take",
                        wire_name(wire)
                    ),
                ));
            }
            // The field whose numbers hold `number`.
            let mut first = 1u64;
            let mut found = None;
            for (i, (_, ty)) in fields.iter().enumerate() {
                let width = u64::from(proto_width(s, *ty));
                if number < first + width {
                    found = Some((i, number - first));
                    break;
                }
                first += width;
            }
            let live = found.filter(|&(i, _)| !matches!(shape(s, fields[i].1), Shape::Null));
            let Some((i, k)) = live else {
                if root {
                    w.top = None;
                }
                self.skip(w, end, path, at, number, wire)?;
                continue;
            };
            if root {
                w.top = Some(i);
            }
            if let (Some(record), Some(name)) = (record, fields[i].0) {
                w.name_field(record, name);
            }
            let key = Key {
                path: &paths[i],
                at,
                len: w.pos - at,
                number,
                wire,
            };
            self.field(w, fields[i].1, &key, k, end, &mut slots[i], depth)?;
        }
        if root {
            w.top = None;
        }
        let mut out = String::new();
        if fields.len() == 1 && fields[0].0.is_none() {
            let slot = slots.pop().unwrap_or(Slot::Empty);
            self.finish(w, fields[0].1, slot, &paths[0], &mut out, depth)?;
            return Ok(out);
        }
        out.push('{');
        for (i, ((name, ty), slot)) in fields.iter().zip(slots).enumerate() {
            if i > 0 {
                out.push(',');
            }
            plain::string(name.unwrap_or("value"), &mut out);
            out.push(':');
            self.finish(w, *ty, slot, &paths[i], &mut out, depth)?;
        }
        out.push('}');
        Ok(out)
    }

    /// Skips a field this schema has no place for, by its wire type.
    fn skip(
        &self,
        w: &mut Walker<'_>,
        end: usize,
        path: &str,
        at: usize,
        number: u64,
        wire: u64,
    ) -> Result<(), ExplainError> {
        let what = format!("{path}: field {number}");
        match wire {
            VARINT => {
                varint(w, end, &what)?;
            }
            I64 => {
                take(w, 8, end, &what)?;
            }
            I32 => {
                take(w, 4, end, &what)?;
            }
            _ => {
                let to = length(w, end, &what)?;
                w.pos = to;
            }
        }
        w.span(
            at,
            Category::Structure,
            format!(
                "{path}: field {number} ({}) is not in the schema, skipped",
                wire_name(wire)
            ),
        );
        Ok(())
    }

    /// One occurrence of a field of type `ty`; `k` is its number minus the
    /// field's first (the `oneof` member). Its spans are owned by its path.
    #[allow(clippy::too_many_arguments)]
    fn field(
        &self,
        w: &mut Walker<'_>,
        ty: NodeId,
        key: &Key<'_>,
        k: u64,
        end: usize,
        slot: &mut Slot,
        depth: usize,
    ) -> Result<(), ExplainError> {
        w.within(key.path, |w| {
            let s = self.schema;
            let path = key.path;
            let once = |w: &Walker<'_>, slot: &Slot| match slot {
                Slot::Empty => Ok(()),
                _ => Err(w.err(
                    key.at,
                    format!("{path}: field {} seen twice (this reader takes it once)", key.number),
                )),
            };
            match shape(s, ty) {
                Shape::Null => unreachable!("null fields are skipped"),
                Shape::Leaf | Shape::Record => {
                    once(w, slot)?;
                    *slot = Slot::One(self.member(w, ty, key, end, depth)?);
                }
                Shape::Optional { ty: inner, .. } => {
                    once(w, slot)?;
                    *slot = Slot::One(self.member(w, inner, key, end, depth)?);
                }
                Shape::Oneof { null, branches } => {
                    once(w, slot)?;
                    let k = u32::try_from(k).unwrap_or(u32::MAX);
                    let b = k.saturating_add(u32::from(null.is_some_and(|x| x <= k)));
                    let bt = *branches
                        .get(b as usize)
                        .ok_or_else(|| w.err(key.at, format!("{path}: no union branch at field {}", key.number)))?;
                    let inner = Key {
                        path,
                        at: key.at,
                        len: key.len,
                        number: key.number,
                        wire: key.wire,
                    };
                    *slot = Slot::One(self.member(w, bt, &inner, end, depth)?);
                }
                Shape::Array(items) => {
                    if !matches!(slot, Slot::List(_)) {
                        *slot = Slot::List(Vec::new());
                    }
                    let Slot::List(list) = slot else { unreachable!() };
                    let packable = matches!(
                        s.node(items),
                        Node::Boolean | Node::Int | Node::Long | Node::Float | Node::Double | Node::Enum(_)
                    );
                    if packable && key.wire == LEN {
                        let to = length(w, end, path)?;
                        let ty = s.describe(items);
                        key.span(w);
                        w.span(
                            key.at + key.len,
                            Category::Structure,
                            format!("{path}: packed {ty}s, {} bytes", to - w.pos),
                        );
                        if let Node::Float | Node::Double = s.node(items) {
                            let width = if matches!(s.node(items), Node::Double) { 8 } else { 4 };
                            if (to - w.pos) % width != 0 {
                                return Err(w.err(
                                    w.pos,
                                    format!(
                                        "{path}: {} bytes are not a whole number of {width}-byte items",
                                        to - w.pos
                                    ),
                                ));
                            }
                        }
                        w.depth += 1;
                        while w.pos < to {
                            let at = w.pos;
                            let p = format!("{path}[{}]", list.len());
                            let v = self.scalar(w, items, &p, to)?;
                            w.within(&p, |w| w.span(at, Category::Value, format!("{p}: {}", v.1)));
                            list.push(v.0);
                        }
                        w.depth -= 1;
                        return Ok(());
                    }
                    let p = format!("{path}[{}]", list.len());
                    let item = Key {
                        path: &p,
                        at: key.at,
                        len: key.len,
                        number: key.number,
                        wire: key.wire,
                    };
                    let v = self.member(w, items, &item, end, depth)?;
                    list.push(v);
                }
                Shape::Map(vt) => {
                    if !matches!(slot, Slot::Entries(..)) {
                        *slot = Slot::Entries(Vec::new(), HashSet::new());
                    }
                    let Slot::Entries(entries, seen) = slot else {
                        unreachable!()
                    };
                    let to = self.body(w, key, end, "map entry")?;
                    w.depth += 1;
                    let mut k: Option<String> = None;
                    let mut v: Option<String> = None;
                    while w.pos < to {
                        let at = w.pos;
                        let kp = format!("{path}: a map entry key");
                        let ek = varint(w, to, &kp)?;
                        let (n, wire) = (ek >> 3, ek & 7);
                        let entry_path = format!("{path}.{}", k.as_deref().unwrap_or("?"));
                        match (n, wire) {
                            (1, LEN) if k.is_none() => {
                                let kto = length(w, to, path)?;
                                let raw = take(w, kto - w.pos, to, path)?;
                                let s = std::str::from_utf8(raw)
                                    .map_err(|_| w.err(at, format!("{path}: invalid UTF-8 in map key")))?;
                                w.within(&format!("{path}.{s}"), |w| w.span(at, Category::Key, format!("{path}: map key {}", preview(s))));
                                if !seen.insert(s.to_string()) {
                                    return Err(w.err(at, format!("{path}: map key {} seen twice", preview(s))));
                                }
                                k = Some(s.to_string());
                            }
                            (2, _)
                                if v.is_none()
                                    && (ek <= u64::from(u32::MAX))
                                    && matches!(wire, VARINT | I64 | LEN | I32) =>
                            {
                                let vkey = Key {
                                    path: &entry_path,
                                    at,
                                    len: w.pos - at,
                                    number: 2,
                                    wire,
                                };
                                v = Some(self.member(w, vt, &vkey, to, depth + 1)?);
                            }
                            _ => {
                                return Err(w.err(
                                    at,
                                    format!("{path}: map entry field {n} ({}) where the key (1) or the value (2) goes, once each", wire_name(wire)),
                                ));
                            }
                        }
                    }
                    w.depth -= 1;
                    let key = k.unwrap_or_default();
                    let value = match v {
                        Some(v) => v,
                        None => {
                            let mut out = String::new();
                            plain::absent(self.schema, vt, &format!("{path}.{key}"), &mut out, depth + 1)
                                .map_err(|m| w.err(w.pos, m))?;
                            out
                        }
                    };
                    entries.push((key, value));
                }
            }
            Ok(())
        })
    }

    /// The length of a message field (its key, then its length);
    /// returns where its body ends.
    fn body(&self, w: &mut Walker<'_>, key: &Key<'_>, end: usize, what: &str) -> Result<usize, ExplainError> {
        if key.wire != LEN {
            return Err(w.err(
                key.at,
                format!(
                    "{}: {what} at field {} must be length-delimited, found {}",
                    key.path,
                    key.number,
                    wire_name(key.wire)
                ),
            ));
        }
        let to = length(w, end, key.path)?;
        key.span(w);
        w.span(
            key.at + key.len,
            Category::Structure,
            format!("{}: {what} of {} bytes", key.path, to - w.pos),
        );
        Ok(to)
    }

    /// A value with explicit presence: a leaf as it is, a record as its
    /// message, anything else in its wrapper message (one field of type
    /// `ty` at number 1). Its spans are owned by its path.
    fn member(
        &self,
        w: &mut Walker<'_>,
        ty: NodeId,
        key: &Key<'_>,
        end: usize,
        depth: usize,
    ) -> Result<String, ExplainError> {
        w.within(key.path, |w| {
            let s = self.schema;
            let (what, fields, record): (String, Vec<(Option<&str>, NodeId)>, _) = match (shape(s, ty), s.node(ty)) {
                (Shape::Leaf, _) => return self.leaf(w, ty, key, end),
                (Shape::Record, Node::Record(rec)) => (
                    s.describe(ty),
                    rec.fields.iter().map(|f| (Some(&*f.name), f.ty)).collect(),
                    Some(ty),
                ),
                _ => (format!("wrapper of {}", s.describe(ty)), vec![(None, ty)], None),
            };
            let to = self.body(w, key, end, &what)?;
            w.depth += 1;
            let entered = w.enter(ty);
            let json = self.message(w, &fields, to, key.path, depth + 1, false, record);
            w.leave(entered);
            w.depth -= 1;
            json
        })
    }

    /// A boolean, number or enum without its key: (JSON, what it is).
    fn scalar(&self, w: &mut Walker<'_>, ty: NodeId, path: &str, end: usize) -> Result<(String, String), ExplainError> {
        let s = self.schema;
        let mut out = String::new();
        let what = match s.node(ty) {
            Node::Boolean => {
                let v = varint(w, end, path)? != 0;
                out.push_str(if v { "true" } else { "false" });
                format!("boolean {v}")
            }
            Node::Int => {
                let v = varint(w, end, path)? as i32;
                out.push_str(&v.to_string());
                format!("int {v}")
            }
            Node::Long => {
                let v = varint(w, end, path)? as i64;
                out.push_str(&v.to_string());
                format!("long {v}")
            }
            Node::Float => {
                let b = take(w, 4, end, path)?;
                let v = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                plain::float(v, &mut out);
                format!("float {v} (4 bytes LE)")
            }
            Node::Double => {
                let b = take(w, 8, end, path)?;
                let v = f64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]);
                plain::double(v, &mut out);
                format!("double {v} (8 bytes LE)")
            }
            Node::Enum(e) => {
                let at = w.pos;
                let v = varint(w, end, path)? as i32;
                let sym = usize::try_from(v).ok().and_then(|i| e.symbols.get(i)).ok_or_else(|| {
                    w.err(
                        at,
                        format!("{path}: enum number {v} is not one of the {} symbols", e.symbols.len()),
                    )
                })?;
                plain::string(sym, &mut out);
                format!("{} {v} = {sym}", s.describe(ty))
            }
            _ => unreachable!("scalar types only"),
        };
        Ok((out, what))
    }

    /// One leaf field (key, then value) as its JSON.
    fn leaf(&self, w: &mut Walker<'_>, ty: NodeId, key: &Key<'_>, end: usize) -> Result<String, ExplainError> {
        let s = self.schema;
        let path = key.path;
        let want = match s.node(ty) {
            Node::Float => I32,
            Node::Double => I64,
            Node::String | Node::Bytes | Node::Fixed(_) => LEN,
            _ => VARINT,
        };
        if key.wire != want {
            return Err(w.err(
                key.at,
                format!(
                    "{path}: {} at field {} must be {}, found {}",
                    s.describe(ty),
                    key.number,
                    wire_name(want),
                    wire_name(key.wire)
                ),
            ));
        }
        if want != LEN {
            key.span(w);
            let at = w.pos;
            let (json, what) = self.scalar(w, ty, path, end)?;
            w.span(at, Category::Value, format!("{path}: {what}"));
            return Ok(json);
        }
        let to = length(w, end, path)?;
        let n = to - w.pos;
        let ty_name = s.describe(ty);
        key.span(w);
        w.span(
            key.at + key.len,
            Category::Structure,
            format!("{path}: {ty_name} length {n}"),
        );
        let body = w.pos;
        let raw = take(w, n, to, path)?;
        let mut out = String::new();
        match s.node(ty) {
            Node::String => {
                let text = std::str::from_utf8(raw)
                    .map_err(|e| w.err(body + e.valid_up_to(), format!("{path}: invalid UTF-8 in string")))?;
                w.span(body, Category::Value, preview(text));
                plain::string(text, &mut out);
            }
            Node::Fixed(f) if f.size != n => {
                return Err(w.err(key.at, format!("{path}: {ty_name} holds {} bytes, found {n}", f.size)));
            }
            _ => {
                w.span(body, Category::Value, format!("{n} bytes"));
                plain::bytes(raw, &mut out);
            }
        }
        Ok(out)
    }

    /// The JSON of a field from what it collected.
    fn finish(
        &self,
        w: &Walker<'_>,
        ty: NodeId,
        slot: Slot,
        path: &str,
        out: &mut String,
        depth: usize,
    ) -> Result<(), ExplainError> {
        match slot {
            Slot::Empty => plain::absent(self.schema, ty, path, out, depth).map_err(|m| w.err(w.pos, m)),
            Slot::One(json) => {
                out.push_str(&json);
                Ok(())
            }
            Slot::List(items) => {
                out.push('[');
                out.push_str(&items.join(","));
                out.push(']');
                Ok(())
            }
            Slot::Entries(entries, _) => {
                out.push('{');
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    plain::string(k, out);
                    out.push(':');
                    out.push_str(v);
                }
                out.push('}');
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::span::walk_by;

    const R: &str = r#"{"type":"record","name":"R","fields":[
        {"name":"id","type":"long"},
        {"name":"n","type":["null","string"]},
        {"name":"xs","type":{"type":"array","items":"int"}},
        {"name":"u","type":["int","string"]}]}"#;

    #[test]
    fn a_message_reads_by_its_schema() {
        // id = 7, n = "a", xs = [1, 2] packed, u = "b" (oneof member 2 at number 5).
        let bytes = [0x08, 0x07, 0x12, 0x01, 0x61, 0x1a, 0x02, 0x01, 0x02, 0x2a, 0x01, 0x62];
        let (json, spans) = walk_by(annotate, R, &bytes).unwrap();
        assert_eq!(json, r#"{"id":7,"n":"a","xs":[1,2],"u":"b"}"#);
        let want: Vec<(usize, usize, String)> = [
            (0, 1, "$.id: field 1, wire type 0 = varint"),
            (1, 1, "$.id: long 7"),
            (2, 1, "$.n: field 2, wire type 2 = length-delimited"),
            (3, 1, "$.n: string length 1"),
            (4, 1, "\"a\""),
            (5, 1, "$.xs: field 3, wire type 2 = length-delimited"),
            (6, 1, "$.xs: packed ints, 2 bytes"),
            (7, 1, "$.xs[0]: int 1"),
            (8, 1, "$.xs[1]: int 2"),
            (9, 1, "$.u: field 5, wire type 2 = length-delimited"),
            (10, 1, "$.u: string length 1"),
            (11, 1, "\"b\""),
        ]
        .iter()
        .map(|(o, l, m)| (*o, *l, m.to_string()))
        .collect();
        assert_eq!(spans, want);
    }

    #[test]
    fn absent_fields_read_as_defaults_and_unknown_fields_are_skipped() {
        // u = 0 (member 1 at number 4, the default written); field 9 unknown.
        let (json, spans) = walk_by(annotate, R, &[0x20, 0x00, 0x48, 0x05]).unwrap();
        assert_eq!(json, r#"{"id":0,"n":null,"xs":[],"u":0}"#);
        assert_eq!(
            spans[2],
            (2, 2, "$: field 9 (varint) is not in the schema, skipped".to_string())
        );
    }

    #[test]
    fn hostile_bytes_are_errors() {
        // No member of a union without null.
        let e = walk_by(annotate, R, &[0x08, 0x07]).unwrap_err();
        assert!(e.message.contains("has no null branch"), "{e}");
        // A length past the end.
        let e = walk_by(annotate, R, &[0x12, 0x05, 0x61]).unwrap_err();
        assert_eq!((e.offset, e.message.contains("does not fit")), (1, true), "{e}");
        // A scalar seen twice, a wrong wire type, a group, an overlong varint.
        assert!(
            walk_by(annotate, R, &[0x08, 0x01, 0x08, 0x02, 0x20, 0x00])
                .unwrap_err()
                .message
                .contains("seen twice")
        );
        assert!(
            walk_by(annotate, R, &[0x09, 0, 0, 0, 0, 0, 0, 0, 0])
                .unwrap_err()
                .message
                .contains("must be varint")
        );
        assert!(
            walk_by(annotate, R, &[0x0b])
                .unwrap_err()
                .message
                .contains("start group")
        );
        assert!(
            walk_by(
                annotate,
                R,
                &[0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f]
            )
            .unwrap_err()
            .message
            .contains("longer than 64 bits")
        );
        // A nested message's length past its parent's end.
        let nested = r#"{"type":"record","name":"A","fields":[{"name":"b","type":{"type":"record","name":"B","fields":[{"name":"s","type":"string"}]}},{"name":"t","type":"string"}]}"#;
        let e = walk_by(annotate, nested, &[0x0a, 0x03, 0x0a, 0x05, 0x61, 0x12, 0x01, 0x62]).unwrap_err();
        assert_eq!(e.offset, 3, "{e}");
    }

    #[test]
    fn maps_and_wrappers() {
        let s = r#"{"type":"record","name":"M","fields":[
            {"name":"m","type":{"type":"map","values":"long"}},
            {"name":"g","type":{"type":"array","items":{"type":"array","items":"int"}}}]}"#;
        // m = {"a": 1}, g = [[3]]: an item wrapper holding a packed array.
        let bytes = [0x0a, 0x05, 0x0a, 0x01, 0x61, 0x10, 0x01, 0x12, 0x03, 0x0a, 0x01, 0x03];
        let (json, spans) = walk_by(annotate, s, &bytes).unwrap();
        assert_eq!(json, r#"{"m":{"a":1},"g":[[3]]}"#);
        assert_eq!(spans[0].2, "$.m: field 1, wire type 2 = length-delimited");
        assert_eq!(spans[1].2, "$.m: map entry of 5 bytes");
        assert_eq!(spans[2], (2, 3, "$.m: map key \"a\"".to_string()));
        assert_eq!(spans[3].2, "$.m.a: field 2, wire type 0 = varint");
        assert_eq!(spans[5].2, "$.g[0]: field 2, wire type 2 = length-delimited");
        assert_eq!(spans[6].2, "$.g[0]: wrapper of array<int> of 3 bytes");
        // A repeated key is refused.
        let twice = [0x0a, 0x03, 0x0a, 0x01, 0x61, 0x0a, 0x03, 0x0a, 0x01, 0x61];
        assert!(walk_by(annotate, s, &twice).unwrap_err().message.contains("seen twice"));
    }
}
