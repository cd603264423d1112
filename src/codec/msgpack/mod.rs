//! MessagePack, handwritten: the catalog as maps with string keys, every
//! integer, string, array and map length in its smallest format.
//!
//! Spec: <https://github.com/msgpack/msgpack/blob/master/spec.md> (formats,
//! "Serialization: type to format conversion"). Our bytes equal
//! `rmp_serde::to_vec_named` of the serde mirror (`tests/reference_msgpack.rs`).
//!
//! # Wire format
//!
//! Every value starts with one marker byte ([`marker::Marker`]). Small values
//! and lengths live inside the marker; larger ones follow it big-endian.
//!
//! | family | formats (marker) | payload after the marker |
//! |---|---|---|
//! | nil / bool | nil `c0`, false `c2`, true `c3` | — |
//! | int | positive fixint `00..=7f`, negative fixint `e0..=ff` | — (value in the marker) |
//! | | uint 8/16/32/64 `cc..=cf`, int 8/16/32/64 `d0..=d3` | 1/2/4/8 bytes |
//! | float | float 32 `ca`, float 64 `cb` | 4/8 bytes IEEE 754 |
//! | str | fixstr `a0..=bf` (len in 5 bits), str 8/16/32 `d9..=db` | 0/1/2/4-byte length, UTF-8 bytes |
//! | bin | bin 8/16/32 `c4..=c6` | 1/2/4-byte length, bytes |
//! | array | fixarray `90..=9f`, array 16/32 `dc`/`dd` | 0/2/4-byte count, elements |
//! | map | fixmap `80..=8f`, map 16/32 `de`/`df` | 0/2/4-byte count, key, value, … |
//! | ext | fixext 1/2/4/8/16 `d4..=d8`, ext 8/16/32 `c7..=c9` | (ext: 1/2/4-byte length), type byte, data |
//! | — | `c1` never used | an error |
//!
//! `{"id":1}` is five bytes:
//!
//! ```text
//! 81          fixmap, 1 pair
//! a2 69 64    fixstr, 2 bytes: "id"
//! 01          positive fixint 1
//! ```
//!
//! A catalog is `{"products": [p, …]}`: `81 a8 "products"`, an array header,
//! then each product as a **map 16** of 17 pairs (`de 00 11`, one more than a
//! fixmap holds) with keys in field order (docs/SPEC.md, "Field order"). `dimensions` is a fixmap of 4 pairs
//! (`84`), each variant a fixmap of 5 (`85`), `status` the string `"active"`,
//! `"draft"` or `"discontinued"`, an absent `discount_percent` is nil `c0`,
//! `rating` is always float 64 `cb`. Integers follow rmp's rule: non-negative
//! values in the unsigned family, negative ones in the signed family, each in
//! its smallest width (`300` → `cd 01 2c`, `-33` → `d0 df`).
//!
//! # Decoding
//!
//! The decoder accepts every width of every family (a uint 64 holding 1, a
//! map 16 of 1 pair), keys in any order, and skips unknown keys whatever their
//! value (bin, ext, nested containers up to [`read::MAX_DEPTH`] levels).
//! `rating` may be float 64 or float 32 (widened exactly); integers are not
//! accepted for it. nil is accepted only for `discount_percent`. Only the
//! named-field (map) form is read: rmp-serde's compact `to_vec` form writes
//! records as arrays without keys and is rejected as "expected a product map".
//! Then the product is validated ([`crate::model::Product::validate`]) and ids
//! checked for uniqueness; every error carries a byte offset.

pub mod marker;
pub mod read;
pub mod view;
pub mod write;

use crate::codec::{DecodeError, EncodeError};
use crate::model::{Catalog, Product};

/// Appends the MessagePack encoding of `Catalog { products }` to `out`.
///
/// Fails only if a string or list is longer than `u32::MAX` (the spec's
/// 32-bit length limit), with [`EncodeError::TooLong`].
pub fn encode(products: &[Product], out: &mut Vec<u8>) -> Result<(), EncodeError> {
    write::write_catalog(products, out)
}

/// Decodes a whole MessagePack payload into a validated catalog; trailing
/// bytes after the root map are an error.
pub fn decode(bytes: &[u8]) -> Result<Catalog, DecodeError> {
    view::decode_owned(bytes, false)
}

/// Tolerant decode: a missing key takes its field's zero value and a
/// missing `products` is an empty catalog; unknown keys are skipped, wrong
/// types, duplicates and the model's rules are refused, as in [`decode`].
/// Used where writer and reader disagree (docs/EVOLUTION.md).
pub fn decode_tolerant(bytes: &[u8]) -> Result<Catalog, DecodeError> {
    view::decode_owned(bytes, true)
}
