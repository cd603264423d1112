//! The MessagePack reader: any width of every family, any key order,
//! unknown keys skipped (depth-limited), then validation into the model.
//!
//! Every length or count read from the wire goes through [`Cursor::take`] or
//! [`Cursor::check_count`] before anything is sliced or allocated, so a
//! `str 32` claiming 4 GiB costs one error. Capacities reserved from a count
//! are further capped ([`PRODUCT_MIN_BYTES`]); a `tags` or `variants` count
//! over the model's maximum is refused at its marker, before any item is read.
//!
//! Speed without a second grammar: keys in field order (docs/SPEC.md, "Field order") are matched as raw
//! fixstr bytes in straight-line code, and the common formats (fixstr,
//! str 8, the unsigned int widths, fix/16 headers) are read with one bounds
//! check each. Anything else — another width, keys in another order, a
//! short input, a wrong type — falls through to the general path, which
//! gives the same values and produces every error.
//!
//! Error offsets: a wrong type, an out-of-range number or an unknown enum is
//! reported at the value's marker byte; invalid UTF-8 at the first bad byte;
//! a duplicate key at the key; a missing field at the map's marker; a
//! validation failure at the product's marker.

use super::marker::{FIXARRAY, FIXMAP, FIXSTR, MAP16, Marker, STR8, U8, U16, U32, U64};
use crate::codec::cursor::Cursor;
use crate::codec::{DecodeError, ErrorKind};
use crate::model::{self, Catalog, Dimensions, MAX_TAGS, MAX_VARIANTS, Product, Status, Variant};
use std::collections::HashSet;

/// Deepest nesting of containers accepted anywhere, counting the catalog's own
/// map (1), the products array (2) and a product map (3). Unknown values are
/// skipped recursively, one stack frame per level, so this bounds the stack.
pub const MAX_DEPTH: usize = 128;

/// Fewest bytes a valid product can take (map 16 header, the 17 keys, one byte
/// per value, and the 4 dimension keys). Preallocation for the products array
/// is capped at `remaining / PRODUCT_MIN_BYTES`, so a forged count of 2^32
/// small items cannot reserve 2^32 × `size_of::<Product>()`.
pub const PRODUCT_MIN_BYTES: usize = 3 + key_bytes(&PRODUCT) + PRODUCT.len() + key_bytes(&DIMENSIONS);

/// A key of a record: its bytes on the wire, the name errors use, and what
/// its value must be (a `&'static str` built by `concat!`).
pub struct Field {
    pub key: &'static str,
    pub name: &'static str,
    pub expected: &'static str,
}

macro_rules! field {
    ($key:literal, $name:literal, $ty:literal) => {
        Field {
            key: $key,
            name: $name,
            expected: concat!($ty, " for `", $name, "`"),
        }
    };
}

/// Product keys in field order (docs/SPEC.md, "Field order") (= the order our encoder writes, tried first).
pub const PRODUCT: [Field; 17] = [
    field!("id", "id", "an integer"),
    field!("sku", "sku", "a string"),
    field!("name", "name", "a string"),
    field!("description", "description", "a string"),
    field!("price_cents", "price_cents", "an integer"),
    field!("currency", "currency", "a string"),
    field!("rating", "rating", "a float"),
    field!("review_count", "review_count", "an integer"),
    field!("in_stock", "in_stock", "a bool"),
    field!("stock", "stock", "an integer"),
    field!("status", "status", "a string"),
    field!("tags", "tags", "an array"),
    field!("dimensions", "dimensions", "a map"),
    field!("variants", "variants", "an array"),
    field!("discount_percent", "discount_percent", "nil or an integer"),
    field!("created_at_ms", "created_at_ms", "an integer"),
    field!("image_url", "image_url", "a string"),
];

pub const DIMENSIONS: [Field; 4] = [
    field!("width_mm", "dimensions.width_mm", "an integer"),
    field!("height_mm", "dimensions.height_mm", "an integer"),
    field!("depth_mm", "dimensions.depth_mm", "an integer"),
    field!("weight_g", "dimensions.weight_g", "an integer"),
];

pub const VARIANT: [Field; 5] = [
    field!("sku", "variants[].sku", "a string"),
    field!("color", "variants[].color", "a string"),
    field!("size", "variants[].size", "a string"),
    field!("price_cents", "variants[].price_cents", "an integer"),
    field!("stock", "variants[].stock", "an integer"),
];

