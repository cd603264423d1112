//! The Protobuf reader: the borrowed view, and the owned decode built from
//! it in the same pass ([`decode`](super::decode)). prost's generated types
//! cannot borrow, so the reader walks the wire itself through [`wire`].
//!
//! Every key, varint, length and skip of the wire (the parent module's)
//! goes through [`wire`]; a product field's key is matched whole against the
//! schema's ([`key`]), so one compare checks its number and its wire type,
//! and any other key is parsed ([`Key::parse`]) as unknown or refused. The
//! walk follows prost's semantics: a repeated scalar or string field means the last one
//! wins, a repeated `dimensions` merges field by field, every `tags` and
//! `variants` entry appends, an absent field is its default; integers are
//! the varint's low bits (`int32` keeps 32 of them), `bool` is "not zero".
//!
//! Errors, the same for the view and the owned decode: the whole
//! `Catalog` walk first (a malformed top-level field anywhere is reported
//! before any product is read); then per product, a malformed field at its
//! own offset, a `tags` or `variants` list over the model's limit at the
//! product's key, anything prost refuses (a known field with the wrong wire
//! type, invalid UTF-8, a malformed submessage) at the product's key, an
//! unknown `status` at its value, a validation failure at the product's key.

use super::fields::{self as f, CATALOG_PRODUCTS as PRODUCTS, key};
use super::wire::{self, Key, WireType};
use crate::codec::cursor::Cursor;
use crate::codec::view::{ProductReader, ProductView, Text, VariantView, check_list};
use crate::codec::{DecodeError, utf8};
use crate::model::{self, Dimensions, MAX_TAGS, MAX_VARIANTS, Status};

/// Fewest bytes a valid product takes: its key and length (2), `id >= 1`
/// (key + varint: 2) and a 3-letter `currency` (key + length + 3: 5); every
/// other field may be absent.
pub(super) const PRODUCT_MIN_BYTES: usize = 9;

/// Decodes and validates a whole payload into a view that borrows it.
pub fn decode_view(bytes: &[u8]) -> Result<(usize, ViewReader<'_>), DecodeError> {
    read(bytes, |_, _| {})
}

/// [`decode_view`], handing each product to `each` once it is read and
/// checked, with the number of `products` entries the payload holds (the
/// owned [`decode`](super::decode) sizes its vector by it, then copies each
/// product there).
#[inline]
pub(super) fn read<'a>(
    bytes: &'a [u8],
    mut each: impl FnMut(usize, &ProductView<'a>),
) -> Result<(usize, ViewReader<'a>), DecodeError> {
    // The top level first: every key and length of the `Catalog` is checked
    // before any product is read.
    let entries = walk(bytes)?;
    let start = ViewReader { c: Cursor::new(bytes) };
    let mut list = start.clone();
    let count = check_list(&mut list, PRODUCT_MIN_BYTES, |p| each(entries, p))?;
    Ok((count, start))
}

/// Walks the `Catalog`'s fields and counts its `products` entries.
fn walk(bytes: &[u8]) -> Result<usize, DecodeError> {
    let (mut c, mut count) = (Cursor::new(bytes), 0);
    while entry(&mut c)?.is_some() {
        count += 1;
    }
    Ok(count)
}

/// A `products` entry: its key's offset, its body's offset, its body.
type Entry<'a> = (usize, usize, &'a [u8]);

/// The next `products` entry from `c` on: its key's offset and its body
/// with the body's offset, `None` at the end. Each entry must be
/// length-delimited, and every other field is skipped by wire type as
/// proto3 readers must (groups included, up to [`wire::GROUP_DEPTH`] deep).
#[inline]
fn entry<'a>(c: &mut Cursor<'a>) -> Result<Option<Entry<'a>>, DecodeError> {
    while !c.is_empty() {
        let at = c.pos();
        let raw = wire::read_varint(c, "field key")?;
        if raw == key::CATALOG_PRODUCTS {
            let (body_at, body) = wire::read_len(c, "length of a product", "product")?;
            return Ok(Some((at, body_at, body)));
        }
        let key = Key::parse(at, raw)?;
        if key.number == PRODUCTS {
            return Err(DecodeError::unexpected(
                at,
                "wire type 2 (LEN) for Catalog.products",
                format!("wire type {}", key.wire_type.number()),
            ));
        }
        wire::skip(c, key, 0)?;
    }
    Ok(None)
}

