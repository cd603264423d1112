//! The Avro reader: one binary datum of `Catalog` in schema order, walked
//! once for both decodes. [`Reader`] reads the primitives, [`next_item`] the
//! blocks of an array, and [`product`] one `Product` into whichever
//! [`ProductOut`] it is given: the borrowed view or the owned model
//! ([`view`](super::view) runs the list).
//!
//! The input is untrusted. Every length and block count goes through
//! [`Cursor`] and is compared with what remains *before* anything is sliced or
//! allocated (a block of n items needs at least n × the item's smallest
//! encoding), so a 2^63 string length or block count costs an error, not an
//! allocation. Every error carries the byte offset where it was found.

use crate::codec::cursor::Cursor;
use crate::codec::utf8::str_at;
use crate::codec::view::{List, ProductOut, Set, SetVariant, VariantOut};
use crate::codec::{DecodeError, varint};
use crate::model::{self, Dimensions, MAX_TAGS, MAX_VARIANTS, Status};

/// Smallest possible encoding of a `Product`: one byte for each varint,
/// string length, boolean, enum, union index and empty array (13 + 4
/// dimensions), plus the 8-byte `rating`.
pub(crate) const PRODUCT_MIN_BYTES: u64 = 27;
/// Smallest `Variant`: three empty strings, two one-byte varints.
pub(crate) const VARIANT_MIN_BYTES: u64 = 5;
/// Smallest tag: the empty string's one-byte length.
pub(crate) const TAG_MIN_BYTES: u64 = 1;

/// How one array is checked: its block count's name, the smallest encoding
/// of an item, and the model's limit with the owning product's index.
pub(crate) struct Items {
    pub(crate) what: &'static str,
    pub(crate) min_item_bytes: u64,
    pub(crate) limit: Option<(usize, &'static str, usize)>,
}

/// Where a reader is inside a blocked array.
#[derive(Clone, Copy, Default)]
pub(crate) struct Block {
    /// Items left in the current block.
    left: usize,
    /// Items in the blocks read so far.
    total: usize,
    /// For a sized block (negative count): where its items began and the
    /// byte size it declared.
    sized: Option<(usize, u64)>,
}

#[derive(Clone)]
pub(crate) struct Reader<'a> {
    pub(crate) c: Cursor<'a>,
}

impl<'a> Reader<'a> {
    /// `string`: a non-negative `long` byte length, then that many bytes of
    /// UTF-8, borrowed. The length is checked against the remaining input first.
    #[inline]
    pub(crate) fn str(&mut self, what: &'static str) -> Result<&'a str, DecodeError> {
        let (start, bytes) = self.string_bytes(what)?;
        str_at(start, bytes)
    }

    /// A `string`'s length and bytes, not yet checked as UTF-8, with the
    /// offset of its first byte.
    #[inline]
    fn string_bytes(&mut self, what: &'static str) -> Result<(usize, &'a [u8]), DecodeError> {
        let at = self.c.pos();
        let len = self.long(what)?;
        let len = u64::try_from(len).map_err(|_| DecodeError::out_of_range(at, what, len))?;
        let start = self.c.pos();
        let bytes = self.c.take(len, what)?;
        Ok((start, bytes))
    }
}

impl Reader<'_> {
    /// `long`: LEB128 (at most 10 bytes, else an error) then zigzag, by
    /// [`varint::read_i64_zigzag_hot`] (one-byte values in line).
    #[inline(always)]
    pub(crate) fn long(&mut self, what: &'static str) -> Result<i64, DecodeError> {
        varint::read_i64_zigzag_hot(&mut self.c, what)
    }

    /// `int`: a `long` on the wire that must fit in 32 bits.
    #[inline]
    pub(crate) fn int(&mut self, what: &'static str) -> Result<i32, DecodeError> {
        let at = self.c.pos();
        let v = self.long(what)?;
        i32::try_from(v).map_err(|_| DecodeError::out_of_range(at, what, v))
    }