const TAG: Field = field!("", "tags[]", "a string");
const PRODUCTS: Field = field!("products", "products", "an array");

const fn key_bytes(fields: &[Field]) -> usize {
    let mut sum = 0;
    let mut i = 0;
    while i < fields.len() {
        sum += 1 + fields[i].key.len();
        i += 1;
    }
    sum
}

#[cold]
fn wrong_type(at: usize, expected: &'static str, m: Marker) -> DecodeError {
    DecodeError::unexpected(at, expected, format!("{} ({:#04x})", m.name(), m.to_u8()))
}

#[cold]
fn out_of_range(at: usize, what: &'static str, value: impl ToString) -> DecodeError {
    DecodeError::new(
        at,
        ErrorKind::OutOfRange {
            what,
            value: value.to_string(),
        },
    )
}

/// The next marker and its offset.
#[inline(always)]
fn marker(cur: &mut Cursor<'_>, expected: &'static str) -> Result<(usize, Marker), DecodeError> {
    let at = cur.pos();
    let b = cur.u8(expected)?;
    Ok((at, Marker::from_u8(b)))
}

#[inline(always)]
fn be_u16(cur: &mut Cursor<'_>, expected: &'static str) -> Result<u16, DecodeError> {
    cur.array::<2>(expected).map(u16::from_be_bytes)
}

#[inline(always)]
fn be_u32(cur: &mut Cursor<'_>, expected: &'static str) -> Result<u32, DecodeError> {
    cur.array::<4>(expected).map(u32::from_be_bytes)
}

/// Any integer format as an `i64`; a uint 64 above `i64::MAX` is `OutOfRange`.
///
/// Every width of the same value reads the same: `01`, `cc 01`, `cf 00…01`,
/// `d3 00…01` are all 1.
#[inline(always)]
pub fn read_int(cur: &mut Cursor<'_>, f: &Field) -> Result<i64, DecodeError> {
    // The unsigned widths an encoder writes for non-negative values, whole in
    // the input: one bounds check each. Everything else (signed widths, a
    // uint 64 above i64::MAX, a short input, a wrong type) takes the general
    // path below, which gives the same values and every error.
    let at = cur.pos();
    let input = cur.input();
    let fast = match input.get(at) {
        Some(&b) if b < 0x80 => Some((1, i64::from(b))), // positive fixint
        Some(&U8) => input.get(at + 1).map(|&b| (2, i64::from(b))),
        Some(&U16) => be::<2>(input, at + 1).map(|b| (3, i64::from(u16::from_be_bytes(b)))),
        Some(&U32) => be::<4>(input, at + 1).map(|b| (5, i64::from(u32::from_be_bytes(b)))),
        Some(&U64) => be::<8>(input, at + 1).and_then(|b| Some((9, i64::try_from(u64::from_be_bytes(b)).ok()?))),
        _ => None,
    };
    if let Some((n, v)) = fast {
        cur.seek(at + n);
        return Ok(v);
    }
    read_int_general(cur, f)
}

/// `N` bytes of `input` from `at`, if all there.
#[inline(always)]
fn be<const N: usize>(input: &[u8], at: usize) -> Option<[u8; N]> {
    input.get(at..at + N).and_then(|s| s.try_into().ok())
}

/// [`read_int`] for every format, with its errors.
#[inline(never)]
fn read_int_general(cur: &mut Cursor<'_>, f: &Field) -> Result<i64, DecodeError> {
    let (at, m) = marker(cur, f.expected)?;
    let e = f.expected;
    Ok(match m {
        Marker::FixPos(v) => i64::from(v),
        Marker::FixNeg(v) => i64::from(v),
        Marker::U8 => i64::from(cur.u8(e)?),
        Marker::U16 => i64::from(be_u16(cur, e)?),
        Marker::U32 => i64::from(be_u32(cur, e)?),
        Marker::U64 => {
            let u = u64::from_be_bytes(cur.array::<8>(e)?);
            i64::try_from(u).map_err(|_| out_of_range(at, f.name, u))?
        }
        Marker::I8 => i64::from(cur.u8(e)? as i8),
        Marker::I16 => i64::from(i16::from_be_bytes(cur.array::<2>(e)?)),
        Marker::I32 => i64::from(i32::from_be_bytes(cur.array::<4>(e)?)),
        Marker::I64 => i64::from_be_bytes(cur.array::<8>(e)?),
        other => return Err(wrong_type(at, e, other)),
    })
}

