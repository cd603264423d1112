//! The one reader of protobuf's wire grammar: keys, wire types, values.
//!
//! # Wire format
//!
//! ```text
//! message := field*
//! field   := key value
//! key     := varint (field_number << 3 | wire_type)
//!
//!   wire type      value
//!   0 Varint       LEB128, 1..=10 bytes                  08 96 01  → field 1 = 150
//!   1 I64          8 bytes little-endian                 39 <8 bytes>
//!   2 Len          varint length n, then n bytes         12 03 61 62 63 → field 2 = "abc"
//!   3 StartGroup   fields up to the matching EndGroup    1b … 1c (field 3)
//!   4 EndGroup     no value; closes the open group
//!   5 I32          4 bytes little-endian                 45 <4 bytes>
//!   6, 7           not defined: an error
//! ```
//!
//! Field numbers run from 1 to 2^29 − 1; 0 is an error. Everything is read
//! through the bounds-checked [`Cursor`] and [`varint`], so a length is
//! compared with what is left before anything is sliced, and every error
//! carries the byte offset where it was found. Values borrow from the input:
//! a `Len` payload is a sub-slice with its offset, ready for the zero-copy
//! view. Varints are read here rather than by prost's
//! `encoding::decode_varint`, whose unrolled slice path is not inlined
//! across crates and costs more instructions per decode (callgrind).
//!
//! The reader (`view.rs`) reads the wire through this module alone.

use crate::codec::cursor::Cursor;
use crate::codec::{DecodeError, ErrorKind, varint};

/// How a field's value is laid out (the low three bits of its key).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum WireType {
    Varint = 0,
    I64 = 1,
    Len = 2,
    StartGroup = 3,
    EndGroup = 4,
    I32 = 5,
}

impl WireType {
    /// The number on the wire.
    #[inline]
    pub fn number(self) -> u8 {
        self as u8
    }
}

impl TryFrom<u64> for WireType {
    /// The undefined wire type (6 or 7, or any value above 7).
    type Error = u64;

    #[inline]
    fn try_from(v: u64) -> Result<WireType, u64> {
        Ok(match v {
            0 => WireType::Varint,
            1 => WireType::I64,
            2 => WireType::Len,
            3 => WireType::StartGroup,
            4 => WireType::EndGroup,
            5 => WireType::I32,
            other => return Err(other),
        })
    }
}

/// Largest field number protobuf allows (2^29 − 1).
pub const MAX_FIELD_NUMBER: u32 = u32::MAX >> 3;

/// Nesting limit for groups (prost's recursion limit).
pub const GROUP_DEPTH: usize = 100;

/// A field key as read: its number, wire type, and the offset of its first byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    pub number: u32,
    pub wire_type: WireType,
    pub at: usize,
}

/// Reads one varint (named `what` in errors).
///
/// A one-byte varint returns at once. The loop for longer ones runs over the
/// input slice without a per-byte cursor check; any varint it cannot finish
/// cleanly (truncated, overlong, over 64 bits) is read again by
/// [`varint::read_u64`], which reports the error.
#[inline(always)]
pub fn read_varint(c: &mut Cursor<'_>, what: &'static str) -> Result<u64, DecodeError> {
    let at = c.pos();
    let bytes = c.input();
    if let Some(&b) = bytes.get(at)
        && b < 0x80
    {
        c.seek(at + 1);
        return Ok(u64::from(b));
    }
    let mut v = 0u64;
    let mut i = 0;
    while let Some(&b) = bytes.get(at + i) {
        v |= u64::from(b & 0x7f) << (7 * i);
        i += 1;
        if b < 0x80 {
            if i == varint::MAX_LEN && b > 1 {
                break;
            }
            c.seek(at + i);
            return Ok(v);
        }
        if i == varint::MAX_LEN {
            break;
        }
    }
    off_line(c, |c| varint::read_u64(c, what))
}

/// Runs `f`, a call the hot path does not inline, on a copy of `c`, then
/// moves `c` to where the copy ended: only the copy's address reaches `f`,
/// so a reader's own cursor can stay in registers (callgrind counts fewer
/// instructions per product).
#[inline(always)]
fn off_line<'a, T>(c: &mut Cursor<'a>, f: impl FnOnce(&mut Cursor<'a>) -> T) -> T {
    let mut copy = c.clone();
    let r = f(&mut copy);
    *c = copy;
    r
}

/// Reads one key. A field number of 0 or above [`MAX_FIELD_NUMBER`] is
/// `OutOfRange`; wire types 6 and 7 are `Unexpected`; both at the key.
#[inline(always)]
pub fn read_key(c: &mut Cursor<'_>) -> Result<Key, DecodeError> {
    let at = c.pos();
    Key::parse(at, read_varint(c, "field key")?)
}

