//! From JSON text to a validated [`Catalog`]: the shape of the catalog on top
//! of the [`Lexer`]'s tokens.
//!
//! Records accept their keys in any order (field order, docs/SPEC.md, "Field order", is only predicted,
//! which makes our own output cheap to match), skip unknown keys whatever
//! their value, and refuse a key seen twice. A missing `discount_percent`
//! means "absent" (as serde's `Option` does); every other field is required.
//! Each product is validated with [`Product::validate`] as soon as its `}` is
//! read, so an `Invalid` error points at that product's `{`; ids are checked
//! for uniqueness the same way, with `model::validate_products`'s message.

use super::lexer::{IntField, Keys, Lexer, Str, Token};
use crate::codec::ids::UniqueIds;
use crate::codec::record::{self, Seen};
use crate::codec::{DecodeError, ErrorKind};
use crate::model::{self, Catalog, Dimensions, MAX_TAGS, MAX_VARIANTS, Product, Status, Variant};

type Result<T> = std::result::Result<T, DecodeError>;

/// Nesting level of each record's members (the catalog object is level 1):
/// an unknown member's value opens its containers one level deeper.
const CATALOG_LEVEL: usize = 1;
const PRODUCT_LEVEL: usize = 3; // catalog { products [ product {
const NESTED_LEVEL: usize = 4; // … product { dimensions {
const VARIANT_LEVEL: usize = 5; // … product { variants [ variant {

/// The shortest text a valid product can have (every required key, minimal
/// values). Capacity for the products `Vec` is input length divided by this:
/// never more products than the input could possibly hold.
pub const MINIMAL_PRODUCT: &str = r#"{"id":1,"sku":"","name":"","description":"","price_cents":0,"currency":"USD","rating":0,"review_count":0,"in_stock":true,"stock":0,"status":"draft","tags":[],"dimensions":{"width_mm":0,"height_mm":0,"depth_mm":0,"weight_g":0},"variants":[],"created_at_ms":0,"image_url":""}"#;

/// Upper bound on the products preallocated, whatever the input length.
const PREALLOC_MAX: usize = 1 << 16;

/// Declares a record's keys: an enum in field order (docs/SPEC.md, "Field
/// order"), each key's name, and the [`Keys`] table the lexer matches them
/// with (the predicted next key first, as `"name":`).
macro_rules! fields {
    ($enum:ident { $($var:ident = $name:literal,)* }) => {
        #[derive(Clone, Copy, PartialEq, Eq, Debug)]
        enum $enum { $($var,)* }

        impl $enum {
            const ALL: &'static [$enum] = &[$($enum::$var,)*];

            const KEYS: Keys = Keys {
                names: &[$($name,)*],
                tokens: &[$(Token::key($name),)*],
            };

            const fn name(self) -> &'static str {
                match self { $($enum::$var => $name,)* }
            }

            #[allow(dead_code)] // used for optional fields only
            fn bit(self) -> u32 {
                1 << (self as u32)
            }

            /// The field at index `i` of [`Self::KEYS`], if any.
            fn at(i: Option<usize>) -> Option<$enum> {
                Self::ALL.get(i?).copied()
            }
        }
    };
}

fields!(CatalogField { Products = "products", });

fields!(ProductField {
    Id = "id",
    Sku = "sku",
    Name = "name",
    Description = "description",
    PriceCents = "price_cents",
    Currency = "currency",
    Rating = "rating",
    ReviewCount = "review_count",
    InStock = "in_stock",
    Stock = "stock",
    Status = "status",
    Tags = "tags",
    Dimensions = "dimensions",
    Variants = "variants",
    DiscountPercent = "discount_percent",
    CreatedAtMs = "created_at_ms",
    ImageUrl = "image_url",
});

fields!(DimensionsField {
    WidthMm = "width_mm",
    HeightMm = "height_mm",
    DepthMm = "depth_mm",
    WeightG = "weight_g",
});

fields!(VariantField {
    Sku = "sku",
    Color = "color",
    Size = "size",
    PriceCents = "price_cents",
    Stock = "stock",
});