/// The `Catalog`'s fields, at the next one ([`walk`] has checked them all).
#[derive(Clone)]
pub struct ViewReader<'a> {
    c: Cursor<'a>,
}

impl<'a> ProductReader<'a> for ViewReader<'a> {
    fn next_product(&mut self, index: usize, p: &mut ProductView<'a>) -> Result<Option<usize>, DecodeError> {
        let Some((at, body_at, body)) = entry(&mut self.c)? else {
            return Ok(None);
        };
        product(body, body_at, at, index, p)?;
        Ok(Some(at))
    }

    fn remaining(&self) -> usize {
        self.c.remaining()
    }
}

/// What prost would refuse in a product whose fields are well formed.
/// Which one does not matter: the owned decoder reports each at the
/// product's key, with prost's message.
#[derive(Debug)]
enum Refused {
    /// A known field with another wire type than the schema's.
    WireType { found: WireType, want: WireType },
    /// A string field whose bytes are not UTF-8.
    Utf8,
    /// A malformed nested message (`Dimensions`, `Variant`).
    Message(&'static str),
}

impl Refused {
    /// prost's wording for what it would refuse in `Product` field `number`.
    #[cold]
    fn message(&self, number: u32) -> String {
        // prost's names of the wire types (its `WireType`'s Debug).
        let name = |t: WireType| match t {
            WireType::Varint => "Varint",
            WireType::I64 => "SixtyFourBit",
            WireType::Len => "LengthDelimited",
            WireType::StartGroup => "StartGroup",
            WireType::EndGroup => "EndGroup",
            WireType::I32 => "ThirtyTwoBit",
        };
        let field = f::product_field_name(number);
        let what = match self {
            Refused::WireType { found, want } => {
                format!("invalid wire type: {} (expected {})", name(*found), name(*want))
            }
            Refused::Utf8 => "invalid string value: data is not UTF-8 encoded".to_string(),
            Refused::Message(m) => m.to_string(),
        };
        format!("failed to decode Protobuf message: Product.{field}: {what}")
    }
}

/// The schema's wire type of `Product` field `number` (`None` for a number
/// the schema does not define).
fn schema_wire_type(number: u32) -> Option<WireType> {
    match number {
        f::RATING => Some(WireType::I64),
        f::SKU | f::NAME | f::DESCRIPTION | f::CURRENCY | f::TAGS | f::DIMENSIONS | f::VARIANTS | f::IMAGE_URL => {
            Some(WireType::Len)
        }
        f::ID..=f::IMAGE_URL => Some(WireType::Varint),
        _ => None,
    }
}

/// The product in `body` (at `body_at` in the payload, its key at `key_at`).
fn product<'a>(
    body: &'a [u8],
    body_at: usize,
    key_at: usize,
    index: usize,
    p: &mut ProductView<'a>,
) -> Result<(), DecodeError> {
    // Absent fields read as their defaults (field by field: the lists'
    // slots past their length are out of reach, so need no clearing).
    reset(p);
    let mut refused: Option<(u32, Refused)> = None;
    let mut status: Option<(usize, i32)> = None;
    let mut c = Cursor::new(body);
    let at = |e: DecodeError| DecodeError {
        offset: body_at + e.offset,
        ..e
    };
    macro_rules! refuse {
        ($number:expr, $r:expr) => {{
            refused.get_or_insert(($number, $r));
        }};
    }
    macro_rules! varint {
        () => {
            wire::read_varint(&mut c, "varint").map_err(at)?
        };
    }
    macro_rules! len {
        () => {
            wire::read_len(&mut c, "length", "LEN value").map_err(at)?.1
        };
    }
    macro_rules! text {
        ($slot:expr, $number:expr) => {
            match utf8::str_at(0, len!()) {
                Ok(s) => $slot = Text::plain(s),
                Err(_) => refuse!($number, Refused::Utf8),
            }
        };
    }
    // Every field is walked, even after something prost refuses: a
    // malformed field later in the product is the error the owned decoder
    // reports first (it counts the lists before prost reads the product).
    while !c.is_empty() {
        let key_pos = c.pos();
        let raw = wire::read_varint(&mut c, "field key").map_err(at)?;
        match raw {
            key::ID => p.id = varint!() as i64,
            key::SKU => text!(p.sku, f::SKU),
            key::NAME => text!(p.name, f::NAME),
            key::DESCRIPTION => text!(p.description, f::DESCRIPTION),
            key::PRICE_CENTS => p.price_cents = varint!() as i64,
            key::CURRENCY => text!(p.currency, f::CURRENCY),
            key::RATING => p.rating = f64::from_le_bytes(c.array::<8>("8-byte I64 value").map_err(at)?),
            key::REVIEW_COUNT => p.review_count = varint!() as i32,
            key::IN_STOCK => p.in_stock = varint!() != 0,
            key::STOCK => p.stock = varint!() as i32,
            key::STATUS => status = Some((body_at + c.pos(), varint!() as i32)),
            key::TAGS => {
                // Counted even when prost refuses it: the owned decoder
                // counts the list (by key) before prost reads it.
                let s = utf8::str_at(0, len!()).ok();
                p.tags.push(s.map(Text::plain).unwrap_or_default());
                if s.is_none() {
                    refuse!(f::TAGS, Refused::Utf8);
                }
            }
            key::DIMENSIONS => {
                if !dimensions(len!(), &mut p.dimensions) {
                    refuse!(f::DIMENSIONS, Refused::Message("invalid Dimensions message"));
                }
            }
            key::VARIANTS => match variant(len!()) {
                Ok(v) => p.variants.push(v),
                Err(r) => {
                    p.variants.push(VariantView::default());
                    refuse!(f::VARIANTS, r);
                }
            },
            key::DISCOUNT_PERCENT => p.discount_percent = Some(varint!() as i32),
            key::CREATED_AT_MS => p.created_at_ms = varint!() as i64,
            key::IMAGE_URL => text!(p.image_url, f::IMAGE_URL),
            _ => {
                // Another wire type for a known field, which prost refuses
                // (the value is skipped as the list count skips it), or an
                // unknown field.
                let key = Key::parse(key_pos, raw).map_err(at)?;
                if let Some(want) = schema_wire_type(key.number) {
                    refuse!(
                        key.number,
                        Refused::WireType {
                            found: key.wire_type,
                            want
                        }
                    );
                }
                wire::skip(&mut c, key, 0).map_err(at)?;
            }
        }
    }
    for (field, count, max) in [
        ("tags", p.tags.len(), MAX_TAGS),
        ("variants", p.variants.len(), MAX_VARIANTS),
    ] {
        if count > max {
            let e = model::too_many_items(index, field, max, format_args!("found {count}"));
            return Err(DecodeError::invalid(key_at, e));
        }
    }
    if let Some((number, r)) = refused {
        let message = format!("{} in products[{index}]", r.message(number));
        return Err(DecodeError::library(key_at, "prost", message));
    }
    if let Some((value_at, v)) = status {
        p.status = Status::from_index(i64::from(v)).ok_or_else(|| DecodeError::unknown_enum(value_at, "Status", v))?;
    }
    Ok(())
}

