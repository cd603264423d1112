//! LEB128 varints and zigzag: the integer encodings of Avro and Protobuf.
//!
//! # Wire format
//!
//! Seven value bits per byte, least significant group first; the high bit of
//! each byte says "more follows". 300 = 0b1_0010_1100 → `AC 02`.
//! Zigzag maps signed to unsigned so small magnitudes stay short:
//! 0→0, -1→1, 1→2, -2→3 … (`(n << 1) ^ (n >> 63)`), so -1 is the single byte `01`.
//! A u64 needs at most 10 bytes; a longer run of continuation bits, or a 10th
//! byte above 1, is an error (it would overflow), never a loop.

use super::cursor::Cursor;
use super::error::DecodeError;

/// Most bytes a 64-bit varint may take.
pub const MAX_LEN: usize = 10;

/// Appends `v` as LEB128.
#[inline]
pub fn write_u64(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Zigzag-encodes `v` then appends it as LEB128.
#[inline]
pub fn write_i64_zigzag(out: &mut Vec<u8>, v: i64) {
    write_u64(out, zigzag_encode(v));
}

#[inline]
pub fn zigzag_encode(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

#[inline]
pub fn zigzag_decode(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// Reads one LEB128 u64.
#[inline]
pub fn read_u64(c: &mut Cursor<'_>, what: &'static str) -> Result<u64, DecodeError> {
    let start = c.pos();
    let mut v: u64 = 0;
    for i in 0..MAX_LEN {
        let b = c.u8(what)?;
        if i == MAX_LEN - 1 && b > 1 {
            return Err(DecodeError::out_of_range(start, what, "varint longer than 64 bits"));
        }
        v |= u64::from(b & 0x7f) << (7 * i);
        if b < 0x80 {
            return Ok(v);
        }
    }
    Err(DecodeError::out_of_range(start, what, "varint longer than 10 bytes"))
}

/// Reads one zigzag LEB128 i64.
#[inline]
pub fn read_i64_zigzag(c: &mut Cursor<'_>, what: &'static str) -> Result<i64, DecodeError> {
    read_u64(c, what).map(zigzag_decode)
}

/// [`read_i64_zigzag`] for the Avro decoders' hot loops: a one-byte varint
/// (|v| < 64: counts, lengths, indexes, small ints) read in line, longer
/// ones out of line. With ten bytes left (the longest varint) those are read
/// without a bounds check per byte; nearer the end of the input
/// [`read_u64`] reads them and reports the truncation. Same values and
/// errors as [`read_i64_zigzag`]: within ten bytes a varint either ends or
/// has a tenth byte above 1.
#[inline(always)]
pub fn read_i64_zigzag_hot(c: &mut Cursor<'_>, what: &'static str) -> Result<i64, DecodeError> {
    match c.peek() {
        Some(b) if b < 0x80 => {
            c.seek(c.pos() + 1);
            Ok(zigzag_decode(u64::from(b)))
        }
        _ => read_i64_zigzag_multi(c, what),
    }
}

/// [`read_i64_zigzag_hot`] with two-byte varints (|v| < 8,192) in line
/// too, for lengths, where two bytes are common (a 66-character hex hash).
#[inline(always)]
pub fn read_i64_zigzag_hot2(c: &mut Cursor<'_>, what: &'static str) -> Result<i64, DecodeError> {
    let at = c.pos();
    match c.peek() {
        Some(b0) if b0 < 0x80 => {
            c.seek(at + 1);
            Ok(zigzag_decode(u64::from(b0)))
        }
        Some(b0) => match c.input().get(at + 1) {
            Some(&b1) if b1 < 0x80 => {
                c.seek(at + 2);
                Ok(zigzag_decode(u64::from(b0 & 0x7f) | u64::from(b1) << 7))
            }
            _ => read_i64_zigzag_multi(c, what),
        },
        None => read_i64_zigzag_multi(c, what),
    }
}

/// [`read_i64_zigzag_hot`]'s varints of two bytes or more.
#[inline(never)]
fn read_i64_zigzag_multi(c: &mut Cursor<'_>, what: &'static str) -> Result<i64, DecodeError> {
    let start = c.pos();
    let Some(bytes) = c.input().get(start..).and_then(|rest| rest.first_chunk::<MAX_LEN>()) else {
        return read_i64_zigzag(c, what);
    };
    let mut v: u64 = 0;
    for (i, &b) in bytes[..MAX_LEN - 1].iter().enumerate() {
        v |= u64::from(b & 0x7f) << (7 * i);
        if b < 0x80 {
            c.seek(start + i + 1);
            return Ok(zigzag_decode(v));
        }
    }
    let last = bytes[MAX_LEN - 1];
    if last > 1 {
        return Err(DecodeError::out_of_range(start, what, "varint longer than 64 bits"));
    }
    c.seek(start + MAX_LEN);
    Ok(zigzag_decode(v | (u64::from(last) << 63)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::ErrorKind;

    fn enc(v: u64) -> Vec<u8> {
        let mut out = Vec::new();
        write_u64(&mut out, v);
        out
    }

    #[test]
    fn known_encodings() {
        assert_eq!(enc(0), [0x00]);
        assert_eq!(enc(1), [0x01]);
        assert_eq!(enc(127), [0x7f]);
        assert_eq!(enc(128), [0x80, 0x01]);
        assert_eq!(enc(300), [0xac, 0x02]);
        assert_eq!(
            enc(u64::MAX),
            [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]
        );
    }

    #[test]
    fn zigzag_table() {
        for (n, z) in [
            (0i64, 0u64),
            (-1, 1),
            (1, 2),
            (-2, 3),
            (2, 4),
            (i64::MAX, u64::MAX - 1),
            (i64::MIN, u64::MAX),
        ] {
            assert_eq!(zigzag_encode(n), z);
            assert_eq!(zigzag_decode(z), n);
        }
    }

    #[test]
    fn every_length_boundary_round_trips() {
        for k in 0..64 {
            for v in [(1u64 << k) - 1, 1u64 << k, (1u64 << k) + 1] {
                let bytes = enc(v);
                assert_eq!(bytes.len(), (64 - (v | 1).leading_zeros() as usize).div_ceil(7), "{v}");
                let mut c = Cursor::new(&bytes);
                assert_eq!(read_u64(&mut c, "v").unwrap(), v);
                assert!(c.is_empty());
            }
        }
    }

    #[test]
    fn overlong_and_truncated_are_errors() {
        let mut c = Cursor::new(&[0xff; 11]);
        assert!(read_u64(&mut c, "v").is_err());
        let mut c = Cursor::new(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02]);
        assert!(read_u64(&mut c, "v").is_err());
        let mut c = Cursor::new(&[0x80]);
        assert!(matches!(read_u64(&mut c, "v").unwrap_err().kind, ErrorKind::Eof { .. }));
    }

    type Read = fn(&mut Cursor<'_>, &'static str) -> Result<i64, DecodeError>;

    #[test]
    fn the_hot_readers_read_as_the_plain_one_does_at_any_distance_from_the_end() {
        // Every varint length, overlong and truncated runs, each followed by
        // 0 to 11 bytes, so both the ten-byte read and the per-byte reader run.
        let mut cases: Vec<Vec<u8>> = Vec::new();
        for k in 0..64 {
            for v in [(1u64 << k) - 1, 1u64 << k] {
                let mut b = Vec::new();
                write_u64(&mut b, v);
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
                let at_3 = || {
                    let mut c = Cursor::new(&bytes);
                    c.seek(3);
                    c
                };
                let mut plain = at_3();
                let want = read_i64_zigzag(&mut plain, "v");
                for (name, hot) in [("hot", read_i64_zigzag_hot as Read), ("hot2", read_i64_zigzag_hot2)] {
                    let mut ours = at_3();
                    assert_eq!(hot(&mut ours, "v"), want, "{name} {case:02x?} + {tail}");
                    if want.is_ok() {
                        assert_eq!(ours.pos(), plain.pos(), "{name} {case:02x?} + {tail}");
                    }
                }
            }
        }
    }
}
