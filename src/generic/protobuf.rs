//! Schema-driven Protobuf: any [`Datum`] of an Avro schema written and read
//! as the proto3 message [`super::derive`] derives from that schema, through
//! prost's `encoding` module (keys, varints, wire types, unknown-field
//! skipping); no generated code.
//!
//! # Byte layout
//!
//! The proto3 wire format (`key = number << 3 | wire type`, then the value)
//! with the derived field numbers: field *i* of a record starts after the
//! numbers of fields `0..i` (a `oneof` takes one per non-null branch).
//!
//! ```text
//! boolean, int, long, enum   varint (int32/int64: negatives as 10 bytes)   08 96 01
//! float / double             I32 / I64, little-endian                      15 <4 bytes>
//! string, bytes, fixed       LEN: varint length, then the bytes            1a 03 61 62 63
//! record, wrapper, map entry LEN: the nested message                       22 02 08 01
//! array of numbers/enums     one packed LEN field (read packed or not)     2a 03 01 02 03
//! other arrays               one field per item
//! ```
//!
//! **Presence, the proto3 way.** A non-optional boolean, number, string,
//! bytes or enum equal to its default (false, 0, "", empty, the first
//! symbol; a float by its bits, so `-0.0` is written) is not written and an
//! absent one decodes as that default. Records, `optional` values, `oneof`
//! members and wrappers are written whenever present; an absent record
//! decodes as the record of absent fields. Null is absence: an absent
//! `optional` or `oneof` is the union's null branch (without one, an error).
//!
//! **Decoding**, as proto3 readers do: fields in any order, the last scalar
//! or `oneof` member wins, a message field seen twice is merged, a repeated
//! map key keeps its last value at its first place, unknown fields are
//! skipped. As the catalog decoder does: a wire type other than the field's,
//! invalid UTF-8, an unknown enum number or a `fixed` of another size is an
//! error. Lengths are checked before anything is sliced or allocated,
//! nesting is bounded by [`MAX_DEPTH`], and errors carry the JSON Pointer
//! and the byte offset.

use super::datum::{Datum, Scalars};
use super::derive::{Fields, Shape, proto_width, shape};
use super::error::{GenericError, GenericErrorKind, check_symbol, mismatch, nest, nest_index, symbol_out_of_range};
use super::schema::{Field, Node, NodeId, Schema};
use super::walk::{self, branch, field_value};
use prost::encoding::{self, DecodeContext, WireType};

/// Deepest nesting of messages (records, wrappers, map entries) decoded or
/// encoded: prost's recursion limit.
pub const MAX_DEPTH: usize = 100;

/// Appends the Protobuf encoding of `value` (a datum of `schema`) to `out`.
pub fn encode(schema: &Schema, value: &Datum, out: &mut Vec<u8>) -> Result<(), GenericError> {
    let e = Enc::new(schema);
    let start = out.len();
    let r = match schema.node(schema.root()) {
        Node::Record(r) => e.record(&r.fields, value, out, 0),
        _ => e.field(schema.root(), 1, value, out, false, 0),
    };
    if r.is_err() {
        out.truncate(start);
    }
    r
}

/// Reads the Protobuf message `bytes` as a datum of `schema`.
pub fn decode(schema: &Schema, bytes: &[u8]) -> Result<Datum, GenericError> {
    let d = Dec {
        schema,
        input: bytes,
        pool: std::cell::RefCell::new(Vec::new()),
    };
    d.message(Fields::of(schema, schema.root()), &Segs::One(bytes), 0)
}

/// The encoder: a node's [`Shape`] is a match on the node and the schema's
/// null-branch table, and its width the schema's table (both found when
/// the schema is parsed), so an encode call builds nothing per schema.
struct Enc<'s> {
    schema: &'s Schema,
}

impl<'s> Enc<'s> {
    fn new(schema: &'s Schema) -> Enc<'s> {
        Enc { schema }
    }

    #[inline]
    fn shape(&self, ty: NodeId) -> Shape<'s> {
        shape(self.schema, ty)
    }

    /// [`proto_direct`](super::derive::proto_direct) of `ty`.
    #[inline]
    fn direct(&self, ty: NodeId) -> bool {
        matches!(self.shape(ty), Shape::Leaf | Shape::Record)
    }
}

/// Writes a length-delimited body produced by `body` (a one-byte length
/// first, widened in place when the body is longer).
#[inline]
fn delimited(
    out: &mut Vec<u8>,
    body: impl FnOnce(&mut Vec<u8>) -> Result<(), GenericError>,
) -> Result<(), GenericError> {
    let at = out.len();
    out.push(0);
    body(out)?;
    let len = out.len() - at - 1;
    if len < 0x80 {
        out[at] = len as u8;
    } else {
        let width = encoding::encoded_len_varint(len as u64);
        out.resize(out.len() + width - 1, 0);
        out.copy_within(at + 1..at + 1 + len, at + width);
        let mut head = &mut out[at..at + width];
        encoding::encode_varint(len as u64, &mut head);
    }
    Ok(())
}

