//! Writing a `Catalog` straight from borrowed domain data with prost's own
//! field encoders (`prost::encoding`), with no prost message built first.
//!
//! The bytes are the ones prost writes for the generated types
//! (`to_generated(products).encode(..)`, a differential test holds them
//! equal): fields in tag order; a proto3 scalar, string or enum equal to its
//! default (0, 0.0, `false`, `""`, `ACTIVE`) is left out; `discount_percent`
//! is written whenever it is present; `dimensions` is always written (the
//! generated conversion always sets it); every tag and variant is written,
//! empty or not.
//!
//! A submessage is a LEN field, so its length must be known before its bytes.
//! One pass computes every product's length (keeping them in a vector of one
//! `u32` per product, the only allocation) and reserves the exact total; the
//! second writes. (prost computes each product's length twice, from an owned
//! message with a `String` per string field.)

use super::fields as tag;
use crate::codec::EncodeError;
use crate::model::{Dimensions, Product, Variant};
use prost::encoding::{self, WireType, encode_key, encode_varint, encoded_len_varint, key_len};

/// The largest protobuf message prost (and every other implementation)
/// accepts: lengths are at most 2 GiB.
const MAX_MESSAGE: usize = i32::MAX as usize;

/// Appends the protobuf encoding of `Catalog { products }` to `out`.
pub fn encode(products: &[Product], out: &mut Vec<u8>) -> Result<(), EncodeError> {
    let mut lens = Vec::with_capacity(products.len());
    let mut total = 0usize;
    for p in products {
        let len = product_len(p);
        if len > MAX_MESSAGE {
            return Err(EncodeError::TooLong {
                what: "protobuf product message",
                len,
            });
        }
        total = total.saturating_add(key_len(tag::CATALOG_PRODUCTS) + encoded_len_varint(len as u64) + len);
        lens.push(len as u32);
    }
    if total > MAX_MESSAGE {
        return Err(EncodeError::TooLong {
            what: "protobuf message",
            len: total,
        });
    }
    out.reserve(total);
    for (p, &len) in products.iter().zip(&lens) {
        encode_key(tag::CATALOG_PRODUCTS, WireType::LengthDelimited, out);
        encode_varint(u64::from(len), out);
        product(p, out);
    }
    Ok(())
}

#[inline]
fn string_len(tag: u32, s: &str) -> usize {
    if s.is_empty() {
        0
    } else {
        key_len(tag) + encoded_len_varint(s.len() as u64) + s.len()
    }
}

#[inline]
fn string(tag: u32, s: &String, out: &mut Vec<u8>) {
    if !s.is_empty() {
        encoding::string::encode(tag, s, out);
    }
}

/// `$len` and `$write` for a proto3 integer field, left out at 0.
macro_rules! implicit {
    ($len:ident, $write:ident, $t:ty, $enc:ident) => {
        #[inline]
        fn $len(tag: u32, v: $t) -> usize {
            if v == 0 {
                0
            } else {
                encoding::$enc::encoded_len(tag, &v)
            }
        }

        #[inline]
        fn $write(tag: u32, v: $t, out: &mut Vec<u8>) {
            if v != 0 {
                encoding::$enc::encode(tag, &v, out);
            }
        }
    };
}

implicit!(int64_len, int64, i64, int64);
implicit!(int32_len, int32, i32, int32);

/// Length of a submessage field: key, length varint, body.
#[inline]
fn message_len(tag: u32, body: usize) -> usize {
    key_len(tag) + encoded_len_varint(body as u64) + body
}

fn dimensions_len(d: &Dimensions) -> usize {
    int32_len(tag::WIDTH_MM, d.width_mm)
        + int32_len(tag::HEIGHT_MM, d.height_mm)
        + int32_len(tag::DEPTH_MM, d.depth_mm)
        + int32_len(tag::WEIGHT_G, d.weight_g)
}

