//! The FlatBuffers annotator for a user's document: one FlatBuffer of the
//! tables [`crate::generic::derive`] derives from the Avro schema, walked
//! by that schema from the root offset.
//!
//! A table is a 4-byte soffset to its vtable (`vtable = table − soffset`),
//! then its inline fields; the vtable is its own size and the table's (two
//! u16), then one u16 per slot, the field's offset in the table (0:
//! absent). Field *i* of a record has slot *s* = the slots of fields
//! `0..i` (a union takes two: its `_type` byte, then an offset to the
//! member's table, a record itself or a wrapper table with one field
//! `value`). Strings are a uoffset to a u32 length, the bytes and a 0;
//! vectors a uoffset to a u32 count and the items (scalars inline, strings
//! and tables by uoffset); a map is a vector of `{key, value}` tables.
//! Fields not written read as their default ([`super::plain::absent`]).
//!
//! The bytes are not read in order: every offset is followed, bounds- and
//! alignment-checked as the official verifier does, and each run of bytes
//! read is claimed once. A claim that overlaps an earlier one is an error
//! (the builder shares only vtables, claimed at their first table), so
//! hostile offsets cannot loop or make a small buffer read as a large one.
//! The bytes no offset reaches are padding. The spans are then put in byte
//! order: every byte once.
//!
//! Independent of [`crate::generic::flatbuffers`] and of the `flatbuffers`
//! crate: it reads offsets and scalars itself and writes what it read as
//! plain JSON ([`super::plain`]), which a test compares with that decoder's
//! datum.

use super::plain;
use super::span::{Category, ExplainError, Span, Walker, preview};
use crate::generic::derive::{Shape, fbs_direct_item, fbs_enum_width, fbs_width, shape};
use crate::generic::schema::{Node, NodeId, Schema};
use std::collections::{BTreeMap, HashSet};

/// Deepest nesting of tables read (the official verifier's default).
const MAX_TABLES_DEEP: usize = 64;
/// The apparent-size budget, as a multiple of the input length (as the
/// schema-driven decoder sets its verifier).
const APPARENT_FACTOR: usize = 16;

/// Walks `bytes` as one FlatBuffer of `schema`; the plain JSON of what it
/// read. The spans end in byte order, gaps filled with padding.
pub(crate) fn annotate(w: &mut Walker<'_>, schema: &Schema) -> Result<(String, Vec<String>), ExplainError> {
    let mut r = Reader {
        schema,
        buf: w.bytes,
        claims: BTreeMap::new(),
        vtables: HashSet::new(),
        apparent: 0,
        max_apparent: w.bytes.len().saturating_mul(APPARENT_FACTOR).max(1024),
        depth: 0,
    };
    let result = r.root(w);
    w.spans.sort_by_key(|s| s.offset);
    let (json, members) = result?;
    // The bytes no read reached: padding (zeros) or unreferenced.
    let mut at = 0;
    let mut spans = Vec::with_capacity(w.spans.len() * 2);
    let len = w.bytes.len();
    let old = std::mem::take(&mut w.spans);
    let (depth, top) = (w.depth, w.top);
    (w.depth, w.top) = (0, None);
    for s in old {
        if s.offset > at {
            gap(w, at, s.offset - at);
            spans.append(&mut w.spans);
        }
        at = s.offset + s.len;
        spans.push(s);
    }
    if at < len {
        gap(w, at, len - at);
        spans.append(&mut w.spans);
    }
    (w.depth, w.top) = (depth, top);
    w.spans = spans;
    w.pos = len;
    Ok((json, members))
}

/// How every span of a vtable's bytes begins (its header and its slots).
const VTABLE: &str = "vtable";

/// Whether `span` is a vtable's header or slot, as this annotator writes them.
pub fn is_vtable(span: &Span) -> bool {
    span.category == Category::Structure && span.meaning.starts_with(VTABLE)
}

