//! Building a FlatBuffer from our domain types with the crate's builder.
//!
//! This is what the server pays per FlatBuffers response: copy every string
//! into the builder and lay out every table. FlatBuffers builds back to front
//! (the builder's head moves towards lower addresses), so an object must be
//! finished before the table that points at it. We create products, strings,
//! tags and variants in *reverse* order: the finished buffer then reads front
//! to back in field order, docs/SPEC.md, "Field order" (product 0 first, and
//! inside a product the table, then `sku`, `name`, … `image_url`), which is
//! what `explain` shows a learner.
//!
//! Output is deterministic: the same products always give the same bytes
//! (the goldens depend on it), and they are the bytes the generated
//! `Product::create` and `Variant::create` write. Fields equal to their
//! schema default (0, false, ACTIVE) are left out of the table, as the
//! builder does unless `force_defaults` is set; the decoder reads them back
//! as the default.
//!
//! Two things keep the cost down to the format's own (copying strings in,
//! laying out tables, padding):
//!
//! - **Vtables by shape.** A table's vtable depends only on which fields are
//!   present and on where the table starts modulo 8 (the padding before its
//!   8-byte fields); [`Shapes`] remembers, per such shape, where its vtable
//!   was written. The first table of a shape goes through the generated
//!   `create`, whose `end_table` writes (or finds) the vtable; every later
//!   one is pushed field by field in the same order and points at that
//!   vtable, skipping the builder's per-table vtable search (a binary search
//!   and `memcmp` over the vtables written so far).
//! - **No copy out.** [`exact_size`] runs the builder's arithmetic (string
//!   padding, table layout, vtable deduplication, the final alignment)
//!   without writing, so the builder can start in the caller's buffer sized
//!   to the exact result: it ends at offset 0 and there is nothing to move.
//!   Should the prediction ever be off, the builder grows or stops short as
//!   usual and the bytes are moved to the front: slower, never wrong (debug
//!   builds assert that it is exact). The sizing pass costs about what the
//!   copy it saves costs when a kept builder is warm, and saves a builder
//!   and its page faults when there is none (the server keeps none between
//!   responses).

use super::generated::wirebench as fb;
use crate::codec::EncodeError;
use crate::model::{Product, Status, Variant};
use flatbuffers::{FlatBufferBuilder, ForwardsUOffset, Vector, WIPOffset};

/// The largest buffer a FlatBuffer can be: offsets are 32-bit and the
/// builder refuses (panics) beyond 2 GiB, so we refuse first.
const MAX_BUFFER: usize = flatbuffers::FLATBUFFERS_MAX_BUFFER_SIZE - 1;

/// Appends the FlatBuffers encoding of `Catalog { products }` to `out`.
///
/// An empty `out` (every caller in this crate) becomes the builder's buffer,
/// so the bytes are built where they are returned; otherwise the buffer is
/// built on its own and appended.
pub fn encode(products: &[Product], out: &mut Vec<u8>) -> Result<(), EncodeError> {
    let (size, masks) = exact_size(products, MAX_SHAPES);
    if size > MAX_BUFFER as u64 {
        return Err(EncodeError::TooLong {
            what: "flatbuffers buffer (bytes)",
            len: usize::try_from(size).unwrap_or(usize::MAX),
        });
    }
    let size = size as usize;
    if out.is_empty() {
        let (buf, start) = build_in(std::mem::take(out), size, products, &masks);
        debug_assert_eq!(start, 0, "exact_size was off by {start} bytes");
        *out = front(buf, start);
    } else {
        let (buf, start) = build_in(Vec::new(), size, products, &masks);
        out.extend_from_slice(&buf[start..]);
    }
    Ok(())
}

