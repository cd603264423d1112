//! Field numbers and keys of `schemas/catalog.proto`: the one table the
//! encoder and the reader share.
//!
//! # Wire format
//!
//! A key is the varint `field_number << 3 | wire_type` (see `wire.rs`); these
//! are the field numbers and, for each field's wire type in the schema, its key.

use super::wire::WireType::{I64, Len, Varint};

/// Declares each field's number and, in [`key`], its key as the schema
/// writes it (`number << 3 | wire type`), which the reader matches whole.
macro_rules! fields {
    ($($name:ident = $number:literal $wire:ident,)*) => {
        $(pub(crate) const $name: u32 = $number;)*
        /// Keys as the schema writes them: one compare checks a field's
        /// number and its wire type.
        pub(crate) mod key {
            $(pub(crate) const $name: u64 = ($number << 3) | super::$wire as u64;)*
        }
    };
}

fields! {
    CATALOG_PRODUCTS = 1 Len,

    ID = 1 Varint,
    SKU = 2 Len,
    NAME = 3 Len,
    DESCRIPTION = 4 Len,
    PRICE_CENTS = 5 Varint,
    CURRENCY = 6 Len,
    RATING = 7 I64,
    REVIEW_COUNT = 8 Varint,
    IN_STOCK = 9 Varint,
    STOCK = 10 Varint,
    STATUS = 11 Varint,
    TAGS = 12 Len,
    DIMENSIONS = 13 Len,
    VARIANTS = 14 Len,
    DISCOUNT_PERCENT = 15 Varint,
    CREATED_AT_MS = 16 Varint,
    IMAGE_URL = 17 Len,

    WIDTH_MM = 1 Varint,
    HEIGHT_MM = 2 Varint,
    DEPTH_MM = 3 Varint,
    WEIGHT_G = 4 Varint,

    VARIANT_SKU = 1 Len,
    COLOR = 2 Len,
    SIZE = 3 Len,
    VARIANT_PRICE_CENTS = 4 Varint,
    VARIANT_STOCK = 5 Varint,
}

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
        #[rustfmt::skip]
        let numbered = [
            (ID, "id"), (SKU, "sku"), (NAME, "name"), (DESCRIPTION, "description"), (PRICE_CENTS, "price_cents"),
            (CURRENCY, "currency"), (RATING, "rating"), (REVIEW_COUNT, "review_count"), (IN_STOCK, "in_stock"),
            (STOCK, "stock"), (STATUS, "status"), (TAGS, "tags"), (DIMENSIONS, "dimensions"), (VARIANTS, "variants"),
            (DISCOUNT_PERCENT, "discount_percent"), (CREATED_AT_MS, "created_at_ms"), (IMAGE_URL, "image_url"),
        ];
        for (n, name) in numbered {
            assert_eq!(product_field_name(n), name, "field {n}");
        }
        assert_eq!(product_field_name(0), "");
        assert_eq!(product_field_name(18), "");
    }

    /// The keys of the parent module's example and its two-byte keys.
    #[test]
    fn keys_are_the_bytes_the_schema_writes() {
        assert_eq!(
            [key::ID, key::SKU, key::CURRENCY, key::DIMENSIONS],
            [0x08, 0x12, 0x32, 0x6a]
        );
        assert_eq!([key::RATING, key::CREATED_AT_MS, key::IMAGE_URL], [0x39, 0x80, 0x8a]);
    }
}
