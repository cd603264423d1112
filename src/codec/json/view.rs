//! The JSON reader: the catalog read in place on the [`Lexer`], strings as
//! slices of the text; the owned decode ([`decode`](super::decode)) copies
//! each product out of it as soon as it is read and checked.
//!
//! A product spelled exactly as our writer spells it is read by one straight
//! run of token compares and values (`canonical`); any other spelling (the
//! grammar of the module doc of [`json`](super)) is read again from its `{`
//! by the grammar, which gives every error.
//!
//! **Strings with escapes** are validated up front — the lexer decodes every
//! escape once, into its one scratch buffer, refusing bad escapes and lone
//! surrogates — and then handed out *as written*: a [`Text`] holding the
//! bytes between the quotes, unescaped lazily by [`Unescape`](crate::codec::escape::Unescape) when read
//! ([`Text::chars`], [`Text::to_cow`], `Display`). So a view never
//! allocates per string, escaped or not, and a reader that needs a `&str`
//! pays for unescaping only the strings it reads.

use super::lexer::{IntField, Keys, Lexer, Str, Token, int_field};
use crate::codec::record::{self, Seen};
use crate::codec::view::{ProductReader, ProductView, Text, VariantView, check_list};
use crate::codec::{DecodeError, utf8};
use crate::model::{self, Dimensions, MAX_TAGS, MAX_VARIANTS, Status};

type Result<T> = std::result::Result<T, DecodeError>;

const CATALOG_LEVEL: usize = 1;
const PRODUCT_LEVEL: usize = 3;
const NESTED_LEVEL: usize = 4;
const VARIANT_LEVEL: usize = 5;

/// Declares a record's keys in the order of (docs/SPEC.md, "Field order"):
/// the [`Keys`] table of their names and tokens `"name":`, tried first in
/// that order by [`Lexer::member`].
macro_rules! keys {
    ($keys:ident: $($k:literal),* $(,)?) => {
        const $keys: Keys = Keys {
            names: &[$($k),*],
            tokens: &[$(Token::key($k)),*],
        };
    };
}

keys!(PRODUCT_KEYS:
    "id", "sku", "name", "description", "price_cents", "currency", "rating", "review_count", "in_stock",
    "stock", "status", "tags", "dimensions", "variants", "discount_percent", "created_at_ms", "image_url",
);
const DISCOUNT_PERCENT_KEY: usize = 14;
keys!(DIMENSION_KEYS: "width_mm", "height_mm", "depth_mm", "weight_g");
keys!(VARIANT_KEYS: "sku", "color", "size", "price_cents", "stock");
keys!(CATALOG_KEYS: "products");

const ID: IntField = int_field!("id", i64);
const PRICE_CENTS: IntField = int_field!("price_cents", i64);
const REVIEW_COUNT: IntField = int_field!("review_count", i32);
const STOCK: IntField = int_field!("stock", i32);
const DISCOUNT_PERCENT: IntField = int_field!("discount_percent", i32);
const CREATED_AT_MS: IntField = int_field!("created_at_ms", i64);
const DIMENSIONS: [IntField; 4] = [
    int_field!("width_mm", i32),
    int_field!("height_mm", i32),
    int_field!("depth_mm", i32),
    int_field!("weight_g", i32),
];

/// The shortest text a valid product can have (every required key, minimal
/// values). Capacity for the products `Vec` is input length divided by this:
/// never more products than the input could possibly hold.
pub(super) const MINIMAL_PRODUCT: &str = r#"{"id":1,"sku":"","name":"","description":"","price_cents":0,"currency":"USD","rating":0,"review_count":0,"in_stock":true,"stock":0,"status":"draft","tags":[],"dimensions":{"width_mm":0,"height_mm":0,"depth_mm":0,"weight_g":0},"variants":[],"created_at_ms":0,"image_url":""}"#;

/// Upper bound on the products preallocated, whatever the input length.
pub(super) const PREALLOC_MAX: usize = 1 << 16;

/// The three statuses as our writer spells them, matched in place first.
const STATUSES: [(Token, Status); 3] = [
    (Token::new(&[b"\"active\""]), Status::Active),
    (Token::new(&[b"\"draft\""]), Status::Draft),
    (Token::new(&[b"\"discontinued\""]), Status::Discontinued),
];

