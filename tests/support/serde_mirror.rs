//! Serde mirror of the domain model, for differential tests and peer benchmarks
//! against serde_json and rmp-serde. Field names and order follow docs/SPEC.md, "Field order", so
//! serde's output for these types is what our JSON/MessagePack encoders must
//! reproduce byte for byte.

use serde::{Deserialize, Serialize};
use wirebench::model::{Catalog, Dimensions, Product, Status, Variant};

/// JSON and MessagePack spell the status in lowercase. apache-avro writes an
/// enum by its index but reads it back by symbol name, so the Avro schema's
/// UPPERCASE symbols are accepted as aliases when deserializing.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum SStatus {
    #[serde(alias = "ACTIVE")]
    Active,
    #[serde(alias = "DRAFT")]
    Draft,
    #[serde(alias = "DISCONTINUED")]
    Discontinued,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct SDimensions {
    pub width_mm: i32,
    pub height_mm: i32,
    pub depth_mm: i32,
    pub weight_g: i32,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct SVariant {
    pub sku: String,
    pub color: String,
    pub size: String,
    pub price_cents: i64,
    pub stock: i32,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct SProduct {
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
    pub status: SStatus,
    pub tags: Vec<String>,
    pub dimensions: SDimensions,
    pub variants: Vec<SVariant>,
    pub discount_percent: Option<i32>,
    pub created_at_ms: i64,
    pub image_url: String,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct SCatalog {
    pub products: Vec<SProduct>,
}

impl From<Status> for SStatus {
    fn from(s: Status) -> SStatus {
        match s {
            Status::Active => SStatus::Active,
            Status::Draft => SStatus::Draft,
            Status::Discontinued => SStatus::Discontinued,
        }
    }
}

impl From<SStatus> for Status {
    fn from(s: SStatus) -> Status {
        match s {
            SStatus::Active => Status::Active,
            SStatus::Draft => Status::Draft,
            SStatus::Discontinued => Status::Discontinued,
        }
    }
}

impl From<&Product> for SProduct {
    fn from(p: &Product) -> SProduct {
        let d = &p.dimensions;
        SProduct {
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
            status: p.status.into(),
            tags: p.tags.clone(),
            dimensions: SDimensions {
                width_mm: d.width_mm,
                height_mm: d.height_mm,
                depth_mm: d.depth_mm,
                weight_g: d.weight_g,
            },
            variants: p
                .variants
                .iter()
                .map(|v| SVariant {
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
        }
    }
}

impl From<SProduct> for Product {
    fn from(p: SProduct) -> Product {
        let d = p.dimensions;
        Product {
            id: p.id,
            sku: p.sku,
            name: p.name,
            description: p.description,
            price_cents: p.price_cents,
            currency: p.currency,
            rating: p.rating,
            review_count: p.review_count,
            in_stock: p.in_stock,
            stock: p.stock,
            status: p.status.into(),
            tags: p.tags,
            dimensions: Dimensions {
                width_mm: d.width_mm,
                height_mm: d.height_mm,
                depth_mm: d.depth_mm,
                weight_g: d.weight_g,
            },
            variants: p
                .variants
                .into_iter()
                .map(|v| Variant {
                    sku: v.sku,
                    color: v.color,
                    size: v.size,
                    price_cents: v.price_cents,
                    stock: v.stock,
                })
                .collect(),
            discount_percent: p.discount_percent,
            created_at_ms: p.created_at_ms,
            image_url: p.image_url,
        }
    }
}

impl From<&Catalog> for SCatalog {
    fn from(c: &Catalog) -> SCatalog {
        SCatalog {
            products: c.products.iter().map(SProduct::from).collect(),
        }
    }
}

impl From<SCatalog> for Catalog {
    fn from(c: SCatalog) -> Catalog {
        Catalog {
            products: c.products.into_iter().map(Product::from).collect(),
        }
    }
}

/// Our catalog writer's bytes (`ours`) equal a reference writer's
/// (`theirs`, over the mirror) whatever the buffer's starting capacity (so
/// growth happens at every point of a product) and after bytes already in
/// the buffer (it appends): `catalog(200)`, the edge products and random
/// catalogs 0..50.
#[allow(dead_code)] // benches/peers.rs includes this file and has no use for it
pub fn any_capacity_equals(ours: impl Fn(&[Product], &mut Vec<u8>), theirs: impl Fn(&SCatalog) -> Vec<u8>) {
    use wirebench::fixtures::{catalog, edge_products, random_catalog};
    let mut catalogs = vec![catalog(200).products, edge_products()];
    catalogs.extend((0..50).map(|seed| random_catalog(seed).products));
    for products in catalogs {
        let c = Catalog { products };
        let theirs = theirs(&SCatalog::from(&c));
        for cap in [0, 1, 7, 16, 100, 1000] {
            let mut out = Vec::with_capacity(cap);
            ours(&c.products, &mut out);
            assert!(out == theirs, "capacity {cap}: {}", String::from_utf8_lossy(&out));
        }
        let mut out = b"prefix".to_vec();
        ours(&c.products, &mut out);
        assert!(out[..6] == *b"prefix" && out[6..] == theirs[..]);
    }
}
