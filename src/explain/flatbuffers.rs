//! The FlatBuffers annotator, for the catalog and a user's document alike:
//! one FlatBuffer of the tables [`crate::generic::derive`] derives from the
//! Avro schema, walked by that schema from the root offset; the catalog's
//! layout (schemas/catalog.fbs) adds a file identifier after the root offset
//! and writes `Dimensions` as an inline struct.
//!
//! A table is a 4-byte soffset to its vtable (`vtable = table − soffset`),
//! then its inline fields; the vtable is its own size and the table's (two
//! u16), then one u16 per slot, the field's offset in the table (0: absent,
//! read as its default, [`super::plain::absent`]). Field *i* of a record has
//! slot *s* = the slots of fields `0..i` (a union takes two: its `_type`
//! byte, then an offset to the member's table, a record itself or a wrapper
//! table with one field `value`). A struct's fields sit inline, each aligned
//! to its size. Strings are a uoffset to a u32 length, the bytes and a 0;
//! vectors a uoffset to a u32 count and the items (scalars inline, strings
//! and tables by uoffset); a map is a vector of `{key, value}` tables.
//!
//! Every offset is followed, bounds- and alignment-checked as the official
//! verifier does, and each run of bytes read is claimed once: an overlap is
//! an error, except what the builder shares, a vtable or a string reached
//! again at its start, read again for its new owner. An apparent-size budget
//! bounds the reads, so hostile offsets cannot loop or make a small buffer
//! read as a large one. The spans are then put in byte order, a shared span
//! once with every owner; the bytes no offset reaches are padding.
//!
//! Owners: the catalog's spans by product field ([`Walker::enter`]); a
//! document's by the JSON path of their value without `$.` (root framing:
//! `(envelope)`), a vtable slot by its field, a map entry's framing by its
//! map and its key by its value.
//!
//! Independent of [`crate::generic::flatbuffers`] and of the `flatbuffers`
//! crate: what it read is written as plain JSON ([`super::plain`]), which a
//! test compares with that decoder's datum.

use super::plain;
use super::span::Category::{self, Key, Padding, Structure, Value};
use super::span::{ExplainError, Span, Walker, preview, static_field};
use crate::generic::derive::{Shape, fbs_direct_item, fbs_enum_width, fbs_width, shape};
use crate::generic::schema::{Node, NodeId, Schema};
use std::collections::{BTreeMap, HashSet};

/// Deepest nesting of tables read (the official verifier's default).
const MAX_TABLES_DEEP: usize = 64;
/// The apparent-size budget, as a multiple of the input length (as the
/// schema-driven decoder sets its verifier).
const APPARENT_FACTOR: usize = 16;

/// The records schemas/catalog.fbs writes as inline structs.
const CATALOG_STRUCTS: &[&str] = &["Dimensions"];

/// Walks `bytes` as one FlatBuffer of `schema`, laid out as
/// schemas/catalog.fbs when `catalog` (file identifier, [`CATALOG_STRUCTS`]);
/// the plain JSON of what it read. The spans end in byte order, gaps padding.
pub(crate) fn annotate(
    w: &mut Walker<'_>,
    schema: &Schema,
    catalog: bool,
) -> Result<(String, Vec<String>), ExplainError> {
    let mut r = Reader {
        schema,
        catalog,
        buf: w.bytes,
        claims: BTreeMap::new(),
        vtables: HashSet::new(),
        strings: HashSet::new(),
        apparent: 0,
        max_apparent: w.bytes.len().saturating_mul(APPARENT_FACTOR).max(1024),
        depth: 0,
    };
    let result = r.root(w);
    // Shared data was read once per owner: one span, every owner.
    w.spans.sort_by_key(|s| (s.offset, s.len));
    w.spans.dedup_by(|b, a| {
        let repeat = (a.offset, a.len) == (b.offset, b.len);
        if repeat {
            a.owners.append(&mut b.owners);
        }
        repeat
    });
    for s in w.spans.iter_mut().filter(|s| s.owners.len() > 1) {
        s.owners.sort_unstable();
        s.owners.dedup();
    }
    let (json, members) = result?;
    // The bytes no read reached: padding (zeros) or unreferenced.
    let (mut at, mut gaps) = (0, Vec::new());
    for (start, end) in w
        .spans
        .iter()
        .map(|s| (s.offset, s.offset + s.len))
        .chain([(w.bytes.len(), 0)])
    {
        if start > at {
            gaps.push((at, start - at));
        }
        at = end;
    }
    let (depth, top) = (w.depth, w.top);
    (w.depth, w.top) = (0, None);
    for (at, n) in gaps {
        gap(w, at, n);
    }
    (w.depth, w.top) = (depth, top);
    w.spans.sort_by_key(|s| s.offset);
    w.pos = w.bytes.len();
    Ok((json, members))
}

