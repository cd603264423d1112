//! The schema-driven Avro codec: one datum in the Avro specification's
//! "Binary Encoding" (no container file, no schema in the bytes).
//!
//! | schema type | bytes |
//! |---|---|
//! | `null` | nothing |
//! | `boolean` | one byte, `00` or `01` |
//! | `int`, `long` | zigzag varint (`-1` → `01`, `1` → `02`) |
//! | `float`, `double` | 4 / 8 bytes little-endian IEEE 754 |
//! | `bytes`, `string` | length as a `long`, then the bytes (UTF-8 for strings) |
//! | `fixed` | its size in bytes |
//! | `enum` | the symbol's index as an `int` |
//! | union | the branch index as a `long`, then the value |
//! | `array`, `map` | blocks: a `long` count, the items (a map item: key string, value), a `0` count ending them; a negative count is followed by the block's byte size |
//! | `record` | the fields in schema order, nothing between them |
//!
//! The encoder writes each non-empty array and map as one positive-count
//! block; with `schemas/catalog.avsc` its bytes equal the catalog's Avro
//! codec's. The decoder reads every block form. Hostile input: lengths and
//! counts are checked against the bytes left (an item takes at least its
//! type's smallest encoding), items that encode in zero bytes (`null`, empty
//! records) draw on a budget of [`ZERO_BYTE_FLOOR`] plus eight per input
//! byte (so an array of up to 65,536 nulls, a few bytes long, still reads),
//! nesting is bounded by [`MAX_DEPTH`]. Reading bytes written with another
//! schema is [`super::resolve`]'s.

use super::datum::{Datum, Fields, Scalars};
use super::error::{GenericError, GenericErrorKind, from_decode, mismatch, nest, nest_index};
use super::schema::{Kind, Node, NodeId, Schema};
use super::walk::{self, MAX_DEPTH, check_unique_keys, enum_symbol_index, record_field};
use crate::codec::cursor::Cursor;
use crate::codec::varint;

/// Zero-byte items (`null`, empty records) any payload may hold, beside
/// eight per input byte: the work and memory a tiny hostile payload can ask
/// for is bounded (65,536 items), and a writer's one-block array of that
/// many nulls reads back.
pub const ZERO_BYTE_FLOOR: usize = 1 << 16;

type Result<T> = std::result::Result<T, GenericError>;

/// Appends the Avro binary encoding of `value`, an instance of `schema`.
pub fn encode(schema: &Schema, value: &Datum, out: &mut Vec<u8>) -> Result<()> {
    write_node(schema, schema.root(), value, out, 0)
}

/// Reads one whole datum of `schema` (trailing bytes are an error).
pub fn decode(schema: &Schema, bytes: &[u8]) -> Result<Datum> {
    let mut r = Reader {
        c: Cursor::new(bytes),
        schema,
        kinds: schema.kinds(),
        min: schema.min_sizes(),
        zero_budget: bytes.len().saturating_mul(8).saturating_add(ZERO_BYTE_FLOOR),
    };
    let mut d = Datum::Null;
    r.value(schema.root(), 0, &mut d)?;
    super::error::finished(&r.c)?;
    Ok(d)
}

fn write_len(out: &mut Vec<u8>, n: usize) {
    varint::write_i64_zigzag(out, n as i64);
}

