//! FlatBuffers cells: v1 is the production codec
//! (`crate::codec::flatbuffers`), v2 is the flatc code generated from each
//! step's `.fbs`.
//!
//! A FlatBuffers reader finds a field through its table's vtable, by the
//! field's id, which is its position in the schema's declaration order. A
//! field the vtable lacks reads as the schema default; a field the reader
//! does not declare is never looked at. Nothing on the wire says which type
//! a slot holds, so changing a field's type or order is read through the
//! other version's eyes.

use super::access::{Fields, catalog, opt, products, record};
use super::axes::Step;
use super::generated as g;
use crate::generic::datum::Datum;
use flatbuffers::FlatBufferBuilder;

macro_rules! fb_step {
    ($name:ident, $m:path, |$p:ident, $fbb:ident| { $($wf:ident : $wv:expr),* $(,)? }, |$q:ident| [ $(($rn:literal, $rv:expr)),* $(,)? ]) => {
        mod $name {
            use crate::evolve::flatbuffers::*;
            use $m as m;

            pub fn encode(d: &Datum) -> Vec<u8> {
                let mut fbb = FlatBufferBuilder::new();
                let mut offsets = Vec::new();
                for $p in products(d) {
                    let $p: Fields<'_> = $p;
                    let $fbb = &mut fbb;
                    let sku = $fbb.create_string(&$p.string("sku"));
                    let name = $fbb.create_string(&$p.string("name"));
                    let description = $fbb.create_string(&$p.string("description"));
                    let currency = $fbb.create_string(&$p.string("currency"));
                    let tags: Vec<_> = $p.strings("tags").iter().map(|t| $fbb.create_string(t)).collect();
                    let tags = $fbb.create_vector(&tags);
                    let variants: Vec<_> = $p
                        .records("variants")
                        .into_iter()
                        .map(|v| {
                            let args = m::VariantArgs {
                                sku: Some($fbb.create_string(&v.string("sku"))),
                                color: Some($fbb.create_string(&v.string("color"))),
                                size: Some($fbb.create_string(&v.string("size"))),
                                price_cents: v.long("price_cents"),
                                stock: v.int("stock"),
                            };
                            m::Variant::create($fbb, &args)
                        })
                        .collect();
                    let variants = $fbb.create_vector(&variants);
                    let dims = $p.record("dimensions");
                    let dimensions = m::Dimensions::new(
                        dims.int("width_mm"),
                        dims.int("height_mm"),
                        dims.int("depth_mm"),
                        dims.int("weight_g"),
                    );
                    let args = m::ProductArgs {
                        id: $p.long("id"),
                        sku: Some(sku),
                        name: Some(name),
                        description: Some(description),
                        price_cents: $p.long("price_cents"),
                        currency: Some(currency),
                        rating: $p.double("rating"),
                        in_stock: $p.boolean("in_stock"),
                        status: m::Status($p.symbol_index("status") as i8),
                        tags: Some(tags),
                        dimensions: Some(&dimensions),
                        variants: Some(variants),
                        created_at_ms: $p.long("created_at_ms"),
                        $($wf: $wv,)*
                    };
                    offsets.push(m::Product::create($fbb, &args));
                }
                let products = fbb.create_vector(&offsets);
                let root = m::Catalog::create(&mut fbb, &m::CatalogArgs { products: Some(products) });
                m::finish_catalog_buffer(&mut fbb, root);
                fbb.finished_data().to_vec()
            }

            pub fn decode(bytes: &[u8]) -> Result<Datum, String> {
                let c = m::root_as_catalog(bytes).map_err(|e| format!("flatbuffers verifier: {e}"))?;
                let products = c
                    .products()
                    .iter()
                    .map(|$q| {
                        let dims = $q.dimensions();
                        let status = match $q.status().variant_name() {
                            Some(s) => crate::evolve::access::symbol($q.status().0 as u32, s),
                            None => Datum::Int(i32::from($q.status().0)),
                        };
                        let mut fields = vec![
                            ("id", Datum::Long($q.id())),
                            ("sku", Datum::String($q.sku().to_string())),
                            ("name", Datum::String($q.name().to_string())),
                            ("description", Datum::String($q.description().to_string())),
                            ("price_cents", Datum::Long($q.price_cents())),
                            ("currency", Datum::String($q.currency().to_string())),
                            ("rating", Datum::Double($q.rating())),
                            ("in_stock", Datum::Boolean($q.in_stock())),
                            ("status", status),
                            ("tags", Datum::Array($q.tags().iter().map(|t| Datum::String(t.to_string())).collect())),
                            (
                                "dimensions",
                                record(vec![
                                    ("width_mm", Datum::Int(dims.width_mm())),
                                    ("height_mm", Datum::Int(dims.height_mm())),
                                    ("depth_mm", Datum::Int(dims.depth_mm())),
                                    ("weight_g", Datum::Int(dims.weight_g())),
                                ]),
                            ),
                            (
                                "variants",
                                Datum::Array(
                                    $q.variants()
                                        .iter()
                                        .map(|v| {
                                            record(vec![
                                                ("sku", Datum::String(v.sku().to_string())),
                                                ("color", Datum::String(v.color().to_string())),
                                                ("size", Datum::String(v.size().to_string())),
                                                ("price_cents", Datum::Long(v.price_cents())),
                                                ("stock", Datum::Int(v.stock())),
                                            ])
                                        })
                                        .collect(),
                                ),
                            ),
                            ("created_at_ms", Datum::Long($q.created_at_ms())),
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

fn text(s: &str) -> Datum {
    Datum::String(s.to_string())
}

fb_step!(add_field, g::add_field_fb::wirebench::evolution::add_field,
    |p, fbb| { review_count: p.int("review_count"), stock: p.int("stock"), discount_percent: p.opt_int("discount_percent"), image_url: Some(fbb.create_string(&p.string("image_url"))), brand: Some(fbb.create_string(&p.string("brand"))) },
    |q| [("review_count", Datum::Int(q.review_count())), ("stock", Datum::Int(q.stock())), ("discount_percent", opt(q.discount_percent())), ("image_url", text(q.image_url())), ("brand", text(q.brand().unwrap_or("")))]);
fb_step!(remove_field, g::remove_field_fb::wirebench::evolution::remove_field,
    |p, fbb| { review_count: p.int("review_count"), stock: p.int("stock"), discount_percent: p.opt_int("discount_percent") },
    |q| [("review_count", Datum::Int(q.review_count())), ("stock", Datum::Int(q.stock())), ("discount_percent", opt(q.discount_percent()))]);
fb_step!(widen_int, g::widen_int_fb::wirebench::evolution::widen_int,
    |p, fbb| { review_count: p.int("review_count"), stock: p.long("stock"), discount_percent: p.opt_int("discount_percent"), image_url: Some(fbb.create_string(&p.string("image_url"))) },
    |q| [("review_count", Datum::Int(q.review_count())), ("stock", Datum::Long(q.stock())), ("discount_percent", opt(q.discount_percent())), ("image_url", text(q.image_url()))]);
fb_step!(add_enum_symbol, g::add_enum_symbol_fb::wirebench::evolution::add_enum_symbol,
    |p, fbb| { review_count: p.int("review_count"), stock: p.int("stock"), discount_percent: p.opt_int("discount_percent"), image_url: Some(fbb.create_string(&p.string("image_url"))) },
    |q| [("review_count", Datum::Int(q.review_count())), ("stock", Datum::Int(q.stock())), ("discount_percent", opt(q.discount_percent())), ("image_url", text(q.image_url()))]);
fb_step!(rename_field, g::rename_field_fb::wirebench::evolution::rename_field,
    |p, fbb| { reviews: p.int("reviews"), stock: p.int("stock"), discount_percent: p.opt_int("discount_percent"), image_url: Some(fbb.create_string(&p.string("image_url"))) },
    |q| [("reviews", Datum::Int(q.reviews())), ("stock", Datum::Int(q.stock())), ("discount_percent", opt(q.discount_percent())), ("image_url", text(q.image_url()))]);
fb_step!(reorder_fields, g::reorder_fields_fb::wirebench::evolution::reorder_fields,
    |p, fbb| { review_count: p.int("review_count"), stock: p.int("stock"), discount_percent: p.opt_int("discount_percent"), image_url: Some(fbb.create_string(&p.string("image_url"))) },
    |q| [("review_count", Datum::Int(q.review_count())), ("stock", Datum::Int(q.stock())), ("discount_percent", opt(q.discount_percent())), ("image_url", text(q.image_url()))]);
fb_step!(optional_to_required, g::optional_to_required_fb::wirebench::evolution::optional_to_required,
    |p, fbb| { review_count: p.int("review_count"), stock: p.int("stock"), discount_percent: p.int("discount_percent"), image_url: Some(fbb.create_string(&p.string("image_url"))) },
    |q| [("review_count", Datum::Int(q.review_count())), ("stock", Datum::Int(q.stock())), ("discount_percent", Datum::Int(q.discount_percent())), ("image_url", text(q.image_url()))]);

super::axes::v2_by_step!();
