//! CRC-32/IEEE: the checksum in every gzip trailer (RFC 1952 §8) and in the
//! `@generated` stamps that prove committed generated code is fresh.
//!
//! Parameters (the "CRC-32" of zlib, PNG, Ethernet): reflected polynomial
//! `0xEDB88320` (the bit-reversed form of `0x04C11DB7`), initial value
//! `0xFFFFFFFF`, final XOR `0xFFFFFFFF`. The check value, the CRC of the ASCII
//! bytes `123456789`, is `0xCBF43926`:
//!
//! ```
//! assert_eq!(wirebench::crc32::crc32(b"123456789"), 0xCBF4_3926);
//! assert_eq!(wirebench::crc32::crc32(b""), 0);
//! ```
//!
//! The implementation is "slicing-by-8" (Intel, Kounavis & Berry 2005): eight
//! 256-entry tables, all built at compile time by a `const fn`, let the loop
//! fold 8 input bytes per step instead of 1. `TABLES[0][b]` is the classic
//! Sarwate table (the CRC of byte `b`); `TABLES[k][b]` is the CRC of byte `b`
//! followed by `k` zero bytes, so the eight lookups of one step combine by XOR.
//! At a few GB/s this is far below what deflate costs on the same bytes.

/// The reflected CRC-32/IEEE polynomial.
pub const POLY: u32 = 0xEDB8_8320;

/// Slicing-by-8 tables; see the module doc.
static TABLES: [[u32; 256]; 8] = make_tables();

const fn make_tables() -> [[u32; 256]; 8] {
    let mut t = [[0u32; 256]; 8];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut bit = 0;
        while bit < 8 {
            c = if c & 1 != 0 { (c >> 1) ^ POLY } else { c >> 1 };
            bit += 1;
        }
        t[0][i] = c;
        i += 1;
    }
    let mut k = 1;
    while k < 8 {
        let mut i = 0;
        while i < 256 {
            let prev = t[k - 1][i];
            t[k][i] = (prev >> 8) ^ t[0][(prev & 0xFF) as usize];
            i += 1;
        }
        k += 1;
    }
    t
}

/// CRC-32/IEEE of `data` in one call.
pub fn crc32(data: &[u8]) -> u32 {
    let mut h = Crc32::new();
    h.update(data);
    h.finish()
}

/// Incremental CRC-32/IEEE: feed any split of the input, get the same value.
///
/// ```
/// let mut h = wirebench::crc32::Crc32::new();
/// h.update(b"1234");
/// h.update(b"56789");
/// assert_eq!(h.finish(), 0xCBF4_3926);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Crc32 {
    /// The running register, before the final XOR.
    state: u32,
}

impl Default for Crc32 {
    fn default() -> Crc32 {
        Crc32::new()
    }
}

impl Crc32 {
    /// A hasher that has seen no bytes.
    pub const fn new() -> Crc32 {
        Crc32 { state: !0 }
    }

    /// Feeds `data`.
    pub fn update(&mut self, data: &[u8]) {
        let t = &TABLES;
        let mut crc = self.state;
        let mut chunks = data.chunks_exact(8);
        for c in &mut chunks {
            // The register absorbs the first 4 bytes; the oldest byte needs the
            // most zero bytes after it (table 7), the newest none (table 0).
            let lo = crc ^ u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            let hi = u32::from_le_bytes([c[4], c[5], c[6], c[7]]);
            crc = t[7][(lo & 0xFF) as usize]
                ^ t[6][((lo >> 8) & 0xFF) as usize]
                ^ t[5][((lo >> 16) & 0xFF) as usize]
                ^ t[4][(lo >> 24) as usize]
                ^ t[3][(hi & 0xFF) as usize]
                ^ t[2][((hi >> 8) & 0xFF) as usize]
                ^ t[1][((hi >> 16) & 0xFF) as usize]
                ^ t[0][(hi >> 24) as usize];
        }
        for &b in chunks.remainder() {
            crc = (crc >> 8) ^ t[0][((crc ^ u32::from(b)) & 0xFF) as usize];
        }
        self.state = crc;
    }

    /// The CRC of everything fed so far (the hasher stays usable).
    pub fn finish(&self) -> u32 {
        !self.state
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prng::Rng;

    /// Bit-at-a-time reference: the definition, with no tables to get wrong.
    fn bitwise(data: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in data {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 { (crc >> 1) ^ POLY } else { crc >> 1 };
            }
        }
        !crc
    }

    #[test]
    fn known_values() {
        let cases: &[(&[u8], u32)] = &[
            (b"", 0x0000_0000),
            (b"a", 0xE8B7_BE43),
            (b"123456789", 0xCBF4_3926),
            (b"The quick brown fox jumps over the lazy dog", 0x414F_A339),
            (&[0u8; 32], 0x190A_55AD),
            (&[0xFFu8; 32], 0xFF6C_AB0B),
        ];
        for &(input, want) in cases {
            assert_eq!(crc32(input), want, "crc32 of {input:?}");
        }
    }

    #[test]
    fn tables_start_like_the_classic_table() {
        // RFC 1952 §8 sample code's table: entry 1 and entry 255.
        assert_eq!(TABLES[0][1], 0x7707_3096);
        assert_eq!(TABLES[0][255], 0x2D02_EF8D);
    }

    /// Every length 0..=100 (all remainders of the 8-byte loop) and every split
    /// point agree with the bitwise definition.
    #[test]
    fn slicing_matches_bitwise_for_every_length_and_split() {
        let mut rng = Rng::new(42);
        let data: Vec<u8> = (0..100).map(|_| rng.next_u64() as u8).collect();
        for len in 0..=data.len() {
            let d = &data[..len];
            let want = bitwise(d);
            assert_eq!(crc32(d), want, "length {len}");
            for split in 0..=len {
                let mut h = Crc32::new();
                h.update(&d[..split]);
                h.update(&d[split..]);
                assert_eq!(h.finish(), want, "length {len} split at {split}");
            }
        }
    }
}
