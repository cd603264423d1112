//! The types a borrowed (zero-copy) read produces, shared by the five
//! formats: [`Text`], [`InlineList`], [`ProductView`] and [`VariantView`],
//! and the [`ProductReader`] each format implements, with [`check_list`],
//! which runs one to its end validating every product. [`ProductOut`] is
//! what a reader generic over its output fills, a view or an owned
//! [`Product`], so one walk serves both decodes ([`check_list_into`]). This
//! module names no format; [`catalog_view`](super::catalog_view) dispatches
//! over them.
//!
//! A format's view reader checks a payload exactly as its owned decode does
//! — UTF-8, number ranges, list limits, enum values, required and duplicate
//! fields, unique ids, trailing bytes — but builds no `String` or `Vec`:
//! strings are [`Text`] slices of the payload and lists (at most 5 tags, 3
//! variants) are [`InlineList`]s, fixed-size arrays.
//!
//! The allocations of a view decode do not grow with the product count: none
//! while ids arrive in increasing order (every encoder here writes them so),
//! one id set when they do not, and for JSON the lexer's one scratch buffer
//! for escaped keys and strings.

use super::DecodeError;
use super::escape::{self, Unescape};
use super::ids::UniqueIds;
use crate::model::{self, Dimensions, FactText, Product, ProductFacts, Status, Variant};
use std::borrow::Cow;
use std::fmt;

/// A string of the payload. For every format but JSON it is the string
/// itself; a JSON string that held escapes is kept as written (between the
/// quotes, escapes already validated) and unescaped only when read
/// ([`Text::chars`], [`Text::to_cow`], `Display`).
#[derive(Clone, Copy, Default)]
pub struct Text<'a> {
    raw: &'a str,
    escaped: bool,
}

impl<'a> Text<'a> {
    /// A string without escapes.
    #[inline]
    pub fn plain(s: &'a str) -> Text<'a> {
        Text { raw: s, escaped: false }
    }

    /// The text between a JSON string's quotes, holding at least one escape
    /// that the lexer has already checked.
    #[inline]
    pub(crate) fn json_escaped(raw: &'a str) -> Text<'a> {
        Text { raw, escaped: true }
    }

    /// The string, borrowed, when it needs no unescaping.
    #[inline]
    pub fn as_str(&self) -> Option<&'a str> {
        (!self.escaped).then_some(self.raw)
    }

    /// The characters of the string (JSON escapes decoded on the fly).
    pub fn chars(&self) -> impl Iterator<Item = char> + 'a {
        let (plain, escaped) = if self.escaped {
            ("", Some(Unescape::new(self.raw)))
        } else {
            (self.raw, None)
        };
        plain.chars().chain(escaped.into_iter().flatten())
    }

    /// The string: borrowed when it held no escape, else unescaped into a
    /// new `String`.
    #[inline]
    pub fn to_cow(&self) -> Cow<'a, str> {
        match self.as_str() {
            Some(s) => Cow::Borrowed(s),
            None => Cow::Owned(escape::unescape(self.raw)),
        }
    }
}

/// Equal when the strings are equal, however each was written.
impl PartialEq for Text<'_> {
    fn eq(&self, other: &Self) -> bool {
        match (self.as_str(), other.as_str()) {
            (Some(a), Some(b)) => a == b,
            _ => self.chars().eq(other.chars()),
        }
    }
}

impl Eq for Text<'_> {}

impl fmt::Display for Text<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.as_str() {
            Some(s) => f.write_str(s),
            None => self.chars().try_for_each(|c| fmt::Write::write_char(f, c)),
        }
    }
}

impl fmt::Debug for Text<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.to_cow(), f)
    }
}

/// A list of at most `N` items held inline. `len` counts every item the
/// wire held; only a list over the limit (which validation then refuses)
/// holds fewer than `len`.
#[derive(Clone, Copy, Debug)]
pub struct InlineList<T, const N: usize> {
    len: usize,
    items: [T; N],
}

/// Equal when they hold the same count and the same items (what lies past
/// the count is not part of the list).
impl<T: PartialEq, const N: usize> PartialEq for InlineList<T, N> {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.as_slice() == other.as_slice()
    }
}

impl<T: Copy + Default, const N: usize> Default for InlineList<T, N> {
    fn default() -> Self {
        InlineList {
            len: 0,
            items: [T::default(); N],
        }
    }
}

