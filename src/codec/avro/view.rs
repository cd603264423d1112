//! The Avro borrowed view: the datum read in place, strings as slices of
//! the payload.
//!
//! # Wire format
//!
//! The one [`read`](super::read) reads (see the module doc of
//! [`avro`](super)): fields in schema order, zigzag varints, length-prefixed
//! strings, arrays in blocks (a negative count is followed by the block's
//! byte size). The scalar readers are the owned decoder's
//! ([`Reader`]); the block loop is restated here because the owned one
//! collects into a `Vec` — it makes the same checks in the same order: count
//! against the input, the model's list limit at the block count, the byte
//! size of a sized block against what its items took.

use super::read::{PRODUCT_MIN_BYTES, Reader, TAG_MIN_BYTES, VARIANT_MIN_BYTES};
use crate::codec::cursor::Cursor;
use crate::codec::view::{ProductReader, ProductView, VariantView, check_list};
use crate::codec::{DecodeError, view::Text};
use crate::model::{self, Dimensions, MAX_TAGS, MAX_VARIANTS};

/// Decodes and validates a whole payload into a view that borrows it.
pub fn decode_view(bytes: &[u8]) -> Result<(usize, ViewReader<'_>), DecodeError> {
    let start = ViewReader {
        r: Reader { c: Cursor::new(bytes) },
        block: Block::default(),
        done: false,
    };
    let mut list = start.clone();
    let count = check_list(&mut list, PRODUCT_MIN_BYTES as usize, |_| {})?;
    list.r.c.finish()?;
    Ok((count, start))
}

/// Where a reader is inside a blocked array.
#[derive(Clone, Copy, Default)]
struct Block {
    /// Items left in the current block.
    left: usize,
    /// Items in the blocks read so far.
    total: usize,
    /// For a sized block (negative count): where its items began and the
    /// byte size it declared.
    sized: Option<(usize, u64)>,
}

/// How one array is checked: its block count's name, the smallest encoding
/// of an item, and the model's limit with the owning product's index.
struct Items {
    what: &'static str,
    min_item_bytes: u64,
    limit: Option<(usize, &'static str, usize)>,
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

/// Moves to the next item of an array: reads block headers as needed.
/// `false` at the array's end (the zero count).
fn next_item(r: &mut Reader<'_>, b: &mut Block, items: &Items) -> Result<bool, DecodeError> {
    while b.left == 0 {
        end_block(r, b)?;
        let count_at = r.c.pos();
        let raw = r.long(items.what)?;
        if raw == 0 {
            return Ok(false);
        }
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
        b.left = n;
        b.total += n;
    }
    b.left -= 1;
    Ok(true)
}

/// The products array.
pub struct ViewReader<'a> {
    r: Reader<'a>,
    block: Block,
    done: bool,
}

impl Clone for ViewReader<'_> {
    fn clone(&self) -> Self {
        ViewReader {
            r: Reader { c: self.r.c.clone() },
            block: self.block,
            done: self.done,
        }
    }
}

const PRODUCTS: Items = Items {
    what: "products block count",
    min_item_bytes: PRODUCT_MIN_BYTES,
    limit: None,
};

impl<'a> ProductReader<'a> for ViewReader<'a> {
    fn next_product(&mut self, index: usize, p: &mut ProductView<'a>) -> Result<Option<usize>, DecodeError> {
        if self.done || !next_item(&mut self.r, &mut self.block, &PRODUCTS)? {
            self.done = true;
            return Ok(None);
        }
        let at = self.r.c.pos();
        product(&mut self.r, index, p)?;
        Ok(Some(at))
    }

    fn remaining(&self) -> usize {
        self.r.c.remaining()
    }
}

/// `Product`: 17 fields in schema order.
fn product<'a>(r: &mut Reader<'a>, index: usize, p: &mut ProductView<'a>) -> Result<(), DecodeError> {
    p.id = r.long("id")?;
    p.sku = Text::plain(r.str("sku length")?);
    p.name = Text::plain(r.str("name length")?);
    p.description = Text::plain(r.str("description length")?);
    p.price_cents = r.long("price_cents")?;
    p.currency = Text::plain(r.str("currency length")?);
    p.rating = r.finite_double("rating")?;
    p.review_count = r.int("review_count")?;
    p.in_stock = r.boolean("in_stock")?;
    p.stock = r.int("stock")?;
    p.status = r.status()?;
    p.tags.clear();
    let tags = Items {
        what: "tags block count",
        min_item_bytes: TAG_MIN_BYTES,
        limit: Some((MAX_TAGS, "tags", index)),
    };
    let mut b = Block::default();
    while next_item(r, &mut b, &tags)? {
        p.tags.push(Text::plain(r.str("tag length")?));
    }
    p.dimensions = Dimensions {
        width_mm: r.int("dimensions.width_mm")?,
        height_mm: r.int("dimensions.height_mm")?,
        depth_mm: r.int("dimensions.depth_mm")?,
        weight_g: r.int("dimensions.weight_g")?,
    };
    let variants = Items {
        what: "variants block count",
        min_item_bytes: VARIANT_MIN_BYTES,
        limit: Some((MAX_VARIANTS, "variants", index)),
    };
    let mut b = Block::default();
    p.variants.clear();
    while next_item(r, &mut b, &variants)? {
        p.variants.push(VariantView {
            sku: Text::plain(r.str("variant sku length")?),
            color: Text::plain(r.str("variant color length")?),
            size: Text::plain(r.str("variant size length")?),
            price_cents: r.long("variant price_cents")?,
            stock: r.int("variant stock")?,
        });
    }
    p.discount_percent = r.discount()?;
    p.created_at_ms = r.long("created_at_ms")?;
    p.image_url = Text::plain(r.str("image_url length")?);
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::codec::Format;
    use crate::fixtures;

    #[test]
    fn view_equals_the_owned_decode() {
        let c = fixtures::catalog(20);
        let bytes = Format::Avro.encode_to_vec(&c.products).unwrap();
        let view = crate::codec::Format::Avro.decode_view(&bytes).unwrap();
        assert_eq!(view.len(), 20);
        assert_eq!(view.to_catalog().unwrap(), c);
    }

    #[test]
    fn sized_blocks_are_checked_like_the_owned_decoder() {
        // One product in a sized block whose declared size is one byte short.
        let c = fixtures::catalog(1);
        let bytes = Format::Avro.encode_to_vec(&c.products).unwrap();
        let body = &bytes[1..bytes.len() - 1];
        for size in [body.len() as i64 - 1, body.len() as i64, body.len() as i64 + 1] {
            let mut forged = vec![0x01]; // zigzag(-1): one item, sized
            crate::codec::varint::write_i64_zigzag(&mut forged, size);
            forged.extend_from_slice(body);
            forged.push(0);
            let owned = Format::Avro.decode(&forged);
            let view = crate::codec::Format::Avro
                .decode_view(&forged)
                .and_then(|v| v.to_catalog());
            assert_eq!(view, owned, "size {size}");
        }
    }
}
