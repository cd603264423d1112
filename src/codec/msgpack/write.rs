//! The MessagePack writer: the smallest format of each family (spec,
//! "Serialization": "serializers SHOULD use the format which represents the
//! data in the smallest number of bytes"), and the catalog in field order (docs/SPEC.md, "Field order").
//!
//! Integers follow rmp's `write_sint` (the parent module's rule: 200 is `cc
//! c8`, not `d1 00 c8`). A non-negative value's form is looked up by its bit
//! length ([`UINT_FORMS`]), not found by a chain of comparisons the
//! processor would mispredict as widths vary from one value to the next.
//!
//! Lengths: `usize` → wire via `u32::try_from`, never `as`; a string or list
//! longer than `u32::MAX` is [`EncodeError::TooLong`]. Keys are fixstr byte
//! constants built at compile time, so the encoder allocates nothing per field;
//! where a key is always followed by the same bytes (`rating` and its float 64
//! marker, `dimensions`, its fixmap header and the first inner key, the
//! status key and each of the three status strings) the run is one constant.
//!
//! Every value is first spelled into one integer ([`Scalar`] for integers,
//! floats and booleans, [`Header`] for lengths) whose little-endian bytes
//! are the wire bytes, with the count that matters beside it. The catalog
//! encoder writes straight into `out`'s spare capacity ([`Spare`]), one
//! room check per section of a product (its fields up to the tags, each
//! tag, each variant, its last three fields), each for the most bytes the
//! section can take at its widest plus a fixed slack. Within a section
//! each key and value is stored whole (8 or 16 bytes for a scalar, 8 for a
//! header, the key constant, the string's bytes by fixed-width overlapping
//! copies) and the position advances by the count, so the next field
//! overwrites the rest. Nothing is zero-filled first; a product that does
//! not fit grows `out` and is written again.

use super::marker::{
    ARRAY16, ARRAY32, F64, FALSE, FIXARRAY, FIXMAP, FIXSTR, I8, I16, I32, I64, MAP16, MAP32, NIL, STR8, STR16, STR32,
    TRUE, U8, U16, U32, U64,
};
use crate::codec::EncodeError;
use crate::codec::spare::{self, Stop};
use crate::model::{Product, Variant};

/// `s` as a fixstr at compile time: `0xa0 | len` then the bytes.
/// `N` must be `s.len() + 1` and `s` at most 31 bytes (checked at compile time).
const fn fixstr<const N: usize>(s: &str) -> [u8; N] {
    let b = s.as_bytes();
    assert!(b.len() < 32 && b.len() + 1 == N, "fixstr key must be 0..=31 bytes");
    let mut out = [0u8; N];
    out[0] = FIXSTR | b.len() as u8;
    let mut i = 0;
    while i < b.len() {
        out[i + 1] = b[i];
        i += 1;
    }
    out
}

/// `parts` one after another in one array; `N` must be their total length
/// (checked at compile time).
const fn join<const N: usize>(parts: &[&[u8]]) -> [u8; N] {
    let mut out = [0u8; N];
    let mut at = 0;
    let mut i = 0;
    while i < parts.len() {
        let p = parts[i];
        let mut j = 0;
        while j < p.len() {
            out[at] = p[j];
            at += 1;
            j += 1;
        }
        i += 1;
    }
    assert!(at == N, "the parts must fill the array exactly");
    out
}

/// A map key as a `&'static [u8; N]` fixstr constant.
macro_rules! key {
    ($s:literal) => {{
        const K: [u8; $s.len() + 1] = fixstr($s);
        &K
    }};
}

/// Byte runs (`&[u8]` constants) joined into one `&'static [u8; N]` constant.
macro_rules! joined {
    ($($part:expr),+ $(,)?) => {{
        const LEN: usize = 0 $(+ $part.len())+;
        const J: [u8; LEN] = join(&[$($part),+]);
        &J
    }};
}

/// A scalar's encoding, packed: byte `i` of the little-endian bytes of `.0`
/// is the `i`-th byte on the wire, and `.1` says how many count (1..=9).
/// A writer with room stores all 16 bytes at once and advances by the count.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scalar(pub u128, pub usize);

