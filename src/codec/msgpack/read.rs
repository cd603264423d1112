//! The MessagePack reader, the one walk of the bytes behind both decodes:
//! any width of every family, any key order, unknown keys skipped
//! (depth-limited). [`read_product`] fills whichever
//! [`ProductOut`] it is given, the borrowed view or the owned model;
//! [`view`](super::view) runs it over the products array and validates.
//!
//! Every length or count read from the wire goes through [`Cursor::take`] or
//! [`Cursor::check_count`] before anything is sliced or allocated, so a
//! `str 32` claiming 4 GiB costs one error. Capacities reserved from a count
//! are further capped ([`PRODUCT_MIN_BYTES`]); a `tags` or `variants` count
//! over the model's maximum is refused at its marker, before any item is read.
//!
//! Speed without a second grammar: keys in field order (docs/SPEC.md, "Field order") are matched as raw
//! fixstr bytes in straight-line code, and each reader (integer, str, array
//! and map header) is one match on the marker byte with one bounds check for
//! the bytes after it, every width included. When that match fails,
//! [`header_error`] (cold) works out which error it was; it reads no values.
//!
//! Error offsets: a wrong type, an out-of-range number or an unknown enum is
//! reported at the value's marker byte; invalid UTF-8 at the first bad byte;
//! a duplicate key at the key; a missing field at the map's marker; a
//! validation failure at the product's marker.

use super::marker::{
    ARRAY16, ARRAY32, FIXARRAY, FIXMAP, FIXSTR, I8, I16, I32, I64, MAP16, MAP32, Marker, STR8, STR16, STR32, U8, U16,
    U32, U64, length,
};
use crate::codec::cursor::Cursor;
use crate::codec::record::{self, Seen};
use crate::codec::utf8::str_at;
use crate::codec::view::{List, ProductOut, Set, SetVariant, VariantOut};
use crate::codec::{DecodeError, ErrorKind};
use crate::model::{self, Dimensions, MAX_TAGS, MAX_VARIANTS, Status};

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

pub(crate) const TAG: Field = field!("", "tags[]", "a string");
pub(crate) const PRODUCTS: Field = field!("products", "products", "an array");

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

/// The next marker and its offset.
#[inline(always)]
fn marker(cur: &mut Cursor<'_>, expected: &'static str) -> Result<(usize, Marker), DecodeError> {
    let at = cur.pos();
    let b = cur.u8(expected)?;
    Ok((at, Marker::from_u8(b)))
}

/// Any integer format as an `i64`; a uint 64 above `i64::MAX` is `OutOfRange`.
///
/// Every width of the same value reads the same: `01`, `cc 01`, `cf 00…01`,
/// `d3 00…01` are all 1. One match on the marker byte and one bounds check
/// for the bytes after it read every value; anything that fails goes to
/// [`header_error`], which only works out which error to report.
#[inline(always)]
pub fn read_int(cur: &mut Cursor<'_>, f: &Field) -> Result<i64, DecodeError> {
    let at = cur.pos();
    let input = cur.input();
    let read = match input.get(at) {
        Some(&b) if b < 0x80 => Some((1, i64::from(b))), // positive fixint
        Some(&b) if b >= 0xe0 => Some((1, i64::from(b as i8))), // negative fixint
        Some(&U8) => be::<1>(input, at).map(|b| (2, i64::from(b[0]))),
        Some(&U16) => be(input, at).map(|b| (3, i64::from(u16::from_be_bytes(b)))),
        Some(&U32) => be(input, at).map(|b| (5, i64::from(u32::from_be_bytes(b)))),
        Some(&U64) => be(input, at).and_then(|b| Some((9, i64::try_from(u64::from_be_bytes(b)).ok()?))),
        Some(&I8) => be::<1>(input, at).map(|b| (2, i64::from(b[0] as i8))),
        Some(&I16) => be(input, at).map(|b| (3, i64::from(i16::from_be_bytes(b)))),
        Some(&I32) => be(input, at).map(|b| (5, i64::from(i32::from_be_bytes(b)))),
        Some(&I64) => be(input, at).map(|b| (9, i64::from_be_bytes(b))),
        _ => None,
    };
    match read {
        Some((n, v)) => {
            cur.seek(at + n);
            Ok(v)
        }
        None => Err(header_error(input, at, f.expected, INT_HEADERS, Some(f.name))),
    }
}