/// Builds the catalog in `buf` made `size` zero bytes long (the builder
/// relies on untouched bytes being zero: it never writes padding). Returns
/// the buffer and where the FlatBuffer starts in it: 0 when `size` is exact.
fn build_in(mut buf: Vec<u8>, size: usize, products: &[Product], masks: &[u32]) -> (Vec<u8>, usize) {
    buf.clear();
    if buf.capacity() < size {
        buf = vec![0; size];
    } else {
        buf.resize(size, 0);
    }
    let mut fbb = FlatBufferBuilder::from_vec(buf);
    build(&mut fbb, products, masks, MAX_SHAPES);
    fbb.collapse()
}

/// `buf[start..]` as a buffer of its own: nothing to do when `start` is 0.
fn front(mut buf: Vec<u8>, start: usize) -> Vec<u8> {
    if start > 0 {
        buf.drain(..start);
    }
    buf
}

/// One table field as the generated `create` pushes it, in push order:
/// its size and alignment in bytes and its vtable slot (a byte offset).
#[derive(Clone, Copy)]
struct Field {
    size: u64,
    align: u64,
    slot: u16,
}

const fn field(size: u64, slot: u16) -> Field {
    Field {
        size,
        align: size,
        slot,
    }
}

/// `Product`'s fields in the order `Product::create` pushes them (largest
/// first). Bit `i` of a presence mask stands for `PRODUCT[i]`.
const PRODUCT: [Field; 17] = [
    field(8, fb::Product::VT_CREATED_AT_MS),
    field(8, fb::Product::VT_RATING),
    field(8, fb::Product::VT_PRICE_CENTS),
    field(8, fb::Product::VT_ID),
    field(4, fb::Product::VT_IMAGE_URL),
    field(4, fb::Product::VT_DISCOUNT_PERCENT),
    field(4, fb::Product::VT_VARIANTS),
    Field {
        size: 16,
        align: 4,
        slot: fb::Product::VT_DIMENSIONS,
    },
    field(4, fb::Product::VT_TAGS),
    field(4, fb::Product::VT_STOCK),
    field(4, fb::Product::VT_REVIEW_COUNT),
    field(4, fb::Product::VT_CURRENCY),
    field(4, fb::Product::VT_DESCRIPTION),
    field(4, fb::Product::VT_NAME),
    field(4, fb::Product::VT_SKU),
    field(1, fb::Product::VT_STATUS),
    field(1, fb::Product::VT_IN_STOCK),
];

/// `Variant`'s fields in the order `Variant::create` pushes them.
const VARIANT: [Field; 5] = [
    field(8, fb::Variant::VT_PRICE_CENTS),
    field(4, fb::Variant::VT_STOCK),
    field(4, fb::Variant::VT_SIZE),
    field(4, fb::Variant::VT_COLOR),
    field(4, fb::Variant::VT_SKU),
];

/// `Catalog`'s one field.
const CATALOG: [Field; 1] = [field(4, fb::Catalog::VT_PRODUCTS)];

/// Which of `p`'s fields the builder writes (a scalar equal to its default
/// is left out), as a mask over [`PRODUCT`].
fn product_mask(p: &Product, status: fb::Status) -> u32 {
    const ALWAYS: u32 = 1 << 4 | 1 << 6 | 1 << 7 | 1 << 8 | 0b1111 << 11;
    ALWAYS
        | u32::from(p.created_at_ms != 0)
        | u32::from(p.rating != 0.0) << 1
        | u32::from(p.price_cents != 0) << 2
        | u32::from(p.id != 0) << 3
        | u32::from(p.discount_percent.is_some()) << 5
        | u32::from(p.stock != 0) << 9
        | u32::from(p.review_count != 0) << 10
        | u32::from(status != fb::Status::ACTIVE) << 15
        | u32::from(p.in_stock) << 16
}

/// The same over [`VARIANT`].
fn variant_mask(v: &Variant) -> u32 {
    0b11100 | u32::from(v.price_cents != 0) | u32::from(v.stock != 0) << 1
}

/// The schema's `Status` of `s`: the same ordinal.
fn fb_status(s: Status) -> fb::Status {
    fb::Status(s.index() as i8)
}

