//! The JSON borrowed view: the catalog read in place, strings as slices of
//! the text.
//!
//! # Wire format
//!
//! The grammar [`parse`](super::parse) reads (see the module doc of
//! [`json`](super)), on the same [`Lexer`]: any whitespace, keys in any
//! order, unknown keys skipped, a missing `discount_percent` read as
//! `null`. The checks and error offsets are the owned parser's; the key
//! tables are restated here so the two files stay independent.
//!
//! **Strings with escapes** are validated up front — the lexer decodes every
//! escape once, into its one scratch buffer, refusing bad escapes and lone
//! surrogates — and then handed out *as written*: a [`Text`] holding the
//! bytes between the quotes, unescaped lazily by [`Unescape`] when read
//! ([`Text::chars`], [`Text::to_cow`], `Display`). So a view never
//! allocates per string, escaped or not, and a reader that needs a `&str`
//! pays for unescaping only the strings it reads.

use super::lexer::{IntField, Keys, Lexer, Str, Token};
use super::parse::read_status;
use crate::codec::record::{self, Seen};
use crate::codec::view::{CatalogView, Lists, ProductList, ProductView, Text, VariantView, check_list};
use crate::codec::{DecodeError, ErrorKind};
use crate::model::{self, MAX_TAGS, MAX_VARIANTS};

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

macro_rules! int_field {
    ($name:literal, $ty:ty) => {
        IntField {
            expected: concat!("integer for `", $name, "`"),
            what: concat!("`", $name, "` (", stringify!($ty), ")"),
            min: <$ty>::MIN as i64,
            max: <$ty>::MAX as i64,
        }
    };
}

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

/// Decodes and validates a whole payload into a view that borrows it.
pub fn decode_view(bytes: &[u8]) -> Result<CatalogView<'_>> {
    let text = std::str::from_utf8(bytes).map_err(|e| DecodeError::new(e.valid_up_to(), ErrorKind::InvalidUtf8))?;
    let mut lx = Lexer::new(text);
    lx.expect(b'{', "'{' (start of the catalog)")?;
    let mut products = None;
    let mut first = true;
    while let Some((field, at)) = lx.member(&mut first, &CATALOG_KEYS, 0)? {
        match field {
            Some(_) => {
                if products.is_some() {
                    return Err(DecodeError::new(at, ErrorKind::DuplicateField { field: "products" }));
                }
                lx.expect(b'[', "'[' (start of the products array)")?;
                let start = Products::at(text, lx.pos);
                let mut list = start.clone();
                list.lx.scratch = std::mem::take(&mut lx.scratch);
                let count = check_list(&mut list, super::parse::MINIMAL_PRODUCT.len())?;
                lx = list.lx;
                products = Some(CatalogView::new(count, Lists::Json(start)));
            }
            None => lx.skip_value(CATALOG_LEVEL)?,
        }
    }
    let Some(view) = products else {
        return Err(DecodeError::new(
            lx.pos - 1,
            ErrorKind::MissingField { field: "products" },
        ));
    };
    lx.skip_ws();
    if lx.pos < bytes.len() {
        return Err(DecodeError::new(
            lx.pos,
            ErrorKind::TrailingBytes {
                count: bytes.len() - lx.pos,
            },
        ));
    }
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
pub struct Products<'a> {
    lx: Lexer<'a>,
    first: bool,
    done: bool,
}

impl<'a> Products<'a> {
    fn at(text: &'a str, pos: usize) -> Products<'a> {
        let mut lx = Lexer::new(text);
        lx.pos = pos;
        Products {
            lx,
            first: true,
            done: false,
        }
    }
}

impl Clone for Products<'_> {
    /// The position, with an empty scratch buffer of its own.
    fn clone(&self) -> Self {
        Products {
            first: self.first,
            done: self.done,
            ..Products::at(self.lx.text, self.lx.pos)
        }
    }
}

impl<'a> ProductList<'a> for Products<'a> {
    fn next_product(&mut self, index: usize, p: &mut ProductView<'a>) -> Result<Option<usize>> {
        if self.done || !self.lx.next_element(&mut self.first)? {
            self.done = true;
            return Ok(None);
        }
        let at = self.lx.pos;
        product(&mut self.lx, index, p)?;
        Ok(Some(at))
    }

    fn remaining(&self) -> usize {
        self.lx.bytes.len() - self.lx.pos
    }
}