    /// `double`: 8 bytes little-endian; our one double (`rating`) must be finite.
    #[inline]
    pub(crate) fn finite_double(&mut self, what: &'static str) -> Result<f64, DecodeError> {
        let at = self.c.pos();
        let v = f64::from_le_bytes(self.c.array::<8>(what)?);
        if !v.is_finite() {
            return Err(DecodeError::out_of_range(at, what, v));
        }
        Ok(v)
    }

    /// `boolean`: exactly the byte 0 or 1.
    #[inline]
    pub(crate) fn boolean(&mut self, what: &'static str) -> Result<bool, DecodeError> {
        match self.c.u8(what)? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(DecodeError::unexpected(
                self.c.pos() - 1,
                "boolean byte 0x00 or 0x01",
                format!("{b:#04x}"),
            )),
        }
    }

    /// The byte size after a negative block count: ≥ 0 and within the input.
    pub(crate) fn block_size(&mut self) -> Result<u64, DecodeError> {
        let at = self.c.pos();
        let size = self.long("block byte size")?;
        let size = u64::try_from(size).map_err(|_| DecodeError::out_of_range(at, "block byte size", size))?;
        self.c.check_count(size, 1, "block byte size")?;
        Ok(size)
    }

    /// enum `Status`: the symbol index as an `int`, 0..=2.
    pub(crate) fn status(&mut self) -> Result<Status, DecodeError> {
        let at = self.c.pos();
        let i = self.long("status")?;
        Status::from_index(i).ok_or_else(|| DecodeError::unknown_enum(at, "Status", i))
    }

    /// union `["null","int"]`: branch 0 has no bytes, branch 1 an `int`.
    pub(crate) fn discount(&mut self) -> Result<Option<i32>, DecodeError> {
        let at = self.c.pos();
        match self.long("discount_percent union branch")? {
            0 => Ok(None),
            1 => self.int("discount_percent").map(Some),
            b => Err(DecodeError::unexpected(
                at,
                "discount_percent union branch 0 (null) or 1 (int)",
                format!("branch {b}"),
            )),
        }
    }
}

/// Moves to the next item of an array, reading block headers as needed:
/// `None` at the array's end (the zero count), else the items of a block
/// that starts here (0 inside a block, for the caller's reservation).
///
/// A negative count n means |n| items preceded by a `long` byte size of the
/// block, which must be ≥ 0, fit in the input, and equal the bytes the items
/// then take (spec, "Arrays"). The running item total is checked against the
/// input (at `min_item_bytes` each) and against the model's limit at the
/// block count, before any item is read.
#[inline]
pub(crate) fn next_item(r: &mut Reader<'_>, b: &mut Block, items: &Items) -> Result<Option<usize>, DecodeError> {
    if b.left > 0 {
        b.left -= 1;
        return Ok(Some(0));
    }
    end_block(r, b)?;
    let count_at = r.c.pos();
    let raw = r.long(items.what)?;
    if raw == 0 {
        return Ok(None);
    }
    // `unsigned_abs` maps i64::MIN to 2^63 without overflow; the count check
    // below then rejects it like any other oversized count.
    let count = raw.unsigned_abs();
    let sized = if raw < 0 { Some(r.block_size()?) } else { None };
    let n = r.c.check_count(count, items.min_item_bytes, items.what)?;
    if let Some((max, field, product)) = items.limit {
        let total = b.total + n;
        if total > max {
            let found = if b.total == 0 {
                format!("found {total}")
            } else {
                format!("found at least {total}")
            };
            let e = model::too_many_items(product, field, max, found);
            return Err(DecodeError::invalid(count_at, e));
        }
    }
    b.sized = sized.map(|size| (r.c.pos(), size));
    b.total += n;
    // n ≥ 1: the count is not zero, and `check_count` returns it as it is.
    b.left = n - 1;
    Ok(Some(n))
}

