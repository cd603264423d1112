//! Serde mirror of the domain model that borrows from the input: the
//! "borrowed deserialization" anchors of the peer benchmark (serde_json,
//! sonic-rs, rmp-serde) beside our view decode.
//!
//! Strings are `Cow<'a, str>` with `#[serde(borrow)]`: a slice of the input
//! when the string needs no unescaping (always, for MessagePack), an owned
//! copy when a JSON string holds escapes (a plain `&'a str` field cannot
//! hold those, and the catalog's descriptions have them). Lists stay `Vec`s,
//! as serde has no bounded inline list.

use super::serde_mirror::{SDimensions, SStatus};
use serde::Deserialize;
use std::borrow::Cow;
use wirebench::model::{Catalog, Dimensions, Product, Status, Variant};

#[derive(Deserialize, Debug)]
pub struct BVariant<'a> {
    #[serde(borrow)]
    pub sku: Cow<'a, str>,
    #[serde(borrow)]
    pub color: Cow<'a, str>,
    #[serde(borrow)]
    pub size: Cow<'a, str>,
    pub price_cents: i64,
    pub stock: i32,
}

#[derive(Deserialize, Debug)]
pub struct BProduct<'a> {
    pub id: i64,
    #[serde(borrow)]
    pub sku: Cow<'a, str>,
    #[serde(borrow)]
    pub name: Cow<'a, str>,
    #[serde(borrow)]
    pub description: Cow<'a, str>,
    pub price_cents: i64,
    #[serde(borrow)]
    pub currency: Cow<'a, str>,
    pub rating: f64,
    pub review_count: i32,
    pub in_stock: bool,
    pub stock: i32,
    pub status: SStatus,
    #[serde(borrow)]
    pub tags: Vec<Cow<'a, str>>,
    pub dimensions: SDimensions,
    #[serde(borrow)]
    pub variants: Vec<BVariant<'a>>,
    pub discount_percent: Option<i32>,
    pub created_at_ms: i64,
    #[serde(borrow)]
    pub image_url: Cow<'a, str>,
}

#[derive(Deserialize, Debug)]
pub struct BCatalog<'a> {
    #[serde(borrow)]
    pub products: Vec<BProduct<'a>>,
}

impl BCatalog<'_> {
    /// Copies into the model (what the peer benchmark's probe compares with
    /// the fixture, so a mirror that drops a field fails there).
    pub fn to_catalog(&self) -> Catalog {
        let products = self
            .products
            .iter()
            .map(|p| Product {
                id: p.id,
                sku: p.sku.to_string(),
                name: p.name.to_string(),
                description: p.description.to_string(),
                price_cents: p.price_cents,
                currency: p.currency.to_string(),
                rating: p.rating,
                review_count: p.review_count,
                in_stock: p.in_stock,
                stock: p.stock,
                status: Status::from(p.status),
                tags: p.tags.iter().map(|t| t.to_string()).collect(),
                dimensions: Dimensions {
                    width_mm: p.dimensions.width_mm,
                    height_mm: p.dimensions.height_mm,
                    depth_mm: p.dimensions.depth_mm,
                    weight_g: p.dimensions.weight_g,
                },
                variants: p
                    .variants
                    .iter()
                    .map(|v| Variant {
                        sku: v.sku.to_string(),
                        color: v.color.to_string(),
                        size: v.size.to_string(),
                        price_cents: v.price_cents,
                        stock: v.stock,
                    })
                    .collect(),
                discount_percent: p.discount_percent,
                created_at_ms: p.created_at_ms,
                image_url: p.image_url.to_string(),
            })
            .collect();
        Catalog { products }
    }
}
