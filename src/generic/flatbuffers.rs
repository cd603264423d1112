//! Schema-driven FlatBuffers: any [`Datum`] of an Avro schema written and
//! read as the tables [`super::derive`] derives from that schema, through
//! the official crate's `FlatBufferBuilder` (encode) and `Verifier` (decode);
//! no generated code.
//!
//! # Byte layout
//!
//! A FlatBuffer without file identifier: a `uoffset` to the root table,
//! then tables, vtables, strings and vectors as the builder places them.
//! Field *i* of a record has vtable slot *s* = the slots of fields `0..i`
//! (a union takes two: `_type`, a `ubyte`, then the value), at vtable
//! offset `4 + 2s`.
//!
//! ```text
//! boolean, int, long, float, double   inline scalar (bool as one byte)
//! enum                                ubyte / ushort / uint, the symbol's index
//! string                              uoffset → u32 length, UTF-8 bytes, 0
//! bytes, fixed                        uoffset → [ubyte]
//! record, wrapper, map entry          uoffset → table
//! array                               uoffset → u32 count, items (scalars
//!                                     inline, strings and tables by uoffset)
//! union                               _type slot (0 = NONE = null), value slot
//! ```
//!
//! **Presence**, as in [`super::protobuf`]: a non-optional scalar equal to
//! zero by its bits is not written (so `-0.0` is) and reads back as zero; a
//! nullable scalar (`= null`) is written whenever it is not null; strings,
//! bytes, vectors and tables are written unless null, and an absent one
//! reads as its empty value (a record: the record of absent fields).
//!
//! **Decoding**: the crate's [`Verifier`] checks every position before it is
//! read (tables and vtables, [`TableVerifier::deref`] for each field, each
//! scalar, offset and vector range with its alignment); reads slice with
//! bounds checks (no `unsafe`). Its limits bound the work: [`MAX_DEPTH`]
//! tables deep, tables up to a quarter of the input's bytes, an apparent
//! size of [`APPARENT_FACTOR`] × the input (shared sub-tables cannot blow a
//! small buffer up). Strings are checked for UTF-8 and their terminator,
//! enum indexes and union types for range, `fixed` for its size; errors
//! carry the JSON Pointer and offset.

use super::datum::{Datum, Scalars};
use super::derive::{Fields, Shape, fbs_direct_item, fbs_enum_width, fbs_width, shape};
use super::error::{GenericError, check_symbol, mismatch, nest, nest_index, symbol_out_of_range};
use super::schema::{Node, NodeId, Schema};
use super::walk::{self, branch, field_value};
use flatbuffers::{
    FlatBufferBuilder, InvalidFlatbuffer, TableVerifier, UnionWIPOffset, Verifier, VerifierOptions, WIPOffset,
};

/// Deepest nesting of tables read.
pub const MAX_DEPTH: usize = 64;
/// The verifier's apparent-size budget, as a multiple of the input length.
pub const APPARENT_FACTOR: usize = 16;

/// Appends the FlatBuffer of `value` (a datum of `schema`) to `out`.
///
/// The builder is kept per thread and reset for each call (its buffer is
/// reused unless a payload grew it past [`KEEP_BUILDER`]).
pub fn encode(schema: &Schema, value: &Datum, out: &mut Vec<u8>) -> Result<(), GenericError> {
    BUILDER.with(|cell| {
        let mut fresh;
        let mut kept = cell.try_borrow_mut();
        let fbb: &mut FlatBufferBuilder<'static> = match kept.as_deref_mut() {
            Ok(b) => b,
            Err(_) => {
                fresh = FlatBufferBuilder::new();
                &mut fresh
            }
        };
        fbb.reset();
        let e = Enc::new(schema);
        let root = match e.table(fbb, Fields::of(schema, schema.root()), value, 0) {
            Ok(r) => r,
            Err(err) => {
                fbb.reset();
                return Err(err);
            }
        };
        fbb.finish_minimal(root);
        out.extend_from_slice(fbb.finished_data());
        if fbb.finished_data().len() > KEEP_BUILDER {
            *fbb = FlatBufferBuilder::new();
        }
        Ok(())
    })
}