/// A length header's encoding (marker + up to a 32-bit length), packed as
/// [`Scalar`] into 8 bytes with a count of 1, 2, 3 or 5.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Header(pub u64, pub usize);

/// A header as a scalar of at most 8 counted bytes, for [`Spare::key_small`].
impl From<Header> for Scalar {
    #[inline(always)]
    fn from(Header(h, n): Header) -> Scalar {
        Scalar(u128::from(h), n)
    }
}

/// `marker`, then the low `width` bytes of `bits` big-endian.
#[inline(always)]
fn wide(marker: u8, bits: u64, width: usize) -> Scalar {
    // Shifting the low `width` bytes to the top puts them first in
    // big-endian order; reading those bytes as little-endian makes them
    // the first bytes stored.
    let be = u64::from_le_bytes((bits << (64 - 8 * width)).to_be_bytes());
    Scalar(u128::from(marker) | u128::from(be) << 8, 1 + width)
}

/// An unsigned integer in the smallest of positive fixint / uint 8/16/32/64.
/// The form comes from [`UINT_FORMS`] without a branch on the value; only
/// the 9-byte uint 64 (beyond 32 bits) takes a path of its own.
#[inline(always)]
pub fn uint_bytes(v: u64) -> Scalar {
    let form = match i64::try_from(v) {
        Ok(_) => &UINT_FORMS[1 + bit_length(v)],
        Err(_) => &UINT_FORMS[1 + 64],
    };
    if form.count == 9 {
        // All 8 bytes big-endian after the marker.
        Scalar(u128::from(U64) | u128::from(v.swap_bytes()) << 8, 9)
    } else {
        short_uint(v, form)
    }
}

/// A signed integer: non-negative values as [`uint_bytes`], negative ones in
/// the smallest of negative fixint / int 8/16/32/64.
#[inline(always)]
pub fn int_bytes(v: i64) -> Scalar {
    match u64::try_from(v) {
        Ok(u) => uint_bytes(u),
        Err(_) => negative_int_bytes(v),
    }
}

/// An `i32` as [`int_bytes`] spells it, without the uint 64 path (an `i32`
/// takes at most 5 bytes).
#[inline(always)]
fn int32_bytes(v: i32) -> Scalar {
    optional_int32_bytes(Some(v))
}

/// An optional `i32`: nil when absent, else as [`int32_bytes`]. Absent
/// spells as 0 would, but from the nil entry of [`UINT_FORMS`]: the two
/// differ in the index, not in the path taken.
#[inline(always)]
fn optional_int32_bytes(v: Option<i32>) -> Scalar {
    let d = v.unwrap_or(0);
    match u32::try_from(d) {
        Ok(u) => {
            let u = u64::from(u);
            // Entry 0 is nil; a present value's entry is 1 + its bit length.
            let index = usize::from(v.is_some()) * (1 + bit_length(u));
            short_uint(u, &UINT_FORMS[index])
        }
        Err(_) => negative_int_bytes(i64::from(d)),
    }
}

/// A negative integer in the smallest of negative fixint / int 8/16/32/64.
/// Kept out of line: the model refuses a negative value in every integer
/// field but `created_at_ms`, where it is a date before 1970.
#[cold]
#[inline(never)]
fn negative_int_bytes(v: i64) -> Scalar {
    debug_assert!(v < 0);
    // Two's complement: the low bytes of the 64-bit pattern are the value at
    // any narrower width that holds it.
    let bits = v as u64;
    if v >= -32 {
        // negative fixint: 0xe0..=0xff, the value's low byte
        Scalar(u128::from(bits & 0xff), 1)
    } else if v >= i64::from(i8::MIN) {
        wide(I8, bits, 1)
    } else if v >= i64::from(i16::MIN) {
        wide(I16, bits, 2)
    } else if v >= i64::from(i32::MIN) {
        wide(I32, bits, 4)
    } else {
        wide(I64, bits, 8)
    }
}