/// The `N` bytes after the marker at `at`, if all there.
#[inline(always)]
fn be<const N: usize>(input: &[u8], at: usize) -> Option<[u8; N]> {
    input.get(at + 1..at + 1 + N).and_then(|s| s.try_into().ok())
}

/// Bytes after each marker a reader accepts: (marker, size of what follows).
type Headers = &'static [(u8, usize)];
const INT_HEADERS: Headers = &[
    (U8, 1),
    (U16, 2),
    (U32, 4),
    (U64, 8),
    (I8, 1),
    (I16, 2),
    (I32, 4),
    (I64, 8),
];
const STR_HEADERS: Headers = &[(STR8, 1), (STR16, 2), (STR32, 4)];
const ARRAY_HEADERS: Headers = &[(ARRAY16, 2), (ARRAY32, 4)];
const MAP_HEADERS: Headers = &[(MAP16, 2), (MAP32, 4)];

/// The error for a value whose header a reader could not read at `at`: no
/// byte at all (`Eof` there), a marker it does not accept (wrong type), a
/// marker in `headers` whose bytes run past the input (`Eof` at the end), or
/// else a uint 64 above `i64::MAX` (`OutOfRange` for `name`).
#[cold]
#[inline(never)]
fn header_error(
    input: &[u8],
    at: usize,
    expected: &'static str,
    headers: Headers,
    name: Option<&'static str>,
) -> DecodeError {
    let Some(&b) = input.get(at) else {
        return DecodeError::eof(at, expected);
    };
    match headers.iter().find(|(m, _)| *m == b) {
        None => wrong_type(at, expected, Marker::from_u8(b)),
        Some(&(_, n)) if input.len() < at + 1 + n => DecodeError::eof(input.len(), expected),
        Some(_) => {
            let u = be::<8>(input, at).map_or(0, u64::from_be_bytes);
            DecodeError::out_of_range(at, name.unwrap_or(expected), u)
        }
    }
}

/// Any integer format, range-checked into `i32`.
#[inline(always)]
pub fn read_i32(cur: &mut Cursor<'_>, f: &Field) -> Result<i32, DecodeError> {
    let at = cur.pos();
    let v = read_int(cur, f)?;
    i32::try_from(v).map_err(|_| DecodeError::out_of_range(at, f.name, v))
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
        return Err(DecodeError::out_of_range(at, f.name, v));
    }
    Ok(v)
}

#[inline(always)]
pub(crate) fn read_bool(cur: &mut Cursor<'_>, f: &Field) -> Result<bool, DecodeError> {
    match marker(cur, f.expected)? {
        (_, Marker::True) => Ok(true),
        (_, Marker::False) => Ok(false),
        (at, other) => Err(wrong_type(at, f.expected, other)),
    }
}

/// The payload of a str of any width, not yet checked for UTF-8, and its offset.
#[inline(always)]
fn read_str_bytes<'a>(cur: &mut Cursor<'a>, expected: &'static str) -> Result<(usize, &'a [u8]), DecodeError> {
    let at = cur.pos();
    let input = cur.input();
    let header = match input.get(at) {
        Some(&b) if b & 0xe0 == FIXSTR => Some((1, usize::from(b & 0x1f))),
        Some(&STR8) => be::<1>(input, at).map(|b| (2, usize::from(b[0]))),
        Some(&STR16) => be(input, at).map(|b| (3, usize::from(u16::from_be_bytes(b)))),
        Some(&STR32) => be(input, at).map(|b| (5, u32::from_be_bytes(b) as usize)),
        _ => None,
    };
    let Some((h, len)) = header else {
        return Err(header_error(input, at, expected, STR_HEADERS, None));
    };
    let start = at + h;
    match input.get(start..start.saturating_add(len)) {
        Some(s) => {
            cur.seek(start + len);
            Ok((start, s))
        }
        None => Err(DecodeError::length_exceeds(
            start,
            "string length",
            len as u64,
            input.len() - start,
        )),
    }
}

/// A str of any width as `&str`; invalid UTF-8 is reported at the first bad byte.
#[inline(always)]
pub fn read_str<'a>(cur: &mut Cursor<'a>, f: &Field) -> Result<&'a str, DecodeError> {
    let (start, bytes) = read_str_bytes(cur, f.expected)?;
    str_at(start, bytes)
}

/// An array header of any width; the count is checked against the input
/// (each element takes at least one byte).
#[inline(always)]
pub(crate) fn read_array_len(cur: &mut Cursor<'_>, f: &Field) -> Result<usize, DecodeError> {
    read_container(cur, FIXARRAY, ARRAY_HEADERS, 1, "array length", f.expected).map(|(_, n)| n)
}