impl Key {
    /// The key whose varint `raw` was read at `at`, checked as [`read_key`]
    /// checks it (a reader that matches whole key values calls this for
    /// the ones it does not expect).
    #[inline]
    pub fn parse(at: usize, raw: u64) -> Result<Key, DecodeError> {
        let wire_type = WireType::try_from(raw & 7).map_err(|t| bad_wire_type(at, t))?;
        // One compare for 1..=MAX_FIELD_NUMBER (0 wraps to u64::MAX).
        let number = raw >> 3;
        if number.wrapping_sub(1) >= u64::from(MAX_FIELD_NUMBER) {
            return Err(DecodeError::out_of_range(at, "field number", number));
        }
        Ok(Key {
            number: number as u32,
            wire_type,
            at,
        })
    }
}

#[cold]
fn bad_wire_type(at: usize, t: u64) -> DecodeError {
    DecodeError::unexpected(at, "wire type 0, 1, 2, 3, 4 or 5", format!("wire type {t}"))
}

/// Reads a `Len` value: its length varint (named `length` in errors), then
/// that many bytes (named `what`). Returns the payload and its offset.
#[inline(always)]
pub fn read_len<'a>(
    c: &mut Cursor<'a>,
    length: &'static str,
    what: &'static str,
) -> Result<(usize, &'a [u8]), DecodeError> {
    // Most lengths are one byte and fit: slice them at once.
    let at = c.pos();
    if let Some(&n) = c.input().get(at)
        && n < 0x80
        && let Some(s) = c.input().get(at + 1..at + 1 + usize::from(n))
    {
        c.seek(at + 1 + usize::from(n));
        return Ok((at + 1, s));
    }
    let len = read_varint(c, length)?;
    let at = c.pos();
    Ok((at, c.take(len, what)?))
}

/// Skips the value of the field whose key is `key`. A group is skipped up to
/// its matching end, groups inside it included, at most [`GROUP_DEPTH`]
/// deep (`depth` counts the groups already open around `key`). An
/// `EndGroup` key here has no open group: an error at the key.
#[inline(always)]
pub fn skip(c: &mut Cursor<'_>, key: Key, depth: usize) -> Result<(), DecodeError> {
    match key.wire_type {
        WireType::Varint => read_varint(c, "varint").map(drop),
        WireType::I64 => c.fixed(8, "8-byte I64 value").map(drop),
        WireType::Len => read_len(c, "length", "LEN value").map(drop),
        WireType::I32 => c.fixed(4, "4-byte I32 value").map(drop),
        WireType::StartGroup => off_line(c, |c| skip_group(c, key.number, depth)),
        WireType::EndGroup => Err(DecodeError::unexpected(
            key.at,
            "a field (no group is open)",
            format!("end of group {}", key.number),
        )),
    }
}

