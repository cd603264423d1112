//! The MessagePack products array, read once for both decodes: the borrowed
//! view ([`decode_view`]: strings stay slices of the payload) and the owned
//! decode ([`decode_owned`]: each string copied as it is read). [`ViewReader`]
//! walks the array with [`read::read_product`], generic over what it fills
//! ([`ProductOut`]): one grammar, one set of checks and error offsets, and
//! [`collect_list`] (owned) or [`check_list`] (view) validates each product
//! and the ids as it goes.

use super::read::{self, PRODUCT_MIN_BYTES, PRODUCTS, read_array_len};
use crate::codec::DecodeError;
use crate::codec::cursor::Cursor;
use crate::codec::view::{ProductOut, ProductReader, ProductView, check_list, collect_list};
use crate::model::Catalog;

/// Decodes and validates a whole payload into a view that borrows it.
pub fn decode_view(bytes: &[u8]) -> Result<(usize, ViewReader<'_>), DecodeError> {
    let mut cur = Cursor::new(bytes);
    let view = read::read_envelope(&mut cur, None, |cur| {
        let start = ViewReader::new(cur, false)?;
        let mut list = start.clone();
        let count = check_list(&mut list, PRODUCT_MIN_BYTES, |_| {})?;
        *cur = list.cur;
        Ok((count, start))
    })?;
    cur.finish()?;
    Ok(view)
}

/// Decodes a whole payload into a validated catalog; trailing bytes after
/// the root map are an error. With `tolerant`, a missing key takes its
/// field's zero value and a missing `products` is an empty catalog.
pub(crate) fn decode_owned(bytes: &[u8], tolerant: bool) -> Result<Catalog, DecodeError> {
    let mut cur = Cursor::new(bytes);
    let products = read::read_envelope(&mut cur, tolerant.then(Vec::new), |cur| {
        let mut list = ViewReader::new(cur, tolerant)?;
        let room = list.left.min(cur.remaining() / PRODUCT_MIN_BYTES);
        let next = |l: &mut ViewReader<'_>, i, p: &mut _| l.next_into(i, p);
        let products = collect_list(&mut list, PRODUCT_MIN_BYTES, room, next)?;
        *cur = list.cur;
        Ok(products)
    })?;
    cur.finish()?;
    Ok(Catalog { products })
}

/// The products array: a cursor at the next product, how many are left, and
/// whether a missing key is allowed (the tolerant owned decode).
#[derive(Clone)]
pub struct ViewReader<'a> {
    cur: Cursor<'a>,
    left: usize,
    tolerant: bool,
}

impl<'a> ViewReader<'a> {
    /// Reads the products array's header at `cur`: a reader at its first product.
    fn new(cur: &mut Cursor<'a>, tolerant: bool) -> Result<ViewReader<'a>, DecodeError> {
        let left = read_array_len(cur, &PRODUCTS)?;
        Ok(ViewReader {
            cur: cur.clone(),
            left,
            tolerant,
        })
    }

    /// Reads the next product into `p`; `None` at the end of the array, else
    /// the offset of the product's map (where validation errors go).
    #[inline(always)]
    fn next_into<P: ProductOut<'a>>(&mut self, index: usize, p: &mut P) -> Result<Option<usize>, DecodeError> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        let at = self.cur.pos();
        read::read_product(&mut self.cur, p, index, self.tolerant)?;
        Ok(Some(at))
    }
}

impl<'a> ProductReader<'a> for ViewReader<'a> {
    fn next_product(&mut self, index: usize, p: &mut ProductView<'a>) -> Result<Option<usize>, DecodeError> {
        self.next_into(index, p)
    }

    fn remaining(&self) -> usize {
        self.cur.remaining()
    }
}
