//! The byte offset of an unknown `status` value, found after prost has
//! parsed a product.
//!
//! prost keeps no positions, so an unknown `status` value is only known as
//! "product N". On that cold path we walk the wire once more with the
//! [`wire`] reader (see the parent module's `# Wire format`) to find where
//! product N's `status` value sits. Best effort: if the walk meets malformed
//! bytes the offset stays 0. Never used on success.

use super::fields::{CATALOG_PRODUCTS as PRODUCTS, STATUS};
use super::wire::{self, WireType};
use crate::codec::cursor::Cursor;

/// One field of a message as it sits on the wire (offsets absolute).
#[derive(Debug, PartialEq)]
struct Field {
    number: u32,
    wire_type: WireType,
    key_at: usize,
    /// Where the value starts (for LEN fields: after the length varint).
    value_at: usize,
    end: usize,
}

/// The fields of the message in `bytes`, which starts at `base` in the
/// payload; stops quietly at the first thing it cannot read.
fn fields(bytes: &[u8], base: usize) -> Vec<Field> {
    let mut c = Cursor::new(bytes);
    let mut out = Vec::new();
    while !c.is_empty() {
        let Ok(key) = wire::read_key(&mut c) else {
            break;
        };
        let mut value_at = c.pos();
        let read = match key.wire_type {
            WireType::Len => wire::read_len(&mut c, "length", "LEN value").map(|(at, _)| value_at = at),
            _ => wire::skip(&mut c, key, 0),
        };
        if read.is_err() {
            break;
        }
        out.push(Field {
            number: key.number,
            wire_type: key.wire_type,
            key_at: base + key.at,
            value_at: base + value_at,
            end: base + c.pos(),
        });
    }
    out
}

/// The `index`-th `products` entry of a `Catalog` payload.
fn product(payload: &[u8], index: usize) -> Option<Field> {
    fields(payload, 0)
        .into_iter()
        .filter(|f| f.number == PRODUCTS && f.wire_type == WireType::Len)
        .nth(index)
}

/// Offset of the `status` value of product `index` (the last one written
/// wins, as in prost).
pub(super) fn status_offset(payload: &[u8], index: usize) -> Option<usize> {
    let p = product(payload, index)?;
    fields(&payload[p.value_at..p.end], p.value_at)
        .into_iter()
        .rfind(|f| f.number == STATUS && f.wire_type == WireType::Varint)
        .map(|f| f.value_at)
}

/// `products[12].id` → 12.
pub(super) fn index_in_path(path: &str) -> Option<usize> {
    let rest = path.strip_prefix("products[")?;
    rest[..rest.find(']')?].parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_products_and_status() {
        // products[0] = {id 1}, unknown field 2, products[1] = {status 1, status 7}
        let payload = [0x0a, 0x02, 0x08, 0x01, 0x10, 0x05, 0x0a, 0x04, 0x58, 0x01, 0x58, 0x07];
        assert_eq!(product(&payload, 0).map(|f| f.key_at), Some(0));
        assert_eq!(product(&payload, 1).map(|f| f.key_at), Some(6));
        assert_eq!(product(&payload, 2), None);
        assert_eq!(status_offset(&payload, 0), None);
        assert_eq!(status_offset(&payload, 1), Some(11));
    }

    #[test]
    fn stops_at_what_it_cannot_read() {
        assert_eq!(fields(&[0x08], 0), vec![]);
        assert_eq!(fields(&[0x0a, 0x05, 0x00], 0), vec![]);
        assert_eq!(fields(&[0x0b, 0x0d], 0), vec![]);
        assert_eq!(fields(&[0xff; 11], 0), vec![]);
        assert_eq!(fields(&[0x0e], 0), vec![]);
    }

    #[test]
    fn follows_groups_to_a_later_status() {
        // products[0] = {group 2 holding status 9, then status 7}
        let payload = [0x0a, 0x06, 0x13, 0x58, 0x09, 0x14, 0x58, 0x07];
        let group = &fields(&payload[2..], 2)[0];
        assert_eq!((group.wire_type, group.key_at, group.end), (WireType::StartGroup, 2, 6));
        assert_eq!(status_offset(&payload, 0), Some(7));
    }

    #[test]
    fn path_index() {
        assert_eq!(index_in_path("products[12].variants[1].stock"), Some(12));
        assert_eq!(index_in_path("products[x].id"), None);
        assert_eq!(index_in_path("catalog"), None);
    }
}