fn product<'a>(lx: &mut Lexer<'a>, index: usize, p: &mut ProductView<'a>) -> Result<()> {
    lx.expect(b'{', "'{' (start of a product)")?;
    // The one optional field; every other one is written before `}`.
    p.discount_percent = None;
    let (mut seen, mut hint, mut first) = (Seen::default(), 0, true);
    while let Some((field, at)) = lx.member(&mut first, &PRODUCT_KEYS, hint)? {
        let Some(f) = field else {
            lx.skip_value(PRODUCT_LEVEL)?;
            continue;
        };
        seen.mark(f, at, || PRODUCT_KEYS.names[f])?;
        hint = f + 1;
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
            11 => tags(lx, p, index)?,
            12 => dimensions(lx, p)?,
            13 => variants(lx, p, index)?,
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
    }
    let required = record::all(PRODUCT_KEYS.names.len()) & !(1 << DISCOUNT_PERCENT_KEY);
    seen.check(required, lx.pos - 1, |i| PRODUCT_KEYS.names[i])
}

/// A list over the model's limit: the rest is read (every item checked)
/// and the error names the whole count, at the list's `[`.
#[cold]
#[inline(never)]
fn too_many<'a>(
    lx: &mut Lexer<'a>,
    at: usize,
    (index, field, max): (usize, &str, usize),
    first: &mut bool,
    mut item: impl FnMut(&mut Lexer<'a>) -> Result<()>,
) -> DecodeError {
    let mut count = max;
    loop {
        if let Err(e) = item(lx) {
            return e;
        }
        count += 1;
        match lx.next_element(first) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => return e,
        }
    }
    DecodeError::invalid(
        at,
        model::too_many_items(index, field, max, format_args!("found {count}")),
    )
}

fn tags<'a>(lx: &mut Lexer<'a>, p: &mut ProductView<'a>, index: usize) -> Result<()> {
    lx.expect(b'[', "'[' (start of `tags`)")?;
    let at = lx.pos - 1;
    p.tags.clear();
    let mut first = true;
    while lx.next_element(&mut first)? {
        if p.tags.len() == MAX_TAGS {
            return Err(too_many(lx, at, (index, "tags", MAX_TAGS), &mut first, |lx| {
                text(lx, "string (a tag)").map(drop)
            }));
        }
        p.tags.push(text(lx, "string (a tag)")?);
    }
    Ok(())
}

fn dimensions(lx: &mut Lexer<'_>, p: &mut ProductView<'_>) -> Result<()> {
    lx.expect(b'{', "'{' (start of `dimensions`)")?;
    let mut v = [0i32; 4];
    let (mut seen, mut hint, mut first) = (Seen::default(), 0, true);
    while let Some((field, at)) = lx.member(&mut first, &DIMENSION_KEYS, hint)? {
        let Some(f) = field else {
            lx.skip_value(NESTED_LEVEL)?;
            continue;
        };
        seen.mark(f, at, || DIMENSION_KEYS.names[f])?;
        hint = f + 1;
        v[f] = lx.integer(&DIMENSIONS[f])? as i32;
    }
    seen.check(record::all(DIMENSION_KEYS.names.len()), lx.pos - 1, |i| {
        DIMENSION_KEYS.names[i]
    })?;
    let d = &mut p.dimensions;
    [d.width_mm, d.height_mm, d.depth_mm, d.weight_g] = v;
    Ok(())
}

fn variants<'a>(lx: &mut Lexer<'a>, p: &mut ProductView<'a>, index: usize) -> Result<()> {
    lx.expect(b'[', "'[' (start of `variants`)")?;
    let at = lx.pos - 1;
    p.variants.clear();
    let mut first = true;
    while lx.next_element(&mut first)? {
        if p.variants.len() == MAX_VARIANTS {
            return Err(too_many(lx, at, (index, "variants", MAX_VARIANTS), &mut first, |lx| {
                variant(lx).map(drop)
            }));
        }
        p.variants.push(variant(lx)?);
    }
    Ok(())
}

fn variant<'a>(lx: &mut Lexer<'a>) -> Result<VariantView<'a>> {
    lx.expect(b'{', "'{' (start of a variant)")?;
    let mut v = VariantView::default();
    let (mut seen, mut hint, mut first) = (Seen::default(), 0, true);
    while let Some((field, at)) = lx.member(&mut first, &VARIANT_KEYS, hint)? {
        let Some(f) = field else {
            lx.skip_value(VARIANT_LEVEL)?;
            continue;
        };
        seen.mark(f, at, || VARIANT_KEYS.names[f])?;
        hint = f + 1;
        match f {
            0 => v.sku = text(lx, "string for `sku`")?,
            1 => v.color = text(lx, "string for `color`")?,
            2 => v.size = text(lx, "string for `size`")?,
            3 => v.price_cents = lx.integer(&PRICE_CENTS)?,
            _ => v.stock = lx.integer(&STOCK)? as i32,
        }
    }
    seen.check(record::all(VARIANT_KEYS.names.len()), lx.pos - 1, |i| {
        VARIANT_KEYS.names[i]
    })?;
    Ok(v)
}