/// Largest payload whose builder buffer a thread keeps for the next encode.
pub const KEEP_BUILDER: usize = 4 << 20;

thread_local! {
    static BUILDER: std::cell::RefCell<FlatBufferBuilder<'static>> =
        std::cell::RefCell::new(FlatBufferBuilder::with_capacity(1024));
}

/// Reads the FlatBuffer `bytes` as a datum of `schema`.
pub fn decode(schema: &Schema, bytes: &[u8]) -> Result<Datum, GenericError> {
    let opts = VerifierOptions {
        max_depth: MAX_DEPTH,
        max_tables: bytes.len() / 4 + 1,
        max_apparent_size: bytes.len().saturating_mul(APPARENT_FACTOR).max(1024),
        ignore_missing_null_terminator: false,
    };
    let mut v = Verifier::new(&opts, bytes);
    let d = Dec { schema, buf: bytes };
    let root = d.offset(&mut v, 0)?;
    d.table(&mut v, root, Fields::of(schema, schema.root()))
}

/// The vtable offset of slot `s`.
fn voffset(slot: u16) -> u16 {
    4 + 2 * slot
}

/// One field's value, built before its table is started.
enum Pending {
    Absent,
    /// A scalar; `always` when it has presence (nullable, so written even if zero).
    Bool(bool, bool),
    I32(i32, bool),
    I64(i64, bool),
    F32(f32, bool),
    F64(f64, bool),
    U8(u8, bool),
    U16(u16, bool),
    U32(u32, bool),
    Offset(WIPOffset<UnionWIPOffset>),
    Union(u8, WIPOffset<UnionWIPOffset>),
}

/// The encoder: a node's [`Shape`] is a match on the node and the schema's
/// null-branch table, and its width the schema's table (both found when
/// the schema is parsed), so an encode call builds nothing per schema.
struct Enc<'s> {
    schema: &'s Schema,
    /// The prepared fields of the tables being built, innermost last: a
    /// table pushes its fields above the ones of the tables around it and
    /// takes them off when it ends, so one buffer per encode serves every
    /// table.
    pending: std::cell::RefCell<Vec<(u16, Pending)>>,
}

impl<'s> Enc<'s> {
    fn new(schema: &'s Schema) -> Enc<'s> {
        Enc {
            schema,
            pending: std::cell::RefCell::new(Vec::new()),
        }
    }

    fn push_pending(&self, slot: u16, p: Pending) {
        self.pending.borrow_mut().push((slot, p));
    }
}

impl Pending {
    /// Writes the value into the table being built at `vo` (a scalar equal
    /// to its default only when it has presence; a union's type, then its
    /// value in the next slot).
    fn push(self, fbb: &mut FlatBufferBuilder<'_>, vo: u16) {
        match self {
            Pending::Absent => {}
            Pending::Bool(v, always) => push(fbb, vo, v, always || v),
            Pending::I32(v, always) => push(fbb, vo, v, always || v != 0),
            Pending::I64(v, always) => push(fbb, vo, v, always || v != 0),
            Pending::F32(v, always) => push(fbb, vo, v, always || v.to_bits() != 0),
            Pending::F64(v, always) => push(fbb, vo, v, always || v.to_bits() != 0),
            Pending::U8(v, always) => push(fbb, vo, v, always || v != 0),
            Pending::U16(v, always) => push(fbb, vo, v, always || v != 0),
            Pending::U32(v, always) => push(fbb, vo, v, always || v != 0),
            Pending::Offset(o) => fbb.push_slot_always(vo, o),
            Pending::Union(t, o) => {
                fbb.push_slot_always(vo, t);
                fbb.push_slot_always(vo + 2, o);
            }
        }
    }
}

fn as_union<T>(o: WIPOffset<T>) -> WIPOffset<UnionWIPOffset> {
    WIPOffset::new(o.value())
}

impl Enc<'_> {
    fn table(
        &self,
        fbb: &mut FlatBufferBuilder<'_>,
        fields: Fields<'_>,
        d: &Datum,
        depth: usize,
    ) -> Result<WIPOffset<UnionWIPOffset>, GenericError> {
        if depth >= MAX_DEPTH {
            return Err(GenericError::depth_limit(MAX_DEPTH, None));
        }
        let s = self.schema;
        let base = self.pending.borrow().len();
        match fields {
            Fields::Record(r) => {
                let Datum::Record(values) = d else {
                    return Err(GenericError::unexpected("", None, "record", d.kind()));
                };
                let mut slot = 0u16;
                for (i, f) in r.fields.iter().enumerate() {
                    let v = field_value(s, values, i, f)?;
                    let p = self.prepare(fbb, f.ty, &v, depth).map_err(|e| nest(e, &f.name))?;
                    self.push_pending(slot, p);
                    slot += s.fbs_width(f.ty);
                }
            }
            Fields::One(ty) => {
                let p = self.prepare(fbb, ty, d, depth)?;
                self.push_pending(0, p);
            }
        }
        let start = fbb.start_table();
        let mut pending = self.pending.borrow_mut();
        for (slot, p) in pending.drain(base..) {
            p.push(fbb, voffset(slot));
        }
        Ok(as_union(fbb.end_table(start)))
    }

