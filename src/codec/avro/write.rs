//! Avro encoder: writes `Catalog { products }` as one binary datum, field by
//! field in the order of `schemas/catalog.avsc` (the code order *is* the
//! schema; there is nothing on the wire to say which field is which).
//!
//! Speed comes from doing little: one `reserve` for an upper bound of the
//! output size, then varints and raw string bytes appended to the caller's
//! buffer. No per-field allocation, no intermediate value tree.

use crate::codec::EncodeError;
use crate::model::{Dimensions, Product, Variant};

/// Appends the binary encoding of `Catalog { products }` to `out`.
///
/// Every product is written as given (the encoder does not validate: the
/// server's fixtures are validated once when prepared). Errors only when a
/// length does not fit an Avro `long`, which no in-memory string can reach on
/// a 64-bit target.
pub fn encode(products: &[Product], out: &mut Vec<u8>) -> Result<(), EncodeError> {
    out.reserve(size_bound(products));
    let mut w = Writer { out };
    w.array(products, "products", Writer::product)
}

/// Most bytes a varint-encoded `long` takes.
const MAX_VARINT: usize = 10;

/// An upper bound of the encoded size, so the buffer grows at most once.
/// Per product: its string bytes plus the most that every length prefix,
/// number, flag and block count can take.
fn size_bound(products: &[Product]) -> usize {
    // id, price, review_count, stock, status, union index + int, created_at,
    // 4 dimensions = 12 varints; 5 string lengths; 2 arrays × 2 block counts;
    // the double; the boolean.
    const PRODUCT_FIXED: usize = (12 + 5 + 4) * MAX_VARINT + 8 + 1;
    // 3 string lengths + price + stock.
    const VARIANT_FIXED: usize = 5 * MAX_VARINT;
    let mut n = 2 * MAX_VARINT;
    for p in products {
        n += PRODUCT_FIXED + p.sku.len() + p.name.len() + p.description.len() + p.currency.len() + p.image_url.len();
        for t in &p.tags {
            n += MAX_VARINT + t.len();
        }
        for v in &p.variants {
            n += VARIANT_FIXED + v.sku.len() + v.color.len() + v.size.len();
        }
    }
    n
}

struct Writer<'a> {
    out: &'a mut Vec<u8>,
}