/// A map header of any width, its offset, and the pair count checked against
/// the input (each pair takes at least two bytes).
#[inline(always)]
pub(crate) fn read_map_len(cur: &mut Cursor<'_>, expected: &'static str) -> Result<(usize, usize), DecodeError> {
    read_container(cur, FIXMAP, MAP_HEADERS, 2, "map length", expected)
}

/// An array or map header: the fix form (`fix`, the count in the low
/// nibble) or the 16- and 32-bit forms of `wide`; its offset and the count,
/// checked against the input at `per_item` bytes each.
#[inline(always)]
fn read_container(
    cur: &mut Cursor<'_>,
    fix: u8,
    wide: Headers,
    per_item: u64,
    what: &'static str,
    expected: &'static str,
) -> Result<(usize, usize), DecodeError> {
    let at = cur.pos();
    let input = cur.input();
    let header = match input.get(at) {
        Some(&b) if b & 0xf0 == fix => Some((1, u32::from(b & 0x0f))),
        Some(&b) if b == wide[0].0 => be(input, at).map(|b| (3, u32::from(u16::from_be_bytes(b)))),
        Some(&b) if b == wide[1].0 => be(input, at).map(|b| (5, u32::from_be_bytes(b))),
        _ => None,
    };
    let Some((h, n)) = header else {
        return Err(header_error(input, at, expected, wide, None));
    };
    cur.seek(at + h);
    Ok((at, cur.check_count(u64::from(n), per_item, what)?))
}

/// Reads a key and finds it in `fields`, trying `fields[hint]` first (the
/// position our encoder puts it at). Unknown keys must still be valid UTF-8.
///
/// The hinted key is compared as raw wire bytes (its fixstr marker, then the
/// key): the same answer the general path gives for those bytes, without
/// decoding a marker or slicing through the cursor.
#[inline(always)]
pub(crate) fn read_key(
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
    str_at(start, key)?;
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
            return str_at(start, bytes).map(drop);
        }
        Marker::Bin8 | Marker::Bin16 | Marker::Bin32 => (length(cur, m, E)?, Body::Bin),
        // ext N: length, then a type byte, then that many bytes of data.
        Marker::Ext8 | Marker::Ext16 | Marker::Ext32 => (length(cur, m, E)?, Body::Ext),
        Marker::FixArray(_) | Marker::Array16 | Marker::Array32 => (length(cur, m, E)?, Body::Array),
        Marker::FixMap(_) | Marker::Map16 | Marker::Map32 => (length(cur, m, E)?, Body::Map),
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

/// The catalog map, the one envelope reader of the owned decode and the view:
/// `"products"` once (a repeat is an error), unknown root keys skipped;
/// `products` reads the value of `"products"`. A map without `"products"`
/// gives `missing`, or without one (not tolerant) is an error.
#[inline]
pub(crate) fn read_envelope<'a, T>(
    cur: &mut Cursor<'a>,
    missing: Option<T>,
    mut products: impl FnMut(&mut Cursor<'a>) -> Result<T, DecodeError>,
) -> Result<T, DecodeError> {
    let (map_at, pairs) = read_map_len(cur, "the catalog map")?;
    let (mut found, mut seen) = (None, Seen::default());
    let fields = std::slice::from_ref(&PRODUCTS);
    for _ in 0..pairs {
        match read_key(cur, fields, 0, "a string key in the catalog map")? {
            (key_at, Some(_)) => {
                seen.mark(0, key_at, || "products")?;
                found = Some(products(cur)?);
            }
            (_, None) => skip_value(cur, 1)?,
        }
    }
    found
        .or(missing)
        .ok_or_else(|| DecodeError::new(map_at, ErrorKind::MissingField { field: "products" }))
}