/// How one class of unsigned integers is spelled: see [`UINT_FORMS`].
#[derive(Clone, Copy)]
#[repr(align(4))]
struct UintForm {
    /// The first byte: the marker, or 0 for a positive fixint (whose one
    /// byte is the value).
    marker: u8,
    /// `56 - 8 * width` for `width` bytes after the marker: shifting the
    /// byte-swapped value right by it leaves those bytes big-endian from
    /// the second byte on, and in the first the byte just above them (0).
    shift: u8,
    /// Bytes the encoding counts: 1 (positive fixint), 2, 3, 5 or 9.
    count: u8,
}

/// The form of each unsigned integer at 1 + its bit length (the position
/// of its highest set bit plus one; 0 for 0): up to 7 bits is a positive
/// fixint (below `0x80`), 8 a uint 8, 9 to 16 a uint 16, 17 to 32 a uint
/// 32, more a uint 64 (9 bytes; its shift is unused). Entry 0 spells 0 as
/// nil, for an absent value.
const UINT_FORMS: [UintForm; 66] = {
    /// A marker and `width` bytes.
    const fn wide(marker: u8, width: u8) -> UintForm {
        UintForm {
            marker,
            shift: 56 - 8 * width,
            count: 1 + width,
        }
    }
    let mut t = [wide(NIL, 0); 66];
    let mut bits = 0;
    while bits <= 64 {
        t[1 + bits] = match bits {
            0..=7 => wide(0, 0),
            8 => wide(U8, 1),
            9..=16 => wide(U16, 2),
            17..=32 => wide(U32, 4),
            _ => UintForm {
                marker: U64,
                shift: 0,
                count: 9,
            },
        };
        bits += 1;
    }
    t
};

/// The bit length of `v` (below 2^63): `2v + 1` does not overflow, and its
/// highest set bit is at `v`'s bit length, so one scan, and 0 needs no case
/// of its own.
#[inline(always)]
fn bit_length(v: u64) -> usize {
    debug_assert!(v >> 63 == 0);
    (v << 1 | 1).ilog2() as usize
}

/// `v` in `form` of at most 5 bytes: byte-swapped so that its low bytes
/// come first, shifted so that they start at the second byte, the marker
/// in the first.
#[inline(always)]
fn short_uint(v: u64, form: &UintForm) -> Scalar {
    debug_assert!(match form.count {
        1 => v < 0x80,
        2..=5 => v >> (8 * (form.count - 1)) == 0,
        _ => false,
    });
    let word = (v.swap_bytes() >> form.shift) | u64::from(form.marker);
    Scalar(u128::from(word), usize::from(form.count))
}

/// A header with a 16- or 32-bit length (`m16` / `m32`), for lengths past
/// the fix form; past `u32::MAX`, the wire maximum, `TooLong`.
#[inline]
fn long_header(len: usize, m16: u8, m32: u8, what: &'static str) -> Result<Header, EncodeError> {
    let n = u32::try_from(len).map_err(|_| EncodeError::TooLong { what, len })?;
    Ok(match u16::try_from(n) {
        Ok(n) => Header(u64::from(m16) | u64::from(n.swap_bytes()) << 8, 3),
        Err(_) => Header(u64::from(m32) | u64::from(n.swap_bytes()) << 8, 5),
    })
}

/// A string header: fixstr (≤ 31 bytes), str 8 (≤ 255), str 16 (≤ 65,535), str 32.
#[inline(always)]
pub fn str_header(len: usize) -> Result<Header, EncodeError> {
    if len < 32 {
        Ok(Header(u64::from(FIXSTR) | len as u64, 1))
    } else if let Ok(n) = u8::try_from(len) {
        Ok(Header(u64::from(STR8) | u64::from(n) << 8, 2))
    } else {
        long_header(len, STR16, STR32, "string")
    }
}

/// An array header: fixarray (≤ 15), array 16 (≤ 65,535), array 32.
#[inline(always)]
pub fn array_header(len: usize, what: &'static str) -> Result<Header, EncodeError> {
    if len < 16 {
        Ok(Header(u64::from(FIXARRAY) | len as u64, 1))
    } else {
        long_header(len, ARRAY16, ARRAY32, what)
    }
}