    /// A scalar (`always`: with presence) as it will sit in its slot.
    fn scalar(&self, ty: NodeId, d: &Datum, always: bool) -> Result<Pending, GenericError> {
        let s = self.schema;
        Ok(match (s.node(ty), d) {
            (Node::Boolean, Datum::Boolean(v)) => Pending::Bool(*v, always),
            (Node::Int, Datum::Int(v)) => Pending::I32(*v, always),
            (Node::Long, Datum::Long(v)) => Pending::I64(*v, always),
            (Node::Float, Datum::Float(v)) => Pending::F32(*v, always),
            (Node::Double, Datum::Double(v)) => Pending::F64(*v, always),
            (Node::Enum(e), Datum::Enum(i, _)) => {
                check_symbol(e.symbols.len(), *i)?;
                match fbs_enum_width(e.symbols.len()) {
                    1 => Pending::U8(*i as u8, always),
                    2 => Pending::U16(*i as u16, always),
                    _ => Pending::U32(*i, always),
                }
            }
            _ => return Err(mismatch(s, ty, d)),
        })
    }

    fn prepare(
        &self,
        fbb: &mut FlatBufferBuilder<'_>,
        ty: NodeId,
        d: &Datum,
        depth: usize,
    ) -> Result<Pending, GenericError> {
        let s = self.schema;
        match shape(s, ty) {
            Shape::Null => match d {
                Datum::Null => Ok(Pending::Absent),
                _ => Err(mismatch(s, ty, d)),
            },
            Shape::Leaf => match (s.node(ty), d) {
                (Node::String, Datum::String(v)) => Ok(Pending::Offset(as_union(fbb.create_string(v)))),
                (Node::Bytes, Datum::Bytes(v)) => Ok(Pending::Offset(as_union(fbb.create_vector(v)))),
                (Node::Fixed(f), Datum::Fixed(v)) => {
                    check_fixed(s, ty, f.size, v.len())?;
                    Ok(Pending::Offset(as_union(fbb.create_vector(v))))
                }
                _ => self.scalar(ty, d, false),
            },
            Shape::Record => match s.node(ty) {
                Node::Record(r) => Ok(Pending::Offset(self.table(fbb, Fields::Record(r), d, depth + 1)?)),
                _ => Err(mismatch(s, ty, d)),
            },
            Shape::Array(items) => {
                // An unboxed array of the schema's own item type: one copy
                // of its vector (the bytes `vector` writes for its boxed
                // form); anything else by `vector`, which has the errors.
                match (s.node(items), d) {
                    (Node::Double, Datum::Scalars(Scalars::Double(v))) => {
                        return Ok(Pending::Offset(as_union(fbb.create_vector(v))));
                    }
                    (Node::Long, Datum::Scalars(Scalars::Long(v))) => {
                        return Ok(Pending::Offset(as_union(fbb.create_vector(v))));
                    }
                    (Node::Int, Datum::Scalars(Scalars::Int(v))) => {
                        return Ok(Pending::Offset(as_union(fbb.create_vector(v))));
                    }
                    _ => {}
                }
                let Some(values) = d.array_items() else {
                    return Err(mismatch(s, ty, d));
                };
                Ok(Pending::Offset(self.vector(fbb, items, &values, depth)?))
            }
            Shape::Map(vt) => {
                let Datum::Map(entries) = d else {
                    return Err(mismatch(s, ty, d));
                };
                let mut offs = Vec::with_capacity(entries.len());
                for (k, v) in entries {
                    offs.push(self.entry(fbb, vt, k, v, depth + 1).map_err(|e| nest(e, k))?);
                }
                Ok(Pending::Offset(as_union(fbb.create_vector(&offs))))
            }
            Shape::Optional { value, ty: inner, .. } => {
                let Node::Union(branches) = s.node(ty) else {
                    unreachable!("union shape")
                };
                match branch(s, ty, branches, d)? {
                    (b, v) if b == value => match s.node(inner) {
                        Node::Boolean | Node::Int | Node::Long | Node::Float | Node::Double | Node::Enum(_) => {
                            self.scalar(inner, v, true)
                        }
                        _ => self.prepare(fbb, inner, v, depth),
                    },
                    _ => Ok(Pending::Absent),
                }
            }
            Shape::Oneof { null, branches } => {
                let (b, v) = branch(s, ty, branches, d)?;
                if Some(b) == null {
                    return Ok(Pending::Absent);
                }
                let bt = branches[b as usize];
                let k = b - u32::from(null.is_some_and(|x| x < b));
                let off = self.table(fbb, Fields::of(s, bt), v, depth + 1)?;
                Ok(Pending::Union(k as u8 + 1, off))
            }
        }
    }