/// The pairs of a record map after its header: `$pairs` pairs, whose keys
/// are looked up in `$fields`; `$read` reads the value of field `$i`.
/// Unknown keys are skipped at depth `$depth`; without `$tolerant`, a field
/// never read is an error at `$map_at`.
///
/// Keys in field order (docs/SPEC.md, "Field order"; what our encoder and
/// rmp-serde write) are matched as raw bytes in straight-line code, one
/// block per index of `[$($k)*]`; at the first key out of place the general
/// any-order loop takes over from that pair, with the fields read so far
/// marked as seen, so the result and every error are the same either way.
macro_rules! read_pairs {
    ($cur:ident, $fields:ident, $what:literal, $depth:expr, $tolerant:expr, $map_at:ident, $pairs:ident,
     [$($k:literal)*], |$i:ident| $read:expr) => {{
        let mut k = 0;
        'canonical: {
            $(
                if k == $pairs || !at_key($cur, $fields[$k].key) {
                    break 'canonical;
                }
                let $i = $k;
                $read;
                k += 1;
            )*
        }
        let mut seen = Seen::first(k);
        for k in k..$pairs {
            let (key_at, i) = read_key($cur, &$fields, k, $what)?;
            let Some($i) = i else {
                skip_value($cur, $depth)?;
                continue;
            };
            seen.mark($i, key_at, || $fields[$i].name)?;
            $read;
        }
        let required = if $tolerant { 0 } else { record::all($fields.len()) };
        seen.check(required, $map_at, |i| $fields[i].name)
    }};
}

/// Reads one product map into `p`: 17 known keys in any order, others
/// skipped ([`read_pairs!`]); with `tolerant`, a missing key leaves its
/// field as `p` had it (the owned decode starts from zero values), else it
/// is an error.
#[inline(always)]
pub(crate) fn read_product<'a, P: ProductOut<'a>>(
    cur: &mut Cursor<'a>,
    p: &mut P,
    index: usize,
    tolerant: bool,
) -> Result<(), DecodeError> {
    const DEPTH: usize = 3; // catalog map, products array, product map
    let (map_at, pairs) = read_map_len(cur, "a product map")?;
    read_pairs!(cur, PRODUCT, "a string key in a product map", DEPTH, tolerant, map_at, pairs,
        [0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16], |i| read_product_field(cur, p, i, index, tolerant)?)
}

/// Reads the value of `PRODUCT[i]` into `p`.
#[inline(always)]
fn read_product_field<'a, P: ProductOut<'a>>(
    cur: &mut Cursor<'a>,
    p: &mut P,
    i: usize,
    index: usize,
    tolerant: bool,
) -> Result<(), DecodeError> {
    let f = &PRODUCT[i];
    p.set(match i {
        0 => Set::Id(read_int(cur, f)?),
        1 => Set::Sku(read_str(cur, f)?),
        2 => Set::Name(read_str(cur, f)?),
        3 => Set::Description(read_str(cur, f)?),
        4 => Set::PriceCents(read_int(cur, f)?),
        5 => Set::Currency(read_str(cur, f)?),
        6 => Set::Rating(read_f64(cur, f)?),
        7 => Set::ReviewCount(read_i32(cur, f)?),
        8 => Set::InStock(read_bool(cur, f)?),
        9 => Set::Stock(read_i32(cur, f)?),
        10 => Set::Status(read_status(cur, f)?),
        11 => {
            let n = list_len(cur, f, index, "tags", MAX_TAGS)?;
            let tags = p.tags();
            tags.clear();
            tags.reserve(n);
            for _ in 0..n {
                tags.push(read_str(cur, &TAG)?.into());
            }
            return Ok(());
        }
        12 => Set::Dimensions(read_dimensions(cur, tolerant)?),
        13 => {
            let n = list_len(cur, f, index, "variants", MAX_VARIANTS)?;
            let variants = p.variants();
            variants.clear();
            variants.reserve(n);
            for _ in 0..n {
                variants.push(read_variant(cur, tolerant)?);
            }
            return Ok(());
        }
        14 if cur.peek() == Some(Marker::Nil.to_u8()) => {
            cur.u8(f.expected)?;
            Set::DiscountPercent(None)
        }
        14 => Set::DiscountPercent(Some(read_i32(cur, f)?)),
        15 => Set::CreatedAtMs(read_int(cur, f)?),
        _ => Set::ImageUrl(read_str(cur, f)?),
    });
    Ok(())
}