/// A map header: fixmap (≤ 15 pairs), map 16 (≤ 65,535), map 32.
#[inline(always)]
pub fn map_header(len: usize, what: &'static str) -> Result<Header, EncodeError> {
    if len < 16 {
        Ok(Header(u64::from(FIXMAP) | len as u64, 1))
    } else {
        long_header(len, MAP16, MAP32, what)
    }
}

/// Appends a signed integer: non-negative values in the smallest of
/// positive fixint / uint 8/16/32/64, negative ones in the smallest of
/// negative fixint / int 8/16/32/64.
///
/// ```
/// # use wirebench::codec::msgpack::write::write_int;
/// let mut out = Vec::new();
/// write_int(&mut out, 300);
/// write_int(&mut out, -33);
/// assert_eq!(out, [0xcd, 0x01, 0x2c, 0xd0, 0xdf]);
/// ```
pub fn write_int(out: &mut Vec<u8>, v: i64) {
    let Scalar(b, n) = int_bytes(v);
    out.extend_from_slice(&b.to_le_bytes()[..n]);
}

/// Appends `v` as float 64 (always: the schema says f64, and narrowing to
/// float 32 when exact is allowed by the spec but not what rmp-serde does).
pub fn write_f64(out: &mut Vec<u8>, v: f64) {
    out.push(F64);
    out.extend_from_slice(&v.to_be_bytes());
}

pub fn write_bool(out: &mut Vec<u8>, v: bool) {
    out.push(if v { TRUE } else { FALSE });
}

pub fn write_nil(out: &mut Vec<u8>) {
    out.push(NIL);
}

/// Appends a string: fixstr (≤ 31 bytes), str 8 (≤ 255), str 16 (≤ 65,535), str 32.
///
/// ```
/// # use wirebench::codec::msgpack::write::write_str;
/// let mut out = Vec::new();
/// write_str(&mut out, "id").unwrap();
/// assert_eq!(out, [0xa2, b'i', b'd']);
/// ```
pub fn write_str(out: &mut Vec<u8>, s: &str) -> Result<(), EncodeError> {
    let Header(h, n) = str_header(s.len())?;
    out.extend_from_slice(&h.to_le_bytes()[..n]);
    out.extend_from_slice(s.as_bytes());
    Ok(())
}

/// Appends an array header: fixarray (≤ 15), array 16 (≤ 65,535), array 32.
pub fn write_array_len(out: &mut Vec<u8>, len: usize, what: &'static str) -> Result<(), EncodeError> {
    let Header(h, n) = array_header(len, what)?;
    out.extend_from_slice(&h.to_le_bytes()[..n]);
    Ok(())
}

/// Appends a map header: fixmap (≤ 15 pairs), map 16 (≤ 65,535), map 32.
pub fn write_map_len(out: &mut Vec<u8>, len: usize, what: &'static str) -> Result<(), EncodeError> {
    let Header(h, n) = map_header(len, what)?;
    out.extend_from_slice(&h.to_le_bytes()[..n]);
    Ok(())
}

/// Bytes a store may reach past the bytes it counts: a scalar is stored as
/// 16 bytes and counts at least 1, a header as 8 and counts at least 1, a
/// status field as 20 and counts at least 13.
const SLACK: usize = 16;

/// The MessagePack writer's [`spare::Spare`]: a product is written in
/// sections, each checked for its largest possible spelling plus [`SLACK`].
type Spare<'a> = spare::Spare<'a, SLACK>;

