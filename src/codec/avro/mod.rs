//! Avro: the binary encoding of one datum of the `Catalog` record, written and
//! read by hand against [`SCHEMA`] (`schemas/catalog.avsc`).
//!
//! Spec: Apache Avro 1.12 specification, "Binary Encoding"
//! (<https://avro.apache.org/docs/1.12.0/specification/#binary-encoding>),
//! sections "Primitive Types", "Complex Types" (Records, Enums, Arrays, Unions).
//! No object container file, no header, no sync marker: the payload is exactly
//! one datum, and the reader must already hold the schema (the server serves it
//! at `/schemas/catalog.avsc`).
//!
//! # Wire format
//!
//! Avro writes no field names, tags or type markers: the schema *is* the
//! order, so a record is its fields' encodings back to back, depth first.
//!
//! | schema type | bytes | example |
//! |---|---|---|
//! | `int`, `long` | zigzag, then LEB128 varint ([`crate::codec::varint`]) | `1` → `02`, `-1` → `01`, `300` → `d8 04` |
//! | `string` | `long` byte length, then UTF-8 bytes | `"abc"` → `06 61 62 63` |
//! | `double` | 8 bytes, IEEE 754 little-endian | `4.5` → `00 00 00 00 00 00 12 40` |
//! | `boolean` | one byte `00` or `01` | `true` → `01` |
//! | enum `Status` | symbol index as `int` | `DRAFT` → `02` |
//! | `array` | blocks: `long` count, that many items; a `00` count ends it | `["new","eco"]` → `04 06 6e 65 77 06 65 63 6f 00`, `[]` → `00` |
//! | union `["null","int"]` | branch index as `long`, then the branch's value | `null` → `00`, `15` → `02 1e` |
//! | record | fields in schema order, nothing between | `Dimensions{1,2,3,4}` → `02 04 06 08` |
//!
//! A block count may be negative: then its absolute value is the item count and
//! a `long` byte size of the block's items follows (spec, "Arrays"). Our
//! encoder always writes one positive block per non-empty array (as
//! apache-avro's `Value` writer does); the decoder accepts any blocking.
//!
//! The first bytes of `fixtures/golden/catalog-1.avro`, field by field:
//!
//! ```text
//! 02                                 products: a block of 1 item
//!   02                               id 1
//!   14 53 4b 55 2d 30 30 30 30 30 31 sku: length 10, "SKU-000001"
//!   28 52 75 67 67 65 64 …           name: length 20, "Rugged Running Shoes"
//!   aa 01 44 65 73 69 67 6e …        description: length 85 (zigzag 170 = aa 01)
//!   …
//! 00                                 end of products
//! ```
//!
//! The whole payload for `Catalog { products: [] }` is the single byte `00`;
//! with one product it starts `02` (one item), then the product's fields from
//! `id` to `image_url`, then the `00` that ends the array.
//!
//! Invariants: the decoder never allocates from a length it has not compared
//! with the remaining input ([`crate::codec::cursor::Cursor`]), rejects
//! `int` values outside `i32`, a NaN/infinite `rating`, negative lengths,
//! booleans other than 0/1, unknown enum and union indexes and trailing
//! bytes, and validates every product (model rules) with the product's offset.

mod read;
pub mod view;
mod write;

pub use view::decode;
pub use write::encode;

/// The Avro schema of the payload (`schemas/catalog.avsc`), served by the
/// HTTP server and parsed by the differential tests. The field order in
/// `write.rs` and `read.rs` follows it exactly.
pub const SCHEMA: &str = include_str!("../../../schemas/catalog.avsc");