fn write_node(schema: &Schema, node: NodeId, datum: &Datum, out: &mut Vec<u8>, depth: usize) -> Result<()> {
    if depth > MAX_DEPTH {
        return Err(GenericError::depth_limit(MAX_DEPTH, None));
    }
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
        (Node::Enum(e), Datum::Enum(i, s)) => {
            let index = enum_symbol_index(e, *i, s)?;
            varint::write_i64_zigzag(out, i64::from(index));
        }
        (Node::Union(branches), d) => match walk::branch_for(schema, branches, d) {
            Some((i, inner)) => {
                varint::write_i64_zigzag(out, i64::from(i));
                write_node(schema, branches[i as usize], inner, out, depth + 1)?;
            }
            None => return Err(mismatch(schema, node, d)),
        },
        (Node::Array(items), Datum::Array(values)) => {
            if !values.is_empty() {
                write_len(out, values.len());
                for (i, v) in values.iter().enumerate() {
                    write_node(schema, *items, v, out, depth + 1).map_err(|e| nest_index(e, i))?;
                }
            }
            out.push(0);
        }
        (Node::Array(items), Datum::Scalars(values)) => {
            if !values.is_empty() {
                write_len(out, values.len());
                // Items of the schema's own type straight from the vector
                // (where `write_node` would take them at this depth);
                // anything else item by item, for its errors.
                match (schema.node(*items), values) {
                    (Node::Double, Scalars::Double(v)) if depth < MAX_DEPTH => {
                        out.reserve(8 * v.len());
                        for f in v {
                            out.extend_from_slice(&f.to_le_bytes());
                        }
                    }
                    (Node::Long, Scalars::Long(v)) if depth < MAX_DEPTH => {
                        for &x in v {
                            varint::write_i64_zigzag(out, x);
                        }
                    }
                    (Node::Int, Scalars::Int(v)) if depth < MAX_DEPTH => {
                        for &x in v {
                            varint::write_i64_zigzag(out, i64::from(x));
                        }
                    }
                    _ => {
                        for (i, v) in values.iter().enumerate() {
                            write_node(schema, *items, &v, out, depth + 1).map_err(|e| nest_index(e, i))?;
                        }
                    }
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
                    write_node(schema, *values, v, out, depth + 1).map_err(|e| nest(e, k))?;
                }
            }
            out.push(0);
        }
        (Node::Record(r), Datum::Record(fields)) => {
            for (i, f) in r.fields.iter().enumerate() {
                let v = record_field(fields, i, &f.name).ok_or_else(|| GenericError::missing_field(&*f.name, None))?;
                write_node(schema, f.ty, v, out, depth + 1).map_err(|e| nest(e, &f.name))?;
            }
        }
        (_, d) => return Err(mismatch(schema, node, d)),
    }
    Ok(())
}

struct Reader<'a> {
    c: Cursor<'a>,
    schema: &'a Schema,
    /// [`Schema::kinds`]: the dispatch of [`Reader::leaf`] and
    /// [`Reader::child`].
    kinds: &'a [Kind],
    /// Smallest encoding of each type, in bytes.
    min: &'a [u64],
    zero_budget: usize,
}

impl<'a> Reader<'a> {
    /// A zigzag varint, by [`varint::read_i64_zigzag_hot`] (the catalog's
    /// Avro reader's: one-byte values in line).
    #[inline(always)]
    fn long(&mut self, what: &'static str) -> Result<i64> {
        varint::read_i64_zigzag_hot(&mut self.c, what).map_err(|e| from_decode("", e))
    }

    fn range(at: usize, what: &str, v: i64) -> GenericError {
        GenericError::out_of_range(Some(at), what, v.to_string())
    }