/// The generated `ProductArgs` of `p`, given the offsets of its strings
/// (`[sku, name, description, currency, image_url]`) and lists, built
/// before it: what `Product::create` takes, here and in [`super::builder`].
pub(super) fn product_args<'a>(
    p: &Product,
    [sku, name, description, currency, image_url]: [WIPOffset<&'a str>; 5],
    tags: WIPOffset<Vector<'a, ForwardsUOffset<&'a str>>>,
    variants: WIPOffset<Vector<'a, ForwardsUOffset<fb::Variant<'a>>>>,
    dimensions: &'a fb::Dimensions,
) -> fb::ProductArgs<'a> {
    fb::ProductArgs {
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
        status: fb_status(p.status),
        tags: Some(tags),
        dimensions: Some(dimensions),
        variants: Some(variants),
        discount_percent: p.discount_percent,
        created_at_ms: p.created_at_ms,
        image_url: Some(image_url),
    }
}

/// Table types, for [`shape`].
const PRODUCT_TABLE: u32 = 0;
const VARIANT_TABLE: u32 = 1 << 28;
const CATALOG_TABLE: u32 = 2 << 28;

/// A table's shape: its type, its presence mask and where it starts modulo
/// 8 (bits 24..27). Two tables of one shape get the same vtable. Never 0:
/// every table has a field that is always present.
fn shape(table: u32, mask: u32, used: u64) -> u32 {
    table | mask | ((used & 7) as u32) << 24
}

/// How many shapes a build remembers (the fixture catalog has 26: 13
/// presence masks of products, each at both starts modulo 8, and 2 of
/// variants). A table of a shape beyond these takes the generic path (the
/// generated `create`, or [`layout`] when sizing): slower, same bytes.
const MAX_SHAPES: usize = 48;

/// Slots of [`Shapes`]: more than [`MAX_SHAPES`], so a probe always ends
/// at an empty slot.
const SLOTS: usize = 64;

/// A small open-addressing map from a table [`shape`] to a number: the
/// bytes the table takes when sizing, where its vtable is when building.
struct Shapes {
    /// `(shape, value)`; shape 0 marks an empty slot.
    slots: [(u32, u32); SLOTS],
    len: usize,
    /// How many shapes it takes before it ignores new ones (0 in the tests
    /// that send every table down the generic path).
    limit: usize,
}

impl Shapes {
    fn new(limit: usize) -> Shapes {
        Shapes {
            slots: [(0, 0); SLOTS],
            len: 0,
            limit: limit.min(MAX_SHAPES),
        }
    }

    fn slot(key: u32) -> usize {
        (key.wrapping_mul(0x9E37_79B1) >> 26) as usize // the top 6 bits: 0..SLOTS
    }

    #[inline]
    fn get(&self, key: u32) -> Option<u32> {
        let mut i = Shapes::slot(key);
        loop {
            let (k, v) = self.slots[i];
            if k == key {
                return Some(v);
            }
            if k == 0 {
                return None;
            }
            i = (i + 1) % SLOTS;
        }
    }

    fn insert(&mut self, key: u32, value: u32) {
        debug_assert_ne!(key, 0);
        if self.len >= self.limit {
            return;
        }
        let mut i = Shapes::slot(key);
        while self.slots[i].0 != 0 {
            i = (i + 1) % SLOTS;
        }
        self.slots[i] = (key, value);
        self.len += 1;
    }
}

