//! The FlatBuffers borrowed view: a one-pass check of the buffer, or the
//! generated accessors after the crate's verifier.
//!
//! # Wire format
//!
//! The buffer [`decode`](super::decode) reads (see the module doc of
//! [`flatbuffers`](super)): a root `Catalog` table whose `products` vector
//! holds offsets to `Product` tables.
//!
//! [`decode_view`] first runs the one-pass reader (`onepass.rs`): it makes
//! the verifier's checks object by object while reading each product in
//! place, its strings the buffer's own bytes, with the data model's rules
//! and unique ids, and accepts exactly the buffers the path below accepts.
//! The view then reads each product again through the same reader, from the
//! state it had the first time. Any buffer the one pass declines takes
//! [`verified_view`]: [`verified_root`] runs the verifier once (offsets,
//! alignment, UTF-8, required fields), after which every accessor reads in
//! place, and the checks the verifier cannot make — list limits, the status
//! enum, the data model's rules, unique ids — are the owned decoder's, in
//! its order and at its offsets. So every error is that path's.

use super::decode::{lists_and_status, verified_root};
use super::generated::wirebench as fb;
use super::onepass;
use crate::codec::DecodeError;
use crate::codec::view::{ProductReader, ProductView, Text, VariantView, check_list};
use crate::model::Dimensions;
use flatbuffers::{ForwardsUOffset, Vector};

/// Decodes and validates a whole payload into a view that borrows it.
///
/// A buffer the checked path accepts is checked in one pass
/// ([`onepass::view`]); any other goes through the verifier and the
/// accessors, which word the error.
pub fn decode_view(bytes: &[u8]) -> Result<(usize, ViewReader<'_>), DecodeError> {
    if let Some((count, list)) = onepass::view(bytes) {
        return Ok((count, ViewReader::one_pass(list)));
    }
    verified_view(bytes)
}

/// [`decode_view`] by the crate's verifier over the whole buffer, then the
/// accessors: every error, with its position.
pub(super) fn verified_view(bytes: &[u8]) -> Result<(usize, ViewReader<'_>), DecodeError> {
    let root = verified_root(bytes)?;
    let start = Verified {
        list: root.products(),
        next: 0,
    };
    let mut list = start.clone();
    // Each product is an offset of 4 bytes in the vector at least.
    let count = check_list(&mut list, 4, |_| {})?;
    Ok((count, ViewReader(Cursor::Verified(start))))
}

/// A position in the checked `products` vector.
#[derive(Clone)]
pub struct ViewReader<'a>(Cursor<'a>);

impl<'a> ViewReader<'a> {
    /// The list [`onepass::view`] checked.
    pub(super) fn one_pass(list: onepass::ViewReader<'a>) -> ViewReader<'a> {
        ViewReader(Cursor::OnePass(list))
    }
}

#[derive(Clone)]
enum Cursor<'a> {
    /// Read by the one-pass reader, which repeats its checks.
    OnePass(onepass::ViewReader<'a>),
    /// Verified by the crate's verifier, read by the accessors.
    Verified(Verified<'a>),
}

impl<'a> ProductReader<'a> for ViewReader<'a> {
    #[inline]
    fn next_product(&mut self, index: usize, view: &mut ProductView<'a>) -> Result<Option<usize>, DecodeError> {
        match &mut self.0 {
            Cursor::OnePass(l) => l.next_product(index, view),
            Cursor::Verified(l) => l.next_product(index, view),
        }
    }

    fn remaining(&self) -> usize {
        match &self.0 {
            Cursor::OnePass(l) => l.remaining(),
            Cursor::Verified(l) => l.remaining(),
        }
    }
}

/// The verified `products` vector and the index of the next product.
#[derive(Clone)]
struct Verified<'a> {
    list: Vector<'a, ForwardsUOffset<fb::Product<'a>>>,
    next: usize,
}

impl<'a> ProductReader<'a> for Verified<'a> {
    fn next_product(&mut self, index: usize, view: &mut ProductView<'a>) -> Result<Option<usize>, DecodeError> {
        if self.next >= self.list.len() {
            return Ok(None);
        }
        let p = self.list.get(self.next);
        self.next += 1;
        let at = p._tab.loc();
        product(p, index, at, view)?;
        Ok(Some(at))
    }

    fn remaining(&self) -> usize {
        (self.list.len() - self.next) * 4
    }
}

fn product<'a>(p: fb::Product<'a>, index: usize, at: usize, view: &mut ProductView<'a>) -> Result<(), DecodeError> {
    let (tags, variants) = (p.tags(), p.variants());
    let status = lists_and_status(&p, index, at)?;
    let d = p.dimensions();
    view.id = p.id();
    view.sku = Text::plain(p.sku());
    view.name = Text::plain(p.name());
    view.description = Text::plain(p.description());
    view.price_cents = p.price_cents();
    view.currency = Text::plain(p.currency());
    view.rating = p.rating();
    view.review_count = p.review_count();
    view.in_stock = p.in_stock();
    view.stock = p.stock();
    view.status = status;
    view.dimensions = Dimensions {
        width_mm: d.width_mm(),
        height_mm: d.height_mm(),
        depth_mm: d.depth_mm(),
        weight_g: d.weight_g(),
    };
    view.discount_percent = p.discount_percent();
    view.created_at_ms = p.created_at_ms();
    view.image_url = Text::plain(p.image_url());
    view.tags.clear();
    view.variants.clear();
    for t in tags {
        view.tags.push(Text::plain(t));
    }
    for v in variants {
        view.variants.push(VariantView {
            sku: Text::plain(v.sku()),
            color: Text::plain(v.color()),
            size: Text::plain(v.size()),
            price_cents: v.price_cents(),
            stock: v.stock(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::codec::Format;
    use crate::fixtures;

    #[test]
    fn view_equals_the_owned_decode() {
        let c = fixtures::catalog(20);
        let bytes = Format::Flatbuffers.encode_to_vec(&c.products).unwrap();
        let view = crate::codec::Format::Flatbuffers.decode_view(&bytes).unwrap();
        assert_eq!(view.len(), 20);
        assert_eq!(view.to_catalog().unwrap(), c);
    }
}
