//! The common case of [`decode`](super::decode) and of
//! [`decode_view`](super::view::decode_view) in one pass: verify each object
//! as it is reached, instead of the crate's verifier walking the whole buffer
//! and the accessors walking it again.
//!
//! [`product`] verifies one product table and reads it into a
//! [`ProductView`] whose strings borrow the buffer, checking the data
//! model's rules as it goes. [`decode`] copies each product it accepts into
//! owned types; [`view`] copies nothing and returns the product count and a
//! [`ViewReader`] cursor at the first product, the verifier's state included,
//! from which the view's iterator reads every product again with the same
//! checks from the same state.
//!
//! Both accept a buffer only if the crate's verifier, run with
//! [`verifier_options`], accepts it and the catalog is valid (every rule of
//! `Product::validate`, unique ids); for anything else they return `None`
//! and the caller runs its checked path (verifier, then accessors), which
//! finds and words the error. So this reader never has to explain a failure,
//! only to be at least as strict as that path and to read the same values.
//!
//! "As strict" means every check the verifier makes for our schema
//! (`flatbuffers::Verifier` and the generated `run_verifier`s), on the same
//! positions, with the same arithmetic:
//!
//! - the root uoffset, every field uoffset and every vector element is a
//!   4-byte-aligned u32 inside the buffer; its target is position + value;
//! - a table's soffset is an aligned i32 inside the buffer; its vtable at
//!   table − soffset lies inside the buffer, is 2-aligned and holds an even
//!   number of bytes, all inside the buffer;
//! - a field is present when its voffset is below the vtable size and its
//!   entry is non-zero, at table + entry; a scalar is aligned to its size and
//!   inside the buffer, the `Dimensions` struct is 16 bytes inside it
//!   (alignment 1 for the verifier); a string's length is an aligned u32, its
//!   bytes are inside the buffer, UTF-8 and followed by a NUL; a vector's
//!   elements are inside the buffer; required fields are present;
//! - the limits: tables counted at every visit (at most
//!   `max_tables`), nesting is Catalog → Product → Variant (at most
//!   [`MAX_DEPTH`]), and the apparent size is summed exactly as the verifier
//!   sums it (every range it checks, each time it checks it, including each
//!   2-byte vtable entry it reads) and may not pass `max_apparent_size`.
//!
//! Values are read as the generated accessors read them after the verifier:
//! an absent scalar is its schema default, a bool is any non-zero byte.
//! `tests` hold both properties, for the owned decode and for the view,
//! against the checked paths on valid catalogs and on every truncation and
//! many single-byte changes of encoded buffers.
//!
//! Work is bounded as in the checked path: the apparent size is checked
//! before each string is reached, list lengths before a list is read, a
//! product is copied only once it has passed every rule, and the first
//! product that breaks a rule ends the pass.

use super::decode::{IDENTIFIER, MAX_DEPTH, verifier_options};
use crate::codec::DecodeError;
use crate::codec::ids::UniqueIds;
use crate::codec::view::{ProductReader, ProductView, Text, VariantView};
use crate::model::{self, Catalog, Dimensions, MAX_TAGS, MAX_VARIANTS, Product, Status};

// The deepest table this reader visits is a Variant, at depth 3.
const _: () = assert!(MAX_DEPTH >= 3);

/// Field voffsets of `schemas/catalog.fbs` (the generated `VT_*` constants).
mod vt {
    pub const PRODUCTS: usize = 4;

    pub const ID: usize = 4;
    pub const SKU: usize = 6;
    pub const NAME: usize = 8;
    pub const DESCRIPTION: usize = 10;
    pub const PRICE_CENTS: usize = 12;
    pub const CURRENCY: usize = 14;
    pub const RATING: usize = 16;
    pub const REVIEW_COUNT: usize = 18;
    pub const IN_STOCK: usize = 20;
    pub const STOCK: usize = 22;
    pub const STATUS: usize = 24;
    pub const TAGS: usize = 26;
    pub const DIMENSIONS: usize = 28;
    pub const VARIANTS: usize = 30;
    pub const DISCOUNT_PERCENT: usize = 32;
    pub const CREATED_AT_MS: usize = 34;
    pub const IMAGE_URL: usize = 36;

    pub const V_SKU: usize = 4;
    pub const V_COLOR: usize = 6;
    pub const V_SIZE: usize = 8;
    pub const V_PRICE_CENTS: usize = 10;
    pub const V_STOCK: usize = 12;
}