impl<T, const N: usize> InlineList<T, N> {
    /// Empties the list (the items stay in place, out of reach).
    #[inline]
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }

    /// Appends `x`, or only counts it when the list is full.
    #[inline]
    pub(crate) fn push(&mut self, x: T) {
        if let Some(slot) = self.items.get_mut(self.len) {
            *slot = x;
        }
        self.len += 1;
    }

    /// The items held.
    #[inline]
    pub fn as_slice(&self) -> &[T] {
        &self.items[..self.len.min(N)]
    }

    /// How many items the wire held.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.as_slice().iter()
    }
}

/// A variant read in place.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct VariantView<'a> {
    pub sku: Text<'a>,
    pub color: Text<'a>,
    pub size: Text<'a>,
    pub price_cents: i64,
    pub stock: i32,
}

/// A product read in place: the fields of [`Product`], strings as [`Text`].
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ProductView<'a> {
    pub id: i64,
    pub sku: Text<'a>,
    pub name: Text<'a>,
    pub description: Text<'a>,
    pub price_cents: i64,
    pub currency: Text<'a>,
    pub rating: f64,
    pub review_count: i32,
    pub in_stock: bool,
    pub stock: i32,
    pub status: Status,
    pub tags: InlineList<Text<'a>, { model::MAX_TAGS }>,
    pub dimensions: Dimensions,
    pub variants: InlineList<VariantView<'a>, { model::MAX_VARIANTS }>,
    pub discount_percent: Option<i32>,
    pub created_at_ms: i64,
    pub image_url: Text<'a>,
}

impl ProductView<'_> {
    /// Copies the product into owned domain types.
    pub fn to_product(&self) -> Product {
        let s = |t: &Text<'_>| t.to_cow().into_owned();
        Product {
            id: self.id,
            sku: s(&self.sku),
            name: s(&self.name),
            description: s(&self.description),
            price_cents: self.price_cents,
            currency: s(&self.currency),
            rating: self.rating,
            review_count: self.review_count,
            in_stock: self.in_stock,
            stock: self.stock,
            status: self.status,
            tags: self.tags.iter().map(s).collect(),
            dimensions: self.dimensions.clone(),
            variants: self
                .variants
                .iter()
                .map(|v| Variant {
                    sku: s(&v.sku),
                    color: s(&v.color),
                    size: s(&v.size),
                    price_cents: v.price_cents,
                    stock: v.stock,
                })
                .collect(),
            discount_percent: self.discount_percent,
            created_at_ms: self.created_at_ms,
            image_url: s(&self.image_url),
        }
    }
}

impl FactText for Text<'_> {
    fn fact_chars(&self) -> impl Iterator<Item = char> + '_ {
        self.chars()
    }
    #[inline]
    fn fact_str(&self) -> Option<&str> {
        self.as_str()
    }
}