/// Any integer format, range-checked into `i32`.
#[inline(always)]
pub fn read_i32(cur: &mut Cursor<'_>, f: &Field) -> Result<i32, DecodeError> {
    let at = cur.pos();
    let v = read_int(cur, f)?;
    i32::try_from(v).map_err(|_| out_of_range(at, f.name, v))
}

/// A float 64, or a float 32 widened exactly; NaN and ±infinity are
/// `OutOfRange`. Integers are refused: the schema says f64, and rmp-serde
/// (like us) always writes float 64.
#[inline(always)]
pub fn read_f64(cur: &mut Cursor<'_>, f: &Field) -> Result<f64, DecodeError> {
    let (at, m) = marker(cur, f.expected)?;
    let v = match m {
        Marker::F64 => f64::from_be_bytes(cur.array::<8>(f.expected)?),
        Marker::F32 => f64::from(f32::from_be_bytes(cur.array::<4>(f.expected)?)),
        other => return Err(wrong_type(at, f.expected, other)),
    };
    if !v.is_finite() {
        return Err(out_of_range(at, f.name, v));
    }
    Ok(v)
}

#[inline(always)]
fn read_bool(cur: &mut Cursor<'_>, f: &Field) -> Result<bool, DecodeError> {
    match marker(cur, f.expected)? {
        (_, Marker::True) => Ok(true),
        (_, Marker::False) => Ok(false),
        (at, other) => Err(wrong_type(at, f.expected, other)),
    }
}

/// The payload of a str of any width, not yet checked for UTF-8, and its offset.
#[inline(always)]
fn read_str_bytes<'a>(cur: &mut Cursor<'a>, expected: &'static str) -> Result<(usize, &'a [u8]), DecodeError> {
    // fixstr or str 8 whose bytes are all present: one bounds check for the
    // payload. Anything else (other widths, a short input, a wrong type)
    // takes the general path and its errors.
    let at = cur.pos();
    let input = cur.input();
    let fast = match input.get(at) {
        Some(&b) if b & 0xe0 == FIXSTR => {
            let start = at + 1;
            input.get(start..start + usize::from(b & 0x1f)).map(|s| (start, s))
        }
        Some(&STR8) => input.get(at + 1).and_then(|&n| {
            let start = at + 2;
            input.get(start..start + usize::from(n)).map(|s| (start, s))
        }),
        _ => None,
    };
    if let Some((start, s)) = fast {
        cur.seek(start + s.len());
        return Ok((start, s));
    }
    read_str_bytes_general(cur, expected)
}

/// [`read_str_bytes`] for every width, with its errors.
#[inline(never)]
fn read_str_bytes_general<'a>(cur: &mut Cursor<'a>, expected: &'static str) -> Result<(usize, &'a [u8]), DecodeError> {
    let (at, m) = marker(cur, expected)?;
    let len = match m {
        Marker::FixStr(n) => u32::from(n),
        Marker::Str8 => u32::from(cur.u8(expected)?),
        Marker::Str16 => u32::from(be_u16(cur, expected)?),
        Marker::Str32 => be_u32(cur, expected)?,
        other => return Err(wrong_type(at, expected, other)),
    };
    let start = cur.pos();
    Ok((start, cur.take(u64::from(len), "string length")?))
}

#[inline]
fn utf8(start: usize, bytes: &[u8]) -> Result<&str, DecodeError> {
    std::str::from_utf8(bytes).map_err(|e| DecodeError::new(start + e.valid_up_to(), ErrorKind::InvalidUtf8))
}

/// A str of any width as `&str`; invalid UTF-8 is reported at the first bad byte.
#[inline(always)]
pub fn read_str<'a>(cur: &mut Cursor<'a>, f: &Field) -> Result<&'a str, DecodeError> {
    let (start, bytes) = read_str_bytes(cur, f.expected)?;
    utf8(start, bytes)
}

/// An array header of any width; the count is checked against the input
/// (each element takes at least one byte).
#[inline(always)]
fn read_array_len(cur: &mut Cursor<'_>, f: &Field) -> Result<usize, DecodeError> {
    // A fixarray whose count fits what remains; anything else, general path.
    let at = cur.pos();
    if let Some(&b) = cur.input().get(at)
        && b & 0xf0 == FIXARRAY
    {
        let n = usize::from(b & 0x0f);
        if n < cur.remaining() {
            cur.seek(at + 1);
            return Ok(n);
        }
    }
    read_array_len_general(cur, f)
}