/// The characters of a JSON string's text as written (between the quotes),
/// escapes decoded: `\" \\ \/ \b \f \n \r \t \uXXXX` and surrogate pairs.
/// The text was checked by the lexer when the view was made; should an
/// escape still be malformed, it reads as U+FFFD rather than failing.
#[derive(Clone)]
pub struct Unescape<'a> {
    rest: std::str::Chars<'a>,
}

impl<'a> Unescape<'a> {
    pub fn new(raw: &'a str) -> Unescape<'a> {
        Unescape { rest: raw.chars() }
    }

    fn hex4(&mut self) -> Option<u16> {
        let mut v = 0u16;
        for _ in 0..4 {
            v = v << 4 | self.rest.next()?.to_digit(16)? as u16;
        }
        Some(v)
    }

    fn unicode(&mut self) -> Option<char> {
        let hi = self.hex4()?;
        if !(0xD800..0xDC00).contains(&hi) {
            return char::from_u32(u32::from(hi));
        }
        if self.rest.next()? != '\\' || self.rest.next()? != 'u' {
            return None;
        }
        let lo = self.hex4()?;
        if !(0xDC00..0xE000).contains(&lo) {
            return None;
        }
        char::from_u32(0x10000 + ((u32::from(hi) - 0xD800) << 10) + (u32::from(lo) - 0xDC00))
    }
}

impl Iterator for Unescape<'_> {
    type Item = char;

    fn next(&mut self) -> Option<char> {
        let c = self.rest.next()?;
        if c != '\\' {
            return Some(c);
        }
        let e = match self.rest.next() {
            Some('"') => '"',
            Some('\\') => '\\',
            Some('/') => '/',
            Some('b') => '\u{8}',
            Some('f') => '\u{c}',
            Some('n') => '\n',
            Some('r') => '\r',
            Some('t') => '\t',
            Some('u') => self.unicode().unwrap_or(char::REPLACEMENT_CHARACTER),
            _ => char::REPLACEMENT_CHARACTER,
        };
        Some(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::Format;
    use crate::fixtures;

    #[test]
    fn view_equals_the_owned_decode() {
        let c = fixtures::catalog(50);
        let bytes = Format::Json.encode_to_vec(&c.products).unwrap();
        let view = decode_view(&bytes).unwrap();
        assert_eq!(view.len(), 50);
        assert_eq!(view.to_catalog(), c);
    }

    #[test]
    fn escapes_are_decoded_lazily() {
        let cases = [
            (r#"a\"b"#, "a\"b"),
            (r#"\\\/\b\f\n\r\t"#, "\\/\u{8}\u{c}\n\r\t"),
            (r#"caf\u00e9 \u0007"#, "café \u{7}"),
            (r#"\ud83d\udce6!"#, "📦!"),
        ];
        for (raw, want) in cases {
            assert_eq!(Unescape::new(raw).collect::<String>(), want, "{raw}");
            let t = Text::json_escaped(raw);
            assert_eq!(t.as_str(), None);
            assert_eq!(t.to_cow(), want);
            assert!(t.eq_str(want));
            assert_eq!(t.to_string(), want);
        }
    }

    #[test]
    fn escaped_keys_and_values_match_the_owned_parser() {
        let c = fixtures::catalog(1);
        let text = String::from_utf8(Format::Json.encode_to_vec(&c.products).unwrap()).unwrap();
        let forged = text
            .replacen("\"sku\"", "\"\\u0073ku\"", 1)
            .replacen("\"active\"", "\"\\u0061ctive\"", 1)
            .replacen("\"draft\"", "\"dr\\u0061ft\"", 1)
            .replacen("\"discontinued\"", "\"discontinue\\u0064\"", 1)
            .replacen("\"USD\"", " \"\\u0055SD\"", 1)
            .replacen("\"THB\"", "\"TH\\u0042\"", 1);
        let owned = Format::Json.decode(forged.as_bytes()).unwrap();
        let view = decode_view(forged.as_bytes()).unwrap();
        assert_eq!(view.to_catalog(), owned);
    }
}
