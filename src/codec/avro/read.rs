//! Avro decoder: reads one binary datum of `Catalog` in schema order into our
//! domain types, validating as it goes.
//!
//! The input is untrusted. Every length and block count goes through
//! [`Cursor`] and is compared with what remains *before* anything is sliced or
//! allocated (a block of n items needs at least n × the item's smallest
//! encoding), so a 2^63 string length or block count costs an error, not an
//! allocation. Every error carries the byte offset where it was found.

use crate::codec::cursor::Cursor;
use crate::codec::ids::UniqueIds;
use crate::codec::utf8::str_at;
use crate::codec::{DecodeError, ErrorKind, varint};
use crate::model::{self, Catalog, Dimensions, MAX_TAGS, MAX_VARIANTS, Product, Status, Variant};

/// Smallest possible encoding of a `Product`: one byte for each varint,
/// string length, boolean, enum, union index and empty array (13 + 4
/// dimensions), plus the 8-byte `rating`.
pub(crate) const PRODUCT_MIN_BYTES: u64 = 27;
/// Smallest `Variant`: three empty strings, two one-byte varints.
pub(crate) const VARIANT_MIN_BYTES: u64 = 5;
/// Smallest tag: the empty string's one-byte length.
pub(crate) const TAG_MIN_BYTES: u64 = 1;

/// Decodes a whole payload into a validated catalog.
pub fn decode(bytes: &[u8]) -> Result<Catalog, DecodeError> {
    let mut r = Reader { c: Cursor::new(bytes) };
    let mut ids = UniqueIds::new();
    let products = r.array(
        Items {
            what: "products block count",
            min_item_bytes: PRODUCT_MIN_BYTES,
            max: None,
        },
        |r, before| {
            let index = before.len();
            let start = r.c.pos();
            let p = r.product(index)?;
            p.validate(index).map_err(|e| DecodeError::invalid(start, e))?;
            if !ids.insert(p.id, || before.iter().map(|q: &Product| q.id)) {
                return Err(DecodeError::invalid(start, model::duplicate_id(index, p.id)));
            }
            Ok(p)
        },
    )?;
    r.c.finish()?;
    Ok(Catalog { products })
}

/// How to read one array: what to call its block count in errors, the
/// smallest encoding of an item, and the model's item limit (if any) with the
/// owning product's index for the error path.
struct Items {
    what: &'static str,
    min_item_bytes: u64,
    max: Option<Limit>,
}

struct Limit {
    max: usize,
    product: usize,
    field: &'static str,
}

pub(crate) struct Reader<'a> {
    pub(crate) c: Cursor<'a>,
}

impl<'a> Reader<'a> {
    /// `string`: a non-negative `long` byte length, then that many bytes of
    /// UTF-8, borrowed. The length is checked against the remaining input first.
    #[inline]
    pub(crate) fn str(&mut self, what: &'static str) -> Result<&'a str, DecodeError> {
        let (start, bytes) = self.string_bytes(what)?;
        str_at(start, bytes)
    }

    /// A `string`'s length and bytes, not yet checked as UTF-8, with the
    /// offset of its first byte.
    #[inline]
    fn string_bytes(&mut self, what: &'static str) -> Result<(usize, &'a [u8]), DecodeError> {
        let at = self.c.pos();
        let len = self.long(what)?;
        let len = u64::try_from(len).map_err(|_| {
            DecodeError::new(
                at,
                ErrorKind::OutOfRange {
                    what,
                    value: len.to_string(),
                },
            )
        })?;
        let start = self.c.pos();
        let bytes = self.c.take(len, what)?;
        Ok((start, bytes))
    }
}

impl Reader<'_> {
    /// `long`: LEB128 (at most 10 bytes, else an error) then zigzag.
    /// One-byte values (|v| < 64: counts, flags, small ints) skip the loop.
    #[inline(always)]
    pub(crate) fn long(&mut self, what: &'static str) -> Result<i64, DecodeError> {
        match self.c.peek() {
            Some(b) if b < 0x80 => {
                self.c.seek(self.c.pos() + 1);
                Ok(varint::zigzag_decode(u64::from(b)))
            }
            _ => self.long_multi(what),
        }
    }