#[inline(never)]
fn read_array_len_general(cur: &mut Cursor<'_>, f: &Field) -> Result<usize, DecodeError> {
    let (at, m) = marker(cur, f.expected)?;
    let n = match m {
        Marker::FixArray(n) => u32::from(n),
        Marker::Array16 => u32::from(be_u16(cur, f.expected)?),
        Marker::Array32 => be_u32(cur, f.expected)?,
        other => return Err(wrong_type(at, f.expected, other)),
    };
    cur.check_count(u64::from(n), 1, "array length")
}

/// A map header of any width, its offset, and the pair count checked against
/// the input (each pair takes at least two bytes).
#[inline(always)]
fn read_map_len(cur: &mut Cursor<'_>, expected: &'static str) -> Result<(usize, usize), DecodeError> {
    // fixmap or map 16 whose pairs could fit what remains (two bytes each);
    // anything else takes the general path and its errors.
    let at = cur.pos();
    let input = cur.input();
    let fast = match input.get(at) {
        Some(&b) if b & 0xf0 == FIXMAP => Some((1, usize::from(b & 0x0f))),
        Some(&MAP16) => be::<2>(input, at + 1).map(|b| (3, usize::from(u16::from_be_bytes(b)))),
        _ => None,
    };
    if let Some((h, n)) = fast
        && n * 2 <= input.len() - (at + h)
    {
        cur.seek(at + h);
        return Ok((at, n));
    }
    read_map_len_general(cur, expected)
}

#[inline(never)]
fn read_map_len_general(cur: &mut Cursor<'_>, expected: &'static str) -> Result<(usize, usize), DecodeError> {
    let (at, m) = marker(cur, expected)?;
    let n = match m {
        Marker::FixMap(n) => u32::from(n),
        Marker::Map16 => u32::from(be_u16(cur, expected)?),
        Marker::Map32 => be_u32(cur, expected)?,
        other => return Err(wrong_type(at, expected, other)),
    };
    Ok((at, cur.check_count(u64::from(n), 2, "map length")?))
}

/// Reads a key and finds it in `fields`, trying `fields[hint]` first (the
/// position our encoder puts it at). Unknown keys must still be valid UTF-8.
///
/// The hinted key is compared as raw wire bytes (its fixstr marker, then the
/// key): the same answer the general path gives for those bytes, without
/// decoding a marker or slicing through the cursor.
#[inline(always)]
fn read_key(
    cur: &mut Cursor<'_>,
    fields: &[Field],
    hint: usize,
    expected: &'static str,
) -> Result<(usize, Option<usize>), DecodeError> {
    let at = cur.pos();
    if fields.get(hint).is_some_and(|f| at_key(cur, f.key)) {
        return Ok((at, Some(hint)));
    }
    let (start, key) = read_str_bytes(cur, expected)?;
    if let Some(i) = fields.iter().position(|f| key_eq(f.key.as_bytes(), key)) {
        return Ok((at, Some(i)));
    }
    utf8(start, key)?;
    Ok((at, None))
}

/// Consumes `key` if the input holds it next as a fixstr (marker, then the
/// bytes): the same answer [`read_key`]'s general path gives for those bytes.
/// Leaves the cursor alone otherwise.
#[inline(always)]
fn at_key(cur: &mut Cursor<'_>, key: &str) -> bool {
    let at = cur.pos();
    let k = key.as_bytes();
    let input = cur.input();
    let hit = input.get(at) == Some(&(FIXSTR | k.len() as u8))
        && input.get(at + 1..at + 1 + k.len()).is_some_and(|b| key_eq(k, b));
    if hit {
        cur.seek(at + 1 + k.len());
    }
    hit
}

/// `a == b` for short keys without a call to `memcmp`: two overlapping
/// 8-byte (or 4-byte) loads cover any key of 4..=16 bytes. Same result as `==`.
#[inline(always)]
fn key_eq(a: &[u8], b: &[u8]) -> bool {
    fn u64_at(s: &[u8], i: usize) -> u64 {
        s.get(i..i + 8)
            .and_then(|s| s.try_into().ok())
            .map_or(0, u64::from_le_bytes)
    }
    fn u32_at(s: &[u8], i: usize) -> u32 {
        s.get(i..i + 4)
            .and_then(|s| s.try_into().ok())
            .map_or(0, u32::from_le_bytes)
    }
    let n = a.len();
    if n != b.len() {
        return false;
    }
    match n {
        8..=16 => u64_at(a, 0) == u64_at(b, 0) && u64_at(a, n - 8) == u64_at(b, n - 8),
        4..=7 => u32_at(a, 0) == u32_at(b, 0) && u32_at(a, n - 4) == u32_at(b, n - 4),
        _ => a == b,
    }
}

