//! Direct field access: what FlatBuffers promises ("no parse step").
//!
//! [`verify`] runs the verifier alone. [`read_direct`] verifies and then
//! reads every field of every product in place through the generated
//! accessors, without building domain types: no `String` copies, no `Vec`s.
//! It folds what it reads into a [`Checksum`] so the optimizer cannot drop the
//! reads. `tests/flatbuffers.rs` computes the same value from domain types and
//! holds the two equal, which proves `read_direct` really visits every field.
//!
//! Strings enter the checksum by length only: reading a `&str` accessor
//! follows the offset and reads the length prefix. Their bytes were already
//! read once, by the verifier's UTF-8 check.

use super::verifier::verified_root;
use crate::codec::DecodeError;

/// Order-sensitive running hash: `h = h × FNV prime + value` (wrapping).
/// Not a quality hash; enough that swapping or dropping a field changes it.
#[derive(Default)]
struct Checksum(u64);

impl Checksum {
    const PRIME: u64 = 0x0000_0100_0000_01b3;

    #[inline]
    fn add(&mut self, v: u64) {
        self.0 = self.0.wrapping_mul(Self::PRIME).wrapping_add(v);
    }
    #[inline]
    fn int(&mut self, v: i64) {
        self.add(v as u64); // two's-complement bits, by design
    }
    #[inline]
    fn str(&mut self, s: &str) {
        self.add(s.len() as u64);
    }
    #[inline]
    fn opt(&mut self, v: Option<i32>) {
        match v {
            None => self.add(0),
            Some(x) => {
                self.add(1);
                self.int(i64::from(x));
            }
        }
    }
}

/// Runs the verifier (and the file identifier check) without reading fields.
pub fn verify(bytes: &[u8]) -> Result<(), DecodeError> {
    verified_root(bytes).map(|_| ())
}

/// Verifies `bytes`, then reads every field of every product in place and
/// returns their [`Checksum`].
/// The status is hashed as its raw byte: this path reads, it does not
/// validate.
pub fn read_direct(bytes: &[u8]) -> Result<u64, DecodeError> {
    let root = verified_root(bytes)?;
    let mut h = Checksum::default();
    for p in root.products() {
        h.int(p.id());
        h.str(p.sku());
        h.str(p.name());
        h.str(p.description());
        h.int(p.price_cents());
        h.str(p.currency());
        h.add(p.rating().to_bits());
        h.int(i64::from(p.review_count()));
        h.add(u64::from(p.in_stock()));
        h.int(i64::from(p.stock()));
        h.int(i64::from(p.status().0));
        let tags = p.tags();
        h.add(tags.len() as u64);
        for t in tags {
            h.str(t);
        }
        let d = p.dimensions();
        h.int(i64::from(d.width_mm()));
        h.int(i64::from(d.height_mm()));
        h.int(i64::from(d.depth_mm()));
        h.int(i64::from(d.weight_g()));
        let variants = p.variants();
        h.add(variants.len() as u64);
        for v in variants {
            h.str(v.sku());
            h.str(v.color());
            h.str(v.size());
            h.int(v.price_cents());
            h.int(i64::from(v.stock()));
        }
        h.opt(p.discount_percent());
        h.int(p.created_at_ms());
        h.str(p.image_url());
    }
    Ok(h.0)
}