/// The least a product that verifies adds to the apparent size (it sizes the
/// products vector only; a smaller true minimum would make it grow): its offset
/// in the list (4), soffset (4), vtable length (2), a vtable reaching the
/// last required field (38), that many 2-byte entries read (17 × 2), six
/// strings' offsets and lengths (6 × 8), two vectors' (2 × 8) and the
/// dimensions (16).
const MIN_PRODUCT_APPARENT: usize = 4 + 4 + 2 + 38 + 17 * 2 + 6 * 8 + 2 * 8 + 16;

/// The verifier's state: the buffer, the tables visited and the apparent
/// size so far, and their limits.
#[derive(Clone, Copy)]
struct Reader<'a> {
    buf: &'a [u8],
    apparent: usize,
    max_apparent: usize,
    tables: usize,
    max_tables: usize,
}

/// A table that passed [`Reader::table`].
#[derive(Clone, Copy)]
struct Table {
    pos: usize,
    vtable: usize,
    vtable_len: usize,
}

impl<'a> Reader<'a> {
    /// `Verifier::range_in_buffer`: `size` bytes at `pos` are inside the
    /// buffer, and they count towards the apparent size.
    #[inline]
    fn range(&mut self, pos: usize, size: usize) -> Option<()> {
        let end = pos.checked_add(size)?;
        if end > self.buf.len() {
            return None;
        }
        self.apparent += size;
        (self.apparent <= self.max_apparent).then_some(())
    }

    /// `Verifier::in_buffer::<T>` for a `T` of `N` bytes aligned to `align`,
    /// then the bytes.
    #[inline]
    fn bytes<const N: usize>(&mut self, pos: usize, align: usize) -> Option<[u8; N]> {
        if pos % align != 0 {
            return None;
        }
        self.range(pos, N)?;
        self.buf.get(pos..pos + N)?.try_into().ok()
    }

    #[inline]
    fn u32(&mut self, pos: usize) -> Option<usize> {
        self.bytes::<4>(pos, 4).map(|b| u32::from_le_bytes(b) as usize)
    }

    /// `ForwardsUOffset::run_verifier`'s first step: the uoffset at `pos`
    /// and where it points.
    #[inline]
    fn follow(&mut self, pos: usize) -> Option<usize> {
        Some(self.u32(pos)?.saturating_add(pos))
    }

    /// `Verifier::visit_table`.
    fn table(&mut self, pos: usize) -> Option<Table> {
        let soffset = i32::from_le_bytes(self.bytes::<4>(pos, 4)?);
        let vtable = if soffset > 0 {
            pos.checked_sub(soffset.unsigned_abs() as usize)?
        } else {
            pos.checked_add(soffset.unsigned_abs() as usize)?
        };
        if vtable >= self.buf.len() {
            return None;
        }
        let vtable_len = usize::from(u16::from_le_bytes(self.bytes::<2>(vtable, 2)?));
        if vtable.saturating_add(vtable_len) % 2 != 0 {
            return None;
        }
        self.range(vtable, vtable_len)?;
        self.tables += 1;
        (self.tables <= self.max_tables).then_some(Table {
            pos,
            vtable,
            vtable_len,
        })
    }

    /// `TableVerifier::deref`: where field `voffset` is, if present.
    #[inline]
    fn field(&mut self, t: Table, voffset: usize) -> Option<Option<usize>> {
        if voffset < t.vtable_len {
            let entry = u16::from_le_bytes(self.bytes::<2>(t.vtable.saturating_add(voffset), 2)?);
            if entry > 0 {
                return Some(Some(t.pos.saturating_add(usize::from(entry))));
            }
        }
        Some(None)
    }

    /// A scalar field of `N` bytes aligned to `N`; `None` inside if absent.
    #[inline]
    fn scalar<const N: usize>(&mut self, t: Table, voffset: usize) -> Option<Option<[u8; N]>> {
        match self.field(t, voffset)? {
            Some(pos) => self.bytes::<N>(pos, N).map(Some),
            None => Some(None),
        }
    }

