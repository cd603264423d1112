//! The schema-driven MessagePack codec: a datum of any Avro schema as one
//! MessagePack value (spec: <https://github.com/msgpack/msgpack/blob/master/spec.md>).
//!
//! | schema type | written as (marker) | also read |
//! |---|---|---|
//! | `null` | nil `c0` | — |
//! | `boolean` | false `c2` / true `c3` | — |
//! | `int`, `long` | smallest int: non-negative in the unsigned family (fixint `00..7f`, uint 8–64 `cc..cf`), negative in the signed (fixint `e0..ff`, int 8–64 `d0..d3`) | every width, within range |
//! | `float` | float 32 `ca` | float 64 `cb` whose value is finite in f32 |
//! | `double` | float 64 `cb` | float 32 `ca` (widened exactly) |
//! | `string`, `enum` | str (fixstr `a0..bf`, str 8/16/32 `d9..db`); an enum as its symbol | — |
//! | `bytes`, `fixed` | bin 8/16/32 `c4..c6` | — |
//! | `array` | fixarray `90..9f`, array 16/32 `dc`/`dd` | — |
//! | `map` | fixmap `80..8f`, map 16/32 `de`/`df`, str keys | — |
//! | `record` | a map of the fields, str keys in schema order | keys in any order; absent fields as in [`super::walk`]; unknown or repeated keys refused |
//! | union | the bare value: the first branch whose family the marker is in (and whose range the value fits) | — |
//!
//! `{"id":7}` as the record `{id: long}` is `81 a2 69 64 07`. With
//! `schemas/catalog.avsc` the bytes equal the catalog's MessagePack codec's
//! (rmp-serde's `to_vec_named` layout). Hostile input: every length is checked
//! against the bytes left before anything is allocated (an array item or map
//! pair takes at least one byte per element), ext and `c1` are refused,
//! nesting is bounded by [`MAX_DEPTH`].

use super::datum::{Datum, Scalars};
use super::error::{GenericError, GenericErrorKind, decoded, mismatch, nest, nest_index, unknown_symbol};
use super::schema::{Node, NodeId, Schema};
use super::sink::Sink;
use super::walk::{self, MAX_DEPTH, check_unique_keys, enum_index, enum_symbol_index, record_field};
use crate::codec::cursor::Cursor;
use crate::codec::msgpack::write::{Header, Scalar, array_header, int_bytes, map_header, str_header};

type Result<T> = std::result::Result<T, GenericError>;

/// Appends the MessagePack encoding of `value`, an instance of `schema`
/// (on error, `out` is unchanged).
pub fn encode(schema: &Schema, value: &Datum, out: &mut Vec<u8>) -> Result<()> {
    let mut sink = Sink::new(out);
    write_node(schema, schema.root(), value, &mut sink, 0)?;
    sink.finish();
    Ok(())
}

/// Reads one whole MessagePack value as an instance of `schema`.
pub fn decode(schema: &Schema, bytes: &[u8]) -> Result<Datum> {
    let mut r = Reader {
        c: Cursor::new(bytes),
        schema,
    };
    let d = r.value(schema.root(), 0)?;
    super::error::finished(&r.c)?;
    Ok(d)
}

#[cold]
fn too_long(e: crate::codec::EncodeError) -> GenericError {
    GenericError::new("", None, GenericErrorKind::Unsupported { what: e.to_string() })
}

/// A length header (marker and length, little-endian in the word).
#[inline(always)]
fn header(out: &mut Sink<'_>, h: std::result::Result<Header, crate::codec::EncodeError>) -> Result<()> {
    let Header(h, n) = h.map_err(too_long)?;
    out.prefix(h.to_le_bytes(), n);
    Ok(())
}

#[inline(always)]
fn write_str(out: &mut Sink<'_>, s: &str) -> Result<()> {
    header(out, str_header(s.len()))?;
    out.bytes(s.as_bytes());
    Ok(())
}

fn write_bin(out: &mut Sink<'_>, b: &[u8]) -> Result<()> {
    let n = b.len();
    if n <= 0xff {
        out.array([0xc4, n as u8]);
    } else if n <= 0xffff {
        let [a, c] = (n as u16).to_be_bytes();
        out.array([0xc5, a, c]);
    } else if let Ok(n) = u32::try_from(n) {
        let [a, c, d, e] = n.to_be_bytes();
        out.array([0xc6, a, c, d, e]);
    } else {
        return Err(too_long(crate::codec::EncodeError::TooLong { what: "bin", len: n }));
    }
    out.bytes(b);
    Ok(())
}