/// What the builder writes for a table with the fields of `mask` from
/// `fields`, starting `used` bytes into the buffer (`start_table` to
/// `end_table`): the bytes up to and including the table's offset to its
/// vtable (leading padding included), the vtable it needs, and the largest
/// alignment it asked for.
fn layout(fields: &[Field], mask: u32, used: u64) -> (u64, Vtable, u64) {
    let mut at = used;
    let mut align = 4;
    let mut ends = [0; PRODUCT.len()];
    for (i, f) in fields.iter().enumerate() {
        if mask & 1 << i != 0 {
            at += (at + f.size).wrapping_neg() & (f.align - 1);
            at += f.size;
            ends[i] = at;
            align = align.max(f.align);
        }
    }
    at = ((at + 3) & !3) + 4; // the offset to the vtable
    let mut vtable = Vtable {
        bytes: [0; MAX_VTABLE],
        len: 4,
    };
    for (i, f) in fields.iter().enumerate() {
        if mask & 1 << i != 0 {
            let s = usize::from(f.slot);
            vtable.bytes[s..s + 2].copy_from_slice(&((at - ends[i]) as u16).to_le_bytes());
            vtable.len = vtable.len.max(s + 2);
        }
    }
    vtable.bytes[0..2].copy_from_slice(&(vtable.len as u16).to_le_bytes());
    vtable.bytes[2..4].copy_from_slice(&((at - used) as u16).to_le_bytes());
    (at - used, vtable, align)
}

/// The longest vtable of our schema: `Product`'s, up to its last slot.
const MAX_VTABLE: usize = fb::Product::VT_IMAGE_URL as usize + 2;

/// A vtable as the builder writes it: `len` bytes (its own length, the
/// table's inline size, then one offset per slot up to the last present).
#[derive(Clone, Copy)]
struct Vtable {
    bytes: [u8; MAX_VTABLE],
    len: usize,
}

impl Vtable {
    fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// The builder's arithmetic without the bytes, for [`exact_size`].
struct Sizer {
    used: u64,
    /// The largest alignment asked for so far (the finished buffer is
    /// padded to it).
    align: u64,
    /// Every distinct vtable written so far.
    vtables: Vec<Vtable>,
    /// Shape → bytes the table takes (its vtable excluded).
    shapes: Shapes,
}

impl Sizer {
    /// A string of `len` bytes: padding to 4 after the terminating NUL,
    /// then the length.
    fn string(&mut self, len: usize) {
        self.used = ((self.used + len as u64 + 1 + 3) & !3) + 4;
    }

    /// A vector of `n` offsets: padding to 4, the offsets, the length.
    fn vector(&mut self, n: usize) {
        self.used = ((self.used + 3) & !3) + 4 * n as u64 + 4;
    }

    /// A table of type `table` with the fields of `mask` from `fields`.
    #[inline]
    fn table(&mut self, table: u32, fields: &[Field], mask: u32) {
        let key = shape(table, mask, self.used);
        match self.shapes.get(key) {
            Some(bytes) => self.used += u64::from(bytes),
            None => self.new_shape(fields, mask, key),
        }
    }

    /// A table of a shape not seen before (or not remembered).
    #[cold]
    #[inline(never)]
    fn new_shape(&mut self, fields: &[Field], mask: u32, key: u32) {
        let (bytes, vtable, align) = layout(fields, mask, self.used);
        self.used += bytes;
        self.align = self.align.max(align);
        if !self.vtables.iter().any(|v| v.as_bytes() == vtable.as_bytes()) {
            self.used += vtable.len as u64;
            self.vtables.push(vtable);
        }
        self.shapes.insert(key, bytes as u32);
    }
}

/// The exact length of the FlatBuffer [`build`] writes for `products`: the
/// same walk, in the same order, adding up what each step writes. Tables of
/// a shape seen before cost a lookup; a new shape runs [`layout`]. Also
/// returns each product's [`product_mask`], last product first, for
/// [`build`]. At most `max_shapes` table shapes are remembered.
fn exact_size(products: &[Product], max_shapes: usize) -> (u64, Vec<u32>) {
    let mut masks = Vec::with_capacity(products.len());
    let mut z = Sizer {
        used: 0,
        align: 4,
        vtables: Vec::new(),
        shapes: Shapes::new(max_shapes),
    };
    for p in products.iter().rev() {
        z.string(p.image_url.len());
        for v in p.variants.iter().rev() {
            z.string(v.size.len());
            z.string(v.color.len());
            z.string(v.sku.len());
            z.table(VARIANT_TABLE, &VARIANT, variant_mask(v));
        }
        z.vector(p.variants.len());
        for t in p.tags.iter().rev() {
            z.string(t.len());
        }
        z.vector(p.tags.len());
        z.string(p.currency.len());
        z.string(p.description.len());
        z.string(p.name.len());
        z.string(p.sku.len());
        let mask = product_mask(p, fb_status(p.status));
        masks.push(mask);
        z.table(PRODUCT_TABLE, &PRODUCT, mask);
    }
    z.vector(products.len());
    z.table(CATALOG_TABLE, &CATALOG, 1);
    // `finish`: padding so that the root offset and the file identifier
    // end on the buffer's largest alignment, then the two.
    let end = z.used + 8;
    (end + (end.wrapping_neg() & (z.align - 1)), masks)
}

/// After the generated `create` wrote `table`, remembers where its vtable
/// is under `key`: the table starts with the signed distance to it.
fn remember_vtable(fbb: &FlatBufferBuilder<'_>, table: u32, shapes: &mut Shapes, key: u32) {
    let data = fbb.unfinished_data();
    let at = data.len() - table as usize;
    let soffset = i32::from_le_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]);
    shapes.insert(key, table.wrapping_add_signed(soffset));
}

