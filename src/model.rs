//! The domain model: one product catalog, the same logical data in every format.
//!
//! Every decoder ends here: it builds these types and then calls
//! [`Catalog::validate`], so a payload that parses but breaks a rule of the data
//! model (a negative price, a rating of 7.5, a sixth tag) is still an error.
//! Field order in these structs is the order of the field table
//! (docs/SPEC.md, "Field order"), which is also the
//! order of every schema and of every encoder's output.

use std::collections::HashSet;
use std::fmt;

/// Lifecycle of a product. JSON and MessagePack spell it as lowercase strings,
/// Protobuf/Avro/FlatBuffers as an enum index in this order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Status {
    #[default]
    Active,
    Draft,
    Discontinued,
}

impl Status {
    /// All values in schema order (index = Avro/FlatBuffers/Protobuf ordinal).
    pub const ALL: [Status; 3] = [Status::Active, Status::Draft, Status::Discontinued];

    /// The string used by the self-describing formats (JSON, MessagePack).
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Active => "active",
            Status::Draft => "draft",
            Status::Discontinued => "discontinued",
        }
    }

    /// Inverse of [`Status::as_str`]; `None` for anything else (case-sensitive).
    pub fn from_str_exact(s: &str) -> Option<Status> {
        match s {
            "active" => Some(Status::Active),
            "draft" => Some(Status::Draft),
            "discontinued" => Some(Status::Discontinued),
            _ => None,
        }
    }

    /// Schema ordinal: ACTIVE = 0, DRAFT = 1, DISCONTINUED = 2.
    pub fn index(self) -> u32 {
        self as u32
    }

    /// Inverse of [`Status::index`].
    pub fn from_index(i: i64) -> Option<Status> {
        match i {
            0 => Some(Status::Active),
            1 => Some(Status::Draft),
            2 => Some(Status::Discontinued),
            _ => None,
        }
    }
}

/// Physical size of a product; every field is ≥ 0.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Dimensions {
    pub width_mm: i32,
    pub height_mm: i32,
    pub depth_mm: i32,
    pub weight_g: i32,
}

/// A purchasable variant of a product (colour/size).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Variant {
    pub sku: String,
    pub color: String,
    pub size: String,
    pub price_cents: i64,
    pub stock: i32,
}

/// One catalog entry. Field order (docs/SPEC.md, "Field order") = schema order = wire order.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Product {
    pub id: i64,
    pub sku: String,
    pub name: String,
    pub description: String,
    pub price_cents: i64,
    pub currency: String,
    pub rating: f64,
    pub review_count: i32,
    pub in_stock: bool,
    pub stock: i32,
    pub status: Status,
    pub tags: Vec<String>,
    pub dimensions: Dimensions,
    pub variants: Vec<Variant>,
    pub discount_percent: Option<i32>,
    pub created_at_ms: i64,
    pub image_url: String,
}

/// The envelope every format encodes: `Catalog { products: [Product] }`.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Catalog {
    pub products: Vec<Product>,
}

/// The product's fields in field order (docs/SPEC.md, "Field order"): the
/// one list the explainer's per-field tables and the Protobuf reader's field
/// names use.
pub const PRODUCT_FIELDS: [&str; 17] = [
    "id",
    "sku",
    "name",
    "description",
    "price_cents",
    "currency",
    "rating",
    "review_count",
    "in_stock",
    "stock",
    "status",
    "tags",
    "dimensions",
    "variants",
    "discount_percent",
    "created_at_ms",
    "image_url",
];

/// Most tags a product may carry.
pub const MAX_TAGS: usize = 5;
/// Most variants a product may carry.
pub const MAX_VARIANTS: usize = 3;
/// Inclusive range of `discount_percent` when present.
pub const DISCOUNT_RANGE: std::ops::RangeInclusive<i32> = 1..=90;
/// Inclusive range of `rating`.
pub const RATING_RANGE: std::ops::RangeInclusive<f64> = 0.0..=5.0;