/// `marker`, then the 4 or 8 bytes of `be`.
#[inline(always)]
fn marked<const N: usize, const M: usize>(out: &mut Sink<'_>, marker: u8, be: [u8; N]) {
    let mut b = [0u8; M];
    b[0] = marker;
    b[1..].copy_from_slice(&be);
    out.array(b);
}

/// Writes a scalar datum of the scalar type `n` whole and returns true, or
/// writes nothing and returns false (another type, a mismatch, a string no
/// str holds): [`write_node`] then writes it or finds the error. Called in
/// the loops of records, arrays and maps, so a scalar costs no call, no
/// depth check and no `Result`.
#[inline(always)]
fn plain_leaf(n: &Node, d: &Datum, out: &mut Sink<'_>) -> bool {
    match (n, d) {
        (Node::Null, Datum::Null) => out.byte(0xc0),
        (Node::Boolean, Datum::Boolean(b)) => out.byte(if *b { 0xc3 } else { 0xc2 }),
        (Node::Int, Datum::Int(i)) => {
            let Scalar(b, n) = int_bytes(i64::from(*i));
            out.prefix(b.to_le_bytes(), n);
        }
        (Node::Long, Datum::Long(i)) => {
            let Scalar(b, n) = int_bytes(*i);
            out.prefix(b.to_le_bytes(), n);
        }
        (Node::Float, Datum::Float(f)) => marked::<4, 5>(out, 0xca, f.to_be_bytes()),
        (Node::Double, Datum::Double(f)) => marked::<8, 9>(out, 0xcb, f.to_be_bytes()),
        (Node::String, Datum::String(s)) => return str_leaf(out, s),
        _ => return false,
    }
    true
}

/// [`plain_leaf`], through a union: a [`Datum::Union`] naming a scalar
/// branch is written as that branch's value.
#[inline(always)]
fn leaf(schema: &Schema, n: &Node, d: &Datum, out: &mut Sink<'_>) -> bool {
    match (n, d) {
        (Node::Union(branches), Datum::Union(i, inner)) => match branches.get(*i as usize) {
            Some(&b) => plain_leaf(schema.node(b), inner, out),
            None => false,
        },
        _ => plain_leaf(n, d, out),
    }
}

/// A string with its header, or false (nothing written) when it is longer
/// than a str holds.
#[inline(always)]
fn str_leaf(out: &mut Sink<'_>, s: &str) -> bool {
    match str_header(s.len()) {
        Ok(Header(h, n)) => {
            out.prefix(h.to_le_bytes(), n);
            out.bytes(s.as_bytes());
            true
        }
        Err(_) => false,
    }
}

/// The items of an array of `items`: the dispatch on the item type made
/// once for the whole array (a float 64 array is one loop of 9-byte stores,
/// with room for all of them made first).
fn write_items(schema: &Schema, items: NodeId, values: &[Datum], out: &mut Sink<'_>, depth: usize) -> Result<()> {
    let slow = |v: &Datum, i: usize, out: &mut Sink<'_>| {
        write_node(schema, items, v, out, depth + 1).map_err(|e| nest_index(e, i))
    };
    if depth + 1 >= MAX_DEPTH {
        // At the nesting limit `write_node` decides item by item.
        for (i, v) in values.iter().enumerate() {
            slow(v, i, out)?;
        }
        return Ok(());
    }
    let item = schema.node(items);
    match item {
        Node::Double => {
            out.room(9 * values.len());
            for (i, v) in values.iter().enumerate() {
                match v {
                    Datum::Double(f) => marked::<8, 9>(out, 0xcb, f.to_be_bytes()),
                    v => slow(v, i, out)?,
                }
            }
        }
        Node::Long => {
            for (i, v) in values.iter().enumerate() {
                match v {
                    Datum::Long(x) => {
                        let Scalar(b, n) = int_bytes(*x);
                        out.prefix(b.to_le_bytes(), n);
                    }
                    v => slow(v, i, out)?,
                }
            }
        }
        Node::Int => {
            for (i, v) in values.iter().enumerate() {
                match v {
                    Datum::Int(x) => {
                        let Scalar(b, n) = int_bytes(i64::from(*x));
                        out.prefix(b.to_le_bytes(), n);
                    }
                    v => slow(v, i, out)?,
                }
            }
        }
        Node::String => {
            for (i, v) in values.iter().enumerate() {
                let done = matches!(v, Datum::String(s) if str_leaf(out, s));
                if !done {
                    slow(v, i, out)?;
                }
            }
        }
        Node::Record(r) => {
            for (i, v) in values.iter().enumerate() {
                match v {
                    Datum::Record(fields) => {
                        write_record(schema, r, fields, out, depth + 1).map_err(|e| nest_index(e, i))?
                    }
                    v => slow(v, i, out)?,
                }
            }
        }
        _ => {
            for (i, v) in values.iter().enumerate() {
                if !leaf(schema, item, v, out) {
                    slow(v, i, out)?;
                }
            }
        }
    }
    Ok(())
}