/// Ends a table whose last field push left the builder `used` bytes in:
/// pushes the signed distance from the table to the vtable at `vtable`,
/// as `end_table` does when it finds the vtable already written.
fn close_table<T>(fbb: &mut FlatBufferBuilder<'_>, used: u32, vtable: u32) -> WIPOffset<T> {
    let table = ((used + 3) & !3) + 4;
    let at = fbb.push(vtable.wrapping_sub(table) as i32).value();
    debug_assert_eq!(at, table);
    WIPOffset::new(at)
}

/// Builds the whole catalog into `fbb` and finishes it with the `WBCT`
/// file identifier. `masks` holds each product's [`product_mask`], last
/// product first, as [`exact_size`] returns them. At most `max_shapes`
/// table shapes are remembered (0: every table through the generated
/// `create`).
fn build(fbb: &mut FlatBufferBuilder<'_>, products: &[Product], masks: &[u32], max_shapes: usize) {
    let mut shapes = Shapes::new(max_shapes);
    let mut variants = Vec::new();
    let mut tags = Vec::new();
    let mut offsets = Vec::with_capacity(products.len());
    // Last product first, so product 0 ends up first in the buffer.
    for (p, &mask) in products.iter().rev().zip(masks) {
        offsets.push(build_product(fbb, p, mask, &mut shapes, &mut variants, &mut tags));
    }
    offsets.reverse();
    let list = fbb.create_vector(&offsets);
    let root = fb::Catalog::create(fbb, &fb::CatalogArgs { products: Some(list) });
    fb::finish_catalog_buffer(fbb, root);
}