fn gap(w: &mut Walker<'_>, at: usize, n: usize) {
    let zero = w.bytes[at..at + n].iter().all(|&b| b == 0);
    let meaning = if zero {
        "padding".to_string()
    } else {
        format!("{n} bytes no offset reaches")
    };
    w.span_at(at, n, Category::Padding, meaning);
}

/// A table being read: where it is, and its vtable.
#[derive(Clone, Copy)]
struct Table {
    at: usize,
    vt: usize,
    vt_len: usize,
}

struct Reader<'a, 's> {
    schema: &'s Schema,
    buf: &'a [u8],
    /// Runs of bytes read so far: offset → length.
    claims: BTreeMap<usize, usize>,
    /// Vtables already claimed (shared by tables of one layout).
    vtables: HashSet<usize>,
    apparent: usize,
    max_apparent: usize,
    /// Tables open.
    depth: usize,
}

fn join(path: &str, name: &str) -> String {
    if path == "$" {
        format!("$.{name}")
    } else {
        format!("{path}.{name}")
    }
}

impl Reader<'_, '_> {
    /// An error at `at` (a position an offset named may lie past the end:
    /// the error points at the end then).
    fn err(&self, at: usize, message: String) -> ExplainError {
        ExplainError {
            offset: at.min(self.buf.len()),
            message,
        }
    }

    /// Checks that `n` bytes at `at`, aligned to `align`, are in the buffer.
    fn range(&mut self, at: usize, n: usize, align: usize, what: &str) -> Result<(), ExplainError> {
        if align > 1 && at % align != 0 {
            return Err(self.err(at, format!("{what}: offset {at} is not {align}-byte aligned")));
        }
        match at.checked_add(n) {
            Some(end) if end <= self.buf.len() => {}
            _ => {
                return Err(self.err(
                    at.min(self.buf.len()),
                    format!("{what}: {n} bytes at {at} run past the {}-byte buffer", self.buf.len()),
                ));
            }
        }
        self.apparent = self.apparent.saturating_add(n);
        if self.apparent > self.max_apparent {
            return Err(self.err(
                at,
                format!("{what}: the buffer reads as more than {} bytes", self.max_apparent),
            ));
        }
        Ok(())
    }

    fn read<const N: usize>(&mut self, at: usize, what: &str) -> Result<[u8; N], ExplainError> {
        self.range(at, N, N, what)?;
        let mut b = [0u8; N];
        b.copy_from_slice(&self.buf[at..at + N]);
        Ok(b)
    }

    fn u16(&mut self, at: usize, what: &str) -> Result<usize, ExplainError> {
        Ok(usize::from(u16::from_le_bytes(self.read::<2>(at, what)?)))
    }

    fn u32(&mut self, at: usize, what: &str) -> Result<usize, ExplainError> {
        Ok(u32::from_le_bytes(self.read::<4>(at, what)?) as usize)
    }

    /// Records `n` bytes at `at` as read once: an error if any was read before.
    fn claim(
        &mut self,
        w: &mut Walker<'_>,
        at: usize,
        n: usize,
        category: Category,
        meaning: String,
    ) -> Result<(), ExplainError> {
        if n == 0 {
            return Ok(());
        }
        let end = at + n;
        let before = self.claims.range(..=at).next_back().map(|(&o, &l)| (o, l));
        let after = self.claims.range(at..).next().map(|(&o, &l)| (o, l));
        for (o, l) in before.into_iter().chain(after) {
            if o < end && at < o + l {
                return Err(self.err(
                    at,
                    format!("{meaning}: bytes {at}..{end} overlap bytes {o}..{} read before", o + l),
                ));
            }
        }
        self.claims.insert(at, n);
        w.span_at(at, n, category, meaning);
        Ok(())
    }

    /// A uoffset at `at`: claims it and returns the position it names.
    fn offset(&mut self, w: &mut Walker<'_>, at: usize, path: &str, to: &str) -> Result<usize, ExplainError> {
        let o = self.u32(at, path)?;
        let target = at.saturating_add(o);
        self.claim(
            w,
            at,
            4,
            Category::Structure,
            format!("{path}: offset to {to} at {target}"),
        )?;
        Ok(target)
    }