impl Enc<'_> {
    fn record(&self, fields: &[Field], d: &Datum, out: &mut Vec<u8>, depth: usize) -> Result<(), GenericError> {
        let Datum::Record(values) = d else {
            return Err(GenericError::unexpected("", None, "record", d.kind()));
        };
        let mut n = 1u32;
        for (i, f) in fields.iter().enumerate() {
            let v = field_value(self.schema, values, i, f)?;
            self.field(f.ty, n, &v, out, false, depth)
                .map_err(|e| nest(e, &f.name))?;
            n += self.schema.proto_width(f.ty);
        }
        Ok(())
    }

    /// A field of type `ty` at number `n`; `present` writes defaults too.
    fn field(
        &self,
        ty: NodeId,
        n: u32,
        d: &Datum,
        out: &mut Vec<u8>,
        present: bool,
        depth: usize,
    ) -> Result<(), GenericError> {
        let s = self.schema;
        match self.shape(ty) {
            Shape::Null => match d {
                Datum::Null => Ok(()),
                _ => Err(mismatch(s, ty, d)),
            },
            Shape::Leaf => self.leaf(ty, n, d, out, present),
            Shape::Record => self.message(ty, n, d, out, depth),
            Shape::Array(items) => {
                if let Datum::Scalars(values) = d
                    && packed_scalars(s, items, n, values, out)?
                {
                    return Ok(());
                }
                let Some(values) = d.array_items() else {
                    return Err(mismatch(s, ty, d));
                };
                self.array(items, n, &values, out, depth)
            }
            Shape::Map(vt) => {
                let Datum::Map(entries) = d else {
                    return Err(mismatch(s, ty, d));
                };
                for (k, v) in entries {
                    encoding::encode_key(n, WireType::LengthDelimited, out);
                    delimited(out, |out| {
                        encoding::encode_key(1, WireType::LengthDelimited, out);
                        encoding::encode_varint(k.len() as u64, out);
                        out.extend_from_slice(k.as_bytes());
                        self.member(vt, 2, v, out, depth + 1)
                    })
                    .map_err(|e| nest(e, k))?;
                }
                Ok(())
            }
            Shape::Optional { value, ty: inner, .. } => {
                let Node::Union(branches) = s.node(ty) else {
                    unreachable!("union shape")
                };
                match branch(s, ty, branches, d)? {
                    (b, v) if b == value => self.member(inner, n, v, out, depth),
                    _ => Ok(()),
                }
            }
            Shape::Oneof { null, branches } => {
                let (b, v) = branch(s, ty, branches, d)?;
                if Some(b) == null {
                    return Ok(());
                }
                let k = b - u32::from(null.is_some_and(|x| x < b));
                self.member(branches[b as usize], n + k, v, out, depth)
            }
        }
    }

    /// A value with explicit presence (optional, oneof member, map value,
    /// wrapper): written as it is when it can be, else in a wrapper message.
    fn member(&self, ty: NodeId, n: u32, d: &Datum, out: &mut Vec<u8>, depth: usize) -> Result<(), GenericError> {
        if self.direct(ty) {
            self.field(ty, n, d, out, true, depth)
        } else {
            self.wrapper(ty, n, d, out, depth)
        }
    }

    fn wrapper(&self, ty: NodeId, n: u32, d: &Datum, out: &mut Vec<u8>, depth: usize) -> Result<(), GenericError> {
        if depth >= MAX_DEPTH {
            return Err(GenericError::depth_limit(MAX_DEPTH, None));
        }
        encoding::encode_key(n, WireType::LengthDelimited, out);
        delimited(out, |out| self.field(ty, 1, d, out, false, depth + 1))
    }

    fn message(&self, ty: NodeId, n: u32, d: &Datum, out: &mut Vec<u8>, depth: usize) -> Result<(), GenericError> {
        let Node::Record(r) = self.schema.node(ty) else {
            return Err(mismatch(self.schema, ty, d));
        };
        if depth >= MAX_DEPTH {
            return Err(GenericError::depth_limit(MAX_DEPTH, None));
        }
        encoding::encode_key(n, WireType::LengthDelimited, out);
        delimited(out, |out| self.record(&r.fields, d, out, depth + 1))
    }

    fn array(
        &self,
        items: NodeId,
        n: u32,
        values: &[Datum],
        out: &mut Vec<u8>,
        depth: usize,
    ) -> Result<(), GenericError> {
        let s = self.schema;
        if values.is_empty() {
            return Ok(());
        }
        let is_packed = matches!(
            s.node(items),
            Node::Boolean | Node::Int | Node::Long | Node::Float | Node::Double | Node::Enum(_)
        );
        if is_packed {
            encoding::encode_key(n, WireType::LengthDelimited, out);
            return delimited(out, |out| packed(s, items, values, out));
        }
        let direct = self.direct(items);
        for (i, v) in values.iter().enumerate() {
            let r = if direct {
                self.field(items, n, v, out, true, depth)
            } else {
                self.wrapper(items, n, v, out, depth)
            };
            r.map_err(|e| nest_index(e, i))?;
        }
        Ok(())
    }

    fn leaf(&self, ty: NodeId, n: u32, d: &Datum, out: &mut Vec<u8>, present: bool) -> Result<(), GenericError> {
        let s = self.schema;
        let default = match (s.node(ty), d) {
            (Node::Boolean, Datum::Boolean(b)) => !b,
            (Node::Int, Datum::Int(v)) => *v == 0,
            (Node::Long, Datum::Long(v)) => *v == 0,
            (Node::Float, Datum::Float(v)) => v.to_bits() == 0,
            (Node::Double, Datum::Double(v)) => v.to_bits() == 0,
            (Node::Enum(_), Datum::Enum(i, _)) => *i == 0,
            (Node::String, Datum::String(v)) => v.is_empty(),
            (Node::Bytes, Datum::Bytes(v)) => v.is_empty(),
            (Node::Fixed(f), Datum::Fixed(v)) => {
                if v.len() != f.size {
                    return Err(GenericError::unexpected(
                        "",
                        None,
                        format!("{} bytes for {}", f.size, s.describe(ty)),
                        format!("{} bytes", v.len()),
                    ));
                }
                v.is_empty()
            }
            _ => return Err(mismatch(s, ty, d)),
        };
        if default && !present {
            return Ok(());
        }
        encoding::encode_key(n, wire_of(s.node(ty)), out);
        match d {
            Datum::String(v) => {
                encoding::encode_varint(v.len() as u64, out);
                out.extend_from_slice(v.as_bytes());
                Ok(())
            }
            Datum::Bytes(v) | Datum::Fixed(v) => {
                encoding::encode_varint(v.len() as u64, out);
                out.extend_from_slice(v);
                Ok(())
            }
            _ => scalar(s, ty, d, out),
        }
    }
}