/// A rule of the data model that a value breaks, with the path to the value.
#[derive(Clone, Debug, PartialEq)]
pub struct ValidationError {
    /// Where, e.g. `products[3].variants[1].stock`.
    pub path: String,
    /// What the rule is and what was found, e.g. `must be >= 0, found -1`.
    pub problem: String,
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.problem)
    }
}

impl std::error::Error for ValidationError {}

#[cold]
fn invalid(index: usize, field: &str, problem: String) -> ValidationError {
    ValidationError {
        path: format!("products[{index}].{field}"),
        problem,
    }
}

fn non_negative_i64(index: usize, field: &str, v: i64) -> Result<(), ValidationError> {
    if v < 0 {
        return Err(invalid(index, field, format!("must be >= 0, found {v}")));
    }
    Ok(())
}

fn non_negative_i32(index: usize, field: &str, v: i32) -> Result<(), ValidationError> {
    non_negative_i64(index, field, i64::from(v))
}

/// What the rules of the data model read from a product, whoever holds it:
/// the owned [`Product`] and the borrowed views of every format
/// (`crate::codec::view::ProductView`) answer the same questions, so the
/// rules live once, in [`validate_product`]. Both implementations are one
/// body, `impl_product_facts!`, over their fields' common names.
pub trait ProductFacts {
    fn id(&self) -> i64;
    /// The characters of `sku` (a JSON view unescapes them lazily).
    fn sku_chars(&self) -> impl Iterator<Item = char> + '_;
    /// `sku` is ASCII.
    fn sku_is_ascii(&self) -> bool;
    fn price_cents(&self) -> i64;
    fn currency_chars(&self) -> impl Iterator<Item = char> + '_;
    /// `currency` is a 3-letter ISO 4217 code ([`is_currency_code`]).
    fn currency_is_code(&self) -> bool;
    fn rating(&self) -> f64;
    fn review_count(&self) -> i32;
    fn stock(&self) -> i32;
    /// How many tags the wire held (a view may hold fewer when over the limit).
    fn tags_len(&self) -> usize;
    fn dimensions(&self) -> &Dimensions;
    fn variants_len(&self) -> usize;
    /// `(price_cents, stock)` of each variant, in order.
    fn variant_numbers(&self) -> impl Iterator<Item = (i64, i32)> + '_;
    fn discount_percent(&self) -> Option<i32>;
}

/// A string field as [`ProductFacts`] reads it: its characters, and the
/// string itself when it is held as written (not a JSON view's escapes),
/// so the checks can run on its bytes.
pub trait FactText {
    fn fact_chars(&self) -> impl Iterator<Item = char> + '_;
    fn fact_str(&self) -> Option<&str>;
}

impl FactText for String {
    fn fact_chars(&self) -> impl Iterator<Item = char> + '_ {
        self.chars()
    }
    #[inline]
    fn fact_str(&self) -> Option<&str> {
        Some(self)
    }
}

/// Implements [`ProductFacts`] for a product type whose fields have
/// [`Product`]'s names, its strings [`FactText`], its lists a `len()` and
/// an `iter()`.
macro_rules! impl_product_facts {
    ($ty:ty) => {
        impl $crate::model::ProductFacts for $ty {
            fn id(&self) -> i64 {
                self.id
            }
            fn sku_chars(&self) -> impl Iterator<Item = char> + '_ {
                $crate::model::FactText::fact_chars(&self.sku)
            }
            fn sku_is_ascii(&self) -> bool {
                match $crate::model::FactText::fact_str(&self.sku) {
                    Some(s) => s.is_ascii(),
                    None => self.sku_chars().all(|c| c.is_ascii()),
                }
            }
            fn price_cents(&self) -> i64 {
                self.price_cents
            }
            fn currency_chars(&self) -> impl Iterator<Item = char> + '_ {
                $crate::model::FactText::fact_chars(&self.currency)
            }
            fn currency_is_code(&self) -> bool {
                match $crate::model::FactText::fact_str(&self.currency) {
                    Some(s) => $crate::model::is_currency_code_bytes(s.as_bytes()),
                    None => $crate::model::is_currency_code(self.currency_chars()),
                }
            }
            fn rating(&self) -> f64 {
                self.rating
            }
            fn review_count(&self) -> i32 {
                self.review_count
            }
            fn stock(&self) -> i32 {
                self.stock
            }
            fn tags_len(&self) -> usize {
                self.tags.len()
            }
            fn dimensions(&self) -> &$crate::model::Dimensions {
                &self.dimensions
            }
            fn variants_len(&self) -> usize {
                self.variants.len()
            }
            fn variant_numbers(&self) -> impl Iterator<Item = (i64, i32)> + '_ {
                self.variants.iter().map(|v| (v.price_cents, v.stock))
            }
            fn discount_percent(&self) -> Option<i32> {
                self.discount_percent
            }
        }
    };
}
pub(crate) use impl_product_facts;

