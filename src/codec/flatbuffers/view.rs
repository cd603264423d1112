//! The FlatBuffers reader: the borrowed view, and the owned decode built from
//! it in the same pass. It verifies each object as it reaches it, by the
//! crate's verifier's own rules, and reads it in place, instead of the
//! verifier walking the whole buffer and the generated accessors walking it
//! again.
//!
//! [`product`] verifies one product table and reads it into a
//! [`ProductView`] whose strings borrow the buffer. [`decode`] copies each
//! product into owned types as it is read; [`decode_view`] copies nothing
//! and returns the product count and a [`ViewReader`] at the first product,
//! the verifier's state included, from which the view's iterator reads every
//! product again with the same checks from the same state.
//!
//! The reader accepts exactly the buffers that the crate's verifier, run with
//! [`verifier_options`], accepts and that hold a valid catalog (every rule of
//! `Product::validate`, unique ids). It never words a broken offset itself:
//! on any error, [`first_error`] runs the crate's verifier over the whole
//! buffer and reports the verifier's error if there is one, since the
//! verifier would have refused the buffer before any product was read. Only
//! a buffer the verifier accepts gets the reader's own errors, which are the
//! data model's, in the order a read after the verifier meets them: list
//! lengths, then the status enum (at the field), then `Product::validate`,
//! then the duplicate id (at the product table).
//!
//! "By the verifier's rules" means every check the verifier makes for our
//! schema (`flatbuffers::Verifier` and the generated `run_verifier`s), on the
//! same positions, with the same arithmetic:
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
//! - the limits: tables counted at every visit (at most `max_tables`),
//!   nesting is Catalog → Product → Variant (at most [`MAX_DEPTH`]), and the
//!   apparent size is summed exactly as the verifier sums it (every range it
//!   checks, each time it checks it, including each 2-byte vtable entry it
//!   reads) and may not pass `max_apparent_size`.
//!
//! Values are read as the generated accessors read them after the verifier:
//! an absent scalar is its schema default, a bool is any non-zero byte.
//! `tests` hold the reader to the crate's verifier on every truncation and
//! many single-byte changes of encoded buffers; `tests/flatbuffers.rs` holds
//! it to `Product::validate` and to a buffer laid out by another writer.
//!
//! Work is bounded as after the verifier: the apparent size is checked
//! before each string is reached, list lengths before a list is read, a
//! product is copied only once it has passed every rule, and the first error
//! ends the read.

use super::generated::wirebench as fb;
use super::verifier::{IDENTIFIER, MAX_DEPTH, verified_root, verifier_options};
use crate::codec::DecodeError;
use crate::codec::view::{ProductReader, ProductView, Text, VariantView, check_list};
use crate::model::{self, Catalog, Dimensions, MAX_TAGS, MAX_VARIANTS, Status};

// The deepest table this reader visits is a Variant, at depth 3.
const _: () = assert!(MAX_DEPTH >= 3);

/// The least a product that verifies adds to the apparent size (it sizes the
/// owned decode's products vector and the id set only; a smaller true minimum
/// would make them grow): its offset in the list (4), soffset (4), vtable length (2), a
/// vtable reaching the last required field (38), that many 2-byte entries
/// read (17 × 2), six strings' offsets and lengths (6 × 8), two vectors'
/// (2 × 8) and the dimensions (16).
const MIN_PRODUCT_APPARENT: usize = 4 + 4 + 2 + 38 + 17 * 2 + 6 * 8 + 2 * 8 + 16;

/// A check of the verifier's failed. The reader does not say which:
/// [`first_error`] asks the crate's verifier, which words it.
#[derive(Clone, Copy, Debug)]
struct Refused;