/// The body of a packed array: fixed-width numbers copied in one pass,
/// varints one by one.
/// An unboxed array whose items are of the schema's own type, written as
/// [`packed`] writes their boxed form (an empty one not at all), with no
/// `Vec<Datum>` built: whether it was (else the caller takes the general
/// path, which has the errors).
fn packed_scalars(
    s: &Schema,
    items: NodeId,
    n: u32,
    values: &Scalars,
    out: &mut Vec<u8>,
) -> Result<bool, GenericError> {
    let fits = matches!(
        (s.node(items), values),
        (Node::Double, Scalars::Double(_)) | (Node::Long, Scalars::Long(_)) | (Node::Int, Scalars::Int(_))
    );
    if !fits {
        return Ok(false);
    }
    if values.is_empty() {
        return Ok(true);
    }
    encoding::encode_key(n, WireType::LengthDelimited, out);
    delimited(out, |out| {
        match values {
            Scalars::Double(v) => {
                out.reserve(8 * v.len());
                for f in v {
                    out.extend_from_slice(&f.to_le_bytes());
                }
            }
            Scalars::Long(v) => {
                for &x in v {
                    encoding::encode_varint(x as u64, out);
                }
            }
            Scalars::Int(v) => {
                for &x in v {
                    encoding::encode_varint(i64::from(x) as u64, out);
                }
            }
        }
        Ok(())
    })?;
    Ok(true)
}

fn packed(s: &Schema, items: NodeId, values: &[Datum], out: &mut Vec<u8>) -> Result<(), GenericError> {
    macro_rules! fixed {
        ($variant:ident, $width:expr) => {{
            out.reserve(values.len() * $width);
            for (i, v) in values.iter().enumerate() {
                match v {
                    Datum::$variant(x) => out.extend_from_slice(&x.to_le_bytes()),
                    other => return Err(nest_index(mismatch(s, items, other), i)),
                }
            }
            Ok(())
        }};
    }
    match s.node(items) {
        Node::Double => fixed!(Double, 8),
        Node::Float => fixed!(Float, 4),
        Node::Long => {
            for (i, v) in values.iter().enumerate() {
                match v {
                    Datum::Long(x) => encoding::encode_varint(*x as u64, out),
                    other => return Err(nest_index(mismatch(s, items, other), i)),
                }
            }
            Ok(())
        }
        _ => {
            for (i, v) in values.iter().enumerate() {
                scalar(s, items, v, out).map_err(|e| nest_index(e, i))?;
            }
            Ok(())
        }
    }
}