/// An integer field's messages and range, from its name and Rust type.
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
const WIDTH_MM: IntField = int_field!("width_mm", i32);
const HEIGHT_MM: IntField = int_field!("height_mm", i32);
const DEPTH_MM: IntField = int_field!("depth_mm", i32);
const WEIGHT_G: IntField = int_field!("weight_g", i32);

/// Parses and validates a whole payload.
pub fn decode(bytes: &[u8]) -> Result<Catalog> {
    decode_mode(bytes, false)
}

/// As [`decode`], in tolerant mode: a missing key takes its field's zero
/// value (`""`, `0`, `false`, `[]`, `active`, absent) instead of being an
/// error, and a missing `products` is an empty catalog. Unknown keys are
/// skipped in both modes; wrong types, duplicates and the model's rules are
/// refused in both. This is what a reader built for an older or newer shape
/// of the catalog does (docs/EVOLUTION.md).
pub fn decode_tolerant(bytes: &[u8]) -> Result<Catalog> {
    decode_mode(bytes, true)
}

fn decode_mode(bytes: &[u8], tolerant: bool) -> Result<Catalog> {
    // RFC 8259 §8.1: the whole text is UTF-8. One check up front (error at
    // the first bad byte) lets the lexer slice strings without re-checking.
    let text = std::str::from_utf8(bytes).map_err(|e| DecodeError::new(e.valid_up_to(), ErrorKind::InvalidUtf8))?;
    let mut p = Parser {
        lx: Lexer::new(text),
        index: 0,
        tolerant,
    };
    let products = p.catalog()?;
    p.lx.skip_ws();
    if p.lx.pos < bytes.len() {
        return Err(DecodeError::new(
            p.lx.pos,
            ErrorKind::TrailingBytes {
                count: bytes.len() - p.lx.pos,
            },
        ));
    }
    Ok(Catalog { products })
}

struct Parser<'a> {
    lx: Lexer<'a>,
    /// Index of the product being read, for errors found inside it.
    index: usize,
    /// Missing keys take their default ([`decode_tolerant`]).
    tolerant: bool,
}

/// The three statuses as our writer spells them, matched in place first.
const STATUSES: [(Token, Status); 3] = [
    (Token::new(&[b"\"active\""]), Status::Active),
    (Token::new(&[b"\"draft\""]), Status::Draft),
    (Token::new(&[b"\"discontinued\""]), Status::Discontinued),
];

/// A `status` string (shared with the view): one of [`STATUSES`] as
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
    known.map_err(|s| {
        DecodeError::new(
            at,
            ErrorKind::UnknownEnum {
                what: "status (active, draft or discontinued)",
                value: format!("{s:?}"),
            },
        )
    })
}

#[cold]
fn duplicate(at: usize, field: &'static str) -> DecodeError {
    DecodeError::new(at, ErrorKind::DuplicateField { field })
}

#[cold]
fn missing(at: usize, field: &'static str) -> DecodeError {
    DecodeError::new(at, ErrorKind::MissingField { field })
}

impl<'a> Parser<'a> {
    /// A string value, owned (one allocation of exactly its length).
    #[inline]
    fn string(&mut self, expected: &'static str) -> Result<String> {
        Ok(match self.lx.string(expected)? {
            Str::Raw(s) => s.to_owned(),
            Str::Escaped => self.lx.scratch.clone(),
        })
    }

    fn catalog(&mut self) -> Result<Vec<Product>> {
        self.lx.expect(b'{', "'{' (start of the catalog)")?;
        let mut products = None;
        let mut first = true;
        while let Some((i, at)) = self.lx.member(&mut first, &CatalogField::KEYS, 0)? {
            match CatalogField::at(i) {
                Some(CatalogField::Products) => {
                    if products.is_some() {
                        return Err(duplicate(at, CatalogField::Products.name()));
                    }
                    products = Some(self.products()?);
                }
                None => self.lx.skip_value(CATALOG_LEVEL)?,
            }
        }
        match products {
            Some(p) => Ok(p),
            None if self.tolerant => Ok(Vec::new()),
            None => Err(missing(self.lx.pos - 1, CatalogField::Products.name())),
        }
    }