fn variant_len(v: &Variant) -> usize {
    string_len(tag::VARIANT_SKU, &v.sku)
        + string_len(tag::COLOR, &v.color)
        + string_len(tag::SIZE, &v.size)
        + int64_len(tag::VARIANT_PRICE_CENTS, v.price_cents)
        + int32_len(tag::VARIANT_STOCK, v.stock)
}

/// Encoded length of one product's body (without its key and length).
fn product_len(p: &Product) -> usize {
    let mut n = int64_len(tag::ID, p.id)
        + string_len(tag::SKU, &p.sku)
        + string_len(tag::NAME, &p.name)
        + string_len(tag::DESCRIPTION, &p.description)
        + int64_len(tag::PRICE_CENTS, p.price_cents)
        + string_len(tag::CURRENCY, &p.currency);
    if p.rating != 0.0 {
        n += encoding::double::encoded_len(tag::RATING, &p.rating);
    }
    n += int32_len(tag::REVIEW_COUNT, p.review_count);
    if p.in_stock {
        n += encoding::bool::encoded_len(tag::IN_STOCK, &p.in_stock);
    }
    n += int32_len(tag::STOCK, p.stock) + int32_len(tag::STATUS, p.status.index() as i32);
    n += encoding::string::encoded_len_repeated(tag::TAGS, &p.tags);
    n += message_len(tag::DIMENSIONS, dimensions_len(&p.dimensions));
    for v in &p.variants {
        n += message_len(tag::VARIANTS, variant_len(v));
    }
    if let Some(d) = &p.discount_percent {
        n += encoding::int32::encoded_len(tag::DISCOUNT_PERCENT, d);
    }
    n + int64_len(tag::CREATED_AT_MS, p.created_at_ms) + string_len(tag::IMAGE_URL, &p.image_url)
}

/// One product's body, fields in tag order (as prost writes them).
fn product(p: &Product, out: &mut Vec<u8>) {
    int64(tag::ID, p.id, out);
    string(tag::SKU, &p.sku, out);
    string(tag::NAME, &p.name, out);
    string(tag::DESCRIPTION, &p.description, out);
    int64(tag::PRICE_CENTS, p.price_cents, out);
    string(tag::CURRENCY, &p.currency, out);
    if p.rating != 0.0 {
        encoding::double::encode(tag::RATING, &p.rating, out);
    }
    int32(tag::REVIEW_COUNT, p.review_count, out);
    if p.in_stock {
        encoding::bool::encode(tag::IN_STOCK, &p.in_stock, out);
    }
    int32(tag::STOCK, p.stock, out);
    int32(tag::STATUS, p.status.index() as i32, out);
    encoding::string::encode_repeated(tag::TAGS, &p.tags, out);

    let d = &p.dimensions;
    encode_key(tag::DIMENSIONS, WireType::LengthDelimited, out);
    encode_varint(dimensions_len(d) as u64, out);
    int32(tag::WIDTH_MM, d.width_mm, out);
    int32(tag::HEIGHT_MM, d.height_mm, out);
    int32(tag::DEPTH_MM, d.depth_mm, out);
    int32(tag::WEIGHT_G, d.weight_g, out);

    for v in &p.variants {
        encode_key(tag::VARIANTS, WireType::LengthDelimited, out);
        encode_varint(variant_len(v) as u64, out);
        string(tag::VARIANT_SKU, &v.sku, out);
        string(tag::COLOR, &v.color, out);
        string(tag::SIZE, &v.size, out);
        int64(tag::VARIANT_PRICE_CENTS, v.price_cents, out);
        int32(tag::VARIANT_STOCK, v.stock, out);
    }
    if let Some(d) = &p.discount_percent {
        encoding::int32::encode(tag::DISCOUNT_PERCENT, d, out);
    }
    int64(tag::CREATED_AT_MS, p.created_at_ms, out);
    string(tag::IMAGE_URL, &p.image_url, out);
}