    fn root(&mut self, w: &mut Walker<'_>) -> Result<(String, Vec<String>), ExplainError> {
        let s = self.schema;
        let root = s.root();
        let at = self.offset(w, 0, "$", "the root table")?;
        match s.node(root) {
            Node::Record(rec) => {
                let fields: Vec<(Option<&str>, NodeId)> = rec.fields.iter().map(|f| (Some(&*f.name), f.ty)).collect();
                let json = self.table(w, at, &fields, "$", true)?;
                Ok((json, rec.fields.iter().map(|f| f.name.to_string()).collect()))
            }
            _ => Ok((self.table(w, at, &[(None, root)], "$", false)?, Vec::new())),
        }
    }

    /// Opens the table at `at`: its soffset and (first time) its vtable,
    /// whose slots are named by `names`.
    fn open(
        &mut self,
        w: &mut Walker<'_>,
        at: usize,
        path: &str,
        what: &str,
        names: &[String],
    ) -> Result<Table, ExplainError> {
        let so = i32::from_le_bytes(self.read::<4>(at, path)?);
        let vt = if so > 0 {
            at.checked_sub(so.unsigned_abs() as usize)
        } else {
            at.checked_add(so.unsigned_abs() as usize)
        }
        .filter(|&v| v < self.buf.len())
        .ok_or_else(|| self.err(at, format!("{path}: the vtable soffset {so} points outside the buffer")))?;
        let vt_len = self.u16(vt, path)?;
        if vt_len % 2 != 0 {
            return Err(self.err(vt, format!("{path}: the vtable's size {vt_len} is odd")));
        }
        self.range(vt, vt_len, 2, &format!("{path}: the vtable"))?;
        self.depth += 1;
        if self.depth > MAX_TABLES_DEEP {
            return Err(self.err(at, format!("{path}: tables nested deeper than {MAX_TABLES_DEEP}")));
        }
        self.claim(
            w,
            at,
            4,
            Category::Structure,
            format!("{path}: {what}, vtable at {vt} (soffset {so})"),
        )?;
        if self.vtables.insert(vt) {
            let top = w.top;
            w.top = None;
            let header = vt_len.min(4);
            let table_len = if vt_len >= 4 {
                self.u16(vt + 2, path)?.to_string()
            } else {
                "?".into()
            };
            self.claim(
                w,
                vt,
                header,
                Category::Structure,
                format!("{VTABLE}: {vt_len} bytes, table {table_len} bytes"),
            )?;
            for (i, e) in (vt + 4..vt + vt_len).step_by(2).enumerate() {
                let off = self.u16(e, path)?;
                let name = names.get(i).map_or("(not in the schema)", |n| n.as_str());
                let m = if off == 0 {
                    format!("{VTABLE} slot {i} {name}: absent")
                } else {
                    format!("{VTABLE} slot {i} {name}: at +{off}")
                };
                self.claim(w, e, 2, Category::Structure, m)?;
            }
            w.top = top;
        }
        Ok(Table { at, vt, vt_len })
    }

    /// Where the field at slot `slot` is, if written.
    fn deref(&mut self, t: Table, slot: u16, path: &str) -> Result<Option<usize>, ExplainError> {
        let vo = 4 + 2 * usize::from(slot);
        if vo >= t.vt_len {
            return Ok(None);
        }
        let off = self.u16(t.vt + vo, path)?;
        Ok((off > 0).then(|| t.at.saturating_add(off)))
    }