/// One product: its out-of-line objects in reverse field order, then the
/// table.
fn build_product<'f>(
    fbb: &mut FlatBufferBuilder<'f>,
    p: &Product,
    mask: u32,
    shapes: &mut Shapes,
    variants: &mut Vec<WIPOffset<fb::Variant<'f>>>,
    tags: &mut Vec<WIPOffset<&'f str>>,
) -> WIPOffset<fb::Product<'f>> {
    let image_url = fbb.create_string(&p.image_url);

    variants.clear();
    for v in p.variants.iter().rev() {
        variants.push(build_variant(fbb, v, shapes));
    }
    variants.reverse();
    let variant_list = fbb.create_vector(variants);

    tags.clear();
    for t in p.tags.iter().rev() {
        tags.push(fbb.create_string(t));
    }
    tags.reverse();
    let tag_list = fbb.create_vector(tags);

    let currency = fbb.create_string(&p.currency);
    let description = fbb.create_string(&p.description);
    let name = fbb.create_string(&p.name);
    let sku = fbb.create_string(&p.sku);

    let d = &p.dimensions;
    let dimensions = fb::Dimensions::new(d.width_mm, d.height_mm, d.depth_mm, d.weight_g);
    let status = fb_status(p.status);
    debug_assert_eq!(mask, product_mask(p, status));
    let key = shape(PRODUCT_TABLE, mask, u64::from(sku.value()));
    if let Some(vtable) = shapes.get(key) {
        // What `Product::create` pushes, in its order, skipping the fields
        // `mask` leaves out.
        if mask & 1 != 0 {
            fbb.push(p.created_at_ms);
        }
        if mask & 1 << 1 != 0 {
            fbb.push(p.rating);
        }
        if mask & 1 << 2 != 0 {
            fbb.push(p.price_cents);
        }
        if mask & 1 << 3 != 0 {
            fbb.push(p.id);
        }
        fbb.push(image_url);
        if let Some(x) = p.discount_percent {
            fbb.push(x);
        }
        fbb.push(variant_list);
        fbb.push(&dimensions);
        fbb.push(tag_list);
        if mask & 1 << 9 != 0 {
            fbb.push(p.stock);
        }
        if mask & 1 << 10 != 0 {
            fbb.push(p.review_count);
        }
        fbb.push(currency);
        fbb.push(description);
        fbb.push(name);
        let mut used = fbb.push(sku).value();
        if mask & 1 << 15 != 0 {
            used = fbb.push(status).value();
        }
        if mask & 1 << 16 != 0 {
            used = fbb.push(true).value();
        }
        return close_table(fbb, used, vtable);
    }
    let args = product_args(
        p,
        [sku, name, description, currency, image_url],
        tag_list,
        variant_list,
        &dimensions,
    );
    let table = fb::Product::create(fbb, &args);
    remember_vtable(fbb, table.value(), shapes, key);
    table
}