    fn entry(
        &self,
        fbb: &mut FlatBufferBuilder<'_>,
        vt: NodeId,
        k: &str,
        v: &Datum,
        depth: usize,
    ) -> Result<WIPOffset<UnionWIPOffset>, GenericError> {
        if depth >= MAX_DEPTH {
            return Err(GenericError::depth_limit(MAX_DEPTH, None));
        }
        let key = fbb.create_string(k);
        let p = self.prepare(fbb, vt, v, depth)?;
        let start = fbb.start_table();
        fbb.push_slot_always(voffset(0), key);
        p.push(fbb, voffset(1));
        Ok(as_union(fbb.end_table(start)))
    }

    fn vector(
        &self,
        fbb: &mut FlatBufferBuilder<'_>,
        items: NodeId,
        values: &[Datum],
        depth: usize,
    ) -> Result<WIPOffset<UnionWIPOffset>, GenericError> {
        let s = self.schema;
        macro_rules! scalars {
            ($t:ty, $pat:pat => $v:expr) => {{
                fbb.start_vector::<$t>(values.len());
                for (i, d) in values.iter().enumerate().rev() {
                    match d {
                        $pat => {
                            fbb.push::<$t>($v);
                        }
                        other => return Err(nest_index(mismatch(s, items, other), i)),
                    }
                }
                Ok(as_union(fbb.end_vector::<$t>(values.len())))
            }};
        }
        match s.node(items) {
            Node::Boolean => scalars!(bool, Datum::Boolean(v) => *v),
            Node::Int => scalars!(i32, Datum::Int(v) => *v),
            Node::Long => scalars!(i64, Datum::Long(v) => *v),
            Node::Float => scalars!(f32, Datum::Float(v) => *v),
            Node::Double => scalars!(f64, Datum::Double(v) => *v),
            Node::Enum(e) => {
                let n = e.symbols.len();
                for (i, d) in values.iter().enumerate() {
                    match d {
                        Datum::Enum(x, _) => check_symbol(n, *x).map_err(|e| nest_index(e, i))?,
                        other => return Err(nest_index(mismatch(s, items, other), i)),
                    }
                }
                let idx = |d: &Datum| if let Datum::Enum(x, _) = d { *x } else { 0 };
                match fbs_enum_width(n) {
                    1 => scalars!(u8, d @ Datum::Enum(..) => idx(d) as u8),
                    2 => scalars!(u16, d @ Datum::Enum(..) => idx(d) as u16),
                    _ => scalars!(u32, d @ Datum::Enum(..) => idx(d)),
                }
            }
            _ => {
                let direct = fbs_direct_item(s, items);
                let mut offs = Vec::with_capacity(values.len());
                for (i, d) in values.iter().enumerate() {
                    let o = match (s.node(items), d) {
                        (Node::String, Datum::String(v)) if direct => Ok(as_union(fbb.create_string(v))),
                        (Node::String, other) => Err(mismatch(s, items, other)),
                        _ => self.table(fbb, Fields::of(s, items), d, depth + 1),
                    }
                    .map_err(|e| nest_index(e, i))?;
                    offs.push(o);
                }
                Ok(as_union(fbb.create_vector(&offs)))
            }
        }
    }
}

