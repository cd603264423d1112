//! The MessagePack writer: the smallest format of each family (spec,
//! "Serialization": "serializers SHOULD use the format which represents the
//! data in the smallest number of bytes"), and the catalog in SPEC key order.
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

/// Appends an unsigned integer in the smallest of positive fixint / uint 8/16/32/64.
///
/// ```
/// # use wirebench::codec::msgpack::write::write_uint;
/// let mut out = Vec::new();
/// write_uint(&mut out, 300);
/// assert_eq!(out, [0xcd, 0x01, 0x2c]);
/// ```
#[inline]
pub fn write_uint(out: &mut Vec<u8>, v: u64) {
    if v < 0x80 {
        out.push(v as u8); // positive fixint: the byte is the value
    } else if let Ok(v) = u8::try_from(v) {
        out.extend_from_slice(&[U8, v]);
    } else if let Ok(v) = u16::try_from(v) {
        let [a, b] = v.to_be_bytes();
        out.extend_from_slice(&[U16, a, b]);
    } else if let Ok(v) = u32::try_from(v) {
        let [a, b, c, d] = v.to_be_bytes();
        out.extend_from_slice(&[U32, a, b, c, d]);
    } else {
        out.push(U64);
        out.extend_from_slice(&v.to_be_bytes());
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
pub fn write_int(out: &mut Vec<u8>, v: i64) {
    match u64::try_from(v) {
        Ok(u) => write_uint(out, u),
        Err(_) if v >= -32 => out.push(v as u8), // negative fixint: 0xe0..=0xff
        Err(_) => {
            if let Ok(v) = i8::try_from(v) {
                out.extend_from_slice(&[I8, v as u8]);
            } else if let Ok(v) = i16::try_from(v) {
                let [a, b] = v.to_be_bytes();
                out.extend_from_slice(&[I16, a, b]);
            } else if let Ok(v) = i32::try_from(v) {
                let [a, b, c, d] = v.to_be_bytes();
                out.extend_from_slice(&[I32, a, b, c, d]);
            } else {
                out.push(I64);
                out.extend_from_slice(&v.to_be_bytes());
            }
        }
    }
}

/// Appends `v` as float 64 (always: the schema says f64, and narrowing to
/// float 32 when exact is allowed by the spec but not what rmp-serde does).
#[inline]
pub fn write_f64(out: &mut Vec<u8>, v: f64) {
    out.push(F64);
    out.extend_from_slice(&v.to_be_bytes());
}

#[inline]
pub fn write_bool(out: &mut Vec<u8>, v: bool) {
    out.push(if v { TRUE } else { FALSE });
}

#[inline]
pub fn write_nil(out: &mut Vec<u8>) {
    out.push(NIL);
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
#[inline]
pub fn write_str(out: &mut Vec<u8>, s: &str) -> Result<(), EncodeError> {
    let len = s.len();
    if len < 32 {
        out.push(FIXSTR | len as u8);
    } else {
        let n = len_u32(len, "string")?;
        if let Ok(n) = u8::try_from(n) {
            out.extend_from_slice(&[STR8, n]);
        } else if let Ok(n) = u16::try_from(n) {
            let [a, b] = n.to_be_bytes();
            out.extend_from_slice(&[STR16, a, b]);
        } else {
            let [a, b, c, d] = n.to_be_bytes();
            out.extend_from_slice(&[STR32, a, b, c, d]);
        }
    }
    out.extend_from_slice(s.as_bytes());
    Ok(())
}

/// Appends an array header: fixarray (≤ 15), array 16 (≤ 65,535), array 32.
#[inline]
pub fn write_array_len(out: &mut Vec<u8>, len: usize, what: &'static str) -> Result<(), EncodeError> {
    if len < 16 {
        out.push(FIXARRAY | len as u8);
        return Ok(());
    }
    let n = len_u32(len, what)?;
    if let Ok(n) = u16::try_from(n) {
        let [a, b] = n.to_be_bytes();
        out.extend_from_slice(&[ARRAY16, a, b]);
    } else {
        let [a, b, c, d] = n.to_be_bytes();
        out.extend_from_slice(&[ARRAY32, a, b, c, d]);
    }
    Ok(())
}

/// Appends a map header: fixmap (≤ 15 pairs), map 16 (≤ 65,535), map 32.
#[inline]
pub fn write_map_len(out: &mut Vec<u8>, len: usize, what: &'static str) -> Result<(), EncodeError> {
    if len < 16 {
        out.push(FIXMAP | len as u8);
        return Ok(());
    }
    let n = len_u32(len, what)?;
    if let Ok(n) = u16::try_from(n) {
        let [a, b] = n.to_be_bytes();
        out.extend_from_slice(&[MAP16, a, b]);
    } else {
        let [a, b, c, d] = n.to_be_bytes();
        out.extend_from_slice(&[MAP32, a, b, c, d]);
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
/// the buffer many times (only a hint: a larger product just grows it).
const PRODUCT_SIZE_HINT: usize = 320;

/// Appends `{"products": [product, …]}`.
pub fn write_catalog(products: &[Product], out: &mut Vec<u8>) -> Result<(), EncodeError> {
    out.reserve(16 + products.len().saturating_mul(PRODUCT_SIZE_HINT));
    write_map_len(out, 1, "catalog")?;
    out.extend_from_slice(key!("products"));
    write_array_len(out, products.len(), "products")?;
    for p in products {
        write_product(p, out)?;
    }
    Ok(())
}

/// Appends one product: a map of the 17 fields in SPEC order.
pub fn write_product(p: &Product, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    write_map_len(out, PRODUCT_FIELDS, "product")?;
    out.extend_from_slice(key!("id"));
    write_int(out, p.id);
    out.extend_from_slice(key!("sku"));
    write_str(out, &p.sku)?;
    out.extend_from_slice(key!("name"));
    write_str(out, &p.name)?;
    out.extend_from_slice(key!("description"));
    write_str(out, &p.description)?;
    out.extend_from_slice(key!("price_cents"));
    write_int(out, p.price_cents);
    out.extend_from_slice(key!("currency"));
    write_str(out, &p.currency)?;
    out.extend_from_slice(key!("rating"));
    write_f64(out, p.rating);
    out.extend_from_slice(key!("review_count"));
    write_int(out, i64::from(p.review_count));
    out.extend_from_slice(key!("in_stock"));
    write_bool(out, p.in_stock);
    out.extend_from_slice(key!("stock"));
    write_int(out, i64::from(p.stock));
    out.extend_from_slice(key!("status"));
    write_str(out, p.status.as_str())?;
    out.extend_from_slice(key!("tags"));
    write_array_len(out, p.tags.len(), "tags")?;
    for t in &p.tags {
        write_str(out, t)?;
    }
    out.extend_from_slice(key!("dimensions"));
    write_dimensions(&p.dimensions, out);
    out.extend_from_slice(key!("variants"));
    write_array_len(out, p.variants.len(), "variants")?;
    for v in &p.variants {
        write_variant(v, out)?;
    }
    out.extend_from_slice(key!("discount_percent"));
    match p.discount_percent {
        Some(d) => write_int(out, i64::from(d)),
        None => write_nil(out),
    }
    out.extend_from_slice(key!("created_at_ms"));
    write_int(out, p.created_at_ms);
    out.extend_from_slice(key!("image_url"));
    write_str(out, &p.image_url)
}

fn write_dimensions(d: &Dimensions, out: &mut Vec<u8>) {
    out.push(FIXMAP | DIMENSIONS_FIELDS as u8);
    out.extend_from_slice(key!("width_mm"));
    write_int(out, i64::from(d.width_mm));
    out.extend_from_slice(key!("height_mm"));
    write_int(out, i64::from(d.height_mm));
    out.extend_from_slice(key!("depth_mm"));
    write_int(out, i64::from(d.depth_mm));
    out.extend_from_slice(key!("weight_g"));
    write_int(out, i64::from(d.weight_g));
}

fn write_variant(v: &Variant, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    out.push(FIXMAP | VARIANT_FIELDS as u8);
    out.extend_from_slice(key!("sku"));
    write_str(out, &v.sku)?;
    out.extend_from_slice(key!("color"));
    write_str(out, &v.color)?;
    out.extend_from_slice(key!("size"));
    write_str(out, &v.size)?;
    out.extend_from_slice(key!("price_cents"));
    write_int(out, v.price_cents);
    out.extend_from_slice(key!("stock"));
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