    /// A table of `fields`: a record's JSON object, or for a wrapper (one
    /// unnamed field) the field's value.
    fn table(
        &mut self,
        w: &mut Walker<'_>,
        at: usize,
        fields: &[(Option<&str>, NodeId)],
        path: &str,
        root: bool,
    ) -> Result<String, ExplainError> {
        let s = self.schema;
        let mut names = Vec::new();
        for (name, ty) in fields {
            let n = name.unwrap_or("value");
            if fbs_width(s, *ty) == 2 {
                names.push(format!("{n}_type"));
            }
            names.push(n.to_string());
        }
        let what = match fields {
            [(None, ty)] => format!("table (wrapper of {})", s.describe(*ty)),
            _ => "table".to_string(),
        };
        let t = self.open(w, at, path, &what, &names)?;
        w.depth += 1;
        let mut out = String::new();
        if let [(None, ty)] = fields {
            self.field(w, t, *ty, 0, path, &mut out)?;
        } else {
            out.push('{');
            let mut slot = 0u16;
            for (i, (name, ty)) in fields.iter().enumerate() {
                if root {
                    w.top = Some(i);
                }
                if i > 0 {
                    out.push(',');
                }
                let n = name.unwrap_or("value");
                plain::string(n, &mut out);
                out.push(':');
                self.field(w, t, *ty, slot, &join(path, n), &mut out)?;
                slot = slot.saturating_add(fbs_width(s, *ty));
            }
            if root {
                w.top = None;
            }
            out.push('}');
        }
        w.depth -= 1;
        self.depth -= 1;
        Ok(out)
    }