/// A `status` string: one of [`STATUSES`] as
/// written, else read as a string (escapes and all) and looked up.
pub(super) fn read_status(lx: &mut Lexer<'_>) -> Result<Status> {
    lx.skip_ws();
    for (token, status) in &STATUSES {
        if lx.eat(token) {
            return Ok(*status);
        }
    }
    let at = lx.pos;
    let known = match lx.string("string for `status`")? {
        Str::Raw(s) => Status::from_str_exact(s).ok_or_else(|| s.to_owned()),
        Str::Escaped => Status::from_str_exact(&lx.scratch).ok_or_else(|| lx.scratch.clone()),
    };
    known.map_err(|s| DecodeError::unknown_enum(at, "status (active, draft or discontinued)", format!("{s:?}")))
}

/// Decodes and validates a whole payload into a view that borrows it.
pub fn decode_view(bytes: &[u8]) -> Result<(usize, ViewReader<'_>)> {
    read(bytes, false, |_| {})
}

/// [`decode_view`], handing each product to `each` once it is read and
/// checked (the owned decode copies it there). `tolerant`: a missing key
/// takes its field's zero value (`""`, `0`, `false`, `[]`, `active`, absent)
/// instead of being an error, and a missing `products` is an empty catalog
/// (see [`decode_tolerant`](super::decode_tolerant)).
#[inline]
pub(super) fn read<'a>(
    bytes: &'a [u8],
    tolerant: bool,
    mut each: impl FnMut(&ProductView<'a>),
) -> Result<(usize, ViewReader<'a>)> {
    let text = utf8::text(bytes)?;
    let mut lx = Lexer::new(text);
    let mut products = None;
    let keys = (&CATALOG_KEYS, CATALOG_LEVEL, required(&CATALOG_KEYS, tolerant));
    record(&mut lx, "'{' (start of the catalog)", keys, |lx, _| {
        lx.expect(b'[', "'[' (start of the products array)")?;
        let start = ViewReader {
            tolerant,
            ..ViewReader::at(text, lx.pos)
        };
        let mut list = start.clone();
        list.lx.scratch = std::mem::take(&mut lx.scratch);
        let count = check_list(&mut list, MINIMAL_PRODUCT.len(), &mut each)?;
        *lx = list.lx;
        products = Some((count, start));
        Ok(())
    })?;
    // Only a tolerant read gets here without `products`: an empty catalog.
    let view = products.unwrap_or_else(|| (0, ViewReader::at(text, lx.pos)));
    lx.finish()?;
    Ok(view)
}

/// A string value: borrowed as written, escapes (if any) validated.
#[inline]
fn text<'a>(lx: &mut Lexer<'a>, expected: &'static str) -> Result<Text<'a>> {
    lx.skip_ws();
    let at = lx.pos;
    Ok(match lx.string(expected)? {
        Str::Raw(s) => Text::plain(s),
        Str::Escaped => Text::json_escaped(lx.text.get(at + 1..lx.pos - 1).unwrap_or_default()),
    })
}

/// The products array, after its `[`.
pub struct ViewReader<'a> {
    lx: Lexer<'a>,
    first: bool,
    done: bool,
    /// Missing keys take their defaults ([`read`]).
    tolerant: bool,
}

impl<'a> ViewReader<'a> {
    fn at(text: &'a str, pos: usize) -> ViewReader<'a> {
        let mut lx = Lexer::new(text);
        lx.pos = pos;
        ViewReader {
            lx,
            first: true,
            done: false,
            tolerant: false,
        }
    }
}

impl Clone for ViewReader<'_> {
    /// The position, with an empty scratch buffer of its own.
    fn clone(&self) -> Self {
        ViewReader {
            first: self.first,
            done: self.done,
            tolerant: self.tolerant,
            ..ViewReader::at(self.lx.text, self.lx.pos)
        }
    }
}

impl<'a> ProductReader<'a> for ViewReader<'a> {
    fn next_product(&mut self, index: usize, p: &mut ProductView<'a>) -> Result<Option<usize>> {
        if self.done || !self.lx.next_element(&mut self.first)? {
            self.done = true;
            return Ok(None);
        }
        let at = self.lx.pos;
        product(&mut self.lx, index, self.tolerant, p)?;
        Ok(Some(at))
    }

    fn remaining(&self) -> usize {
        self.lx.bytes.len() - self.lx.pos
    }
}

/// One product: read as our writer spells it by [`canonical`] when it is,
/// otherwise (from its `{` again) by [`product_by_grammar`].
#[inline(always)]
fn product<'a>(lx: &mut Lexer<'a>, index: usize, tolerant: bool, p: &mut ProductView<'a>) -> Result<()> {
    let start = lx.pos;
    if canonical::product(lx, p).is_some() {
        return Ok(());
    }
    lx.pos = start;
    product_by_grammar(lx, index, tolerant, p)
}