model::impl_product_facts!(ProductView<'_>);

/// One value a reader read, for the field it names (the fields of
/// [`Product`] but its lists): what [`ProductOut::set`] stores.
pub(crate) enum Set<'a> {
    Id(i64),
    Sku(&'a str),
    Name(&'a str),
    Description(&'a str),
    PriceCents(i64),
    Currency(&'a str),
    Rating(f64),
    ReviewCount(i32),
    InStock(bool),
    Stock(i32),
    Status(Status),
    Dimensions(Dimensions),
    DiscountPercent(Option<i32>),
    CreatedAtMs(i64),
    ImageUrl(&'a str),
}

/// One value of a variant, for [`VariantOut::set`].
pub(crate) enum SetVariant<'a> {
    Sku(&'a str),
    Color(&'a str),
    Size(&'a str),
    PriceCents(i64),
    Stock(i32),
}

/// What a format's reader fills as it walks the bytes: the borrowed
/// [`ProductView`] (a string stays a slice of the payload) or the owned
/// [`Product`] (a string is copied once, as it is read). The MessagePack and
/// Avro readers are generic over it, so their view and their owned decode are
/// one walk of one grammar with one set of error sites; monomorphized and
/// inlined, each [`set`](ProductOut::set) is a store.
pub(crate) trait ProductOut<'a> {
    /// A string of the payload as this output holds it.
    type Text: From<&'a str>;
    type Variant: VariantOut<'a>;
    fn set(&mut self, v: Set<'a>);
    fn tags(&mut self) -> &mut impl List<Self::Text>;
    fn variants(&mut self) -> &mut impl List<Self::Variant>;
}

/// A variant a reader fills ([`ProductOut`]), from its default (every
/// field empty or zero).
pub(crate) trait VariantOut<'a>: Default {
    fn set(&mut self, v: SetVariant<'a>);
}

/// A list a reader fills: the owned product's `Vec`, the view's
/// [`InlineList`] (cleared for each product, its room fixed).
pub(crate) trait List<T> {
    fn clear(&mut self);
    /// Room for `n` more items, a count the reader has checked against the
    /// input and the model's limit.
    fn reserve(&mut self, n: usize);
    fn push(&mut self, x: T);
}

impl<T> List<T> for Vec<T> {
    #[inline(always)]
    fn clear(&mut self) {
        Vec::clear(self);
    }
    #[inline(always)]
    fn reserve(&mut self, n: usize) {
        self.reserve_exact(n);
    }
    #[inline(always)]
    fn push(&mut self, x: T) {
        Vec::push(self, x);
    }
}

impl<T, const N: usize> List<T> for InlineList<T, N> {
    #[inline(always)]
    fn clear(&mut self) {
        InlineList::clear(self);
    }
    #[inline(always)]
    fn reserve(&mut self, _: usize) {}
    #[inline(always)]
    fn push(&mut self, x: T) {
        InlineList::push(self, x);
    }
}

impl<'a> From<&'a str> for Text<'a> {
    #[inline(always)]
    fn from(s: &'a str) -> Text<'a> {
        Text::plain(s)
    }
}

/// [`ProductOut`] and [`VariantOut`] for a product and a variant type whose
/// fields have the model's names: one body for the view and the owned model.
macro_rules! product_out {
    ($product:ty, $variant:ty, $text:ty) => {
        impl<'a> ProductOut<'a> for $product {
            type Text = $text;
            type Variant = $variant;
            #[inline(always)]
            fn set(&mut self, v: Set<'a>) {
                match v {
                    Set::Id(x) => self.id = x,
                    Set::Sku(s) => self.sku = s.into(),
                    Set::Name(s) => self.name = s.into(),
                    Set::Description(s) => self.description = s.into(),
                    Set::PriceCents(x) => self.price_cents = x,
                    Set::Currency(s) => self.currency = s.into(),
                    Set::Rating(x) => self.rating = x,
                    Set::ReviewCount(x) => self.review_count = x,
                    Set::InStock(x) => self.in_stock = x,
                    Set::Stock(x) => self.stock = x,
                    Set::Status(x) => self.status = x,
                    Set::Dimensions(x) => self.dimensions = x,
                    Set::DiscountPercent(x) => self.discount_percent = x,
                    Set::CreatedAtMs(x) => self.created_at_ms = x,
                    Set::ImageUrl(s) => self.image_url = s.into(),
                }
            }
            #[inline(always)]
            fn tags(&mut self) -> &mut impl List<$text> {
                &mut self.tags
            }
            #[inline(always)]
            fn variants(&mut self) -> &mut impl List<$variant> {
                &mut self.variants
            }
        }

        impl<'a> VariantOut<'a> for $variant {
            #[inline(always)]
            fn set(&mut self, v: SetVariant<'a>) {
                match v {
                    SetVariant::Sku(s) => self.sku = s.into(),
                    SetVariant::Color(s) => self.color = s.into(),
                    SetVariant::Size(s) => self.size = s.into(),
                    SetVariant::PriceCents(x) => self.price_cents = x,
                    SetVariant::Stock(x) => self.stock = x,
                }
            }
        }
    };
}

product_out!(ProductView<'a>, VariantView<'a>, Text<'a>);
product_out!(Product, Variant, String);

/// A position in one format's list of products.
pub(crate) trait ProductReader<'a>: Clone {
    /// Reads the next product into `p` (in place: a view is a few hundred
    /// bytes), checking everything its format's owned decoder checks while
    /// reading (not yet the data model's rules); `None` at the end of the
    /// list, else the offset where the owned decoder reports that product's
    /// validation errors.
    fn next_product(&mut self, index: usize, p: &mut ProductView<'a>) -> Result<Option<usize>, DecodeError>;

    /// Bytes of the payload not yet read (bounds the id set's capacity).
    fn remaining(&self) -> usize;
}

/// Reads `list` to its end, validating every product and that ids are
/// unique, and hands each valid product to `each` as it is read (the owned
/// decoders copy it into a [`Product`] there: one pass); returns the product
/// count. `min_product_bytes` is the smallest encoding of a product, so the
/// id set (built only when ids are out of order) never needs more room than
/// the payload could hold ids.
#[inline]
pub(crate) fn check_list<'a, L: ProductReader<'a>>(
    list: &mut L,
    min_product_bytes: usize,
    mut each: impl FnMut(&ProductView<'a>),
) -> Result<usize, DecodeError> {
    let next = |l: &mut L, i, p: &mut ProductView<'a>| l.next_product(i, p);
    check_list_into(list, min_product_bytes, &mut ProductView::default(), next, |p| each(p))
}

/// [`check_list`] reading each product into `p` with `next`, which fills
/// whichever [`ProductOut`] `P` is (a reader generic over it builds the
/// owned products in the same pass as the view's checks).
#[inline]
pub(crate) fn check_list_into<'a, L: ProductReader<'a>, P: ProductFacts>(
    list: &mut L,
    min_product_bytes: usize,
    p: &mut P,
    mut next: impl FnMut(&mut L, usize, &mut P) -> Result<Option<usize>, DecodeError>,
    mut each: impl FnMut(&mut P),
) -> Result<usize, DecodeError> {
    let start = list.clone();
    let mut ids = UniqueIds::new();
    let mut index = 0;
    while let Some(at) = next(list, index, p)? {
        model::validate_product(p, index).map_err(|e| DecodeError::invalid(at, e))?;
        // Only if the order breaks: the ids before this one, read again from
        // the start (each of those products was read and checked already),
        // and room for every product the rest of the payload could hold.
        let earlier = || {
            let (mut again, mut q) = (start.clone(), ProductView::default());
            (0..index).map(move |i| match again.next_product(i, &mut q) {
                Ok(Some(_)) => q.id,
                _ => i64::MIN, // not reached: these products were read before
            })
        };
        let room = || list.remaining() / min_product_bytes.max(1);
        let id = p.id();
        if !ids.insert(id, earlier, room) {
            return Err(DecodeError::invalid(at, model::duplicate_id(index, id)));
        }
        each(p);
        index += 1;
    }
    Ok(index)
}

/// [`check_list_into`] collecting owned products: `next` fills a
/// [`Product`] per item (a reader generic over [`ProductOut`]), and each
/// valid one is kept. `capacity` is reserved first (at most what the
/// payload could hold).
#[inline]
pub(crate) fn collect_list<'a, L: ProductReader<'a>>(
    list: &mut L,
    min_product_bytes: usize,
    capacity: usize,
    next: impl FnMut(&mut L, usize, &mut Product) -> Result<Option<usize>, DecodeError>,
) -> Result<Vec<Product>, DecodeError> {
    let mut products = Vec::with_capacity(capacity);
    let keep = |p: &mut Product| products.push(std::mem::take(p));
    check_list_into(list, min_product_bytes, &mut Product::default(), next, keep)?;
    Ok(products)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_counts_past_its_capacity() {
        let mut l: InlineList<u8, 2> = InlineList::default();
        for x in 1..=3 {
            l.push(x);
        }
        assert_eq!(l.len(), 3);
        assert_eq!(l.as_slice(), &[1, 2]);
        l.clear();
        l.push(7);
        let mut m: InlineList<u8, 2> = InlineList::default();
        m.push(7);
        assert_eq!(l, m, "what lies past the count is not compared");
    }

    #[test]
    fn text_is_borrowed_when_plain_and_unescaped_when_read() {
        let t = Text::plain("abc");
        assert_eq!(t.as_str(), Some("abc"));
        assert!(matches!(t.to_cow(), Cow::Borrowed("abc")));
        assert_eq!(t, Text::json_escaped(r"a\u0062c"));
        assert_ne!(t, Text::json_escaped(r"a\u0062d"));
        assert_eq!(t.to_string(), "abc");
        // Escaped text is unescaped only when read, the same every way.
        #[rustfmt::skip]
        let escaped = [
            (r#"a\"b"#, "a\"b"), (r#"\\\/\b\f\n\r\t"#, "\\/\u{8}\u{c}\n\r\t"),
            (r#"caf\u00e9 \u0007"#, "café \u{7}"), (r#"\ud83d\udce6!"#, "📦!"),
        ];
        for (raw, want) in escaped {
            let t = Text::json_escaped(raw);
            assert_eq!(
                (t.as_str(), t.to_cow(), t.to_string()),
                (None, want.into(), want.to_string())
            );
            assert_eq!(t, Text::plain(want));
        }
    }
}