    /// A field of type `ty` whose (first) slot is `slot`.
    fn field(
        &mut self,
        w: &mut Walker<'_>,
        t: Table,
        ty: NodeId,
        slot: u16,
        path: &str,
        out: &mut String,
    ) -> Result<(), ExplainError> {
        let s = self.schema;
        match shape(s, ty) {
            Shape::Null => out.push_str("null"),
            Shape::Leaf | Shape::Record | Shape::Array(_) | Shape::Map(_) => match self.deref(t, slot, path)? {
                Some(at) => self.value(w, ty, at, path, out)?,
                None => plain::absent(s, ty, path, out, self.depth).map_err(|m| self.err(t.at, m))?,
            },
            Shape::Optional { ty: inner, .. } => match self.deref(t, slot, path)? {
                Some(at) => self.value(w, inner, at, path, out)?,
                None => out.push_str("null"),
            },
            Shape::Oneof { null, branches } => {
                let live = branches.len() - usize::from(null.is_some());
                if live == 0 {
                    out.push_str("null");
                    return Ok(());
                }
                let (k, k_at) = match self.deref(t, slot, path)? {
                    Some(at) => (self.read::<1>(at, path)?[0], Some(at)),
                    None => (0, None),
                };
                let value_at = self.deref(t, slot.saturating_add(1), path)?;
                match (k, value_at) {
                    (0, None) => {
                        if let Some(at) = k_at {
                            self.claim(w, at, 1, Category::Structure, format!("{path}: union type 0 (NONE)"))?;
                        }
                        if null.is_some() {
                            out.push_str("null");
                        } else {
                            return Err(self.err(t.at, format!("{path}: no member of {} is set", s.describe(ty))));
                        }
                    }
                    (k, Some(at)) if k != 0 && usize::from(k) <= live => {
                        let k = u32::from(k) - 1;
                        let b = k + u32::from(null.is_some_and(|x| x <= k));
                        let bt = branches[b as usize];
                        let bname = s.describe(bt);
                        if let Some(k_at) = k_at {
                            self.claim(
                                w,
                                k_at,
                                1,
                                Category::Structure,
                                format!("{path}: union type {} ({bname})", k + 1),
                            )?;
                        }
                        let p = self.offset(w, at, path, &format!("the {bname} member"))?;
                        let json = match s.node(bt) {
                            Node::Record(rec) => {
                                let fields: Vec<(Option<&str>, NodeId)> =
                                    rec.fields.iter().map(|f| (Some(&*f.name), f.ty)).collect();
                                self.table(w, p, &fields, path, false)?
                            }
                            _ => self.table(w, p, &[(None, bt)], path, false)?,
                        };
                        out.push_str(&json);
                    }
                    (k, v) => {
                        return Err(self.err(
                            k_at.unwrap_or(t.at),
                            format!(
                                "{path}: union type {k}{} where 1..={live} with its value is expected",
                                if v.is_some() { "" } else { " without a value" }
                            ),
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// The count of the vector at `at` with `size`-byte items: (count, first item).
    fn vector(
        &mut self,
        w: &mut Walker<'_>,
        at: usize,
        size: usize,
        path: &str,
        what: &str,
    ) -> Result<(usize, usize), ExplainError> {
        let n = self.u32(at, path)?;
        let start = at + 4;
        self.range(start, n.saturating_mul(size), size, path)?;
        self.claim(w, at, 4, Category::Structure, format!("{path}: {what} {n}"))?;
        Ok((n, start))
    }

    /// A string at `at` (its length, bytes and 0).
    fn string(&mut self, w: &mut Walker<'_>, at: usize, path: &str, key: bool) -> Result<String, ExplainError> {
        let (n, start) = self.vector(w, at, 1, path, "string length")?;
        if self.buf.get(start + n) != Some(&0) {
            return Err(self.err(start + n, format!("{path}: the string's 0 terminator is missing")));
        }
        let text = std::str::from_utf8(&self.buf[start..start + n])
            .map_err(|e| self.err(start + e.valid_up_to(), format!("{path}: invalid UTF-8 in string")))?;
        let (category, meaning) = if key {
            (Category::Key, format!("{path}: map key {}", preview(text)))
        } else {
            (Category::Value, preview(text))
        };
        let text = text.to_string();
        self.claim(w, start, n, category, meaning)?;
        self.claim(
            w,
            start + n,
            1,
            Category::Structure,
            format!("{path}: string terminator"),
        )?;
        Ok(text)
    }

    /// The value of a field of type `ty` at `at` (its position in its table).
    fn value(
        &mut self,
        w: &mut Walker<'_>,
        ty: NodeId,
        at: usize,
        path: &str,
        out: &mut String,
    ) -> Result<(), ExplainError> {
        let s = self.schema;
        match s.node(ty) {
            Node::Boolean | Node::Int | Node::Long | Node::Float | Node::Double | Node::Enum(_) => {
                let (n, what) = match s.node(ty) {
                    Node::Boolean => {
                        let v = self.read::<1>(at, path)?[0] != 0;
                        out.push_str(if v { "true" } else { "false" });
                        (1, format!("boolean {v}"))
                    }
                    Node::Int => {
                        let v = i32::from_le_bytes(self.read::<4>(at, path)?);
                        out.push_str(&v.to_string());
                        (4, format!("int {v}"))
                    }
                    Node::Long => {
                        let v = i64::from_le_bytes(self.read::<8>(at, path)?);
                        out.push_str(&v.to_string());
                        (8, format!("long {v}"))
                    }
                    Node::Float => {
                        let v = f32::from_le_bytes(self.read::<4>(at, path)?);
                        plain::float(v, out);
                        (4, format!("float {v}"))
                    }
                    Node::Double => {
                        let v = f64::from_le_bytes(self.read::<8>(at, path)?);
                        plain::double(v, out);
                        (8, format!("double {v}"))
                    }
                    Node::Enum(e) => {
                        let width = fbs_enum_width(e.symbols.len());
                        let i = match width {
                            1 => u32::from(self.read::<1>(at, path)?[0]),
                            2 => u32::from(u16::from_le_bytes(self.read::<2>(at, path)?)),
                            _ => u32::from_le_bytes(self.read::<4>(at, path)?),
                        };
                        let sym = e.symbols.get(i as usize).ok_or_else(|| {
                            self.err(
                                at,
                                format!("{path}: enum index {i} is not one of the {} symbols", e.symbols.len()),
                            )
                        })?;
                        plain::string(sym, out);
                        (usize::from(width), format!("{} {i} = {sym}", s.describe(ty)))
                    }
                    _ => return Err(self.err(at, format!("{path}: {} is not a scalar", s.describe(ty)))),
                };
                self.claim(w, at, n, Category::Value, format!("{path}: {what}"))?;
            }
            Node::String => {
                let p = self.offset(w, at, path, "string")?;
                let text = self.string(w, p, path, false)?;
                plain::string(&text, out);
            }
            Node::Bytes | Node::Fixed(_) => {
                let p = self.offset(w, at, path, "bytes")?;
                let (n, start) = self.vector(w, p, 1, path, "bytes length")?;
                if let Node::Fixed(f) = s.node(ty) {
                    if f.size != n {
                        return Err(self.err(
                            p,
                            format!("{path}: {} holds {} bytes, found {n}", s.describe(ty), f.size),
                        ));
                    }
                }
                self.claim(w, start, n, Category::Value, format!("{path}: {n} bytes"))?;
                plain::bytes(&self.buf[start..start + n], out);
            }
            Node::Record(rec) => {
                let p = self.offset(w, at, path, &format!("table {}", s.describe(ty)))?;
                let fields: Vec<(Option<&str>, NodeId)> = rec.fields.iter().map(|f| (Some(&*f.name), f.ty)).collect();
                let json = self.table(w, p, &fields, path, false)?;
                out.push_str(&json);
            }
            Node::Array(items) => {
                let items = *items;
                let p = self.offset(w, at, path, &format!("vector of {}", s.describe(items)))?;
                let size = match s.node(items) {
                    Node::Boolean => 1,
                    Node::Long | Node::Double => 8,
                    Node::Enum(e) => usize::from(fbs_enum_width(e.symbols.len())),
                    _ => 4,
                };
                let (n, start) = self.vector(w, p, size, path, "vector count")?;
                let direct = fbs_direct_item(s, items);
                out.push('[');
                w.depth += 1;
                for i in 0..n {
                    if i > 0 {
                        out.push(',');
                    }
                    let ip = format!("{path}[{i}]");
                    let e = start + size * i;
                    if direct {
                        self.value(w, items, e, &ip, out)?;
                    } else {
                        let t = self.offset(w, e, &ip, "item wrapper")?;
                        let json = self.table(w, t, &[(None, items)], &ip, false)?;
                        out.push_str(&json);
                    }
                }
                w.depth -= 1;
                out.push(']');
            }
            Node::Map(vt) => {
                let vt = *vt;
                let p = self.offset(w, at, path, "vector of map entries")?;
                let (n, start) = self.vector(w, p, 4, path, "map entries")?;
                let names = ["key".to_string(), "value".to_string(), "value".to_string()];
                out.push('{');
                w.depth += 1;
                for i in 0..n {
                    if i > 0 {
                        out.push(',');
                    }
                    let ep = format!("{path}[{i}]");
                    let e = self.offset(w, start + 4 * i, &ep, "map entry")?;
                    let t = self.open(w, e, &ep, "map entry table", &names)?;
                    w.depth += 1;
                    let key = match self.deref(t, 0, &ep)? {
                        Some(kp) => {
                            let sp = self.offset(w, kp, &ep, "key")?;
                            self.string(w, sp, path, true)?
                        }
                        None => String::new(),
                    };
                    plain::string(&key, out);
                    out.push(':');
                    self.field(w, t, vt, 1, &join(path, &key), out)?;
                    w.depth -= 1;
                    self.depth -= 1;
                }
                w.depth -= 1;
                out.push('}');
            }
            Node::Null | Node::Union(_) => {
                return Err(self.err(
                    at,
                    format!("{path}: {} cannot sit in a slot of its own", s.describe(ty)),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explain::span::walk_by;

    const R: &str = r#"{"type":"record","name":"R","fields":[
        {"name":"id","type":"int"},
        {"name":"s","type":"string"},
        {"name":"u","type":["null","long","string"]}]}"#;

    /// The builder's bytes for `doc` (the annotator never calls the decoder;
    /// the encoder only makes its input).
    fn encoded(schema: &str, doc: &str) -> Vec<u8> {
        let schema = Schema::parse(schema.as_bytes()).unwrap();
        let d = crate::generic::json::decode(&schema, doc.as_bytes()).unwrap();
        let mut out = Vec::new();
        crate::generic::encode(crate::codec::Format::Flatbuffers, &schema, &d, &mut out).unwrap();
        out
    }

    #[test]
    fn a_table_reads_by_its_schema() {
        let b = encoded(R, r#"{"id":7,"s":"a","u":"b"}"#);
        let (json, spans) = walk_by(annotate, R, &b).unwrap();
        assert_eq!(json, r#"{"id":7,"s":"a","u":"b"}"#);
        let want: Vec<(usize, usize, String)> = [
            (0, 4, "$: offset to the root table at 16"),
            (4, 4, "vtable: 12 bytes, table 22 bytes"),
            (8, 2, "vtable slot 0 id: at +16"),
            (10, 2, "vtable slot 1 s: at +12"),
            (12, 2, "vtable slot 2 u_type: at +11"),
            (14, 2, "vtable slot 3 u: at +4"),
            (16, 4, "$: table, vtable at 4 (soffset 12)"),
            (20, 4, "$.u: offset to the string member at 44"),
            (24, 3, "padding"),
            (27, 1, "$.u: union type 2 (string)"),
            (28, 4, "$.s: offset to string at 60"),
            (32, 4, "$.id: int 7"),
            (36, 2, "padding"),
            (38, 4, "vtable: 6 bytes, table 8 bytes"),
            (42, 2, "vtable slot 0 value: at +4"),
            (44, 4, "$.u: table (wrapper of string), vtable at 38 (soffset 6)"),
            (48, 4, "$.u: offset to string at 52"),
            (52, 4, "$.u: string length 1"),
            (56, 1, "\"b\""),
            (57, 1, "$.u: string terminator"),
            (58, 2, "padding"),
            (60, 4, "$.s: string length 1"),
            (64, 1, "\"a\""),
            (65, 1, "$.s: string terminator"),
            (66, 2, "padding"),
        ]
        .iter()
        .map(|(o, l, m)| (*o, *l, m.to_string()))
        .collect();
        assert_eq!(spans, want);
        assert_eq!(b.len(), 68);
        // Null: the union's type and value slots are absent.
        let b = encoded(R, r#"{"id":0,"s":"","u":null}"#);
        assert_eq!(walk_by(annotate, R, &b).unwrap().0, r#"{"id":0,"s":"","u":null}"#);
    }

    #[test]
    fn hostile_offsets_are_errors() {
        let s = r#"{"type":"record","name":"R","fields":[]}"#;
        // A root offset past the end, a misaligned one, a soffset outside.
        assert!(
            walk_by(annotate, s, &[0xf0, 0, 0, 0])
                .unwrap_err()
                .message
                .contains("run past")
        );
        assert!(
            walk_by(annotate, s, &[5, 0, 0, 0, 0, 0, 0, 0, 0])
                .unwrap_err()
                .message
                .contains("aligned")
        );
        assert!(
            walk_by(annotate, s, &[4, 0, 0, 0, 0, 0, 0, 0x40])
                .unwrap_err()
                .message
                .contains("outside the buffer")
        );
        // Two fields whose slots name one offset: read twice, refused.
        let two =
            r#"{"type":"record","name":"T","fields":[{"name":"a","type":"string"},{"name":"b","type":"string"}]}"#;
        let b = [
            12, 0, 0, 0, // root offset → table at 12
            8, 0, 8, 0, 4, 0, 4, 0, // vtable at 4: slots 0 and 1 both at +4
            8, 0, 0, 0, // table at 12: vtable at 12 - 8
            4, 0, 0, 0, // offset → string at 20
            1, 0, 0, 0, b'a', 0, 0, 0, // "a"
        ];
        let e = walk_by(annotate, two, &b).unwrap_err();
        assert_eq!(e.offset, 16, "{e}");
        assert!(e.message.contains("overlap bytes 16..20 read before"), "{e}");
        // With slot 1 absent the same bytes read.
        let mut one = b;
        one[10] = 0;
        assert_eq!(walk_by(annotate, two, &one).unwrap().0, r#"{"a":"a","b":""}"#);
    }
}