/// MessagePack's stores: a key and its value, each stored whole.
impl Spare<'_> {
    /// `key` then a scalar.
    ///
    /// SAFETY: the caller keeps `at + N + 16` within the last check.
    #[inline(always)]
    #[allow(unsafe_code)]
    unsafe fn key_scalar<const N: usize>(&mut self, key: &[u8; N], Scalar(b, len): Scalar) {
        // SAFETY: both stores end by `at + N + 16`, the caller's bound.
        unsafe {
            self.put(key);
            self.put_prefix(&b.to_le_bytes(), len);
        }
    }

    /// `key` then a scalar of at most 8 counted bytes (any `i32`, a
    /// boolean, nil, a length header), stored as 8 bytes.
    ///
    /// SAFETY: the caller keeps `at + N + 8` within the last check.
    #[inline(always)]
    #[allow(unsafe_code)]
    unsafe fn key_small<const N: usize>(&mut self, key: &[u8; N], Scalar(b, len): Scalar) {
        debug_assert!(len <= 8 && b >> 64 == 0);
        // SAFETY: both stores end by `at + N + 8`, the caller's bound.
        unsafe {
            self.put(key);
            self.put_prefix(&(b as u64).to_le_bytes(), len);
        }
    }

    /// `key` (possibly empty) then a string (or its header's error).
    ///
    /// SAFETY: the caller keeps `at + N + 5 + s.len()` within the last check.
    #[inline(always)]
    #[allow(unsafe_code)]
    unsafe fn key_str<const N: usize>(&mut self, key: &[u8; N], s: &str) -> Result<(), Stop> {
        let s = s.as_bytes();
        let n = s.len();
        if n < 16 {
            // SAFETY: the key, a fixstr's one header byte and the string's
            // bytes: `N + 1 + n` counted bytes, all stored, within the
            // caller's bound.
            unsafe {
                self.put(key);
                self.put(&[FIXSTR | n as u8]);
                self.put_bytes(s);
            }
        } else {
            let Header(h, hlen) = str_header(n)?;
            // SAFETY: the key, then the header stored as 8 bytes, reaching
            // at most 7 past its counted ones (`n >= 16` bytes follow),
            // then the string's bytes: within `at + N + 5 + n`, the
            // caller's bound.
            unsafe {
                self.put(key);
                self.put_prefix(&h.to_le_bytes(), hlen);
                self.put_bytes(s);
            }
        }
        Ok(())
    }
}

/// Number of fields of a product: its map has 17 pairs, so it is a map 16
/// (`de 00 11`) — one more than a fixmap can hold.
pub const PRODUCT_FIELDS: usize = 17;
/// Pairs in a dimensions map (`84`).
pub const DIMENSIONS_FIELDS: usize = 4;
/// Pairs in a variant map (`85`).
pub const VARIANT_FIELDS: usize = 5;

/// Typical encoded size of one product, to reserve once for the whole
/// catalog (only a hint: a larger catalog grows the buffer as it goes).
const PRODUCT_SIZE_HINT: usize = 512;

/// `{"products":`, before the array header.
const CATALOG_HEAD: &[u8; 10] = joined!(&[FIXMAP | 1], key!("products"));
/// A product's map 16 header (`de 00 11`) and its first key.
const PRODUCT_HEAD: &[u8; 6] = joined!(&[MAP16, 0, PRODUCT_FIELDS as u8], key!("id"));
/// `rating` and the float 64 marker of its value.
const RATING_F64: &[u8; 8] = joined!(key!("rating"), &[F64]);
/// `dimensions`, the map's fixmap header and its first key.
const DIMENSIONS_HEAD: &[u8; 21] = joined!(
    key!("dimensions"),
    &[FIXMAP | DIMENSIONS_FIELDS as u8],
    key!("width_mm")
);
/// A variant's fixmap header and its first key.
const VARIANT_HEAD: &[u8; 5] = joined!(&[FIXMAP | VARIANT_FIELDS as u8], key!("sku"));

/// The `status` key and its value, for each status at its
/// [`Status::index`](crate::model::Status::index), padded to one width,
/// with the length that counts.
const STATUS_FIELDS: [([u8; 20], usize); 3] = {
    const fn field<const N: usize>(run: &[u8; N]) -> ([u8; 20], usize) {
        let mut out = [0u8; 20];
        let mut i = 0;
        while i < N {
            out[i] = run[i];
            i += 1;
        }
        (out, N)
    }
    [
        field(joined!(key!("status"), key!("active"))),
        field(joined!(key!("status"), key!("draft"))),
        field(joined!(key!("status"), key!("discontinued"))),
    ]
};

/// Appends `{"products": [product, …]}`.
pub fn write_catalog(products: &[Product], out: &mut Vec<u8>) -> Result<(), EncodeError> {
    out.reserve(16 + products.len().saturating_mul(PRODUCT_SIZE_HINT));
    out.extend_from_slice(CATALOG_HEAD);
    write_array_len(out, products.len(), "products")?;
    spare::write_each(products, out, PRODUCT_SIZE_HINT, |_, p, w| write_product(p, w))
}

