//! The Avro products array, read once for both decodes: the borrowed view
//! ([`decode_view`]: strings stay slices of the payload) and the owned decode
//! ([`decode`]: each string copied as it is read). [`ViewReader`] walks the
//! array block by block with [`next_item`] (a negative count is followed by
//! the block's byte size) and reads each product with [`read::product`],
//! generic over what it fills ([`ProductOut`]): one grammar, one set of checks
//! and error offsets, and [`collect_list`] (owned) or [`check_list`] (view)
//! validates each product and the ids as it goes.

use super::read::{self, Block, Items, PRODUCT_MIN_BYTES, Reader, next_item};
use crate::codec::DecodeError;
use crate::codec::cursor::Cursor;
use crate::codec::view::{ProductOut, ProductReader, ProductView, check_list, collect_list};
use crate::model::Catalog;

/// Decodes and validates a whole payload into a view that borrows it.
pub fn decode_view(bytes: &[u8]) -> Result<(usize, ViewReader<'_>), DecodeError> {
    let start = ViewReader::new(bytes);
    let mut list = start.clone();
    let count = check_list(&mut list, PRODUCT_MIN_BYTES as usize, |_| {})?;
    list.r.c.finish()?;
    Ok((count, start))
}

/// Decodes a whole payload into a validated catalog.
pub fn decode(bytes: &[u8]) -> Result<Catalog, DecodeError> {
    let mut list = ViewReader::new(bytes);
    // Room for the first block's count, as far as the input could hold it.
    let first = list.r.clone().long("").map_or(0, i64::unsigned_abs);
    let room = first.min(bytes.len() as u64 / PRODUCT_MIN_BYTES) as usize;
    let next = |l: &mut ViewReader<'_>, i, p: &mut _| l.next_into(i, p);
    let products = collect_list(&mut list, PRODUCT_MIN_BYTES as usize, room, next)?;
    list.r.c.finish()?;
    Ok(Catalog { products })
}

/// The products array: a reader at the next product, and where it is in
/// the array's blocks.
#[derive(Clone)]
pub struct ViewReader<'a> {
    r: Reader<'a>,
    block: Block,
    done: bool,
}

const PRODUCTS: Items = Items {
    what: "products block count",
    min_item_bytes: PRODUCT_MIN_BYTES,
    limit: None,
};

impl<'a> ViewReader<'a> {
    fn new(bytes: &'a [u8]) -> ViewReader<'a> {
        ViewReader {
            r: Reader { c: Cursor::new(bytes) },
            block: Block::default(),
            done: false,
        }
    }

    /// Reads the next product into `p`; `None` at the end of the array, else
    /// the offset of the product's first byte (where validation errors go).
    #[inline(always)]
    fn next_into<P: ProductOut<'a>>(&mut self, index: usize, p: &mut P) -> Result<Option<usize>, DecodeError> {
        if self.done || next_item(&mut self.r, &mut self.block, &PRODUCTS)?.is_none() {
            self.done = true;
            return Ok(None);
        }
        let at = self.r.c.pos();
        read::product(&mut self.r, index, p)?;
        Ok(Some(at))
    }
}

impl<'a> ProductReader<'a> for ViewReader<'a> {
    fn next_product(&mut self, index: usize, p: &mut ProductView<'a>) -> Result<Option<usize>, DecodeError> {
        self.next_into(index, p)
    }

    fn remaining(&self) -> usize {
        self.r.c.remaining()
    }
}

#[cfg(test)]
mod tests {
    use crate::codec::Format;
    use crate::fixtures;

    #[test]
    fn sized_blocks_are_checked() {
        // One product in a sized block whose declared size is one byte short,
        // exact, and one byte long.
        let c = fixtures::catalog(1);
        let bytes = Format::Avro.encode_to_vec(&c.products).unwrap();
        let body = &bytes[1..bytes.len() - 1];
        for (size, ok) in [(body.len() - 1, false), (body.len(), true), (body.len() + 1, false)] {
            let mut forged = vec![0x01]; // zigzag(-1): one item, sized
            crate::codec::varint::write_i64_zigzag(&mut forged, size as i64);
            forged.extend_from_slice(body);
            forged.push(0);
            let owned = Format::Avro.decode(&forged);
            assert_eq!(owned.is_ok(), ok, "size {size}");
            let view = Format::Avro.decode_view(&forged).and_then(|v| v.to_catalog());
            assert_eq!(view, owned, "size {size}");
        }
    }
}