fn push<T: flatbuffers::Push + Copy>(fbb: &mut FlatBufferBuilder<'_>, vo: u16, v: T, write: bool) {
    if write {
        fbb.push_slot_always(vo, v);
    }
}

fn check_fixed(s: &Schema, ty: NodeId, size: usize, len: usize) -> Result<(), GenericError> {
    if len == size {
        return Ok(());
    }
    let expected = format!("{size} bytes of {}", s.describe(ty));
    Err(GenericError::unexpected("", None, expected, format!("{len} bytes")))
}

struct Dec<'a> {
    schema: &'a Schema,
    buf: &'a [u8],
}

#[cold]
fn fb_error(at: usize, e: InvalidFlatbuffer) -> GenericError {
    GenericError::library(at, "flatbuffers", e)
}

impl<'a> Dec<'a> {
    fn bytes<const N: usize>(&self, at: usize) -> [u8; N] {
        // The verifier checked `at..at + N`; a zeroed value is unreachable.
        self.buf
            .get(at..at + N)
            .and_then(|b| b.try_into().ok())
            .unwrap_or([0; N])
    }

    /// Follows the uoffset at `at` (checked) to the position it names.
    fn offset(&self, v: &mut Verifier<'_, '_>, at: usize) -> Result<usize, GenericError> {
        let o = v.get_uoffset(at).map_err(|e| fb_error(at, e))?;
        Ok(at.saturating_add(o as usize))
    }

    /// The checked range of the vector at `at` whose elements are `size` bytes
    /// aligned to `align`: (count, first element).
    fn vector_at(
        &self,
        v: &mut Verifier<'_, '_>,
        at: usize,
        size: usize,
        align: usize,
    ) -> Result<(usize, usize), GenericError> {
        let len = v.get_uoffset(at).map_err(|e| fb_error(at, e))? as usize;
        let start = at.saturating_add(4);
        let aligned = match align {
            8 => v.is_aligned::<u64>(start),
            4 => v.is_aligned::<u32>(start),
            2 => v.is_aligned::<u16>(start),
            _ => Ok(()),
        };
        aligned.map_err(|e| fb_error(start, e))?;
        v.range_in_buffer(start, len.saturating_mul(size))
            .map_err(|e| fb_error(start, e))?;
        Ok((len, start))
    }

    fn string_at(&self, v: &mut Verifier<'_, '_>, at: usize) -> Result<String, GenericError> {
        let (len, start) = self.vector_at(v, at, 1, 1)?;
        let bytes = &self.buf[start..start + len];
        if self.buf.get(start + len) != Some(&0) {
            return Err(GenericError::unexpected(
                "",
                Some(start + len),
                "the string's 0 terminator",
                "none",
            ));
        }
        match std::str::from_utf8(bytes) {
            Ok(s) => Ok(s.to_string()),
            Err(e) => Err(GenericError::invalid_utf8(start + e.valid_up_to())),
        }
    }

