//! The MessagePack writer: the smallest format of each family (spec,
//! "Serialization": "serializers SHOULD use the format which represents the
//! data in the smallest number of bytes"), and the catalog in field order (docs/SPEC.md, "Field order").
//!
//! Integer width rule, identical to rmp's `write_sint` (what rmp-serde emits
//! for every `i32`/`i64`): a **non-negative** value uses the unsigned family
//! (positive fixint, uint 8/16/32/64) and a **negative** one the signed family
//! (negative fixint, int 8/16/32/64). So 200 is `cc c8` (2 bytes) rather than
//! `d1 00 c8`, and -200 is `d1 ff 38`.
//!
//! Lengths: `usize` → wire via `u32::try_from`, never `as`; a string or list
//! longer than `u32::MAX` is [`EncodeError::TooLong`]. Keys are fixstr byte
//! constants built at compile time, so the encoder allocates nothing per field.
//! Each product is written into a slice of `out` sized by an upper bound of
//! its encoding ([`Slab`]), then `out` is cut back to the bytes written.

use super::marker::{
    ARRAY16, ARRAY32, F64, FALSE, FIXARRAY, FIXMAP, FIXSTR, I8, I16, I32, I64, MAP16, MAP32, NIL, STR8, STR16, STR32,
    TRUE, U8, U16, U32, U64,
};
use crate::codec::EncodeError;
use crate::model::{Dimensions, Product, Variant};

/// `s` as a fixstr at compile time: `0xa0 | len` then the bytes.
/// `N` must be `s.len() + 1` and `s` at most 31 bytes (checked at compile time).
pub const fn fixstr<const N: usize>(s: &str) -> [u8; N] {
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

/// A map key as a `&'static [u8]` fixstr constant.
macro_rules! key {
    ($s:literal) => {{
        const K: [u8; $s.len() + 1] = fixstr($s);
        &K
    }};
}

/// Where the writer puts bytes: a growing `Vec<u8>`, or a [`Slab`] (a
/// slice already sized for a whole product, written with a local index).
pub trait Sink {
    fn put(&mut self, b: u8);
    fn put_all(&mut self, bytes: &[u8]);
}

impl Sink for Vec<u8> {
    #[inline(always)]
    fn put(&mut self, b: u8) {
        self.push(b);
    }

    #[inline(always)]
    fn put_all(&mut self, bytes: &[u8]) {
        self.extend_from_slice(bytes);
    }
}

/// A slice sized from `product_bound` and the next free index in it. No
/// per-byte capacity check or length store: one index compare per write.
/// Writing past the end would panic, so the bound must hold (it is an upper
/// bound by construction and the golden tests pin the bytes).
pub struct Slab<'a> {
    buf: &'a mut [u8],
    at: usize,
}

impl Sink for Slab<'_> {
    #[inline(always)]
    fn put(&mut self, b: u8) {
        self.buf[self.at] = b;
        self.at += 1;
    }

    #[inline(always)]
    fn put_all(&mut self, bytes: &[u8]) {
        self.buf[self.at..self.at + bytes.len()].copy_from_slice(bytes);
        self.at += bytes.len();
    }
}

/// Appends an unsigned integer in the smallest of positive fixint / uint 8/16/32/64.
///
/// ```
/// # use wirebench::codec::msgpack::write::write_uint;
/// let mut out = Vec::new();
/// write_uint(&mut out, 300);
/// assert_eq!(out, [0xcd, 0x01, 0x2c]);
/// ```
#[inline]
pub fn write_uint<S: Sink + ?Sized>(out: &mut S, v: u64) {
    if v < 0x80 {
        out.put(v as u8); // positive fixint: the byte is the value
    } else if let Ok(v) = u8::try_from(v) {
        out.put_all(&[U8, v]);
    } else if let Ok(v) = u16::try_from(v) {
        let [a, b] = v.to_be_bytes();
        out.put_all(&[U16, a, b]);
    } else if let Ok(v) = u32::try_from(v) {
        let [a, b, c, d] = v.to_be_bytes();
        out.put_all(&[U32, a, b, c, d]);
    } else {
        out.put(U64);
        out.put_all(&v.to_be_bytes());
    }
}