impl Writer<'_> {
    /// `long`: zigzag so small negative numbers stay short, then LEB128
    /// (spec, "Primitive Types": "int and long values are written using
    /// variable-length zig-zag coding").
    #[inline(always)]
    fn long(&mut self, v: i64) {
        let mut z = ((v << 1) ^ (v >> 63)) as u64;
        // Fast path: most of our numbers (counts, small ints) take one byte.
        if z < 0x80 {
            self.out.push(z as u8);
            return;
        }
        let mut buf = [0u8; MAX_VARINT];
        let mut n = 0;
        while z >= 0x80 {
            buf[n] = (z as u8) | 0x80;
            z >>= 7;
            n += 1;
        }
        buf[n] = z as u8;
        self.out.extend_from_slice(&buf[..=n]);
    }

    /// `int` has the same encoding as `long`; only the range differs.
    #[inline(always)]
    fn int(&mut self, v: i32) {
        self.long(i64::from(v));
    }

    /// A length or count as a `long`; `usize` → `i64` is checked, never cast.
    #[inline(always)]
    fn len(&mut self, n: usize, what: &'static str) -> Result<(), EncodeError> {
        let v = i64::try_from(n).map_err(|_| EncodeError::TooLong { what, len: n })?;
        self.long(v);
        Ok(())
    }

    /// `string`: byte length as a `long`, then the UTF-8 bytes as they are.
    #[inline(always)]
    fn string(&mut self, s: &str, what: &'static str) -> Result<(), EncodeError> {
        self.len(s.len(), what)?;
        self.out.extend_from_slice(s.as_bytes());
        Ok(())
    }

    /// `double`: the IEEE 754 bits, little-endian.
    #[inline(always)]
    fn double(&mut self, v: f64) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }

    /// `boolean`: one byte, 0 or 1.
    #[inline(always)]
    fn boolean(&mut self, v: bool) {
        self.out.push(u8::from(v));
    }

    /// `array`: one block (item count, the items) then the `0` that ends the
    /// array; an empty array is the single `0` (spec, "Arrays").
    #[inline(always)]
    fn array<T>(
        &mut self,
        items: &[T],
        what: &'static str,
        mut item: impl FnMut(&mut Self, &T) -> Result<(), EncodeError>,
    ) -> Result<(), EncodeError> {
        if !items.is_empty() {
            self.len(items.len(), what)?;
            for x in items {
                item(self, x)?;
            }
        }
        self.out.push(0);
        Ok(())
    }

    /// `Product`: its 17 fields in schema order.
    fn product(&mut self, p: &Product) -> Result<(), EncodeError> {
        self.long(p.id);
        self.string(&p.sku, "sku")?;
        self.string(&p.name, "name")?;
        self.string(&p.description, "description")?;
        self.long(p.price_cents);
        self.string(&p.currency, "currency")?;
        self.double(p.rating);
        self.int(p.review_count);
        self.boolean(p.in_stock);
        self.int(p.stock);
        // enum Status: the symbol's index as an int (spec, "Enums").
        self.int(p.status.index() as i32);
        self.array(&p.tags, "tags", |w, t| w.string(t, "tag"))?;
        self.dimensions(&p.dimensions);
        self.array(&p.variants, "variants", Writer::variant)?;
        // union ["null","int"]: branch index as a long, then the branch's
        // value; null has no bytes (spec, "Unions").
        match p.discount_percent {
            None => self.long(0),
            Some(d) => {
                self.long(1);
                self.int(d);
            }
        }
        self.long(p.created_at_ms);
        self.string(&p.image_url, "image_url")
    }

    fn dimensions(&mut self, d: &Dimensions) {
        self.int(d.width_mm);
        self.int(d.height_mm);
        self.int(d.depth_mm);
        self.int(d.weight_g);
    }

    fn variant(&mut self, v: &Variant) -> Result<(), EncodeError> {
        self.string(&v.sku, "variant sku")?;
        self.string(&v.color, "variant color")?;
        self.string(&v.size, "variant size")?;
        self.long(v.price_cents);
        self.int(v.stock);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::varint;
    use crate::fixtures;

    fn long_bytes(v: i64) -> Vec<u8> {
        let mut out = Vec::new();
        Writer { out: &mut out }.long(v);
        out
    }

    #[test]
    fn long_matches_the_reference_varint_at_every_boundary() {
        for v in fixtures::boundary_i64s() {
            let mut want = Vec::new();
            varint::write_i64_zigzag(&mut want, v);
            assert_eq!(long_bytes(v), want, "{v}");
        }
        assert_eq!(long_bytes(1), [0x02]);
        assert_eq!(long_bytes(-64), [0x7f]);
        assert_eq!(long_bytes(64), [0x80, 0x01]);
        assert_eq!(
            long_bytes(i64::MIN),
            [0xff; 9].iter().copied().chain([0x01]).collect::<Vec<_>>()
        );
    }

    #[test]
    fn size_bound_is_an_upper_bound() {
        for seed in 0..100 {
            let c = fixtures::random_catalog(seed);
            let mut out = Vec::new();
            encode(&c.products, &mut out).unwrap();
            assert!(out.len() <= size_bound(&c.products), "seed {seed}");
        }
        let c = fixtures::catalog(100);
        let mut out = Vec::new();
        encode(&c.products, &mut out).unwrap();
        let bound = size_bound(&c.products);
        assert!(out.len() <= bound && bound < 3 * out.len(), "{} vs {bound}", out.len());
    }
}
