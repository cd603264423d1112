//! Serde mirror of the domain model for apache-avro's schema-aware serde path
//! (`GenericDatumWriter::write_ser` / `GenericDatumReader::read_deser`). That
//! path matches a struct to a record by name and an enum variant to a symbol
//! by name, so these structs carry the schema's record names (`Catalog`,
//! `Product`, `Dimensions`, `Variant`) and the UPPERCASE status symbols; the
//! JSON/MessagePack mirror (`serde_mirror.rs`) spells the status in
//! lowercase. Field order and types are the schema's.

use super::serde_mirror::{SCatalog, SStatus};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
#[serde(rename = "Status", rename_all = "UPPERCASE")]
pub enum AStatus {
    Active,
    Draft,
    Discontinued,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename = "Dimensions")]
pub struct ADimensions {
    pub width_mm: i32,
    pub height_mm: i32,
    pub depth_mm: i32,
    pub weight_g: i32,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename = "Variant")]
pub struct AVariant {
    pub sku: String,
    pub color: String,
    pub size: String,
    pub price_cents: i64,
    pub stock: i32,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename = "Product")]
pub struct AProduct {
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
    pub status: AStatus,
    pub tags: Vec<String>,
    pub dimensions: ADimensions,
    pub variants: Vec<AVariant>,
    pub discount_percent: Option<i32>,
    pub created_at_ms: i64,
    pub image_url: String,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(rename = "Catalog")]
pub struct ACatalog {
    pub products: Vec<AProduct>,
}

impl From<&SCatalog> for ACatalog {
    fn from(c: &SCatalog) -> ACatalog {
        let products = c
            .products
            .iter()
            .map(|p| AProduct {
                id: p.id,
                sku: p.sku.clone(),
                name: p.name.clone(),
                description: p.description.clone(),
                price_cents: p.price_cents,
                currency: p.currency.clone(),
                rating: p.rating,
                review_count: p.review_count,
                in_stock: p.in_stock,
                stock: p.stock,
                status: match p.status {
                    SStatus::Active => AStatus::Active,
                    SStatus::Draft => AStatus::Draft,
                    SStatus::Discontinued => AStatus::Discontinued,
                },
                tags: p.tags.clone(),
                dimensions: ADimensions {
                    width_mm: p.dimensions.width_mm,
                    height_mm: p.dimensions.height_mm,
                    depth_mm: p.dimensions.depth_mm,
                    weight_g: p.dimensions.weight_g,
                },
                variants: p
                    .variants
                    .iter()
                    .map(|v| AVariant {
                        sku: v.sku.clone(),
                        color: v.color.clone(),
                        size: v.size.clone(),
                        price_cents: v.price_cents,
                        stock: v.stock,
                    })
                    .collect(),
                discount_percent: p.discount_percent,
                created_at_ms: p.created_at_ms,
                image_url: p.image_url.clone(),
            })
            .collect();
        ACatalog { products }
    }
}