impl From<Refused> for DecodeError {
    /// Reported only if the crate's verifier accepts what this reader
    /// refused, which the tests below rule out.
    #[cold]
    fn from(_: Refused) -> DecodeError {
        DecodeError::library(0, "flatbuffers", "the reader refuses a buffer the verifier accepts")
    }
}

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
    fn range(&mut self, pos: usize, size: usize) -> Result<(), Refused> {
        let end = pos.checked_add(size).ok_or(Refused)?;
        if end > self.buf.len() {
            return Err(Refused);
        }
        self.apparent += size;
        (self.apparent <= self.max_apparent).then_some(()).ok_or(Refused)
    }

    /// `Verifier::in_buffer::<T>` for a `T` of `N` bytes aligned to `align`,
    /// then the bytes.
    #[inline]
    fn bytes<const N: usize>(&mut self, pos: usize, align: usize) -> Result<[u8; N], Refused> {
        if pos % align != 0 {
            return Err(Refused);
        }
        self.range(pos, N)?;
        self.buf
            .get(pos..pos + N)
            .and_then(|b| b.try_into().ok())
            .ok_or(Refused)
    }

    #[inline]
    fn u32(&mut self, pos: usize) -> Result<usize, Refused> {
        self.bytes::<4>(pos, 4).map(|b| u32::from_le_bytes(b) as usize)
    }

    /// `ForwardsUOffset::run_verifier`'s first step: the uoffset at `pos`
    /// and where it points.
    #[inline]
    fn follow(&mut self, pos: usize) -> Result<usize, Refused> {
        Ok(self.u32(pos)?.saturating_add(pos))
    }

    /// `Verifier::visit_table`.
    fn table(&mut self, pos: usize) -> Result<Table, Refused> {
        let soffset = i32::from_le_bytes(self.bytes::<4>(pos, 4)?);
        let vtable = if soffset > 0 {
            pos.checked_sub(soffset.unsigned_abs() as usize)
        } else {
            pos.checked_add(soffset.unsigned_abs() as usize)
        }
        .ok_or(Refused)?;
        if vtable >= self.buf.len() {
            return Err(Refused);
        }
        let vtable_len = usize::from(u16::from_le_bytes(self.bytes::<2>(vtable, 2)?));
        if vtable.saturating_add(vtable_len) % 2 != 0 {
            return Err(Refused);
        }
        self.range(vtable, vtable_len)?;
        self.tables += 1;
        (self.tables <= self.max_tables)
            .then_some(Table {
                pos,
                vtable,
                vtable_len,
            })
            .ok_or(Refused)
    }

    /// `TableVerifier::deref`: where field `voffset` is, if present.
    #[inline]
    fn field(&mut self, t: Table, voffset: u16) -> Result<Option<usize>, Refused> {
        let voffset = usize::from(voffset);
        if voffset < t.vtable_len {
            let entry = u16::from_le_bytes(self.bytes::<2>(t.vtable.saturating_add(voffset), 2)?);
            if entry > 0 {
                return Ok(Some(t.pos.saturating_add(usize::from(entry))));
            }
        }
        Ok(None)
    }

    /// A `(required)` field's position.
    #[inline]
    fn required(&mut self, t: Table, voffset: u16) -> Result<usize, Refused> {
        self.field(t, voffset)?.ok_or(Refused)
    }

    /// A scalar field of `N` bytes aligned to `N`; `None` inside if absent.
    #[inline]
    fn scalar<const N: usize>(&mut self, t: Table, voffset: u16) -> Result<Option<[u8; N]>, Refused> {
        match self.field(t, voffset)? {
            Some(pos) => self.bytes::<N>(pos, N).map(Some),
            None => Ok(None),
        }
    }

    /// A required `string` field: verified as the crate verifies `&str`.
    fn string(&mut self, t: Table, voffset: u16) -> Result<Text<'a>, Refused> {
        let at = self.required(t, voffset)?;
        self.string_at(at)
    }

    /// The string a uoffset at `at` points to.
    fn string_at(&mut self, at: usize) -> Result<Text<'a>, Refused> {
        let pos = self.follow(at)?;
        let len = self.u32(pos)?;
        let start = pos.saturating_add(4);
        self.range(start, len)?;
        let end = start + len;
        if self.buf.get(end) != Some(&0) {
            return Err(Refused);
        }
        let bytes = self.buf.get(start..end).ok_or(Refused)?;
        std::str::from_utf8(bytes).map(Text::plain).map_err(|_| Refused)
    }

    /// A required vector-of-offsets field: where its elements start and how
    /// many there are, after the range check of all of them.
    fn vector(&mut self, t: Table, voffset: u16) -> Result<(usize, usize), Refused> {
        let at = self.required(t, voffset)?;
        let pos = self.follow(at)?;
        let len = self.u32(pos)?;
        let start = pos.saturating_add(4);
        if start % 4 != 0 {
            return Err(Refused);
        }
        self.range(start, len.checked_mul(4).ok_or(Refused)?)?;
        Ok((start, len))
    }
}