/// How every span of a vtable's bytes begins (its header and its slots).
const VTABLE: &str = "vtable";

/// Whether `span` is a vtable's header or slot, as this annotator writes them.
pub fn is_vtable(span: &Span) -> bool {
    span.category == Structure && span.meaning.starts_with(VTABLE)
}

fn gap(w: &mut Walker<'_>, at: usize, n: usize) {
    let zero = w.bytes[at..at + n].iter().all(|&b| b == 0);
    let meaning = if zero {
        "padding".to_string()
    } else {
        format!("{n} bytes no offset reaches")
    };
    w.span_at(at, n, Padding, meaning);
}

/// Records a span owned by the value at `owner` (a path from `$`): in a
/// document, the path names the owner; in the catalog, the walker's product
/// field does.
fn emit(w: &mut Walker<'_>, at: usize, n: usize, category: Category, owner: &str, meaning: String) {
    w.span_at(at, n, category, meaning);
    let path = owner.strip_prefix("$.").unwrap_or(owner.trim_start_matches('$'));
    if n > 0 && w.entry.is_none() && !path.is_empty() {
        if let Some(s) = w.spans.last_mut() {
            s.owners[0].path = Some(path.to_string());
        }
    }
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
    /// Laid out as schemas/catalog.fbs.
    catalog: bool,
    buf: &'a [u8],
    /// Runs of bytes read so far: offset → length.
    claims: BTreeMap<usize, usize>,
    /// Vtables and strings already claimed, by position: read again, not
    /// claimed again, when another owner reaches them.
    vtables: HashSet<usize>,
    strings: HashSet<usize>,
    apparent: usize,
    max_apparent: usize,
    /// Tables open.
    depth: usize,
}

/// The inline width of a scalar of type `ty`.
fn width(s: &Schema, ty: NodeId) -> Option<usize> {
    match s.node(ty) {
        Node::Boolean => Some(1),
        Node::Int | Node::Float => Some(4),
        Node::Long | Node::Double => Some(8),
        Node::Enum(e) => Some(usize::from(fbs_enum_width(e.symbols.len()))),
        _ => None,
    }
}