/// Appends a signed integer: non-negative values through [`write_uint`],
/// negative ones in the smallest of negative fixint / int 8/16/32/64.
///
/// ```
/// # use wirebench::codec::msgpack::write::write_int;
/// let mut out = Vec::new();
/// write_int(&mut out, -33);
/// assert_eq!(out, [0xd0, 0xdf]);
/// ```
#[inline]
pub fn write_int<S: Sink + ?Sized>(out: &mut S, v: i64) {
    match u64::try_from(v) {
        Ok(u) => write_uint(out, u),
        Err(_) if v >= -32 => out.put(v as u8), // negative fixint: 0xe0..=0xff
        Err(_) => {
            if let Ok(v) = i8::try_from(v) {
                out.put_all(&[I8, v as u8]);
            } else if let Ok(v) = i16::try_from(v) {
                let [a, b] = v.to_be_bytes();
                out.put_all(&[I16, a, b]);
            } else if let Ok(v) = i32::try_from(v) {
                let [a, b, c, d] = v.to_be_bytes();
                out.put_all(&[I32, a, b, c, d]);
            } else {
                out.put(I64);
                out.put_all(&v.to_be_bytes());
            }
        }
    }
}

/// Appends `v` as float 64 (always: the schema says f64, and narrowing to
/// float 32 when exact is allowed by the spec but not what rmp-serde does).
#[inline]
pub fn write_f64<S: Sink + ?Sized>(out: &mut S, v: f64) {
    out.put(F64);
    out.put_all(&v.to_be_bytes());
}

#[inline]
pub fn write_bool<S: Sink + ?Sized>(out: &mut S, v: bool) {
    out.put(if v { TRUE } else { FALSE });
}

#[inline]
pub fn write_nil<S: Sink + ?Sized>(out: &mut S) {
    out.put(NIL);
}

/// A `usize` length as the 32-bit wire maximum, or `TooLong`.
#[inline]
fn len_u32(len: usize, what: &'static str) -> Result<u32, EncodeError> {
    u32::try_from(len).map_err(|_| EncodeError::TooLong { what, len })
}

/// Appends a string: fixstr (≤ 31 bytes), str 8 (≤ 255), str 16 (≤ 65,535), str 32.
///
/// ```
/// # use wirebench::codec::msgpack::write::write_str;
/// let mut out = Vec::new();
/// write_str(&mut out, "id").unwrap();
/// assert_eq!(out, [0xa2, b'i', b'd']);
/// ```
#[inline(always)]
pub fn write_str<S: Sink + ?Sized>(out: &mut S, s: &str) -> Result<(), EncodeError> {
    let len = s.len();
    if len < 32 {
        out.put(FIXSTR | len as u8);
    } else {
        let n = len_u32(len, "string")?;
        if let Ok(n) = u8::try_from(n) {
            out.put_all(&[STR8, n]);
        } else if let Ok(n) = u16::try_from(n) {
            let [a, b] = n.to_be_bytes();
            out.put_all(&[STR16, a, b]);
        } else {
            let [a, b, c, d] = n.to_be_bytes();
            out.put_all(&[STR32, a, b, c, d]);
        }
    }
    out.put_all(s.as_bytes());
    Ok(())
}

/// Appends an array header: fixarray (≤ 15), array 16 (≤ 65,535), array 32.
#[inline]
pub fn write_array_len<S: Sink + ?Sized>(out: &mut S, len: usize, what: &'static str) -> Result<(), EncodeError> {
    if len < 16 {
        out.put(FIXARRAY | len as u8);
        return Ok(());
    }
    let n = len_u32(len, what)?;
    if let Ok(n) = u16::try_from(n) {
        let [a, b] = n.to_be_bytes();
        out.put_all(&[ARRAY16, a, b]);
    } else {
        let [a, b, c, d] = n.to_be_bytes();
        out.put_all(&[ARRAY32, a, b, c, d]);
    }
    Ok(())
}

