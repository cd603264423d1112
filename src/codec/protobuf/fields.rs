//! Field numbers of `schemas/catalog.proto`: the one table the encoder
//! and the reader share.
//!
//! # Wire format
//!
//! A key is the varint `field_number << 3 | wire_type` (see `wire.rs`); these
//! are the field numbers.

pub(crate) const CATALOG_PRODUCTS: u32 = 1;

pub(crate) const ID: u32 = 1;
pub(crate) const SKU: u32 = 2;
pub(crate) const NAME: u32 = 3;
pub(crate) const DESCRIPTION: u32 = 4;
pub(crate) const PRICE_CENTS: u32 = 5;
pub(crate) const CURRENCY: u32 = 6;
pub(crate) const RATING: u32 = 7;
pub(crate) const REVIEW_COUNT: u32 = 8;
pub(crate) const IN_STOCK: u32 = 9;
pub(crate) const STOCK: u32 = 10;
pub(crate) const STATUS: u32 = 11;
pub(crate) const TAGS: u32 = 12;
pub(crate) const DIMENSIONS: u32 = 13;
pub(crate) const VARIANTS: u32 = 14;
pub(crate) const DISCOUNT_PERCENT: u32 = 15;
pub(crate) const CREATED_AT_MS: u32 = 16;
pub(crate) const IMAGE_URL: u32 = 17;

pub(crate) const WIDTH_MM: u32 = 1;
pub(crate) const HEIGHT_MM: u32 = 2;
pub(crate) const DEPTH_MM: u32 = 3;
pub(crate) const WEIGHT_G: u32 = 4;

pub(crate) const VARIANT_SKU: u32 = 1;
pub(crate) const COLOR: u32 = 2;
pub(crate) const SIZE: u32 = 3;
pub(crate) const VARIANT_PRICE_CENTS: u32 = 4;
pub(crate) const VARIANT_STOCK: u32 = 5;

/// The name of `Product` field `number` as `catalog.proto` spells it ("" for
/// a number it does not define); `tests` holds the numbers to the names.
pub(crate) fn product_field_name(number: u32) -> &'static str {
    // catalog.proto numbers the product's fields 1..=17 in field order.
    let index = (number as usize).wrapping_sub(1);
    crate::model::PRODUCT_FIELDS.get(index).copied().unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_product_number_names_its_field() {
        let numbered = [
            (ID, "id"),
            (SKU, "sku"),
            (NAME, "name"),
            (DESCRIPTION, "description"),
            (PRICE_CENTS, "price_cents"),
            (CURRENCY, "currency"),
            (RATING, "rating"),
            (REVIEW_COUNT, "review_count"),
            (IN_STOCK, "in_stock"),
            (STOCK, "stock"),
            (STATUS, "status"),
            (TAGS, "tags"),
            (DIMENSIONS, "dimensions"),
            (VARIANTS, "variants"),
            (DISCOUNT_PERCENT, "discount_percent"),
            (CREATED_AT_MS, "created_at_ms"),
            (IMAGE_URL, "image_url"),
        ];
        for (n, name) in numbered {
            assert_eq!(product_field_name(n), name, "field {n}");
        }
        assert_eq!(product_field_name(0), "");
        assert_eq!(product_field_name(18), "");
    }
}