/// The most bytes a key and a scalar count.
const fn scalar_max(key: &[u8]) -> usize {
    key.len() + 9
}
/// The most bytes a key and a string header count (the string's own bytes
/// come on top).
const fn header_max(key: &[u8]) -> usize {
    key.len() + 5
}

/// Most bytes counted by a product's fields from `id` to the `tags` header,
/// but for the bytes of its four strings.
const HEAD_MAX: usize = scalar_max(PRODUCT_HEAD)
    + header_max(key!("sku"))
    + header_max(key!("name"))
    + header_max(key!("description"))
    + scalar_max(key!("price_cents"))
    + header_max(key!("currency"))
    + RATING_F64.len()
    + 8
    + scalar_max(key!("review_count"))
    + key!("in_stock").len()
    + 1
    + scalar_max(key!("stock"))
    + STATUS_FIELDS[0].0.len()
    + header_max(key!("tags"));
/// Most bytes counted by a tag but for its own bytes.
const TAG_MAX: usize = header_max(b"");
/// Most bytes counted by the dimensions and the `variants` header.
const DIMENSIONS_MAX: usize = scalar_max(DIMENSIONS_HEAD)
    + scalar_max(key!("height_mm"))
    + scalar_max(key!("depth_mm"))
    + scalar_max(key!("weight_g"))
    + header_max(key!("variants"));
/// Most bytes counted by a variant but for the bytes of its three strings.
const VARIANT_MAX: usize = header_max(VARIANT_HEAD)
    + header_max(key!("color"))
    + header_max(key!("size"))
    + scalar_max(key!("price_cents"))
    + scalar_max(key!("stock"));
/// Most bytes counted by the last three fields but for the bytes of the image URL.
const TAIL_MAX: usize =
    scalar_max(key!("discount_percent")) + scalar_max(key!("created_at_ms")) + header_max(key!("image_url"));

/// Appends one product: a map of the 17 fields in field order (docs/SPEC.md, "Field order").
/// Room is checked once per section: the fields up to the `tags` header,
/// each tag, each variant, and the last three fields; the dimensions and
/// the `variants` header are taken by the check before them.
#[inline(always)]
#[allow(unsafe_code)]
fn write_product(p: &Product, w: &mut Spare<'_>) -> Result<(), Stop> {
    let tags = array_header(p.tags.len(), "tags")?;
    let (status, status_len) = &STATUS_FIELDS[p.status.index() as usize];
    // This check and each tag's also cover the dimensions and the
    // `variants` header (DIMENSIONS_MAX), which follow the last of them.
    w.check(&[
        HEAD_MAX + DIMENSIONS_MAX,
        p.sku.len(),
        p.name.len(),
        p.description.len(),
        p.currency.len(),
    ])?;
    // SAFETY: each store's counted bytes are at most what HEAD_MAX allows
    // for its field plus its string, and none reaches more than SLACK past
    // them, so all are within the check above.
    unsafe {
        w.key_scalar(PRODUCT_HEAD, int_bytes(p.id));
        w.key_str(key!("sku"), &p.sku)?;
        w.key_str(key!("name"), &p.name)?;
        w.key_str(key!("description"), &p.description)?;
        w.key_scalar(key!("price_cents"), int_bytes(p.price_cents));
        w.key_str(key!("currency"), &p.currency)?;
        w.key_small(RATING_F64, f64_bytes(p.rating));
        w.key_small(key!("review_count"), int32_bytes(p.review_count));
        w.key_small(key!("in_stock"), bool_bytes(p.in_stock));
        w.key_small(key!("stock"), int32_bytes(p.stock));
        w.put_prefix(status, *status_len);
        w.key_small(key!("tags"), tags.into());
    }
    for t in &p.tags {
        w.check(&[TAG_MAX + DIMENSIONS_MAX, t.len()])?;
        // SAFETY: a header and the tag's bytes, within TAG_MAX + its
        // length; the header store reaches at most 7 bytes further.
        unsafe { w.key_str(&[], t)? };
    }
    let variants = array_header(p.variants.len(), "variants")?;
    let d = &p.dimensions;
    // SAFETY: five key + scalar or header stores, counting at most
    // DIMENSIONS_MAX bytes and reaching at most 15 past them; the last
    // check (the head's or the last tag's) took DIMENSIONS_MAX beyond the
    // bytes of its own section, all written since.
    unsafe {
        w.key_small(DIMENSIONS_HEAD, int32_bytes(d.width_mm));
        w.key_small(key!("height_mm"), int32_bytes(d.height_mm));
        w.key_small(key!("depth_mm"), int32_bytes(d.depth_mm));
        w.key_small(key!("weight_g"), int32_bytes(d.weight_g));
        w.key_small(key!("variants"), variants.into());
    }
    for v in &p.variants {
        write_variant(v, w)?;
    }
    let discount = optional_int32_bytes(p.discount_percent);
    w.check(&[TAIL_MAX, p.image_url.len()])?;
    // SAFETY: two key + scalar stores and a key + string, counting at most
    // TAIL_MAX and the URL's bytes and reaching at most 15 past them.
    unsafe {
        w.key_small(key!("discount_percent"), discount);
        w.key_scalar(key!("created_at_ms"), int_bytes(p.created_at_ms));
        w.key_str(key!("image_url"), &p.image_url)?;
    }
    Ok(())
}