/// A record's fields: each key one copy of its pre-encoded bytes
/// ([`super::schema::Field::msgpack_key`]), each scalar value written in
/// place ([`leaf`]).
#[inline]
fn write_record(
    schema: &Schema,
    r: &super::schema::Record,
    fields: &super::datum::Fields,
    out: &mut Sink<'_>,
    depth: usize,
) -> Result<()> {
    if depth > MAX_DEPTH {
        return Err(GenericError::depth_limit(MAX_DEPTH, None));
    }
    header(out, map_header(r.fields.len(), "record"))?;
    // A union's branch sits two levels below: within the limit for both.
    let inner = depth + 1 < MAX_DEPTH;
    for (i, f) in r.fields.iter().enumerate() {
        let v = record_field(fields, i, &f.name).ok_or_else(|| GenericError::missing_field(f.key(), None))?;
        if f.msgpack_key.is_empty() {
            write_str(out, f.key())?;
        } else {
            out.bytes(&f.msgpack_key);
        }
        if inner && leaf(schema, schema.node(f.ty), v, out) {
            continue;
        }
        write_node(schema, f.ty, v, out, depth + 1).map_err(|e| nest(e, f.key()))?;
    }
    Ok(())
}

fn write_node(schema: &Schema, node: NodeId, datum: &Datum, out: &mut Sink<'_>, depth: usize) -> Result<()> {
    if depth > MAX_DEPTH {
        return Err(GenericError::depth_limit(MAX_DEPTH, None));
    }
    let n = schema.node(node);
    if plain_leaf(n, datum, out) {
        return Ok(());
    }
    match (n, datum) {
        // A string no str header holds: `write_str` says so.
        (Node::String, Datum::String(s)) => write_str(out, s)?,
        (Node::Bytes, Datum::Bytes(b)) => write_bin(out, b)?,
        (Node::Fixed(f), Datum::Fixed(b)) if b.len() == f.size => write_bin(out, b)?,
        (Node::Enum(e), Datum::Enum(i, s)) => {
            enum_symbol_index(e, *i, s)?;
            write_str(out, s)?;
        }
        (Node::Union(branches), d) => match walk::branch_for(schema, branches, d) {
            Some((i, inner)) => write_node(schema, branches[i as usize], inner, out, depth + 1)?,
            None => return Err(mismatch(schema, node, d)),
        },
        (Node::Array(items), Datum::Scalars(values)) => {
            // No `Vec<Datum>` built: items of the schema's own type straight
            // from the vector, as `write_items` writes their boxed form;
            // anything else (or at the nesting limit) item by item through
            // `write_node`, which has the errors.
            header(out, array_header(values.len(), "array"))?;
            match (schema.node(*items), values) {
                (Node::Double, Scalars::Double(v)) if depth + 1 < MAX_DEPTH => {
                    out.room(9 * v.len());
                    for f in v {
                        marked::<8, 9>(out, 0xcb, f.to_be_bytes());
                    }
                }
                (Node::Long, Scalars::Long(v)) if depth + 1 < MAX_DEPTH => {
                    for &x in v {
                        let Scalar(b, n) = int_bytes(x);
                        out.prefix(b.to_le_bytes(), n);
                    }
                }
                (Node::Int, Scalars::Int(v)) if depth + 1 < MAX_DEPTH => {
                    for &x in v {
                        let Scalar(b, n) = int_bytes(i64::from(x));
                        out.prefix(b.to_le_bytes(), n);
                    }
                }
                _ => {
                    for (i, v) in values.iter().enumerate() {
                        write_node(schema, *items, &v, out, depth + 1).map_err(|e| nest_index(e, i))?;
                    }
                }
            }
        }
        (Node::Array(items), Datum::Array(values)) => {
            header(out, array_header(values.len(), "array"))?;
            if !values.is_empty() {
                write_items(schema, *items, values, out, depth)?;
            }
        }
        (Node::Map(values), Datum::Map(entries)) => {
            header(out, map_header(entries.len(), "map"))?;
            let vt = schema.node(*values);
            // A union's branch sits two levels below: within the limit for both.
            let inner = depth + 1 < MAX_DEPTH;
            for (k, v) in entries {
                if !str_leaf(out, k) {
                    write_str(out, k)?;
                }
                if inner && leaf(schema, vt, v, out) {
                    continue;
                }
                write_node(schema, *values, v, out, depth + 1).map_err(|e| nest(e, k))?;
            }
        }
        (Node::Record(r), Datum::Record(fields)) => write_record(schema, r, fields, out, depth)?,
        (_, d) => return Err(mismatch(schema, node, d)),
    }
    Ok(())
}