fn join(path: &str, name: &str) -> String {
    format!("{path}.{name}")
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
        if at.checked_add(n).is_none_or(|end| end > self.buf.len()) {
            let len = self.buf.len();
            return Err(self.err(at, format!("{what}: {n} bytes at {at} run past the {len}-byte buffer")));
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

    /// Records `n` bytes at `at`, owned by `owner`, as read once: an error
    /// if any was read before. Unless `fresh`, they are shared data read
    /// before as a whole, recorded again for their new owner.
    #[allow(clippy::too_many_arguments)]
    fn claim(
        &mut self,
        w: &mut Walker<'_>,
        fresh: bool,
        at: usize,
        n: usize,
        category: Category,
        owner: &str,
        meaning: String,
    ) -> Result<(), ExplainError> {
        if n == 0 {
            return Ok(());
        }
        let end = at + n;
        let before = self.claims.range(..=at).next_back().map(|(&o, &l)| (o, l));
        let after = self.claims.range(at..).next().map(|(&o, &l)| (o, l));
        for (o, l) in before.into_iter().chain(after).filter(|_| fresh) {
            if o < end && at < o + l {
                return Err(self.err(
                    at,
                    format!("{meaning}: bytes {at}..{end} overlap bytes {o}..{} read before", o + l),
                ));
            }
        }
        self.claims.insert(at, n);
        emit(w, at, n, category, owner, meaning);
        Ok(())
    }

    /// A uoffset at `at`: claims it and returns the position it names.
    fn offset(&mut self, w: &mut Walker<'_>, at: usize, path: &str, to: &str) -> Result<usize, ExplainError> {
        let o = self.u32(at, path)?;
        let target = at.saturating_add(o);
        let meaning = format!("{path}: offset to {to} at {target}");
        self.claim(w, true, at, 4, Structure, path, meaning)?;
        Ok(target)
    }

    fn root(&mut self, w: &mut Walker<'_>) -> Result<(String, Vec<String>), ExplainError> {
        let s = self.schema;
        let at = self.offset(w, 0, "$", "the root table")?;
        if self.catalog {
            let id = self.read::<4>(4, "file identifier")?;
            let meaning = format!("file identifier {:?}", String::from_utf8_lossy(&id));
            self.claim(w, true, 4, 4, Structure, "$", meaning)?;
        }
        let json = self.table(w, at, s.root(), "$", true)?;
        let members = match s.node(s.root()) {
            Node::Record(rec) => rec.fields.iter().map(|f| f.name.to_string()).collect(),
            _ => Vec::new(),
        };
        Ok((json, members))
    }

    /// Opens the table at `at`: its soffset and its vtable, whose slots are
    /// named and owned by `slots` (a vtable read before is recorded again
    /// for this table); the slots of an entry ([`Walker::entry`]) by its fields.
    fn open(
        &mut self,
        w: &mut Walker<'_>,
        at: usize,
        path: &str,
        what: &str,
        slots: &[(String, String)],
        record: Option<NodeId>,
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
        let meaning = format!("{path}: {what}, vtable at {vt} (soffset {so})");
        self.claim(w, true, at, 4, Structure, path, meaning)?;
        let fresh = self.vtables.insert(vt);
        let (top, field) = (w.top, w.field);
        w.top = None;
        let table_len = if vt_len >= 4 {
            self.u16(vt + 2, path)?.to_string()
        } else {
            "?".into()
        };
        let meaning = format!("{VTABLE}: {vt_len} bytes, table {table_len} bytes");
        self.claim(w, fresh, vt, vt_len.min(4), Structure, path, meaning)?;
        for (i, e) in (vt + 4..vt + vt_len).step_by(2).enumerate() {
            let off = self.u16(e, path)?;
            let (name, owner) = slots.get(i).map_or(("(not in the schema)", path), |(n, o)| (n, o));
            let m = if off == 0 {
                format!("{VTABLE} slot {i} {name}: absent")
            } else {
                format!("{VTABLE} slot {i} {name}: at +{off}")
            };
            self.claim(w, fresh, e, 2, Structure, owner, m)?;
            // An entry's slot is owned by its field; the summary keeps it framing.
            if let Some(s) = w.spans.last_mut().filter(|_| record.is_some() && w.entry == record) {
                s.owners[0].field = static_field(name);
            }
        }
        (w.top, w.field) = (top, field);
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

    /// The table at `at` of type `ty`: a record's JSON object, or for any
    /// other type (a wrapper, one field `value`) the value.
    fn table(
        &mut self,
        w: &mut Walker<'_>,
        at: usize,
        ty: NodeId,
        path: &str,
        root: bool,
    ) -> Result<String, ExplainError> {
        let s = self.schema;
        let (record, fields): (_, Vec<(&str, &str, NodeId)>) = match s.node(ty) {
            Node::Record(rec) => (Some(ty), rec.fields.iter().map(|f| (&*f.name, f.key(), f.ty)).collect()),
            _ => (None, vec![("value", "", ty)]),
        };
        let paths: Vec<String> = fields
            .iter()
            .map(|f| if record.is_some() { join(path, f.1) } else { path.into() })
            .collect();
        let mut slots = Vec::new();
        for (&(name, _, fty), p) in fields.iter().zip(&paths) {
            if fbs_width(s, fty) == 2 {
                slots.push((format!("{name}_type"), p.clone()));
            }
            slots.push((name.to_string(), p.clone()));
        }
        let what = match record {
            Some(_) => "table".to_string(),
            None => format!("table (wrapper of {})", s.describe(ty)),
        };
        let entered = record.and_then(|r| w.enter(r));
        let t = self.open(w, at, path, &what, &slots, record)?;
        w.depth += 1;
        let mut out = String::new();
        if record.is_none() {
            self.field(w, t, ty, 0, path, &mut out)?;
        } else {
            let mut slot = 0u16;
            self.each(w, fields.len(), ['{', '}'], &mut out, |r, w, i, out| {
                let (name, _, fty) = fields[i];
                if root {
                    w.top = Some(i);
                }
                w.name_field(ty, name);
                plain::string(name, out);
                out.push(':');
                r.field(w, t, fty, slot, &paths[i], out)?;
                slot = slot.saturating_add(fbs_width(s, fty));
                Ok(())
            })?;
            if root {
                w.top = None;
            }
        }
        w.leave(entered);
        w.depth -= 1;
        self.depth -= 1;
        Ok(out)
    }

    /// `n` items written by `item` between `brackets`, one level deeper.
    fn each(
        &mut self,
        w: &mut Walker<'_>,
        n: usize,
        brackets: [char; 2],
        out: &mut String,
        mut item: impl FnMut(&mut Self, &mut Walker<'_>, usize, &mut String) -> Result<(), ExplainError>,
    ) -> Result<(), ExplainError> {
        out.push(brackets[0]);
        w.depth += 1;
        for i in 0..n {
            if i > 0 {
                out.push(',');
            }
            item(self, w, i, out)?;
        }
        w.depth -= 1;
        out.push(brackets[1]);
        Ok(())
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
                            let meaning = format!("{path}: union type 0 (NONE)");
                            self.claim(w, true, at, 1, Structure, path, meaning)?;
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
                            let meaning = format!("{path}: union type {} ({bname})", k + 1);
                            self.claim(w, true, k_at, 1, Structure, path, meaning)?;
                        }
                        let p = self.offset(w, at, path, &format!("the {bname} member"))?;
                        out.push_str(&self.table(w, p, bt, path, false)?);
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

    /// The vector at `at` with `size`-byte items: (count, first item), checked, not claimed.
    fn vector(&mut self, at: usize, size: usize, path: &str) -> Result<(usize, usize), ExplainError> {
        let n = self.u32(at, path)?;
        let start = at + 4;
        self.range(start, n.saturating_mul(size), size, path)?;
        Ok((n, start))
    }

    /// The vector at `at` as [`Reader::vector`], its count claimed.
    fn counted(
        &mut self,
        w: &mut Walker<'_>,
        at: usize,
        size: usize,
        path: &str,
        what: &str,
    ) -> Result<(usize, usize), ExplainError> {
        let (n, start) = self.vector(at, size, path)?;
        self.claim(w, true, at, 4, Structure, path, format!("{path}: {what} {n}"))?;
        Ok((n, start))
    }

    /// A string at `at` (its length, bytes and 0), a map key when `key`
    /// (owned by its entry's value). A string read before is shared.
    fn string(&mut self, w: &mut Walker<'_>, at: usize, path: &str, key: bool) -> Result<String, ExplainError> {
        let (n, start) = self.vector(at, 1, path)?;
        if self.buf.get(start + n) != Some(&0) {
            return Err(self.err(start + n, format!("{path}: the string's 0 terminator is missing")));
        }
        let text = std::str::from_utf8(&self.buf[start..start + n])
            .map_err(|e| self.err(start + e.valid_up_to(), format!("{path}: invalid UTF-8 in string")))?;
        let (category, meaning, owner) = if key {
            (Key, format!("{path}: map key {}", preview(text)), join(path, text))
        } else {
            (Value, preview(text), path.to_string())
        };
        let text = text.to_string();
        let fresh = self.strings.insert(at);
        self.claim(w, fresh, at, 4, Structure, &owner, format!("{path}: string length {n}"))?;
        self.claim(w, fresh, start, n, category, &owner, meaning)?;
        self.claim(
            w,
            fresh,
            start + n,
            1,
            Structure,
            &owner,
            format!("{path}: string terminator"),
        )?;
        Ok(text)
    }

    /// A scalar of type `ty` at `at`: its width and what it reads as, in words.
    fn scalar(&mut self, ty: NodeId, at: usize, path: &str, out: &mut String) -> Result<(usize, String), ExplainError> {
        let s = self.schema;
        let n = width(s, ty).unwrap_or(8);
        let bits = match n {
            1 => u64::from(self.read::<1>(at, path)?[0]),
            2 => u64::from(u16::from_le_bytes(self.read::<2>(at, path)?)),
            4 => u64::from(u32::from_le_bytes(self.read::<4>(at, path)?)),
            _ => u64::from_le_bytes(self.read::<8>(at, path)?),
        };
        let what = match s.node(ty) {
            Node::Boolean => {
                out.push_str(if bits != 0 { "true" } else { "false" });
                format!("boolean {}", bits != 0)
            }
            Node::Int | Node::Long => {
                let v = if n == 4 {
                    i64::from(bits as u32 as i32)
                } else {
                    bits as i64
                };
                out.push_str(&v.to_string());
                format!("{} {v}", s.describe(ty))
            }
            Node::Float => {
                plain::float(f32::from_bits(bits as u32), out);
                format!("float {}", f32::from_bits(bits as u32))
            }
            Node::Double => {
                plain::double(f64::from_bits(bits), out);
                format!("double {}", f64::from_bits(bits))
            }
            Node::Enum(e) => {
                let sym = e.symbols.get(bits as usize).ok_or_else(|| {
                    let m = format!(
                        "{path}: enum index {bits} is not one of the {} symbols",
                        e.symbols.len()
                    );
                    self.err(at, m)
                })?;
                plain::string(sym, out);
                format!("{} {bits} = {sym}", s.describe(ty))
            }
            _ => return Err(self.err(at, format!("{path}: {} is not a scalar", s.describe(ty)))),
        };
        Ok((n, what))
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
                let (n, what) = self.scalar(ty, at, path, out)?;
                self.claim(w, true, at, n, Value, path, format!("{path}: {what}"))?;
            }
            Node::String => {
                let p = self.offset(w, at, path, "string")?;
                let text = self.string(w, p, path, false)?;
                plain::string(&text, out);
            }
            Node::Bytes | Node::Fixed(_) => {
                let p = self.offset(w, at, path, "bytes")?;
                let (n, start) = self.counted(w, p, 1, path, "bytes length")?;
                if let Node::Fixed(f) = s.node(ty) {
                    if f.size != n {
                        return Err(self.err(
                            p,
                            format!("{path}: {} holds {} bytes, found {n}", s.describe(ty), f.size),
                        ));
                    }
                }
                self.claim(w, true, start, n, Value, path, format!("{path}: {n} bytes"))?;
                plain::bytes(&self.buf[start..start + n], out);
            }
            Node::Record(rec)
                if self.catalog && s.name_of(ty).is_some_and(|n| CATALOG_STRUCTS.contains(&n.short())) =>
            {
                // An inline struct: each field aligned to its size.
                let mut off = 0usize;
                self.each(w, rec.fields.len(), ['{', '}'], out, |r, w, i, out| {
                    let f = &rec.fields[i];
                    plain::string(&f.name, out);
                    out.push(':');
                    let p = join(path, f.key());
                    off = off.next_multiple_of(width(s, f.ty).unwrap_or(1));
                    let (n, what) = r.scalar(f.ty, at.saturating_add(off), &p, out)?;
                    r.claim(w, true, at.saturating_add(off), n, Value, &p, format!("{p}: {what}"))?;
                    off += n;
                    Ok(())
                })?;
            }
            Node::Record(_) => {
                let p = self.offset(w, at, path, &format!("table {}", s.describe(ty)))?;
                out.push_str(&self.table(w, p, ty, path, false)?);
            }
            Node::Array(items) => {
                let items = *items;
                let p = self.offset(w, at, path, &format!("vector of {}", s.describe(items)))?;
                let size = width(s, items).unwrap_or(4);
                let (n, start) = self.counted(w, p, size, path, "vector count")?;
                let direct = fbs_direct_item(s, items);
                self.each(w, n, ['[', ']'], out, |r, w, i, out| {
                    let ip = format!("{path}[{i}]");
                    if direct {
                        return r.value(w, items, start + size * i, &ip, out);
                    }
                    let t = r.offset(w, start + size * i, &ip, "item wrapper")?;
                    out.push_str(&r.table(w, t, items, &ip, false)?);
                    Ok(())
                })?;
            }
            Node::Map(vt) => {
                let vt = *vt;
                let p = self.offset(w, at, path, "vector of map entries")?;
                let (n, start) = self.counted(w, p, 4, path, "map entries")?;
                let slots = ["key", "value", "value"].map(|n| (n.to_string(), path.to_string()));
                self.each(w, n, ['{', '}'], out, |r, w, i, out| {
                    let e = r.offset(w, start + 4 * i, path, &format!("map entry {i}"))?;
                    let t = r.open(w, e, path, &format!("map entry {i} table"), &slots, None)?;
                    w.depth += 1;
                    let key = match r.deref(t, 0, path)? {
                        Some(kp) => {
                            let sp = r.offset(w, kp, path, "key")?;
                            r.string(w, sp, path, true)?
                        }
                        None => String::new(),
                    };
                    plain::string(&key, out);
                    out.push(':');
                    r.field(w, t, vt, 1, &join(path, &key), out)?;
                    w.depth -= 1;
                    r.depth -= 1;
                    Ok(())
                })?;
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
    use crate::explain::span::{ENVELOPE, walk_by};

    /// A document's annotation (not the catalog's layout).
    fn document(w: &mut Walker<'_>, schema: &Schema) -> Result<(String, Vec<String>), ExplainError> {
        annotate(w, schema, false)
    }

    /// The builder's bytes for `doc` (the annotator never calls the decoder;
    /// the encoder only makes its input).
    fn encoded(schema: &str, doc: &str) -> Vec<u8> {
        let schema = Schema::parse(schema.as_bytes()).unwrap();
        let d = crate::generic::json::decode(&schema, doc.as_bytes()).unwrap();
        let mut out = Vec::new();
        crate::generic::encode(crate::codec::Format::Flatbuffers, &schema, &d, &mut out).unwrap();
        out
    }

    const R: &str = r#"{"type":"record","name":"R","fields":[
        {"name":"id","type":"int"},
        {"name":"s","type":"string"},
        {"name":"u","type":["null","long","string"]}]}"#;

    /// A map, a union and nulls (the page's document, `tests/page.rs`).
    const ORDERS: &str = include_str!("../../fixtures/orders/doc.avsc");
    const ORDERS_DOC: &str = include_str!("../../fixtures/orders/doc.json");

    /// The value at `path` (`orders[0].tags.gift`) in `doc`, if any.
    fn value_at<'a>(doc: &'a serde_json::Value, path: &str) -> Option<&'a serde_json::Value> {
        path.split('.').try_fold(doc, |v, part| {
            let (name, indexes) = part.split_once('[').unwrap_or((part, ""));
            let v = v.get(name)?;
            let mut indexes = indexes.strip_suffix(']').map(|i| i.split("][")).into_iter().flatten();
            indexes.try_fold(v, |v, i| v.get(i.parse::<usize>().ok()?))
        })
    }

    /// A document's spans are owned by the JSON paths of their values: every
    /// path names a value of the document, and the map entry's value, the
    /// union's string and the root's double each own bytes.
    #[test]
    fn a_documents_spans_are_owned_by_their_values() {
        let b = encoded(ORDERS, ORDERS_DOC);
        let mut w = Walker::new(&b);
        annotate(&mut w, &Schema::parse(ORDERS.as_bytes()).unwrap(), false).unwrap();
        let mut owners: HashSet<String> = w.spans.iter().flat_map(|s| s.owners.iter().map(|o| o.path())).collect();
        let doc: serde_json::Value = serde_json::from_str(ORDERS_DOC).unwrap();
        let unknown = |owners: &HashSet<String>| -> Vec<String> {
            let mut u: Vec<String> = owners
                .iter()
                .filter(|p| *p != ENVELOPE && value_at(&doc, p).is_none())
                .cloned()
                .collect();
            u.sort();
            u
        };
        assert_eq!(unknown(&owners), Vec::<String>::new());
        for p in ["orders[0].tags.gift", "orders[1].note", "total", "orders[1]", ENVELOPE] {
            assert!(owners.contains(p), "nothing owned by {p}: {owners:?}");
        }
        // The check can fail: paths the document does not have.
        owners.extend(["orders[2].id".to_string(), "orders[0].tags[0]".to_string()]);
        assert_eq!(unknown(&owners), ["orders[0].tags[0]", "orders[2].id"]);
    }

    #[test]
    fn a_table_reads_by_its_schema() {
        let b = encoded(R, r#"{"id":7,"s":"a","u":"b"}"#);
        let (json, spans) = walk_by(document, R, &b).unwrap();
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
        assert_eq!(walk_by(document, R, &b).unwrap().0, r#"{"id":0,"s":"","u":null}"#);
    }

    #[test]
    fn hostile_offsets_are_errors() {
        let s = r#"{"type":"record","name":"R","fields":[]}"#;
        // A root offset past the end, a misaligned one, a soffset outside.
        for (b, want) in [
            (&[0xf0, 0, 0, 0][..], "run past"),
            (&[5, 0, 0, 0, 0, 0, 0, 0, 0], "aligned"),
            (&[4, 0, 0, 0, 0, 0, 0, 0x40], "outside the buffer"),
        ] {
            let e = walk_by(document, s, b).unwrap_err();
            assert!(e.message.contains(want), "{e}");
        }
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
        let e = walk_by(document, two, &b).unwrap_err();
        assert_eq!(e.offset, 16, "{e}");
        assert!(e.message.contains("overlap bytes 16..20 read before"), "{e}");
        // With slot 1 absent the same bytes read.
        let mut one = b;
        one[10] = 0;
        assert_eq!(walk_by(document, two, &one).unwrap().0, r#"{"a":"a","b":""}"#);
        // Two offsets to one string: shared, one span owned by both fields.
        let shared = [
            12, 0, 0, 0, // root offset → table at 12
            8, 0, 12, 0, 4, 0, 8, 0, // vtable at 4: slots at +4 and +8
            8, 0, 0, 0, // table at 12: vtable at 12 - 8
            8, 0, 0, 0, 4, 0, 0, 0, // offsets at 16 and 20 → string at 24
            1, 0, 0, 0, b'a', 0, 0, 0, // "a"
        ];
        let schema = Schema::parse(two.as_bytes()).unwrap();
        let mut w = Walker::new(&shared);
        assert_eq!(annotate(&mut w, &schema, false).unwrap().0, r#"{"a":"a","b":"a"}"#);
        let a = w.spans.iter().find(|s| s.offset == 28).unwrap();
        let owners: Vec<String> = a.owners.iter().map(|o| o.path()).collect();
        assert_eq!((a.len, owners), (1, vec!["a".to_string(), "b".to_string()]));
        assert_eq!(w.spans.iter().map(|s| s.len).sum::<usize>(), shared.len());
    }
}