/// Marks field `i` as seen; a second sighting is `DuplicateField` at the key.
#[inline(always)]
fn mark_seen(seen: &mut u32, i: usize, fields: &[Field], key_at: usize) -> Result<(), DecodeError> {
    let bit = 1u32 << i;
    if *seen & bit != 0 {
        return Err(DecodeError::new(
            key_at,
            ErrorKind::DuplicateField { field: fields[i].name },
        ));
    }
    *seen |= bit;
    Ok(())
}

/// `MissingField` for the first field (in field order: docs/SPEC.md, "Field order") not in `seen`.
#[inline]
fn check_all_seen(seen: u32, fields: &[Field], map_at: usize) -> Result<(), DecodeError> {
    let all = (1u32 << fields.len()) - 1;
    if seen == all {
        return Ok(());
    }
    let missing = (!seen & all).trailing_zeros() as usize;
    Err(DecodeError::new(
        map_at,
        ErrorKind::MissingField {
            field: fields[missing].name,
        },
    ))
}

/// Skips one value of any type (including bin, ext and nested containers).
/// `depth` is the number of containers around the value.
pub fn skip_value(cur: &mut Cursor<'_>, depth: usize) -> Result<(), DecodeError> {
    const E: &str = "a MessagePack value";
    let (at, m) = marker(cur, E)?;
    let (len, body) = match m {
        Marker::FixPos(_) | Marker::FixNeg(_) | Marker::Nil | Marker::True | Marker::False => return Ok(()),
        Marker::U8 | Marker::I8 => return cur.fixed(1, E).map(drop),
        Marker::U16 | Marker::I16 => return cur.fixed(2, E).map(drop),
        Marker::U32 | Marker::I32 | Marker::F32 => return cur.fixed(4, E).map(drop),
        Marker::U64 | Marker::I64 | Marker::F64 => return cur.fixed(8, E).map(drop),
        // fixext N: a type byte, then N bytes of data.
        Marker::FixExt1 => return cur.fixed(2, E).map(drop),
        Marker::FixExt2 => return cur.fixed(3, E).map(drop),
        Marker::FixExt4 => return cur.fixed(5, E).map(drop),
        Marker::FixExt8 => return cur.fixed(9, E).map(drop),
        Marker::FixExt16 => return cur.fixed(17, E).map(drop),
        Marker::FixStr(_) | Marker::Str8 | Marker::Str16 | Marker::Str32 => {
            cur.seek(at);
            let (start, bytes) = read_str_bytes(cur, E)?;
            return utf8(start, bytes).map(drop);
        }
        Marker::Bin8 => (u32::from(cur.u8(E)?), Body::Bin),
        Marker::Bin16 => (u32::from(be_u16(cur, E)?), Body::Bin),
        Marker::Bin32 => (be_u32(cur, E)?, Body::Bin),
        // ext N: length, then a type byte, then that many bytes of data.
        Marker::Ext8 => (u32::from(cur.u8(E)?), Body::Ext),
        Marker::Ext16 => (u32::from(be_u16(cur, E)?), Body::Ext),
        Marker::Ext32 => (be_u32(cur, E)?, Body::Ext),
        Marker::FixArray(n) => (u32::from(n), Body::Array),
        Marker::Array16 => (u32::from(be_u16(cur, E)?), Body::Array),
        Marker::Array32 => (be_u32(cur, E)?, Body::Array),
        Marker::FixMap(n) => (u32::from(n), Body::Map),
        Marker::Map16 => (u32::from(be_u16(cur, E)?), Body::Map),
        Marker::Map32 => (be_u32(cur, E)?, Body::Map),
        Marker::Reserved => return Err(wrong_type(at, E, m)),
    };
    let items = match body {
        Body::Bin => return cur.take(u64::from(len), "bin length").map(drop),
        Body::Ext => {
            cur.fixed(1, "an ext type byte")?;
            return cur.take(u64::from(len), "ext length").map(drop);
        }
        Body::Array => cur.check_count(u64::from(len), 1, "array length")?,
        Body::Map => cur.check_count(u64::from(len), 2, "map length")? * 2,
    };
    if depth >= MAX_DEPTH {
        return Err(DecodeError::new(at, ErrorKind::DepthLimit { limit: MAX_DEPTH }));
    }
    for _ in 0..items {
        skip_value(cur, depth + 1)?;
    }
    Ok(())
}