    /// A required `string` field: verified as the crate verifies `&str`.
    fn string(&mut self, t: Table, voffset: usize) -> Option<&'a str> {
        let at = self.field(t, voffset)??;
        self.string_at(at)
    }

    /// The string a uoffset at `at` points to.
    fn string_at(&mut self, at: usize) -> Option<&'a str> {
        let pos = self.follow(at)?;
        let len = self.u32(pos)?;
        let start = pos.saturating_add(4);
        self.range(start, len)?;
        let end = start + len;
        if self.buf.get(end) != Some(&0) {
            return None;
        }
        std::str::from_utf8(self.buf.get(start..end)?).ok()
    }

    /// A required vector-of-offsets field: where its elements start and how
    /// many there are, after the range check of all of them.
    fn vector(&mut self, t: Table, voffset: usize) -> Option<(usize, usize)> {
        let at = self.field(t, voffset)??;
        let pos = self.follow(at)?;
        let len = self.u32(pos)?;
        let start = pos.saturating_add(4);
        if start % 4 != 0 {
            return None;
        }
        self.range(start, len.checked_mul(4)?)?;
        Some((start, len))
    }
}

/// The reader after the root table and the `products` vector's range check:
/// the reader's state, where the product offsets start and how many there are.
fn products(bytes: &[u8]) -> Option<(Reader<'_>, usize, usize)> {
    if bytes.get(4..8)? != IDENTIFIER {
        return None;
    }
    let opts = verifier_options(bytes.len());
    let mut r = Reader {
        buf: bytes,
        apparent: 0,
        max_apparent: opts.max_apparent_size,
        tables: 0,
        max_tables: opts.max_tables,
    };
    let root = r.follow(0)?;
    let catalog = r.table(root)?;
    let (start, count) = r.vector(catalog, vt::PRODUCTS)?;
    Some((r, start, count))
}

/// Decodes `bytes` when the checked path would accept them, with the same
/// result; `None` for everything else (see the module docs).
pub(super) fn decode(bytes: &[u8]) -> Option<Catalog> {
    let (r, start, count) = products(bytes)?;
    // Room for as many products as can verify: offsets may all reach one
    // table, so the count alone could ask for 60 times the buffer.
    let mut products = Vec::with_capacity(count.min(r.max_apparent / MIN_PRODUCT_APPARENT));
    let mut list = ViewReader {
        r,
        start,
        len: count,
        next: 0,
    };
    let mut ids = UniqueIds::new();
    let mut p = ProductView::default();
    while list.read(&mut p)?.is_some() {
        if !ids.insert(p.id, || products.iter().map(|q: &Product| q.id)) {
            return None;
        }
        products.push(p.to_product());
    }
    Some(Catalog { products })
}

/// Checks `bytes` as [`decode`] does, copying nothing: the product count and
/// a cursor at the first product, from which [`ViewReader`] reads each product
/// again in place; `None` for everything the checked path refuses.
pub(super) fn view(bytes: &[u8]) -> Option<(usize, ViewReader<'_>)> {
    let (r, start, count) = products(bytes)?;
    let first = ViewReader {
        r,
        start,
        len: count,
        next: 0,
    };
    let mut list = first;
    let mut ids = UniqueIds::new();
    let mut p = ProductView::default();
    while list.read(&mut p)?.is_some() {
        let index = list.next - 1;
        // Only if the order breaks: the ids before this one, read again from
        // the first product (the same reads from the same state, so the same
        // products), and room for every product still to come.
        let earlier = || {
            let (mut again, mut q) = (first, ProductView::default());
            (0..index).map(move |_| match again.read(&mut q) {
                Some(Some(_)) => q.id,
                _ => i64::MIN, // not reached: these products were read before
            })
        };
        let room = || (list.len - list.next).min(list.r.max_apparent / MIN_PRODUCT_APPARENT);
        if !ids.insert_reserving(p.id, earlier, room) {
            return None;
        }
    }
    Some((count, first))
}

/// A position in the `products` vector with the verifier's state there.
/// Reading from a copy repeats the same checks from the same state, so a
/// copy taken before a product that was read once reads it again, equal.
#[derive(Clone, Copy)]
pub struct ViewReader<'a> {
    r: Reader<'a>,
    start: usize,
    len: usize,
    next: usize,
}

impl<'a> ViewReader<'a> {
    /// Reads the next product into `view`: `Some(None)` at the end of the
    /// list, `Some(Some(position))` for a product the checked path accepts,
    /// `None` if it would refuse it.
    #[inline]
    fn read(&mut self, view: &mut ProductView<'a>) -> Option<Option<usize>> {
        if self.next >= self.len {
            return Some(None);
        }
        let at = self.r.follow(self.start + 4 * self.next)?;
        product(&mut self.r, at, view)?;
        self.next += 1;
        Some(Some(at))
    }
}