/// The wire type of a leaf of type `n`.
#[inline]
fn wire_of(n: &Node) -> WireType {
    match n {
        Node::Float => WireType::ThirtyTwoBit,
        Node::Double => WireType::SixtyFourBit,
        Node::String | Node::Bytes | Node::Fixed(_) => WireType::LengthDelimited,
        _ => WireType::Varint,
    }
}

/// The value of a boolean, number or enum without its key.
#[inline]
fn scalar(s: &Schema, ty: NodeId, d: &Datum, out: &mut Vec<u8>) -> Result<(), GenericError> {
    match (s.node(ty), d) {
        (Node::Boolean, Datum::Boolean(b)) => out.push(u8::from(*b)),
        (Node::Int, Datum::Int(v)) => encoding::encode_varint(i64::from(*v) as u64, out),
        (Node::Long, Datum::Long(v)) => encoding::encode_varint(*v as u64, out),
        (Node::Float, Datum::Float(v)) => out.extend_from_slice(&v.to_le_bytes()),
        (Node::Double, Datum::Double(v)) => out.extend_from_slice(&v.to_le_bytes()),
        (Node::Enum(e), Datum::Enum(i, _)) => {
            check_symbol(e.symbols.len(), *i)?;
            encoding::encode_varint(u64::from(*i), out);
        }
        _ => return Err(mismatch(s, ty, d)),
    }
    Ok(())
}

/// The message bodies one message field was sent in (merged on read).
enum Segs<'a> {
    One(&'a [u8]),
    Many(Vec<&'a [u8]>),
}

impl<'a> Segs<'a> {
    fn push(&mut self, b: &'a [u8]) {
        match self {
            Segs::One(a) => *self = Segs::Many(vec![*a, b]),
            Segs::Many(v) => v.push(b),
        }
    }

    fn as_slice(&self) -> &[&'a [u8]] {
        match self {
            Segs::One(a) => std::slice::from_ref(a),
            Segs::Many(v) => v,
        }
    }
}

/// What one field of a message being read has collected so far.
enum Slot<'a> {
    Empty,
    /// A scalar value (last wins), with its union branch.
    Value(u32, Datum),
    /// A message value (merged), with its union branch.
    Msg(u32, Segs<'a>),
    List(Vec<Datum>),
    /// An array of doubles read packed so far, unboxed.
    Doubles(Vec<f64>),
    Entries(Vec<(String, Datum)>),
}

/// Where a field occurrence was found: its number, its member (number
/// minus the field's first), its wire type and the offset of its key.
#[derive(Clone, Copy)]
struct Place {
    number: u32,
    k: u32,
    wire: WireType,
    key_at: usize,
}

struct Dec<'a> {
    schema: &'a Schema,
    input: &'a [u8],
    /// Emptied slot vectors of finished messages, reused by the next ones
    /// (a message allocates its slots only when none is free).
    pool: std::cell::RefCell<Vec<Vec<Slot<'a>>>>,
}

#[cold]
fn wire_error(at: usize, expected: &str, found: WireType) -> GenericError {
    GenericError::unexpected("", Some(at), format!("wire type {expected}"), format!("{found:?}"))
}

#[cold]
fn prost_error(at: usize, e: prost::DecodeError) -> GenericError {
    GenericError::library(at, "prost", e)
}

/// Skips the value of an unknown field (its key read at `key_at`).
fn skip(wire: WireType, number: u32, buf: &mut &[u8], key_at: usize) -> Result<(), GenericError> {
    encoding::skip_field(wire, number, buf, DecodeContext::default()).map_err(|e| prost_error(key_at, e))
}