/// What follows a bin, ext, array or map header in [`skip_value`].
enum Body {
    Bin,
    Ext,
    Array,
    Map,
}

/// Reads `{"products": [...]}` (unknown root keys skipped) and validates it.
pub fn read_catalog(cur: &mut Cursor<'_>) -> Result<Catalog, DecodeError> {
    let (map_at, pairs) = read_map_len(cur, "the catalog map")?;
    let mut products = None;
    for _ in 0..pairs {
        let (key_at, i) = read_key(
            cur,
            std::slice::from_ref(&PRODUCTS),
            0,
            "a string key in the catalog map",
        )?;
        match i {
            Some(_) if products.is_some() => {
                return Err(DecodeError::new(
                    key_at,
                    ErrorKind::DuplicateField { field: "products" },
                ));
            }
            Some(_) => products = Some(read_products(cur)?),
            None => skip_value(cur, 1)?,
        }
    }
    match products {
        Some(products) => Ok(Catalog { products }),
        None => Err(DecodeError::new(map_at, ErrorKind::MissingField { field: "products" })),
    }
}

fn read_products(cur: &mut Cursor<'_>) -> Result<Vec<Product>, DecodeError> {
    let n = read_array_len(cur, &PRODUCTS)?;
    let mut products: Vec<Product> = Vec::with_capacity(n.min(cur.remaining() / PRODUCT_MIN_BYTES));
    // Ids must be unique. Ascending ids (our encoder's, for the fixtures) are
    // checked for free; the first step down switches to a set.
    let mut id_set: Option<HashSet<i64>> = None;
    for i in 0..n {
        let at = cur.pos();
        let p = read_product(cur, i)?;
        p.validate(i).map_err(|e| DecodeError::invalid(at, e))?;
        let unique = match (&mut id_set, products.last()) {
            (Some(set), _) => set.insert(p.id),
            (None, Some(prev)) if p.id <= prev.id => {
                let mut set: HashSet<i64> = products.iter().map(|q: &Product| q.id).collect();
                let unique = set.insert(p.id);
                id_set = Some(set);
                unique
            }
            (None, _) => true,
        };
        if !unique {
            return Err(DecodeError::invalid(at, model::duplicate_id(i, p.id)));
        }
        products.push(p);
    }
    Ok(products)
}

/// Reads one product map: 17 known keys in any order, others skipped.
///
/// Keys in field order (docs/SPEC.md, "Field order") (what our encoder and rmp-serde write) are matched as
/// raw bytes in straight-line code; at the first key out of place the general
/// any-order loop takes over from that pair, with the fields read so far
/// marked as seen, so the result and every error are the same either way.
pub fn read_product(cur: &mut Cursor<'_>, index: usize) -> Result<Product, DecodeError> {
    const DEPTH: usize = 3; // catalog map, products array, product map
    let (map_at, pairs) = read_map_len(cur, "a product map")?;
    let mut p = Product {
        id: 0,
        sku: String::new(),
        name: String::new(),
        description: String::new(),
        price_cents: 0,
        currency: String::new(),
        rating: 0.0,
        review_count: 0,
        in_stock: false,
        stock: 0,
        status: Status::Active,
        tags: Vec::new(),
        dimensions: Dimensions::default(),
        variants: Vec::new(),
        discount_percent: None,
        created_at_ms: 0,
        image_url: String::new(),
    };
    let mut k = 0;
    'canonical: {
        macro_rules! next {
            ($i:literal) => {
                if k == pairs || !at_key(cur, PRODUCT[$i].key) {
                    break 'canonical;
                }
                read_product_field(cur, &mut p, $i, index)?;
                k += 1;
            };
        }
        next!(0);
        next!(1);
        next!(2);
        next!(3);
        next!(4);
        next!(5);
        next!(6);
        next!(7);
        next!(8);
        next!(9);
        next!(10);
        next!(11);
        next!(12);
        next!(13);
        next!(14);
        next!(15);
        next!(16);
    }
    let mut seen = (1u32 << k) - 1;
    for k in k..pairs {
        let (key_at, i) = read_key(cur, &PRODUCT, k, "a string key in a product map")?;
        let Some(i) = i else {
            skip_value(cur, DEPTH)?;
            continue;
        };
        mark_seen(&mut seen, i, &PRODUCT, key_at)?;
        read_product_field(cur, &mut p, i, index)?;
    }
    check_all_seen(seen, &PRODUCT, map_at)?;
    Ok(p)
}

