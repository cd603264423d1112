//! JSON (RFC 8259), handwritten: a compact writer that matches serde_json
//! byte for byte, and a real parser that reads any valid JSON in the catalog's
//! shape. Spec: <https://www.rfc-editor.org/rfc/rfc8259>.
//!
//! # Wire format
//!
//! Text, UTF-8, self-describing: every value carries its key. We write no
//! whitespace, keys in field order (docs/SPEC.md, "Field order"), an absent optional as `null`, the status
//! as a lowercase string. One product with one tag and no variants, wrapped
//! here at `↵` (the real payload is one line, no whitespace):
//!
//! ```text
//! {"products":[{"id":7,"sku":"SKU-000007","name":"Café Olé Mug",↵
//! "description":"Say \"hi\"\n","price_cents":1999,"currency":"THB",↵
//! "rating":4.5,"review_count":12,"in_stock":true,"stock":3,↵
//! "status":"active","tags":["new"],"dimensions":{"width_mm":10,↵
//! "height_mm":20,"depth_mm":5,"weight_g":250},"variants":[],↵
//! "discount_percent":null,"created_at_ms":1700000000000,↵
//! "image_url":"https://cdn.example.com/img/SKU-000007.jpg"}]}
//! ```
//!
//! - Strings (RFC 8259 §7): `"` and `\` and U+0000..=U+001F are escaped —
//!   `\" \\ \b \f \n \r \t` where a short form exists, otherwise `\u00XX` in
//!   lowercase hex (`\u0007`); everything else, `/`, DEL and all non-ASCII
//!   (`é` is `c3 a9`, 📦 is `f0 9f 93 a6`) is written raw. That is exactly
//!   serde_json's choice (the `ESCAPE` table in `tables.rs`). In bytes,
//!   `"é\n"` is `22 c3 a9 5c 6e 22`.
//! - Integers (§6): plain decimal, `-` for negatives, no leading zeros.
//! - `rating` (f64): the shortest digits that read back to the same bits,
//!   laid out as serde_json does: `5.0`, `4.5`, `0.001`, `1e-6`, `1e+16`,
//!   `5e-324` (see `number.rs`). NaN and infinities have no JSON form:
//!   encoding refuses them.
//!
//! Reading accepts more than we write: any whitespace, keys in any order,
//! unknown keys (their values skipped whatever their shape, up to
//! [`MAX_DEPTH`] levels of nesting), every escape including `\uXXXX`
//! surrogate pairs, `1`/`1.0`/`1e0`-style floats for `rating`, and a missing
//! `discount_percent` (read as `null`). It refuses, with the byte offset:
//! invalid UTF-8 (RFC 8259 §8.1: checked once, first, at the first bad
//! byte), lone surrogates, raw control characters, fractions or exponents in
//! integer fields, integers outside the field's type, unknown status
//! strings, duplicate or missing keys, bytes after the root value, and any
//! product that breaks a rule of the data model.

/// Doubles ↔ decimal text for both JSON codecs (this one and
/// `generic::json`): the one writer of serde_json's spelling, and the parser.
pub mod float;
pub(crate) mod lexer;
mod number;
mod tables;
pub mod view;
mod write;

/// Eight digits at a time, for the schema-driven JSON writer.
pub(crate) use float::text::{ASCII_ZEROS, digits8};
pub use lexer::MAX_DEPTH;
pub use number::{write_f64, write_i64};
/// The string-escape and digit tables, for the schema-driven JSON writer.
pub(crate) use tables::{DIGIT_PAIRS, ESCAPE, HEX_DIGITS, HI, UU, find_special, marked};
pub use write::write_str;

use crate::codec::{DecodeError, EncodeError};
use crate::model::{Catalog, Product};

/// Appends the compact JSON of `Catalog { products }` to `out` (on error,
/// `out` is unchanged). The bytes equal `serde_json::to_vec` of the serde
/// mirror of the same catalog.
///
/// ```
/// let mut out = Vec::new();
/// wirebench::codec::json::encode(&[], &mut out).unwrap();
/// assert_eq!(out, br#"{"products":[]}"#);
/// ```
pub fn encode(products: &[Product], out: &mut Vec<u8>) -> Result<(), EncodeError> {
    write::encode(products, out)
}

/// Parses a whole JSON payload into a validated catalog.
///
/// ```
/// let err = wirebench::codec::json::decode(br#"{"products":[] } x"#).unwrap_err();
/// assert_eq!(err.to_string(), "1 trailing bytes after the root value at byte 17");
/// ```
pub fn decode(bytes: &[u8]) -> Result<Catalog, DecodeError> {
    decode_mode(bytes, false)
}

/// As [`decode`], in tolerant mode: a missing key takes its field's zero
/// value (`""`, `0`, `false`, `[]`, `active`, absent) instead of being an
/// error, and a missing `products` is an empty catalog. Unknown keys are
/// skipped in both modes; wrong types, duplicates and the model's rules are
/// refused in both. This is what a reader built for an older or newer shape
/// of the catalog does (docs/EVOLUTION.md).
pub fn decode_tolerant(bytes: &[u8]) -> Result<Catalog, DecodeError> {
    decode_mode(bytes, true)
}

/// The view reader ([`view`]) run once, each product copied into our types
/// as soon as it is read and checked: one reader for the owned and the
/// borrowed decode, so their errors agree by construction. The products
/// vector starts at the most products the input could hold, capped.
fn decode_mode(bytes: &[u8], tolerant: bool) -> Result<Catalog, DecodeError> {
    let mut products = Vec::with_capacity((bytes.len() / view::MINIMAL_PRODUCT.len()).min(view::PREALLOC_MAX));
    view::read(bytes, tolerant, |p| products.push(p.to_product()))?;
    Ok(Catalog { products })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimal_product_is_valid_and_minimal_preallocation_divisor() {
        let text = format!("{{\"products\":[{}]}}", view::MINIMAL_PRODUCT);
        let c = decode(text.as_bytes()).unwrap();
        assert_eq!(c.products.len(), 1);
        // Our own encoding of it is longer only by `"discount_percent":null`
        // and the ".0" of the rating.
        let mut out = Vec::new();
        encode(&c.products, &mut out).unwrap();
        assert_eq!(out.len(), text.len() + ",\"discount_percent\":null".len() + ".0".len());
    }
}