    fn table(&self, v: &mut Verifier<'_, '_>, at: usize, fields: Fields<'_>) -> Result<Datum, GenericError> {
        let s = self.schema;
        let mut tv = v.visit_table(at).map_err(|e| fb_error(at, e))?;
        let d = match fields {
            Fields::Record(r) => {
                let mut out = Vec::with_capacity(r.fields.len());
                let mut slot = 0u16;
                for f in &r.fields {
                    let d = self.field(&mut tv, f.ty, voffset(slot)).map_err(|e| nest(e, &f.name))?;
                    out.push(d);
                    slot += fbs_width(s, f.ty);
                }
                Datum::Record(super::datum::Fields::new(r.names.clone(), out).expect("a value per field"))
            }
            Fields::One(ty) => self.field(&mut tv, ty, voffset(0))?,
        };
        tv.finish();
        Ok(d)
    }

    /// The position of the field at vtable offset `vo`, if present.
    fn deref(&self, tv: &mut TableVerifier<'_, '_, '_>, vo: u16) -> Result<Option<usize>, GenericError> {
        tv.deref(vo).map_err(|e| fb_error(0, e))
    }

    fn scalar(&self, v: &mut Verifier<'_, '_>, ty: NodeId, at: usize) -> Result<Datum, GenericError> {
        let s = self.schema;
        macro_rules! read {
            ($t:ty) => {{
                v.in_buffer::<$t>(at).map_err(|e| fb_error(at, e))?;
                <$t>::from_le_bytes(self.bytes::<{ std::mem::size_of::<$t>() }>(at))
            }};
        }
        Ok(match s.node(ty) {
            Node::Boolean => Datum::Boolean(read!(u8) != 0),
            Node::Int => Datum::Int(read!(i32)),
            Node::Long => Datum::Long(read!(i64)),
            Node::Float => Datum::Float(read!(f32)),
            Node::Double => Datum::Double(read!(f64)),
            Node::Enum(e) => {
                let i = match fbs_enum_width(e.symbols.len()) {
                    1 => u32::from(read!(u8)),
                    2 => u32::from(read!(u16)),
                    _ => read!(u32),
                };
                match e.symbols.get(i as usize) {
                    Some(sym) => Datum::Enum(i, sym.clone()),
                    None => return Err(symbol_out_of_range(s, ty, "index", e.symbols.len(), at, i.to_string())),
                }
            }
            _ => return Err(GenericError::unexpected("", Some(at), "a scalar type", s.describe(ty))),
        })
    }

    /// The value a field of type `ty` holds at `at` (the field's position).
    fn value_at(&self, v: &mut Verifier<'_, '_>, ty: NodeId, at: usize) -> Result<Datum, GenericError> {
        let s = self.schema;
        match s.node(ty) {
            Node::Boolean | Node::Int | Node::Long | Node::Float | Node::Double | Node::Enum(_) => {
                self.scalar(v, ty, at)
            }
            Node::String => {
                let p = self.offset(v, at)?;
                Ok(Datum::String(self.string_at(v, p)?))
            }
            Node::Bytes | Node::Fixed(_) => {
                let p = self.offset(v, at)?;
                let (len, start) = self.vector_at(v, p, 1, 1)?;
                let b = self.buf[start..start + len].to_vec();
                if let Node::Fixed(f) = s.node(ty) {
                    check_fixed(s, ty, f.size, b.len()).map_err(|e| GenericError { offset: Some(p), ..e })?;
                    return Ok(Datum::Fixed(b));
                }
                Ok(Datum::Bytes(b))
            }
            Node::Record(r) => {
                let p = self.offset(v, at)?;
                self.table(v, p, Fields::Record(r))
            }
            Node::Array(items) => {
                let p = self.offset(v, at)?;
                self.array(v, *items, p)
            }
            Node::Map(vt) => {
                let p = self.offset(v, at)?;
                let (len, start) = self.vector_at(v, p, 4, 4)?;
                let mut out = Vec::with_capacity(len);
                for i in 0..len {
                    let e = self.offset(v, start + 4 * i)?;
                    let mut tv = v.visit_table(e).map_err(|x| fb_error(e, x))?;
                    let key = match self.deref(&mut tv, voffset(0))? {
                        Some(kp) => {
                            let sp = self.offset(tv.verifier(), kp)?;
                            self.string_at(tv.verifier(), sp)?
                        }
                        None => String::new(),
                    };
                    let value = self.field(&mut tv, *vt, voffset(1)).map_err(|x| nest(x, &key))?;
                    tv.finish();
                    out.push((key, value));
                }
                Ok(Datum::Map(out))
            }
            Node::Null | Node::Union(_) => Err(GenericError::unexpected(
                "",
                Some(at),
                "a non-union type",
                s.describe(ty),
            )),
        }
    }