impl_product_facts!(Product);

/// `s` is exactly three ASCII uppercase letters.
pub fn is_currency_code_bytes(s: &[u8]) -> bool {
    s.len() == 3 && s.iter().all(u8::is_ascii_uppercase)
}

/// [`is_currency_code_bytes`] over characters.
pub fn is_currency_code(mut s: impl Iterator<Item = char>) -> bool {
    let mut n = 0;
    s.all(|c| {
        n += 1;
        n <= 3 && c.is_ascii_uppercase()
    }) && n == 3
}

/// Checks the rules of (docs/SPEC.md, "Validation") for the product at `index` (the
/// index only names the product in the error), whatever holds it.
pub fn validate_product(p: &impl ProductFacts, index: usize) -> Result<(), ValidationError> {
    if p.id() < 1 {
        return Err(invalid(index, "id", format!("must be >= 1, found {}", p.id())));
    }
    if !p.sku_is_ascii() {
        return Err(invalid(index, "sku", "must be ASCII".to_string()));
    }
    non_negative_i64(index, "price_cents", p.price_cents())?;
    if !p.currency_is_code() {
        let found: String = p.currency_chars().collect();
        return Err(invalid(
            index,
            "currency",
            format!("must be a 3-letter ISO 4217 code, found {found:?}"),
        ));
    }
    let rating = p.rating();
    if !rating.is_finite() || !RATING_RANGE.contains(&rating) {
        return Err(invalid(
            index,
            "rating",
            format!("must be finite and in 0.0..=5.0, found {rating}"),
        ));
    }
    non_negative_i32(index, "review_count", p.review_count())?;
    non_negative_i32(index, "stock", p.stock())?;
    if p.tags_len() > MAX_TAGS {
        return Err(too_many_items(
            index,
            "tags",
            MAX_TAGS,
            format_args!("found {}", p.tags_len()),
        ));
    }
    let d = p.dimensions();
    non_negative_i32(index, "dimensions.width_mm", d.width_mm)?;
    non_negative_i32(index, "dimensions.height_mm", d.height_mm)?;
    non_negative_i32(index, "dimensions.depth_mm", d.depth_mm)?;
    non_negative_i32(index, "dimensions.weight_g", d.weight_g)?;
    if p.variants_len() > MAX_VARIANTS {
        return Err(too_many_items(
            index,
            "variants",
            MAX_VARIANTS,
            format_args!("found {}", p.variants_len()),
        ));
    }
    for (j, (price_cents, stock)) in p.variant_numbers().enumerate() {
        // The path is built only when a rule is broken: validation runs in
        // every decode benchmark, so the happy path must not allocate.
        if price_cents < 0 {
            non_negative_i64(index, &format!("variants[{j}].price_cents"), price_cents)?;
        }
        if stock < 0 {
            non_negative_i32(index, &format!("variants[{j}].stock"), stock)?;
        }
    }
    if let Some(p) = p.discount_percent() {
        if !DISCOUNT_RANGE.contains(&p) {
            return Err(invalid(
                index,
                "discount_percent",
                format!("must be absent or in 1..=90, found {p}"),
            ));
        }
    }
    Ok(())
}