impl<'a> Dec<'a> {
    #[inline]
    fn shape(&self, ty: NodeId) -> Shape<'a> {
        shape(self.schema, ty)
    }

    #[inline]
    fn width(&self, ty: NodeId) -> u32 {
        proto_width(self.schema, ty)
    }

    fn at(&self, rest: &[u8]) -> usize {
        rest.as_ptr() as usize - self.input.as_ptr() as usize
    }

    fn varint(&self, buf: &mut &'a [u8]) -> Result<u64, GenericError> {
        let at = self.at(buf);
        encoding::decode_varint(buf).map_err(|e| prost_error(at, e))
    }

    /// A length prefix and the bytes it covers, checked against what is left.
    fn len_delimited(&self, buf: &mut &'a [u8], what: &str) -> Result<&'a [u8], GenericError> {
        let at = self.at(buf);
        let len = self.varint(buf)?;
        if len > buf.len() as u64 {
            return Err(GenericError::at(
                "",
                at,
                GenericErrorKind::LengthExceedsInput {
                    what: format!("length of {what}"),
                    len,
                    remaining: buf.len(),
                },
            ));
        }
        let (body, rest) = buf.split_at(len as usize);
        *buf = rest;
        Ok(body)
    }

    fn fixed<const N: usize>(&self, buf: &mut &'a [u8], what: &str) -> Result<[u8; N], GenericError> {
        match buf.split_first_chunk::<N>() {
            Some((v, rest)) => {
                *buf = rest;
                Ok(*v)
            }
            None => Err(GenericError::at(
                "",
                self.at(buf),
                GenericErrorKind::Eof {
                    expected: format!("{N} bytes of {what}"),
                },
            )),
        }
    }

    /// Reads a message made of `segs` with the given fields.
    fn message(&self, fields: Fields<'_>, segs: &Segs<'a>, depth: usize) -> Result<Datum, GenericError> {
        if depth >= MAX_DEPTH {
            return Err(GenericError::depth_limit(
                MAX_DEPTH,
                segs.as_slice().first().map(|b| self.at(b)),
            ));
        }
        let count = fields.len();
        let mut slots: Vec<Slot<'a>> = self.pool.borrow_mut().pop().unwrap_or_default();
        slots.resize_with(count, || Slot::Empty);
        // Field lookup cursor: fields usually come in order.
        let (mut fi, mut start) = (0usize, 1u32);
        for seg in segs.as_slice() {
            let mut buf: &'a [u8] = seg;
            while !buf.is_empty() {
                let key_at = self.at(buf);
                let (number, wire) = encoding::decode_key(&mut buf).map_err(|e| prost_error(key_at, e))?;
                if number < start {
                    (fi, start) = (0, 1);
                }
                while fi < count {
                    let w = self.width(fields.ty(fi));
                    if number < start + w {
                        break;
                    }
                    start += w;
                    fi += 1;
                }
                if fi == count {
                    skip(wire, number, &mut buf, key_at)?;
                    (fi, start) = (0, 1);
                    continue;
                }
                let at = Place {
                    number,
                    k: number - start,
                    wire,
                    key_at,
                };
                self.read_field(fields.ty(fi), at, &mut buf, &mut slots[fi], depth)
                    .map_err(|e| match fields.name(fi) {
                        Some(name) => nest(e, name),
                        None => e,
                    })?;
            }
        }
        let d = match fields {
            Fields::One(ty) => {
                let slot = slots.pop().unwrap_or(Slot::Empty);
                self.finish(ty, slot, depth)
            }
            Fields::Record(r) => {
                let mut out = Vec::with_capacity(count);
                for (f, slot) in r.fields.iter().zip(slots.drain(..)) {
                    out.push(self.finish(f.ty, slot, depth).map_err(|e| nest(e, &f.name))?);
                }
                Ok(Datum::Record(
                    super::datum::Fields::new(r.names.clone(), out).expect("a value per field"),
                ))
            }
        };
        slots.clear();
        self.pool.borrow_mut().push(slots);
        d
    }

    /// Reads one occurrence of a field of type `ty` (`k`: its number minus
    /// the field's first, the `oneof` member) into `slot`.
    fn read_field(
        &self,
        ty: NodeId,
        at: Place,
        buf: &mut &'a [u8],
        slot: &mut Slot<'a>,
        depth: usize,
    ) -> Result<(), GenericError> {
        let s = self.schema;
        let Place {
            number,
            k,
            wire,
            key_at,
        } = at;
        match self.shape(ty) {
            Shape::Null => skip(wire, number, buf, key_at),
            Shape::Leaf => {
                let v = self.leaf(ty, wire, key_at, buf)?;
                *slot = Slot::Value(0, v);
                Ok(())
            }
            Shape::Record => self.member(ty, 0, wire, key_at, buf, slot),
            Shape::Optional { value, ty: inner, .. } => self.member(inner, value, wire, key_at, buf, slot),
            Shape::Oneof { null, branches } => {
                let b = k + u32::from(null.is_some_and(|x| x <= k));
                match branches.get(b as usize) {
                    Some(&bt) => self.member(bt, b, wire, key_at, buf, slot),
                    None => skip(wire, number, buf, key_at),
                }
            }
            Shape::Array(items) => {
                // Packed doubles collect unboxed (`Datum::Scalars`) until an
                // unpacked occurrence of the field, if any, boxes them.
                if let Node::Double = s.node(items)
                    && wire == WireType::LengthDelimited
                    && matches!(slot, Slot::Empty | Slot::Doubles(_))
                {
                    let body = self.len_delimited(buf, "a packed array")?;
                    if !matches!(slot, Slot::Doubles(_)) {
                        *slot = Slot::Doubles(Vec::new());
                    }
                    let Slot::Doubles(list) = slot else { unreachable!() };
                    return self.packed_doubles(body, list);
                }
                if let Slot::Doubles(list) = slot {
                    *slot = Slot::List(list.iter().map(|&x| Datum::Double(x)).collect());
                }
                if !matches!(slot, Slot::List(_)) {
                    *slot = Slot::List(Vec::new());
                }
                let Slot::List(list) = slot else { unreachable!() };
                let at = list.len();
                let packable = matches!(
                    s.node(items),
                    Node::Boolean | Node::Int | Node::Long | Node::Float | Node::Double | Node::Enum(_)
                );
                if packable && wire == WireType::LengthDelimited {
                    let mut body = self.len_delimited(buf, "a packed array")?;
                    if let Node::Double | Node::Float = s.node(items) {
                        return self.packed_fixed(items, body, list);
                    }
                    while !body.is_empty() {
                        let v = self
                            .leaf(items, WireType::Varint, key_at, &mut body)
                            .map_err(|e| nest_index(e, list.len()))?;
                        list.push(v);
                    }
                    return Ok(());
                }
                let v = if matches!(self.shape(items), Shape::Leaf | Shape::Record) {
                    match s.node(items) {
                        Node::Record(r) => {
                            let body = self.message_body(wire, key_at, buf)?;
                            self.message(Fields::Record(r), &Segs::One(body), depth + 1)
                        }
                        _ => self.leaf(items, wire, key_at, buf),
                    }
                } else {
                    let body = self.message_body(wire, key_at, buf)?;
                    self.message(Fields::One(items), &Segs::One(body), depth + 1)
                };
                list.push(v.map_err(|e| nest_index(e, at))?);
                Ok(())
            }
            Shape::Map(vt) => {
                if !matches!(slot, Slot::Entries(_)) {
                    *slot = Slot::Entries(Vec::new());
                }
                let Slot::Entries(entries) = slot else { unreachable!() };
                let mut body = self.message_body(wire, key_at, buf)?;
                if depth + 1 >= MAX_DEPTH {
                    return Err(GenericError::depth_limit(MAX_DEPTH, Some(key_at)));
                }
                let mut key = String::new();
                let mut value = Slot::Empty;
                while !body.is_empty() {
                    let at = self.at(body);
                    let (n, w) = encoding::decode_key(&mut body).map_err(|e| prost_error(at, e))?;
                    match n {
                        1 => {
                            if w != WireType::LengthDelimited {
                                return Err(wire_error(at, "LengthDelimited for a map key", w));
                            }
                            let b = self.len_delimited(&mut body, "a map key")?;
                            key = utf8(b, self.at(b))?;
                        }
                        2 => self
                            .member(vt, 0, w, at, &mut body, &mut value)
                            .map_err(|e| nest(e, &key))?,
                        _ => skip(w, n, &mut body, at)?,
                    }
                }
                let v = match value {
                    Slot::Empty => self.absent(vt, depth + 1),
                    other => self.finish_member(vt, other, depth + 1),
                }
                .map_err(|e| nest(e, &key))?;
                entries.push((key, v));
                Ok(())
            }
        }
    }

    /// A packed array of doubles, unboxed.
    fn packed_doubles(&self, body: &'a [u8], list: &mut Vec<f64>) -> Result<(), GenericError> {
        list.reserve(self.packed_count(body, 8)?);
        list.extend(
            body.chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8]))),
        );
        Ok(())
    }

    /// A packed array of doubles or floats.
    fn packed_fixed(&self, items: NodeId, body: &'a [u8], list: &mut Vec<Datum>) -> Result<(), GenericError> {
        if matches!(self.schema.node(items), Node::Double) {
            list.reserve(self.packed_count(body, 8)?);
            list.extend(
                body.chunks_exact(8)
                    .map(|c| Datum::Double(f64::from_le_bytes(c.try_into().unwrap_or([0; 8])))),
            );
        } else {
            list.reserve(self.packed_count(body, 4)?);
            list.extend(
                body.chunks_exact(4)
                    .map(|c| Datum::Float(f32::from_le_bytes(c.try_into().unwrap_or([0; 4])))),
            );
        }
        Ok(())
    }

    /// The item count of a packed array of `width`-byte items: its length
    /// must be a whole number of items (checked before anything is reserved).
    fn packed_count(&self, body: &'a [u8], width: usize) -> Result<usize, GenericError> {
        if body.len() % width != 0 {
            return Err(GenericError::unexpected(
                "",
                Some(self.at(body)),
                format!("a packed array of {width}-byte items"),
                format!("{} bytes", body.len()),
            ));
        }
        Ok(body.len() / width)
    }

    /// A value at union branch `b` (0 outside unions): a leaf as it is, a
    /// message segment merged with earlier ones of the same branch.
    #[inline]
    fn member(
        &self,
        ty: NodeId,
        b: u32,
        wire: WireType,
        key_at: usize,
        buf: &mut &'a [u8],
        slot: &mut Slot<'a>,
    ) -> Result<(), GenericError> {
        if matches!(self.shape(ty), Shape::Leaf) {
            *slot = Slot::Value(b, self.leaf(ty, wire, key_at, buf)?);
            return Ok(());
        }
        let body = self.message_body(wire, key_at, buf)?;
        match slot {
            Slot::Msg(have, segs) if *have == b => segs.push(body),
            _ => *slot = Slot::Msg(b, Segs::One(body)),
        }
        Ok(())
    }

    fn message_body(&self, wire: WireType, key_at: usize, buf: &mut &'a [u8]) -> Result<&'a [u8], GenericError> {
        if wire != WireType::LengthDelimited {
            return Err(wire_error(key_at, "LengthDelimited for a message", wire));
        }
        self.len_delimited(buf, "a message")
    }

    /// The datum of a field of type `ty` from what its slot collected.
    fn finish(&self, ty: NodeId, slot: Slot<'a>, depth: usize) -> Result<Datum, GenericError> {
        if let Slot::Empty = slot {
            return self.absent(ty, depth);
        }
        match self.shape(ty) {
            Shape::Null => Ok(Datum::Null),
            Shape::Leaf | Shape::Record => self.finish_member(ty, slot, depth),
            Shape::Array(_) => match slot {
                Slot::List(items) => Ok(Datum::Array(items)),
                Slot::Doubles(items) => Ok(Datum::Scalars(Scalars::Double(items))),
                _ => Err(slot_mismatch()),
            },
            Shape::Map(_) => match slot {
                Slot::Entries(entries) => Ok(Datum::Map(last_wins(entries))),
                _ => Err(slot_mismatch()),
            },
            Shape::Optional { ty: inner, .. } => {
                let b = slot_branch(&slot);
                Ok(Datum::Union(b, Box::new(self.finish_member(inner, slot, depth)?)))
            }
            Shape::Oneof { branches, .. } => {
                let b = slot_branch(&slot);
                let bt = *branches.get(b as usize).ok_or_else(slot_mismatch)?;
                Ok(Datum::Union(b, Box::new(self.finish_member(bt, slot, depth)?)))
            }
        }
    }

    /// A member value (see [`Dec::member`]) from its slot.
    fn finish_member(&self, ty: NodeId, slot: Slot<'a>, depth: usize) -> Result<Datum, GenericError> {
        match (self.shape(ty), slot) {
            (Shape::Leaf, Slot::Value(_, v)) => Ok(v),
            (Shape::Record, Slot::Msg(_, segs)) => self.record(ty, &segs, depth),
            (_, Slot::Msg(_, segs)) => self.message(Fields::One(ty), &segs, depth + 1),
            (_, Slot::Empty) => self.absent(ty, depth),
            _ => Err(slot_mismatch()),
        }
    }

    fn record(&self, ty: NodeId, segs: &Segs<'a>, depth: usize) -> Result<Datum, GenericError> {
        match self.schema.node(ty) {
            Node::Record(r) => self.message(Fields::Record(r), segs, depth + 1),
            _ => unreachable!("record shape"),
        }
    }

    /// The datum of a field that never appeared: proto3's default.
    fn absent(&self, ty: NodeId, depth: usize) -> Result<Datum, GenericError> {
        walk::zero(self.schema, ty, depth, MAX_DEPTH)
    }

    /// One boolean, number, enum, string, bytes or fixed value.
    fn leaf(&self, ty: NodeId, wire: WireType, key_at: usize, buf: &mut &'a [u8]) -> Result<Datum, GenericError> {
        let s = self.schema;
        let want = wire_of(s.node(ty));
        if wire != want {
            return Err(wire_error(key_at, &format!("{want:?} for {}", s.describe(ty)), wire));
        }
        Ok(match s.node(ty) {
            Node::Boolean => Datum::Boolean(self.varint(buf)? != 0),
            Node::Int => Datum::Int(self.varint(buf)? as i32),
            Node::Long => Datum::Long(self.varint(buf)? as i64),
            Node::Float => Datum::Float(f32::from_le_bytes(self.fixed::<4>(buf, "a float")?)),
            Node::Double => Datum::Double(f64::from_le_bytes(self.fixed::<8>(buf, "a double")?)),
            Node::Enum(e) => {
                let at = self.at(buf);
                let v = self.varint(buf)? as i32;
                match usize::try_from(v).ok().and_then(|i| e.symbols.get(i)) {
                    Some(sym) => Datum::Enum(v as u32, sym.clone()),
                    None => return Err(symbol_out_of_range(s, ty, "number", e.symbols.len(), at, v.to_string())),
                }
            }
            Node::String => {
                let b = self.len_delimited(buf, "a string")?;
                Datum::String(utf8(b, self.at(b))?)
            }
            Node::Bytes => Datum::Bytes(self.len_delimited(buf, "bytes")?.to_vec()),
            Node::Fixed(f) => {
                let b = self.len_delimited(buf, "a fixed")?;
                if b.len() != f.size {
                    return Err(GenericError::unexpected(
                        "",
                        Some(key_at),
                        format!("{} bytes of {}", f.size, s.describe(ty)),
                        format!("{} bytes", b.len()),
                    ));
                }
                Datum::Fixed(b.to_vec())
            }
            _ => unreachable!("leaf shape"),
        })
    }
}