/// A product by the grammar: members in any order, any whitespace,
/// unknown keys skipped; every error at its offset.
#[inline(never)]
fn product_by_grammar<'a>(lx: &mut Lexer<'a>, index: usize, tolerant: bool, p: &mut ProductView<'a>) -> Result<()> {
    if tolerant {
        // Any field may be missing: each starts at its zero value.
        *p = ProductView::default();
    }
    // The one optional field; every other one is written before `}`.
    p.discount_percent = None;
    let keys = (
        &PRODUCT_KEYS,
        PRODUCT_LEVEL,
        required(&PRODUCT_KEYS, tolerant) & !(1 << DISCOUNT_PERCENT_KEY),
    );
    record(lx, "'{' (start of a product)", keys, |lx, f| {
        match f {
            0 => p.id = lx.integer(&ID)?,
            1 => p.sku = text(lx, "string for `sku`")?,
            2 => p.name = text(lx, "string for `name`")?,
            3 => p.description = text(lx, "string for `description`")?,
            4 => p.price_cents = lx.integer(&PRICE_CENTS)?,
            5 => p.currency = text(lx, "string for `currency`")?,
            6 => p.rating = lx.float("number for `rating`", "`rating` (finite f64)")?,
            7 => p.review_count = lx.integer(&REVIEW_COUNT)? as i32,
            8 => p.in_stock = lx.boolean("true or false for `in_stock`")?,
            9 => p.stock = lx.integer(&STOCK)? as i32,
            10 => p.status = read_status(lx)?,
            11 => {
                p.tags.clear();
                let item = |lx: &mut Lexer<'a>| text(lx, "string (a tag)");
                list(lx, "'[' (start of `tags`)", (index, "tags", MAX_TAGS), item, |t| {
                    p.tags.push(t)
                })?;
            }
            12 => p.dimensions = dimensions(lx, tolerant)?,
            13 => {
                p.variants.clear();
                let item = |lx: &mut Lexer<'a>| variant(lx, tolerant);
                let max = (index, "variants", MAX_VARIANTS);
                list(lx, "'[' (start of `variants`)", max, item, |v| p.variants.push(v))?;
            }
            14 => {
                p.discount_percent = if lx.null() {
                    None
                } else {
                    Some(lx.integer(&DISCOUNT_PERCENT)? as i32)
                }
            }
            15 => p.created_at_ms = lx.integer(&CREATED_AT_MS)?,
            _ => p.image_url = text(lx, "string for `image_url`")?,
        }
        Ok(())
    })
}

/// The product as our writer spells it — keys in field order, no
/// whitespace, at most [`MAX_TAGS`] tags and [`MAX_VARIANTS`] variants —
/// read as one straight sequence of token compares and values: no member
/// loop, no seen-field set, no dispatch on the key.
///
/// Each step accepts only bytes that [`product_by_grammar`] reads to the
/// same values (the same tokens, in the order its predicted keys try them,
/// and the same value readers), and answers `None` at the first byte that
/// differs or fails. The caller then reads the product again from its `{`
/// by the grammar, which gives any error, so errors and their offsets are
/// the grammar's by construction.
mod canonical {
    use super::{Lexer, ProductView, Str, Text, Token, VariantView, read_status};
    use crate::model::{MAX_TAGS, MAX_VARIANTS};

    /// Consumes exactly `text` (one [`Token`], built at compile time), or
    /// returns `None` from the caller.
    macro_rules! eat {
        ($lx:expr, $text:expr) => {
            if !$lx.eat(&const { Token::new(&[$text.as_bytes()]) }) {
                return None;
            }
        };
    }

    /// Consumes `,"name":`, a member after the first one, as [`eat!`].
    macro_rules! next {
        ($lx:expr, $name:literal) => {
            eat!($lx, concat!(",\"", $name, "\":"))
        };
    }

    /// Consumes `b` if it is the next byte.
    #[inline(always)]
    fn byte(lx: &mut Lexer<'_>, b: u8) -> bool {
        let hit = lx.bytes.get(lx.pos) == Some(&b);
        lx.pos += usize::from(hit);
        hit
    }