/// Appends a map header: fixmap (≤ 15 pairs), map 16 (≤ 65,535), map 32.
#[inline]
pub fn write_map_len<S: Sink + ?Sized>(out: &mut S, len: usize, what: &'static str) -> Result<(), EncodeError> {
    if len < 16 {
        out.put(FIXMAP | len as u8);
        return Ok(());
    }
    let n = len_u32(len, what)?;
    if let Ok(n) = u16::try_from(n) {
        let [a, b] = n.to_be_bytes();
        out.put_all(&[MAP16, a, b]);
    } else {
        let [a, b, c, d] = n.to_be_bytes();
        out.put_all(&[MAP32, a, b, c, d]);
    }
    Ok(())
}

/// Number of fields of a product: its map has 17 pairs, so it is a map 16
/// (`de 00 11`) — one more than a fixmap can hold.
pub const PRODUCT_FIELDS: usize = 17;
/// Pairs in a dimensions map (`84`).
pub const DIMENSIONS_FIELDS: usize = 4;
/// Pairs in a variant map (`85`).
pub const VARIANT_FIELDS: usize = 5;

/// Rough encoded size of one product, to reserve once instead of growing
/// the buffer many times (only a hint: a larger product just grows it; each
/// product is then written into a slice sized by [`product_bound`]).
const PRODUCT_SIZE_HINT: usize = 320;

/// Appends `{"products": [product, …]}`.
pub fn write_catalog(products: &[Product], out: &mut Vec<u8>) -> Result<(), EncodeError> {
    out.reserve(16 + products.len().saturating_mul(PRODUCT_SIZE_HINT));
    write_map_len(out, 1, "catalog")?;
    out.put_all(key!("products"));
    write_array_len(out, products.len(), "products")?;
    for p in products {
        match product_bound(p) {
            Some(bound) => {
                let start = out.len();
                out.resize(start + bound, 0);
                let mut slab = Slab {
                    buf: &mut out[start..],
                    at: 0,
                };
                write_product(p, &mut slab)?;
                let end = start + slab.at;
                out.truncate(end);
            }
            // Some length is beyond u32: the Vec path reports which.
            None => write_product(p, out)?,
        }
    }
    Ok(())
}

/// Most bytes any non-string value takes (uint 64 / int 64 / float 64).
const MAX_SCALAR: usize = 9;
/// Most bytes a str, array or map header takes (marker + 32-bit length).
const MAX_HEADER: usize = 5;

const fn keys_len(keys: &[&str]) -> usize {
    let mut sum = 0;
    let mut i = 0;
    while i < keys.len() {
        sum += 1 + keys[i].len();
        i += 1;
    }
    sum
}

/// A product's bytes apart from its strings, tags and variants: its map
/// header, the 17 keys, 8 scalar values at their widest (id, price_cents,
/// rating, review_count, in_stock, stock, discount_percent, created_at_ms),
/// 8 str/array headers (6 strings, tags, variants), and the dimensions map.
const PRODUCT_FIXED: usize = MAX_HEADER
    + keys_len(&[
        "id",
        "sku",
        "name",
        "description",
        "price_cents",
        "currency",
        "rating",
        "review_count",
        "in_stock",
        "stock",
        "status",
        "tags",
        "dimensions",
        "variants",
        "discount_percent",
        "created_at_ms",
        "image_url",
    ])
    + 8 * MAX_SCALAR
    + 8 * MAX_HEADER
    + 1
    + keys_len(&["width_mm", "height_mm", "depth_mm", "weight_g"])
    + 4 * MAX_SCALAR;
/// A variant's bytes apart from its three strings.
const VARIANT_FIXED: usize =
    1 + keys_len(&["sku", "color", "size", "price_cents", "stock"]) + 3 * MAX_HEADER + 2 * MAX_SCALAR;

/// An upper bound on the encoded size of `p`, or `None` when it exceeds
/// `u32::MAX` (then some length might too, and the checked path must run).
fn product_bound(p: &Product) -> Option<usize> {
    let mut n = PRODUCT_FIXED
        + p.sku.len()
        + p.name.len()
        + p.description.len()
        + p.currency.len()
        + p.status.as_str().len()
        + p.image_url.len();
    for t in &p.tags {
        n += MAX_HEADER + t.len();
    }
    for v in &p.variants {
        n += VARIANT_FIXED + v.sku.len() + v.color.len() + v.size.len();
    }
    u32::try_from(n).is_ok().then_some(n)
}

