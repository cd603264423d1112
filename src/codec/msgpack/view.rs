//! The MessagePack borrowed view: the catalog read in place, strings as
//! slices of the payload.
//!
//! # Wire format
//!
//! The one [`read`](super::read) reads (see the module doc of
//! [`msgpack`](super)): a map holding `"products"`, an array of product maps
//! with string keys in any order. Every value goes through the same
//! primitives as the owned decoder (`read_int`, `read_str`, `read_key`,
//! `skip_value`, …), so the checks and error offsets are the same; only the
//! destination differs — a [`ProductView`] on the stack instead of a
//! `Product` with a `String` per field.

use super::read::{
    self, Field, PRODUCT, PRODUCT_MIN_BYTES, PRODUCTS, TAG, VARIANT, list_len, read_array_len, read_bool, read_f64,
    read_i32, read_int, read_key, read_map_len, read_str, skip_value,
};
use crate::codec::DecodeError;
use crate::codec::cursor::Cursor;
use crate::codec::record::{self, Seen};
use crate::codec::view::{ProductReader, ProductView, Text, VariantView, check_list};
use crate::model::{MAX_TAGS, MAX_VARIANTS};

/// Decodes and validates a whole payload into a view that borrows it.
pub fn decode_view(bytes: &[u8]) -> Result<(usize, ViewReader<'_>), DecodeError> {
    let mut cur = Cursor::new(bytes);
    let view = read::read_envelope(&mut cur, None, |cur| {
        let left = read_array_len(cur, &PRODUCTS)?;
        let start = ViewReader { cur: cur.clone(), left };
        let mut list = start.clone();
        let count = check_list(&mut list, PRODUCT_MIN_BYTES, |_| {})?;
        *cur = list.cur;
        Ok((count, start))
    })?;
    cur.finish()?;
    Ok(view)
}

/// The products array: a cursor at the next product and how many are left.
#[derive(Clone)]
pub struct ViewReader<'a> {
    cur: Cursor<'a>,
    left: usize,
}

impl<'a> ProductReader<'a> for ViewReader<'a> {
    fn next_product(&mut self, index: usize, p: &mut ProductView<'a>) -> Result<Option<usize>, DecodeError> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        let at = self.cur.pos();
        product(&mut self.cur, index, p)?;
        Ok(Some(at))
    }

    fn remaining(&self) -> usize {
        self.cur.remaining()
    }
}

/// One product map: 17 known keys in any order (the order of (docs/SPEC.md, "Field order") tried first),
/// others skipped; a repeated or missing key is an error.
fn product<'a>(cur: &mut Cursor<'a>, index: usize, p: &mut ProductView<'a>) -> Result<(), DecodeError> {
    const DEPTH: usize = 3; // catalog map, products array, product map
    let (map_at, pairs) = read_map_len(cur, "a product map")?;
    // Every field is required: each is written below before the map ends.
    let (mut seen, mut hint) = (Seen::default(), 0);
    for _ in 0..pairs {
        let (key_at, i) = read_key(cur, &PRODUCT, hint, "a string key in a product map")?;
        let Some(i) = i else {
            skip_value(cur, DEPTH)?;
            continue;
        };
        seen.mark(i, key_at, || PRODUCT[i].name)?;
        hint = i + 1;
        field(cur, p, i, index)?;
    }
    seen.check(record::all(PRODUCT.len()), map_at, |i| PRODUCT[i].name)
}

#[inline(always)]
fn text<'a>(cur: &mut Cursor<'a>, f: &Field) -> Result<Text<'a>, DecodeError> {
    read_str(cur, f).map(Text::plain)
}

/// Reads the value of `PRODUCT[i]` into `p`.
#[inline(always)]
fn field<'a>(cur: &mut Cursor<'a>, p: &mut ProductView<'a>, i: usize, index: usize) -> Result<(), DecodeError> {
    let f = &PRODUCT[i];
    match i {
        0 => p.id = read_int(cur, f)?,
        1 => p.sku = text(cur, f)?,
        2 => p.name = text(cur, f)?,
        3 => p.description = text(cur, f)?,
        4 => p.price_cents = read_int(cur, f)?,
        5 => p.currency = text(cur, f)?,
        6 => p.rating = read_f64(cur, f)?,
        7 => p.review_count = read_i32(cur, f)?,
        8 => p.in_stock = read_bool(cur, f)?,
        9 => p.stock = read_i32(cur, f)?,
        10 => p.status = read::read_status(cur, f)?,
        11 => {
            let n = list_len(cur, f, index, "tags", MAX_TAGS)?;
            p.tags.clear();
            for _ in 0..n {
                p.tags.push(text(cur, &TAG)?);
            }
        }
        12 => p.dimensions = read::read_dimensions(cur)?,
        13 => {
            let n = list_len(cur, f, index, "variants", MAX_VARIANTS)?;
            p.variants.clear();
            for _ in 0..n {
                p.variants.push(variant(cur)?);
            }
        }
        14 => {
            p.discount_percent = if cur.peek() == Some(super::marker::Marker::Nil.to_u8()) {
                cur.u8(f.expected)?;
                None
            } else {
                Some(read_i32(cur, f)?)
            }
        }
        15 => p.created_at_ms = read_int(cur, f)?,
        _ => p.image_url = text(cur, f)?,
    }
    Ok(())
}

fn variant<'a>(cur: &mut Cursor<'a>) -> Result<VariantView<'a>, DecodeError> {
    const DEPTH: usize = 5; // … product map, variants array, variant map
    let (map_at, pairs) = read_map_len(cur, "a variant map")?;
    let mut v = VariantView::default();
    let (mut seen, mut hint) = (Seen::default(), 0);
    for _ in 0..pairs {
        let (key_at, i) = read_key(cur, &VARIANT, hint, "a string key in a variant map")?;
        let Some(i) = i else {
            skip_value(cur, DEPTH)?;
            continue;
        };
        seen.mark(i, key_at, || VARIANT[i].name)?;
        hint = i + 1;
        let f = &VARIANT[i];
        match i {
            0 => v.sku = text(cur, f)?,
            1 => v.color = text(cur, f)?,
            2 => v.size = text(cur, f)?,
            3 => v.price_cents = read_int(cur, f)?,
            _ => v.stock = read_i32(cur, f)?,
        }
    }
    seen.check(record::all(VARIANT.len()), map_at, |i| VARIANT[i].name)?;
    Ok(v)
}

#[cfg(test)]
mod tests {
    use crate::fixtures;

    #[test]
    fn view_equals_the_owned_decode() {
        let c = fixtures::catalog(20);
        let bytes = crate::codec::Format::Msgpack.encode_to_vec(&c.products).unwrap();
        let view = crate::codec::Format::Msgpack.decode_view(&bytes).unwrap();
        assert_eq!(view.len(), 20);
        assert_eq!(view.to_catalog().unwrap(), c);
        let first = view.iter().next().unwrap().unwrap();
        assert_eq!(first.sku.as_str(), Some(c.products[0].sku.as_str()));
    }
}
