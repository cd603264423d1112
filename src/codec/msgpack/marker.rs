//! The MessagePack first byte: one [`Marker`] per format of the spec's
//! "Overview" table, decoded by one total match over hex ranges.
//!
//! Spec: <https://github.com/msgpack/msgpack/blob/master/spec.md#overview>.
//! The first byte of every value is a marker. Four ranges carry a small
//! payload inside the marker itself (the "fix" formats); every other byte
//! names a format whose length or value follows big-endian. `0xc1` is
//! "never used" and is an error wherever a value is expected.
//!
//! ```text
//! 0x00..=0x7f positive fixint   0xc0 nil        0xcc..=0xcf uint 8/16/32/64
//! 0x80..=0x8f fixmap (0–15)     0xc1 (never)    0xd0..=0xd3 int 8/16/32/64
//! 0x90..=0x9f fixarray (0–15)   0xc2/c3 bool    0xd4..=0xd8 fixext 1/2/4/8/16
//! 0xa0..=0xbf fixstr (0–31)     0xc4..=c6 bin   0xd9..=0xdb str 8/16/32
//! 0xe0..=0xff negative fixint   0xc7..=c9 ext   0xdc/dd array 16/32, 0xde/df map 16/32
//!                               0xca/cb float 32/64
//! ```

use crate::codec::DecodeError;
use crate::codec::cursor::Cursor;

/// Declares [`Marker`] from one table of the byte-per-format markers (byte,
/// variant, the spec's name), so that [`Marker::from_u8`], [`Marker::to_u8`]
/// and [`Marker::name`] are three matches over the same rows; the four fix
/// families and the negative fixints, whose payload sits in the byte, are
/// written out around them.
macro_rules! markers {
    ($($byte:literal $variant:ident $name:literal,)*) => {
        /// One MessagePack marker byte. The discriminant is the format's first (or
        /// only) byte; the fix formats carry the value or length packed into the
        /// marker.
        #[repr(u8)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Marker {
            /// `0xxxxxxx`: the integer 0..=127 itself.
            FixPos(u8) = 0x00,
            /// `1000xxxx`: a map of 0..=15 key/value pairs.
            FixMap(u8) = 0x80,
            /// `1001xxxx`: an array of 0..=15 elements.
            FixArray(u8) = 0x90,
            /// `101xxxxx`: a string of 0..=31 bytes.
            FixStr(u8) = 0xa0,
            $($variant = $byte,)*
            /// `111xxxxx`: the integer -32..=-1 itself.
            FixNeg(i8) = 0xe0,
        }

        impl Marker {
            /// Decodes any byte: every one of the 256 values is some marker.
            #[inline]
            pub const fn from_u8(b: u8) -> Marker {
                match b {
                    0x00..=0x7f => Marker::FixPos(b),
                    0x80..=0x8f => Marker::FixMap(b & 0x0f),
                    0x90..=0x9f => Marker::FixArray(b & 0x0f),
                    0xa0..=0xbf => Marker::FixStr(b & 0x1f),
                    $($byte => Marker::$variant,)*
                    // Two's complement: 0xe0 is -32, 0xff is -1.
                    0xe0..=0xff => Marker::FixNeg(b as i8),
                }
            }

            /// The byte that encodes this marker (inverse of [`Marker::from_u8`] for
            /// in-range payloads; the fix payloads are masked to their bit width).
            #[inline]
            pub const fn to_u8(self) -> u8 {
                match self {
                    Marker::FixPos(v) => v & 0x7f,
                    Marker::FixMap(n) => 0x80 | (n & 0x0f),
                    Marker::FixArray(n) => 0x90 | (n & 0x0f),
                    Marker::FixStr(n) => 0xa0 | (n & 0x1f),
                    $(Marker::$variant => $byte,)*
                    Marker::FixNeg(v) => 0xe0 | (v as u8 & 0x1f),
                }
            }

            /// The spec's name of the format, used in error messages
            /// (`expected integer, found str 8 (0xd9)`).
            pub const fn name(self) -> &'static str {
                match self {
                    Marker::FixPos(_) => "positive fixint",
                    Marker::FixMap(_) => "fixmap",
                    Marker::FixArray(_) => "fixarray",
                    Marker::FixStr(_) => "fixstr",
                    $(Marker::$variant => $name,)*
                    Marker::FixNeg(_) => "negative fixint",
                }
            }
        }
    };
}