/// Sets every field of `p` to its default, as `ProductView::default()` does
/// but without rewriting the lists' unused slots.
#[inline]
fn reset(p: &mut ProductView<'_>) {
    p.id = 0;
    p.sku = Text::default();
    p.name = Text::default();
    p.description = Text::default();
    p.price_cents = 0;
    p.currency = Text::default();
    p.rating = 0.0;
    p.review_count = 0;
    p.in_stock = false;
    p.stock = 0;
    p.status = Status::Active;
    p.tags.clear();
    p.dimensions = Dimensions::default();
    p.variants.clear();
    p.discount_percent = None;
    p.created_at_ms = 0;
    p.image_url = Text::default();
}

/// Merges a `Dimensions` message into `d` (prost merges repeated
/// occurrences of a message field); `false` if prost would refuse it.
#[inline]
fn dimensions(body: &[u8], d: &mut Dimensions) -> bool {
    let mut c = Cursor::new(body);
    while !c.is_empty() {
        let Ok(raw) = wire::read_varint(&mut c, "field key") else {
            return false;
        };
        let slot = match raw {
            key::WIDTH_MM => &mut d.width_mm,
            key::HEIGHT_MM => &mut d.height_mm,
            key::DEPTH_MM => &mut d.depth_mm,
            key::WEIGHT_G => &mut d.weight_g,
            _ => match Key::parse(0, raw) {
                // A known field with another wire type, or a malformed one.
                Ok(k) if (f::WIDTH_MM..=f::WEIGHT_G).contains(&k.number) => return false,
                Ok(k) if wire::skip(&mut c, k, 1).is_ok() => continue,
                _ => return false,
            },
        };
        let Ok(v) = wire::read_varint(&mut c, "varint") else {
            return false;
        };
        *slot = v as i32;
    }
    true
}