impl Product {
    /// Checks the rules of docs/SPEC.md, "Product fields", for the product at `index`
    /// (the index only names the product in the error).
    pub fn validate(&self, index: usize) -> Result<(), ValidationError> {
        validate_product(self, index)
    }
}

impl Catalog {
    /// Validates every product and that ids are unique.
    pub fn validate(&self) -> Result<(), ValidationError> {
        validate_products(&self.products)
    }
}

/// The error for a product whose id an earlier product already has; every
/// decoder that checks ids as it reads reports it in these words.
#[cold]
pub fn duplicate_id(index: usize, id: i64) -> ValidationError {
    invalid(index, "id", format!("duplicate id {id}"))
}

/// The error for a `tags` or `variants` list over its maximum, refused
/// before the list is built; `found` is e.g. `found 6` or `found at least 6`.
#[cold]
pub fn too_many_items(index: usize, field: &str, max: usize, found: impl fmt::Display) -> ValidationError {
    invalid(index, field, format!("at most {max} items, {found}"))
}

/// Validates a slice of products (what an encoder is handed) and id uniqueness.
pub fn validate_products(products: &[Product]) -> Result<(), ValidationError> {
    let mut seen = HashSet::with_capacity(products.len());
    for (i, p) in products.iter().enumerate() {
        p.validate(i)?;
        if !seen.insert(p.id) {
            return Err(duplicate_id(i, p.id));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;

    #[test]
    fn fixture_products_are_valid() {
        fixtures::catalog(1000).validate().unwrap();
    }

    #[test]
    fn each_rule_is_enforced() {
        let base = fixtures::product(1);
        type Mutation = Box<dyn Fn(&mut Product)>;
        let cases: Vec<(Mutation, &str)> = vec![
            (Box::new(|p| p.id = 0), "products[0].id: must be >= 1, found 0"),
            (
                Box::new(|p| p.price_cents = -1),
                "products[0].price_cents: must be >= 0, found -1",
            ),
            (
                Box::new(|p| p.rating = f64::NAN),
                "products[0].rating: must be finite and in 0.0..=5.0, found NaN",
            ),
            (
                Box::new(|p| p.rating = 5.5),
                "products[0].rating: must be finite and in 0.0..=5.0, found 5.5",
            ),
            (
                Box::new(|p| p.currency = "usd".into()),
                "products[0].currency: must be a 3-letter ISO 4217 code, found \"usd\"",
            ),
            (
                Box::new(|p| p.tags = vec![String::new(); 6]),
                "products[0].tags: at most 5 items, found 6",
            ),
            (
                Box::new(|p| p.discount_percent = Some(91)),
                "products[0].discount_percent: must be absent or in 1..=90, found 91",
            ),
            (
                Box::new(|p| p.dimensions.weight_g = -3),
                "products[0].dimensions.weight_g: must be >= 0, found -3",
            ),
            (Box::new(|p| p.sku = "SKU-ü".into()), "products[0].sku: must be ASCII"),
        ];
        for (mutate, want) in cases {
            let mut p = base.clone();
            mutate(&mut p);
            assert_eq!(p.validate(0).unwrap_err().to_string(), want);
        }
    }

    #[test]
    fn currency_rule_reads_the_same_over_bytes_and_chars() {
        for s in ["USD", "THB", "usd", "US", "USDX", "UŞD", "", "ÀBC", "A\u{0}C"] {
            assert_eq!(
                is_currency_code_bytes(s.as_bytes()),
                is_currency_code(s.chars()),
                "{s:?}"
            );
        }
    }

    #[test]
    fn duplicate_ids_are_rejected() {
        let p = fixtures::product(1);
        let err = validate_products(&[p.clone(), p]).unwrap_err();
        assert_eq!(err.to_string(), "products[1].id: duplicate id 1");
    }
}