#[rustfmt::skip]
markers! {
    0xc0 Nil "nil",
    // The one byte the spec never uses.
    0xc1 Reserved "reserved marker",
    0xc2 False "false",
    0xc3 True "true",
    0xc4 Bin8 "bin 8",
    0xc5 Bin16 "bin 16",
    0xc6 Bin32 "bin 32",
    0xc7 Ext8 "ext 8",
    0xc8 Ext16 "ext 16",
    0xc9 Ext32 "ext 32",
    0xca F32 "float 32",
    0xcb F64 "float 64",
    0xcc U8 "uint 8",
    0xcd U16 "uint 16",
    0xce U32 "uint 32",
    0xcf U64 "uint 64",
    0xd0 I8 "int 8",
    0xd1 I16 "int 16",
    0xd2 I32 "int 32",
    0xd3 I64 "int 64",
    0xd4 FixExt1 "fixext 1",
    0xd5 FixExt2 "fixext 2",
    0xd6 FixExt4 "fixext 4",
    0xd7 FixExt8 "fixext 8",
    0xd8 FixExt16 "fixext 16",
    0xd9 Str8 "str 8",
    0xda Str16 "str 16",
    0xdb Str32 "str 32",
    0xdc Array16 "array 16",
    0xdd Array32 "array 32",
    0xde Map16 "map 16",
    0xdf Map32 "map 32",
}

/// Marker bytes the writer emits, named once here so `write.rs` has no bare hex.
pub const NIL: u8 = Marker::Nil.to_u8();
pub const FALSE: u8 = Marker::False.to_u8();
pub const TRUE: u8 = Marker::True.to_u8();
pub const F64: u8 = Marker::F64.to_u8();
pub const U8: u8 = Marker::U8.to_u8();
pub const U16: u8 = Marker::U16.to_u8();
pub const U32: u8 = Marker::U32.to_u8();
pub const U64: u8 = Marker::U64.to_u8();
pub const I8: u8 = Marker::I8.to_u8();
pub const I16: u8 = Marker::I16.to_u8();
pub const I32: u8 = Marker::I32.to_u8();
pub const I64: u8 = Marker::I64.to_u8();
pub const FIXSTR: u8 = Marker::FixStr(0).to_u8();
pub const STR8: u8 = Marker::Str8.to_u8();
pub const STR16: u8 = Marker::Str16.to_u8();
pub const STR32: u8 = Marker::Str32.to_u8();
pub const FIXARRAY: u8 = Marker::FixArray(0).to_u8();
pub const ARRAY16: u8 = Marker::Array16.to_u8();
pub const ARRAY32: u8 = Marker::Array32.to_u8();
pub const FIXMAP: u8 = Marker::FixMap(0).to_u8();
pub const MAP16: u8 = Marker::Map16.to_u8();
pub const MAP32: u8 = Marker::Map32.to_u8();

/// The length or count after a str, bin, ext, array or map marker `m` just
/// read: in the marker for the fix forms, else the 1, 2 or 4 bytes after it.
pub(crate) fn length(cur: &mut Cursor<'_>, m: Marker, expected: &'static str) -> Result<u32, DecodeError> {
    Ok(match m {
        Marker::FixStr(n) | Marker::FixArray(n) | Marker::FixMap(n) => u32::from(n),
        Marker::Str8 | Marker::Bin8 | Marker::Ext8 => u32::from(cur.u8(expected)?),
        Marker::Str16 | Marker::Bin16 | Marker::Ext16 | Marker::Array16 | Marker::Map16 => {
            u32::from(u16::from_be_bytes(cur.array(expected)?))
        }
        _ => u32::from_be_bytes(cur.array(expected)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `from_u8` and `to_u8` agree on all 256 bytes: every row of the table
    /// and every fix payload round trips.
    #[test]
    fn every_byte_round_trips() {
        for b in 0..=255u8 {
            assert_eq!(Marker::from_u8(b).to_u8(), b, "byte {b:#04x}");
        }
    }

    #[test]
    fn fix_payloads_and_names() {
        let cases = [
            (0x00, Marker::FixPos(0), "positive fixint"),
            (0x7f, Marker::FixPos(127), "positive fixint"),
            (0x8f, Marker::FixMap(15), "fixmap"),
            (0x90, Marker::FixArray(0), "fixarray"),
            (0xbf, Marker::FixStr(31), "fixstr"),
            (0xc1, Marker::Reserved, "reserved marker"),
            (0xe0, Marker::FixNeg(-32), "negative fixint"),
            (0xff, Marker::FixNeg(-1), "negative fixint"),
        ];
        for (b, m, name) in cases {
            assert_eq!(Marker::from_u8(b), m, "byte {b:#04x}");
            assert_eq!(m.name(), name);
        }
    }
}