    fn array(&self, v: &mut Verifier<'_, '_>, items: NodeId, at: usize) -> Result<Datum, GenericError> {
        let s = self.schema;
        let size = match s.node(items) {
            Node::Boolean => 1,
            Node::Long | Node::Double => 8,
            Node::Enum(e) => usize::from(fbs_enum_width(e.symbols.len())),
            _ => 4,
        };
        let (len, start) = self.vector_at(v, at, size, size)?;
        let mut out = Vec::with_capacity(len);
        let direct = fbs_direct_item(s, items);
        for i in 0..len {
            let p = start + size * i;
            let d = if direct {
                self.value_at(v, items, p)
            } else {
                match self.offset(v, p) {
                    Ok(t) => self.table(v, t, Fields::One(items)),
                    Err(e) => Err(e),
                }
            };
            out.push(d.map_err(|e| nest_index(e, i))?);
        }
        Ok(Datum::Array(out))
    }

    /// A field of type `ty` whose (first) slot is at vtable offset `vo`.
    fn field(&self, tv: &mut TableVerifier<'_, '_, '_>, ty: NodeId, vo: u16) -> Result<Datum, GenericError> {
        let s = self.schema;
        match shape(s, ty) {
            Shape::Null => Ok(Datum::Null),
            Shape::Leaf | Shape::Record | Shape::Array(_) | Shape::Map(_) => match self.deref(tv, vo)? {
                Some(at) => self.value_at(tv.verifier(), ty, at),
                None => self.absent(ty, 0),
            },
            Shape::Optional { null, value, ty: inner } => match self.deref(tv, vo)? {
                Some(at) => Ok(Datum::Union(value, Box::new(self.value_at(tv.verifier(), inner, at)?))),
                None => Ok(Datum::Union(null, Box::new(Datum::Null))),
            },
            Shape::Oneof { null, branches } => {
                let live = branches.len() - usize::from(null.is_some());
                if live == 0 {
                    return Ok(Datum::Union(null.unwrap_or(0), Box::new(Datum::Null)));
                }
                let t = match self.deref(tv, vo)? {
                    Some(at) => {
                        tv.verifier().in_buffer::<u8>(at).map_err(|e| fb_error(at, e))?;
                        (self.bytes::<1>(at)[0], at)
                    }
                    None => (0, 0),
                };
                let value_at = self.deref(tv, vo + 2)?;
                match (t.0, value_at) {
                    (0, None) => match null {
                        Some(n) => Ok(Datum::Union(n, Box::new(Datum::Null))),
                        None => Err(GenericError::no_member(s, ty)),
                    },
                    (k, Some(at)) if k != 0 && usize::from(k) <= live => {
                        let k = u32::from(k) - 1;
                        let b = k + u32::from(null.is_some_and(|x| x <= k));
                        let bt = branches[b as usize];
                        let p = self.offset(tv.verifier(), at)?;
                        let d = self.table(tv.verifier(), p, Fields::of(s, bt))?;
                        Ok(Datum::Union(b, Box::new(d)))
                    }
                    (k, _) => Err(GenericError::unexpected(
                        "",
                        Some(t.1),
                        format!("a union type of 1..={live} with its value"),
                        format!("type {k}{}", if value_at.is_some() { "" } else { " without a value" }),
                    )),
                }
            }
        }
    }

    /// The datum of a field that is not in its table.
    fn absent(&self, ty: NodeId, depth: usize) -> Result<Datum, GenericError> {
        walk::zero(self.schema, ty, depth, MAX_DEPTH)
    }
}