    /// A `long` of two bytes or more. With ten bytes left (the longest
    /// varint) it reads them without a bounds check per byte; nearer the
    /// end of the input [`varint::read_u64`] reads it and reports the
    /// truncation. Both give the same values and errors: within ten bytes a
    /// varint either ends or has a tenth byte above 1.
    #[inline(never)]
    fn long_multi(&mut self, what: &'static str) -> Result<i64, DecodeError> {
        let start = self.c.pos();
        let Some(bytes) = self
            .c
            .input()
            .get(start..)
            .and_then(|rest| rest.first_chunk::<{ varint::MAX_LEN }>())
        else {
            return varint::read_i64_zigzag(&mut self.c, what);
        };
        let mut v: u64 = 0;
        for (i, &b) in bytes[..varint::MAX_LEN - 1].iter().enumerate() {
            v |= u64::from(b & 0x7f) << (7 * i);
            if b < 0x80 {
                self.c.seek(start + i + 1);
                return Ok(varint::zigzag_decode(v));
            }
        }
        let last = bytes[varint::MAX_LEN - 1];
        if last > 1 {
            return Err(DecodeError::new(
                start,
                ErrorKind::OutOfRange {
                    what,
                    value: "varint longer than 64 bits".into(),
                },
            ));
        }
        self.c.seek(start + varint::MAX_LEN);
        Ok(varint::zigzag_decode(v | (u64::from(last) << 63)))
    }

    /// `int`: a `long` on the wire that must fit in 32 bits.
    #[inline]
    pub(crate) fn int(&mut self, what: &'static str) -> Result<i32, DecodeError> {
        let at = self.c.pos();
        let v = self.long(what)?;
        i32::try_from(v).map_err(|_| {
            DecodeError::new(
                at,
                ErrorKind::OutOfRange {
                    what,
                    value: v.to_string(),
                },
            )
        })
    }

    /// `string`: a non-negative `long` byte length, then that many bytes of
    /// UTF-8, owned.
    ///
    /// The bytes are copied first and checked in the copy: the allocator
    /// aligns it, so `from_utf8` reads a string of 16 bytes or more a word
    /// at a time from its first byte, where in the payload it would start
    /// byte by byte at any unaligned offset. An error names the same offset
    /// as [`Reader::str`]'s.
    #[inline]
    fn string(&mut self, what: &'static str) -> Result<String, DecodeError> {
        let (start, bytes) = self.string_bytes(what)?;
        String::from_utf8(bytes.to_vec())
            .map_err(|e| DecodeError::new(start + e.utf8_error().valid_up_to(), ErrorKind::InvalidUtf8))
    }

    /// `double`: 8 bytes little-endian; our one double (`rating`) must be finite.
    #[inline]
    pub(crate) fn finite_double(&mut self, what: &'static str) -> Result<f64, DecodeError> {
        let at = self.c.pos();
        let v = f64::from_le_bytes(self.c.array::<8>(what)?);
        if !v.is_finite() {
            return Err(DecodeError::new(
                at,
                ErrorKind::OutOfRange {
                    what,
                    value: v.to_string(),
                },
            ));
        }
        Ok(v)
    }