impl<'a> ProductReader<'a> for ViewReader<'a> {
    /// Only ever called on copies of a cursor that [`view`] read to its end
    /// without refusal, so every read succeeds again; were one to fail, the
    /// list would simply end there.
    fn next_product(&mut self, _index: usize, view: &mut ProductView<'a>) -> Result<Option<usize>, DecodeError> {
        Ok(self.read(view).flatten())
    }

    fn remaining(&self) -> usize {
        (self.len - self.next) * 4
    }
}

/// One product table, verified in the generated `run_verifier`'s field order
/// and read into `view`, its strings borrowed from the buffer; `None` if the
/// verifier or a rule of the model would refuse it.
fn product<'a>(r: &mut Reader<'a>, pos: usize, view: &mut ProductView<'a>) -> Option<()> {
    let t = r.table(pos)?;
    let id = r.scalar::<8>(t, vt::ID)?.map_or(0, i64::from_le_bytes);
    let sku = r.string(t, vt::SKU)?;
    let name = r.string(t, vt::NAME)?;
    let description = r.string(t, vt::DESCRIPTION)?;
    let price_cents = r.scalar::<8>(t, vt::PRICE_CENTS)?.map_or(0, i64::from_le_bytes);
    let currency = r.string(t, vt::CURRENCY)?;
    let rating = r.scalar::<8>(t, vt::RATING)?.map_or(0.0, f64::from_le_bytes);
    let review_count = r.scalar::<4>(t, vt::REVIEW_COUNT)?.map_or(0, i32::from_le_bytes);
    let in_stock = r.scalar::<1>(t, vt::IN_STOCK)?.is_some_and(|[b]| b != 0);
    let stock = r.scalar::<4>(t, vt::STOCK)?.map_or(0, i32::from_le_bytes);
    let status = r.scalar::<1>(t, vt::STATUS)?.map_or(0, i8::from_le_bytes);
    let status = Status::from_index(i64::from(status))?;
    let (tags_at, tags_len) = r.vector(t, vt::TAGS)?;
    if tags_len > MAX_TAGS {
        return None;
    }
    view.tags.clear();
    for i in 0..tags_len {
        view.tags.push(Text::plain(r.string_at(tags_at + 4 * i)?));
    }
    let d = r.field(t, vt::DIMENSIONS)??;
    r.range(d, 16)?;
    let buf = r.buf;
    let dim = |k: usize| -> Option<i32> { Some(i32::from_le_bytes(buf.get(d + k..d + k + 4)?.try_into().ok()?)) };
    let dimensions = Dimensions {
        width_mm: dim(0)?,
        height_mm: dim(4)?,
        depth_mm: dim(8)?,
        weight_g: dim(12)?,
    };
    let (variants_at, variants_len) = r.vector(t, vt::VARIANTS)?;
    if variants_len > MAX_VARIANTS {
        return None;
    }
    view.variants.clear();
    for i in 0..variants_len {
        let at = r.follow(variants_at + 4 * i)?;
        view.variants.push(variant(r, at)?);
    }
    view.id = id;
    view.sku = Text::plain(sku);
    view.name = Text::plain(name);
    view.description = Text::plain(description);
    view.price_cents = price_cents;
    view.currency = Text::plain(currency);
    view.rating = rating;
    view.review_count = review_count;
    view.in_stock = in_stock;
    view.stock = stock;
    view.status = status;
    view.dimensions = dimensions;
    view.discount_percent = r.scalar::<4>(t, vt::DISCOUNT_PERCENT)?.map(i32::from_le_bytes);
    view.created_at_ms = r.scalar::<8>(t, vt::CREATED_AT_MS)?.map_or(0, i64::from_le_bytes);
    view.image_url = Text::plain(r.string(t, vt::IMAGE_URL)?);
    // The model's rules, as every decoder checks them; the index only words
    // an error, which the checked path gives instead.
    model::validate_product(view, 0).is_ok().then_some(())
}