/// File name of [`SCHEMA`] under `schemas/` (and `/schemas/` over HTTP).
pub const SCHEMA_FILE: &str = "catalog.avsc";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Catalog, Dimensions, Product, Status, Variant};

    fn small() -> Product {
        Product {
            id: 1,
            sku: "S".into(),
            name: "ab".into(),
            description: String::new(),
            price_cents: 300,
            currency: "THB".into(),
            rating: 4.5,
            review_count: 0,
            in_stock: true,
            stock: 1,
            status: Status::Draft,
            tags: vec!["new".into(), "eco".into()],
            dimensions: Dimensions {
                width_mm: 1,
                height_mm: 2,
                depth_mm: 3,
                weight_g: 4,
            },
            variants: vec![Variant {
                sku: "v".into(),
                color: "red".into(),
                size: "M".into(),
                price_cents: -1,
                stock: 64,
            }],
            discount_percent: Some(15),
            created_at_ms: -64,
            image_url: "u".into(),
        }
    }

    /// Every byte of a one-product catalog, field by field.
    #[rustfmt::skip]
    const SMALL: &[u8] = &[
        0x02,                                     // products: block of 1 item
        0x02,                                     // id 1
        0x02, b'S',                               // sku "S"
        0x04, b'a', b'b',                         // name "ab"
        0x00,                                     // description ""
        0xd8, 0x04,                               // price_cents 300 (zigzag 600)
        0x06, b'T', b'H', b'B',                   // currency "THB"
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x12, 0x40, // rating 4.5 LE
        0x00,                                     // review_count 0
        0x01,                                     // in_stock true
        0x02,                                     // stock 1
        0x02,                                     // status DRAFT (index 1)
        0x04, 0x06, b'n', b'e', b'w', 0x06, b'e', b'c', b'o', 0x00, // tags
        0x02, 0x04, 0x06, 0x08,                   // dimensions 1, 2, 3, 4
        0x02,                                     // variants: block of 1
        0x02, b'v', 0x06, b'r', b'e', b'd', 0x02, b'M', // sku, color, size
        0x01,                                     // price_cents -1
        0x80, 0x01,                               // stock 64 (zigzag 128)
        0x00,                                     // end of variants
        0x02, 0x1e,                               // discount_percent: branch int, 15
        0x7f,                                     // created_at_ms -64
        0x02, b'u',                               // image_url "u"
        0x00,                                     // end of products
    ];

    #[test]
    fn encodes_exact_bytes() {
        let mut out = Vec::new();
        encode(&[small()], &mut out).unwrap();
        assert_eq!(out, SMALL);
    }

    #[test]
    fn empty_catalog_is_one_zero_byte() {
        let mut out = vec![0xaa];
        encode(&[], &mut out).unwrap();
        assert_eq!(out, [0xaa, 0x00], "encode appends");
        assert_eq!(decode(&[0x00]).unwrap(), Catalog::default());
    }

    #[test]
    fn decodes_exact_bytes() {
        // Price -1 on a variant breaks the model, so the decoder must say so.
        let err = decode(SMALL).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid data: products[0].variants[0].price_cents: must be >= 0, found -1 at byte 1"
        );
        let mut ok = small();
        ok.variants[0].price_cents = 1;
        let mut bytes = SMALL.to_vec();
        assert_eq!(bytes[49], 0x01, "variant price_cents -1");
        bytes[49] = 0x02; // variant price_cents 1
        assert_eq!(decode(&bytes).unwrap(), Catalog { products: vec![ok] });
    }

    #[test]
    fn schema_lists_fields_in_code_order() {
        let quoted = |names: &str| names.split(' ').map(|n| format!("\"{n}\"")).collect::<Vec<_>>();
        let mut fields = quoted("products id sku name description price_cents currency rating review_count in_stock");
        fields.extend(quoted("stock status"));
        fields.push(r#""ACTIVE", "DRAFT", "DISCONTINUED""#.into());
        fields.extend(quoted(
            "tags dimensions width_mm height_mm depth_mm weight_g variants color size",
        ));
        fields.push(r#""discount_percent", "type": ["null", "int"], "default": null"#.into());
        fields.extend(quoted("created_at_ms image_url"));
        let mut from = 0;
        for f in &fields {
            let at = SCHEMA[from..]
                .find(f.as_str())
                .unwrap_or_else(|| panic!("{f} missing or out of order in {SCHEMA_FILE}"));
            from += at + f.len();
        }
    }

    #[test]
    fn errors_carry_offsets() {
        // One product announced, none of its (at least 27) bytes present.
        assert_eq!(
            decode(&[0x02]).unwrap_err().to_string(),
            "products block count of 1 exceeds the 0 bytes remaining at byte 1"
        );
        let mut truncated = SMALL.to_vec();
        truncated[49] = 0x02; // a valid variant price, so the product validates
        truncated.truncate(58);
        assert_eq!(
            decode(&truncated).unwrap_err().to_string(),
            "unexpected end of input, expected products block count at byte 58"
        );
    }
}