/// Float 64 as the 8 bytes after a marker the key constant already carries:
/// a [`Scalar`] of 8 counted bytes.
#[inline(always)]
fn f64_bytes(v: f64) -> Scalar {
    Scalar(u128::from(u64::from_le_bytes(v.to_be_bytes())), 8)
}

#[inline(always)]
fn bool_bytes(v: bool) -> Scalar {
    Scalar(u128::from(if v { TRUE } else { FALSE }), 1)
}

#[inline(always)]
#[allow(unsafe_code)]
fn write_variant(v: &Variant, w: &mut Spare<'_>) -> Result<(), Stop> {
    w.check(&[VARIANT_MAX, v.sku.len(), v.color.len(), v.size.len()])?;
    // SAFETY: three key + string and two key + scalar stores, counting at
    // most VARIANT_MAX and the strings' bytes and reaching at most 15 past.
    unsafe {
        w.key_str(VARIANT_HEAD, &v.sku)?;
        w.key_str(key!("color"), &v.color)?;
        w.key_str(key!("size"), &v.size)?;
        w.key_scalar(key!("price_cents"), int_bytes(v.price_cents));
        w.key_small(key!("stock"), int32_bytes(v.stock));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Status;

    impl Scalar {
        /// The bytes that count.
        fn bytes(self) -> Vec<u8> {
            self.0.to_le_bytes()[..self.1].to_vec()
        }
    }

    /// rmp's rule, spelled plainly: the smallest form of the value's family.
    fn plain_int(v: i64) -> Vec<u8> {
        let with = |marker: u8, be: &[u8]| [&[marker][..], be].concat();
        match v {
            0.. => plain_uint(v as u64),
            -32..=-1 => vec![v as u8],
            -128..=-33 => with(I8, &(v as i8).to_be_bytes()),
            -32_768..=-129 => with(I16, &(v as i16).to_be_bytes()),
            -2_147_483_648..=-32_769 => with(I32, &(v as i32).to_be_bytes()),
            _ => with(I64, &v.to_be_bytes()),
        }
    }

    fn plain_uint(v: u64) -> Vec<u8> {
        let with = |marker: u8, be: &[u8]| [&[marker][..], be].concat();
        match v {
            0..=127 => vec![v as u8],
            128..=0xff => with(U8, &[v as u8]),
            0x100..=0xffff => with(U16, &(v as u16).to_be_bytes()),
            0x1_0000..=0xffff_ffff => with(U32, &(v as u32).to_be_bytes()),
            _ => with(U64, &v.to_be_bytes()),
        }
    }

    /// The table-driven forms equal the plain rule on both sides of every
    /// power of two, both signs, and at random magnitudes; so does the
    /// `i32` path on every value that fits an `i32`.
    #[test]
    fn int_forms_equal_the_plain_rule() {
        let mut values: Vec<i64> = crate::fixtures::boundary_i64s();
        for bit in 0..64 {
            let p = 1i64.wrapping_shl(bit);
            for d in -2..=2 {
                values.extend([p.wrapping_add(d), p.wrapping_neg().wrapping_add(d)]);
            }
        }
        let mut rng = crate::prng::Rng::new(0x9e37_79b9_7f4a_7c15);
        for _ in 0..10_000 {
            let x = rng.next_u64();
            values.push((x as i64) >> (x % 64));
        }
        for v in values {
            assert_eq!(int_bytes(v).bytes(), plain_int(v), "{v}");
            assert_eq!(uint_bytes(v as u64).bytes(), plain_uint(v as u64), "{v} as u64");
            if let Ok(v32) = i32::try_from(v) {
                assert_eq!(int32_bytes(v32).bytes(), plain_int(v), "{v} as i32");
                assert_eq!(optional_int32_bytes(Some(v32)).bytes(), plain_int(v), "Some({v})");
            }
        }
        assert_eq!(optional_int32_bytes(None).bytes(), [NIL]);
    }

    /// The joined constants are their parts, one after another.
    #[test]
    fn joined_runs_are_their_parts() {
        let cat = |parts: &[&[u8]]| parts.concat();
        assert_eq!(CATALOG_HEAD.to_vec(), cat(&[&[0x81], b"\xa8products"]));
        assert_eq!(PRODUCT_HEAD.to_vec(), cat(&[&[0xde, 0x00, 0x11], b"\xa2id"]));
        assert_eq!(RATING_F64.to_vec(), cat(&[b"\xa6rating", &[0xcb]]));
        assert_eq!(
            DIMENSIONS_HEAD.to_vec(),
            cat(&[b"\xaadimensions", &[0x84], b"\xa8width_mm"])
        );
        assert_eq!(VARIANT_HEAD.to_vec(), cat(&[&[0x85], b"\xa3sku"]));
        for s in Status::ALL {
            let (bytes, len) = &STATUS_FIELDS[s.index() as usize];
            let mut want = b"\xa6status".to_vec();
            write_str(&mut want, s.as_str()).unwrap();
            assert_eq!(&bytes[..*len], want, "{s:?}");
        }
    }

    /// A product written into spare capacities of every size around its
    /// length and its most-room bound: too small is `Full` (never a panic,
    /// never a partial commit), the bound always fits, and whatever fits is
    /// the right bytes. In debug builds every store also asserts that it
    /// stays within the room its section checked.
    #[test]
    fn spare_writer_stops_when_full_and_is_exact_when_not() {
        // The room the product's section checks ask for at most.
        let product_max = |p| spare::product_max(p, [HEAD_MAX, TAG_MAX, DIMENSIONS_MAX, VARIANT_MAX, TAIL_MAX], SLACK);
        for (i, p) in spare::test_products().iter().enumerate() {
            // What `write_catalog` writes for the product alone, with room
            // to grow (tests/reference_msgpack.rs holds that equal to rmp-serde's).
            let mut want = Vec::new();
            write_catalog(std::slice::from_ref(p), &mut want).unwrap();
            want.drain(..CATALOG_HEAD.len() + 1);
            let max = product_max(p);
            assert!(max >= want.len() + SLACK);
            for cap in (0..max + 2).filter(|&c| c < 64 || c + 40 > want.len()) {
                let what = format!("product {i}");
                spare::check_capacity(cap, max, &want, &what, |w| write_product(p, w));
            }
        }
    }

    #[test]
    fn lengths_over_u32_are_too_long_not_truncated() {
        let mut out = Vec::new();
        let len = u32::MAX as usize + 1;
        assert_eq!(
            write_array_len(&mut out, len, "tags"),
            Err(EncodeError::TooLong { what: "tags", len })
        );
        assert_eq!(
            write_map_len(&mut out, len, "product"),
            Err(EncodeError::TooLong { what: "product", len })
        );
        assert_eq!(str_header(len), Err(EncodeError::TooLong { what: "string", len }));
        assert!(out.is_empty());
    }
}