#[cold]
fn slot_mismatch() -> GenericError {
    GenericError::new(
        "",
        None,
        GenericErrorKind::Unsupported {
            what: "a collected value that does not fit its field's type".into(),
        },
    )
}

fn slot_branch(slot: &Slot<'_>) -> u32 {
    match slot {
        Slot::Value(b, _) | Slot::Msg(b, _) => *b,
        _ => 0,
    }
}

fn utf8(b: &[u8], at: usize) -> Result<String, GenericError> {
    match crate::codec::utf8::str_at(at, b) {
        Ok(s) => Ok(s.to_string()),
        Err(e) => Err(GenericError::invalid_utf8(e.offset)),
    }
}

/// Map entries with each key once, holding its last value at its first place.
fn last_wins(entries: Vec<(String, Datum)>) -> Vec<(String, Datum)> {
    if entries.len() < 2 {
        return entries;
    }
    let mut index: std::collections::HashMap<&str, usize> = std::collections::HashMap::with_capacity(entries.len());
    let mut dup = false;
    for (i, (k, _)) in entries.iter().enumerate() {
        if index.insert(k.as_str(), i).is_some() {
            dup = true;
        }
    }
    if !dup {
        return entries;
    }
    let last: std::collections::HashMap<String, usize> = index.into_iter().map(|(k, i)| (k.to_string(), i)).collect();
    let mut values: Vec<Option<Datum>> = entries.iter().map(|_| None).collect();
    let mut keys = Vec::with_capacity(entries.len());
    for (i, (k, v)) in entries.into_iter().enumerate() {
        values[i] = Some(v);
        keys.push(k);
    }
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for k in keys {
        if seen.insert(k.clone()) {
            let i = last[&k];
            if let Some(v) = values[i].take() {
                out.push((k, v));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_doubles_read_unboxed_and_box_for_an_unpacked_occurrence() {
        let s = Schema::parse(
            br#"{"type":"record","name":"R","fields":[{"name":"xs","type":{"type":"array","items":"double"}}]}"#,
        )
        .unwrap();
        let xs = |v: Vec<f64>| {
            Datum::record(vec![(
                "xs".into(),
                Datum::Array(v.into_iter().map(Datum::Double).collect()),
            )])
        };
        let mut bytes = Vec::new();
        encode(&s, &xs(vec![1.5, -2.0]), &mut bytes).unwrap();
        assert_eq!(bytes[..2], [0x0a, 0x10]);
        let d = decode(&s, &bytes).unwrap();
        assert!(
            matches!(d.field("xs"), Some(Datum::Scalars(Scalars::Double(v))) if v == &[1.5, -2.0]),
            "{d:?}"
        );
        // An unpacked occurrence (field 1, 64-bit) appends to the same array.
        bytes.push(0x09);
        bytes.extend_from_slice(&4.0f64.to_le_bytes());
        let d = decode(&s, &bytes).unwrap();
        assert!(matches!(d.field("xs"), Some(Datum::Array(_))), "{d:?}");
        assert_eq!(d, xs(vec![1.5, -2.0, 4.0]));
        // ... and a packed one after it too.
        bytes.extend_from_slice(&[0x0a, 0x08]);
        bytes.extend_from_slice(&8.0f64.to_le_bytes());
        assert_eq!(decode(&s, &bytes).unwrap(), xs(vec![1.5, -2.0, 4.0, 8.0]));
        // A packed body that is not a whole number of doubles is refused.
        let e = decode(&s, &[0x0a, 0x03, 1, 2, 3]).unwrap_err();
        assert!(e.to_string().contains("8-byte items"), "{e}");
    }
}