/// Reads the value of `PRODUCT[i]` into `p`.
#[inline(always)]
fn read_product_field(cur: &mut Cursor<'_>, p: &mut Product, i: usize, index: usize) -> Result<(), DecodeError> {
    let f = &PRODUCT[i];
    match i {
        0 => p.id = read_int(cur, f)?,
        1 => p.sku = read_str(cur, f)?.to_owned(),
        2 => p.name = read_str(cur, f)?.to_owned(),
        3 => p.description = read_str(cur, f)?.to_owned(),
        4 => p.price_cents = read_int(cur, f)?,
        5 => p.currency = read_str(cur, f)?.to_owned(),
        6 => p.rating = read_f64(cur, f)?,
        7 => p.review_count = read_i32(cur, f)?,
        8 => p.in_stock = read_bool(cur, f)?,
        9 => p.stock = read_i32(cur, f)?,
        10 => {
            let at = cur.pos();
            let s = read_str(cur, f)?;
            p.status = Status::from_str_exact(s).ok_or_else(|| {
                DecodeError::new(
                    at,
                    ErrorKind::UnknownEnum {
                        what: "status",
                        value: format!("{s:?}"),
                    },
                )
            })?;
        }
        11 => {
            let n = list_len(cur, f, index, "tags", MAX_TAGS)?;
            p.tags.reserve_exact(n);
            for _ in 0..n {
                p.tags.push(read_str(cur, &TAG)?.to_owned());
            }
        }
        12 => p.dimensions = read_dimensions(cur)?,
        13 => {
            let n = list_len(cur, f, index, "variants", MAX_VARIANTS)?;
            p.variants.reserve_exact(n);
            for _ in 0..n {
                p.variants.push(read_variant(cur)?);
            }
        }
        14 => {
            p.discount_percent = if cur.peek() == Some(Marker::Nil.to_u8()) {
                cur.u8(f.expected)?;
                None
            } else {
                Some(read_i32(cur, f)?)
            }
        }
        15 => p.created_at_ms = read_int(cur, f)?,
        _ => p.image_url = read_str(cur, f)?.to_owned(),
    }
    Ok(())
}

/// The length of a `tags` or `variants` array, refused at its marker when
/// it is over the model's maximum: the list is never read, so a forged
/// count of empty strings cannot grow a vector 24 bytes per input byte.
fn list_len(cur: &mut Cursor<'_>, f: &Field, index: usize, field: &str, max: usize) -> Result<usize, DecodeError> {
    let at = cur.pos();
    let n = read_array_len(cur, f)?;
    if n > max {
        let e = model::too_many_items(index, field, max, format_args!("found {n}"));
        return Err(DecodeError::invalid(at, e));
    }
    Ok(n)
}

fn read_dimensions(cur: &mut Cursor<'_>) -> Result<Dimensions, DecodeError> {
    const DEPTH: usize = 4;
    let (map_at, pairs) = read_map_len(cur, PRODUCT[12].expected)?;
    let mut d = Dimensions::default();
    // Field order (docs/SPEC.md, "Field order") first, as in `read_product`.
    let mut k = 0;
    while k < pairs.min(DIMENSIONS.len()) && at_key(cur, DIMENSIONS[k].key) {
        set_dimension(&mut d, k, read_i32(cur, &DIMENSIONS[k])?);
        k += 1;
    }
    let mut seen = (1u32 << k) - 1;
    for k in k..pairs {
        let (key_at, i) = read_key(cur, &DIMENSIONS, k, "a string key in a dimensions map")?;
        let Some(i) = i else {
            skip_value(cur, DEPTH)?;
            continue;
        };
        mark_seen(&mut seen, i, &DIMENSIONS, key_at)?;
        set_dimension(&mut d, i, read_i32(cur, &DIMENSIONS[i])?);
    }
    check_all_seen(seen, &DIMENSIONS, map_at)?;
    Ok(d)
}