/// Appends one product: a map of the 17 fields in field order (docs/SPEC.md, "Field order").
pub fn write_product<S: Sink>(p: &Product, out: &mut S) -> Result<(), EncodeError> {
    write_map_len(out, PRODUCT_FIELDS, "product")?;
    out.put_all(key!("id"));
    write_int(out, p.id);
    out.put_all(key!("sku"));
    write_str(out, &p.sku)?;
    out.put_all(key!("name"));
    write_str(out, &p.name)?;
    out.put_all(key!("description"));
    write_str(out, &p.description)?;
    out.put_all(key!("price_cents"));
    write_int(out, p.price_cents);
    out.put_all(key!("currency"));
    write_str(out, &p.currency)?;
    out.put_all(key!("rating"));
    write_f64(out, p.rating);
    out.put_all(key!("review_count"));
    write_int(out, i64::from(p.review_count));
    out.put_all(key!("in_stock"));
    write_bool(out, p.in_stock);
    out.put_all(key!("stock"));
    write_int(out, i64::from(p.stock));
    out.put_all(key!("status"));
    write_str(out, p.status.as_str())?;
    out.put_all(key!("tags"));
    write_array_len(out, p.tags.len(), "tags")?;
    for t in &p.tags {
        write_str(out, t)?;
    }
    out.put_all(key!("dimensions"));
    write_dimensions(&p.dimensions, out);
    out.put_all(key!("variants"));
    write_array_len(out, p.variants.len(), "variants")?;
    for v in &p.variants {
        write_variant(v, out)?;
    }
    out.put_all(key!("discount_percent"));
    match p.discount_percent {
        Some(d) => write_int(out, i64::from(d)),
        None => write_nil(out),
    }
    out.put_all(key!("created_at_ms"));
    write_int(out, p.created_at_ms);
    out.put_all(key!("image_url"));
    write_str(out, &p.image_url)
}

fn write_dimensions<S: Sink>(d: &Dimensions, out: &mut S) {
    out.put(FIXMAP | DIMENSIONS_FIELDS as u8);
    out.put_all(key!("width_mm"));
    write_int(out, i64::from(d.width_mm));
    out.put_all(key!("height_mm"));
    write_int(out, i64::from(d.height_mm));
    out.put_all(key!("depth_mm"));
    write_int(out, i64::from(d.depth_mm));
    out.put_all(key!("weight_g"));
    write_int(out, i64::from(d.weight_g));
}

fn write_variant<S: Sink>(v: &Variant, out: &mut S) -> Result<(), EncodeError> {
    out.put(FIXMAP | VARIANT_FIELDS as u8);
    out.put_all(key!("sku"));
    write_str(out, &v.sku)?;
    out.put_all(key!("color"));
    write_str(out, &v.color)?;
    out.put_all(key!("size"));
    write_str(out, &v.size)?;
    out.put_all(key!("price_cents"));
    write_int(out, v.price_cents);
    out.put_all(key!("stock"));
    write_int(out, i64::from(v.stock));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_fixstr_constants() {
        assert_eq!(key!("id"), &[0xa2, b'i', b'd']);
        assert_eq!(key!("discount_percent")[0], 0xb0);
    }

    /// The slab a product is written into is never too small (it would
    /// panic), and the bound is not wildly loose.
    #[test]
    fn product_bound_holds() {
        let mut products = crate::fixtures::catalog(200).products;
        for seed in 0..50 {
            products.extend(crate::fixtures::random_catalog(seed).products);
        }
        for p in &products {
            let mut out = Vec::new();
            write_product(p, &mut out).unwrap();
            let bound = product_bound(p).unwrap();
            assert!(out.len() <= bound, "{} > {bound}", out.len());
            assert!(bound <= out.len() + 600, "{bound} vs {}", out.len());
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
        assert!(out.is_empty());
        write_array_len(&mut out, u32::MAX as usize, "tags").unwrap();
        assert_eq!(out, [0xdd, 0xff, 0xff, 0xff, 0xff]);
    }
}