/// The family of a marker byte, for errors and union branch choice.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Family {
    Nil,
    Bool,
    Int,
    Float,
    Str,
    Bin,
    Array,
    Map,
    Other,
}

/// [`family_of`] of every marker byte.
const FAMILIES: [Family; 256] = {
    let mut t = [Family::Other; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = family_of(i as u8);
        i += 1;
    }
    t
};

#[inline]
fn family(m: u8) -> Family {
    FAMILIES[m as usize]
}

const fn family_of(m: u8) -> Family {
    match m {
        0x00..=0x7f | 0xe0..=0xff | 0xcc..=0xcf | 0xd0..=0xd3 => Family::Int,
        0x80..=0x8f | 0xde | 0xdf => Family::Map,
        0x90..=0x9f | 0xdc | 0xdd => Family::Array,
        0xa0..=0xbf | 0xd9..=0xdb => Family::Str,
        0xc0 => Family::Nil,
        0xc2 | 0xc3 => Family::Bool,
        0xc4..=0xc6 => Family::Bin,
        0xca | 0xcb => Family::Float,
        _ => Family::Other,
    }
}

fn family_name(f: Family, m: u8) -> String {
    match f {
        Family::Nil => "nil".into(),
        Family::Bool => "a boolean".into(),
        Family::Int => "an integer".into(),
        Family::Float => "a float".into(),
        Family::Str => "a str".into(),
        Family::Bin => "a bin".into(),
        Family::Array => "an array".into(),
        Family::Map => "a map".into(),
        Family::Other => format!("marker 0x{m:02x}"),
    }
}

/// The families a schema type reads from.
#[inline]
fn reads_from(n: &Node, f: Family) -> bool {
    matches!(
        (n, f),
        (Node::Null, Family::Nil)
            | (Node::Boolean, Family::Bool)
            | (Node::Int | Node::Long, Family::Int)
            | (Node::Float | Node::Double, Family::Float)
            | (Node::String | Node::Enum(_), Family::Str)
            | (Node::Bytes | Node::Fixed(_), Family::Bin)
            | (Node::Array(_), Family::Array)
            | (Node::Map(_) | Node::Record(_), Family::Map)
    )
}

struct Reader<'a> {
    c: Cursor<'a>,
    schema: &'a Schema,
}

impl<'a> Reader<'a> {
    /// A big-endian unsigned integer of `n` (1, 2, 4 or 8) bytes.
    #[inline]
    fn be(&mut self, n: usize, what: &'static str) -> Result<u64> {
        Ok(match n {
            1 => u64::from(decoded(self.c.array::<1>(what))?[0]),
            2 => u64::from(u16::from_be_bytes(decoded(self.c.array::<2>(what))?)),
            4 => u64::from(u32::from_be_bytes(decoded(self.c.array::<4>(what))?)),
            _ => u64::from_be_bytes(decoded(self.c.array::<8>(what))?),
        })
    }

    /// The marker byte, not consumed.
    fn peek(&self, expected: impl FnOnce() -> String) -> Result<u8> {
        self.c
            .peek()
            .ok_or_else(|| GenericError::at("", self.c.pos(), GenericErrorKind::Eof { expected: expected() }))
    }

    fn integer(&mut self) -> Result<i128> {
        let m = self.marker(Family::Int, "an integer")?;
        Ok(match m {
            0x00..=0x7f => i128::from(m),
            0xe0..=0xff => i128::from(m as i8),
            0xcc => i128::from(self.be(1, "uint 8")?),
            0xcd => i128::from(self.be(2, "uint 16")?),
            0xce => i128::from(self.be(4, "uint 32")?),
            0xcf => i128::from(self.be(8, "uint 64")?),
            0xd0 => i128::from(self.be(1, "int 8")? as u8 as i8),
            0xd1 => i128::from(self.be(2, "int 16")? as u16 as i16),
            0xd2 => i128::from(self.be(4, "int 32")? as u32 as i32),
            _ => i128::from(self.be(8, "int 64")? as i64),
        })
    }

    /// A length after marker `m` of a family whose short form holds
    /// `fix_mask` bits, with 8/16/32-bit forms at `m8`, `m16`, `m32`.
    fn length(&mut self, m: u8, fix: Option<(u8, u8)>, m8: Option<u8>, m16: u8, m32: u8) -> Result<u64> {
        if let Some((lo, hi)) = fix
            && (lo..=hi).contains(&m)
        {
            return Ok(u64::from(m - lo));
        }
        if Some(m) == m8 {
            return self.be(1, "8-bit length");
        }
        if m == m16 {
            return self.be(2, "16-bit length");
        }
        if m == m32 {
            return self.be(4, "32-bit length");
        }
        Err(GenericError::unexpected(
            "",
            Some(self.c.pos() - 1),
            "a length marker",
            format!("0x{m:02x}"),
        ))
    }

