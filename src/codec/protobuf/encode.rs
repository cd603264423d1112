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
//! second writes. prost's encode of a prebuilt message does the same two
//! passes but computes each product's length twice and needs the owned
//! message (a `String` per string field: 13,110 allocations for the 1,000
//! fixture products) built first.

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;
    use crate::model::Status;
    use prost::Message;

    fn prost_bytes(products: &[Product]) -> Vec<u8> {
        super::super::to_generated(products).encode_to_vec()
    }

    fn ours(products: &[Product]) -> Vec<u8> {
        let mut out = Vec::new();
        encode(products, &mut out).unwrap();
        out
    }

    #[test]
    fn byte_identical_to_prost_on_the_fixture() {
        for count in [0, 1, 2, 3, 100, 1000] {
            let c = fixtures::catalog(count);
            assert_eq!(ours(&c.products), prost_bytes(&c.products), "count {count}");
        }
    }

    #[test]
    fn byte_identical_to_prost_on_random_catalogs() {
        for seed in 0..500 {
            let c = fixtures::random_catalog(seed);
            assert_eq!(ours(&c.products), prost_bytes(&c.products), "seed {seed}");
        }
    }

    /// Values at every default and sign boundary: negative int32 (ten bytes,
    /// sign-extended), -0.0 (prost compares with 0.0, so it is left out),
    /// `Some(0)` discount (written), empty strings in lists (written), empty
    /// everything else (left out), extreme integers.
    #[test]
    fn byte_identical_to_prost_on_edge_values() {
        let base = fixtures::catalog(1).products.remove(0);
        let mut edge = Vec::new();
        for (i, rating) in [0.0, -0.0, f64::MIN_POSITIVE, 5.0, f64::NAN, f64::INFINITY]
            .into_iter()
            .enumerate()
        {
            let mut p = base.clone();
            p.id = i as i64 * 7 - 3;
            p.rating = rating;
            p.review_count = if i % 2 == 0 { -1 } else { i32::MIN };
            p.stock = [0, i32::MAX, -5][i % 3];
            p.price_cents = [i64::MIN, 0, i64::MAX][i % 3];
            p.created_at_ms = -(i as i64);
            p.discount_percent = [None, Some(0), Some(-1)][i % 3];
            p.in_stock = i % 2 == 1;
            p.status = Status::ALL[i % 3];
            p.tags = vec![String::new(), "é".repeat(i * 40)];
            p.sku = String::new();
            p.name = "x".repeat(200 * i);
            p.dimensions = Dimensions {
                width_mm: -1,
                height_mm: 0,
                depth_mm: i32::MAX,
                weight_g: 0,
            };
            p.variants = vec![
                Variant {
                    sku: String::new(),
                    color: String::new(),
                    size: String::new(),
                    price_cents: 0,
                    stock: 0,
                },
                Variant {
                    sku: "v".into(),
                    color: "c".into(),
                    size: "s".into(),
                    price_cents: -1,
                    stock: -1,
                },
            ];
            edge.push(p);
        }
        let mut empty = base.clone();
        empty.dimensions = Dimensions::default();
        empty.tags.clear();
        empty.variants.clear();
        empty.image_url.clear();
        edge.push(empty);
        for i in 0..edge.len() {
            let one = &edge[i..=i];
            assert_eq!(ours(one), prost_bytes(one), "edge product {i}");
        }
        assert_eq!(ours(&edge), prost_bytes(&edge));
    }

    #[test]
    fn appends_to_what_the_buffer_holds() {
        let c = fixtures::catalog(3);
        let mut out = b"prefix".to_vec();
        encode(&c.products, &mut out).unwrap();
        assert_eq!(&out[..6], b"prefix");
        assert_eq!(&out[6..], &prost_bytes(&c.products)[..]);
    }
}