/// One `Variant` message. Any error is prost's to report.
#[inline]
fn variant(body: &[u8]) -> Result<VariantView<'_>, Refused> {
    let mut v = VariantView::default();
    let mut c = Cursor::new(body);
    let bad = |_| Refused::Message("invalid Variant message");
    while !c.is_empty() {
        let raw = wire::read_varint(&mut c, "field key").map_err(bad)?;
        let slot = match raw {
            key::VARIANT_SKU => &mut v.sku,
            key::COLOR => &mut v.color,
            key::SIZE => &mut v.size,
            key::VARIANT_PRICE_CENTS => {
                v.price_cents = wire::read_varint(&mut c, "varint").map_err(bad)? as i64;
                continue;
            }
            key::VARIANT_STOCK => {
                v.stock = wire::read_varint(&mut c, "varint").map_err(bad)? as i32;
                continue;
            }
            _ => {
                let k = Key::parse(0, raw).map_err(bad)?;
                if (f::VARIANT_SKU..=f::VARIANT_STOCK).contains(&k.number) {
                    return Err(Refused::Message("invalid wire type in Variant"));
                }
                wire::skip(&mut c, k, 1).map_err(bad)?;
                continue;
            }
        };
        let (_, s) = wire::read_len(&mut c, "length", "LEN value").map_err(bad)?;
        *slot = Text::plain(utf8::str_at(0, s).map_err(|_| Refused::Message("invalid string value in Variant"))?);
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::Format;
    use crate::fixtures;

    /// A product read into a view that held another one keeps nothing of it.
    #[test]
    fn reset_leaves_only_defaults() {
        let c = fixtures::catalog(3);
        let bytes = Format::Protobuf.encode_to_vec(&c.products).unwrap();
        let view = Format::Protobuf.decode_view(&bytes).unwrap();
        let mut p = view.iter().nth(1).unwrap().unwrap();
        p.discount_percent = Some(5);
        p.status = Status::Draft;
        reset(&mut p);
        assert_eq!(p, ProductView::default());
    }

    #[test]
    fn repeated_fields_follow_prost() {
        // id twice (last wins), dimensions twice (merged), a tag, status 2.
        let body: &[u8] = &[
            0x08, 0x05, // id 5
            0x08, 0x07, // id 7
            0x32, 0x03, b'T', b'H', b'B', // currency
            0x6a, 0x02, 0x08, 0x01, // dimensions { width 1 }
            0x6a, 0x02, 0x10, 0x02, // dimensions { height 2 }
            0x62, 0x01, b'x', // tag "x"
            0x58, 0x02, // status 2
        ];
        let mut bytes = vec![0x0a, body.len() as u8];
        bytes.extend_from_slice(body);
        let owned = Format::Protobuf.decode(&bytes).unwrap();
        let view = crate::codec::Format::Protobuf.decode_view(&bytes).unwrap();
        assert_eq!(view.to_catalog().unwrap(), owned);
        let p = view.iter().next().unwrap().unwrap();
        assert_eq!((p.id, p.dimensions.width_mm, p.dimensions.height_mm), (7, 1, 2));
        assert_eq!(p.status, Status::Discontinued);
    }
}