    /// Consumes the marker if it is of family `want`, else the error.
    fn marker(&mut self, want: Family, expected: &str) -> Result<u8> {
        let at = self.c.pos();
        let m = self.peek(|| expected.to_string())?;
        if family(m) != want {
            return Err(GenericError::unexpected(
                "",
                Some(at),
                expected,
                family_name(family(m), m),
            ));
        }
        self.c.seek(at + 1);
        Ok(m)
    }

    fn str(&mut self) -> Result<&'a str> {
        let at = self.c.pos();
        let m = self.marker(Family::Str, "a str")?;
        let len = self.length(m, Some((0xa0, 0xbf)), Some(0xd9), 0xda, 0xdb)?;
        let b = decoded(self.c.take(len, "str length"))?;
        crate::codec::utf8::str_at(at, b).map_err(|_| GenericError::invalid_utf8(at))
    }

    fn bin(&mut self) -> Result<&'a [u8]> {
        let m = self.marker(Family::Bin, "a bin")?;
        let len = self.length(m, None, Some(0xc4), 0xc5, 0xc6)?;
        decoded(self.c.take(len, "bin length"))
    }

    /// An array or map count after its marker, checked against the bytes
    /// left at `per_item` bytes each.
    fn count(&mut self, map: bool) -> Result<usize> {
        let m = self.marker(
            if map { Family::Map } else { Family::Array },
            if map { "a map" } else { "an array" },
        )?;
        let n = if map {
            self.length(m, Some((0x80, 0x8f)), None, 0xde, 0xdf)?
        } else {
            self.length(m, Some((0x90, 0x9f)), None, 0xdc, 0xdd)?
        };
        let what = if map { "map pair count" } else { "array count" };
        decoded(self.c.check_count(n, if map { 2 } else { 1 }, what))
    }

    fn value(&mut self, node: NodeId, depth: usize) -> Result<Datum> {
        let schema = self.schema;
        let at = self.c.pos();
        let n = schema.node(node);
        let m = self.peek(|| schema.describe(node))?;
        // The commonest markers of scalar types, read here; everything else
        // (and every error) below.
        match (n, m) {
            (Node::Double, 0xcb) => {
                self.c.seek(at + 1);
                return Ok(Datum::Double(f64::from_bits(self.be(8, "float 64")?)));
            }
            (Node::Long, 0x00..=0x7f | 0xe0..=0xff) => {
                self.c.seek(at + 1);
                return Ok(Datum::Long(i64::from(m as i8)));
            }
            (Node::Int, 0x00..=0x7f | 0xe0..=0xff) => {
                self.c.seek(at + 1);
                return Ok(Datum::Int(i32::from(m as i8)));
            }
            (Node::String, 0xa0..=0xbf) => {
                self.c.seek(at + 1);
                let b = decoded(self.c.take(u64::from(m - 0xa0), "str length"))?;
                return match crate::codec::utf8::str_at(at, b) {
                    Ok(s) => Ok(Datum::String(s.to_string())),
                    Err(_) => Err(GenericError::invalid_utf8(at)),
                };
            }
            (Node::Boolean, 0xc2 | 0xc3) => {
                self.c.seek(at + 1);
                return Ok(Datum::Boolean(m == 0xc3));
            }
            (Node::Null, 0xc0) => {
                self.c.seek(at + 1);
                return Ok(Datum::Null);
            }
            _ => {}
        }
        let f = family(m);
        if let Node::Union(branches) = n {
            if depth >= MAX_DEPTH {
                return Err(GenericError::depth_limit(MAX_DEPTH, Some(at)));
            }
            let mut first_err = None;
            for (i, &b) in branches.iter().enumerate() {
                if !reads_from(schema.node(b), f) {
                    continue;
                }
                match self.value(b, depth + 1) {
                    Ok(v) => return Ok(Datum::Union(i as u32, Box::new(v))),
                    // Containers are read by their first branch only.
                    Err(e) if matches!(f, Family::Array | Family::Map) => return Err(e),
                    Err(e) => {
                        first_err.get_or_insert(e);
                        self.c.seek(at);
                    }
                }
            }
            return Err(first_err
                .unwrap_or_else(|| GenericError::unexpected("", Some(at), schema.describe(node), family_name(f, m))));
        }
        if !reads_from(n, f) {
            return Err(GenericError::unexpected(
                "",
                Some(at),
                schema.describe(node),
                family_name(f, m),
            ));
        }
        let range = |what: &str, v: String| GenericError::out_of_range(Some(at), what, v);
        Ok(match n {
            Node::Null => {
                self.c.seek(at + 1);
                Datum::Null
            }
            Node::Boolean => {
                self.c.seek(at + 1);
                Datum::Boolean(m == 0xc3)
            }
            Node::Int => {
                let v = self.integer()?;
                Datum::Int(i32::try_from(v).map_err(|_| range("int", v.to_string()))?)
            }
            Node::Long => {
                let v = self.integer()?;
                Datum::Long(i64::try_from(v).map_err(|_| range("long", v.to_string()))?)
            }
            Node::Float | Node::Double => {
                self.c.seek(at + 1);
                let v = if m == 0xca {
                    f64::from(f32::from_bits(self.be(4, "float 32")? as u32))
                } else {
                    f64::from_bits(self.be(8, "float 64")?)
                };
                if matches!(n, Node::Double) {
                    Datum::Double(v)
                } else {
                    let narrow = v as f32;
                    if v.is_finite() && !narrow.is_finite() {
                        return Err(range("float", v.to_string()));
                    }
                    Datum::Float(narrow)
                }
            }
            Node::String => Datum::String(self.str()?.to_string()),
            Node::Enum(e) => {
                let s = self.str()?;
                match enum_index(&e.symbols, s) {
                    Some(i) => Datum::Enum(i, e.spelled(i, s)),
                    None => return Err(unknown_symbol(e, at, format!("{s:?}"))),
                }
            }
            Node::Bytes => Datum::Bytes(self.bin()?.to_vec()),
            Node::Fixed(fx) => {
                let b = self.bin()?;
                if b.len() != fx.size {
                    return Err(GenericError::unexpected(
                        "",
                        Some(at),
                        format!("{} bytes for {}", fx.size, fx.name.fullname),
                        format!("{} bytes", b.len()),
                    ));
                }
                Datum::Fixed(b.to_vec())
            }
            Node::Array(items) => {
                self.depth_ok(depth, at)?;
                let count = self.count(false)?;
                // Arrays of ints, longs and doubles read into an unboxed
                // vector (`Datum::Scalars`): no `Datum` per item to build
                // or drop.
                let mut scalars = match schema.node(*items) {
                    Node::Int => Some(Scalars::Int(Vec::with_capacity(count))),
                    Node::Long => Some(Scalars::Long(Vec::with_capacity(count))),
                    Node::Double => Some(Scalars::Double(Vec::with_capacity(count))),
                    _ => None,
                };
                if let Some(s) = &mut scalars {
                    for i in 0..count {
                        if let Scalars::Double(v) = s
                            && self.c.peek() == Some(0xcb)
                        {
                            let start = self.c.pos();
                            if let Some(b) = self.c.input().get(start + 1..start + 9) {
                                let mut be = [0u8; 8];
                                be.copy_from_slice(b);
                                self.c.seek(start + 9);
                                v.push(f64::from_be_bytes(be));
                                continue;
                            }
                        }
                        match (&mut *s, self.value(*items, depth + 1).map_err(|e| nest_index(e, i))?) {
                            (Scalars::Int(v), Datum::Int(x)) => v.push(x),
                            (Scalars::Long(v), Datum::Long(x)) => v.push(x),
                            (Scalars::Double(v), Datum::Double(x)) => v.push(x),
                            (_, d) => return Err(nest_index(mismatch(schema, *items, &d), i)),
                        }
                    }
                }
                if let Some(s) = scalars {
                    return Ok(Datum::Scalars(s));
                }
                let mut out = Vec::with_capacity(count);
                for i in 0..count {
                    out.push(self.value(*items, depth + 1).map_err(|e| nest_index(e, i))?);
                }
                Datum::Array(out)
            }
            Node::Map(values) => {
                self.depth_ok(depth, at)?;
                let count = self.count(true)?;
                let mut out = Vec::with_capacity(count);
                for _ in 0..count {
                    let k = self.str()?;
                    let v = self.value(*values, depth + 1).map_err(|e| nest(e, k))?;
                    out.push((k.to_string(), v));
                }
                check_unique_keys(&out, at)?;
                Datum::Map(out)
            }
            Node::Record(r) => {
                self.depth_ok(depth, at)?;
                let count = self.count(true)?;
                let mut fields = walk::RecordFields::new(schema, r);
                for _ in 0..count {
                    let key_at = self.c.pos();
                    let k = self.str()?;
                    let hint = fields.next_index();
                    let index = if r.fields.get(hint).is_some_and(|f| f.key() == k) {
                        hint
                    } else {
                        r.fields.iter().position(|f| f.key() == k).ok_or_else(|| {
                            GenericError::unexpected(
                                "",
                                Some(key_at),
                                format!("a field of record {}", r.name.fullname),
                                format!("key `{k}`"),
                            )
                        })?
                    };
                    if fields.has(index) {
                        return Err(GenericError::duplicate(k, key_at));
                    }
                    let f = &r.fields[index];
                    fields.put(index, self.value(f.ty, depth + 1).map_err(|e| nest(e, f.key()))?);
                }
                Datum::Record(fields.finish(Some(at))?)
            }
            Node::Union(_) => unreachable!("unions are read above"),
        })
    }

    fn depth_ok(&self, depth: usize, at: usize) -> Result<()> {
        if depth >= MAX_DEPTH {
            return Err(GenericError::depth_limit(MAX_DEPTH, Some(at)));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numeric_arrays_read_unboxed() {
        let doubles = Schema::of(r#"{"type":"array","items":"double"}"#);
        // [1.5 as float 64, 0.5 as float 32, 2 as a fixint]: the last is not a double.
        let mut bytes = vec![0x93, 0xcb];
        bytes.extend_from_slice(&1.5f64.to_be_bytes());
        bytes.push(0xca);
        bytes.extend_from_slice(&0.5f32.to_be_bytes());
        let e = decode(&doubles, &[bytes.as_slice(), &[0x02]].concat()).unwrap_err();
        assert!(e.to_string().starts_with("/2: "), "{e}");
        bytes[0] = 0x92;
        let d = decode(&doubles, &bytes).unwrap();
        assert!(
            matches!(&d, Datum::Scalars(Scalars::Double(v)) if v == &[1.5, 0.5]),
            "{d:?}"
        );
        let ints = Schema::of(r#"{"type":"array","items":"int"}"#);
        let d = decode(&ints, &[0x92, 0x01, 0xff]).unwrap();
        assert!(matches!(&d, Datum::Scalars(Scalars::Int(v)) if v == &[1, -1]), "{d:?}");
        let mut out = Vec::new();
        encode(&ints, &d, &mut out).unwrap();
        assert_eq!(out, [0x92, 0x01, 0xff]);
        // A truncated float 64 is an error, not a short read.
        assert!(decode(&doubles, &[0x91, 0xcb, 0x3f]).is_err());
    }

    #[test]
    fn layout_of_a_small_record() {
        let s = Schema::of(r#"{"type":"record","name":"R","fields":[{"name":"id","type":"long"}]}"#);
        let d = Datum::record(vec![("id".into(), Datum::Long(7))]);
        let mut out = Vec::new();
        encode(&s, &d, &mut out).unwrap();
        assert_eq!(out, [0x81, 0xa2, b'i', b'd', 0x07]);
        assert_eq!(decode(&s, &out).unwrap(), d);
    }

    /// The in-place paths (scalars in records, arrays of doubles and
    /// longs, unions of scalars) write what `write_node` writes, and a
    /// value that fails on them is an error at its pointer with `out` kept.
    #[test]
    fn in_place_paths_write_the_same_bytes_and_errors() {
        let s = Schema::of(
            r#"{"type":"record","name":"R","fields":[
                {"name":"d","type":{"type":"array","items":"double"}},
                {"name":"l","type":{"type":"array","items":"long"}},
                {"name":"u","type":["null","long"]},
                {"name":"k","type":"string","wirebench.key":"a key of thirty-six bytes, spelled out"}]}"#,
        );
        let d = Datum::record(vec![
            ("d".into(), Datum::Array(vec![Datum::Double(1.5)])),
            ("l".into(), Datum::Array(vec![Datum::Long(-1), Datum::Long(300)])),
            ("u".into(), Datum::Union(1, Box::new(Datum::Long(5)))),
            ("k".into(), Datum::String("x".into())),
        ]);
        let mut out = Vec::new();
        encode(&s, &d, &mut out).unwrap();
        let mut want = vec![0x84, 0xa1, b'd', 0x91, 0xcb];
        want.extend_from_slice(&1.5f64.to_be_bytes());
        want.extend_from_slice(&[0xa1, b'l', 0x92, 0xff, 0xcd, 0x01, 0x2c, 0xa1, b'u', 0x05]);
        let key = b"a key of thirty-six bytes, spelled out";
        want.extend_from_slice(&[0xd9, key.len() as u8]);
        want.extend_from_slice(key);
        want.extend_from_slice(&[0xa1, b'x']);
        assert_eq!(out, want);
        assert_eq!(decode(&s, &out).unwrap(), d);

        let mut bad = d.clone();
        if let Datum::Record(f) = &mut bad {
            f.values_mut()[0] = Datum::Array(vec![Datum::Double(1.0), Datum::Long(2)]);
        }
        let mut out = b"kept".to_vec();
        let e = encode(&s, &bad, &mut out).unwrap_err();
        assert_eq!(e.pointer, "/d/1", "{e}");
        assert_eq!(out, b"kept");
        if let Datum::Record(f) = &mut bad {
            f.values_mut()[0] = Datum::Array(vec![]);
            f.values_mut()[2] = Datum::Union(1, Box::new(Datum::Int(2)));
        }
        let e = encode(&s, &bad, &mut out).unwrap_err();
        assert_eq!(e.pointer, "/u", "{e}");
        assert_eq!(out, b"kept");
    }

    /// Nesting: a datum encodes exactly when its deepest value (a union's
    /// branch counts a level below the union) is within [`MAX_DEPTH`],
    /// whether that value is a scalar written in place or not.
    #[test]
    fn the_nesting_limit_holds_on_the_in_place_paths() {
        let s = Schema::of(
            r#"{"type":"record","name":"R","fields":[
                {"name":"next","type":["null","R"]},
                {"name":"v","type":["null","long"]}]}"#,
        );
        // Debug builds take more stack per level than the test thread has.
        std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(move || nesting_limit_cases(&s))
            .unwrap()
            .join()
            .unwrap();
    }

    fn nesting_limit_cases(s: &Schema) {
        let mut outcomes = [false; 2];
        for levels in 60..70 {
            // Record k sits at depth 2k; its `v` union at 2k + 1 and the long at 2k + 2.
            let mut d = Datum::record(vec![
                ("next".into(), Datum::Union(0, Box::new(Datum::Null))),
                ("v".into(), Datum::Union(1, Box::new(Datum::Long(1)))),
            ]);
            for _ in 1..levels {
                d = Datum::record(vec![
                    ("next".into(), Datum::Union(1, Box::new(d))),
                    ("v".into(), Datum::Union(0, Box::new(Datum::Null))),
                ]);
            }
            let deepest = 2 * (levels - 1) + 2;
            let ok = encode(s, &d, &mut Vec::new()).is_ok();
            assert_eq!(ok, deepest <= MAX_DEPTH, "{levels} levels");
            outcomes[usize::from(ok)] = true;
        }
        assert_eq!(outcomes, [true, true], "both sides of the limit are tried");
    }

    #[test]
    fn every_integer_width_reads_within_range() {
        let s = Schema::of(r#""int""#);
        for bytes in [
            &[0xcf, 0, 0, 0, 0, 0, 0, 0, 5][..],
            &[0xd3, 0, 0, 0, 0, 0, 0, 0, 5],
            &[0xd0, 5],
            &[0x05],
        ] {
            assert_eq!(decode(&s, bytes).unwrap(), Datum::Int(5));
        }
        let e = decode(&s, &[0xce, 0x80, 0, 0, 0]).unwrap_err();
        assert_eq!(e.to_string(), "(root): int out of range: 2147483648 at byte 0");
    }

    #[test]
    fn lengths_beyond_the_input_are_refused_before_allocating() {
        let s = Schema::of(r#"{"type":"array","items":"null"}"#);
        let e = decode(&s, &[0xdd, 0xff, 0xff, 0xff, 0xff]).unwrap_err();
        assert!(matches!(e.kind, GenericErrorKind::LengthExceedsInput { .. }), "{e}");
        let s = Schema::of(r#""string""#);
        let e = decode(&s, &[0xdb, 0xff, 0xff, 0xff, 0xff, b'a']).unwrap_err();
        assert!(matches!(e.kind, GenericErrorKind::LengthExceedsInput { .. }), "{e}");
    }

    #[test]
    fn unions_pick_by_family_and_range() {
        let s = Schema::of(r#"["null","int","long","string","bytes"]"#);
        let cases: [(&[u8], u32); 5] = [
            (&[0xc0], 0),
            (&[0x01], 1),
            (&[0xcf, 0, 0, 0, 1, 0, 0, 0, 0], 2),
            (&[0xa1, b'x'], 3),
            (&[0xc4, 1, 9], 4),
        ];
        for (bytes, branch) in cases {
            match decode(&s, bytes).unwrap() {
                Datum::Union(b, _) => assert_eq!(b, branch, "{bytes:02x?}"),
                other => panic!("{other:?}"),
            }
        }
        let e = decode(&s, &[0xcb, 0, 0, 0, 0, 0, 0, 0, 0]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "(root): expected union[null,int,long,string,bytes], found a float at byte 0"
        );
    }
}