#[inline(always)]
fn set_dimension(d: &mut Dimensions, i: usize, v: i32) {
    match i {
        0 => d.width_mm = v,
        1 => d.height_mm = v,
        2 => d.depth_mm = v,
        _ => d.weight_g = v,
    }
}

fn read_variant(cur: &mut Cursor<'_>) -> Result<Variant, DecodeError> {
    const DEPTH: usize = 5; // … product map, variants array, variant map
    let (map_at, pairs) = read_map_len(cur, "a variant map")?;
    let mut v = Variant {
        sku: String::new(),
        color: String::new(),
        size: String::new(),
        price_cents: 0,
        stock: 0,
    };
    // Field order (docs/SPEC.md, "Field order") first, as in `read_product`.
    let mut k = 0;
    'canonical: {
        macro_rules! next {
            ($i:literal) => {
                if k == pairs || !at_key(cur, VARIANT[$i].key) {
                    break 'canonical;
                }
                read_variant_field(cur, &mut v, $i)?;
                k += 1;
            };
        }
        next!(0);
        next!(1);
        next!(2);
        next!(3);
        next!(4);
    }
    let mut seen = (1u32 << k) - 1;
    for k in k..pairs {
        let (key_at, i) = read_key(cur, &VARIANT, k, "a string key in a variant map")?;
        let Some(i) = i else {
            skip_value(cur, DEPTH)?;
            continue;
        };
        mark_seen(&mut seen, i, &VARIANT, key_at)?;
        read_variant_field(cur, &mut v, i)?;
    }
    check_all_seen(seen, &VARIANT, map_at)?;
    Ok(v)
}

/// Reads the value of `VARIANT[i]` into `v`.
#[inline(always)]
fn read_variant_field(cur: &mut Cursor<'_>, v: &mut Variant, i: usize) -> Result<(), DecodeError> {
    let f = &VARIANT[i];
    match i {
        0 => v.sku = read_str(cur, f)?.to_owned(),
        1 => v.color = read_str(cur, f)?.to_owned(),
        2 => v.size = read_str(cur, f)?.to_owned(),
        3 => v.price_cents = read_int(cur, f)?,
        _ => v.stock = read_i32(cur, f)?,
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_tables_match_the_model_order() {
        let keys: Vec<&str> = PRODUCT.iter().map(|f| f.key).collect();
        assert_eq!(keys.len(), 17);
        assert_eq!(keys[0], "id");
        assert_eq!(keys[16], "image_url");
        assert_eq!(PRODUCT[14].expected, "nil or an integer for `discount_percent`");
        // map16 header + 17 keys + 17 one-byte values + the 4 dimension keys.
        assert_eq!(PRODUCT_MIN_BYTES, 3 + 153 + 17 + 37);
    }

    #[test]
    fn key_eq_is_slice_equality() {
        let words: [&[u8]; 12] = [
            b"",
            b"a",
            b"ab",
            b"abc",
            b"abcd",
            b"abce",
            b"abcdefg",
            b"abcdefh",
            b"abcdefgh",
            b"xbcdefgh",
            b"discount_percent",
            b"discount_percenx",
        ];
        for a in words {
            for b in words {
                assert_eq!(key_eq(a, b), a == b, "{a:?} {b:?}");
            }
        }
        for f in PRODUCT.iter().chain(&DIMENSIONS).chain(&VARIANT) {
            assert!(f.key.len() <= 16, "{} is longer than key_eq's fast path", f.key);
        }
    }

    #[test]
    fn every_width_of_one_reads_as_one() {
        let f = &PRODUCT[0];
        let widths: [&[u8]; 9] = [
            &[0x01],
            &[0xcc, 0x01],
            &[0xcd, 0x00, 0x01],
            &[0xce, 0, 0, 0, 1],
            &[0xcf, 0, 0, 0, 0, 0, 0, 0, 1],
            &[0xd0, 0x01],
            &[0xd1, 0x00, 0x01],
            &[0xd2, 0, 0, 0, 1],
            &[0xd3, 0, 0, 0, 0, 0, 0, 0, 1],
        ];
        for bytes in widths {
            let mut cur = Cursor::new(bytes);
            assert_eq!(read_int(&mut cur, f).unwrap(), 1, "{bytes:02x?}");
            assert!(cur.finish().is_ok());
        }
    }
}