/// The reader after the root table and the `products` vector's range check,
/// at the first product.
fn products(bytes: &[u8]) -> Result<ViewReader<'_>, Refused> {
    if bytes.get(4..8) != Some(IDENTIFIER) {
        return Err(Refused);
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
    let (start, len) = r.vector(catalog, fb::Catalog::VT_PRODUCTS)?;
    Ok(ViewReader { r, start, len, next: 0 })
}

/// The error a read after the crate's verifier gives for `bytes`, which the
/// reader refused with `e`: the verifier's own, if it refuses the buffer,
/// else `e` (see the module docs).
#[cold]
fn first_error(bytes: &[u8], e: DecodeError) -> DecodeError {
    verified_root(bytes).err().unwrap_or(e)
}

/// Decodes and validates a whole payload into owned types: each product is
/// copied as the reader accepts it.
pub(super) fn decode(bytes: &[u8]) -> Result<Catalog, DecodeError> {
    let read = || -> Result<Catalog, DecodeError> {
        let mut list = products(bytes)?;
        // Room for as many products as can verify: offsets may all reach one
        // table, so the count alone could ask for 60 times the buffer.
        let mut products = Vec::with_capacity(list.len.min(list.r.max_apparent / MIN_PRODUCT_APPARENT));
        check_list(&mut list, 4, |p| products.push(p.to_product()))?;
        Ok(Catalog { products })
    };
    read().map_err(|e| first_error(bytes, e))
}

/// Decodes and validates a whole payload into a view that borrows it: the
/// product count and a reader at the first product.
pub fn decode_view(bytes: &[u8]) -> Result<(usize, ViewReader<'_>), DecodeError> {
    let read = || -> Result<(usize, ViewReader<'_>), DecodeError> {
        let first = products(bytes)?;
        // Each product is an offset of 4 bytes in the vector at least.
        let count = check_list(&mut first.clone(), 4, |_| {})?;
        Ok((count, first))
    };
    read().map_err(|e| first_error(bytes, e))
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

impl<'a> ProductReader<'a> for ViewReader<'a> {
    #[inline]
    fn next_product(&mut self, index: usize, view: &mut ProductView<'a>) -> Result<Option<usize>, DecodeError> {
        if self.next >= self.len {
            return Ok(None);
        }
        let at = self.r.follow(self.start + 4 * self.next)?;
        product(&mut self.r, at, index, view)?;
        self.next += 1;
        Ok(Some(at))
    }

    /// The products still to come as 4 bytes each, at most as many as the
    /// apparent size left could verify (offsets may all reach one table).
    fn remaining(&self) -> usize {
        let room = (self.r.max_apparent - self.r.apparent) / MIN_PRODUCT_APPARENT;
        (self.len - self.next).min(room) * 4
    }
}