/// One variant: its strings in reverse field order, then the table.
fn build_variant<'f>(fbb: &mut FlatBufferBuilder<'f>, v: &Variant, shapes: &mut Shapes) -> WIPOffset<fb::Variant<'f>> {
    let size = fbb.create_string(&v.size);
    let color = fbb.create_string(&v.color);
    let sku = fbb.create_string(&v.sku);
    let mask = variant_mask(v);
    let key = shape(VARIANT_TABLE, mask, u64::from(sku.value()));
    if let Some(vtable) = shapes.get(key) {
        if mask & 1 != 0 {
            fbb.push(v.price_cents);
        }
        if mask & 1 << 1 != 0 {
            fbb.push(v.stock);
        }
        fbb.push(size);
        fbb.push(color);
        let used = fbb.push(sku).value();
        return close_table(fbb, used, vtable);
    }
    let args = fb::VariantArgs {
        sku: Some(sku),
        color: Some(color),
        size: Some(size),
        price_cents: v.price_cents,
        stock: v.stock,
    };
    let table = fb::Variant::create(fbb, &args);
    remember_vtable(fbb, table.value(), shapes, key);
    table
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;

    /// [`product_mask`] of every product, last first, without sizing.
    fn masks_of(products: &[Product]) -> Vec<u32> {
        products
            .iter()
            .rev()
            .map(|p| product_mask(p, fb_status(p.status)))
            .collect()
    }

    /// The reference: every table through the generated `create` (no table
    /// pushed by hand), in a builder of its own that grows as it needs.
    fn generic(products: &[Product]) -> Vec<u8> {
        let mut fbb = FlatBufferBuilder::new();
        build(&mut fbb, products, &masks_of(products), 0);
        fbb.finished_data().to_vec()
    }

    /// Products with every combination of present and default optional
    /// scalars (512 product masks, 4 variant masks), with string lengths
    /// that start tables at both 0 and 4 modulo 8: more shapes than
    /// [`MAX_SHAPES`], and shapes whose vtables are equal.
    fn every_shape() -> Vec<Product> {
        let base = fixtures::catalog(1).products.remove(0);
        (0..1024u32)
            .map(|k| {
                let on = |bit: u32| k & 1 << bit != 0;
                let mut p = base.clone();
                p.created_at_ms = if on(0) { 1_700_000_000_000 } else { 0 };
                p.rating = if on(1) { 4.5 } else { 0.0 };
                p.price_cents = if on(2) { 1999 } else { 0 };
                p.id = if on(3) { i64::from(k) + 1 } else { 0 };
                p.discount_percent = on(4).then_some(15);
                p.stock = if on(5) { 7 } else { 0 };
                p.review_count = if on(6) { 12 } else { 0 };
                p.status = if on(7) { Status::Draft } else { Status::Active };
                p.in_stock = on(8);
                p.sku = "S".repeat(if on(9) { 4 } else { 8 });
                p.variants.truncate(1);
                for (i, v) in p.variants.iter_mut().enumerate() {
                    v.price_cents = if (k as usize + i) % 2 == 0 { 0 } else { 250 };
                    v.stock = if (k as usize + i) % 3 == 0 { 0 } else { 3 };
                    v.sku = "V".repeat(k as usize % 5);
                }
                p
            })
            .collect()
    }

    /// Every catalog the tests below build: fixtures of several sizes, the
    /// canonical fixture, seeded random ones, and every shape.
    fn catalogs() -> Vec<Vec<Product>> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(fixtures::CANONICAL_PATH);
        let mut all: Vec<Vec<Product>> = [0, 1, 3, 100].map(|n| fixtures::catalog(n).products).into();
        all.push(fixtures::load_file(&path).expect("fixture").products);
        all.extend((0..300).map(|seed| fixtures::random_catalog(seed).products));
        all.push(every_shape());
        all
    }

    #[test]
    fn tables_pushed_by_hand_are_the_generated_creates_bytes_sized_exactly() {
        for (i, products) in catalogs().iter().enumerate() {
            let want = generic(products);
            let mut got = Vec::new();
            encode(products, &mut got).unwrap();
            assert_eq!(got, want, "catalog {i}: bytes differ from the generated create's");
            let mut again = Vec::new();
            encode(products, &mut again).unwrap();
            assert_eq!(again, want, "catalog {i}: a second encode differs");
            // The size is exact, with or without shapes remembered.
            let len = want.len() as u64;
            assert_eq!(
                exact_size(products, MAX_SHAPES),
                (len, masks_of(products)),
                "catalog {i}"
            );
            assert_eq!(exact_size(products, 0).0, len, "catalog {i}, no shapes remembered");
            let (buf, start) = build_in(Vec::new(), len as usize, products, &masks_of(products));
            assert_eq!(
                (start, buf.len() as u64),
                (0, len),
                "catalog {i}: the build did not fill the buffer"
            );
        }
    }

    #[test]
    fn every_shape_needs_more_than_the_remembered_shapes() {
        let masks: std::collections::HashSet<u32> = masks_of(&every_shape()).into_iter().collect();
        assert_eq!(masks.len(), 512);
        assert!(masks.len() > MAX_SHAPES);
        // A full map still answers (every probe ends at an empty slot) and
        // takes no more.
        let mut shapes = Shapes::new(usize::MAX);
        for k in 1..=2 * SLOTS as u32 {
            shapes.insert(k, k);
        }
        assert_eq!(shapes.len, MAX_SHAPES);
        assert_eq!(shapes.get(1), Some(1));
        assert_eq!(shapes.get(2 * SLOTS as u32), None);
    }

    #[test]
    fn a_wrong_size_is_slower_never_wrong() {
        let products = fixtures::catalog(20).products;
        let want = generic(&products);
        let masks = masks_of(&products);
        for size in [0, 1, want.len() - 1, want.len() + 1, want.len() + 100, 3 * want.len()] {
            let (buf, start) = build_in(b"stale bytes".to_vec(), size, &products, &masks);
            assert_eq!(front(buf, start), want, "buffer of {size} bytes");
        }
    }
}