    /// `boolean`: exactly the byte 0 or 1.
    #[inline]
    pub(crate) fn boolean(&mut self, what: &'static str) -> Result<bool, DecodeError> {
        match self.c.u8(what)? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(DecodeError::unexpected(
                self.c.pos() - 1,
                "boolean byte 0x00 or 0x01",
                format!("{b:#04x}"),
            )),
        }
    }

    /// `array`: blocks until a zero count. A negative count n means |n| items
    /// preceded by a `long` byte size of the block, which must be ≥ 0, fit in
    /// the input, and equal the bytes the items then take (spec, "Arrays").
    /// The running item total is checked against the input (at
    /// `min_item_bytes` each) and against the model's limit before reserving.
    fn array<T>(
        &mut self,
        items: Items,
        mut item: impl FnMut(&mut Self, &[T]) -> Result<T, DecodeError>,
    ) -> Result<Vec<T>, DecodeError> {
        let mut out: Vec<T> = Vec::new();
        loop {
            let count_at = self.c.pos();
            let raw = self.long(items.what)?;
            if raw == 0 {
                return Ok(out);
            }
            // `unsigned_abs` maps i64::MIN to 2^63 without overflow; the count
            // check below then rejects it like any other oversized count.
            let count = raw.unsigned_abs();
            let sized = if raw < 0 { Some(self.block_size()?) } else { None };
            let n = self.c.check_count(count, items.min_item_bytes, items.what)?;
            if let Some(limit) = &items.max {
                let total = out.len() + n;
                if total > limit.max {
                    let found = if out.is_empty() {
                        format!("found {total}")
                    } else {
                        format!("found at least {total}")
                    };
                    let e = model::too_many_items(limit.product, limit.field, limit.max, found);
                    return Err(DecodeError::invalid(count_at, e));
                }
            }
            if out.capacity() == 0 {
                out = Vec::with_capacity(n);
            } else {
                out.reserve(n);
            }
            let block_start = self.c.pos();
            for _ in 0..n {
                let x = item(self, &out)?;
                out.push(x);
            }
            if let Some(size) = sized {
                let used = (self.c.pos() - block_start) as u64;
                if used != size {
                    return Err(DecodeError::unexpected(
                        block_start,
                        "a block byte size equal to the bytes of its items",
                        format!("size {size}, items took {used} bytes"),
                    ));
                }
            }
        }
    }

    /// The byte size after a negative block count: ≥ 0 and within the input.
    pub(crate) fn block_size(&mut self) -> Result<u64, DecodeError> {
        let at = self.c.pos();
        let size = self.long("block byte size")?;
        let size = u64::try_from(size).map_err(|_| {
            DecodeError::new(
                at,
                ErrorKind::OutOfRange {
                    what: "block byte size",
                    value: size.to_string(),
                },
            )
        })?;
        self.c.check_count(size, 1, "block byte size")?;
        Ok(size)
    }

    /// `Product`: 17 fields in schema order.
    fn product(&mut self, index: usize) -> Result<Product, DecodeError> {
        let id = self.long("id")?;
        let sku = self.string("sku length")?;
        let name = self.string("name length")?;
        let description = self.string("description length")?;
        let price_cents = self.long("price_cents")?;
        let currency = self.string("currency length")?;
        let rating = self.finite_double("rating")?;
        let review_count = self.int("review_count")?;
        let in_stock = self.boolean("in_stock")?;
        let stock = self.int("stock")?;
        let status = self.status()?;
        let tags = self.array(
            Items {
                what: "tags block count",
                min_item_bytes: TAG_MIN_BYTES,
                max: Some(Limit {
                    max: MAX_TAGS,
                    product: index,
                    field: "tags",
                }),
            },
            |r, _| r.string("tag length"),
        )?;
        let dimensions = Dimensions {
            width_mm: self.int("dimensions.width_mm")?,
            height_mm: self.int("dimensions.height_mm")?,
            depth_mm: self.int("dimensions.depth_mm")?,
            weight_g: self.int("dimensions.weight_g")?,
        };
        let variants = self.array(
            Items {
                what: "variants block count",
                min_item_bytes: VARIANT_MIN_BYTES,
                max: Some(Limit {
                    max: MAX_VARIANTS,
                    product: index,
                    field: "variants",
                }),
            },
            |r, _| r.variant(),
        )?;
        let discount_percent = self.discount()?;
        let created_at_ms = self.long("created_at_ms")?;
        let image_url = self.string("image_url length")?;
        Ok(Product {
            id,
            sku,
            name,
            description,
            price_cents,
            currency,
            rating,
            review_count,
            in_stock,
            stock,
            status,
            tags,
            dimensions,
            variants,
            discount_percent,
            created_at_ms,
            image_url,
        })
    }

    /// enum `Status`: the symbol index as an `int`, 0..=2.
    pub(crate) fn status(&mut self) -> Result<Status, DecodeError> {
        let at = self.c.pos();
        let i = self.long("status")?;
        Status::from_index(i).ok_or_else(|| {
            DecodeError::new(
                at,
                ErrorKind::UnknownEnum {
                    what: "Status",
                    value: i.to_string(),
                },
            )
        })
    }

    /// union `["null","int"]`: branch 0 has no bytes, branch 1 an `int`.
    pub(crate) fn discount(&mut self) -> Result<Option<i32>, DecodeError> {
        let at = self.c.pos();
        match self.long("discount_percent union branch")? {
            0 => Ok(None),
            1 => self.int("discount_percent").map(Some),
            b => Err(DecodeError::unexpected(
                at,
                "discount_percent union branch 0 (null) or 1 (int)",
                format!("branch {b}"),
            )),
        }
    }

    fn variant(&mut self) -> Result<Variant, DecodeError> {
        Ok(Variant {
            sku: self.string("variant sku length")?,
            color: self.string("variant color length")?,
            size: self.string("variant size length")?,
            price_cents: self.long("variant price_cents")?,
            stock: self.int("variant stock")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimum_sizes_match_the_smallest_encodings() {
        // The smallest product: every number 0/1, strings empty, arrays empty.
        let mut p = crate::fixtures::product(1);
        p.id = 1;
        for s in [
            &mut p.sku,
            &mut p.name,
            &mut p.description,
            &mut p.currency,
            &mut p.image_url,
        ] {
            s.clear();
        }
        (p.price_cents, p.rating, p.review_count, p.stock, p.created_at_ms) = (0, 0.0, 0, 0, 0);
        (p.status, p.discount_percent) = (Status::Active, None);
        p.dimensions = Dimensions::default();
        p.tags.clear();
        p.variants.clear();
        let mut out = Vec::new();
        super::super::encode(&[p], &mut out).unwrap();
        assert_eq!(out.len() as u64, 1 + PRODUCT_MIN_BYTES + 1, "count + product + end");
        let v = Variant {
            sku: String::new(),
            color: String::new(),
            size: String::new(),
            price_cents: 0,
            stock: 0,
        };
        let mut r = Reader {
            c: Cursor::new(&[0, 0, 0, 0, 0]),
        };
        assert_eq!(r.variant().unwrap(), v);
        assert!(r.c.is_empty(), "VARIANT_MIN_BYTES = {VARIANT_MIN_BYTES}");
    }

    #[test]
    fn long_reads_as_the_varint_reader_does_at_any_distance_from_the_end() {
        // Every varint length, overlong and truncated runs, each followed by
        // 0 to 11 bytes, so both the ten-byte read and the per-byte reader run.
        let mut cases: Vec<Vec<u8>> = Vec::new();
        for k in 0..64 {
            for v in [(1u64 << k) - 1, 1u64 << k] {
                let mut b = Vec::new();
                varint::write_u64(&mut b, v);
                cases.push(b);
            }
        }
        cases.push(vec![0xff; 9]);
        cases.push(vec![0xff; 11]);
        cases.push([[0xff; 9].as_slice(), &[0x01]].concat());
        cases.push([[0xff; 9].as_slice(), &[0x02]].concat());
        cases.push([[0x80; 9].as_slice(), &[0x80]].concat());
        cases.push(vec![0x80]);
        for case in cases {
            for tail in 0..12 {
                let mut bytes = vec![0xaa; 3];
                bytes.extend_from_slice(&case);
                bytes.extend(std::iter::repeat_n(0x81, tail));
                let mut ours = Reader { c: Cursor::new(&bytes) };
                ours.c.seek(3);
                let mut plain = Cursor::new(&bytes);
                plain.seek(3);
                let want = varint::read_i64_zigzag(&mut plain, "v");
                assert_eq!(ours.long("v"), want, "{case:02x?} + {tail}");
                if want.is_ok() {
                    assert_eq!(ours.c.pos(), plain.pos(), "{case:02x?} + {tail}");
                }
            }
        }
    }

    #[test]
    fn strings_report_bad_utf8_at_the_same_offset_owned_and_borrowed() {
        for text in [
            b"ok".as_slice(),
            b"\xff",
            b"abc\xe2\x82",
            b"0123456789abcdef0123\xc3\x28xyz",
            "Über Kabel".as_bytes(),
        ] {
            let mut bytes = vec![0x00];
            varint::write_i64_zigzag(&mut bytes, text.len() as i64);
            bytes.extend_from_slice(text);
            let read = |owned: bool| {
                let mut r = Reader { c: Cursor::new(&bytes) };
                r.c.seek(1);
                if owned {
                    r.string("s")
                } else {
                    r.str("s").map(str::to_owned)
                }
            };
            assert_eq!(read(true), read(false), "{text:02x?}");
            assert_eq!(read(true).is_ok(), std::str::from_utf8(text).is_ok());
        }
    }

    #[test]
    fn out_of_order_ids_fall_back_to_a_set() {
        // The decoder's duplicate check over products, as `decode` runs it.
        let check = |ids: &mut UniqueIds, id: i64, before: &[Product], index: usize| {
            if ids.insert(id, || before.iter().map(|q| q.id)) {
                Ok(())
            } else {
                Err(model::duplicate_id(index, id))
            }
        };
        let mut ids = UniqueIds::new();
        let ps: Vec<Product> = [5, 7, 3].into_iter().map(crate::fixtures::product).collect();
        let mut before = Vec::new();
        for (i, p) in ps.into_iter().enumerate() {
            let mut p = p;
            p.id = [5, 7, 3][i];
            check(&mut ids, p.id, &before, i).unwrap();
            before.push(p);
        }
        assert_eq!(
            check(&mut ids, 7, &before, 3).unwrap_err().to_string(),
            "products[3].id: duplicate id 7"
        );
        let mut ids = UniqueIds::new();
        check(&mut ids, 2, &[], 0).unwrap();
        let mut first = crate::fixtures::product(1);
        first.id = 2;
        assert!(check(&mut ids, 2, &[first], 1).is_err(), "equal to the last id");
    }
}