    /// A length, then that many bytes. Lengths of one or two varint bytes
    /// (up to 8,191: hex hashes, names, text) read in line, longer ones out
    /// of line ([`varint::read_i64_zigzag_hot2`]).
    #[inline(always)]
    fn bytes(&mut self, what: &'static str) -> Result<&'a [u8]> {
        let at = self.c.pos();
        let len = varint::read_i64_zigzag_hot2(&mut self.c, what).map_err(|e| from_decode("", e))?;
        let len = u64::try_from(len).map_err(|_| Self::range(at, what, len))?;
        self.c.take(len, what).map_err(|e| from_decode("", e))
    }

    /// The item count of the next block (0 ends the array or map), checked
    /// against the bytes left and, for zero-byte items, the budget. A
    /// one-byte count of 0 to 63 items of a type that takes bytes (every
    /// block of a short array, and its end) is read in line; anything else
    /// by [`Reader::block_any`], from the same byte.
    #[inline(always)]
    fn block(&mut self, item: NodeId, per_item_extra: u64, what: &'static str) -> Result<usize> {
        if let Some(b) = self.c.peek()
            && b & 0x81 == 0
        {
            // A one-byte varint (high bit clear) of an even zigzag: b / 2.
            let n = u64::from(b >> 1);
            let min = self.min[item].saturating_add(per_item_extra);
            // `n` items of at least `min` bytes fit in the bytes after this
            // one: `block_any`'s check, passed.
            if n == 0 || (min > 0 && n.saturating_mul(min) < self.c.remaining() as u64) {
                self.c.seek(self.c.pos() + 1);
                return Ok(n as usize);
            }
        }
        self.block_any(item, per_item_extra, what)
    }

    /// [`Reader::block`] for any count: varints of any length, negative
    /// counts (a byte size follows), zero-byte items (the budget) and the
    /// errors.
    #[inline(never)]
    fn block_any(&mut self, item: NodeId, per_item_extra: u64, what: &'static str) -> Result<usize> {
        let at = self.c.pos();
        let n = self.long(what)?;
        if n == 0 {
            return Ok(0);
        }
        let count = if n < 0 {
            let _size = self.long("block byte size")?;
            n.unsigned_abs()
        } else {
            n as u64
        };
        let min = self.min[item].saturating_add(per_item_extra);
        if min > 0 {
            return self.c.check_count(count, min, what).map_err(|e| from_decode("", e));
        }
        {
            if count > self.zero_budget as u64 {
                return Err(GenericError::at(
                    "",
                    at,
                    GenericErrorKind::LengthExceedsInput {
                        what: format!("{what} of zero-byte items"),
                        len: count,
                        remaining: self.c.remaining(),
                    },
                ));
            }
            self.zero_budget -= count as usize;
        }
        Ok(count as usize)
    }

    /// A field, item or branch value of type `node` at `depth`, written
    /// into `slot` (a placeholder in the container that owns it): the common
    /// scalars and unions read here, without a call to [`Reader::value`]
    /// (its bytes, checks and errors), anything else by [`Reader::value`].
    #[inline(always)]
    fn child(&mut self, node: NodeId, depth: usize, slot: &mut Datum) -> Result<()> {
        if depth <= MAX_DEPTH {
            if let Some(r) = self.leaf(node, slot) {
                return r;
            }
            // A branch's value is one deeper: within the limit here.
            if self.kinds[node] == Kind::Union
                && depth < MAX_DEPTH
                && let Node::Union(branches) = self.schema.node(node)
            {
                return self.union(node, branches, depth, slot);
            }
        }
        self.value(node, depth, slot)
    }

    /// A scalar of type `node` into `slot` (`None` for other types), read in
    /// line: [`Reader::value`]'s bytes, checks and errors. The caller checked
    /// the depth.
    #[inline(always)]
    fn leaf(&mut self, node: NodeId, slot: &mut Datum) -> Option<Result<()>> {
        Some(match self.kinds[node] {
            Kind::Null => {
                put(slot, Datum::Null);
                Ok(())
            }
            Kind::Long => self.long("long").map(|v| put(slot, Datum::Long(v))),
            Kind::Int => self.int(slot),
            Kind::Double => self
                .c
                .array::<8>("double")
                .map(|b| put(slot, Datum::Double(f64::from_le_bytes(b))))
                .map_err(|e| from_decode("", e)),
            Kind::String => self.string(slot),
            Kind::Boolean => self.boolean(slot),
            _ => return None,
        })
    }

    #[inline(always)]
    fn int(&mut self, slot: &mut Datum) -> Result<()> {
        let at = self.c.pos();
        let v = self.long("int")?;
        match i32::try_from(v) {
            Ok(v) => {
                put(slot, Datum::Int(v));
                Ok(())
            }
            Err(_) => Err(Self::range(at, "int", v)),
        }
    }

    #[inline(always)]
    fn boolean(&mut self, slot: &mut Datum) -> Result<()> {
        let at = self.c.pos();
        match self.c.u8("boolean").map_err(|e| from_decode("", e))? {
            0 => put(slot, Datum::Boolean(false)),
            1 => put(slot, Datum::Boolean(true)),
            b => {
                return Err(GenericError::unexpected(
                    "",
                    Some(at),
                    "boolean 00 or 01",
                    format!("0x{b:02x}"),
                ));
            }
        }
        Ok(())
    }

    /// The union `node` of `branches` at `depth` (at most [`MAX_DEPTH`]) into
    /// `slot`: the branch index, then its value, bare (no `Box`) when the
    /// writers pick this branch for it by its shape (`walk::branch_for`): no
    /// earlier branch takes it.
    fn union(&mut self, node: NodeId, branches: &[NodeId], depth: usize, slot: &mut Datum) -> Result<()> {
        let at = self.c.pos();
        let i = self.long("union branch")?;
        let Some(&b) = usize::try_from(i).ok().and_then(|i| branches.get(i)) else {
            return Err(Self::range(at, &format!("branch of {}", self.schema.describe(node)), i));
        };
        let leaf = if depth < MAX_DEPTH { self.leaf(b, slot) } else { None };
        match leaf {
            Some(r) => r?,
            None => self.value(b, depth + 1, slot)?,
        }
        if branches[..i as usize]
            .iter()
            .any(|&o| walk::accepts(self.schema, o, slot))
        {
            let v = std::mem::replace(slot, Datum::Null);
            put(slot, Datum::Union(i as u32, Box::new(v)));
        }
        Ok(())
    }

    #[inline(always)]
    fn string(&mut self, slot: &mut Datum) -> Result<()> {
        let at = self.c.pos();
        let b = self.bytes("string length")?;
        match crate::codec::utf8::str_at(at, b) {
            Ok(s) => {
                put(slot, Datum::String(s.to_string()));
                Ok(())
            }
            Err(_) => Err(GenericError::invalid_utf8(at)),
        }
    }

    /// A value of type `node` at `depth` into `slot`. Every value is built
    /// where it stays (a container's items are read into placeholders made
    /// first, [`placeholders`]), not returned and moved: a `Datum` returned
    /// through memory is stored piece by piece and read back whole, a
    /// store-to-load forwarding stall per value.
    fn value(&mut self, node: NodeId, depth: usize, slot: &mut Datum) -> Result<()> {
        let schema = self.schema;
        let at = self.c.pos();
        if depth > MAX_DEPTH {
            return Err(GenericError::depth_limit(MAX_DEPTH, Some(at)));
        }
        let v = match schema.node(node) {
            Node::Null => Datum::Null,
            Node::Boolean => return self.boolean(slot),
            Node::Int => return self.int(slot),
            Node::Long => Datum::Long(self.long("long")?),
            Node::Float => Datum::Float(f32::from_le_bytes(
                self.c.array::<4>("float").map_err(|e| from_decode("", e))?,
            )),
            Node::Double => Datum::Double(f64::from_le_bytes(
                self.c.array::<8>("double").map_err(|e| from_decode("", e))?,
            )),
            Node::Bytes => Datum::Bytes(self.bytes("bytes length")?.to_vec()),
            Node::String => return self.string(slot),
            Node::Fixed(f) => Datum::Fixed(self.c.fixed(f.size, "fixed").map_err(|e| from_decode("", e))?.to_vec()),
            Node::Enum(e) => {
                let i = self.long("enum index")?;
                match usize::try_from(i).ok().and_then(|i| e.symbols.get(i)) {
                    Some(s) => Datum::Enum(i as u32, s.clone()),
                    None => return Err(Self::range(at, &format!("index of enum {}", e.name.fullname), i)),
                }
            }
            Node::Union(branches) => return self.union(node, branches, depth, slot),
            Node::Array(items) => match schema.node(*items) {
                // Arrays of ints, longs and doubles (meshes, series) read
                // into an unboxed vector, without a call per item; the same
                // bytes, checks and errors as `value`.
                Node::Int if depth < MAX_DEPTH => {
                    let mut out = Vec::new();
                    while let count @ 1.. = self.block(*items, 0, "array block count")? {
                        out.reserve(count);
                        for _ in 0..count {
                            let item_at = self.c.pos();
                            let v = self.long("int").map_err(|e| nest_index(e, out.len()))?;
                            let v =
                                i32::try_from(v).map_err(|_| nest_index(Self::range(item_at, "int", v), out.len()))?;
                            out.push(v);
                        }
                    }
                    Datum::Scalars(Scalars::Int(out))
                }
                Node::Long if depth < MAX_DEPTH => {
                    let mut out = Vec::new();
                    while let count @ 1.. = self.block(*items, 0, "array block count")? {
                        out.reserve(count);
                        for _ in 0..count {
                            out.push(self.long("long").map_err(|e| nest_index(e, out.len()))?);
                        }
                    }
                    Datum::Scalars(Scalars::Long(out))
                }
                Node::Double if depth < MAX_DEPTH => {
                    let mut out = Vec::new();
                    while let count @ 1.. = self.block(*items, 0, "array block count")? {
                        // `block` checked `count` items of 8 bytes against
                        // the bytes left: this slice is in the input.
                        let bytes = self
                            .c
                            .take(count as u64 * 8, "double")
                            .map_err(|e| nest_index(from_decode("", e), out.len()))?;
                        out.extend(
                            bytes
                                .chunks_exact(8)
                                .map(|b| f64::from_le_bytes(b.try_into().expect("8-byte chunk"))),
                        );
                    }
                    Datum::Scalars(Scalars::Double(out))
                }
                _ => {
                    let mut out = Vec::new();
                    while let count @ 1.. = self.block(*items, 0, "array block count")? {
                        let start = out.len();
                        let block = placeholders(&mut out, count, || Datum::Null);
                        for (j, item) in block.iter_mut().enumerate() {
                            self.child(*items, depth + 1, item)
                                .map_err(|e| nest_index(e, start + j))?;
                        }
                    }
                    Datum::Array(out)
                }
            },
            Node::Map(values) => {
                let mut out: Vec<(String, Datum)> = Vec::new();
                loop {
                    let count = self.block(*values, 1, "map block count")?;
                    if count == 0 {
                        break;
                    }
                    for (key, v) in placeholders(&mut out, count, || (String::new(), Datum::Null)) {
                        let key_at = self.c.pos();
                        let k = self.bytes("map key length")?;
                        let k =
                            crate::codec::utf8::str_at(key_at, k).map_err(|_| GenericError::invalid_utf8(key_at))?;
                        *key = k.to_string();
                        self.child(*values, depth + 1, v).map_err(|e| nest(e, k))?;
                    }
                }
                check_unique_keys(&out, at)?;
                Datum::Map(out)
            }
            Node::Record(r) => {
                // The values only: the names are the schema's one copy.
                // Exact capacity: boxing the values does not reallocate.
                let mut out = Vec::with_capacity(r.fields.len());
                placeholders(&mut out, r.fields.len(), || Datum::Null);
                for (f, v) in r.fields.iter().zip(out.iter_mut()) {
                    self.child(f.ty, depth + 1, v).map_err(|e| nest(e, &f.name))?;
                }
                Datum::Record(Fields::new(r.names.clone(), out).expect("a value per field"))
            }
        };
        put(slot, v);
        Ok(())
    }
}

/// Stores `v` in `slot`, a placeholder the reader made (`Datum::Null`):
/// a null has nothing to drop, so the store skips the call to `Datum`'s
/// drop (out of line: it is recursive) that an assignment makes, once per
/// value read. Any other slot is assigned, its old value dropped.
#[inline(always)]
fn put(slot: &mut Datum, v: Datum) {
    if matches!(slot, Datum::Null) {
        // The replaced null owns nothing: forgetting it leaks nothing.
        std::mem::forget(std::mem::replace(slot, v));
    } else {
        *slot = v;
    }
}

/// Appends `n` placeholders made by `empty` to `out` (one reservation, none
/// when `out` has the room) and returns them, for a reader to write the
/// items into in place (no `push` per item, which builds it on the stack
/// and copies it across). The caller checked `n` against the bytes left.
#[inline(always)]
fn placeholders<T>(out: &mut Vec<T>, n: usize, empty: impl FnMut() -> T) -> &mut [T] {
    let start = out.len();
    if out.capacity() == 0 {
        // The first block (a writer's only one, ours included): exactly
        // its items, so a short array takes a small allocation, not four
        // items' worth or more; allocated as new (no grow path).
        *out = Vec::with_capacity(n);
    } else {
        out.reserve(n);
    }
    out.resize_with(start + n, empty);
    &mut out[start..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn enums_are_written_by_symbol() {
        let v2 = Schema::of(r#"{"type":"enum","name":"S","symbols":["A","NEW","B"]}"#);
        let enc = |d: &Datum| {
            let mut out = Vec::new();
            encode(&v2, d, &mut out).map(|()| out)
        };
        // A datum of this schema: its index, which names its symbol.
        assert_eq!(enc(&Datum::Enum(2, "B".into())).unwrap(), [0x04]);
        // A datum of another version (v1: A, B): index 1 is "NEW" here, so
        // the symbol decides.
        assert_eq!(enc(&Datum::Enum(1, "B".into())).unwrap(), [0x04]);
        // Spelled as the text readers allow.
        assert_eq!(enc(&Datum::Enum(0, "a".into())).unwrap(), [0x00]);
        let e = enc(&Datum::Enum(0, "GONE".into())).unwrap_err();
        assert!(e.to_string().contains("a symbol of S"), "{e}");
    }

    fn reader<'a>(s: &'a Schema, bytes: &'a [u8], zero_budget: usize) -> Reader<'a> {
        let (kinds, min) = (s.kinds(), s.min_sizes());
        Reader {
            c: Cursor::new(bytes),
            schema: s,
            kinds,
            min,
            zero_budget,
        }
    }

    #[test]
    fn block_counts_read_in_line_as_block_any_reads_them() {
        // Every first byte (one-byte counts, negative counts, the first byte
        // of longer varints), before 0 to 69 more bytes, for items that take
        // bytes, items that do not (the budget) and map entries (a key each).
        for items in [r#""int""#, r#""null""#, r#""string""#] {
            let s = Schema::of(&format!(r#"{{"type":"array","items":{items}}}"#));
            let Node::Array(item) = s.node(s.root()) else { panic!() };
            for b in 0..=255u8 {
                for tail in 0..70 {
                    let mut bytes = vec![b];
                    bytes.extend(std::iter::repeat_n(0x02, tail));
                    for extra in [0, 1] {
                        let run = |in_line: bool| {
                            let mut r = reader(&s, &bytes, 40);
                            let n = if in_line {
                                r.block(*item, extra, "count")
                            } else {
                                r.block_any(*item, extra, "count")
                            };
                            (n.map_err(|e| e.to_string()), r.c.pos(), r.zero_budget)
                        };
                        assert_eq!(run(true), run(false), "{items} {b:#04x} + {tail}, extra {extra}");
                    }
                }
            }
        }
    }

    #[test]
    fn lengths_read_in_line_as_long_reads_them() {
        // Every first two bytes (one- and two-byte lengths, negative ones,
        // longer varints), alone or before 0 to 300 bytes.
        let s = Schema::of(r#""bytes""#);
        for b0 in 0..=255u8 {
            for b1 in 0..=255u8 {
                for tail in [0, 1, 2, 63, 64, 200, 300] {
                    let mut bytes = vec![b0, b1];
                    bytes.extend(std::iter::repeat_n(0x81, tail));
                    for input in [&bytes[..1], &bytes[..]] {
                        let mut r = reader(&s, input, 0);
                        let got = r.bytes("len").map(<[u8]>::len).map_err(|e| e.to_string());
                        let mut plain = Cursor::new(input);
                        let want = varint::read_i64_zigzag(&mut plain, "len")
                            .map_err(|e| from_decode("", e).to_string())
                            .and_then(|n| {
                                let n = u64::try_from(n).map_err(|_| Reader::range(0, "len", n).to_string())?;
                                plain
                                    .take(n, "len")
                                    .map(<[u8]>::len)
                                    .map_err(|e| from_decode("", e).to_string())
                            });
                        assert_eq!(got, want, "{b0:#04x} {b1:#04x} + {tail}, {} bytes", input.len());
                        if want.is_ok() {
                            assert_eq!(r.c.pos(), plain.pos());
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn numeric_arrays_read_unboxed() {
        let ints = Schema::of(r#"{"type":"array","items":"int"}"#);
        // Every block form: +1 item; -2 items with a byte size of 2; end.
        let d = decode(&ints, &[0x02, 0x02, 0x03, 0x04, 0x04, 0x06, 0x00]).unwrap();
        assert!(
            matches!(&d, Datum::Scalars(Scalars::Int(v)) if v == &[1, 2, 3]),
            "{d:?}"
        );
        let longs = Schema::of(r#"{"type":"array","items":"long"}"#);
        let d = decode(&longs, &[0x04, 0x01, 0xfe, 0x01, 0x00]).unwrap();
        assert!(
            matches!(&d, Datum::Scalars(Scalars::Long(v)) if v == &[-1, 127]),
            "{d:?}"
        );
        let doubles = Schema::of(r#"{"type":"array","items":"double"}"#);
        let mut bytes = vec![0x01, 0x10];
        bytes.extend_from_slice(&1.5f64.to_le_bytes());
        bytes.extend_from_slice(&[0x02]);
        bytes.extend_from_slice(&(-2.0f64).to_le_bytes());
        bytes.push(0);
        let d = decode(&doubles, &bytes).unwrap();
        assert!(
            matches!(&d, Datum::Scalars(Scalars::Double(v)) if v == &[1.5, -2.0]),
            "{d:?}"
        );
        // Both forms write the same bytes.
        let mut a = Vec::new();
        encode(&doubles, &d, &mut a).unwrap();
        let mut b = Vec::new();
        encode(
            &doubles,
            &Datum::Array(vec![Datum::Double(1.5), Datum::Double(-2.0)]),
            &mut b,
        )
        .unwrap();
        assert_eq!(a, b);
        assert_eq!(decode(&doubles, &a).unwrap(), d);
        // A count beyond the bytes left is refused before anything is reserved.
        let mut huge = Vec::new();
        varint::write_i64_zigzag(&mut huge, 1 << 40);
        huge.extend_from_slice(&[0; 16]);
        let e = decode(&doubles, &huge).unwrap_err();
        assert!(matches!(e.kind, GenericErrorKind::LengthExceedsInput { .. }), "{e}");
        // A truncated item names its index.
        let e = decode(&longs, &[0x04, 0x02, 0x80]).unwrap_err();
        assert!(e.to_string().starts_with("/1: "), "{e}");
    }

    #[test]
    fn union_values_read_bare_where_their_shape_finds_the_branch() {
        let s = Schema::of(
            r#"{"type":"array","items":["null","long",
                {"type":"record","name":"A","fields":[{"name":"x","type":"int"}]},
                {"type":"record","name":"B","fields":[{"name":"x","type":"int"}]}]}"#,
        );
        // null, 5, A{x: 1}, B{x: 2}
        let bytes = [0x08, 0x00, 0x02, 0x0a, 0x04, 0x02, 0x06, 0x04, 0x00];
        let d = decode(&s, &bytes).unwrap();
        let Datum::Array(items) = &d else { panic!("{d:?}") };
        let record = |x| Datum::record(vec![("x".into(), Datum::Int(x))]);
        assert!(matches!(items[0], Datum::Null), "{d:?}");
        assert!(matches!(items[1], Datum::Long(5)), "{d:?}");
        assert_eq!(items[2], record(1));
        assert!(!matches!(items[2], Datum::Union(..)), "{d:?}");
        // B's record has A's shape: only the branch index tells them apart.
        assert!(matches!(&items[3], Datum::Union(3, v) if **v == record(2)), "{d:?}");
        let mut again = Vec::new();
        encode(&s, &d, &mut again).unwrap();
        assert_eq!(again, bytes);
    }

    #[test]
    fn decoded_records_share_the_schemas_names() {
        let s = Schema::of(
            r#"{"type":"array","items":{"type":"record","name":"R","fields":[{"name":"x","type":"int"},{"name":"y","type":"string"}]}}"#,
        );
        let Node::Array(item) = s.node(s.root()) else { panic!() };
        let Node::Record(r) = s.node(*item) else { panic!() };
        // [R{x: 1, y: "a"}, R{x: -1, y: ""}]
        let d = decode(&s, &[0x04, 0x02, 0x02, b'a', 0x01, 0x00, 0x00]).unwrap();
        let Datum::Array(items) = &d else { panic!("{d:?}") };
        for item in items {
            let Datum::Record(f) = item else { panic!("{item:?}") };
            assert!(std::sync::Arc::ptr_eq(f.names(), &r.names), "{f:?}");
        }
        // ... and equal a record built from pairs, which does not share them.
        let built = Datum::record(vec![
            ("x".into(), Datum::Int(1)),
            ("y".into(), Datum::String("a".into())),
        ]);
        let Datum::Record(b) = &built else { panic!() };
        assert!(!std::sync::Arc::ptr_eq(b.names(), &r.names));
        assert_eq!(items[0], built);
        assert_ne!(items[1], built);
        let mut again = Vec::new();
        encode(&s, &Datum::Array(vec![built.clone(), built]), &mut again).unwrap();
        assert_eq!(
            decode(&s, &again).unwrap(),
            Datum::Array(vec![items[0].clone(), items[0].clone()])
        );
    }

    #[test]
    fn zero_byte_items_are_budgeted() {
        let s = Schema::of(r#"{"type":"array","items":"null"}"#);
        let mut bytes = Vec::new();
        varint::write_i64_zigzag(&mut bytes, i64::MAX);
        bytes.push(0);
        let e = decode(&s, &bytes).unwrap_err();
        assert!(matches!(e.kind, GenericErrorKind::LengthExceedsInput { .. }), "{e}");
        assert_eq!(decode(&s, &[0x06, 0x00]).unwrap(), Datum::Array(vec![Datum::Null; 3]));

        // Our writer's one block of 2,000 nulls reads back (the fuzz target
        // generic_avro found the writer's bytes refused under a smaller floor).
        let nulls = Datum::Array(vec![Datum::Null; 2000]);
        let mut written = Vec::new();
        encode(&s, &nulls, &mut written).unwrap();
        assert!(written.len() < 8, "{} bytes", written.len());
        assert_eq!(decode(&s, &written).unwrap(), nulls);
        // ... and the floor is a bound: one item beyond it in a short payload is refused.
        let mut over = Vec::new();
        varint::write_i64_zigzag(&mut over, (ZERO_BYTE_FLOOR + 100) as i64);
        over.push(0);
        assert!(decode(&s, &over).is_err());
    }

    #[test]
    fn put_stores_into_any_slot() {
        let mut slot = Datum::Null;
        put(&mut slot, Datum::String("a".into()));
        assert_eq!(slot, Datum::String("a".into()));
        // A slot that is not a placeholder is assigned (its value dropped).
        put(&mut slot, Datum::Long(2));
        assert!(matches!(slot, Datum::Long(2)), "{slot:?}");
        put(&mut slot, Datum::Null);
        assert!(matches!(slot, Datum::Null), "{slot:?}");
    }

    #[test]
    fn errors_carry_pointer_and_offset() {
        let s = Schema::of(
            r#"{"type":"record","name":"R","fields":[{"name":"xs","type":{"type":"array","items":"int"}}]}"#,
        );
        let mut bytes = vec![0x04, 0x02];
        varint::write_i64_zigzag(&mut bytes, 1 << 40);
        bytes.push(0);
        let e = decode(&s, &bytes).unwrap_err();
        assert_eq!(e.to_string(), "/xs/1: int out of range: 1099511627776 at byte 2");
    }
}