    fn products(&mut self) -> Result<Vec<Product>> {
        self.lx.expect(b'[', "'[' (start of the products array)")?;
        let cap = (self.lx.bytes.len() / MINIMAL_PRODUCT.len()).min(PREALLOC_MAX);
        let mut products = Vec::with_capacity(cap);
        let mut ids = UniqueIds::new();
        let mut first = true;
        while self.lx.next_element(&mut first)? {
            let at = self.lx.pos;
            let index = products.len();
            self.index = index;
            let p = self.product()?;
            p.validate(index).map_err(|e| DecodeError::invalid(at, e))?;
            if !ids.insert(p.id, || products.iter().map(|q: &Product| q.id)) {
                return Err(DecodeError::invalid(at, model::duplicate_id(index, p.id)));
            }
            products.push(p);
        }
        Ok(products)
    }

    fn product(&mut self) -> Result<Product> {
        self.lx.expect(b'{', "'{' (start of a product)")?;
        let (mut id, mut price_cents, mut created_at_ms) = (0, 0, 0);
        let (mut review_count, mut stock) = (0, 0);
        let (mut sku, mut name, mut description) = (String::new(), String::new(), String::new());
        let (mut currency, mut image_url) = (String::new(), String::new());
        let mut rating = 0.0;
        let mut in_stock = false;
        let mut status = Status::Active;
        let mut tags = Vec::new();
        let mut dimensions = Dimensions::default();
        let mut variants = Vec::new();
        let mut discount_percent = None;
        let mut seen = Seen::default();
        let mut hint = 0;
        let mut first = true;
        while let Some((i, at)) = self.lx.member(&mut first, &ProductField::KEYS, hint)? {
            let Some(f) = ProductField::at(i) else {
                self.lx.skip_value(PRODUCT_LEVEL)?;
                continue;
            };
            seen.mark(f as usize, at, || f.name())?;
            hint = f as usize + 1;
            use ProductField as P;
            match f {
                P::Id => id = self.lx.integer(&ID)?,
                P::Sku => sku = self.string("string for `sku`")?,
                P::Name => name = self.string("string for `name`")?,
                P::Description => description = self.string("string for `description`")?,
                P::PriceCents => price_cents = self.lx.integer(&PRICE_CENTS)?,
                P::Currency => currency = self.string("string for `currency`")?,
                P::Rating => rating = self.lx.float("number for `rating`", "`rating` (finite f64)")?,
                P::ReviewCount => review_count = self.lx.integer(&REVIEW_COUNT)? as i32,
                P::InStock => in_stock = self.lx.boolean("true or false for `in_stock`")?,
                P::Stock => stock = self.lx.integer(&STOCK)? as i32,
                P::Status => status = read_status(&mut self.lx)?,
                P::Tags => tags = self.tags()?,
                P::Dimensions => dimensions = self.dimensions()?,
                P::Variants => variants = self.variants()?,
                P::DiscountPercent => {
                    discount_percent = if self.lx.null() {
                        None
                    } else {
                        Some(self.lx.integer(&DISCOUNT_PERCENT)? as i32)
                    }
                }
                P::CreatedAtMs => created_at_ms = self.lx.integer(&CREATED_AT_MS)?,
                P::ImageUrl => image_url = self.string("string for `image_url`")?,
            }
        }
        let required = record::all(ProductField::ALL.len()) & !ProductField::DiscountPercent.bit();
        let required = if self.tolerant { 0 } else { required };
        seen.check(required, self.lx.pos - 1, |i| ProductField::ALL[i].name())?;
        Ok(Product {
            id,
            sku,
            name,
            description,
            price_cents,
            currency,
            rating,
            review_count,
            in_stock,
            stock,
            status,
            tags,
            dimensions,
            variants,
            discount_percent,
            created_at_ms,
            image_url,
        })
    }

    fn tags(&mut self) -> Result<Vec<String>> {
        self.lx.expect(b'[', "'[' (start of `tags`)")?;
        let at = self.lx.pos - 1; // the '['
        let mut tags = Vec::new();
        if self.lx.peek() != Some(b']') {
            tags.reserve_exact(MAX_TAGS); // a small constant: one allocation for any valid list
        }
        let mut first = true;
        while self.lx.next_element(&mut first)? {
            if tags.len() == MAX_TAGS {
                return Err(self.too_many(at, "tags", MAX_TAGS, &mut first, |p| {
                    p.string("string (a tag)").map(drop)
                }));
            }
            tags.push(self.string("string (a tag)")?);
        }
        Ok(tags)
    }

