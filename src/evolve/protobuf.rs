//! Protobuf cells: v1 is the production codec (`crate::codec::protobuf`),
//! v2 is the prost code generated from each step's `.proto`.
//!
//! prost decodes a message by field number and drops numbers it does not
//! know (it keeps no unknown fields), so a v1 reader — or a v1 relay that
//! decodes and re-encodes — loses whatever v2 added, without an error.

use super::access::{Fields, catalog, opt, products, record, symbol};
use super::axes::Step;
use super::generated as g;
use crate::generic::datum::Datum;
use prost::Message;

/// The fields every step's generated `Product` has under the same name and
/// type, written from a datum (`$extra` adds the step's own fields).
macro_rules! pb_step {
    ($name:ident, $m:path, |$p:ident| { $($wf:ident : $wv:expr),* $(,)? }, |$q:ident| [ $(($rn:literal, $rv:expr)),* $(,)? ]) => {
        mod $name {
            use crate::evolve::protobuf::*;
            use $m as m;

            pub fn encode(d: &Datum) -> Vec<u8> {
                let products = products(d)
                    .into_iter()
                    .map(|$p: Fields<'_>| {
                        let dims = $p.record("dimensions");
                        m::Product {
                            id: $p.long("id"),
                            sku: $p.string("sku"),
                            name: $p.string("name"),
                            description: $p.string("description"),
                            price_cents: $p.long("price_cents"),
                            currency: $p.string("currency"),
                            rating: $p.double("rating"),
                            in_stock: $p.boolean("in_stock"),
                            status: $p.symbol_index("status") as i32,
                            tags: $p.strings("tags"),
                            dimensions: Some(m::Dimensions {
                                width_mm: dims.int("width_mm"),
                                height_mm: dims.int("height_mm"),
                                depth_mm: dims.int("depth_mm"),
                                weight_g: dims.int("weight_g"),
                            }),
                            variants: $p
                                .records("variants")
                                .into_iter()
                                .map(|v| m::Variant {
                                    sku: v.string("sku"),
                                    color: v.string("color"),
                                    size: v.string("size"),
                                    price_cents: v.long("price_cents"),
                                    stock: v.int("stock"),
                                })
                                .collect(),
                            created_at_ms: $p.long("created_at_ms"),
                            $($wf: $wv,)*
                        }
                    })
                    .collect();
                m::Catalog { products }.encode_to_vec()
            }

            pub fn decode(bytes: &[u8]) -> Result<Datum, String> {
                let c = m::Catalog::decode(bytes).map_err(|e| format!("prost: {e}"))?;
                let products = c
                    .products
                    .iter()
                    .map(|$q| {
                        let dims = $q.dimensions.clone().unwrap_or_default();
                        let status = match m::Status::try_from($q.status) {
                            Ok(s) => symbol($q.status as u32, s.as_str_name()),
                            Err(_) => Datum::Int($q.status),
                        };
                        let mut fields = vec![
                            ("id", Datum::Long($q.id)),
                            ("sku", Datum::String($q.sku.clone())),
                            ("name", Datum::String($q.name.clone())),
                            ("description", Datum::String($q.description.clone())),
                            ("price_cents", Datum::Long($q.price_cents)),
                            ("currency", Datum::String($q.currency.clone())),
                            ("rating", Datum::Double($q.rating)),
                            ("in_stock", Datum::Boolean($q.in_stock)),
                            ("status", status),
                            ("tags", Datum::Array($q.tags.iter().cloned().map(Datum::String).collect())),
                            (
                                "dimensions",
                                record(vec![
                                    ("width_mm", Datum::Int(dims.width_mm)),
                                    ("height_mm", Datum::Int(dims.height_mm)),
                                    ("depth_mm", Datum::Int(dims.depth_mm)),
                                    ("weight_g", Datum::Int(dims.weight_g)),
                                ]),
                            ),
                            (
                                "variants",
                                Datum::Array(
                                    $q.variants
                                        .iter()
                                        .map(|v| {
                                            record(vec![
                                                ("sku", Datum::String(v.sku.clone())),
                                                ("color", Datum::String(v.color.clone())),
                                                ("size", Datum::String(v.size.clone())),
                                                ("price_cents", Datum::Long(v.price_cents)),
                                                ("stock", Datum::Int(v.stock)),
                                            ])
                                        })
                                        .collect(),
                                ),
                            ),
                            ("created_at_ms", Datum::Long($q.created_at_ms)),
                        ];
                        $(fields.push(($rn, $rv));)*
                        record(fields)
                    })
                    .collect();
                Ok(catalog(products))
            }
        }
    };
}

pb_step!(add_field, g::add_field_pb,
    |p| { review_count: p.int("review_count"), stock: p.int("stock"), discount_percent: p.opt_int("discount_percent"), image_url: p.string("image_url"), brand: p.string("brand") },
    |q| [("review_count", Datum::Int(q.review_count)), ("stock", Datum::Int(q.stock)), ("discount_percent", opt(q.discount_percent)), ("image_url", Datum::String(q.image_url.clone())), ("brand", Datum::String(q.brand.clone()))]);
pb_step!(remove_field, g::remove_field_pb,
    |p| { review_count: p.int("review_count"), stock: p.int("stock"), discount_percent: p.opt_int("discount_percent") },
    |q| [("review_count", Datum::Int(q.review_count)), ("stock", Datum::Int(q.stock)), ("discount_percent", opt(q.discount_percent))]);
pb_step!(widen_int, g::widen_int_pb,
    |p| { review_count: p.int("review_count"), stock: p.long("stock"), discount_percent: p.opt_int("discount_percent"), image_url: p.string("image_url") },
    |q| [("review_count", Datum::Int(q.review_count)), ("stock", Datum::Long(q.stock)), ("discount_percent", opt(q.discount_percent)), ("image_url", Datum::String(q.image_url.clone()))]);
pb_step!(add_enum_symbol, g::add_enum_symbol_pb,
    |p| { review_count: p.int("review_count"), stock: p.int("stock"), discount_percent: p.opt_int("discount_percent"), image_url: p.string("image_url") },
    |q| [("review_count", Datum::Int(q.review_count)), ("stock", Datum::Int(q.stock)), ("discount_percent", opt(q.discount_percent)), ("image_url", Datum::String(q.image_url.clone()))]);
pb_step!(rename_field, g::rename_field_pb,
    |p| { reviews: p.int("reviews"), stock: p.int("stock"), discount_percent: p.opt_int("discount_percent"), image_url: p.string("image_url") },
    |q| [("reviews", Datum::Int(q.reviews)), ("stock", Datum::Int(q.stock)), ("discount_percent", opt(q.discount_percent)), ("image_url", Datum::String(q.image_url.clone()))]);
pb_step!(reorder_fields, g::reorder_fields_pb,
    |p| { review_count: p.int("review_count"), stock: p.int("stock"), discount_percent: p.opt_int("discount_percent"), image_url: p.string("image_url") },
    |q| [("review_count", Datum::Int(q.review_count)), ("stock", Datum::Int(q.stock)), ("discount_percent", opt(q.discount_percent)), ("image_url", Datum::String(q.image_url.clone()))]);
pb_step!(optional_to_required, g::optional_to_required_pb,
    |p| { review_count: p.int("review_count"), stock: p.int("stock"), discount_percent: p.int("discount_percent"), image_url: p.string("image_url") },
    |q| [("review_count", Datum::Int(q.review_count)), ("stock", Datum::Int(q.stock)), ("discount_percent", Datum::Int(q.discount_percent)), ("image_url", Datum::String(q.image_url.clone()))]);

super::axes::v2_by_step!();