/// Ends the current block: a sized block must have taken exactly its size.
fn end_block(r: &Reader<'_>, b: &mut Block) -> Result<(), DecodeError> {
    if let Some((block_start, size)) = b.sized.take() {
        let used = (r.c.pos() - block_start) as u64;
        if used != size {
            return Err(DecodeError::unexpected(
                block_start,
                "a block byte size equal to the bytes of its items",
                format!("size {size}, items took {used} bytes"),
            ));
        }
    }
    Ok(())
}

/// `Product`: 17 fields in schema order, into `p`.
#[inline(always)]
pub(crate) fn product<'a, P: ProductOut<'a>>(r: &mut Reader<'a>, index: usize, p: &mut P) -> Result<(), DecodeError> {
    p.set(Set::Id(r.long("id")?));
    p.set(Set::Sku(r.str("sku length")?));
    p.set(Set::Name(r.str("name length")?));
    p.set(Set::Description(r.str("description length")?));
    p.set(Set::PriceCents(r.long("price_cents")?));
    p.set(Set::Currency(r.str("currency length")?));
    p.set(Set::Rating(r.finite_double("rating")?));
    p.set(Set::ReviewCount(r.int("review_count")?));
    p.set(Set::InStock(r.boolean("in_stock")?));
    p.set(Set::Stock(r.int("stock")?));
    p.set(Set::Status(r.status()?));
    let tags = Items {
        what: "tags block count",
        min_item_bytes: TAG_MIN_BYTES,
        limit: Some((MAX_TAGS, "tags", index)),
    };
    let mut b = Block::default();
    let list = p.tags();
    list.clear();
    while let Some(n) = next_item(r, &mut b, &tags)? {
        list.reserve(n);
        list.push(r.str("tag length")?.into());
    }
    p.set(Set::Dimensions(Dimensions {
        width_mm: r.int("dimensions.width_mm")?,
        height_mm: r.int("dimensions.height_mm")?,
        depth_mm: r.int("dimensions.depth_mm")?,
        weight_g: r.int("dimensions.weight_g")?,
    }));
    let variants = Items {
        what: "variants block count",
        min_item_bytes: VARIANT_MIN_BYTES,
        limit: Some((MAX_VARIANTS, "variants", index)),
    };
    let mut b = Block::default();
    let list = p.variants();
    list.clear();
    while let Some(n) = next_item(r, &mut b, &variants)? {
        list.reserve(n);
        list.push(variant(r)?);
    }
    p.set(Set::DiscountPercent(r.discount()?));
    p.set(Set::CreatedAtMs(r.long("created_at_ms")?));
    p.set(Set::ImageUrl(r.str("image_url length")?));
    Ok(())
}

/// `Variant`: 5 fields in schema order.
#[inline(always)]
fn variant<'a, V: VariantOut<'a>>(r: &mut Reader<'a>) -> Result<V, DecodeError> {
    let mut v = V::default();
    v.set(SetVariant::Sku(r.str("variant sku length")?));
    v.set(SetVariant::Color(r.str("variant color length")?));
    v.set(SetVariant::Size(r.str("variant size length")?));
    v.set(SetVariant::PriceCents(r.long("variant price_cents")?));
    v.set(SetVariant::Stock(r.int("variant stock")?));
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Variant;

    #[test]
    fn minimum_sizes_match_the_smallest_encodings() {
        // The smallest product: every number 0/1, strings empty, arrays empty.
        let p = crate::model::Product {
            id: 1,
            ..Default::default()
        };
        let mut out = Vec::new();
        super::super::encode(&[p], &mut out).unwrap();
        assert_eq!(out.len() as u64, 1 + PRODUCT_MIN_BYTES + 1, "count + product + end");
        let mut r = Reader {
            c: Cursor::new(&[0, 0, 0, 0, 0]),
        };
        assert_eq!(variant::<Variant>(&mut r).unwrap(), Variant::default());
        assert!(r.c.is_empty(), "VARIANT_MIN_BYTES = {VARIANT_MIN_BYTES}");
    }
}
