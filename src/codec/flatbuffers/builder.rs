//! The catalog built the way a user of the official crate builds it: the
//! generated `create` functions called in field order, a vector collected
//! per list, and, with `SHARED`, every string stored once
//! (`create_shared_string`). Same schema and field values as [`super::encode`],
//! so any FlatBuffers reader reads the same catalog, but another layout:
//! the page serves the shared-string form beside ours, the peers bench
//! times this as the crate's own encoder, and the tests read it back.

use super::generated::wirebench as fb;
use crate::model::Product;
use flatbuffers::{FlatBufferBuilder, WIPOffset};

/// Resets `fbb` and builds `products` in it: the finished bytes, left in the
/// builder (reuse it across calls to keep its buffer).
pub fn build<'b, const SHARED: bool>(fbb: &'b mut FlatBufferBuilder<'static>, products: &[Product]) -> &'b [u8] {
    fbb.reset();
    let string = |fbb: &mut FlatBufferBuilder<'static>, s: &str| {
        if SHARED {
            fbb.create_shared_string(s)
        } else {
            fbb.create_string(s)
        }
    };
    let offsets: Vec<WIPOffset<fb::Product<'_>>> = products
        .iter()
        .map(|p| {
            let sku = string(fbb, &p.sku);
            let name = string(fbb, &p.name);
            let description = string(fbb, &p.description);
            let currency = string(fbb, &p.currency);
            let tags: Vec<_> = p.tags.iter().map(|t| string(fbb, t)).collect();
            let tags = fbb.create_vector(&tags);
            let variants: Vec<_> = p
                .variants
                .iter()
                .map(|v| {
                    let args = fb::VariantArgs {
                        sku: Some(string(fbb, &v.sku)),
                        color: Some(string(fbb, &v.color)),
                        size: Some(string(fbb, &v.size)),
                        price_cents: v.price_cents,
                        stock: v.stock,
                    };
                    fb::Variant::create(fbb, &args)
                })
                .collect();
            let variants = fbb.create_vector(&variants);
            let image_url = string(fbb, &p.image_url);
            let d = &p.dimensions;
            let dimensions = fb::Dimensions::new(d.width_mm, d.height_mm, d.depth_mm, d.weight_g);
            let strings = [sku, name, description, currency, image_url];
            let args = super::encode::product_args(p, strings, tags, variants, &dimensions);
            fb::Product::create(fbb, &args)
        })
        .collect();
    let list = fbb.create_vector(&offsets);
    let root = fb::Catalog::create(fbb, &fb::CatalogArgs { products: Some(list) });
    fb::finish_catalog_buffer(fbb, root);
    fbb.finished_data()
}

/// [`build`] with every equal string stored once, in a new builder: what a
/// builder that deduplicates strings writes.
pub fn shared(products: &[Product]) -> Vec<u8> {
    build::<true>(&mut FlatBufferBuilder::new(), products).to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::Format;

    #[test]
    fn both_forms_decode_to_the_catalog_and_shared_strings_are_smaller() {
        let c = crate::fixtures::catalog(20);
        let shared = shared(&c.products);
        assert_eq!(Format::Flatbuffers.decode(&shared).unwrap(), c);
        let mut fbb = FlatBufferBuilder::new();
        let plain = build::<false>(&mut fbb, &c.products).to_vec();
        assert_eq!(Format::Flatbuffers.decode(&plain).unwrap(), c);
        assert!(shared.len() < plain.len(), "{} vs {}", shared.len(), plain.len());
        // The builder is reset: a second build gives the same bytes.
        assert_eq!(build::<false>(&mut fbb, &c.products), &plain[..]);
    }
}