    /// A list longer than the model allows (`max` items kept so far, the
    /// next one not yet read): the rest is read to the end — every item
    /// still checked, none kept, so a forged list of empty strings cannot
    /// grow a vector 24 bytes per 3 bytes of input — and the error names the
    /// whole count, at the list's `[`.
    #[cold]
    #[inline(never)]
    fn too_many(
        &mut self,
        at: usize,
        field: &str,
        max: usize,
        first: &mut bool,
        mut item: impl FnMut(&mut Self) -> Result<()>,
    ) -> DecodeError {
        let mut count = max;
        loop {
            if let Err(e) = item(self) {
                return e;
            }
            count += 1;
            match self.lx.next_element(first) {
                Ok(true) => {}
                Ok(false) => break,
                Err(e) => return e,
            }
        }
        let e = model::too_many_items(self.index, field, max, format_args!("found {count}"));
        DecodeError::invalid(at, e)
    }

    fn dimensions(&mut self) -> Result<Dimensions> {
        self.lx.expect(b'{', "'{' (start of `dimensions`)")?;
        let mut d = Dimensions::default();
        let (mut seen, mut hint, mut first) = (Seen::default(), 0, true);
        while let Some((i, at)) = self.lx.member(&mut first, &DimensionsField::KEYS, hint)? {
            let Some(f) = DimensionsField::at(i) else {
                self.lx.skip_value(NESTED_LEVEL)?;
                continue;
            };
            seen.mark(f as usize, at, || f.name())?;
            hint = f as usize + 1;
            match f {
                DimensionsField::WidthMm => d.width_mm = self.lx.integer(&WIDTH_MM)? as i32,
                DimensionsField::HeightMm => d.height_mm = self.lx.integer(&HEIGHT_MM)? as i32,
                DimensionsField::DepthMm => d.depth_mm = self.lx.integer(&DEPTH_MM)? as i32,
                DimensionsField::WeightG => d.weight_g = self.lx.integer(&WEIGHT_G)? as i32,
            }
        }
        let required = if self.tolerant {
            0
        } else {
            record::all(DimensionsField::ALL.len())
        };
        seen.check(required, self.lx.pos - 1, |i| DimensionsField::ALL[i].name())?;
        Ok(d)
    }

    fn variants(&mut self) -> Result<Vec<Variant>> {
        self.lx.expect(b'[', "'[' (start of `variants`)")?;
        let at = self.lx.pos - 1; // the '['
        let mut variants = Vec::new();
        let mut first = true;
        while self.lx.next_element(&mut first)? {
            if variants.len() == MAX_VARIANTS {
                return Err(self.too_many(at, "variants", MAX_VARIANTS, &mut first, |p| p.variant().map(drop)));
            }
            variants.push(self.variant()?);
        }
        Ok(variants)
    }

    fn variant(&mut self) -> Result<Variant> {
        self.lx.expect(b'{', "'{' (start of a variant)")?;
        let (mut sku, mut color, mut size) = (String::new(), String::new(), String::new());
        let (mut price_cents, mut stock) = (0, 0);
        let (mut seen, mut hint, mut first) = (Seen::default(), 0, true);
        while let Some((i, at)) = self.lx.member(&mut first, &VariantField::KEYS, hint)? {
            let Some(f) = VariantField::at(i) else {
                self.lx.skip_value(VARIANT_LEVEL)?;
                continue;
            };
            seen.mark(f as usize, at, || f.name())?;
            hint = f as usize + 1;
            match f {
                VariantField::Sku => sku = self.string("string for `sku`")?,
                VariantField::Color => color = self.string("string for `color`")?,
                VariantField::Size => size = self.string("string for `size`")?,
                VariantField::PriceCents => price_cents = self.lx.integer(&PRICE_CENTS)?,
                VariantField::Stock => stock = self.lx.integer(&STOCK)? as i32,
            }
        }
        let required = if self.tolerant {
            0
        } else {
            record::all(VariantField::ALL.len())
        };
        seen.check(required, self.lx.pos - 1, |i| VariantField::ALL[i].name())?;
        Ok(Variant {
            sku,
            color,
            size,
            price_cents,
            stock,
        })
    }
}