/// The fields of group `number` up to and including its end key.
#[cold]
#[inline(never)]
fn skip_group(c: &mut Cursor<'_>, number: u32, depth: usize) -> Result<(), DecodeError> {
    if depth >= GROUP_DEPTH {
        return Err(DecodeError::new(c.pos(), ErrorKind::DepthLimit { limit: GROUP_DEPTH }));
    }
    loop {
        let inner = read_key(c)?;
        if inner.wire_type == WireType::EndGroup {
            if inner.number != number {
                return Err(DecodeError::unexpected(
                    inner.at,
                    "the end of the open group",
                    format!("end of group {}", inner.number),
                ));
            }
            return Ok(());
        }
        skip(c, inner, depth + 1)?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(bytes: &[u8]) -> Result<Key, DecodeError> {
        read_key(&mut Cursor::new(bytes))
    }

    /// Skips one whole field (key and value); returns the offset after it.
    fn skip_field(bytes: &[u8]) -> Result<usize, DecodeError> {
        let mut c = Cursor::new(bytes);
        let k = read_key(&mut c)?;
        skip(&mut c, k, 0)?;
        Ok(c.pos())
    }

    #[test]
    fn wire_type_conversion_is_total() {
        use WireType::*;
        let all = [Varint, I64, Len, StartGroup, EndGroup, I32];
        for (n, t) in all.into_iter().enumerate() {
            assert_eq!(WireType::try_from(n as u64), Ok(t));
            assert_eq!(u64::from(t.number()), n as u64);
        }
        assert_eq!(WireType::try_from(6), Err(6));
        assert_eq!(WireType::try_from(7), Err(7));
        assert_eq!(WireType::try_from(u64::MAX), Err(u64::MAX));
    }

    #[test]
    fn keys_of_every_wire_type() {
        let cases: [(u8, u32, WireType); 6] = [
            (0x08, 1, WireType::Varint),
            (0x39, 7, WireType::I64),
            (0x12, 2, WireType::Len),
            (0x1b, 3, WireType::StartGroup),
            (0x1c, 3, WireType::EndGroup),
            (0x7d, 15, WireType::I32),
        ];
        for (byte, number, wire_type) in cases {
            let k = key(&[byte]).unwrap();
            assert_eq!((k.number, k.wire_type, k.at), (number, wire_type, 0), "{byte:#04x}");
        }
        // Two-byte keys: 16 << 3 | 0 = 128 → 80 01; the largest number.
        assert_eq!(key(&[0x80, 0x01]).unwrap().number, 16);
        let max = [0xf8, 0xff, 0xff, 0xff, 0x0f];
        assert_eq!(key(&max).unwrap().number, MAX_FIELD_NUMBER);
        assert_eq!(key(&max).unwrap().wire_type, WireType::Varint);
    }

    #[test]
    fn key_offsets_are_where_the_key_starts() {
        let mut c = Cursor::new(&[0x08, 0x01, 0x80, 0x01, 0x05]);
        let first = read_key(&mut c).unwrap();
        skip(&mut c, first, 0).unwrap();
        let second = read_key(&mut c).unwrap();
        assert_eq!((first.at, second.at, second.number), (0, 2, 16));
        assert_eq!(c.pos(), 4);
    }

    #[test]
    fn values_of_every_wire_type_are_skipped_exactly() {
        assert_eq!(skip_field(&[0x08, 0x96, 0x01, 0xaa]).unwrap(), 3);
        assert_eq!(skip_field(&[0x09, 1, 2, 3, 4, 5, 6, 7, 8, 0xaa]).unwrap(), 9);
        assert_eq!(skip_field(&[0x12, 0x03, b'a', b'b', b'c', 0xaa]).unwrap(), 5);
        assert_eq!(skip_field(&[0x0d, 1, 2, 3, 4, 0xaa]).unwrap(), 5);
        // Group 3 holding a varint and an inner group 4: 1b 08 01 23 24 1c.
        assert_eq!(skip_field(&[0x1b, 0x08, 0x01, 0x23, 0x24, 0x1c, 0xaa]).unwrap(), 6);
    }

    /// Every error, worded, at its offset: bad keys (at the key), truncated
    /// values, group ends that close no group or another one.
    #[test]
    fn errors_say_what_and_where() {
        #[rustfmt::skip]
        let cases: [(&[u8], &str); 16] = [
            (&[0x00], "field number out of range: 0 at byte 0"),
            (&[0x05], "field number out of range: 0 at byte 0"),
            (&[0x0e], "expected wire type 0, 1, 2, 3, 4 or 5, found wire type 6 at byte 0"),
            (&[0x0f], "expected wire type 0, 1, 2, 3, 4 or 5, found wire type 7 at byte 0"),
            // 2^29 does not fit a field number.
            (&[0x80, 0x80, 0x80, 0x80, 0x10], "field number out of range: 536870912 at byte 0"),
            (&[], "unexpected end of input, expected field key at byte 0"),
            (&[0x80], "unexpected end of input, expected field key at byte 1"),
            (&[0x08], "unexpected end of input, expected varint at byte 1"),
            (&[0x09, 1, 2], "unexpected end of input, expected 8-byte I64 value at byte 3"),
            (&[0x0d, 1], "unexpected end of input, expected 4-byte I32 value at byte 2"),
            (&[0x12, 0x05, b'a'], "LEN value of 5 exceeds the 1 bytes remaining at byte 2"),
            (&[0x1b, 0x08, 0x01], "unexpected end of input, expected field key at byte 3"),
            (&[0x1c], "expected a field (no group is open), found end of group 3 at byte 0"),
            (&[0x13, 0x1c], "expected the end of the open group, found end of group 3 at byte 1"),
            (&[0xff; 11], "field key out of range: varint longer than 64 bits at byte 0"),
            (&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02],
             "field key out of range: varint longer than 64 bits at byte 0"),
        ];
        for (bytes, want) in cases {
            assert_eq!(skip_field(bytes).unwrap_err().to_string(), want, "{bytes:02x?}");
        }
    }

    #[test]
    fn len_payloads_borrow_the_input_with_their_offset() {
        let bytes = [0x12, 0x03, b'a', b'b', b'c'];
        let mut c = Cursor::new(&bytes);
        read_key(&mut c).unwrap();
        let (at, body) = read_len(&mut c, "length", "LEN value").unwrap();
        assert_eq!((at, body), (2, &b"abc"[..]));
        assert!(std::ptr::eq(body.as_ptr(), bytes[2..].as_ptr()));
    }

    #[test]
    fn group_depth_is_limited() {
        let open = |n: usize| -> Vec<u8> {
            let mut v = vec![0x0b; n]; // start group 1, n times
            v.extend(std::iter::repeat_n(0x0c, n)); // and their ends
            v
        };
        assert_eq!(skip_field(&open(GROUP_DEPTH)).unwrap(), 2 * GROUP_DEPTH);
        let e = skip_field(&open(GROUP_DEPTH + 1)).unwrap_err();
        assert_eq!(e.kind, ErrorKind::DepthLimit { limit: GROUP_DEPTH });
        assert_eq!(e.offset, GROUP_DEPTH + 1);
    }
}
