//! Avro: the binary encoding of one datum of the `Catalog` record, written and
//! read by hand against [`SCHEMA`] (`schemas/catalog.avsc`).
//!
//! Spec: Apache Avro 1.12, "Binary Encoding"
//! (<https://avro.apache.org/docs/1.12.0/specification/#binary-encoding>).
//! No object container file, header or sync marker: the payload is exactly
//! one datum, and the reader must already hold the schema (the server serves
//! it at `/schemas/catalog.avsc`).
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
//! `Catalog { products: [] }` is the single byte `00`. The first bytes of
//! `fixtures/golden/catalog-1.avro`, field by field:
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