/// `status` as one of its strings (`"active"`, `"draft"`, `"discontinued"`).
fn read_status(cur: &mut Cursor<'_>, f: &Field) -> Result<Status, DecodeError> {
    let at = cur.pos();
    let s = read_str(cur, f)?;
    Status::from_str_exact(s).ok_or_else(|| DecodeError::unknown_enum(at, "status", format!("{s:?}")))
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

fn read_dimensions(cur: &mut Cursor<'_>, tolerant: bool) -> Result<Dimensions, DecodeError> {
    const DEPTH: usize = 4;
    let (map_at, pairs) = read_map_len(cur, PRODUCT[12].expected)?;
    let mut d = Dimensions::default();
    read_pairs!(cur, DIMENSIONS, "a string key in a dimensions map", DEPTH, tolerant, map_at, pairs,
        [0 1 2 3], |i| set_dimension(&mut d, i, read_i32(cur, &DIMENSIONS[i])?))?;
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

fn read_variant<'a, V: VariantOut<'a>>(cur: &mut Cursor<'a>, tolerant: bool) -> Result<V, DecodeError> {
    const DEPTH: usize = 5; // … product map, variants array, variant map
    let (map_at, pairs) = read_map_len(cur, "a variant map")?;
    let mut v = V::default();
    read_pairs!(cur, VARIANT, "a string key in a variant map", DEPTH, tolerant, map_at, pairs,
        [0 1 2 3 4], |i| read_variant_field(cur, &mut v, i)?)?;
    Ok(v)
}

/// Reads the value of `VARIANT[i]` into `v`.
#[inline(always)]
fn read_variant_field<'a, V: VariantOut<'a>>(cur: &mut Cursor<'a>, v: &mut V, i: usize) -> Result<(), DecodeError> {
    let f = &VARIANT[i];
    v.set(match i {
        0 => SetVariant::Sku(read_str(cur, f)?),
        1 => SetVariant::Color(read_str(cur, f)?),
        2 => SetVariant::Size(read_str(cur, f)?),
        3 => SetVariant::PriceCents(read_int(cur, f)?),
        _ => SetVariant::Stock(read_i32(cur, f)?),
    });
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
        let words = b"|a|ab|abc|abcd|abce|abcdefg|abcdefh|abcdefgh|xbcdefgh|discount_percent|discount_percenx";
        for a in words.split(|&c| c == b'|') {
            for b in words.split(|&c| c == b'|') {
                assert_eq!(key_eq(a, b), a == b, "{a:?} {b:?}");
            }
        }
        for f in PRODUCT.iter().chain(&DIMENSIONS).chain(&VARIANT) {
            assert!(f.key.len() <= 16, "{} is longer than key_eq's fast path", f.key);
        }
    }

    #[test]
    fn header_errors_are_placed_like_a_byte_by_byte_read() {
        type Read = fn(&mut Cursor<'static>) -> Result<(), DecodeError>;
        let int: Read = |c| read_int(c, &PRODUCT[0]).map(drop);
        #[rustfmt::skip]
        let cases: [(Read, &[u8], &str); 8] = [
            (int, &[], "unexpected end of input, expected an integer for `id` at byte 0"),
            (int, &[0xcd, 0x01], "unexpected end of input, expected an integer for `id` at byte 2"),
            (int, &[0xd3], "unexpected end of input, expected an integer for `id` at byte 1"),
            (int, &[0xc0], "expected an integer for `id`, found nil (0xc0) at byte 0"),
            (int, &[0xcf, 0x80, 0, 0, 0, 0, 0, 0, 0], "id out of range: 9223372036854775808 at byte 0"),
            (|c| read_str_bytes(c, "s").map(drop), &[0xd9, 0x05, b'a'],
             "string length of 5 exceeds the 1 bytes remaining at byte 2"),
            (|c| read_array_len(c, &PRODUCT[11]).map(drop), &[0xdc, 0x00],
             "unexpected end of input, expected an array for `tags` at byte 2"),
            (|c| read_map_len(c, "m").map(drop), &[0xdf, 0, 0, 0, 9, 0],
             "map length of 9 exceeds the 1 bytes remaining at byte 5"),
        ];
        for (read, bytes, want) in cases {
            assert_eq!(
                read(&mut Cursor::new(bytes)).unwrap_err().to_string(),
                want,
                "{bytes:02x?}"
            );
        }
    }

    #[test]
    fn every_width_of_one_reads_as_one() {
        let f = &PRODUCT[0];
        #[rustfmt::skip]
        let widths: [&[u8]; 9] = [
            &[0x01], &[0xcc, 0x01], &[0xcd, 0x00, 0x01], &[0xce, 0, 0, 0, 1], &[0xcf, 0, 0, 0, 0, 0, 0, 0, 1],
            &[0xd0, 0x01], &[0xd1, 0x00, 0x01], &[0xd2, 0, 0, 0, 1], &[0xd3, 0, 0, 0, 0, 0, 0, 0, 1],
        ];
        for bytes in widths {
            let mut cur = Cursor::new(bytes);
            assert_eq!(read_int(&mut cur, f).unwrap(), 1, "{bytes:02x?}");
            assert!(cur.finish().is_ok());
        }
    }
}