/// One product table at `pos`, verified in the generated `run_verifier`'s
/// field order and read into `view`, its strings borrowed from the buffer.
/// The list lengths (at the table) and the status (at its field) are checked
/// in that order once both lists' headers are verified, before either list
/// is read; the rest of the model's rules are [`check_list`]'s.
fn product<'a>(r: &mut Reader<'a>, pos: usize, index: usize, view: &mut ProductView<'a>) -> Result<(), DecodeError> {
    let t = r.table(pos)?;
    view.id = r.scalar::<8>(t, fb::Product::VT_ID)?.map_or(0, i64::from_le_bytes);
    view.sku = r.string(t, fb::Product::VT_SKU)?;
    view.name = r.string(t, fb::Product::VT_NAME)?;
    view.description = r.string(t, fb::Product::VT_DESCRIPTION)?;
    view.price_cents = r
        .scalar::<8>(t, fb::Product::VT_PRICE_CENTS)?
        .map_or(0, i64::from_le_bytes);
    view.currency = r.string(t, fb::Product::VT_CURRENCY)?;
    view.rating = r
        .scalar::<8>(t, fb::Product::VT_RATING)?
        .map_or(0.0, f64::from_le_bytes);
    view.review_count = r
        .scalar::<4>(t, fb::Product::VT_REVIEW_COUNT)?
        .map_or(0, i32::from_le_bytes);
    view.in_stock = r.scalar::<1>(t, fb::Product::VT_IN_STOCK)?.is_some_and(|[b]| b != 0);
    view.stock = r.scalar::<4>(t, fb::Product::VT_STOCK)?.map_or(0, i32::from_le_bytes);
    let status_at = r.field(t, fb::Product::VT_STATUS)?;
    let status = match status_at {
        Some(at) => i8::from_le_bytes(r.bytes::<1>(at, 1)?),
        None => 0,
    };
    let (tags_at, tags_len) = r.vector(t, fb::Product::VT_TAGS)?;
    too_many(index, pos, "tags", tags_len, MAX_TAGS)?;
    view.tags.clear();
    for i in 0..tags_len {
        view.tags.push(r.string_at(tags_at + 4 * i)?);
    }
    let d = r.required(t, fb::Product::VT_DIMENSIONS)?;
    r.range(d, 16)?;
    let buf = r.buf;
    let dim = |k: usize| -> Result<i32, Refused> {
        let b = buf
            .get(d + k..d + k + 4)
            .and_then(|b| b.try_into().ok())
            .ok_or(Refused)?;
        Ok(i32::from_le_bytes(b))
    };
    view.dimensions = Dimensions {
        width_mm: dim(0)?,
        height_mm: dim(4)?,
        depth_mm: dim(8)?,
        weight_g: dim(12)?,
    };
    let (variants_at, variants_len) = r.vector(t, fb::Product::VT_VARIANTS)?;
    too_many(index, pos, "variants", variants_len, MAX_VARIANTS)?;
    // A status that names no `Status` is reported at its field (an absent
    // one reads as 0, a known status, so the field is there).
    let unknown = || DecodeError::unknown_enum(status_at.unwrap_or(pos), "Status", status);
    view.status = Status::from_index(i64::from(status)).ok_or_else(unknown)?;
    view.variants.clear();
    for i in 0..variants_len {
        let at = r.follow(variants_at + 4 * i)?;
        view.variants.push(variant(r, at)?);
    }
    view.discount_percent = r
        .scalar::<4>(t, fb::Product::VT_DISCOUNT_PERCENT)?
        .map(i32::from_le_bytes);
    view.created_at_ms = r
        .scalar::<8>(t, fb::Product::VT_CREATED_AT_MS)?
        .map_or(0, i64::from_le_bytes);
    view.image_url = r.string(t, fb::Product::VT_IMAGE_URL)?;
    Ok(())
}

/// A list over the model's maximum, reported at the product table.
#[inline]
fn too_many(index: usize, at: usize, field: &str, count: usize, max: usize) -> Result<(), DecodeError> {
    if count > max {
        let e = model::too_many_items(index, field, max, format_args!("found {count}"));
        return Err(DecodeError::invalid(at, e));
    }
    Ok(())
}

/// One variant table, verified in the generated `run_verifier`'s field order.
fn variant<'a>(r: &mut Reader<'a>, pos: usize) -> Result<VariantView<'a>, Refused> {
    let t = r.table(pos)?;
    Ok(VariantView {
        sku: r.string(t, fb::Variant::VT_SKU)?,
        color: r.string(t, fb::Variant::VT_COLOR)?,
        size: r.string(t, fb::Variant::VT_SIZE)?,
        price_cents: r
            .scalar::<8>(t, fb::Variant::VT_PRICE_CENTS)?
            .map_or(0, i64::from_le_bytes),
        stock: r.scalar::<4>(t, fb::Variant::VT_STOCK)?.map_or(0, i32::from_le_bytes),
    })
}

#[cfg(test)]
mod tests {
    use super::super::verify;
    use super::*;
    use crate::fixtures;

    fn encode(c: &Catalog) -> Vec<u8> {
        let mut out = Vec::new();
        super::super::encode(&c.products, &mut out).unwrap();
        out
    }

    /// The placeholder for a refusal the verifier would not make is not the
    /// verifier's wording of any error, so `tests/flatbuffers.rs`'s
    /// `the_reader_checks_what_the_verifier_checks` would see it.
    #[test]
    fn a_refusal_is_worded_by_the_verifier() {
        let bytes = encode(&fixtures::catalog(2));
        let cut = &bytes[..bytes.len() / 2];
        let placeholder = DecodeError::from(Refused);
        let e = decode(cut).unwrap_err();
        assert_eq!(Err(e.clone()), verify(cut));
        assert_ne!(e, placeholder);
    }
}