    /// A string value into `to` (one call per string: the scan and the
    /// slice are inlined here, not at each of the fifteen call sites).
    #[inline(never)]
    fn text<'a>(lx: &mut Lexer<'a>, to: &mut Text<'a>) -> Option<()> {
        let at = lx.pos;
        if lx.bytes.get(at) != Some(&b'"') {
            return None;
        }
        *to = match lx.string("string") {
            Ok(Str::Raw(s)) => Text::plain(s),
            Ok(Str::Escaped) => Text::json_escaped(lx.text.get(at + 1..lx.pos - 1)?),
            Err(_) => return None,
        };
        Some(())
    }

    #[inline(always)]
    pub(super) fn product<'a>(lx: &mut Lexer<'a>, p: &mut ProductView<'a>) -> Option<()> {
        eat!(lx, r#"{"id":"#);
        p.id = lx.integer(&super::ID).ok()?;
        next!(lx, "sku");
        text(lx, &mut p.sku)?;
        next!(lx, "name");
        text(lx, &mut p.name)?;
        next!(lx, "description");
        text(lx, &mut p.description)?;
        next!(lx, "price_cents");
        p.price_cents = lx.integer(&super::PRICE_CENTS).ok()?;
        next!(lx, "currency");
        text(lx, &mut p.currency)?;
        next!(lx, "rating");
        p.rating = lx.float("number for `rating`", "`rating` (finite f64)").ok()?;
        next!(lx, "review_count");
        p.review_count = lx.integer(&super::REVIEW_COUNT).ok()? as i32;
        next!(lx, "in_stock");
        p.in_stock = lx.boolean("true or false for `in_stock`").ok()?;
        next!(lx, "stock");
        p.stock = lx.integer(&super::STOCK).ok()? as i32;
        next!(lx, "status");
        p.status = read_status(lx).ok()?;
        eat!(lx, r#","tags":["#);
        tags(lx, p)?;
        eat!(lx, r#","dimensions":{"#);
        dimensions(lx, p)?;
        eat!(lx, r#","variants":["#);
        variants(lx, p)?;
        next!(lx, "discount_percent");
        p.discount_percent = if lx.null() {
            None
        } else {
            Some(lx.integer(&super::DISCOUNT_PERCENT).ok()? as i32)
        };
        next!(lx, "created_at_ms");
        p.created_at_ms = lx.integer(&super::CREATED_AT_MS).ok()?;
        next!(lx, "image_url");
        text(lx, &mut p.image_url)?;
        byte(lx, b'}').then_some(())
    }

    /// After `"tags":[`.
    #[inline(always)]
    fn tags<'a>(lx: &mut Lexer<'a>, p: &mut ProductView<'a>) -> Option<()> {
        p.tags.clear();
        if byte(lx, b']') {
            return Some(());
        }
        loop {
            if p.tags.len() == MAX_TAGS {
                return None;
            }
            let mut tag = Text::default();
            text(lx, &mut tag)?;
            p.tags.push(tag);
            if !byte(lx, b',') {
                return byte(lx, b']').then_some(());
            }
        }
    }

    /// After `"dimensions":{`.
    #[inline(always)]
    fn dimensions(lx: &mut Lexer<'_>, p: &mut ProductView<'_>) -> Option<()> {
        let [width, height, depth, weight] = &super::DIMENSIONS;
        let d = &mut p.dimensions;
        eat!(lx, r#""width_mm":"#);
        d.width_mm = lx.integer(width).ok()? as i32;
        next!(lx, "height_mm");
        d.height_mm = lx.integer(height).ok()? as i32;
        next!(lx, "depth_mm");
        d.depth_mm = lx.integer(depth).ok()? as i32;
        next!(lx, "weight_g");
        d.weight_g = lx.integer(weight).ok()? as i32;
        byte(lx, b'}').then_some(())
    }

    /// After `"variants":[`.
    #[inline(always)]
    fn variants<'a>(lx: &mut Lexer<'a>, p: &mut ProductView<'a>) -> Option<()> {
        p.variants.clear();
        if byte(lx, b']') {
            return Some(());
        }
        loop {
            if p.variants.len() == MAX_VARIANTS {
                return None;
            }
            let (mut sku, mut color, mut size) = Default::default();
            eat!(lx, r#"{"sku":"#);
            text(lx, &mut sku)?;
            next!(lx, "color");
            text(lx, &mut color)?;
            next!(lx, "size");
            text(lx, &mut size)?;
            next!(lx, "price_cents");
            let price_cents = lx.integer(&super::PRICE_CENTS).ok()?;
            next!(lx, "stock");
            let stock = lx.integer(&super::STOCK).ok()? as i32;
            if !byte(lx, b'}') {
                return None;
            }
            p.variants.push(VariantView {
                sku,
                color,
                size,
                price_cents,
                stock,
            });
            if !byte(lx, b',') {
                return byte(lx, b']').then_some(());
            }
        }
    }
}

/// One object after optional whitespace, from its `{` (`open` names it in
/// errors): members of `keys` in any order, each value read by `field` with
/// the key's index, unknown keys' values skipped at nesting `level`, a
/// repeated key refused at its quote and then the first of `required`
/// never read named at the `}`.
fn record<'a>(
    lx: &mut Lexer<'a>,
    open: &'static str,
    (keys, level, required): (&Keys, usize, u32),
    mut field: impl FnMut(&mut Lexer<'a>, usize) -> Result<()>,
) -> Result<()> {
    lx.expect(b'{', open)?;
    let (mut seen, mut hint, mut first) = (Seen::default(), 0, true);
    while let Some((found, at)) = lx.member(&mut first, keys, hint)? {
        let Some(f) = found else {
            lx.skip_value(level)?;
            continue;
        };
        seen.mark(f, at, || keys.names[f])?;
        hint = f + 1;
        field(lx, f)?;
    }
    seen.check(required, lx.pos - 1, |i| keys.names[i])
}

/// The fields of `keys` a read requires: all of them, or none when
/// `tolerant`.
fn required(keys: &Keys, tolerant: bool) -> u32 {
    if tolerant { 0 } else { record::all(keys.names.len()) }
}

/// A list after its `[` (`open` names it in errors), each item read by
/// `item` and handed to `push`, at most `max` of them for the product at
/// `index`: past the limit the rest is read (every item checked) and the
/// error names the whole count, at the `[`.
fn list<'a, T>(
    lx: &mut Lexer<'a>,
    open: &'static str,
    (index, field, max): (usize, &str, usize),
    mut item: impl FnMut(&mut Lexer<'a>) -> Result<T>,
    mut push: impl FnMut(T),
) -> Result<()> {
    lx.expect(b'[', open)?;
    let (at, mut count, mut first) = (lx.pos - 1, 0, true);
    while lx.next_element(&mut first)? {
        let x = item(lx)?;
        if count < max {
            push(x);
        }
        count += 1;
    }
    if count > max {
        let e = model::too_many_items(index, field, max, format_args!("found {count}"));
        return Err(DecodeError::invalid(at, e));
    }
    Ok(())
}

fn dimensions(lx: &mut Lexer<'_>, tolerant: bool) -> Result<Dimensions> {
    let mut v = [0i32; 4];
    let keys = (&DIMENSION_KEYS, NESTED_LEVEL, required(&DIMENSION_KEYS, tolerant));
    record(lx, "'{' (start of `dimensions`)", keys, |lx, f| {
        v[f] = lx.integer(&DIMENSIONS[f])? as i32;
        Ok(())
    })?;
    let [width_mm, height_mm, depth_mm, weight_g] = v;
    Ok(Dimensions {
        width_mm,
        height_mm,
        depth_mm,
        weight_g,
    })
}

fn variant<'a>(lx: &mut Lexer<'a>, tolerant: bool) -> Result<VariantView<'a>> {
    let mut v = VariantView::default();
    let keys = (&VARIANT_KEYS, VARIANT_LEVEL, required(&VARIANT_KEYS, tolerant));
    record(lx, "'{' (start of a variant)", keys, |lx, f| {
        match f {
            0 => v.sku = text(lx, "string for `sku`")?,
            1 => v.color = text(lx, "string for `color`")?,
            2 => v.size = text(lx, "string for `size`")?,
            3 => v.price_cents = lx.integer(&PRICE_CENTS)?,
            _ => v.stock = lx.integer(&STOCK)? as i32,
        }
        Ok(())
    })?;
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::Format;
    use crate::fixtures;

    /// Every product our writer writes takes the straight path, and reads
    /// back equal.
    #[test]
    fn written_products_are_read_by_the_straight_path() {
        let c = fixtures::catalog(200);
        let text = String::from_utf8(Format::Json.encode_to_vec(&c.products).unwrap()).unwrap();
        let mut lx = Lexer::new(&text);
        lx.pos = r#"{"products":["#.len();
        let mut p = ProductView::default();
        for (i, want) in c.products.iter().enumerate() {
            if i > 0 {
                assert_eq!(lx.bytes[lx.pos], b',');
                lx.pos += 1;
            }
            assert!(canonical::product(&mut lx, &mut p).is_some(), "product {i}");
            assert_eq!(&p.to_product(), want, "product {i}");
        }
        assert_eq!(&text[lx.pos..], "]}");
    }
}