/// One variant table, verified in the generated `run_verifier`'s field order.
fn variant<'a>(r: &mut Reader<'a>, pos: usize) -> Option<VariantView<'a>> {
    let t = r.table(pos)?;
    let sku = r.string(t, vt::V_SKU)?;
    let color = r.string(t, vt::V_COLOR)?;
    let size = r.string(t, vt::V_SIZE)?;
    let price_cents = r.scalar::<8>(t, vt::V_PRICE_CENTS)?.map_or(0, i64::from_le_bytes);
    let stock = r.scalar::<4>(t, vt::V_STOCK)?.map_or(0, i32::from_le_bytes);
    Some(VariantView {
        sku: Text::plain(sku),
        color: Text::plain(color),
        size: Text::plain(size),
        price_cents,
        stock,
    })
}

#[cfg(test)]
mod tests {
    use super::super::decode::checked;
    use super::super::view::{ViewReader, verified_view};
    use super::{decode, view};
    use crate::codec::catalog_view::{CatalogView, FormatReader};
    use crate::codec::view::ProductView;

    fn fb_view<'a>(m: &'a [u8], (count, r): (usize, ViewReader<'a>)) -> CatalogView<'a> {
        CatalogView::new(count, m.len(), FormatReader::Flatbuffers(r))
    }
    use crate::fixtures;

    fn encode(c: &Catalog) -> Vec<u8> {
        let mut out = Vec::new();
        super::super::encode(&c.products, &mut out).unwrap();
        out
    }

    use crate::model::Catalog;

    /// Every valid catalog takes the one pass, with the checked path's result.
    #[test]
    fn valid_catalogs_take_the_one_pass() {
        let mut catalogs: Vec<Catalog> = [0, 1, 3, 100, 1000].into_iter().map(fixtures::catalog).collect();
        catalogs.extend((0..300).map(fixtures::random_catalog));
        for (i, c) in catalogs.iter().enumerate() {
            let bytes = encode(c);
            assert_eq!(decode(&bytes).as_ref(), Some(c), "catalog {i}");
            assert_eq!(checked(&bytes).as_ref(), Ok(c), "catalog {i}");
        }
    }

    /// Every truncation and many single-byte changes of the encodings of a
    /// few two-product catalogs.
    fn damaged_buffers(mut check: impl FnMut(u64, &[u8])) {
        for seed in 0..3 {
            let mut c = fixtures::random_catalog(seed);
            c.products.truncate(2);
            let bytes = encode(&c);
            for n in 0..bytes.len() {
                check(seed, &bytes[..n]);
            }
            let mut m = bytes.clone();
            for i in 0..bytes.len() {
                for v in [
                    0x00,
                    0x01,
                    0x02,
                    0x04,
                    0x80,
                    0xff,
                    bytes[i] ^ 0x01,
                    bytes[i] ^ 0x10,
                    bytes[i].wrapping_add(4),
                ] {
                    m[i] = v;
                    check(seed, &m);
                }
                m[i] = bytes[i];
            }
        }
    }

    /// Whatever the one pass accepts, the checked path (the crate's verifier
    /// and validation) accepts with the same catalog; whatever it refuses,
    /// the checked path refuses.
    #[test]
    fn accepts_only_what_the_checked_path_accepts() {
        let mut accepted = 0;
        let mut refused = 0;
        damaged_buffers(|seed, m| match decode(m) {
            Some(c) => {
                assert_eq!(checked(m), Ok(c), "seed {seed}: {m:?}");
                accepted += 1;
            }
            None => {
                assert!(
                    checked(m).is_err(),
                    "seed {seed}: one pass refused a valid buffer {m:?}"
                );
                refused += 1;
            }
        });
        // Both outcomes occur, so neither branch above is vacuous.
        assert!(
            accepted > 100 && refused > 100,
            "accepted {accepted}, refused {refused}"
        );
    }

    /// The products of a view, read twice (a view is read again on every
    /// iteration, so both reads must agree).
    fn products_of<'a>(v: &CatalogView<'a>) -> Vec<ProductView<'a>> {
        let once: Vec<_> = v.iter().map(Result::unwrap).collect();
        assert_eq!(once.len(), v.len());
        assert_eq!(
            v.iter().map(Result::unwrap).collect::<Vec<_>>(),
            once,
            "a second iteration differs"
        );
        once
    }

    /// The same for the view: whatever the one-pass view accepts, the
    /// verifier-based view accepts with the same products (and the owned
    /// decode with the same catalog); whatever it refuses, the verifier-based
    /// view refuses.
    #[test]
    fn the_view_accepts_only_what_the_checked_view_accepts() {
        let mut accepted = 0;
        let mut refused = 0;
        damaged_buffers(|seed, m| match view(m) {
            Some((count, list)) => {
                let one = fb_view(m, (count, ViewReader::one_pass(list)));
                let two = verified_view(m)
                    .map(|r| fb_view(m, r))
                    .unwrap_or_else(|e| panic!("seed {seed}: {e} {m:?}"));
                assert_eq!(products_of(&one), products_of(&two), "seed {seed}: {m:?}");
                assert_eq!(one.to_catalog(), checked(m), "seed {seed}: {m:?}");
                accepted += 1;
            }
            None => {
                assert!(
                    verified_view(m).is_err(),
                    "seed {seed}: one pass refused a valid buffer {m:?}"
                );
                refused += 1;
            }
        });
        assert!(
            accepted > 100 && refused > 100,
            "accepted {accepted}, refused {refused}"
        );
    }

    /// Ids out of order take the id set, which reads the earlier products
    /// again: distinct ids in any order pass, a repeated one does not.
    #[test]
    fn the_view_checks_ids_in_any_order() {
        let mut c = fixtures::catalog(50);
        c.products.reverse();
        c.products.swap(10, 30);
        let bytes = encode(&c);
        let (count, list) = view(&bytes).expect("distinct ids");
        let v = fb_view(&bytes, (count, ViewReader::one_pass(list)));
        assert_eq!(v.to_catalog(), Ok(c.clone()));
        c.products[40].id = c.products[20].id;
        let bytes = encode(&c);
        assert!(view(&bytes).is_none());
        assert!(decode(&bytes).is_none());
        assert!(verified_view(&bytes).is_err());
    }

    /// A buffer laid out by another writer (objects in field order, vtables
    /// shared differently) also takes the one pass.
    #[test]
    fn another_layout_takes_the_one_pass() {
        use super::super::generated::wirebench as fb;
        let c = fixtures::catalog(20);
        let mut fbb = flatbuffers::FlatBufferBuilder::new();
        let offsets: Vec<_> = c
            .products
            .iter()
            .map(|p| {
                let sku = fbb.create_string(&p.sku);
                let name = fbb.create_string(&p.name);
                let description = fbb.create_string(&p.description);
                let currency = fbb.create_string(&p.currency);
                let tags: Vec<_> = p.tags.iter().map(|t| fbb.create_string(t)).collect();
                let tags = fbb.create_vector(&tags);
                let variants: Vec<_> = p
                    .variants
                    .iter()
                    .map(|v| {
                        let args = fb::VariantArgs {
                            sku: Some(fbb.create_string(&v.sku)),
                            color: Some(fbb.create_string(&v.color)),
                            size: Some(fbb.create_string(&v.size)),
                            price_cents: v.price_cents,
                            stock: v.stock,
                        };
                        fb::Variant::create(&mut fbb, &args)
                    })
                    .collect();
                let variants = fbb.create_vector(&variants);
                let image_url = fbb.create_string(&p.image_url);
                let d = &p.dimensions;
                let dimensions = fb::Dimensions::new(d.width_mm, d.height_mm, d.depth_mm, d.weight_g);
                let args = fb::ProductArgs {
                    id: p.id,
                    sku: Some(sku),
                    name: Some(name),
                    description: Some(description),
                    price_cents: p.price_cents,
                    currency: Some(currency),
                    rating: p.rating,
                    review_count: p.review_count,
                    in_stock: p.in_stock,
                    stock: p.stock,
                    status: fb::Status(p.status.index() as i8),
                    tags: Some(tags),
                    dimensions: Some(&dimensions),
                    variants: Some(variants),
                    discount_percent: p.discount_percent,
                    created_at_ms: p.created_at_ms,
                    image_url: Some(image_url),
                };
                fb::Product::create(&mut fbb, &args)
            })
            .collect();
        let list = fbb.create_vector(&offsets);
        let root = fb::Catalog::create(&mut fbb, &fb::CatalogArgs { products: Some(list) });
        fb::finish_catalog_buffer(&mut fbb, root);
        let bytes = fbb.finished_data();
        assert_ne!(bytes, encode(&c), "the layout should differ from ours");
        assert_eq!(decode(bytes).as_ref(), Some(&c));
    }
}
