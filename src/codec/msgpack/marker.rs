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
    Nil = 0xc0,
    /// The one byte the spec never uses.
    Reserved = 0xc1,
    False = 0xc2,
    True = 0xc3,
    Bin8 = 0xc4,
    Bin16 = 0xc5,
    Bin32 = 0xc6,
    Ext8 = 0xc7,
    Ext16 = 0xc8,
    Ext32 = 0xc9,
    F32 = 0xca,
    F64 = 0xcb,
    U8 = 0xcc,
    U16 = 0xcd,
    U32 = 0xce,
    U64 = 0xcf,
    I8 = 0xd0,
    I16 = 0xd1,
    I32 = 0xd2,
    I64 = 0xd3,
    FixExt1 = 0xd4,
    FixExt2 = 0xd5,
    FixExt4 = 0xd6,
    FixExt8 = 0xd7,
    FixExt16 = 0xd8,
    Str8 = 0xd9,
    Str16 = 0xda,
    Str32 = 0xdb,
    Array16 = 0xdc,
    Array32 = 0xdd,
    Map16 = 0xde,
    Map32 = 0xdf,
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
            0xc0 => Marker::Nil,
            0xc1 => Marker::Reserved,
            0xc2 => Marker::False,
            0xc3 => Marker::True,
            0xc4 => Marker::Bin8,
            0xc5 => Marker::Bin16,
            0xc6 => Marker::Bin32,
            0xc7 => Marker::Ext8,
            0xc8 => Marker::Ext16,
            0xc9 => Marker::Ext32,
            0xca => Marker::F32,
            0xcb => Marker::F64,
            0xcc => Marker::U8,
            0xcd => Marker::U16,
            0xce => Marker::U32,
            0xcf => Marker::U64,
            0xd0 => Marker::I8,
            0xd1 => Marker::I16,
            0xd2 => Marker::I32,
            0xd3 => Marker::I64,
            0xd4 => Marker::FixExt1,
            0xd5 => Marker::FixExt2,
            0xd6 => Marker::FixExt4,
            0xd7 => Marker::FixExt8,
            0xd8 => Marker::FixExt16,
            0xd9 => Marker::Str8,
            0xda => Marker::Str16,
            0xdb => Marker::Str32,
            0xdc => Marker::Array16,
            0xdd => Marker::Array32,
            0xde => Marker::Map16,
            0xdf => Marker::Map32,
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
            Marker::Nil => 0xc0,
            Marker::Reserved => 0xc1,
            Marker::False => 0xc2,
            Marker::True => 0xc3,
            Marker::Bin8 => 0xc4,
            Marker::Bin16 => 0xc5,
            Marker::Bin32 => 0xc6,
            Marker::Ext8 => 0xc7,
            Marker::Ext16 => 0xc8,
            Marker::Ext32 => 0xc9,
            Marker::F32 => 0xca,
            Marker::F64 => 0xcb,
            Marker::U8 => 0xcc,
            Marker::U16 => 0xcd,
            Marker::U32 => 0xce,
            Marker::U64 => 0xcf,
            Marker::I8 => 0xd0,
            Marker::I16 => 0xd1,
            Marker::I32 => 0xd2,
            Marker::I64 => 0xd3,
            Marker::FixExt1 => 0xd4,
            Marker::FixExt2 => 0xd5,
            Marker::FixExt4 => 0xd6,
            Marker::FixExt8 => 0xd7,
            Marker::FixExt16 => 0xd8,
            Marker::Str8 => 0xd9,
            Marker::Str16 => 0xda,
            Marker::Str32 => 0xdb,
            Marker::Array16 => 0xdc,
            Marker::Array32 => 0xdd,
            Marker::Map16 => 0xde,
            Marker::Map32 => 0xdf,
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
            Marker::Nil => "nil",
            Marker::Reserved => "reserved marker",
            Marker::False => "false",
            Marker::True => "true",
            Marker::Bin8 => "bin 8",
            Marker::Bin16 => "bin 16",
            Marker::Bin32 => "bin 32",
            Marker::Ext8 => "ext 8",
            Marker::Ext16 => "ext 16",
            Marker::Ext32 => "ext 32",
            Marker::F32 => "float 32",
            Marker::F64 => "float 64",
            Marker::U8 => "uint 8",
            Marker::U16 => "uint 16",
            Marker::U32 => "uint 32",
            Marker::U64 => "uint 64",
            Marker::I8 => "int 8",
            Marker::I16 => "int 16",
            Marker::I32 => "int 32",
            Marker::I64 => "int 64",
            Marker::FixExt1 => "fixext 1",
            Marker::FixExt2 => "fixext 2",
            Marker::FixExt4 => "fixext 4",
            Marker::FixExt8 => "fixext 8",
            Marker::FixExt16 => "fixext 16",
            Marker::Str8 => "str 8",
            Marker::Str16 => "str 16",
            Marker::Str32 => "str 32",
            Marker::Array16 => "array 16",
            Marker::Array32 => "array 32",
            Marker::Map16 => "map 16",
            Marker::Map32 => "map 32",
            Marker::FixNeg(_) => "negative fixint",
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `from_u8` and `to_u8` are two independent matches; they agree on all
    /// 256 bytes, so neither can drift from the spec table alone.
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
